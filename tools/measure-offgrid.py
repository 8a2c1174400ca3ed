#!/usr/bin/env python3
"""measure-offgrid.py - measure the off-grid panel of a sim calibration and
ship it inside the calibration's bundle (docs/expected-error.md, "The
off-grid panel").

The panel is measured the way the shipped sim calibrations and their
held-out panels were: plans from `pascal plan --kind scan-offgrid` (four
parts) or `--kind gemm-offgrid` on the sim agent's probe, each sent to a
private pascald as a calibration, measured by one `pascal-agent --backend
sim` with the bundle's profile (run seed = the run's repeat, 0 and 1),
frozen and exported. The runs of all parts become the bundle's `offgrid`
array; everything the content hash covers (device, workload, measurements,
...) and the held-out panel stay as they are, and `pascal fit` refits, so
the report scores the new panel (MAPE against the baselines, interval
coverage per group). Nothing else is changed: rerun it after the
calibration itself is measured again.

    tools/measure-offgrid.py BUNDLE --profile PROFILE [--bin build/bin]
                             [--out BUNDLE] [--work DIR] [--nice 10]

Runs one agent at a time (niced). Exit 2 on a bad argument, 1 when a step
fails (naming it).
"""
import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request


def fail(msg, code=1):
    print("measure-offgrid.py: " + msg, file=sys.stderr)
    sys.exit(code)


def run(cmd, what, **kw):
    res = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if res.returncode != 0:
        fail("%s failed (exit %d): %s" % (what, res.returncode, (res.stderr or res.stdout).strip()[-400:]))
    return res.stdout


class Daemon:
    """A private pascald on a fresh database with no bundles."""

    def __init__(self, bin_dir, work):
        db = os.path.join(work, "pascal.db")
        out = run([os.path.join(bin_dir, "pascald"), "token", "create", "--db", db, "--role",
                   "admin", "--name", "offgrid"], "pascald token create")
        self.token = out.strip().splitlines()[-1]
        self.token_file = os.path.join(work, "admin.token")
        with open(self.token_file, "w") as f:
            f.write(self.token + "\n")
        os.chmod(self.token_file, 0o600)
        empty = os.path.join(work, "no-bundles")
        os.makedirs(empty, exist_ok=True)
        self.log = open(os.path.join(work, "pascald.log"), "w")
        for _ in range(10):
            port = random.randint(20000, 49999)
            self.url = "http://127.0.0.1:%d" % port
            self.proc = subprocess.Popen([os.path.join(bin_dir, "pascald"), "--listen",
                                          "127.0.0.1:%d" % port, "--db", db, "--bundles", empty],
                                         stdout=self.log, stderr=subprocess.STDOUT)
            for _ in range(50):
                if self.proc.poll() is not None:
                    break
                try:
                    if self.call("GET", "/healthz")[0] == 200:
                        return
                except OSError:
                    pass
                time.sleep(0.1)
            self.stop()
        fail("pascald did not start (%s)" % self.log.name)

    def call(self, method, path, body=None):
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(self.url + path, data=data, method=method)
        req.add_header("Authorization", "Bearer " + self.token)
        if data is not None:
            req.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(req, timeout=600) as r:
                return r.status, json.loads(r.read() or b"null")
        except urllib.error.HTTPError as e:
            return e.code, e.read().decode(errors="replace")

    def must(self, method, path, body, what):
        status, doc = self.call(method, path, body)
        if status not in (200, 201):
            fail("%s: HTTP %d: %s" % (what, status, str(doc)[:400]))
        return doc

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(timeout=30)


def probe(bin_dir, profile):
    out = run([os.path.join(bin_dir, "pascal-agent"), "--probe", "--backend", "sim", "--profile",
               profile], "pascal-agent --probe")
    for line in out.splitlines():
        if line.startswith("probe json: "):
            return json.loads(line[len("probe json: "):])
    fail("pascal-agent --probe printed no 'probe json:' line")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("bundle", help="the sim calibration bundle (deploy/calibrations/sim-*.json)")
    ap.add_argument("--profile", required=True, help="the sim profile it was measured with")
    ap.add_argument("--bin", default="build/bin", help="pascal, pascald, pascal-agent (build/bin)")
    ap.add_argument("--out", help="where to write the bundle (default: in place)")
    ap.add_argument("--work", help="keep the work folder here (default: a temporary one)")
    ap.add_argument("--nice", type=int, default=10, help="niceness of the agent (10)")
    a = ap.parse_args()
    for prog in ("pascal", "pascald", "pascal-agent"):
        if not os.access(os.path.join(a.bin, prog), os.X_OK):
            fail("--bin: %s/%s is not executable (make build)" % (a.bin, prog), 2)
    if not os.path.isfile(a.profile):
        fail("--profile: %s is not a file" % a.profile, 2)
    try:
        with open(a.bundle, encoding="utf-8") as f:
            bundle = json.load(f)
        dev, workload = bundle["device"], bundle["workload"]
    except (OSError, ValueError, KeyError) as e:
        fail("%s: not a calibration bundle (%s)" % (a.bundle, e), 2)
    if dev.get("arch") != "sim":
        fail("%s: device %s is not a sim device" % (a.bundle, dev.get("name")), 2)

    work = a.work or tempfile.mkdtemp(prefix="offgrid-")
    os.makedirs(work, exist_ok=True)
    pascal = os.path.join(a.bin, "pascal")
    pr = probe(a.bin, a.profile)
    for k in ("sm_count", "capacity_blocks", "block_bytes"):
        if pr[k] != dev[k]:
            fail("the profile's %s (%s) is not the bundle's (%s)" % (k, pr[k], dev[k]), 2)
    probe_file = os.path.join(work, "probe.json")
    with open(probe_file, "w") as f:
        json.dump(pr, f)
    kind = "scan-offgrid" if workload == "scan" else "gemm-offgrid"
    parts = 4 if workload == "scan" else 1
    daemon = Daemon(a.bin, work)
    runs, started = [], time.time()
    try:
        device = {k: dev[k] for k in ("name", "arch", "sm_count", "capacity_blocks", "block_bytes")}
        if "peaks" in dev:
            device["peaks"] = dev["peaks"]
        daemon.must("POST", "/v1/devices", device, "device registration")
        for part in range(1, parts + 1):
            plan_file = os.path.join(work, "plan-%d.json" % part)
            cmd = [pascal, "plan", "--kind", kind, "-o", plan_file]
            if workload == "scan":
                cmd += ["--probe", probe_file, "--part", str(part)]
            run(cmd, "pascal plan --kind %s --part %d" % (kind, part))
            with open(plan_file) as f:
                plan = json.load(f)
            cal = daemon.must("POST", "/v1/calibrations", {"device": dev["name"], "plan": plan},
                              "create part %d" % part)
            with open(os.path.join(work, "agent-%d.log" % part), "w") as log:
                rc = subprocess.call(["nice", "-n", str(a.nice), os.path.join(a.bin, "pascal-agent"),
                                      "--server", daemon.url, "--token-file", daemon.token_file,
                                      "--device", dev["name"], "--backend", "sim", "--profile",
                                      a.profile, "--capacity-blocks", str(dev["capacity_blocks"]),
                                      "--until-idle", "--name", "offgrid-%d" % part],
                                     stdout=log, stderr=subprocess.STDOUT)
            if rc != 0:
                fail("pascal-agent for part %d exited %d (%s)" % (part, rc, log.name))
            daemon.must("POST", "/v1/calibrations/%d/freeze" % cal["id"], None, "freeze part %d" % part)
            exported = daemon.must("GET", "/v1/calibrations/%d/export" % cal["id"], None,
                                   "export part %d" % part)
            runs += exported["measurements"]
            print("part %d: %d runs" % (part, len(exported["measurements"])), flush=True)
    finally:
        daemon.stop()
    wall = time.time() - started

    out = dict(bundle)
    for k in ("model", "report", "content_hash"):
        out.pop(k, None)
    out["offgrid"] = runs
    prov = dict(out.get("provenance", {}))
    prov["offgrid_plan"] = "pascal plan --kind %s%s --probe (the sim agent's probe)" % (
        kind, " --part 1..4" if parts > 1 else "")
    prov["offgrid_producer"] = ("tools/measure-offgrid.py: one pascal-agent --backend sim against "
                                "a private pascald, run seeds = repeats 0 and 1")
    prov["offgrid_wall_seconds"] = round(wall, 1)
    out["provenance"] = prov
    raw = os.path.join(work, "unfitted.json")
    with open(raw, "w") as f:
        json.dump(out, f)
    dest = a.out or a.bundle
    run([pascal, "fit", raw, "-o", dest], "pascal fit")
    print("wrote %s (%d off-grid runs, %.0f s)" % (dest, len(runs), wall))
    if not a.work:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
