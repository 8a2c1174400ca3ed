#!/usr/bin/python3
"""bench_paper_calibration.py - the whole paper scan calibration on the sim,
end to end, timed: pascald on an ephemeral port with a temporary database,
the plan deploy/plans/scan-paper.json (756 runs) for the default gb10-like
sim profile, N pascal-agents (default 2) with --until-idle, then freeze.
Prints the wall time, the agents' job rate and the LOKO balanced MAPE, and
with --export writes the frozen bundle with its provenance completed
(source sim, profile, seed, plan) for deploy/calibrations/.

Not a ctest test (it takes minutes): a benchmark, run by hand.
    tests/e2e/bench_paper_calibration.py --pascald build/bin/pascald \\
        --agent build/bin/pascal-agent --source . [--export FILE]
"""
import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2e import Agent, World, http  # noqa: E402


def profile_values(path):
    """key = value lines of a sim profile (comments stripped)."""
    vals = {}
    with open(path) as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if "=" in line:
                k, v = (s.strip() for s in line.split("=", 1))
                vals[k] = v
    return vals


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pascald", required=True)
    ap.add_argument("--agent", required=True)
    ap.add_argument("--source", required=True)
    ap.add_argument("--plan", default="deploy/plans/scan-paper.json")
    ap.add_argument("--profile", default="deploy/profiles/gb10-like.profile")
    ap.add_argument("--agents", type=int, default=2)
    ap.add_argument("--device", default="sim-gb10")
    ap.add_argument("--export")
    args = ap.parse_args()
    plan_path = os.path.join(args.source, args.plan)
    profile_path = os.path.join(args.source, args.profile)
    with open(plan_path) as f:
        plan = json.load(f)
    with World(args, lease_seconds=120) as w:
        common = ["--server", w.url, "--device", args.device, "--backend", "sim",
                  "--profile", profile_path, "--until-idle", "--poll", "0.5"]
        reg = Agent(w, "registrar", common + ["--name", "registrar"], token=w.admin)
        if reg.wait() != 0:
            sys.exit("registration failed:\n" + reg.text())
        cal, total = w.create_calibration(args.device, plan)
        t0 = time.monotonic()
        agents = [Agent(w, "agent-%d" % i, common + ["--name", "agent-%d" % i], token=w.agent_token)
                  for i in range(args.agents)]
        codes = [a.wait(timeout=3600) for a in agents]
        wall = time.monotonic() - t0
        if any(codes):
            w.dump()
            sys.exit("agents exited with %r" % codes)
        done = [a.count(r" done: fill_bytes") for a in agents]
        st, frozen = w.api("POST", "/v1/calibrations/%d/freeze" % cal, None, w.admin)
        if st != 200:
            sys.exit("freeze failed: %s %s" % (st, frozen))
        mape = frozen["report"]["balanced_mape"]
        print("calibration of %s: %d runs, sim profile %s, %d agents (jobs %s)"
              % (args.plan, total, os.path.basename(profile_path), args.agents, done))
        print("wall time: %.1f s (%.1f min), %.2f jobs/s" % (wall, wall / 60, total / wall))
        print("LOKO balanced MAPE: pascal %.2f %%, aligned K=1 %.2f %% (%s keys scored, %s refused runs)"
              % (mape["pascal"], mape["aligned"], frozen["report"].get("n_keys_scored"),
                 frozen["report"].get("n_refused")))
        if args.export:
            st, bundle = w.api("GET", "/v1/calibrations/%d/export" % cal)
            if st != 200:
                sys.exit("export failed: %s" % st)
            prof = profile_values(profile_path)
            bundle["provenance"].pop("calibration", None)  # an id of this throwaway daemon
            bundle["provenance"].update({
                "source": "sim", "producer": "pascal-agent --backend sim (pascald jobs API)",
                "profile": prof.get("name"), "profile_file": args.profile,
                "seed": int(prof.get("seed", "1")), "plan": args.plan,
                "agents": args.agents, "wall_seconds": round(wall, 1)})
            with open(args.export, "w") as f:
                json.dump(bundle, f, indent=1)
                f.write("\n")
            # The edited bundle must still import (its model is re-checked).
            st, imp = http("POST", w.url + "/v1/calibrations/import", bundle, w.admin)
            print("exported %s (re-import: %s)" % (args.export, st))


if __name__ == "__main__":
    main()
