"""pascal_build.py - the client's own PEP 517 build backend (with the PEP 660
editable hooks), standard library only, so that `pip install clients/python`
works offline in a plain virtual environment with any Python >= 3.9: pip
needs no setuptools or wheel from an index or from the system.

It reads the [project] table of pyproject.toml (the subset of TOML that file
uses: tables, `key = "string"`, `key = ["string", ...]` on one line; anything
else is an error naming the line), and writes
  - a pure-Python wheel (py3-none-any) holding the packages listed in
    [tool.pascal-build] `packages`, with METADATA, WHEEL and a RECORD of
    sha256 digests (the binary distribution format, PEP 427 / PEP 491);
  - an sdist (PEP 517/625: <name>-<version>.tar.gz with PKG-INFO) holding
    every file a wheel build needs, this backend included;
  - an editable wheel whose .pth file puts the source folder on sys.path.
Archives are reproducible: sorted entries, fixed timestamps and modes."""
import base64
import gzip
import hashlib
import io
import os
import re
import tarfile
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_FIXED_TIME = (1980, 1, 1, 0, 0, 0)  # the earliest date a zip entry can hold
_SDIST_FILES = ("pyproject.toml", "README.md", "build_backend/pascal_build.py")


# -- pyproject.toml (the subset it uses) ---------------------------------------------------

_STRING = r'"((?:[^"\\]|\\.)*)"'


def _unquote(text, lineno):
    out, i = [], 0
    while i < len(text):
        c = text[i]
        if c == "\\":
            nxt = text[i + 1:i + 2]
            if nxt not in ('"', "\\"):
                raise ValueError("pyproject.toml:%d: escape \\%s is not supported" % (lineno, nxt))
            out.append(nxt)
            i += 2
        else:
            out.append(c)
            i += 1
    return "".join(out)


def _value(text, lineno):
    m = re.fullmatch(_STRING, text)
    if m:
        return _unquote(m.group(1), lineno)
    m = re.fullmatch(r"\[\s*((?:%s\s*,\s*)*(?:%s)?)\s*,?\s*\]" % (_STRING, _STRING), text)
    if m:
        return [_unquote(s, lineno) for s in re.findall(_STRING, m.group(1))]
    raise ValueError("pyproject.toml:%d: only strings and one-line arrays of strings are "
                     "supported, not %r" % (lineno, text))


def read_pyproject(path):
    """{table name: {key: str or [str]}} for the TOML subset described above."""
    tables, current = {}, None
    with open(path, encoding="utf-8") as f:
        for lineno, raw in enumerate(f, 1):
            line = raw.strip()
            if not line or line.startswith("#"):
                continue
            m = re.fullmatch(r"\[([A-Za-z0-9_.-]+)\]", line)
            if m:
                current = tables.setdefault(m.group(1), {})
                continue
            m = re.fullmatch(r"([A-Za-z0-9_-]+)\s*=\s*(.*?)\s*(#[^\"]*)?", line)
            if not m or current is None:
                raise ValueError("pyproject.toml:%d: cannot read %r" % (lineno, line))
            current[m.group(1)] = _value(m.group(2), lineno)
    return tables


class _Project:
    """The fields of [project] and [tool.pascal-build] a build needs."""

    def __init__(self, root=ROOT):
        t = read_pyproject(os.path.join(root, "pyproject.toml"))
        p = t.get("project", {})
        for key in ("name", "version", "description", "readme", "requires-python"):
            if not isinstance(p.get(key), str):
                raise ValueError("pyproject.toml: [project] needs %s as a string" % key)
        if p.get("dependencies", []):
            raise ValueError("pyproject.toml: this backend builds packages without dependencies")
        self.root = root
        self.name = p["name"]
        self.version = p["version"]
        self.packages = t.get("tool.pascal-build", {}).get("packages")
        if not isinstance(self.packages, list) or not self.packages:
            raise ValueError("pyproject.toml: [tool.pascal-build] needs packages = [\"...\"]")
        # distribution names in file names: runs of -_. become one underscore (PEP 427/625)
        self.stem = "%s-%s" % (re.sub(r"[-_.]+", "_", self.name).lower(), self.version)
        self.dist_info = self.stem + ".dist-info"
        with open(os.path.join(root, p["readme"]), encoding="utf-8") as f:
            readme = f.read()
        self.metadata = ("Metadata-Version: 2.1\nName: %s\nVersion: %s\nSummary: %s\n"
                         "Requires-Python: %s\nDescription-Content-Type: text/markdown\n\n%s"
                         % (self.name, self.version, p["description"], p["requires-python"],
                            readme)).encode("utf-8")

    def package_files(self):
        """(path relative to the root, bytes) of every .py file of the packages, sorted."""
        out = []
        for pkg in self.packages:
            top = os.path.join(self.root, *pkg.split("."))
            if not os.path.isfile(os.path.join(top, "__init__.py")):
                raise ValueError("pyproject.toml: package %s has no __init__.py" % pkg)
            for folder, dirs, files in os.walk(top):
                dirs[:] = sorted(d for d in dirs if d != "__pycache__")
                for f in sorted(files):
                    if f.endswith(".py"):
                        full = os.path.join(folder, f)
                        with open(full, "rb") as fh:
                            out.append((os.path.relpath(full, self.root).replace(os.sep, "/"),
                                        fh.read()))
        return sorted(out)


# -- wheels ----------------------------------------------------------------------------------

_WHEEL = b"Wheel-Version: 1.0\nGenerator: pascal_build\nRoot-Is-Purelib: true\nTag: py3-none-any\n"


def _record_line(path, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return "%s,sha256=%s,%d\n" % (path, digest, len(data))


def _write_wheel(proj, wheel_directory, files):
    files = list(files) + [(proj.dist_info + "/METADATA", proj.metadata),
                           (proj.dist_info + "/WHEEL", _WHEEL)]
    record_path = proj.dist_info + "/RECORD"
    record = "".join(_record_line(p, d) for p, d in files) + record_path + ",,\n"
    files.append((record_path, record.encode("utf-8")))
    name = proj.stem + "-py3-none-any.whl"
    with zipfile.ZipFile(os.path.join(wheel_directory, name), "w", zipfile.ZIP_DEFLATED) as z:
        for path, data in files:
            info = zipfile.ZipInfo(path, _FIXED_TIME)
            info.external_attr = 0o644 << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, data)
    return name


def _write_metadata(proj, metadata_directory):
    folder = os.path.join(metadata_directory, proj.dist_info)
    os.makedirs(folder, exist_ok=True)
    for fname, data in (("METADATA", proj.metadata), ("WHEEL", _WHEEL)):
        with open(os.path.join(folder, fname), "wb") as f:
            f.write(data)
    return proj.dist_info


def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def get_requires_for_build_editable(config_settings=None):
    return []


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    return _write_metadata(_Project(), metadata_directory)


def prepare_metadata_for_build_editable(metadata_directory, config_settings=None):
    return _write_metadata(_Project(), metadata_directory)


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    proj = _Project()
    return _write_wheel(proj, wheel_directory, proj.package_files())


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    proj = _Project()
    pth = (proj.stem.split("-")[0] + "_editable.pth", (proj.root + "\n").encode("utf-8"))
    return _write_wheel(proj, wheel_directory, [pth])


def build_sdist(sdist_directory, config_settings=None):
    proj = _Project()
    files = [(p, _read(proj.root, p)) for p in _SDIST_FILES] + proj.package_files()
    files.append(("PKG-INFO", proj.metadata))
    name = proj.stem + ".tar.gz"
    # gzip's own header carries a time too: fix it (mtime=0) for a reproducible archive
    with open(os.path.join(sdist_directory, name), "wb") as raw:
        with gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as gz:
            with tarfile.open(fileobj=gz, mode="w", format=tarfile.PAX_FORMAT) as tar:
                for path, data in sorted(files):
                    info = tarfile.TarInfo("%s/%s" % (proj.stem, path))
                    info.size, info.mode, info.mtime = len(data), 0o644, 0
                    tar.addfile(info, io.BytesIO(data))
    return name


def _read(root, rel):
    with open(os.path.join(root, rel), "rb") as f:
        return f.read()
