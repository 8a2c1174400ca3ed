#!/usr/bin/env python3
"""Predict the deep pipelines' K at the H100 off-grid panel's points before it is measured.

On the H100's calibration runs the deep TMA pipelines (d >= 3) follow
K = max(1, 2 - B / (W N)): two halves of the chip share L2 lines until they
are B blocks apart, then fill separately (docs/sim-device.md, "The sim
against the H100"). B depends on N, and how is not known. This program
reads B off the calibration runs only (mean over d = 3..6 and W = 16, 64 at
each calibrated size), fits three laws through the sizes, and prints, for
the points of `pascal plan --kind scan-offgrid` that test them, K under
each law beside the sim's (`pascal sim scan`, d = 4, seeds 0 and 1) and
PASCAL's answer from the bundle with its 80 % interval:

  (a) B (N - C) / N constant (least squares over the sizes),
  (b) B = p + q / N (least squares),
  (c) B of the nearest calibrated size.

usage: tools/separation-predictions.py [--bundle deploy/calibrations/h100-scan.json]
           [--pascal build/bin/pascal] [--profile h100-like]
"""
import argparse
import json
import math
import statistics
import subprocess
import sys
from collections import defaultdict

# (m, N, W): the off-grid plan's deep-pipeline points at calibrated m for C = 1371
POINTS = [(1, 4387, 2), (12, 4387, 2), (1, 4387, 32), (12, 4387, 32), (1, 4387, 96),
          (12, 4387, 96), (2, 2742, 16), (13, 2742, 16), (2, 16452, 16), (13, 16452, 16)]


def separation(bundle):
    """B[(m, N)] in blocks from the deep runs at W = 16 and 64, and C."""
    bb, C = bundle["device"]["block_bytes"], bundle["device"]["capacity_blocks"]
    ks = defaultdict(list)
    for r in bundle["measurements"]:
        if r["path"] == "tma" and r["d"] >= 3 and r["W"] in (16, 64):
            ks[(r["m"], r["N"], r["W"])].append(r["fill_bytes"] / bb / (r["N"] * r["W"]))
    B = defaultdict(list)
    for (m, N, W), k in ks.items():
        B[(m, N)].append((2 - statistics.mean(k)) * N * W)
    return {key: statistics.mean(v) for key, v in B.items()}, C


def laws(B, C, m, N):
    sizes = sorted(n for (mm, n) in B if mm == m)
    b = [B[(m, n)] for n in sizes]
    f = [n / (n - C) for n in sizes]  # (a): B = a f
    a = sum(x * y for x, y in zip(f, b)) / sum(x * x for x in f)
    u = [1 / n for n in sizes]  # (b): B = p + q u
    ub, bb_ = statistics.mean(u), statistics.mean(b)
    q = sum((x - ub) * (y - bb_) for x, y in zip(u, b)) / sum((x - ub) ** 2 for x in u)
    near = min(sizes, key=lambda n: abs(math.log(n / N)))
    return a * N / (N - C), bb_ + q * (1 / N - ub), B[(m, near)]


def k_of(B, N, W):
    return max(1.0, 2 - B / (N * W))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bundle", default="deploy/calibrations/h100-scan.json")
    ap.add_argument("--pascal", default="build/bin/pascal")
    ap.add_argument("--profile", default="h100-like")
    args = ap.parse_args()
    bundle = json.load(open(args.bundle))
    B, C = separation(bundle)
    print("| m, N, W | law (a) | law (b) | law (c) | sim d=4 (seeds 0, 1) | PASCAL d=4 [80 %] |")
    print("|---|---|---|---|---|---|")
    for m, N, W in POINTS:
        ka, kb, kc = (k_of(b, N, W) for b in laws(B, C, m, N))
        sim = []
        for seed in (0, 1):
            out = subprocess.run([args.pascal, "sim", "scan", "--profile", args.profile, "--o", "2",
                                  "--path", "tma", "--d", "4", "--m", str(m), "--N", str(N),
                                  "--W", str(W), "--seed", str(seed), "--json"],
                                 check=True, capture_output=True, text=True).stdout
            sim.append(json.loads(out)["K"])
        out = subprocess.run([args.pascal, "predict", "--bundle", args.bundle, "--o", "2", "--path",
                              "tma", "--d", "4", "--m", str(m), "--N", str(N), "--W", str(W),
                              "--json"], check=True, capture_output=True, text=True).stdout
        a = json.loads(out)
        iv = a["interval"]
        print("| %d, %d, %d | %.3f | %.3f | %.3f | %.3f, %.3f | %.3f [%.3f, %.3f] |"
              % (m, N, W, ka, kb, kc, sim[0], sim[1], a["K"], iv["K_low"], iv["K_high"]))
        sys.stdout.flush()


if __name__ == "__main__":
    main()
