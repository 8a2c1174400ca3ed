"""test_python_client_install.py - `pip install clients/python` offline in a
plain virtual environment (python3 -m venv, no --system-site-packages: no
setuptools or wheel from the system, no index), with this suite's python3 and
with every other Python >= 3.9 found on PATH (python3.9 ... python3.14) or
named in PASCAL_TEST_PYTHONS (paths separated by ":"), one per version. The
client's own build backend (clients/python/build_backend/pascal_build.py,
standard library only) builds the wheel; the installed copy (not the source
tree) imports and answers a request to a live pascald from outside the
checkout. Also: the backend's TOML reader agrees with tomllib on the real
pyproject.toml, every RECORD digest matches its file, two builds are
byte-identical, an sdist installs too, and `pip install -e` points at the
source.

Verified to fail without the backend: with the former pyproject.toml
(requires = ["setuptools>=61"]) pip in a plain venv stops with "Could not
find a version that satisfies the requirement setuptools>=61"."""
import base64
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest
import zipfile

from harness import SOURCE, Daemon

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "harness"))
import ci_skip  # noqa: E402

CLIENT_SRC = os.path.join(SOURCE, "clients", "python")
sys.path.insert(0, os.path.join(CLIENT_SRC, "build_backend"))
import pascal_build  # noqa: E402

try:
    import tomllib  # the reference reader for the backend's TOML subset
except ImportError:
    ci_skip.missing("tomllib", "Python 3.11 or newer as python3")


def version_of(python):
    try:
        p = subprocess.run([python, "-c", "import sys, venv, ensurepip; print('%d.%d' % "
                            "sys.version_info[:2])"], capture_output=True, text=True, timeout=30)
    except OSError:
        return None
    return p.stdout.strip() if p.returncode == 0 else None


def interpreters():
    """{"3.x": path}: this suite's python3 first, then one of each other version >= 3.9."""
    own = version_of(sys.executable)
    if own is None:
        ci_skip.missing("python3 -m venv with ensurepip", "python3-venv")
    found = {own: sys.executable}
    extra = [p for p in os.environ.get("PASCAL_TEST_PYTHONS", "").split(":") if p]
    for path in extra + [shutil.which("python3.%d" % minor) for minor in range(9, 15)]:
        v = version_of(path) if path else None
        if v is not None and v not in found and tuple(map(int, v.split("."))) >= (3, 9):
            found[v] = path
    return found


def bundled_devices():
    names = set()
    for f in os.listdir(os.path.join(SOURCE, "deploy", "calibrations")):
        if f.endswith(".json"):
            with open(os.path.join(SOURCE, "deploy", "calibrations", f)) as fh:
                names.add(json.load(fh)["device"]["name"])
    return sorted(names)


def plain_venv(python, folder):
    subprocess.run([python, "-m", "venv", folder], check=True, capture_output=True)
    return os.path.join(folder, "bin", "python")


def pip_install(py, *args):
    return subprocess.run([py, "-m", "pip", "install", "--no-index", "--disable-pip-version-check",
                           *args], capture_output=True, text=True)


class Backend(unittest.TestCase):
    def test_toml_subset_agrees_with_tomllib(self):
        with open(os.path.join(CLIENT_SRC, "pyproject.toml"), "rb") as f:
            ref = tomllib.load(f)
        mine = pascal_build.read_pyproject(os.path.join(CLIENT_SRC, "pyproject.toml"))
        self.assertEqual(mine["project"], ref["project"])
        self.assertEqual(mine["build-system"], ref["build-system"])
        self.assertEqual(mine["tool.pascal-build"], ref["tool"]["pascal-build"])

    def test_toml_outside_the_subset_is_an_error_naming_the_line(self):
        with tempfile.TemporaryDirectory() as tmp:
            p = os.path.join(tmp, "pyproject.toml")
            with open(p, "w") as f:
                f.write('[project]\nname = "x"\nversion = 1\n')
            with self.assertRaisesRegex(ValueError, "pyproject.toml:3"):
                pascal_build.read_pyproject(p)

    def test_wheel_record_and_reproducibility(self):
        with tempfile.TemporaryDirectory() as a, tempfile.TemporaryDirectory() as b:
            name = pascal_build.build_wheel(a)
            self.assertEqual(name, "pascal_client-0.1.0-py3-none-any.whl")
            self.assertEqual(name, pascal_build.build_wheel(b))
            with open(os.path.join(a, name), "rb") as fa, open(os.path.join(b, name), "rb") as fb:
                self.assertEqual(fa.read(), fb.read())
            with zipfile.ZipFile(os.path.join(a, name)) as z:
                record = z.read("pascal_client-0.1.0.dist-info/RECORD").decode().splitlines()
                listed = {}
                for line in record:
                    path, digest, size = line.rsplit(",", 2)
                    listed[path] = (digest, size)
                self.assertEqual(set(listed), set(z.namelist()))
                for path, (digest, size) in listed.items():
                    if path.endswith("RECORD"):
                        self.assertEqual((digest, size), ("", ""))
                        continue
                    data = z.read(path)
                    want = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
                    self.assertEqual(digest, "sha256=" + want.decode(), path)
                    self.assertEqual(int(size), len(data), path)
                src = sorted(f for f in os.listdir(os.path.join(CLIENT_SRC, "pascal_client"))
                             if f.endswith(".py"))
                self.assertEqual(sorted(p.split("/")[1] for p in z.namelist()
                                        if p.startswith("pascal_client/")), src)
                meta = z.read("pascal_client-0.1.0.dist-info/METADATA").decode()
                self.assertIn("Name: pascal-client\n", meta)
                self.assertIn("Requires-Python: >=3.9\n", meta)


class PipInstall(unittest.TestCase):
    def test_install_in_plain_venvs(self):
        pythons = interpreters()
        print("interpreters: %s" % ", ".join("%s (%s)" % kv for kv in sorted(pythons.items())))
        with tempfile.TemporaryDirectory(prefix="pascal-venv-") as tmp:
            src = os.path.join(tmp, "src")
            shutil.copytree(CLIENT_SRC, src, ignore=shutil.ignore_patterns("__pycache__"))
            venvs = {}
            for version, python in sorted(pythons.items()):
                py = plain_venv(python, os.path.join(tmp, "venv" + version))
                p = pip_install(py, src)
                self.assertEqual(p.returncode, 0, "%s: %s%s" % (version, p.stdout[-1500:],
                                                                p.stderr[-1500:]))
                venvs[version] = py
            # the backend wrote nothing into the source tree
            self.assertEqual(sorted(os.listdir(src)), sorted(os.listdir(CLIENT_SRC)))
            # a second plain venv: an editable install (PEP 660) runs the source,
            # then the sdist the backend builds replaces it with a copy of its own
            sd_py = plain_venv(sys.executable, os.path.join(tmp, "venv-sdist"))
            p = pip_install(sd_py, "-e", src)
            self.assertEqual(p.returncode, 0, p.stdout[-1500:] + p.stderr[-1500:])
            r = subprocess.run([sd_py, "-c", "import pascal_client; print(pascal_client.__file__)"],
                               capture_output=True, text=True, cwd=tmp,
                               env=dict(os.environ, PYTHONPATH=""))
            self.assertEqual(r.stdout.strip(), os.path.join(src, "pascal_client", "__init__.py"),
                             r.stderr)
            sd = subprocess.run([sd_py, "-c", "import sys; sys.path.insert(0, %r); "
                                 "import pascal_build; print(pascal_build.build_sdist(%r))"
                                 % (os.path.join(src, "build_backend"), tmp)],
                                capture_output=True, text=True, check=True).stdout.strip()
            p = pip_install(sd_py, "--force-reinstall", os.path.join(tmp, sd))
            self.assertEqual(p.returncode, 0, p.stdout[-1500:] + p.stderr[-1500:])
            venvs["sdist"] = sd_py
            shutil.rmtree(src)  # the installed copies must stand alone
            d = Daemon(tmp, bundles=os.path.join(SOURCE, "deploy", "calibrations")).start()
            try:
                code = ("import pascal_client as p, sys; "
                        "assert p.__file__.startswith(sys.prefix), p.__file__; "
                        "c = p.Client('http://127.0.0.1:%d'); "
                        "print(c.predict('sim-gb10', Mg=1024, Ng=1024, Kg=1024).workload, "
                        "sorted(x.name for x in c.devices()))" % d.port)
                answers = {v: subprocess.run([py, "-c", code], capture_output=True, text=True,
                                             cwd=tmp, env=dict(os.environ, PYTHONPATH=""))
                           for v, py in venvs.items()}
            finally:
                self.assertEqual(d.stop(), 0)
            for v, r in answers.items():
                self.assertEqual(r.returncode, 0, "%s: %s" % (v, r.stderr))
                self.assertEqual(r.stdout.strip(), "gemm %r" % bundled_devices(), v)


if __name__ == "__main__":
    unittest.main()
