#!/usr/bin/env python3
"""bench/latency_accuracy.py - how close the latency pipeline's time_s comes
to the kernel times a calibration recorded, on a shipped calibration whose
runs carry kernel_ns (the sim scan calibration): the bundle is imported,
without its kernel times (so that pascald answers with the pipeline on
peaks, not with the time calibrated on them, docs/time-model.md), into a
temporary pascald with the peaks of the profile that produced it
(deploy/profiles/gb10-like.profile), every run's key is predicted (PASCAL's
fills, in-sample: the runs were fitted), and the figures printed are the
MAPE of time_s against kernel_ns, overall and by dominating bound, and the
median ratio predicted / measured. Then, for every shipped calibration whose
runs carry kernel_ns, the latency tables in the layout of the paper's Table
e2e as `pascal evaluate` computes them (held-out panel, else LOKO folds; the
pipeline's time on peaks and the calibrated time, each with TileSight,
PASCAL and measured fills; all runs and the DRAM-bound ones; 95% paired
key-bootstrap intervals). A bundle without
device peaks is given those of the profile named by its provenance
(profile_file), as the sim that measured it states them. Asserts nothing.
usage: bench/latency_accuracy.py [BUILD_DIR]
"""
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
from collections import defaultdict

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "clients", "python"))
from pascal_client import Client  # noqa: E402

PROFILE = os.path.join(ROOT, "deploy", "profiles", "gb10-like.profile")
BUNDLE = os.path.join(ROOT, "deploy", "calibrations", "sim-gb10-scan.json")


def profile_peaks(path=PROFILE):
    peaks = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            m = re.match(r"^peak_(\w+)\s*=\s*([0-9.eE+-]+)", line)
            if m:
                peaks[m.group(1)] = float(m.group(2))
    return peaks


def main():
    build = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build")
    pascald = os.path.join(build, "bin", "pascald")
    with open(BUNDLE, encoding="utf-8") as f:
        bundle = json.load(f)
    for k in ("model", "report", "content_hash"):
        del bundle[k]
    bundle["device"]["peaks"] = profile_peaks()
    runs = [dict(r) for r in bundle["measurements"]]
    for part in ("measurements", "heldout"):
        for r in bundle.get(part, []):
            r.pop("kernel_ns", None)
    with tempfile.TemporaryDirectory(prefix="pascal-latency-") as tmp:
        db = os.path.join(tmp, "l.db")
        token = subprocess.run([pascald, "token", "create", "--db", db, "--role", "admin", "--name", "b"],
                               check=True, capture_output=True, text=True).stdout.split()[-1]
        proc = subprocess.Popen([pascald, "--listen", "127.0.0.1:0", "--db", db, "--bundles", ""],
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        try:
            port = re.search(r":(\d+)$", proc.stdout.readline().decode().strip()).group(1)
            with Client("http://127.0.0.1:%s" % port, token=token) as c:
                c.request("POST", "/v1/calibrations/import", bundle)
                qs = [{"device": bundle["device"]["name"], "o": r["o"], "path": r["path"], "d": r["d"],
                       "m": r["m"], "N": r["N"], "W": r["W"]} for r in runs]
                got = c.predict_many(qs)
        finally:
            proc.terminate()
            proc.wait()
    errs, by_bound, ratios = [], defaultdict(list), []
    for r, p in zip(runs, got):
        if not p.ok or p.time_s is None:
            continue
        ratio = p.time_s / (r["kernel_ns"] * 1e-9)
        errs.append(abs(ratio - 1))
        by_bound[p.bound].append(abs(ratio - 1))
        ratios.append(ratio)
    print("sim-gb10 scan calibration, %d runs with kernel_ns, %d timed" % (len(runs), len(errs)))
    print("time_s vs kernel_ns (PASCAL fills, in-sample): MAPE %.2f%%, median predicted/measured %.3f"
          % (100 * statistics.mean(errs), statistics.median(ratios)))
    for b, e in sorted(by_bound.items()):
        print("  bound %-8s %4d runs  MAPE %.2f%%" % (b, len(e), 100 * statistics.mean(e)))
    print()
    e2e_tables(build)


def e2e_tables(build):
    """Table e2e of every shipped calibration with kernel times."""
    folder = os.path.join(ROOT, "deploy", "calibrations")
    with tempfile.TemporaryDirectory(prefix="pascal-e2e-") as tmp:
        for name in sorted(os.listdir(folder)):
            if not name.endswith(".json"):
                continue
            with open(os.path.join(folder, name), encoding="utf-8") as f:
                bundle = json.load(f)
            runs = bundle["measurements"] + bundle.get("heldout", [])
            if not runs or not all(r.get("kernel_ns", 0) > 0 for r in runs):
                print("%s: runs without kernel_ns, no latency table" % name)
                continue
            source = "the bundle's"
            if "peaks" not in bundle["device"]:
                profile = bundle["provenance"]["profile_file"]
                bundle["device"]["peaks"] = profile_peaks(os.path.join(ROOT, profile))
                source = "%s's" % profile
                for k in ("model", "report", "content_hash"):  # the peaks change the hash
                    bundle.pop(k, None)
            path = os.path.join(tmp, name)
            with open(path, "w", encoding="utf-8") as f:
                json.dump(bundle, f)
            out = subprocess.run([os.path.join(build, "bin", "pascal"), "evaluate", path],
                                 check=True, capture_output=True, text=True).stdout
            print("%s (peaks: %s)" % (name, source))
            print(out[out.index("latency MAPE"):].rstrip())
            print()


if __name__ == "__main__":
    main()
