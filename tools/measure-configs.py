#!/usr/bin/env python3
"""measure-configs.py - measure a sim GEMM calibration's configuration runs
and ship them inside its bundle (docs/autotuning.md "Configurations",
docs/bundle-format.md "configurations").

A GEMM calibration measures one configuration (128 x 128 x 64 FP16, one
stage, direct raster); the time of the others is carried from it
(pascal/gemm_config.h "Time"), with one parameter of its own, the
per-k-iteration overhead, that only runs of other configurations can fit.
This tool measures those of the sim's configuration plan (`pascal plan
--kind gemm-configs --smem-per-sm 0`, the plan a sim device's pascald jobs
and measure.sh's configs phase measure; plan_gen.h says how it is chosen):
each configuration on each shape, one `pascal sim gemm` run (seed 0, as the
sim agent runs repeat 0) on the bundle's sim profile, and writes them as
the bundle's `configurations` array; everything else (device, measurements,
panels) stays as it is, the provenance says what was done, and `pascal fit`
refits and freezes (a new content hash). It exists beside the job path
(POST /v1/calibrations with "base") for the shipped bundles, whose off-grid
panels and provenance a pascald import does not keep as measurement rows.

    tools/measure-configs.py BUNDLE --profile PROFILE [--bin build/bin]
                             [--out BUNDLE] [--nice 10]

Exit 2 on a bad argument, 1 when a step fails (naming it).
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

KEYS = ("tile_m", "tile_n", "tile_k", "elem_bytes", "stages", "group_m")


def fail(msg, code=1):
    print("measure-configs.py: " + msg, file=sys.stderr)
    sys.exit(code)


def run(cmd, what):
    res = subprocess.run(cmd, capture_output=True, text=True)
    if res.returncode != 0:
        fail("%s failed (exit %d): %s" % (what, res.returncode,
                                          (res.stderr or res.stdout).strip()[-400:]))
    return res.stdout


def main():
    ap = argparse.ArgumentParser(description="measure and ship a sim GEMM bundle's "
                                 "configuration runs")
    ap.add_argument("bundle")
    ap.add_argument("--profile", required=True, help="the sim profile the bundle was measured on")
    ap.add_argument("--bin", default="build/bin")
    ap.add_argument("--out", help="output bundle (default: overwrite BUNDLE)")
    ap.add_argument("--nice", type=int, default=10)
    a = ap.parse_args()
    try:
        with open(a.bundle, encoding="utf-8") as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        fail("cannot read %s: %s" % (a.bundle, e), 2)
    if doc.get("workload") != "gemm":
        fail("%s is not a gemm bundle" % a.bundle, 2)
    pascal = os.path.join(a.bin, "pascal")
    runs, start = [], time.time()
    plan = json.loads(run([pascal, "plan", "--kind", "gemm-configs", "--smem-per-sm", "0"],
                          "pascal plan --kind gemm-configs"))
    configs = [tuple(c[k] for k in KEYS) for c in plan["configurations"]]
    shapes = [(s["Mg"], s["Ng"], s["Kg"]) for s in plan["shapes"]]
    for (tm, tn, tk, eb, st, gm) in configs:  # the order of the shipped bundles
        for (mg, ng, kg) in shapes:
            out = run(["nice", "-n", str(a.nice), pascal, "sim", "gemm", "--profile", a.profile,
                       "--Mg", str(mg), "--Ng", str(ng), "--Kg", str(kg),
                       "--tile", "%dx%dx%d" % (tm, tn, tk), "--elem-bytes", str(eb),
                       "--stages", str(st), "--group-m", str(gm), "--seed", "0", "--json"],
                      "pascal sim gemm %dx%dx%d" % (tm, tn, tk))
            r = json.loads(out)
            runs.append({"tile_m": tm, "tile_n": tn, "tile_k": tk, "elem_bytes": eb,
                         "stages": st, "group_m": gm, "Mg": mg, "Ng": ng, "Kg": kg,
                         "fill_bytes": r["fill_bytes"], "kernel_ns": r["kernel_ns"]})
    for k in ("model", "report", "content_hash"):
        doc.pop(k, None)
    doc["configurations"] = runs
    prov = doc.setdefault("provenance", {})
    prov["configurations_producer"] = ("tools/measure-configs.py (pascal plan --kind gemm-configs,"
                                       " pascal sim gemm, seed 0)")
    prov["configurations_profile"] = a.profile
    prov["configurations_wall_seconds"] = round(time.time() - start, 1)
    with tempfile.TemporaryDirectory() as work:
        unfrozen = os.path.join(work, "unfrozen.json")
        with open(unfrozen, "w", encoding="utf-8") as f:
            json.dump(doc, f)
        run(["nice", "-n", str(a.nice), pascal, "fit", unfrozen, "-o", a.out or a.bundle],
            "pascal fit")
    print("measure-configs.py: %d configuration runs in %.0f s -> %s"
          % (len(runs), time.time() - start, a.out or a.bundle))


if __name__ == "__main__":
    main()
