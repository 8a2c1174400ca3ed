#!/usr/bin/python3
"""sim_vs_hardware.py - the sim device scored against a GPU's measured runs.

Runs `pascal sim scan` (or `pascal sim gemm`) with a sim profile on the runs
of a measured scan (or tiled-GEMM) bundle (its held-out panel, its
calibration runs, or both) and prints, against the measured values, per
family and overall:

  - balanced MAPE of K (per key the mean |K_sim - K_hw| / K_hw over its runs,
    then the mean over keys),
  - for scans, the share of runs on which both agree about divergence
    (K > 1.05 on both, or on neither),
  - balanced MAPE of the kernel time.

Each scan run is simulated with the bundle's key, N, W and its repeat index as
the run seed, each GEMM run with its shape (Mg, Ng, Kg; the key) and repeat.
A GEMM's K is the bundle's fill-equivalent reuse factor, resident CTAs x
fill bytes over the bytes of all tile reads (tools/pascal_eval), grouped in
families by Kg; every GEMM run has K far above 1, so there is no agreement
column. A sample draws, per key, `--per-key` of its runs at random (seeded
by --seed; 0 = all runs of every key), so the check draws its own runs.
With --sim-bundle the sim's runs are taken from a sim calibration measured
with the same plans (e.g. deploy/calibrations/sim-h100-scan.json), matched
by key, N, W and repeat, instead of being run again: the sim is
deterministic, so they are the runs `pascal sim` gives.

usage: sim_vs_hardware.py --bundle deploy/calibrations/h100-scan.json|h100-tiled-gemm.json
           (--pascal build/bin/pascal --profile h100-like | --sim-bundle SIM.json)
           [--part heldout|calibration|both] [--per-key 2] [--seed 1]
           [--jobs 2] [--runs] [--json OUT.json]

With the shipped H100 bundles (run 3) and the h100-like profile a 2-per-key
sample of the held-out panel (84 runs, 3.9 G simulated requests) takes
10-15 CPU-minutes; the whole panel 50-77; the whole GEMM bundle about a
second (docs/sim-device.md, "The sim against the H100").
"""
import argparse
import json
import random
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

DIVERGED = 1.05


def family(r):
    if "Mg" in r:
        return "gemm Kg=%d" % r["Kg"]
    return "o=%d %s d=%d" % (r["o"], r["path"], r["d"])


def key_of(r):
    if "Mg" in r:
        return (r["Mg"], r["Ng"], r["Kg"])
    return (r["o"], r["path"], r["d"], r["m"])


def size_of(r):
    """The run's size beyond its key (scan: N, W; GEMM: none) and its repeat."""
    return ((r["N"], r["W"]) if "Mg" not in r else ()) + (r.get("repeat", 0),)


def measured_K(r, b):
    if "Mg" in r:
        g = b["gemm"]
        q = ((r["Mg"] // g["tile_m"]) * (r["Ng"] // g["tile_n"]) * (r["Kg"] // g["tile_k"]) *
             float(g["tile_m"] + g["tile_n"]) * g["tile_k"] * g["elem_bytes"])
        return g["resident_ctas"] * r["fill_bytes"] / q
    return r["fill_bytes"] / (r["W"] * r["N"] * b["device"]["block_bytes"])


def simulate(pascal, profile, r, b):
    if "Mg" in r:  # the bundle's tiling, one stage, its resident CTAs per SM
        g = b["gemm"]
        a = [pascal, "sim", "gemm", "--Mg", str(r["Mg"]), "--Ng", str(r["Ng"]),
             "--Kg", str(r["Kg"]), "--tile", "%dx%dx%d" % (g["tile_m"], g["tile_n"], g["tile_k"]),
             "--elem-bytes", str(g["elem_bytes"]), "--stages", "1",
             "--ctas-per-sm", str(g["resident_ctas"] // b["device"]["sm_count"])]
    else:
        a = [pascal, "sim", "scan", "--o", str(r["o"]), "--path", r["path"], "--m", str(r["m"]),
             "--N", str(r["N"]), "--W", str(r["W"])]
        if r["path"] == "tma":
            a += ["--d", str(r["d"])]
    a += ["--profile", profile, "--seed", str(r.get("repeat", 0)), "--json"]
    p = subprocess.run(a, capture_output=True, text=True)
    if p.returncode != 0:
        raise SystemExit("sim_vs_hardware: pascal sim failed: %s" % p.stderr.strip())
    return json.loads(p.stdout)


def draw(runs, per_key, seed):
    by_key = {}
    for r in runs:
        by_key.setdefault(key_of(r), []).append(r)
    rng = random.Random(seed)
    out = []
    for k in sorted(by_key, key=str):
        rs = by_key[k]
        out += rs if per_key == 0 or per_key >= len(rs) else rng.sample(rs, per_key)
    return out


def score(rows):
    """rows: dicts with key, Khw, Ksim, thw, tsim -> (balanced K MAPE, agree share,
    balanced time MAPE, runs, keys)."""
    keys = {}
    agree = 0
    for x in rows:
        keys.setdefault(x["key"], []).append(x)
        agree += (x["Khw"] > DIVERGED) == (x["Ksim"] > DIVERGED)
    kerr = [sum(abs(x["Ksim"] - x["Khw"]) / x["Khw"] for x in v) / len(v) for v in keys.values()]
    terr = [sum(abs(x["tsim"] - x["thw"]) / x["thw"] for x in v) / len(v) for v in keys.values()]
    return (100 * sum(kerr) / len(kerr), 100 * agree / len(rows), 100 * sum(terr) / len(terr),
            len(rows), len(keys))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--pascal", help="the pascal CLI (runs `pascal sim scan`)")
    ap.add_argument("--sim-bundle", help="take the sim's runs from this sim bundle instead")
    ap.add_argument("--bundle", required=True)
    ap.add_argument("--profile", help="the sim profile (with --pascal)")
    ap.add_argument("--part", choices=("heldout", "calibration", "both"), default="heldout")
    ap.add_argument("--per-key", type=int, default=2)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--runs", action="store_true", help="print every run")
    ap.add_argument("--json", help="write the rows and the summary here")
    a = ap.parse_args()
    if a.per_key < 0 or a.jobs < 1:
        ap.error("--per-key must be >= 0 and --jobs >= 1")
    if bool(a.sim_bundle) == bool(a.pascal and a.profile):
        ap.error("give either --pascal and --profile, or --sim-bundle")
    with open(a.bundle) as f:
        b = json.load(f)
    if b.get("workload") not in ("scan", "gemm"):
        ap.error("--bundle must be a scan or GEMM bundle")
    gemm = b["workload"] == "gemm"
    parts = {"heldout": ["heldout"], "calibration": ["measurements"],
             "both": ["measurements", "heldout"]}[a.part]
    runs = []
    for part in parts:
        src = b.get(part) or []
        runs += draw([r for r in src if "kernel_ns" in r], a.per_key, a.seed)
    if not runs:
        ap.error("the bundle has no runs with kernel_ns in --part %s" % a.part)
    if a.sim_bundle:
        with open(a.sim_bundle) as f:
            sb = json.load(f)
        have = {}
        for r in (sb.get("measurements") or []) + (sb.get("heldout") or []):
            have[key_of(r) + size_of(r)] = r
        sims = []
        for r in runs:
            s = have.get(key_of(r) + size_of(r))
            if s is None:
                ap.error("--sim-bundle has no run %s, size and repeat %s" % (key_of(r), size_of(r)))
            sims.append({"K": measured_K(s, sb), "kernel_ns": s["kernel_ns"]})
        a.profile = "%s (%s)" % (sb["provenance"].get("profile", "?"), a.sim_bundle)
    else:
        with ThreadPoolExecutor(a.jobs) as ex:
            sims = list(ex.map(lambda r: simulate(a.pascal, a.profile, r, b), runs))
    rows = []
    for r, s in zip(runs, sims):
        rows.append({"family": family(r), "key": key_of(r), "size": size_of(r)[:-1],
                     "repeat": r.get("repeat", 0), "Khw": measured_K(r, b), "Ksim": s["K"],
                     "thw": r["kernel_ns"], "tsim": s["kernel_ns"]})
    print("sim profile %s against %s (%s, %s): %d runs" %
          (a.profile, b["device"]["name"], a.part,
           "all runs" if a.per_key == 0 else "%d per key, seed %d" % (a.per_key, a.seed),
           len(rows)))
    if a.runs:
        for x in rows:
            at = ("%dx%dx%d" % x["key"] if gemm else
                  "m=%d N=%d W=%d" % ((x["key"][-1],) + x["size"]))
            print("  %-14s %-18s rep=%d  K hw %6.3f sim %6.3f   time hw %10.0f sim %10.0f ns" %
                  (x["family"], at, x["repeat"], x["Khw"], x["Ksim"], x["thw"], x["tsim"]))
    print("%-16s %5s %5s %12s %10s %12s %9s" % ("family", "runs", "keys", "K MAPE (%)",
                                               "agree (%)", "time MAPE (%)", "hw K>1.05"))
    fams = sorted({x["family"] for x in rows})
    summary = {}
    for f in fams + ["all"]:
        sel = [x for x in rows if f == "all" or x["family"] == f]
        k, ag, t, n, nk = score(sel)
        above = sum(x["Khw"] > DIVERGED for x in sel)
        print("%-16s %5d %5d %12.2f %10s %12.2f %9s" %
              (f, n, nk, k, "-" if gemm else "%.1f" % ag, t, "-" if gemm else "%d/%d" % (above, n)))
        summary[f] = {"runs": n, "keys": nk, "K_mape": k, "agree": ag, "time_mape": t,
                      "hw_above": above, "sim_above": sum(x["Ksim"] > DIVERGED for x in sel)}
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"profile": a.profile, "bundle": a.bundle, "part": a.part,
                       "per_key": a.per_key, "seed": a.seed, "summary": summary,
                       "rows": [dict(x, key=list(x["key"])) for x in rows]}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
