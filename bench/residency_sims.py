#!/usr/bin/python3
"""residency_sims.py - scans between the capacity C and the smallest
calibrated size, measured on the sim profiles and scored against the shipped
sim calibrations (docs/design.md 4.4, docs/expected-error.md).

For each sim profile and its shipped scan bundle, every calibrated family at
m = 0 and 6, W = 4 and 16, at N = 1.01 C to 1.5 C, is run once with
`pascal sim scan` (seed 0) and asked of the bundle with `pascal predict`.
Per size it prints the MAPE of K of the answer (which reads the device's
capacity probe there), of the curves alone (the answer's
`explanation.residency.K_refetching` where the probe was read, the answer
otherwise: what was answered before the probe was read) and of aligned
K = 1, and the share of runs inside the answer's 80 % interval. No run here
is part of any calibration or panel; nothing is fitted.

usage: residency_sims.py [--pascal build/bin/pascal] [--calibrations deploy/calibrations]
672 sims of a few milliseconds to a quarter second each: about two minutes.
"""
import argparse
import collections
import json
import os
import subprocess
import sys
import tempfile

PROFILES = (("gb10-like", "sim-gb10-scan.json"), ("thor-like", "sim-thor-scan.json"),
            ("h100-like", "sim-h100-scan.json"))
RATIOS = (1.01, 1.03, 1.05, 1.1, 1.2, 1.3, 1.4, 1.5)


def sim_k(pascal, profile, o, path, d, m, N, W):
    out = subprocess.run([pascal, "sim", "scan", "--profile", profile, "--o", str(o), "--path", path,
                          "--d", str(d), "--m", str(m), "--N", str(N), "--W", str(W), "--json"],
                         capture_output=True, text=True, check=True).stdout
    return json.loads(out)["K"]


def score(pascal, profile, bundle_path):
    with open(bundle_path, encoding="utf-8") as f:
        bundle = json.load(f)
    C = bundle["device"]["capacity_blocks"]
    families = sorted({(r["o"], r["path"], r["d"]) for r in bundle["measurements"]})
    runs = []
    for ratio in RATIOS:
        N = round(C * ratio)
        for o, path, d in families:
            for m in (0, 6):
                for W in (4, 16):
                    runs.append(dict(o=o, path=path, d=d, m=m, N=N, W=W, ratio=ratio,
                                     K=sim_k(pascal, profile, o, path, d, m, N, W)))
    queries = [{k: r[k] for k in ("o", "path", "d", "m", "N", "W")} for r in runs]
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as q:
        json.dump({"queries": queries}, q)
    try:
        out = subprocess.run([pascal, "predict", "--bundle", bundle_path, "--queries", q.name, "--json"],
                             capture_output=True, text=True, check=True).stdout
    finally:
        os.unlink(q.name)
    rows = collections.OrderedDict()
    for run, answer in zip(runs, json.loads(out)["results"]):
        curves = answer["explanation"].get("residency", {}).get("K_refetching", answer["K"])
        iv = answer["interval"]
        row = rows.setdefault(run["ratio"], [0, 0.0, 0.0, 0.0, 0])
        row[0] += 1
        row[1] += abs(answer["K"] / run["K"] - 1)
        row[2] += abs(curves / run["K"] - 1)
        row[3] += abs(1 / run["K"] - 1)
        row[4] += iv["K_low"] <= run["K"] <= iv["K_high"]
    probe = bundle["device"].get("capacity_probe", {})
    print(f"{profile} ({os.path.basename(bundle_path)}): C = {C} blocks, smallest size "
          f"{min(r['N'] for r in bundle['measurements'])}; probe ({probe.get('waves')} waves) "
          + ", ".join(f"{s}: {f:.2f}" for s, f in zip(probe.get("size_blocks", []), probe.get("fill_ratio", []))
                      if C * 0.9 <= s <= C * 1.6))
    print("  N / C   runs   answer %   curves alone %   aligned K=1 %   inside interval %")
    for ratio, (n, ans, cur, ali, cov) in rows.items():
        print(f"  {ratio:5.2f}  {n:5d}  {100 * ans / n:9.1f}  {100 * cur / n:15.1f}  {100 * ali / n:14.1f}"
              f"  {100 * cov / n:18.1f}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pascal", default="build/bin/pascal")
    ap.add_argument("--calibrations", default="deploy/calibrations")
    a = ap.parse_args()
    if not os.access(a.pascal, os.X_OK):
        sys.exit(f"residency_sims.py: {a.pascal} is not an executable (build first)")
    for profile, name in PROFILES:
        score(a.pascal, profile, os.path.join(a.calibrations, name))


if __name__ == "__main__":
    main()
