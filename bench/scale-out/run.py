#!/usr/bin/env python3
"""bench/scale-out/run.py - figures for docs/scale-out.md:
  1. GET /v1/predict requests/s under wrk (2 threads, 32 connections)
     straight to the primary, then through nginx
     (deploy/nginx-replicas.conf.example) with 1, 2 and 3 backends in the
     read pool (primary, + replica 1, + replica 2); p50 and p99 latency;
  2. the replication delay: a bundle imported on the primary, seconds from
     the primary's answer until each replica exports it (polled every 10 ms),
     with --replica-interval 1, over SAMPLES imports made at random phases of
     the poll; and the wall time of one POST /v1/replication/sync until the
     sync it asked for is over.
Every daemon and nginx run on this machine's loopback, so the load generator,
nginx and the backends share its cores: read the figures with that in mind.
Reuses the loopback helpers of tests/api (harness.py, replicas.py, nginx.py).
usage: bench/scale-out/run.py [BUILD_DIR]   (DURATION=seconds per wrk run,
default 3; SAMPLES=imports timed, default 5). Prints figures; asserts nothing.
"""
import json
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.dirname(os.path.dirname(HERE))
BUILD = sys.argv[1] if len(sys.argv) > 1 else os.path.join(SOURCE, "build")
os.environ.setdefault("PASCALD", os.path.join(BUILD, "bin", "pascald"))
os.environ.setdefault("PASCAL_SOURCE", SOURCE)
sys.path.insert(0, os.path.join(SOURCE, "tests", "api"))

from nginx import NGINX, Nginx  # noqa: E402
from replicas import frozen, primary_url, replica, start_primary, sync_now, wait_until  # noqa: E402

DURATION = int(os.environ.get("DURATION", "3"))
SAMPLES = int(os.environ.get("SAMPLES", "5"))
PATH = "/v1/predict?device=sim-gb10&o=2&path=tma&d=2&m=4&N=4096&W=16&explain=false"


def wrk(port):
    out = subprocess.run(["wrk", "-t2", "-c32", "-d%ds" % DURATION, "--latency",
                          "http://127.0.0.1:%d%s" % (port, PATH)],
                         capture_output=True, text=True, check=True).stdout
    rps = float(re.search(r"Requests/sec:\s+([0-9.]+)", out).group(1))
    lat = dict(re.findall(r"^\s+(50|99)%\s+(\S+)$", out, re.M))
    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    return rps, lat.get("50"), lat.get("99"), int(errors.group(1)) if errors else 0


def main():
    if not NGINX or not shutil.which("wrk"):
        sys.exit("run.py needs nginx and wrk (deploy/install-deps.sh installs both)")
    tmp = tempfile.TemporaryDirectory(prefix="pascal-scale-out-")
    p = start_primary(tmp.name)
    rs = [replica(tmp.name, "r%d" % i, primary_url(p)).start() for i in (1, 2)]
    want = frozen(p)
    for r in rs:
        wait_until(lambda: frozen(r) == want, 10)
    print("machine: %d cores online; wrk -t2 -c32 -d%ds, GET /v1/predict (explain=false)"
          % (os.cpu_count(), DURATION))
    print("%-26s %12s %9s %9s %7s" % ("target", "requests/s", "p50", "p99", "non-2xx"))
    print("%-26s %12.0f %9s %9s %7d" % (("primary, no nginx",) + wrk(p.port)))
    backends = [p] + rs
    for n in (1, 2, 3):
        ngx = Nginx(os.path.join(tmp.name, "n%d" % n), p.port, [d.port for d in backends[:n]])
        ngx.start()
        try:
            print("%-26s %12.0f %9s %9s %7d" % (("nginx, %d backend(s)" % n,) + wrk(ngx.port)))
        finally:
            ngx.stop()
    with open(os.path.join(SOURCE, "deploy", "calibrations", "sim-gb10-scan.json")) as f:
        bundle = json.load(f)
    for k in ("content_hash", "model", "report"):
        bundle.pop(k)
    delays, imports = [], []
    rnd = random.Random(19)
    for i in range(SAMPLES):
        bundle["device"]["name"] = "bench-dev-%d" % i
        time.sleep(rnd.uniform(0, 1))  # at a random phase of the replicas' poll
        t_post = time.monotonic()
        cid = p.request("POST", "/v1/calibrations/import", bundle, token=p.admin).json["id"]
        t0 = time.monotonic()  # frozen on the primary from here on
        imports.append(t0 - t_post)
        path = "/v1/calibrations/%d/export" % cid
        for r in rs:
            wait_until(lambda: r.request("GET", path, validate=False).status == 200, 10)
            delays.append(time.monotonic() - t0)
    print("import on the primary (fit + report): median %.3f s" % statistics.median(imports))
    print("replication delay after it, --replica-interval 1, %d imports x 2 replicas: "
          "median %.3f s, max %.3f s" % (SAMPLES, statistics.median(delays), max(delays)))
    t0 = time.monotonic()
    sync_now(rs[0])  # 202 at once; then until the replica reports that sync over
    print("POST /v1/replication/sync with nothing new (%d held), until it is over: %.1f ms"
          % (len(frozen(rs[0])), (time.monotonic() - t0) * 1e3))
    for d in backends:
        d.stop()
    tmp.cleanup()


if __name__ == "__main__":
    main()
