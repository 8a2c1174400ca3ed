#!/usr/bin/python3
"""sweep_divergence.py - PASCAL's held-out lead over aligned K = 1 as a range:
the sim calibration re-measured over a small sweep of a profile's
divergence-related settings around the shipped profile.

For each setting (KEY=VALUE[,KEY=VALUE...]) the profile is copied with those
keys replaced (the device name stays), a whole calibration with its held-out
panel is measured end to end with tests/e2e/bench_paper_calibration.py
(pascald, two sim agents, `pascal plan` from the probe; the same path as the
shipped bundles) and frozen, and the frozen bundle's held-out report gives
PASCAL's and aligned K = 1's balanced MAPE, their gap, the share of runs with
K > 1.05 and the repeat floor. A shipped bundle measured with the unchanged
profile can stand for the centre (--centre BUNDLE), so the sweep only pays
for the points around it. Prints one row per point and the lead's range.

usage: sweep_divergence.py --build build --source . --profile deploy/profiles/gb10-like.profile
           --device sim-gb10 [--centre deploy/calibrations/sim-gb10-scan.json]
           [--bench-args '--plan-sizes 3072,4096,6144 ...'] [--json OUT]
           KEY=VALUE[,KEY=VALUE] ...
Every point's profile is probed first (a bad key or value: exit 2, one line
naming it); --json is rewritten after every point. Each point is a whole
calibration: ~17 CPU-minutes on gb10-like, ~14 on thor-like on an idle
machine, about twice that under load (docs/sim-device.md, "The margin as a
range"). Tested on the tiny device by tests/e2e/test_sweep_divergence.py.
"""
import argparse
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def changed_profile(text, changes):
    """The profile text with each KEY's line replaced (or appended)."""
    for key, value in changes:
        pat = re.compile(r"(?m)^\s*%s\s*=.*$" % re.escape(key))
        line = "%s = %s" % (key, value)
        text = pat.sub(line, text) if pat.search(text) else text + "\n" + line + "\n"
    return text


def parse_point(spec):
    changes = []
    for part in spec.split(","):
        if "=" not in part:
            raise argparse.ArgumentTypeError("expected KEY=VALUE[,KEY=VALUE]: %r" % spec)
        k, v = part.split("=", 1)
        changes.append((k.strip(), v.strip()))
    return changes


def heldout_row(bundle_path):
    with open(bundle_path) as f:
        b = json.load(f)
    h = b["report"]["heldout"]
    s = h["summary"]
    prov = b.get("provenance", {})
    return {"pascal": h["balanced_mape"]["pascal"], "aligned": h["balanced_mape"]["aligned"],
            "gap": s["gap"]["aligned"], "gap_ci": s["gap_ci"]["aligned"],
            "share": s["share_above"], "floor": s.get("floor_mape"),
            "wall_seconds": prov.get("wall_seconds"),
            "agent_cpu_seconds": prov.get("agent_cpu_seconds")}


def write_json(path, a, rows):
    """All rows so far (rewritten after every point, so a stopped sweep keeps them)."""
    with open(path, "w") as f:
        json.dump({"device": a.device, "profile": a.profile, "centre": a.centre,
                   "bench_args": a.bench_args,
                   "rows": [dict(r, setting=l) for l, r in rows]}, f, indent=1)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", required=True, help="build folder with bin/pascald, pascal-agent, pascal")
    ap.add_argument("--source", required=True)
    ap.add_argument("--profile", required=True)
    ap.add_argument("--device", required=True)
    ap.add_argument("--centre", help="a bundle measured with the unchanged profile")
    ap.add_argument("--bench-args", default="", help="more bench_paper_calibration.py options")
    ap.add_argument("--json")
    ap.add_argument("points", nargs="+", type=parse_point)
    a = ap.parse_args()
    with open(os.path.join(a.source, a.profile)) as f:
        base = f.read()
    rows = []
    if a.centre:
        rows.append(("shipped", heldout_row(os.path.join(a.source, a.centre))))
    bench = os.path.join(a.source, "tests", "e2e", "bench_paper_calibration.py")
    binp = os.path.join(a.build, "bin")
    agent = os.path.join(binp, "pascal-agent")
    tmp = tempfile.TemporaryDirectory()
    # Every point's profile is written and probed before any is measured, so
    # that a bad key or value stops the sweep at once with the parser's line.
    profiles = []
    for i, changes in enumerate(a.points):
        label = ",".join("%s=%s" % kv for kv in changes)
        prof = os.path.join(tmp.name, "point%d.profile" % i)
        with open(prof, "w") as f:
            f.write(changed_profile(base, changes))
        p = subprocess.run([agent, "--backend", "sim", "--profile", prof, "--probe"],
                           capture_output=True, text=True)
        if p.returncode != 0:  # bad input: exit 2 with the parser's one line
            print("sweep_divergence: %s: %s" % (label, p.stderr.strip()), file=sys.stderr)
            return 2
        profiles.append((label, prof))
    for i, (label, prof) in enumerate(profiles):
        out = os.path.join(tmp.name, "bundle%d.json" % i)
        cmd = [sys.executable, bench, "--pascald", os.path.join(binp, "pascald"),
               "--agent", agent, "--cli", os.path.join(binp, "pascal"),
               "--source", a.source, "--profile", os.path.relpath(prof, a.source),
               "--device", a.device, "--timeout", "36000", "--export", out]
        cmd += shlex.split(a.bench_args)
        p = subprocess.run(cmd, capture_output=True, text=True)
        if p.returncode != 0:
            sys.exit("sweep_divergence: %s failed:\n%s%s" % (label, p.stdout, p.stderr))
        rows.append((label, heldout_row(out)))
        r = rows[-1][1]
        print("%-40s done: PASCAL %.2f, K=1 %.2f, %.0f agent CPU-s" %
              (label, r["pascal"], r["aligned"], r["agent_cpu_seconds"] or 0), flush=True)
        if a.json:
            write_json(a.json, a, rows)
    print("%s (%s), held-out panel, balanced MAPE %%:" % (a.device, a.profile))
    print("%-40s %8s %8s %22s %8s %7s" % ("setting", "PASCAL", "K=1", "lead [95% CI]", "K>1.05",
                                         "floor"))
    for label, r in rows:
        print("%-40s %8.2f %8.2f %7.2f [%6.2f, %6.2f] %7.1f%% %7s" %
              (label, r["pascal"], r["aligned"], r["gap"], r["gap_ci"][0], r["gap_ci"][1],
               100 * r["share"], "-" if r["floor"] is None else "%.2f" % r["floor"]))
    gaps = [r["gap"] for _, r in rows]
    print("PASCAL's lead over aligned K = 1: %.2f to %.2f points over %d settings" %
          (min(gaps), max(gaps), len(rows)))
    if a.json:
        write_json(a.json, a, rows)
    tmp.cleanup()
    return 0


if __name__ == "__main__":
    sys.exit(main())
