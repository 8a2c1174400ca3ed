#!/usr/bin/env python3
"""bench/attention_ranking.py - how well the attention adapter
(pascal_client.attention) ranks configurations, against the time the sim
device measures for each (docs/attention.md, docs/autotuning.md).

For each sim device with a shipped attention calibration and each problem of
a small grid (multi-query attention, FP16, head_dim 64: heads H, N_CTX query
rows, N_CTX_KV keys), the configurations are the kernel's depths
num_stages = 1, 2, 3 (the calibrated tiling, 64 x 64). pascald (shipped
calibrations, a temporary database) answers each through the adapter; the
sim measures each with `pascal sim attention` (the plans' occupancy for the
profile, seed 0). Per device it prints the mean Kendall tau between the
predicted and the measured order over the problems, the mean and worst
top-1 regret (measured time of the predicted best over the measured best,
minus 1), the time MAPE of time_s, and the same regret for the fallback
order (aligned K = 1, which ties across depths: the given order).
usage: bench/attention_ranking.py [BUILD_DIR]. Prints figures; asserts nothing.
"""
import itertools
import json
import os
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "clients", "python"))
sys.path.insert(0, os.path.join(ROOT, "bench"))
from pascal_client import Client  # noqa: E402
from pascal_client.attention import AttentionRanker  # noqa: E402
from python_client import start_daemon  # noqa: E402

DEVICES = {"sim-gb10": "deploy/profiles/gb10-like.profile",
           "sim-thor": "deploy/profiles/thor-like.profile"}
PROBLEMS = [dict(Z=1, H=h, N_CTX=q, N_CTX_KV=kv, HEAD_DIM=64, dtype="float16")
            for h, q, kv in itertools.product((16, 32), (2048, 4096), (131072, 262144))]
STAGES = (1, 2, 3)


class Config:
    def __init__(self, stages):
        self.kwargs = {"BLOCK_M": 64, "BLOCK_N": 64, "STAGE": 1}
        self.num_warps = 4
        self.num_stages = stages


def measured_ns(build, profile, p, stages):
    out = subprocess.run([os.path.join(build, "bin", "pascal"), "sim", "attention", "--profile",
                          os.path.join(ROOT, profile), "--seq-q", str(p["N_CTX"]), "--seq-kv",
                          str(p["N_CTX_KV"]), "--heads", str(p["H"]), "--stages", str(stages),
                          "--json"], check=True, capture_output=True, text=True).stdout
    return json.loads(out)["kernel_ns"]


def kendall_tau(a, b):
    pairs = list(itertools.combinations(range(len(a)), 2))
    s = sum((1 if (a[i] - a[j]) * (b[i] - b[j]) > 0 else -1 if (a[i] - a[j]) * (b[i] - b[j]) < 0
             else 0) for i, j in pairs)
    return s / len(pairs)


def main():
    build = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build")
    with tempfile.TemporaryDirectory() as tmp:
        proc, url = start_daemon(build, tmp)
        try:
            client = Client(url)
            for dev, profile in DEVICES.items():
                ranker = AttentionRanker(client, dev, kv_heads=1)
                taus, regrets, fallback, errors = [], [], [], []
                for p in PROBLEMS:
                    cfgs = [Config(s) for s in STAGES]
                    got = ranker.assess_many(cfgs, **p)
                    if not all(a.covered for a in got):
                        print("%s %r: not covered: %s" % (dev, p, [a.reason for a in got]))
                        continue
                    pred = [a.key for a in got]
                    meas = [measured_ns(build, profile, p, s) for s in STAGES]
                    taus.append(kendall_tau(pred, meas))
                    regrets.append(meas[pred.index(min(pred))] / min(meas) - 1)
                    fallback.append(meas[0] / min(meas) - 1)  # aligned K = 1 ties: given order
                    errors += [abs(x * 1e9 / y - 1) for x, y in zip(pred, meas)]
                    print("%s H=%d N_CTX=%d N_CTX_KV=%d: predicted %s ms, measured %s ms" % (
                        dev, p["H"], p["N_CTX"], p["N_CTX_KV"],
                        " ".join("%.3f" % (x * 1e3) for x in pred),
                        " ".join("%.3f" % (y / 1e6) for y in meas)))
                if taus:
                    print("%s: %d problems x %d depths: Kendall tau %.3f, top-1 regret mean "
                          "%.2f %% (worst %.2f %%), time MAPE %.2f %%; fallback order regret "
                          "mean %.2f %%" % (dev, len(taus), len(STAGES), statistics.mean(taus),
                                            100 * statistics.mean(regrets), 100 * max(regrets),
                                            100 * statistics.mean(errors),
                                            100 * statistics.mean(fallback)))
        finally:
            proc.kill()
            proc.wait()


if __name__ == "__main__":
    main()
