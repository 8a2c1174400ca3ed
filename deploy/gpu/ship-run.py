#!/usr/bin/env python3
"""ship-run.py - turn the folder a GPU host returned from `measure.sh` into
the frozen bundles that pascald ships (deploy/calibrations/).

A measurement run writes each calibration as pascald froze it: the scan
calibration (`scan.json`), its held-out panel as separate bundles
(`heldout.json`, two parts), the GEMM calibration (`gemm.json`) and its
held-out shapes (`gemm-heldout.json`), plus `report.json` and the work
archive with the probe and host facts and, where the offgrid phase ran,
the off-grid panels (`offgrid-1..4.json`, `gemm-offgrid.json`). A shipped
bundle carries its panels inside (`heldout`, `offgrid`,
docs/bundle-format.md) and a provenance that says where every figure came
from, so this script

  1. takes each calibration's runs unchanged (format, device, workload,
     class rule, GEMM tiling, measurements: everything the content hash
     covers) and appends the runs of its panels as `heldout` and, when
     measured (the scan's: all four parts), `offgrid`;
  2. writes the provenance: GPU, driver, toolkit, host, date, the fill
     metric and its cold-read check, the effective C and where it came from,
     the phase times and the per-measurement cost, the measured commit;
  3. refits with `pascal fit`, which adds the model, the report (held-out
     panel included) and the content hash.

Nothing is measured, edited or dropped: the same runs give the same hash on
any machine. Usage:

    deploy/gpu/ship-run.py RUN_DIR --name h100 [--pascal build/bin/pascal]
                           [--out deploy/calibrations]

writes OUT/NAME-scan.json and OUT/NAME-tiled-gemm.json (the GEMM one only
when the run measured GEMM). Exit 2 on a bad argument or a run folder that
lacks what it needs, naming the file.
"""
import argparse
import io
import json
import os
import re
import subprocess
import sys
import tarfile
import tempfile

# What the content hash covers in a calibration (docs/bundle-format.md).
HASHED = ("format", "device", "workload", "class_rule", "gemm", "measurements")


def fail(msg):
    print("ship-run.py: " + msg, file=sys.stderr)
    sys.exit(2)


def load_json(run, name, required=True):
    path = os.path.join(run, name)
    if not os.path.exists(path):
        if required:
            fail("%s: missing (was the phase run?)" % path)
        return None
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        fail("%s: %s" % (path, e))


WORK_TEXT = ("env.txt", "probe.log", "phases.tsv")  # what the provenance quotes
WORK_PANELS = ("offgrid-1.json", "offgrid-2.json", "offgrid-3.json", "offgrid-4.json",
               "gemm-offgrid.json")  # the off-grid panels' frozen bundles


def work_files(run):
    """The files of the work archive this script reads, by name (absent
    ones left out): its text files as text, its panels as JSON."""
    path = os.path.join(run, "measure-work.tar.gz")
    out = {}
    if not os.path.exists(path):
        return out
    with tarfile.open(path) as tar:
        for name in WORK_TEXT + WORK_PANELS:
            try:
                f = tar.extractfile("./" + name)
            except KeyError:
                continue
            if f is None:
                continue
            text = io.TextIOWrapper(f, encoding="utf-8").read()
            if name in WORK_PANELS:
                try:
                    out[name] = json.loads(text)
                except ValueError as e:
                    fail("%s: %s in the work archive: %s" % (path, name, e))
            else:
                out[name] = text
    return out


def offgrid_runs(work, calib, names, what):
    """The runs of the off-grid panel measured as the bundles `names` of
    the work archive (empty unless every one is there), each checked to be
    of calib's device and workload (and GEMM tiling)."""
    if not all(n in work for n in names):
        return []
    runs = []
    for n in names:
        same_device(calib, work[n], "%s (work archive)" % n)
        if calib.get("gemm") != work[n].get("gemm"):
            fail("%s (work archive): its tiling differs from %s's" % (n, what))
        runs += work[n]["measurements"]
    return runs


def line_value(text, label):
    """The rest of the first line of `text` that starts with `label`."""
    m = re.search(r"^" + re.escape(label) + r"\s*:?\s*(.*)$", text or "", re.M)
    return m.group(1).strip() if m else None


def phase_seconds(report):
    return {p["phase"]: p["seconds"] for p in report.get("phases", []) if p.get("state") == "ok"}


def per_run_cost(seconds, runs):
    """Wall time of a phase minus its kernels' time, per run: what one
    measurement costs beyond the kernel (L2 flush, CUPTI range profiler,
    the agent's HTTP round trips)."""
    kernel_s = sum(r.get("kernel_ns", 0.0) for r in runs) / 1e9
    return round((seconds - kernel_s) / len(runs), 4) if runs and seconds else None


def provenance(report, work, phase, runs, heldout_runs, heldout_phase, extra):
    env = report.get("env", {})
    probe_log = work.get("probe.log", "")
    env_txt = work.get("env.txt", "")
    seconds = phase_seconds(report)
    gpu = [s.strip() for s in env.get("gpu", "").split(",")]
    p = {
        "source": "cuda",
        "producer": "deploy/gpu/measure.sh (pascald + one pascal-agent --backend cuda)",
        "device": runs["device"]["name"],
        "gpu": gpu[0] if gpu else None,
        "driver": gpu[1] if len(gpu) > 1 else None,
        "compute_capability": gpu[2] if len(gpu) > 2 else None,
        "toolkit": "CUDA " + line_value(env_txt, "CUDA Version") if line_value(env_txt, "CUDA Version") else None,
        "host": env.get("host", "").strip() or None,
        "date": env.get("date"),
        "measured_commit": (env.get("bundle", "").replace("source:", "").strip() or None),
        "fill_metric": line_value(probe_log, "fill metric"),
        "cold_read_check": line_value(probe_log, "cold read"),
        "capacity": "C = %d blocks of %d bytes: the largest size of the probe's capacity scan "
                    "(device.capacity_probe) whose fills stay within 10 %% of the bytes read"
                    % (runs["device"]["capacity_blocks"], runs["device"]["block_bytes"]),
        "l2_bytes": report.get("probe", {}).get("l2_bytes"),
        "phase_seconds": {k: seconds[k] for k in (phase, heldout_phase) if k in seconds},
        "seconds_per_measurement_beyond_kernel": per_run_cost(seconds.get(phase), runs["measurements"]),
        "heldout_seconds_per_measurement_beyond_kernel":
            per_run_cost(seconds.get(heldout_phase), heldout_runs) if heldout_phase else None,
    }
    p.update(extra)
    return {k: v for k, v in p.items() if v is not None}


def ship(pascal, calib, panel, offgrid, prov, dest):
    bundle = {k: calib[k] for k in HASHED if k in calib}
    bundle["provenance"] = prov
    bundle["heldout"] = panel
    if offgrid:
        bundle["offgrid"] = offgrid
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False, encoding="utf-8") as f:
        json.dump(bundle, f)
        raw = f.name
    try:
        res = subprocess.run([pascal, "fit", raw, "-o", dest], capture_output=True, text=True)
    finally:
        os.unlink(raw)
    if res.returncode != 0:
        fail("pascal fit for %s failed (exit %d): %s" % (dest, res.returncode, res.stderr.strip()))
    print("wrote %s (%d runs, %d held-out, %d off-grid)"
          % (dest, len(bundle["measurements"]), len(panel), len(offgrid)))


def same_device(a, b, what):
    if a["device"]["name"] != b["device"]["name"] or a["workload"] != b["workload"]:
        fail("%s: device or workload differs from the calibration's" % what)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("run", help="the folder measure.sh wrote (--out), as returned by the GPU host")
    ap.add_argument("--name", required=True, help="file name prefix, e.g. h100")
    ap.add_argument("--pascal", default="build/bin/pascal", help="the pascal CLI (default build/bin/pascal)")
    ap.add_argument("--out", default="deploy/calibrations", help="destination folder")
    ap.add_argument("--note", default=None, help="a sentence kept in the provenance")
    a = ap.parse_args()
    if not re.fullmatch(r"[a-z0-9][a-z0-9-]{0,40}", a.name):
        fail("--name: 1-41 of a-z 0-9 -, got %r" % a.name)
    if not os.path.isdir(a.run):
        fail("%s: not a folder" % a.run)
    if not os.path.isdir(a.out):
        fail("--out: %s is not a folder" % a.out)
    if not os.access(a.pascal, os.X_OK):
        fail("--pascal: %s is not executable (make build)" % a.pascal)
    report = load_json(a.run, "report.json")
    work = work_files(a.run)
    extra = {"note": a.note} if a.note else {}

    # Read and check everything before writing anything.
    scan = load_json(a.run, "scan.json")
    parts = load_json(a.run, "heldout.json", required=False)
    panel = []
    for i, part in enumerate((parts or {}).get("parts", [])):
        same_device(scan, part, "heldout.json part %d" % (i + 1))
        panel += part["measurements"]
    scan_off = offgrid_runs(work, scan, WORK_PANELS[:4], "scan.json")
    jobs = [(scan, panel, scan_off,
             provenance(report, work, "scan", scan, panel, "heldout" if panel else None, extra),
             a.name + "-scan.json")]
    gemm = load_json(a.run, "gemm.json", required=False)
    if gemm is not None:
        held = load_json(a.run, "gemm-heldout.json", required=False)
        gpanel = []
        if held is not None:
            same_device(gemm, held, "gemm-heldout.json")
            if held.get("gemm") != gemm.get("gemm"):
                fail("gemm-heldout.json: its tiling differs from gemm.json's")
            gpanel = held["measurements"]
        prov = provenance(report, work, "gemm", gemm, [], None, extra)
        seconds = phase_seconds(report).get("gemm")
        prov["phase_seconds"] = {"gemm (calibration + held-out)": seconds}
        prov["seconds_per_measurement_beyond_kernel"] = per_run_cost(seconds, gemm["measurements"] + gpanel)
        gemm_off = offgrid_runs(work, gemm, WORK_PANELS[4:], "gemm.json")
        jobs.append((gemm, gpanel, gemm_off, prov, a.name + "-tiled-gemm.json"))
    offgrid_s = phase_seconds(report).get("offgrid")
    for calib, runs, off, prov, name in jobs:
        if off and offgrid_s:
            prov["phase_seconds"]["offgrid (scan and GEMM off-grid panels)"] = offgrid_s
        ship(a.pascal, calib, runs, off, prov, os.path.join(a.out, name))

if __name__ == "__main__":
    main()
