#!/usr/bin/python3
"""make-plans.py - writes the shipped calibration plans (pascal-plan/1).

The plans are data, but the rule that chose their keys is code: this script is
that rule, written once, so that the JSON files can be regenerated and the
rule read in one place. docs/plans.md explains the choices; the test
tests/agent/check_plans.py checks the written files against the rule's
properties (independently of this script).

Usage: deploy/plans/make-plans.py [OUTDIR]   (default: the script's folder)
"""
import json
import os
import sys

HORIZONS = [1, 4, 16, 64]

# Scan families (o, path, d) of the paper plan: one per depth, the
# synchronous path (d = 0) and TMA d = 1..6, each at the highest occupancy a
# GB10-like SM allows (one CTA holds 128 + d x 16384 + 1024 bytes of its
# 100 KiB: d <= 3 fit twice, d = 4, 5, 6 once), capped at 2 (the cost bound
# of `pascal plan --max-occupancy`). Seven families, sum of o = 11.
SCAN_FAMILIES = [
    (2, "sync", 0), (2, "tma", 1), (2, "tma", 2), (2, "tma", 3),
    (1, "tma", 4), (1, "tma", 5), (1, "tma", 6),
]
# Compute values: m = 4k + r, k in {0, 1, 3}, r in {0, 1, 2}. Every execution
# class chi(m) = min(m mod 4, 2) gets three references (r = 0, 1, 2 give
# classes 0, 1, 2), the low compute range where divergence turns off is dense,
# and k = 2 (m = 8, 9, 10, 11) plus m = 3, 7 stay free for held-out keys of
# every class with same-class references on both sides.
SCAN_M = [4 * k + r for k in (0, 1, 3) for r in (0, 1, 2)]
SCAN_SIZES = [3072, 4096, 6144]

# GEMM: a 6 x 5 x 4 grid of powers of two inside the paper's calibration
# ranges (all multiples of the 128 x 128 x 64 tile), disjoint from the
# paper's held-out shapes (640, 896, 1280, 2560, 5120 are not powers of two).
GEMM_MG = [256, 512, 1024, 2048, 4096, 8192]
GEMM_NG = [256, 512, 1024, 2048, 4096]
GEMM_KG = [1024, 2048, 4096, 8192]

# Small plan for demos and quick checks: two families, one that stays aligned
# and one that diverges at low compute, classes 0, 1, 2 plus m = 6 where the
# default profile's divergence has turned off, two small sizes (64 runs).
SMALL_FAMILIES = [(1, "sync", 0), (1, "tma", 4)]
SMALL_M = [0, 1, 2, 6]
SMALL_SIZES = [1536, 2048]


def scan_keys(families, ms):
    return [{"o": o, "path": p, "d": d, "m": m} for (o, p, d) in families for m in ms]


def plans():
    return {
        "scan-paper.json": {
            "format": "pascal-plan/1", "workload": "scan",
            "sizes": SCAN_SIZES, "horizons": HORIZONS, "repeats": 1,
            "keys": scan_keys(SCAN_FAMILIES, SCAN_M),
        },
        "scan-small.json": {
            "format": "pascal-plan/1", "workload": "scan",
            "sizes": SMALL_SIZES, "horizons": HORIZONS, "repeats": 1,
            "keys": scan_keys(SMALL_FAMILIES, SMALL_M),
        },
        "gemm-paper.json": {
            "format": "pascal-plan/1", "workload": "gemm", "repeats": 1,
            "shapes": [{"Mg": mg, "Ng": ng, "Kg": kg}
                       for mg in GEMM_MG for ng in GEMM_NG for kg in GEMM_KG],
        },
    }


def dump(plan):
    """One key or shape per line: readable diffs, still plain JSON."""
    head = {k: v for k, v in plan.items() if k not in ("keys", "shapes")}
    lines = ["{"]
    for k, v in head.items():
        lines.append("  %s: %s," % (json.dumps(k), json.dumps(v)))
    listname = "keys" if "keys" in plan else "shapes"
    items = plan[listname]
    lines.append('  "%s": [' % listname)
    for i, item in enumerate(items):
        lines.append("    " + json.dumps(item) + ("," if i + 1 < len(items) else ""))
    lines.append("  ]")
    lines.append("}")
    return "\n".join(lines) + "\n"


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    for name, plan in plans().items():
        with open(os.path.join(out, name), "w") as f:
            f.write(dump(plan))


if __name__ == "__main__":
    main()
