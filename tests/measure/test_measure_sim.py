#!/usr/bin/python3
"""test_measure_sim.py - deploy/gpu/measure.sh --backend sim, end to end, on
the tiny sim profile (4 SMs, C = 64): all phases run (selftest is not
applicable on the sim; GEMM runs on the sim's tiled GEMM), at most 8 result files of at most 16 MiB, the
static table agrees with the gap law (the sim is exact LRU), the scan
calibration is frozen with the paper's 756 runs and the held-out panel has
420 runs of 42 keys none of which is calibrated, every size above C; a second
run skips every phase and changes nothing (a failed self-test is run again);
a scan cut short by its budget continues the same calibration on the next run,
and the report of the cut-short run still comes out.

Usage: test_measure_sim.py BUILD_DIR SOURCE_DIR   (BUILD_DIR/bin holds the programs)
"""
import json
import os
import subprocess
import sys
import tempfile
import time

BUILD, SOURCE = sys.argv[1], sys.argv[2]
MEASURE = os.path.join(SOURCE, "deploy", "gpu", "measure.sh")
PROFILE = os.path.join(SOURCE, "tests", "e2e", "tiny.profile")
FAILS = []


def check(cond, what):
    if not cond:
        FAILS.append(what)
        print("FAIL:", what)


def measure(out, *extra):
    t0 = time.time()
    p = subprocess.run(["bash", MEASURE, "--bundle", BUILD, "--out", out, "--backend", "sim",
                        "--profile", PROFILE, "--rounds", "500"] + list(extra),
                       capture_output=True, text=True, timeout=170)
    return p.returncode, p.stderr, time.time() - t0


def load(out, name):
    with open(os.path.join(out, name)) as f:
        return json.load(f)


def keys(bundle):
    return {(m["o"], m["path"], m["d"], m["m"]) for m in bundle["measurements"]}


def main():
    with tempfile.TemporaryDirectory(prefix="pascal-measure-") as tmp:
        out = os.path.join(tmp, "out")
        # A budget too short for the scan: the phase times out, the next run
        # continues the same calibration (its id survives in the archive).
        rc, log, _ = measure(out, "--phases", "env,probe,plans")
        check(rc == 0, "env, probe, plans:\n" + log)
        # Under load the unpacking alone may spend a 1 s budget before the scan
        # starts ("budget spent"); a larger budget is then tried, up to one
        # that still cuts the scan short.
        for budget in ("1", "2", "3"):
            rc, log, _ = measure(out, "--phases", "scan,report", "--budget-s", budget)
            if "phase scan: not-run" not in log:
                break
        check(rc != 0 and "phase scan: timeout" in log, "scan cut short by the budget:\n" + log)
        check("scan.json" not in os.listdir(out), "no scan.json after the timeout")
        # the report still comes out after the budget is spent, with the timeout in it
        states = ({p["phase"]: p["state"] for p in load(out, "report.json")["phases"]}
                  if os.path.exists(os.path.join(out, "report.json")) else {})
        check(states.get("scan") == "timeout", "report after a spent budget: %r" % states)
        rc, log, secs = measure(out)
        print("continued run: %.1f s" % secs)
        check(rc == 0, "the continued run exits 0, got %d:\n%s" % (rc, log))
        check("scan: calibration 1 created" not in log and "scan: measuring calibration 1" in log,
              "the same scan calibration continued:\n" + log)
        files = sorted(os.listdir(out))
        check(len(files) <= 8, "at most 8 files: %r" % files)
        check(all(os.path.getsize(os.path.join(out, f)) < 16 << 20 for f in files), "files under 16 MiB")
        for f in ("report.json", "report.md", "static.json", "scan.json", "heldout.json", "gemm.json", "gemm-heldout.json",
                  "measure-work.tar.gz"):
            check(f in files, "%s written" % f)
        report = load(out, "report.json")
        states = {p["phase"]: p["state"] for p in report["phases"]}
        for p in ("env", "probe", "static", "plans", "scan", "heldout", "gemm"):
            check(states.get(p) == "ok", "phase %s ok: %r" % (p, states))
        check(states.get("selftest") == "not-applicable", "selftest not applicable on the sim")
        check(report["probe"]["capacity_blocks"] == 64, "probe C = 64")

        static = load(out, "static.json")
        check(len(static["rows"]) == 12, "static: 3 block sizes x 4 cluster counts")
        check(all(r["K"] == r["gap_law"] == r["clusters"] for r in static["rows"]), "static K = c")
        check(static["mape"]["gap_law"] == 0.0, "static gap-law MAPE 0 on the sim")

        scan = load(out, "scan.json")
        check(len(scan["measurements"]) == 756 and "content_hash" in scan, "scan: 756 runs, frozen")
        # the device carries the probe's capacity scan and the static table
        want = [{k: r[k] for k in ("block_bytes", "C", "clusters", "K", "gap_law", "sdcm", "che")}
                for r in static["rows"]]
        got = scan["device"].get("static_experiment") or {}
        check(got.get("rows") == want and got.get("M") == static["M"],
              "the scan bundle's device carries the static table: %r" % got)
        probe = scan["device"].get("capacity_probe") or {}
        check(len(probe.get("size_blocks", [])) == 15 and probe.get("waves") == 4,
              "the scan bundle's device carries the capacity scan: %r" % probe)
        check(report["loko"]["scan"]["n_keys"] == 63, "LOKO over 63 keys")
        # the probe's peaks reach the registration and so the bundle, and
        # every run its kernel time: the report has the latency rows
        check(scan["device"].get("peaks", {}).get("dram_bytes_per_s") == 273e9,
              "scan bundle carries the probe's peaks: %r" % scan["device"])
        check(all(m.get("kernel_ns", 0) > 0 for m in scan["measurements"]), "kernel_ns in every run")
        check(report["loko"]["scan"].get("latency", {}).get("all", {}).get("n_runs") == 756,
              "LOKO latency rows over 756 timed runs")
        held = load(out, "heldout.json")
        runs = [m for part in held["parts"] for m in part["measurements"]]
        check(len(runs) == 420, "held-out: 420 runs, got %d" % len(runs))
        hkeys = set().union(*(keys(p) for p in held["parts"]))
        check(len(hkeys) == 42 and not hkeys & keys(scan), "42 held-out keys, none calibrated")
        sizes = {m["N"] for m in scan["measurements"]} | {m["N"] for m in runs}
        check(min(sizes) > 64, "every size above C = 64: %r" % sorted(sizes))
        # The report scores the calibration on the joined panel (paper layout).
        table = report["heldout"]["scan"]["table"]
        row = table["rows"][0]
        check(row["validation"] == "heldout" and row["n_keys"] == 42 and row["n_runs"] == 420,
              "report: held-out row over 42 keys, 420 runs: %r" % {k: row.get(k) for k in
                                                                 ("validation", "n_keys", "n_runs")})
        check(set(row["mape"]) == {"pascal", "tilesight", "ppt_gpu", "exact_sdcm", "aligned", "che"},
              "report: every baseline column")
        grow = report["heldout"]["gemm"]["table"]["rows"][0]
        check(grow["validation"] == "heldout" and grow["workload"] == "gemm" and grow["n_runs"] == 60,
              "report: GEMM held-out row over the 60 shapes: %r" % {k: grow.get(k) for k in
                                                                   ("validation", "workload", "n_runs")})
        # kernel time in every run, scan and GEMM, calibration and held-out,
        # and the held-out panels' latency rows (paper Table e2e)
        check(all(m.get("kernel_ns", 0) > 0 for m in runs), "kernel_ns in every held-out scan run")
        for f in ("gemm.json", "gemm-heldout.json"):
            doc = load(out, f)
            check("peaks" in doc["device"] and all(m.get("kernel_ns", 0) > 0 for m in doc["measurements"]),
                  "%s: device peaks and kernel_ns in every run" % f)
        for w in ("scan", "gemm"):
            lat = report["heldout"][w]["calibrations"][0]["report"]["heldout"].get("latency", {})
            check(lat.get("all", {}).get("n_runs") == (420 if w == "scan" else 60),
                  "report: %s held-out latency row over every run: %r" % (w, lat.get("all")))
        with open(os.path.join(out, "report.md")) as f:
            md = f.read()
            check("balanced overall" in md, "report.md holds the held-out table")
            check("latency MAPE" in md, "report.md holds the latency table")
        pairs = {(m["N"], m["W"]) for m in runs}
        check(len(pairs) == 5 and all(sum(1 for m in runs if (m["N"], m["W"]) == pr) == 84
                                      for pr in pairs), "5 (N, W) pairs x 42 keys x 2 repeats")

        # A second run skips every phase that has results; the report is redone.
        with open(os.path.join(out, "scan.json"), "rb") as f:
            before = f.read()
        rc, log, secs = measure(out)
        check(rc == 0 and log.count("results present, skipped") == 8, "second run skips:\n" + log)
        with open(os.path.join(out, "scan.json"), "rb") as f:
            check(f.read() == before, "scan.json unchanged by the second run")

        # A scan.json lost after its calibration was frozen is exported again.
        os.remove(os.path.join(out, "scan.json"))
        rc, log, _ = measure(out, "--phases", "scan")
        check(rc == 0 and "frozen already" in log, "frozen scan exported again:\n" + log)
        with open(os.path.join(out, "scan.json"), "rb") as f:
            check(f.read() == before, "re-exported scan.json is the same")

        # A failing phase is recorded with its reason (here: no GPU, or a
        # build without CUDA); the report still comes out.
        out3 = os.path.join(tmp, "cuda")
        p = subprocess.run(["bash", MEASURE, "--bundle", BUILD, "--out", out3, "--backend", "cuda",
                            "--phases", "env,probe,report"], capture_output=True, text=True, timeout=170)
        phases = {x["phase"]: x for x in load(out3, "report.json")["phases"]}
        if phases["probe"]["state"] != "ok":
            check(p.returncode == 1, "a failed phase makes the exit status 1")
            check(phases["probe"]["state"] == "failed" and "cuda" in phases["probe"]["message"].lower(),
                  "the probe's failure is named: %r" % phases["probe"])

        # A failed self-test leaves no result: the next run tries it again
        # (without a GPU, or with a build tree that holds no GPU programs in
        # bin/, it fails every time).
        def selftest_cuda():
            return subprocess.run(["bash", MEASURE, "--bundle", BUILD, "--out", out3, "--backend",
                                   "cuda", "--phases", "selftest"], capture_output=True, text=True,
                                  timeout=170).stderr
        first = selftest_cuda()
        if "phase selftest: ok" not in first:
            again = selftest_cuda()
            check("phase selftest: results present" not in again and "phase selftest: " in again,
                  "a failed self-test runs again:\n" + first + again)

        rc, log, _ = measure(out, "--phases", "bogus")
        check(rc == 2 and "unknown phase 'bogus'" in log, "a bad phase is a usage error")
    if FAILS:
        print("%d failure(s)" % len(FAILS))
        return 1
    print("OK")
    return 0


if __name__ == "__main__":
    sys.exit(main())
