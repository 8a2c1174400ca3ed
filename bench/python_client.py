#!/usr/bin/env python3
"""bench/python_client.py - end-to-end figures of the Python client and the
Triton adapter against a real pascald (shipped calibrations, a temporary
database, a free port):
  1. predict_many throughput: queries per second from a Python list to typed
     results (encode, HTTP, daemon, decode), compact answers, median of ROUNDS;
  2. single predict(): median round trip of sequential calls (full answer);
  3. adapter overhead per configuration: MatmulRanker.rank over the 16
     configurations of Triton's tutorial matmul for SHAPES distinct problem
     shapes (one batch per shape),
     once against the daemon and once against an in-process stand-in that
     answers instantly, which isolates the adapter's own Python cost.
usage: bench/python_client.py [BUILD_DIR]   (ROUNDS, default 5; QUERIES per
round, default 20000; SHAPES, default 50). Prints medians; asserts nothing.
"""
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "clients", "python"))
sys.path.insert(0, os.path.join(ROOT, "clients", "python", "examples"))
from pascal_client import Client, Prediction  # noqa: E402
from pascal_client.triton import MatmulRanker  # noqa: E402
from rank_triton_configs import configs  # noqa: E402

ROUNDS = int(os.environ.get("ROUNDS", 5))
QUERIES = int(os.environ.get("QUERIES", 20000))
SHAPES = int(os.environ.get("SHAPES", 50))


def start_daemon(build, tmp):
    proc = subprocess.Popen([os.path.join(build, "bin", "pascald"), "--listen", "127.0.0.1:0",
                             "--db", os.path.join(tmp, "bench.db"),
                             "--bundles", os.path.join(ROOT, "deploy", "calibrations")],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    line = proc.stdout.readline().decode()
    m = re.search(r":(\d+)$", line.strip())
    if not m:
        proc.kill()
        raise SystemExit("pascald did not start: %r" % line)
    return proc, "http://127.0.0.1:%s" % m.group(1)


def scan_queries(n):
    return [{"device": "sim-gb10", "o": 2 - i % 2, "path": "tma", "d": 3 + i % 2, "m": i % 11,
             "N": (2048, 4096, 6144)[i % 3], "W": (1, 4, 16, 64)[i % 4]} for i in range(n)]


class InstantClient:
    """Answers the adapter's calls from memory: one answer, no HTTP."""

    def __init__(self, real):
        self._dev = real.device("sim-gb10")
        self._answer = real.predict("sim-gb10", explain=False, Mg=1024, Ng=1024, Kg=1024,
                                    tile_m=64, stages=3, group_m=8).raw

    def device(self, name):
        return self._dev

    def predict_many(self, queries, explain=False):
        return [Prediction.from_json(self._answer) for _ in queries]


def shapes(n):
    return [(128 * (8 + i), 128 * (16 + (i * 7) % 32), 64 * (16 + (i * 5) % 64)) for i in range(n)]


def adapter_per_config(client):
    cfgs = configs()
    t0 = time.perf_counter()
    ranker = MatmulRanker(client, "sim-gb10")
    for M, N, K in shapes(SHAPES):
        ranker.rank(cfgs, M, N, K, "float16")
    return (time.perf_counter() - t0) / (SHAPES * len(cfgs))


def main():
    build = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build")
    with tempfile.TemporaryDirectory(prefix="pascal-bench-") as tmp:
        proc, url = start_daemon(build, tmp)
        try:
            with Client(url) as c:
                qs = scan_queries(QUERIES)
                c.predict_many(qs[:1000])  # warm the connection and the daemon
                rates = []
                for _ in range(ROUNDS):
                    t0 = time.perf_counter()
                    got = c.predict_many(qs)
                    rates.append(len(got) / (time.perf_counter() - t0))
                    assert all(r.ok for r in got)
                lat = []
                for q in qs[:300]:
                    t0 = time.perf_counter()
                    c.predict(**q)
                    lat.append(time.perf_counter() - t0)
                http_cfg = statistics.median(adapter_per_config(c) for _ in range(ROUNDS))
                local_cfg = statistics.median(adapter_per_config(InstantClient(c))
                                              for _ in range(ROUNDS))
        finally:
            proc.terminate()
            proc.wait()
    print("python %s, %d rounds" % (sys.version.split()[0], ROUNDS))
    print("predict_many: %d queries/round (batches of %d), median %.0f queries/s "
          "(min %.0f, max %.0f)" % (QUERIES, c.batch_max, statistics.median(rates), min(rates),
                                    max(rates)))
    print("predict (one query, full answer): median %.3f ms per call, p90 %.3f ms"
          % (1e3 * statistics.median(lat), 1e3 * sorted(lat)[int(0.9 * len(lat))]))
    print("adapter, %d configurations x %d shapes: %.1f us per configuration with the daemon, "
          "%.1f us adapter-only (in-process answers)"
          % (len(configs()), SHAPES, 1e6 * http_cfg, 1e6 * local_cfg))


if __name__ == "__main__":
    main()
