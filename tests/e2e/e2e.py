"""e2e.py - shared helpers of the end-to-end tests: real pascald and
pascal-agent processes, real HTTP on an ephemeral port, a temporary database.

Every test script takes the same arguments (given by CMakeLists.txt):
    --pascald PATH --agent PATH --source DIR
and uses a World: a temporary folder holding the database, token files,
plans and every process's output, torn down (processes killed) on exit.
Python stdlib only.
"""
import argparse
import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

# The whole-test watchdog: no single wait may hang a ctest run.
WAIT_S = 120.0

FAILS = []


def check(cond, what):
    """Record a failed expectation (the test goes on to report them all)."""
    if not cond:
        FAILS.append(what)
        print("FAIL:", what, flush=True)
    return cond


def finish():
    print("%d failures" % len(FAILS))
    sys.exit(1 if FAILS else 0)


def wait_for(pred, what, timeout=WAIT_S, step=0.05):
    """Poll pred() until it returns something true; fail loudly on timeout."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        v = pred()
        if v:
            return v
        time.sleep(step)
    raise AssertionError("timed out waiting for " + what)


def parse_args():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pascald", required=True)
    ap.add_argument("--agent", required=True)
    ap.add_argument("--source", required=True)
    return ap.parse_args()


def scan_plan(families, ms, sizes, horizons=(1, 4, 16, 64)):
    return {"format": "pascal-plan/1", "workload": "scan", "sizes": list(sizes),
            "horizons": list(horizons), "repeats": 1,
            "keys": [{"o": o, "path": p, "d": d, "m": m} for (o, p, d) in families for m in ms]}


def http(method, url, body=None, token=None, timeout=30):
    """(status, parsed JSON or None) for one request; never raises on 4xx/5xx."""
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, method=method)
    if data is not None:
        req.add_header("Content-Type", "application/json")
    if token:
        req.add_header("Authorization", "Bearer " + token)
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            status, raw = r.status, r.read()
    except urllib.error.HTTPError as e:
        status, raw = e.code, e.read()
    try:
        return status, json.loads(raw) if raw else None
    except ValueError:
        return status, None


class Daemon:
    """One pascald on 127.0.0.1 (port 0 = ephemeral unless a port is given)."""

    def __init__(self, world, lease_seconds, port=0):
        self.world = world
        self.lease_seconds = lease_seconds
        self.port = port
        self.proc = None
        self.url = None
        self.starts = 0

    def start(self):
        self.starts += 1
        log = os.path.join(self.world.dir, "pascald-%d.out" % self.starts)
        err = os.path.join(self.world.dir, "pascald-%d.err" % self.starts)
        # no shipped bundles: every calibration here is the test's own
        cmd = [self.world.pascald, "--listen", "127.0.0.1:%d" % self.port, "--db", self.world.db,
               "--bundles", "", "--lease-seconds", str(self.lease_seconds)]
        with open(log, "w") as out, open(err, "w") as errf:
            self.proc = subprocess.Popen(cmd, stdout=out, stderr=errf, cwd=self.world.dir)

        def bound():
            if self.proc.poll() is not None:
                raise AssertionError("pascald exited with %s: %s" % (self.proc.returncode, open(err).read()))
            with open(log) as f:
                first = f.readline()
            if not first.endswith("\n"):
                return None
            m = re.search(r"(\d+\.\d+\.\d+\.\d+):(\d+)", first)
            if not m:
                raise AssertionError("pascald's first line names no address: %r" % first)
            return m

        m = wait_for(bound, "pascald's bound address", timeout=30)
        self.port = int(m.group(2))
        self.url = "http://127.0.0.1:%d" % self.port
        wait_for(lambda: self._healthy(), "pascald /healthz", timeout=30)
        return self

    def _healthy(self):
        try:
            return http("GET", self.url + "/healthz", timeout=2)[0] == 200
        except OSError:
            return False

    def stop(self, sig=signal.SIGTERM):
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(sig)
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc = None


class Agent:
    """One pascal-agent process; output goes to files in the world folder."""

    def __init__(self, world, name, args, token=None, env_token=None):
        self.world = world
        self.name = name
        self.out = os.path.join(world.dir, name + ".out")
        self.err = os.path.join(world.dir, name + ".err")
        cmd = [world.agent_bin] + list(args)
        if token is not None:
            tf = os.path.join(world.dir, name + ".token")
            with open(tf, "w") as f:
                f.write(token + "\n")
            os.chmod(tf, 0o600)
            cmd += ["--token-file", tf]
        env = {k: v for k, v in os.environ.items() if k != "PASCAL_TOKEN"}
        if env_token is not None:
            env["PASCAL_TOKEN"] = env_token
        with open(self.out, "w") as o, open(self.err, "w") as e:
            self.proc = subprocess.Popen(cmd, stdout=o, stderr=e, stdin=subprocess.DEVNULL, env=env)
        world.procs.append(self.proc)

    def wait(self, timeout=WAIT_S):
        try:
            return self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            raise AssertionError("%s did not exit within %g s:\n%s" % (self.name, timeout, self.text()))

    def text(self):
        with open(self.out) as o, open(self.err) as e:
            return o.read() + e.read()

    def count(self, pattern):
        return len(re.findall(pattern, self.text()))


class World:
    """Temporary folder + database + binaries; a context manager that kills
    whatever it started."""

    def __init__(self, args, lease_seconds=60):
        self.pascald = os.path.abspath(args.pascald)
        self.agent_bin = os.path.abspath(args.agent)
        self.source = os.path.abspath(args.source)
        self.profile = os.path.join(self.source, "tests", "e2e", "tiny.profile")
        self._tmp = tempfile.TemporaryDirectory(prefix="pascal-e2e-")
        self.dir = self._tmp.name
        self.db = os.path.join(self.dir, "pascal.db")
        self.procs = []
        self.daemon = Daemon(self, lease_seconds)

    def __enter__(self):
        self.daemon.start()
        self.admin = self.token("admin", "e2e-admin")
        self.agent_token = self.token("agent", "e2e-agent")
        return self

    def __exit__(self, *exc):
        for p in self.procs:
            if p.poll() is None:
                p.kill()
                p.wait()
        self.daemon.stop()
        if exc[0] is not None or FAILS:
            self.dump()
        self._tmp.cleanup()
        return False

    def dump(self):
        """Print every output file, to see why a test failed."""
        for name in sorted(os.listdir(self.dir)):
            if name.endswith((".out", ".err")):
                with open(os.path.join(self.dir, name), errors="replace") as f:
                    text = f.read()
                print("----- %s -----\n%s" % (name, text[-4000:]))

    def token(self, role, name):
        r = subprocess.run([self.pascald, "token", "create", "--db", self.db, "--role", role,
                            "--name", name], capture_output=True, text=True, timeout=30)
        if r.returncode != 0:
            raise AssertionError("token create failed: " + r.stderr)
        return r.stdout.strip().splitlines()[-1].strip()

    @property
    def url(self):
        return self.daemon.url

    def api(self, method, path, body=None, token=None):
        return http(method, self.url + path, body, token)

    def register_tiny(self, name, **extra):
        """Register the tiny sim device with the constants the sim reports
        (and any optional ones `extra` names, e.g. compute_capability)."""
        st, body = self.api("POST", "/v1/devices",
                            dict({"name": name, "arch": "sim", "sm_count": 4, "capacity_blocks": 64,
                                  "block_bytes": 16384}, **extra), self.admin)
        check(st in (200, 201), "register device %s: %s %s" % (name, st, body))

    def create_calibration(self, device, plan):
        st, body = self.api("POST", "/v1/calibrations", {"device": device, "plan": plan}, self.admin)
        if not check(st == 201, "create calibration: %s %s" % (st, body)):
            raise AssertionError("cannot create the calibration")
        return body["id"], body["progress"]["total"]

    def agent(self, name, device, *extra, token=None):
        args = ["--server", self.url, "--device", device, "--backend", "sim",
                "--profile", self.profile, "--name", name, "--poll", "0.1",
                "--backoff-base", "0.1", "--backoff-cap", "1"] + list(extra)
        return Agent(self, name, args, token=self.agent_token if token is None else token)

    def sql(self, query, params=()):
        """Read the daemon's database directly (read-only, WAL-safe)."""
        con = sqlite3.connect("file:%s?mode=ro" % self.db, uri=True, timeout=10)
        try:
            return con.execute(query, params).fetchall()
        finally:
            con.close()

    def check_jobs_accounted(self, calibration, total):
        """No job lost or counted twice: every job done, one measurement per job."""
        jobs = self.sql("SELECT id, state FROM jobs WHERE calibration = ?", (calibration,))
        meas = self.sql("SELECT job FROM measurements WHERE calibration = ?", (calibration,))
        check(len(jobs) == total, "jobs in DB %d == plan runs %d" % (len(jobs), total))
        not_done = [j for j in jobs if j[1] != "done"]
        check(not not_done, "jobs not done: %r" % not_done[:5])
        ids = [m[0] for m in meas]
        check(len(ids) == len(jobs), "measurements %d == jobs %d" % (len(ids), len(jobs)))
        check(len(set(ids)) == len(ids), "a job has two measurements")
        check(set(ids) == {j[0] for j in jobs}, "measurements belong to exactly the jobs")
