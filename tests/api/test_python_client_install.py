"""test_python_client_install.py - `pip install clients/python` in a fresh
virtual environment, offline: the venv sees the system's setuptools and
wheel (--system-site-packages; Debian's python3-venv, python3-setuptools,
python3-wheel from deploy/install-deps.sh), pip builds the package without
an index, and the installed copy (not the source tree) imports and answers a
request to a live pascald from outside the checkout."""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

from harness import SOURCE, Daemon

CLIENT_SRC = os.path.join(SOURCE, "clients", "python")


class PipInstall(unittest.TestCase):
    def test_install_in_fresh_venv(self):
        with tempfile.TemporaryDirectory(prefix="pascal-venv-") as tmp:
            src = os.path.join(tmp, "src")
            # pip builds in place (build/, *.egg-info): work on a copy, keep the checkout clean
            shutil.copytree(CLIENT_SRC, src, ignore=shutil.ignore_patterns("build", "*.egg-info",
                                                                           "__pycache__"))
            venv = os.path.join(tmp, "venv")
            subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", venv], check=True)
            py = os.path.join(venv, "bin", "python")
            p = subprocess.run([py, "-m", "pip", "install", "--no-index", "--no-build-isolation",
                                "--disable-pip-version-check", src], capture_output=True, text=True)
            self.assertEqual(p.returncode, 0, p.stdout[-2000:] + p.stderr[-2000:])
            shutil.rmtree(src)  # the installed copy must stand alone
            d = Daemon(tmp, bundles=os.path.join(SOURCE, "deploy", "calibrations")).start()
            try:
                code = ("import pascal_client as p, sys; "
                        "assert p.__file__.startswith(sys.prefix), p.__file__; "
                        "c = p.Client('http://127.0.0.1:%d'); "
                        "print(c.predict('sim-gb10', Mg=1024, Ng=1024, Kg=1024).workload, "
                        "sorted(x.name for x in c.devices()))" % d.port)
                r = subprocess.run([py, "-c", code], capture_output=True, text=True, cwd=tmp,
                                   env=dict(os.environ, PYTHONPATH=""))
            finally:
                self.assertEqual(d.stop(), 0)
            self.assertEqual(r.returncode, 0, r.stderr)
            bundled = set()
            for f in os.listdir(os.path.join(SOURCE, "deploy", "calibrations")):
                if f.endswith(".json"):
                    with open(os.path.join(SOURCE, "deploy", "calibrations", f)) as fh:
                        bundled.add(json.load(fh)["device"]["name"])
            self.assertEqual(r.stdout.strip(), "gemm %r" % sorted(bundled))


if __name__ == "__main__":
    unittest.main()
