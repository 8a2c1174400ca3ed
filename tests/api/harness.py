"""harness.py - start a real pascald on an ephemeral port with a temporary
database, talk to it over real HTTP, and check every JSON response against
api-spec/openapi.yaml (Draft 2020-12 via jsonschema, $ref resolved inside the
spec). Shared by every tests/api/test_*.py.

Environment (set by tests/api/CMakeLists.txt): PASCALD (daemon binary),
PASCAL_CLI (the `pascal` CLI, may be missing), PASCAL_SOURCE (checkout root).
"""
import http.client
import json
import os
import re
import select
import signal
import socket
import sqlite3
import subprocess
import tempfile
import time
import unittest

import jsonschema
import yaml

PASCALD = os.environ.get("PASCALD", "build/bin/pascald")
PASCAL_CLI = os.environ.get("PASCAL_CLI", "build/bin/pascal")
SOURCE = os.environ.get("PASCAL_SOURCE", os.path.join(os.path.dirname(__file__), "..", ".."))
SPEC_PATH = os.path.join(SOURCE, "api-spec", "openapi.yaml")
SHIPPED = os.path.join(SOURCE, "deploy", "calibrations")


def shipped_bundles(workdir, *names):
    """A folder in workdir linking only the named bundles of deploy/calibrations,
    for --bundles: a first start imports every bundle it is given and
    recomputes its report (a GEMM bundle's takes seconds under the
    sanitizers), so a test imports the ones it asks about."""
    folder = os.path.join(workdir, "shipped")
    os.makedirs(folder, exist_ok=True)
    for name in names:
        os.symlink(os.path.join(os.path.abspath(SHIPPED), name), os.path.join(folder, name))
    return folder


def load_spec():
    with open(SPEC_PATH, encoding="utf-8") as f:
        # libyaml's loader where PyYAML has it (Debian's does): the spec loads
        # in every test process, 0.05 s against 0.45 s of pure Python
        return yaml.load(f, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))


def resolve_pointer(doc, ref):
    """Resolve a local JSON pointer "#/a/b~1c" inside doc."""
    if not ref.startswith("#/"):
        raise KeyError("only local refs are used: " + ref)
    node = doc
    for part in ref[2:].split("/"):
        part = part.replace("~1", "/").replace("~0", "~")
        node = node[int(part)] if isinstance(node, list) else node[part]
    return node


class SpecValidator:
    """Validates (method, concrete path, status, body) against the spec."""

    def __init__(self, spec=None):
        self.spec = spec or load_spec()
        self.templates = []
        for tmpl in self.spec["paths"]:
            rx = "^" + re.sub(r"\\\{[^}]+\\\}", "[^/]+", re.escape(tmpl)) + "$"
            literal = tmpl.count("{")
            self.templates.append((literal, re.compile(rx), tmpl))
        self.templates.sort(key=lambda t: t[0])  # literal paths win

    def template(self, path):
        path = path.split("?", 1)[0]
        for _, rx, tmpl in self.templates:
            if rx.match(path):
                return tmpl
        return None

    def response(self, method, path, status):
        tmpl = self.template(path)
        if tmpl is None:
            return None
        op = self.spec["paths"][tmpl].get(method.lower())
        if op is None:
            return None
        resp = op["responses"].get(str(status))
        if resp is None:
            return None
        if "$ref" in resp:
            resp = resolve_pointer(self.spec, resp["$ref"])
        return resp

    def check(self, method, path, status, ctype, body, headers=None):
        """Raise AssertionError unless the response is described by the spec,
        its required headers (a 201's Location) included."""
        resp = self.response(method, path, status)
        if resp is None and status in (404, 405) and (
                self.template(path) is None
                or method.lower() not in self.spec["paths"][self.template(path)]):
            resp = resolve_pointer(self.spec, "#/components/responses/NotFound")  # routing errors
        if resp is None:
            raise AssertionError("spec has no %s %s -> %d" % (method, path, status))
        for name, h in resp.get("headers", {}).items():
            if "$ref" in h:
                h = resolve_pointer(self.spec, h["$ref"])
            if h.get("required") and headers is not None and name.lower() not in headers:
                raise AssertionError("%s %s %d lacks the header %s" % (method, path, status, name))
            if name.lower() in (headers or {}):
                jsonschema.Draft202012Validator(h["schema"]).validate(headers[name.lower()])
        content = resp.get("content", {})
        media = (ctype or "").split(";")[0].strip()
        if media not in content:
            raise AssertionError("spec %s %s %d has no %s content" % (method, path, status, media))
        schema = content[media].get("schema")
        if schema is None or media != "application/json":
            return
        root = dict(self.spec)
        root.update(schema)
        try:
            jsonschema.Draft202012Validator(root).validate(body)
        except jsonschema.ValidationError as e:
            raise AssertionError("%s %s %d does not match the spec: %s at %s" %
                                 (method, path, status, e.message, list(e.absolute_path)))


class Response:
    def __init__(self, status, headers, raw):
        self.status = status
        self.headers = headers
        self.raw = raw
        self.ctype = headers.get("content-type", "")
        self.json = None
        if self.ctype.startswith("application/json") and raw:
            self.json = json.loads(raw)

    def error_code(self):
        return self.json["error"]["code"] if self.json and "error" in self.json else None


class Daemon:
    """One pascald process on 127.0.0.1:0 with its own database."""

    def __init__(self, workdir, args=(), db=None, bundles="", env=None):
        self.workdir = workdir
        self.db = db or os.path.join(workdir, "pascal.db")
        self.args = list(args)
        self.bundles = bundles
        self.proc = None
        self.port = None
        self.validator = SPEC_VALIDATOR
        self.stderr_path = os.path.join(workdir, "pascald.stderr")
        self.env = env  # the daemon's environment (None: this process's)
        self.fixed_port = None  # set: listen on this port (a restart where clients point)

    # Importing the shipped bundles recomputes their reports: about 7 s of
    # CPU in the ASan build, more than 20 s of wall time on a loaded machine.
    def start(self, timeout=60.0):
        self.stderr_file = open(self.stderr_path, "ab")
        listen = "127.0.0.1:%d" % (self.fixed_port or 0)
        cmd = [PASCALD, "--listen", listen, "--db", self.db, "--bundles", self.bundles] + self.args
        self.proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=self.stderr_file, env=self.env)
        deadline = time.monotonic() + timeout
        line = b""
        while not line.endswith(b"\n"):
            left = deadline - time.monotonic()
            if left <= 0 or self.proc.poll() is not None:
                self.proc.kill()  # no daemon outlives a failed start
                self.proc.wait()
                raise RuntimeError("pascald did not start: " + self.stderr_text())
            r, _, _ = select.select([self.proc.stdout], [], [], left)
            if r:
                ch = os.read(self.proc.stdout.fileno(), 1)
                if not ch:
                    self.proc.wait()
                    raise RuntimeError("pascald exited: " + self.stderr_text())
                line += ch
        m = re.match(r"^pascald listening on http://127\.0\.0\.1:(\d+)$", line.decode().strip())
        if not m:
            raise RuntimeError("unexpected first line: %r" % line)
        self.port = int(m.group(1))
        return self

    def stderr_text(self):
        try:
            with open(self.stderr_path, encoding="utf-8", errors="replace") as f:
                return f.read()[-4000:]
        except OSError:
            return ""

    def stop(self, sig=signal.SIGTERM):
        if not self.proc:
            return None
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        try:
            rc = self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            rc = self.proc.wait()
        self.proc.stdout.close()
        self.stderr_file.close()
        self.proc = None
        return rc

    def kill9(self):
        return self.stop(signal.SIGKILL)

    def token(self, role, name):
        out = subprocess.run([PASCALD, "token", "create", "--db", self.db, "--role", role, "--name", name],
                             check=True, capture_output=True, text=True).stdout
        return out.strip().splitlines()[-1]

    def request(self, method, path, body=None, token=None, headers=None, raw=None, validate=True,
                ctype="application/json"):
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        hdrs = dict(headers or {})
        data = raw
        if body is not None:
            data = json.dumps(body).encode()
        if data is not None and ctype and "Content-Type" not in hdrs:
            hdrs["Content-Type"] = ctype
        if token:
            hdrs["Authorization"] = "Bearer " + token
        try:
            conn.request(method, path, body=data, headers=hdrs)
            r = conn.getresponse()
            resp = Response(r.status, {k.lower(): v for k, v in r.getheaders()}, r.read())
        except (BrokenPipeError, ConnectionResetError):
            # the daemon answered before reading the whole body (413): read that answer
            resp = self.request_raw(method, path, data, hdrs)
        finally:
            conn.close()
        if validate:
            self.validator.check(method, path, resp.status, resp.ctype, resp.json, resp.headers)
        return resp

    def request_raw(self, method, path, data, hdrs):
        """One request on a bare socket that keeps reading after a failed send."""
        s = socket.create_connection(("127.0.0.1", self.port), timeout=30)
        head = "%s %s HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n" % (method, path)
        head += "".join("%s: %s\r\n" % kv for kv in hdrs.items())
        head += "Content-Length: %d\r\n\r\n" % len(data or b"")
        buf = b""
        try:
            try:
                s.sendall(head.encode() + (data or b""))
            except (BrokenPipeError, ConnectionResetError):
                pass
            while True:
                try:
                    chunk = s.recv(65536)
                except ConnectionResetError:
                    break
                if not chunk:
                    break
                buf += chunk
        finally:
            s.close()
        header, _, body = buf.partition(b"\r\n\r\n")
        lines = header.decode("latin-1").split("\r\n")
        status = int(lines[0].split()[1])
        headers = {}
        for l in lines[1:]:
            k, _, v = l.partition(":")
            headers[k.strip().lower()] = v.strip()
        return Response(status, headers, body)

    # --- database inspection (read-only, independent of the daemon) --------
    def row_counts(self):
        con = sqlite3.connect("file:%s?mode=ro" % self.db, uri=True)
        try:
            names = [r[0] for r in con.execute(
                "SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE 'sqlite_%'")]
            return {n: con.execute('SELECT COUNT(*) FROM "%s"' % n).fetchone()[0] for n in names}
        finally:
            con.close()


SPEC_VALIDATOR = SpecValidator()


def clock_skew_env(skew_file):
    """An environment for a daemon whose wall clock reads the real time plus
    the seconds written in skew_file (tests/harness/clock_skew.c, built by
    tests/api/CMakeLists.txt and named by PASCAL_TEST_CLOCK_LIB)."""
    env = dict(os.environ, PASCAL_TEST_CLOCK_SKEW_FILE=skew_file)
    env["LD_PRELOAD"] = os.environ["PASCAL_TEST_CLOCK_LIB"]
    # a sanitized pascald wants its runtime first in the library list
    env["ASAN_OPTIONS"] = (env.get("ASAN_OPTIONS", "") + ":verify_asan_link_order=0").lstrip(":")
    return env


class ApiAsserts:
    def req(self, *a, **k):
        return self.d.request(*a, **k)

    def assertStatus(self, resp, status, code=None):
        self.assertEqual(resp.status, status, resp.raw[:500])
        if code is not None:
            self.assertEqual(resp.error_code(), code, resp.raw[:500])


class Client(ApiAsserts, unittest.TestCase):
    """The helpers below, for a daemon a test started itself."""

    def __init__(self, daemon, admin, agent):
        super().__init__()
        self.d, self.admin, self.agent = daemon, admin, agent


class DaemonTest(ApiAsserts, unittest.TestCase):
    """A test case with one daemon per class and admin/agent tokens."""

    daemon_args = ()
    bundles = ""  # --bundles; or name shipped bundles in `shipped`
    shipped = ()

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory(prefix="pascald-api-")
        bundles = shipped_bundles(cls.tmp.name, *cls.shipped) if cls.shipped else cls.bundles
        cls.d = Daemon(cls.tmp.name, cls.daemon_args, bundles=bundles)
        cls.admin = cls.d.token("admin", "test-admin")
        cls.agent = cls.d.token("agent", "test-agent")
        cls.d.start()

    @classmethod
    def tearDownClass(cls):
        rc = cls.d.stop()
        stderr = cls.d.stderr_text() if rc != 0 else ""
        cls.tmp.cleanup()
        if rc != 0:
            raise AssertionError("pascald exited with %r on SIGTERM; its stderr ends:\n%s" % (rc, stderr))

class SynthDaemonTest(unittest.TestCase):
    """A test case with one daemon per class that imported, at startup, the
    `pascal synth` bundle of each law: cls.bundle[law] is its file and
    cls.device the device it names."""

    daemon_args = ()

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory(prefix="pascald-synth-")
        bundles = os.path.join(cls.tmp.name, "bundles")
        os.mkdir(bundles)
        cls.bundle = {}
        for law in ("scan", "gemm"):
            cls.bundle[law] = os.path.join(bundles, law + ".json")
            subprocess.run([PASCAL_CLI, "synth", "--law", law, "-o", cls.bundle[law]], check=True)
        with open(cls.bundle["scan"], encoding="utf-8") as f:
            cls.device = json.load(f)["device"]["name"]
        cls.d = Daemon(cls.tmp.name, list(cls.daemon_args), bundles=bundles).start()

    @classmethod
    def tearDownClass(cls):
        rc = cls.d.stop()
        cls.tmp.cleanup()
        assert rc == 0, rc

# --- a small calibration made through the jobs API ------------------------------

DEVICE = {"name": "testdev", "arch": "sim", "sm_count": 4, "capacity_blocks": 256, "block_bytes": 16384}

SMALL_PLAN = {
    "format": "pascal-plan/1",
    "workload": "scan",
    "sizes": [512, 1024],
    "horizons": [1, 4, 16],
    "repeats": 1,
    "keys": [{"o": 1, "path": "tma", "d": 2, "m": m} for m in (0, 1, 2, 4, 5, 6, 8, 9, 10)]
    + [{"o": 1, "path": "sync", "d": 0, "m": m} for m in (0, 1, 2, 4, 5, 6)],
}


def exact(v):
    """A form of a decoded document whose equality means the same keys in
    the same order, the same types and bit-identical doubles."""
    if isinstance(v, dict):
        return [(k, exact(x)) for k, x in v.items()]
    if isinstance(v, list):
        return [exact(x) for x in v]
    if isinstance(v, float):
        return ("real", v.hex())
    return (type(v).__name__, v)


def law_fill(run, device=DEVICE):
    """A smooth, deterministic synthetic response: K = 1 + e, W*K increasing in W."""
    chi = min(run["m"] % 4, 2)
    gain = (1.0, 0.4, 0.7)[chi] * (0.2 if run["path"] == "sync" else 1.0 + 0.5 * run["d"])
    e = 1.5 * gain * (device["capacity_blocks"] / run["N"]) * (2.718281828 ** (-run["m"] / 12.0)) \
        * run["W"] / (run["W"] + 8.0)
    M = device["sm_count"] * run["o"]
    K = min(M, 1.0 + e)
    return K * device["block_bytes"] * run["W"] * run["N"]


# One kernel time for every harness run (flat in W, so no time is fitted from
# it): 10 ms, which no harness run's fills beat at twice a test device's peak
# DRAM bandwidth (pascald refuses a faster one as implausible).
HARNESS_KERNEL_NS = 1e7


def run_all_jobs(test, device_name, token, fill=law_fill):
    """Claim and complete every queued job of the device with fill(run)
    bytes; returns the count."""
    done = 0
    while True:
        r = test.req("POST", "/v1/jobs/claim", {"device": device_name, "agent": "harness"}, token=token)
        test.assertStatus(r, 200)
        job = r.json["job"]
        if job is None:
            return done
        r = test.req("POST", "/v1/jobs/%d/result" % job["id"],
                     {"lease_token": job["lease_token"], "fill_bytes": fill(job["run"]),
                      "kernel_ns": HARNESS_KERNEL_NS}, token=token)
        test.assertStatus(r, 200)
        done += 1


def make_frozen_calibration(test, plan=None, device=None):
    """Register the device, create the plan's calibration, run it, freeze it."""
    dev = device or DEVICE
    r = test.req("POST", "/v1/devices", dev, token=test.admin)
    test.assertIn(r.status, (200, 201), r.raw)
    r = test.req("POST", "/v1/calibrations", {"device": dev["name"], "plan": plan or SMALL_PLAN},
                 token=test.admin)
    test.assertStatus(r, 201)
    cid = r.json["id"]
    run_all_jobs(test, dev["name"], test.agent)
    r = test.req("POST", "/v1/calibrations/%d/freeze" % cid, token=test.admin)
    test.assertStatus(r, 200)
    return cid
