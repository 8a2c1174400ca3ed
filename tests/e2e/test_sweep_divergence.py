#!/usr/bin/python3
"""test_sweep_divergence.py - bench/sweep_divergence.py end to end on the
tiny sim device (one calibration size, two held-out sizes: three whole
calibrations of ~15 s each through pascald, two agents and `pascal plan`).

1. A centre bundle is measured directly with bench_paper_calibration.py.
   The sweep's identity point (capacity_blocks = 64, the value tiny.profile
   already has: the profile line is replaced by an equal one) must give the
   centre's row exactly: the sim is deterministic per seed, so the rewritten
   profile and the sweep's calibration path are the direct run's.
2. Its second point switches off every run-to-run variation source
   (appended keys, none of them in tiny.profile): repeats are then the same
   run bit for bit, so the repeat floor is exactly 0, where the unchanged
   device's is not. A sweep that dropped or mis-wrote its changes measures
   the unchanged device there and fails this (checked by hand: with the
   point's changes not written, the floor is the centre's 7.77 %).
3. The printed range is the min and max of the rows' leads, and the JSON
   written with --json holds the same rows with their settings.
4. A point without KEY=VALUE, or with a key the profile parser does not
   know, is refused with exit 2 and one line naming it, before any point
   is measured."""
import json
import os
import re
import subprocess
import sys
import tempfile

from e2e import check, finish, parse_args

VARIATION_OFF = ("sm_clock_spread=0,sm_read_run_spread=0,work_noise=0,link_stall_prob=0,"
                 "dram_tail_prob=0,start_jitter_ns=0,service_jitter=0,dispatch_ns=0")
SIZES = ["--plan-sizes", "154", "--heldout-sizes", "205,256"]
FIELDS = ("pascal", "aligned", "gap", "gap_ci", "share", "floor")


def run(cmd):
    return subprocess.run(cmd, capture_output=True, text=True, timeout=900)


def main():
    args = parse_args()
    bindir = os.path.dirname(os.path.abspath(args.pascald))
    build = os.path.dirname(bindir)
    sweep = os.path.join(args.source, "bench", "sweep_divergence.py")
    bench = os.path.join(args.source, "tests", "e2e", "bench_paper_calibration.py")
    profile = "tests/e2e/tiny.profile"
    with tempfile.TemporaryDirectory() as tmp:
        centre = os.path.join(tmp, "centre.json")
        p = run([sys.executable, bench, "--pascald", args.pascald, "--agent", args.agent,
                 "--cli", os.path.join(bindir, "pascal"), "--source", args.source,
                 "--profile", profile, "--device", "tiny", "--export", centre] + SIZES)
        if not check(p.returncode == 0, "direct calibration: " + p.stdout + p.stderr):
            finish()
        out = os.path.join(tmp, "sweep.json")
        base = [sys.executable, sweep, "--build", build, "--source", args.source,
                "--profile", profile, "--device", "tiny"]
        p = run(base + ["--centre", centre, "--bench-args", " ".join(SIZES), "--json", out,
                        "capacity_blocks=64", VARIATION_OFF])
        if not check(p.returncode == 0, "sweep exits 0: " + p.stdout + p.stderr):
            finish()
        with open(out) as f:
            rows = json.load(f)["rows"]
        check([r["setting"] for r in rows] == ["shipped", "capacity_blocks=64", VARIATION_OFF],
              "one row per point after the centre: %r" % [r["setting"] for r in rows])
        centre_row, same, off = rows
        for k in FIELDS:
            check(same[k] == centre_row[k], "identity point's %s %r == the direct run's %r"
                  % (k, same[k], centre_row[k]))
        check(centre_row["floor"] > 0, "the tiny device has a repeat floor: %r"
              % centre_row["floor"])
        check(off["floor"] == 0, "no variation: repeats identical, floor %r" % off["floor"])
        gaps = [r["gap"] for r in rows]
        m = re.search(r"lead over aligned K = 1: (-?[\d.]+) to (-?[\d.]+) points over 3 settings",
                      p.stdout)
        check(m is not None and (float(m.group(1)), float(m.group(2)))
              == (round(min(gaps), 2), round(max(gaps), 2)),
              "printed range is the rows' min and max lead %r: %s" % (gaps, p.stdout[-200:]))

        p = run(base + ["sm_clock_spread"])
        check(p.returncode == 2 and "KEY=VALUE" in p.stderr and "sm_clock_spread" in p.stderr,
              "a point without '=' is refused, exit 2: %d %s" % (p.returncode, p.stderr))
        # the bad point is the second: no point is measured before all are checked
        p = run(base + ["--json", os.path.join(tmp, "bad.json"), "work_noise=0.1",
                        "no_such_key=1"])
        check(p.returncode == 2 and "field no_such_key" in p.stderr
              and len(p.stderr.strip().splitlines()) == 1
              and not os.path.exists(os.path.join(tmp, "bad.json")),
              "an unknown key is refused before any measurement, exit 2 naming it: %d %s"
              % (p.returncode, p.stderr[-300:]))
    finish()


if __name__ == "__main__":
    main()
