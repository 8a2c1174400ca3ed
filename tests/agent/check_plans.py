#!/usr/bin/python3
"""check_plans.py - the shipped plans in deploy/plans/ obey the rules written
in docs/plans.md (checked from the files themselves, not from the script that
wrote them).

scan-paper: pascal-plan/1 scan, 63 distinct keys x 3 sizes x 4 horizons x 1
repeat = 756 runs; one family per depth (sync, TMA d = 1..6), each at the
highest occupancy 100 KiB of shared memory per SM allows, capped at 2 (worked
out here from the kernel's layout); sync keys have d = 0, TMA keys d >= 1; every family
(o, path, d) has >= 3 distinct compute values and all three execution classes
chi(m) = min(m mod 4, 2); every size is above the default profile's C = 1280.
gemm-paper: 120 distinct shapes inside the paper's ranges, multiples of the
128 x 128 x 64 tile, none of them one of the paper's held-out test shapes.
scan-small: a valid scan plan with every family covering every class.
The shipped sim scan bundles (deploy/calibrations, sim-gb10 and sim-thor)
hold exactly the rule's 63 calibration keys and 42 held-out keys for their
profile's shared memory (deploy/profiles), so that a change of the rule
cannot leave stale bundles behind.
Usage: check_plans.py PLANDIR
"""
import json
import os
import sys

FAILS = []


def check(cond, what):
    if not cond:
        FAILS.append(what)


def load(plandir, name):
    with open(os.path.join(plandir, name)) as f:
        return json.load(f)


def chi(m):
    return min(m % 4, 2)


def scan_runs(plan):
    """Number of runs the plan expands into (sizes x distinct keys x horizons x repeats)."""
    keys = {(k["o"], k["path"], k["d"], k["m"]) for k in plan["keys"]}
    return len(plan["sizes"]) * len(keys) * len(plan["horizons"]) * plan["repeats"]


def check_scan(name, plan, want_keys=None, want_runs=None):
    check(plan.get("format") == "pascal-plan/1", name + ": format")
    check(plan.get("workload") == "scan", name + ": workload")
    check(plan.get("horizons") == [1, 4, 16, 64], name + ": horizons")
    check(plan.get("repeats") == 1, name + ": repeats")
    sizes = plan["sizes"]
    check(len(set(sizes)) == len(sizes) and all(isinstance(n, int) and n > 1280 for n in sizes),
          name + ": sizes distinct integers above C = 1280")
    keys = [(k["o"], k["path"], k["d"], k["m"]) for k in plan["keys"]]
    check(len(set(keys)) == len(keys), name + ": duplicate key")
    for (o, path, d, m) in keys:
        check(path in ("sync", "tma"), name + ": path %r" % path)
        check((path == "sync") == (d == 0), name + ": sync iff d == 0 for %r" % ((o, path, d, m),))
        check(o >= 1 and m >= 0, name + ": o >= 1 and m >= 0")
    families = {}
    for (o, path, d, m) in keys:
        families.setdefault((o, path, d), set()).add(m)
    for fam, ms in sorted(families.items()):
        check(len(ms) >= 3, name + ": family %r has %d compute values" % (fam, len(ms)))
        check({chi(m) for m in ms} == {0, 1, 2},
              name + ": family %r misses a class: %r" % (fam, sorted({chi(m) for m in ms})))
    if want_keys is not None:
        check(len(keys) == want_keys, name + ": %d keys, want %d" % (len(keys), want_keys))
    if want_runs is not None:
        check(scan_runs(plan) == want_runs,
              name + ": %d runs, want %d" % (scan_runs(plan), want_runs))
    return families


def occupancy(d, cap=2, smem=102400):
    """CTAs with d 16 KiB buffers (barriers padded to 128 bytes, 1 KiB driver
    reservation each) that fit into smem bytes (GB10: 100 KiB), at most cap;
    sync: cap."""
    if d == 0:
        return cap
    return min(cap, smem // (128 * ((8 * d + 127) // 128) + 16384 * d + 1024))


def rule_families(smem):
    return {(occupancy(d, smem=smem), "sync" if d == 0 else "tma", d) for d in range(7)}


def profile_smem(path):
    """smem_per_sm of a sim profile file (key = value lines, # comments)."""
    with open(path) as f:
        for line in f:
            key, _, value = line.split("#", 1)[0].partition("=")
            if key.strip() == "smem_per_sm":
                return int(value)
    return 102400  # the built-in default (gb10-like)


def check_bundle(name, bundle, smem):
    fams = rule_families(smem)
    cal = {(r["o"], r["path"], r["d"], r["m"]) for r in bundle["measurements"]}
    held = {(r["o"], r["path"], r["d"], r["m"]) for r in bundle.get("heldout", [])}
    want_cal = {f + (m,) for f in fams for m in (0, 1, 2, 4, 5, 6, 12, 13, 14)}
    want_held = {f + (m,) for f in fams for m in (3, 7, 8, 9, 10, 11)}
    check(cal == want_cal, name + ": calibration keys %d, differ from the rule by %r"
          % (len(cal), sorted(cal ^ want_cal)[:4]))
    check(held == want_held, name + ": held-out keys %d, differ from the rule by %r"
          % (len(held), sorted(held ^ want_held)[:4]))
    check(len(bundle["measurements"]) == 756 and len(bundle.get("heldout", [])) == 420,
          name + ": 756 calibration and 420 held-out runs")


def check_gemm(name, plan):
    check(plan.get("format") == "pascal-plan/1", name + ": format")
    check(plan.get("workload") == "gemm", name + ": workload")
    shapes = [(s["Mg"], s["Ng"], s["Kg"]) for s in plan["shapes"]]
    check(len(shapes) == 120 and len(set(shapes)) == 120, name + ": 120 distinct shapes")
    held_out = {(mg, ng, kg) for mg in (640, 896, 1280, 2560, 5120)
                for ng in (640, 896, 1280, 2560) for kg in (1280, 2560, 5120)}
    for (mg, ng, kg) in shapes:
        check(256 <= mg <= 8192 and 256 <= ng <= 4096 and 1024 <= kg <= 8192,
              name + ": %r outside the paper's ranges" % ((mg, ng, kg),))
        check(mg % 128 == 0 and ng % 128 == 0 and kg % 64 == 0,
              name + ": %r not a multiple of the tile" % ((mg, ng, kg),))
        check((mg, ng, kg) not in held_out, name + ": %r is a held-out shape" % ((mg, ng, kg),))


def self_test():
    """The checker must reject plans that break the rule."""
    global FAILS
    bad = {"format": "pascal-plan/1", "workload": "scan", "sizes": [2048],
           "horizons": [1, 4, 16, 64], "repeats": 1,
           "keys": [{"o": 1, "path": "tma", "d": 2, "m": m} for m in (0, 4, 8)]}
    saved, FAILS = FAILS, []
    check_scan("bad", bad)
    caught = any("misses a class" in f for f in FAILS)
    FAILS = saved
    check(caught, "self-test: a family with only class 0 must be rejected")
    check(chi(0) == 0 and chi(1) == 1 and chi(2) == 2 and chi(3) == 2 and chi(7) == 2,
          "self-test: chi")
    check([occupancy(d, cap=8) for d in range(1, 7)] == [5, 3, 2, 1, 1, 1],
          "self-test: occupancy at 100 KiB")
    check([occupancy(d, cap=8, smem=233472) for d in range(1, 7)] == [8, 6, 4, 3, 2, 2],
          "self-test: occupancy at 228 KiB")


def main():
    plandir = sys.argv[1]
    self_test()
    fams = check_scan("scan-paper", load(plandir, "scan-paper.json"), want_keys=63, want_runs=756)
    want = rule_families(102400)
    check(set(fams) == want, "scan-paper: families %r, want %r" % (sorted(fams), sorted(want)))
    check_scan("scan-small", load(plandir, "scan-small.json"))
    check_gemm("gemm-paper", load(plandir, "gemm-paper.json"))
    deploy = os.path.dirname(os.path.abspath(plandir))
    for dev, profile in (("gb10", "gb10-like"), ("thor", "thor-like")):
        with open(os.path.join(deploy, "calibrations", "sim-%s-scan.json" % dev)) as f:
            bundle = json.load(f)
        smem = profile_smem(os.path.join(deploy, "profiles", profile + ".profile"))
        check_bundle("sim-%s-scan" % dev, bundle, smem)
    for f in FAILS:
        print("FAIL:", f)
    print("%d failures" % len(FAILS))
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main())
