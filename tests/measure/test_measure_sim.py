#!/usr/bin/python3
"""test_measure_sim.py - deploy/gpu/measure.sh --backend sim, end to end, on
the tiny sim profile (4 SMs, C = 64), through the real pascald and agent:
all phases run (the fault-injecting self-test only when asked; GEMM runs on
the sim's tiled GEMM), at most 8 result files of at most 16 MiB, the static
table agrees with the gap law (the sim is exact LRU), the scan calibration
is frozen with the paper's 756 runs and the held-out panel has 420 runs of
42 keys none of which is calibrated, every size above C; a second run skips
every phase with results and changes nothing (a failed self-test is run
again); a scan cut short by its budget continues the same calibration on
the next run, and the report of the cut-short run still comes out.

Across windows (docs/gpu.md): a run with --budget-s 120 stopped by the host
(SIGTERM) in the middle of the scan still returns its report and archive;
a second run with --budget-s 120 in an empty --out, from that archive
(--resume), continues the same calibration and measures no run twice (the
job ids of the agent's "done" lines, kept in the archive across both
windows, are the plan's 756, each once); the second window is stopped in
the dram phase and a third continues it, again with no run measured twice.
Every archive committed under deploy/gpu/runs/ resumes without measuring
anything. An archive measured with another bundle takes no new runs. The
plan choice: a projected scan over 80 % of the budget left makes the plans
at o <= 1, and says so; the scan-dram plan follows the scan's occupancies.

The configs phase (docs/gpu.md): the gemm-configs plan measured as an
extension of the frozen GEMM calibration, its configuration runs frozen into
the work archive (18 runs: the tiny profile states 100 KiB of shared memory
per SM), each one's TFLOP/s and the fitted step overhead in the report.

The offgrid phase (docs/gpu.md): the scan-offgrid plan's four parts, 196
runs none of which is a calibration run, and the gemm-offgrid plan, 44 runs
none of which is a calibration shape, frozen into the work archive and
scored in the report beside the held-out panels, with interval coverage.

The attention phase (docs/gpu.md): the attention protocol's plans made
from the probe, one calibration of 96 runs with its 54-run panel, frozen
into the work archive and scored in the report.

The dram phase (docs/gpu.md): the scan-dram and gemm-dram plans measured
and frozen into the work archive (--out keeps its 8 files), the report
scoring them as panels of the scan and GEMM calibrations, K and latency,
with DRAM-bound rows; without its plans it fails with the reason and the
report still comes out. Checked to fail: against measure.sh before the dram
phase (every DRAM check: "unknown phase 'dram'"), and with the scan-dram
plan made without the smaller plan's --max-occupancy 1 (the families check
of the plan choice).

Usage: test_measure_sim.py BUILD_DIR SOURCE_DIR   (BUILD_DIR/bin holds the programs)
"""
import glob
import json
import os
import re
import signal
import subprocess
import sys
import tarfile
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


def command(out, extra, bundle=BUILD):
    return ["bash", MEASURE, "--bundle", bundle, "--out", out, "--backend", "sim",
            "--profile", PROFILE, "--rounds", "500"] + list(extra)


def measure(out, *extra, bundle=BUILD):
    t0 = time.time()
    p = subprocess.run(command(out, extra, bundle), capture_output=True, text=True, timeout=300)
    return p.returncode, p.stderr, time.time() - t0


def archived(archive, name):
    """The text of one file of a work archive ('' when absent)."""
    with tarfile.open(archive) as t:
        try:
            return t.extractfile("./" + name).read().decode()
        except KeyError:
            return ""


def done_ids(archive, tag):
    """Job ids of the "done" lines of the agent of calibration TAG (scan,
    scan-dram, gemm-dram, ...), across every window."""
    return [int(j) for j in re.findall(r"job (\d+) \w+ .* done:", archived(archive, "logs/%s-agent.log" % tag))]


def scan_done_ids(archive):
    return done_ids(archive, "scan")


def stopped_window(tmp, name, extra, tag, runs):
    """measure.sh stopped by the host (SIGTERM) once the agent of TAG has
    measured RUNS runs: (out, exit status, log, stopped)."""
    scratch = os.path.join(tmp, name + "-scratch")
    os.makedirs(scratch)
    out = os.path.join(tmp, name)
    p = subprocess.Popen(command(out, extra), stderr=subprocess.PIPE, text=True,
                         env=dict(os.environ, TMPDIR=scratch))
    stopped, limit = False, time.time() + 150
    while not stopped and p.poll() is None and time.time() < limit:
        for log in glob.glob(os.path.join(scratch, "pascal-measure.*", "logs", tag + "-agent.log")):
            with open(log) as f:
                if f.read().count(" done:") >= runs:
                    p.send_signal(signal.SIGTERM)
                    stopped = True
        time.sleep(0.01)
    log = p.communicate(timeout=120)[1]
    return out, p.returncode, log, stopped


def two_windows(tmp):
    """Window 1 is stopped by the host in its scan; window 2 continues it and
    is stopped in its DRAM runs; window 3 continues those."""
    # the phases up to the DRAM runs (held-out and GEMM calibrations go the
    # same way as the scan, and the main run covers them)
    phases = ["--phases", "env,probe,plans,scan,static,dram,report"]
    out1, rc, log1, stopped = stopped_window(tmp, "window1", ["--budget-s", "120"] + phases, "scan", 50)
    check(stopped and rc == 130, "window 1 stopped in its scan (rc %r):\n%s" % (rc, log1))
    files = os.listdir(out1)
    check({"report.json", "report.md", "measure-work.tar.gz"} <= set(files) and "scan.json" not in files,
          "the stopped window returns its report and archive: %r" % files)
    rep1 = load(out1, "report.json")
    states = {x["phase"]: x["state"] for x in rep1["phases"]}
    check(states.get("scan") == "stopped" and states.get("probe") == "ok", "window 1 phases: %r" % states)
    check(rep1["next_window"][:2] == ["scan", "static"], "window 1 leaves: %r" % rep1["next_window"])
    with open(os.path.join(out1, "report.md")) as f:
        check("--resume deploy/gpu/runs/" in f.read(), "report.md says how to continue")
    first = scan_done_ids(os.path.join(out1, "measure-work.tar.gz"))
    check(50 <= len(first) < 756, "window 1 measured part of the scan: %d runs" % len(first))

    resume = ["--budget-s", "120", "--resume", os.path.join(out1, "measure-work.tar.gz")] + phases
    out2, rc, log2, stopped = stopped_window(tmp, "window2", resume, "scan-dram", 20)
    check(stopped and rc == 130, "window 2 stopped in its DRAM runs (rc %r):\n%s" % (rc, log2))
    check("continuing from" in log2 and "phase probe: results present, skipped" in log2
          and "scan: measuring calibration 1" in log2 and "scan: calibration" not in log2,
          "window 2 continues calibration 1:\n" + log2)
    work2 = os.path.join(out2, "measure-work.tar.gz")
    both = scan_done_ids(work2)
    print("window 1: %d scan runs before the stop; both windows: %d" % (len(first), len(both)))
    check(both[:len(first)] == first and len(both) == 756 and len(set(both)) == 756,
          "no scan run measured twice: %d done lines, %d distinct, window 1 %d"
          % (len(both), len(set(both)), len(first)))
    check(len(load(out2, "scan.json")["measurements"]) == 756, "window 2 exports the 756 runs")
    rep2 = load(out2, "report.json")
    states = {x["phase"]: x["state"] for x in rep2["phases"]}
    check(all(states.get(x) == "ok" for x in ("env", "probe", "plans", "scan", "static"))
          and states.get("dram") == "stopped" and rep2["next_window"] == ["dram"],
          "window 2 leaves the DRAM runs: %r %r" % (states, rep2["next_window"]))
    dram2 = done_ids(work2, "scan-dram")
    check(20 <= len(dram2) < 140, "window 2 measured part of the DRAM runs: %d" % len(dram2))

    rc, log3, _ = measure(os.path.join(tmp, "window3"), "--budget-s", "120", "--resume", work2,
                          "--phases", "dram,report")
    check(rc == 0 and "scan-dram: measuring calibration" in log3 and "scan-dram: calibration" not in log3,
          "window 3 continues the DRAM runs (rc %d):\n%s" % (rc, log3))
    work3 = os.path.join(tmp, "window3", "measure-work.tar.gz")
    scan_dram, gemm_dram = done_ids(work3, "scan-dram"), done_ids(work3, "gemm-dram")
    print("window 2: %d scan-dram runs before the stop; both windows: %d + %d gemm-dram"
          % (len(dram2), len(scan_dram), len(gemm_dram)))
    check(scan_dram[:len(dram2)] == dram2 and len(scan_dram) == len(set(scan_dram)) == 140
          and len(gemm_dram) == len(set(gemm_dram)) == 10 and not set(scan_dram) & set(gemm_dram),
          "no DRAM run measured twice: %d + %d done lines" % (len(scan_dram), len(gemm_dram)))
    rep3 = load(os.path.join(tmp, "window3"), "report.json")
    check(rep3["next_window"] == [] and {x["phase"]: x["state"] for x in rep3["phases"]}.get("dram") == "ok",
          "window 3 ends every phase: %r" % rep3["next_window"])


def committed_archives(tmp):
    """Every archive a GPU window returned, as committed, resumes without a
    run, with the phases its committed report.json says it finished (with
    none, the scan, held-out and GEMM phases); an archive whose report names
    phases left unfinished is partial."""
    archives = sorted(glob.glob(os.path.join(SOURCE, "deploy", "gpu", "runs", "*", "measure-work.tar.gz")))
    check(len(archives) >= 1, "archives under deploy/gpu/runs/: %r" % archives)
    for i, a in enumerate(archives):
        out = os.path.join(tmp, "committed-%d" % i)
        phases = ["probe", "plans", "scan", "static", "heldout", "gemm"]
        committed = os.path.join(os.path.dirname(a), "report.json")
        partial = os.path.exists(committed) and load(os.path.dirname(a), "report.json")["next_window"] != []
        if os.path.exists(committed):
            done = {x["phase"] for x in load(os.path.dirname(a), "report.json")["phases"] if x["state"] == "ok"}
            phases = [p for p in phases + ["dram", "offgrid", "configs", "attention"] if p in done]
        rc, log, _ = measure(out, "--resume", a, "--phases", ",".join(phases + ["report"]))
        check(rc == 0 and "measuring" not in log and "created" not in log,
              "%s resumes without measuring:\n%s" % (a, log))
        rep = load(out, "report.json")
        check(rep["next_window"] == [], "%s: nothing left: %r" % (a, rep["next_window"]))
        if not partial and "scan" in phases:
            scan = load(out, "scan.json")
            check(len(scan["measurements"]) == 756 and "content_hash" in scan, "%s: the frozen scan" % a)


def foreign_bundle(tmp):
    """Runs of another build never join an archive's calibrations."""
    def bundle(name, source):
        path = os.path.join(tmp, name)
        os.makedirs(os.path.join(path, "bin"))
        for prog in ("pascald", "pascal-agent", "pascal"):
            os.symlink(os.path.abspath(os.path.join(BUILD, "bin", prog)), os.path.join(path, "bin", prog))
        with open(os.path.join(path, "MANIFEST"), "w") as f:
            f.write("pascal-gpu-host bundle\nsource: %s\n" % source)
        return path
    old, new = bundle("bundle-old", "1111111"), bundle("bundle-new", "2222222")
    out_old, out_new = os.path.join(tmp, "old"), os.path.join(tmp, "new")
    rc, log, _ = measure(out_old, "--phases", "env,probe,plans,report", bundle=old)
    check(rc == 0, "the old bundle's probe and plans:\n" + log)
    rc, log, _ = measure(out_new, "--resume", os.path.join(out_old, "measure-work.tar.gz"), bundle=new)
    states = {x["phase"]: x for x in load(out_new, "report.json")["phases"]}
    check(rc == 1 and "measuring" not in log and states["scan"]["state"] == "not-run"
          and "bundle 1111111, this is bundle 2222222" in states["scan"]["message"],
          "another bundle takes no runs (rc %d): %r\n%s" % (rc, states.get("scan"), log))


def projected(plan, probe, cost):
    """A scan plan's projected seconds, independently of measure.sh: runs x
    (cost + 0.01 s) + 2 x bytes / L2 peak."""
    runs = len(plan["keys"]) * len(plan["sizes"]) * len(plan["horizons"]) * plan["repeats"]
    return round(runs * (float(cost) + 0.01) + 2.0 * plan["repeats"] * sum(k["o"] for k in plan["keys"])
                 * probe["sm_count"] * probe["block_bytes"] * sum(plan["sizes"]) * sum(plan["horizons"])
                 / probe["peaks"]["l2_bytes_per_s"])


def plan_choice(tmp):
    """The scan plans shrink to o <= 1 when the projection does not fit; the
    scan-dram plan keeps the scan plan's occupancies."""
    for cost, budget, smaller in (("0.5", "120", True), ("0.05", "600", False)):
        out = os.path.join(tmp, "plan-%s" % cost)
        rc, log, _ = measure(out, "--phases", "env,probe,plans", "--budget-s", budget, "--run-cost-s", cost)
        work = os.path.join(out, "measure-work.tar.gz")
        plan = json.loads(archived(work, "plans/scan.json"))
        probe = json.loads(archived(work, "probe.json"))
        want = projected(plan, probe, cost)
        occ = {k["o"] for k in plan["keys"]}
        if smaller:
            check(rc == 0 and "plans: smaller plan (o <= 1)" in log and occ == {1}
                  and ("at o <= 1 %d s" % want) in log, "a high run cost gives o <= 1 (%d s):\n%s" % (want, log))
            for part in (1, 2):
                held = json.loads(archived(work, "plans/scan-heldout-%d.json" % part))
                check({k["o"] for k in held["keys"]} == {1}, "held-out part %d at o <= 1" % part)
        else:
            check(rc == 0 and ("default plan (o <= 2): projected scan %d s" % want) in log and occ == {1, 2},
                  "a low run cost keeps the default plan (%d s):\n%s" % (want, log))
        dram = json.loads(archived(work, "plans/scan-dram.json"))
        fams = {(k["o"], k["path"], k["d"]) for k in plan["keys"]}
        check({(k["o"], k["path"], k["d"]) for k in dram["keys"]} == fams
              and ("plans: scan-dram projected %d s" % projected(dram, probe, cost)) in log,
              "the scan-dram plan has the scan plan's families and its projection (%s s):\n%s" % (cost, log))


# The gemm-dram shapes as docs/plans.md lists them: one tile row (column) by
# 264 and 528 tiles at Kg = 8192 and 16384, and by 132 tiles at Kg = 32768.
GEMM_DRAM = ({(128, 128 * n, kg) for n in (264, 528) for kg in (8192, 16384)}
             | {(128 * n, 128, kg) for n in (264, 528) for kg in (8192, 16384)}
             | {(128, 128 * 132, 32768), (128 * 132, 128, 32768)})


def offgrid_phase(out, report, scan, md):
    """The off-grid panel of the main run: four frozen parts in the work
    archive, 196 runs none of which is a calibration run, with m, W and N
    each off the scan's grid somewhere, scored in the report beside the
    held-out panel with the coverage of the answers' intervals. Checked to
    fail against measure.sh before the offgrid phase ("unknown phase")."""
    work = os.path.join(out, "measure-work.tar.gz")
    parts = [json.loads(archived(work, "offgrid-%d.json" % p)) for p in (1, 2, 3, 4)]
    check(all("content_hash" in b for b in parts), "the off-grid parts are frozen")
    runs = [m for b in parts for m in b["measurements"]]
    check(len(runs) == 196, "off-grid: 196 runs, got %d" % len(runs))
    point = lambda m: (m["o"], m["path"], m["d"], m["m"], m["N"], m["W"])
    grid = {point(m) for m in scan["measurements"]}
    check(not {point(m) for m in runs} & grid, "no off-grid run is a calibration run")
    ms, ns, ws = ({m[f] for m in scan["measurements"]} for f in ("m", "N", "W"))
    check(any(m["m"] > max(ms) for m in runs) and any(m["N"] > max(ns) or m["N"] < min(ns) for m in runs)
          and any(m["W"] not in ws for m in runs), "m, N and W each leave the grid")
    off = report["heldout"]["scan"]["calibrations"][0]["report"].get("offgrid", {})
    cov = off.get("coverage", {})
    check(off.get("n_runs") == 196 and cov, "report: the off-grid panel scored, with coverage: %r"
          % {k: off.get(k) for k in ("n_runs", "n_scored")})
    check("off-grid" in md, "report.md names the off-grid panel")
    gemm_off = json.loads(archived(work, "gemm-offgrid.json"))
    shape = lambda m: (m["Mg"], m["Ng"], m["Kg"])
    gemm_grid = {shape(m) for m in load(out, "gemm.json")["measurements"]}
    check("content_hash" in gemm_off and len(gemm_off["measurements"]) == 44
          and not {shape(m) for m in gemm_off["measurements"]} & gemm_grid,
          "the GEMM off-grid panel: frozen, 44 runs off the calibration shapes")
    goff = report["heldout"]["gemm"]["calibrations"][0]["report"].get("offgrid", {})
    check(goff.get("n_runs") == 44 and goff.get("coverage"),
          "report: the GEMM off-grid panel scored, with coverage: %r" % goff.get("n_runs"))
    check("GEMM off-grid panel" in md, "report.md names the GEMM off-grid panel")


def dram_phase(out, report, scan, md):
    """The DRAM runs of the main run: in the work archive, frozen, and scored
    in the report as panels of the calibrations."""
    work = os.path.join(out, "measure-work.tar.gz")
    check("scan-dram.json" not in os.listdir(out), "the DRAM bundles stay in the archive")
    sd, gd = json.loads(archived(work, "scan-dram.json")), json.loads(archived(work, "gemm-dram.json"))
    check("content_hash" in sd and "content_hash" in gd, "the DRAM calibrations are frozen")
    # the capacity edge: N = round(k C / 20), k = 21..28, C = 64 (67..90),
    # between C and the scan calibration's smallest size
    sizes = {m["N"] for m in sd["measurements"]}
    check(sizes == {round(k * 64 / 20) for k in (21, 22, 24, 26, 28)}
          and min(sizes) > 64 and max(sizes) < min(m["N"] for m in scan["measurements"]),
          "scan-dram sizes at the capacity edge: %r" % sorted(sizes))
    families = {k[:3] for k in keys(scan)}
    check(len(sd["measurements"]) == 140 and {m["W"] for m in sd["measurements"]} == {4, 16}
          and keys(sd) == {f + (m,) for f in families for m in (0, 6)},
          "scan-dram: the calibration's seven families at m = 0 and 6: %r" % sorted(keys(sd)))
    shapes = {(m["Mg"], m["Ng"], m["Kg"]) for m in gd["measurements"]}
    check(len(gd["measurements"]) == 10 and shapes == GEMM_DRAM, "gemm-dram: the 10 shapes: %r" % shapes)
    for w, runs in (("scan", 140), ("gemm", 10)):
        doc = report["dram"][w]
        row = doc["table"]["rows"][0]
        check(row["validation"] == "heldout" and row["workload"] == w and row["n_runs"] == runs
              and "aligned" in row["mape"] and "pascal" in row["mape"],
              "report: %s-dram K row over %d runs: %r" % (w, runs, {k: row.get(k) for k in
                                                                  ("validation", "workload", "n_runs")}))
        panel = doc["calibrations"][0]["report"]["heldout"]
        for source in ("latency", "latency_calibrated"):
            lat = panel.get(source, {})
            check(lat.get("all", {}).get("n_runs") == runs and "dram_bound" in lat,
                  "report: %s-dram %s rows: %r" % (w, source, lat.get("all")))
        # the tiny device's DRAM (273 GB/s for 4 SMs) binds on the peaks
        bound = panel["latency"]["dram_bound"]
        check(bound["n_runs"] > 0 and set(bound["mape"]) == {"tilesight", "origami", "pascal", "measured"},
              "report: %s-dram has DRAM-bound runs on the peaks: %r" % (w, bound))
    section = md[md.index("## Where the fills decide the time"):md.index("## Attention")]
    check("scan-dram.json (in the work archive) against scan.json" in section
          and "gemm-dram.json (in the work archive) against gemm.json" in section
          and section.count("balanced overall") == 2 and section.count("DRAM-bound (") == 4,
          "report.md scores both DRAM plans:\n" + section)
    # What the scan-dram rows measure (docs/gpu.md): PASCAL answers a size
    # below the calibration's smallest by carrying the excess on linearly in
    # C/N from the two smallest sizes, and says so (action `linear`).
    sync = [f for f in families if f[2] == 0][0]
    probe = [os.path.join(BUILD, "bin", "pascal"), "predict", "--bundle", os.path.join(out, "scan.json"),
             "--o", str(sync[0]), "--path", sync[1], "--d", "0", "--m", "0", "--W", "4", "--json"]
    edge, low = (json.loads(subprocess.run(probe + ["--N", str(n)], capture_output=True, text=True,
                                           check=True).stdout)
                 for n in (min(sizes), min(m["N"] for m in scan["measurements"])))
    check(edge["K"] >= 1 and low["K"] >= 1 and
          any(x["coordinate"] == "N" and x["action"] == "linear" and x["value"] < x["min"]
              for x in edge["extrapolated"]),
          "a scan-dram size answers with N extrapolated linearly: %r" % edge["extrapolated"])


# The gemm-configs plan (plan_gen.h) for a device that states its shared
# memory, as the tiny profile's probe does (gb10-like: 100 KiB per SM): the
# project's own staged kernel's configurations (128x128x64 FP16, G = 1 and
# 8) whose buffers, stages x (128 + 128) x 64 x 2 bytes plus the 1 KiB
# reservation, fit: stages 1 to 3 (3 stages: 96 KiB), not 4 (128 KiB); six,
# on three shapes, once.
CONFIG_SHAPES = {(4096, 4096, 4096), (2048, 2048, 8192), (8192, 1024, 4096)}
CONFIG_KEYS = ("tile_m", "tile_n", "tile_k", "elem_bytes", "stages", "group_m")
CONFIGS_100K = {(128, 128, 64, 2, s, g) for s in (1, 2, 3) for g in (1, 8)}

def configs_phase(out, report, md):
    """The configs phase of the main run: the gemm-configs plan measured as
    an extension of the frozen GEMM calibration, frozen into the work
    archive: 18 timed configuration runs (6 configurations that fit 100 KiB x
    3 shapes), the
    GEMM calibration's own measurements unchanged, the report's TFLOP/s
    recomputed here from each run's shape and kernel time, the step
    overhead the frozen model states, the model's answer for a run as the
    CLI gives it alone, and the ranking per shape recomputed here. Checked
    to fail: with configs left out of PHASES_DEFAULT (no configs.json, no
    configurations in the report)."""
    work = os.path.join(out, "measure-work.tar.gz")
    check("configs.json" not in os.listdir(out), "the configurations bundle stays in the archive")
    text = archived(work, "configs.json")
    cfg = json.loads(text) if text else {}
    runs = cfg.get("configurations", [])
    check(cfg.get("workload") == "gemm" and "content_hash" in cfg, "the configurations are frozen")
    check(len(runs) == 18 and {(r["Mg"], r["Ng"], r["Kg"]) for r in runs} == CONFIG_SHAPES
          and {tuple(r[k] for k in CONFIG_KEYS) for r in runs} == CONFIGS_100K,
          "configs: 6 configurations x 3 shapes: %d runs" % len(runs))
    check(all(r.get("kernel_ns", 0) > 0 and r["fill_bytes"] > 0 for r in runs), "every run timed")
    check(cfg.get("measurements") == load(out, "gemm.json")["measurements"],
          "the extension keeps the GEMM calibration's measurements")
    rep = report.get("configurations") or {}
    want = sorted(round(2.0 * r["Mg"] * r["Ng"] * r["Kg"] / r["kernel_ns"] / 1e3, 3) for r in runs)
    check(sorted(r["tflops"] for r in rep.get("runs", [])) == want,
          "report: TFLOP/s per configuration run: %r" % rep.get("runs", [])[:2])
    overhead = cfg.get("model", {}).get("time", {}).get("step_overhead_s", 0.0)
    check(rep.get("step_overhead_s") == overhead, "report: the fitted step overhead %r" % overhead)
    check("## Configurations" in md and "| 128x128x64 | 2 | 3 | 8 | 4096x4096x4096 |" in md,
          "report.md holds the configurations table")
    # what the frozen model answers for each run: one run asked alone
    # through the CLI gives the report's figures
    if runs and rep.get("runs"):
        with tempfile.TemporaryDirectory() as work_dir:  # not in out: it holds what comes back
            with tarfile.open(work) as t:
                t.extract("./configs.json", work_dir)
            r0 = runs[1]
            args = sum((["--" + k, str(r0[k])] for k in ("Mg", "Ng", "Kg") + CONFIG_KEYS), [])
            alone = json.loads(subprocess.run([os.path.join(BUILD, "bin", "pascal"), "predict",
                                               "--bundle", os.path.join(work_dir, "configs.json"),
                                               "--json"] + args,
                                              capture_output=True, text=True).stdout or "{}")
        got = rep["runs"][1]
        check(alone.get("time_s") == got.get("predicted_time_s") and alone.get("time_s", 0) > 0
              and alone.get("fill_bytes") == got.get("predicted_fill_bytes"),
              "report: the model's time and fills for a run: %r vs %r" % (got, alone.get("time_s")))
    # the ranking per shape, recomputed here: tau-b as the sign-product sum
    # over the pairs, the regret of the first predicted (ties in run order)
    ranking = {g["shape"]: g for g in rep.get("ranking", [])}
    check(len(ranking) == 3, "report: a ranking per shape: %r" % rep.get("ranking"))
    sign = lambda v: (v > 0) - (v < 0)
    for shape, g in ranking.items():
        rs = [r for r in rep["runs"] if r["shape"] == shape]
        m, p = [r["kernel_ns"] for r in rs], [r["predicted_time_s"] for r in rs]
        pairs = [(i, j) for i in range(len(rs)) for j in range(i + 1, len(rs))]
        s = sum(sign(p[i] - p[j]) * sign(m[i] - m[j]) for i, j in pairs)
        untied_p = sum(1 for i, j in pairs if p[i] != p[j])
        untied_m = sum(1 for i, j in pairs if m[i] != m[j])
        tau = s / (untied_p * untied_m) ** 0.5 if untied_p and untied_m else None
        first = min(range(len(rs)), key=lambda i: (p[i], i))
        top4 = sorted(range(len(rs)), key=lambda i: (p[i], i))[:4]
        check(g["runs"] == len(rs) == 6 and (tau is None) == (g["tau_b"] is None)
              and (tau is None or abs(tau - g["tau_b"]) < 1e-12)
              and abs(g["regret"] - (m[first] / min(m) - 1)) < 1e-12
              and g["best_in_top4"] == (m.index(min(m)) in top4),
              "report: ranking of %s: %r (tau %r)" % (shape, g, tau))
    check("| shape | runs | Kendall tau-b | top-1 regret |" in md, "report.md holds the ranking table")


def attention_phase(out, report, md):
    """The attention protocol of the main run: its calibration in the work
    archive, frozen, with the 96 reference runs (one key per depth 1-3 on
    the tma path at m = 128, four sizes 1.5-4 C, four horizons, two
    repeats) and the 54-run panel (24 held-out runs at 2.5 and 3.5 C, 15
    cells x 2 repeats); the report scores it on that panel. Checked to
    fail against measure.sh before the phase ("unknown phase" is not
    raised for the default phases, but every check below fails: no
    attention.json, no "attention" in the report)."""
    work = os.path.join(out, "measure-work.tar.gz")
    check("attention.json" not in os.listdir(out), "the attention bundle stays in the archive")
    att = json.loads(archived(work, "attention.json"))
    check(att["workload"] == "attention" and "content_hash" in att, "the attention calibration is frozen")
    runs, panel = att["measurements"], att.get("heldout", [])
    check(len(runs) == 96 and len(panel) == 54, "attention: 96 runs, 54 held-out: %d, %d" % (len(runs), len(panel)))
    check({(m["path"], m["m"]) for m in runs + panel} == {("tma", 128)}
          and {m["d"] for m in runs} == {1, 2, 3}, "attention keys: tma, m = 128, d = 1..3")
    check({m["N"] for m in runs} == {round(k * 64 / 20) for k in (30, 40, 60, 80)}
          and {m["W"] for m in runs} == {1, 3, 8, 24}, "attention sizes and horizons")
    check(not {m["N"] for m in panel} & {m["N"] for m in runs}, "no held-out size is calibrated")
    check(all(m.get("kernel_ns", 0) > 0 for m in runs + panel), "kernel_ns in every attention run")
    row = (report.get("attention") or {}).get("table", {}).get("rows", [{}])[0]
    check(row.get("workload") == "attention" and row.get("validation") == "heldout" and row.get("n_runs") == 54,
          "report: attention held-out row over 54 runs: %r" % {k: row.get(k) for k in ("workload", "validation", "n_runs")})
    check("## Attention" in md and "attention e2e-tiny heldout" in md, "report.md holds the attention table")


def dram_inputs_missing(tmp):
    """Without its plans the dram phase fails with the reason; the report
    still comes out, with the DRAM section saying so."""
    out = os.path.join(tmp, "dram-alone")
    rc, log, _ = measure(out, "--phases", "dram,report")
    rep = load(out, "report.json")
    states = {x["phase"]: x for x in rep["phases"]}
    check(rc == 1 and states["dram"]["state"] == "failed" and "needs the DRAM plans" in states["dram"]["message"]
          and rep["dram"] == {"scan": None, "gemm": None} and rep["next_window"] == ["dram"],
          "dram without its plans (rc %d): %r\n%s" % (rc, states.get("dram"), log))
    with open(os.path.join(out, "report.md")) as f:
        text = f.read()
    check("scan-dram: not measured" in text and "gemm-dram: not measured" in text, "report.md: DRAM not measured")


GEMM_LINES = [
    "cuBLASLt      /usr/local/cuda/lib64/libcublasLt.so.13 (version 130000), loaded at run time",
    "GEMM          4096 x 4096 x 4096 FP16, FP32 accumulate: median of 9 warm runs each",
    "GEMM TFLOP/s      61.8  own wmma kernel 128x128x64",
    "GEMM TFLOP/s     702.5  cuBLASLt heuristic (algo 66 tile 128x256 stages 64xAUTO swizzle 0 split-k 1)",
    "GEMM TFLOP/s     715.0  cuBLASLt explicit, best of 2 measured (algo 66 tile 256x128 stages 64x4 swizzle 1 split-k 1)",
]
GEMM_JSON = ('{"m":4096,"n":4096,"k":4096,"repeats":9,"own_tflops":61.84,"cublaslt":{"heuristic":'
             '{"config":{"algo":66,"tile_m":128,"tile_n":256,"tile_k":64,"stages":0,"cta_swizzling":0,'
             '"split_k":1},"tflops":702.50},"explicit_best":null,"explicit_measured":0,"explicit_failed":0}}')


def gemm_speed_report(tmp, sim_out):
    """The GEMM's TFLOP/s lines of a cuda probe (their format is checked in
    tests/gpu/test_cuda_offline.cpp) reach report.md as a section of their
    own and report.json as "gemm_speed"; a probe without them (the sim's)
    gives null and says so. Both reports are made from the archive of
    `sim_out`'s probe, as is and with the lines added. Checked to fail
    against measure.sh before the GEMM section."""
    archive = os.path.join(sim_out, "measure-work.tar.gz")
    plain = os.path.join(tmp, "gemm-report-sim")
    measure(plain, "--phases", "report", "--resume", archive)
    with open(os.path.join(plain, "report.md")) as f:
        check("## GEMM speed" in f.read(), "report.md has a GEMM section on the sim")
    check(load(plain, "report.json")["gemm_speed"] is None, "no GEMM speed on the sim")
    work = os.path.join(tmp, "gemm-work")
    with tarfile.open(archive) as t:
        t.extractall(work)
    with open(os.path.join(work, "probe.log"), "a") as f:
        f.write("\n".join(GEMM_LINES) + "\ngemm json: " + GEMM_JSON + "\n")
    forged = os.path.join(tmp, "gemm-work.tar.gz")
    with tarfile.open(forged, "w:gz") as t:
        t.add(work, arcname=".")
    out = os.path.join(tmp, "gemm-report")
    measure(out, "--phases", "report", "--resume", forged)
    with open(os.path.join(out, "report.md")) as f:
        md = f.read()
    section = md.split("## GEMM speed", 1)[-1].split("\n## ", 1)[0]
    check(all(line in section for line in GEMM_LINES), "report.md shows the GEMM lines:\n" + section)
    check(load(out, "report.json")["gemm_speed"] == json.loads(GEMM_JSON), "report.json gemm_speed")


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
        gemm_speed_report(tmp, out)
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
        for p in ("env", "probe", "static", "plans", "scan", "dram", "heldout", "offgrid", "gemm",
                  "configs", "attention"):
            check(states.get(p) == "ok", "phase %s ok: %r" % (p, states))
        check("selftest" not in states, "the fault-injecting self-test runs only when asked: %r" % states)
        check(report["next_window"] == [], "nothing left for a next window: %r" % report["next_window"])
        check(report["probe"]["capacity_blocks"] == 64, "probe C = 64")

        static = load(out, "static.json")
        check(len(static["rows"]) == 12, "static: 3 block sizes x 4 cluster counts")
        check(all(r["K"] == r["gap_law"] == r["clusters"] for r in static["rows"]), "static K = c")
        check(static["mape"]["gap_law"] == 0.0, "static gap-law MAPE 0 on the sim")

        scan = load(out, "scan.json")
        check(len(scan["measurements"]) == 756 and "content_hash" in scan, "scan: 756 runs, frozen")
        # the device carries the probe's capacity scan from the scan on, and
        # the static table (measured after the scan froze) from the held-out
        # panel on: a frozen bundle keeps what its device had at the freeze
        want = [{k: r[k] for k in ("block_bytes", "C", "clusters", "K", "gap_law", "sdcm", "che")}
                for r in static["rows"]]
        for name in ("gemm.json", "gemm-heldout.json"):
            got = load(out, name)["device"].get("static_experiment") or {}
            check(got.get("rows") == want and got.get("M") == static["M"],
                  "%s's device carries the static table: %r" % (name, got))
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
        check(set(row["mape"]) == {"pascal", "tilesight", "ppt_gpu", "exact_sdcm", "aligned", "che",
                                   "origami"},
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
        dram_phase(out, report, scan, md)
        offgrid_phase(out, report, scan, md)
        attention_phase(out, report, md)
        configs_phase(out, report, md)

        # A second run skips every phase that has results; env (this window's
        # host) and the report are redone.
        with open(os.path.join(out, "scan.json"), "rb") as f:
            before = f.read()
        rc, log, secs = measure(out)
        check(rc == 0 and log.count("results present, skipped") == 10 and "phase env: ok" in log,
              "second run skips:\n" + log)
        rc, log, _ = measure(out, "--phases", "selftest")
        check(rc == 0 and "phase selftest: not-applicable" in log, "selftest when asked:\n" + log)
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
                            "--phases", "env,probe,report"], capture_output=True, text=True, timeout=300)
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

        dram_inputs_missing(tmp)
        two_windows(tmp)
        committed_archives(tmp)
        foreign_bundle(tmp)
        plan_choice(tmp)
    if FAILS:
        print("%d failure(s)" % len(FAILS))
        return 1
    print("OK")
    return 0


if __name__ == "__main__":
    sys.exit(main())
