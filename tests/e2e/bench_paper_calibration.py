#!/usr/bin/python3
"""bench_paper_calibration.py - a whole paper calibration on the sim, end to
end, timed: pascald on an ephemeral port with a temporary database, a sim
device registered from a profile (default gb10-like), the paper's plan and
its held-out panel written for that device by `pascal plan` from the
agent's probe, N pascal-agents (default 2) with --until-idle, then freeze.
--workload scan (default): 756 runs and a 420-run panel in two parts;
--workload gemm: the 120 calibration shapes and the 60 held-out shapes;
--workload attention: the 96 attention reference runs, a panel of the 24
held-out runs and the 15 (N, W, d) cells x 2 repeats (docs/attention.md).
Prints the wall time, the agents' job rate and the report's table (LOKO
and held-out), and with --export writes the frozen bundle with its
provenance completed (source sim, profile, seeds, plans) for
deploy/calibrations/.

Not a ctest test (a scan takes minutes): a benchmark, run by hand.
    tests/e2e/bench_paper_calibration.py --pascald build/bin/pascald \\
        --agent build/bin/pascal-agent --cli build/bin/pascal --source . \\
        [--workload gemm] [--profile deploy/profiles/thor-like.profile --device sim-thor] \\
        [--plan-sizes 3072,4096,6144] [--heldout-sizes 4096,5120] [--timeout S] \\
        [--export FILE]
"""
import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "harness"))
from e2e import Agent, World, http  # noqa: E402
from sim_profile import profile_values  # noqa: E402


# `pascal plan` kinds per workload: the calibration plan, then the held-out
# panel's parts (the scan panel comes in two plan files, the GEMM panel in
# one). Scan plans follow the probed device; GEMM plans are the paper's
# shapes on every device and take no probe.
PLAN_KINDS = {
    "scan": [["--kind", "scan"], ["--kind", "scan-heldout", "--part", "1"],
             ["--kind", "scan-heldout", "--part", "2"]],
    "gemm": [["--kind", "gemm"], ["--kind", "gemm-heldout"]],
    "attention": [["--kind", "attention"], ["--kind", "attention-heldout"]]
    + [["--kind", "attention-cells", "--part", str(p)] for p in range(1, 6)],
}
PLAN_NAMES = {
    "scan": ("pascal plan --kind scan --probe (the sim agent's probe)",
             "pascal plan --kind scan-heldout --part 1 and --part 2 --probe (two parts)"),
    "gemm": ("pascal plan --kind gemm (the paper's 120 shapes)",
             "pascal plan --kind gemm-heldout (the paper's 60 held-out shapes)"),
    "attention": ("pascal plan --kind attention --probe (96 runs)",
                  "pascal plan --kind attention-heldout (24 runs) and --kind attention-cells"
                  " --part 1..5 (15 cells x 2 repeats) --probe"),
}


def device_plans(args, profile_path):
    """The plan and the held-out parts `pascal plan` writes from the sim
    agent's probe; a --plan file replaces the generated plan."""
    out = subprocess.run([args.agent, "--backend", "sim", "--profile", profile_path, "--probe"],
                         check=True, capture_output=True, text=True).stdout
    line = [l for l in out.splitlines() if l.startswith("probe json:")]
    if not line:
        sys.exit("no 'probe json:' line from the agent:\n" + out)
    docs = []
    with tempfile.TemporaryDirectory() as tmp:
        probe = os.path.join(tmp, "probe.json")
        with open(probe, "w") as f:
            f.write(line[0].split(":", 1)[1])
        for i, kind in enumerate(PLAN_KINDS[args.workload]):
            path = os.path.join(tmp, "plan-%d.json" % i)
            device = ["--probe", probe] if args.workload != "gemm" else []
            subprocess.run([args.cli, "plan"] + kind + device + ["-o", path], check=True)
            with open(path) as f:
                docs.append(json.load(f))
    if args.plan:
        with open(os.path.join(args.source, args.plan)) as f:
            docs[0] = json.load(f)
    if args.plan_sizes:
        docs[0]["sizes"] = args.plan_sizes
    if args.heldout_sizes:
        if len(args.heldout_sizes) != len(docs) - 1:
            sys.exit("--heldout-sizes needs one size per held-out part (%d)" % (len(docs) - 1))
        for part, n in zip(docs[1:], args.heldout_sizes):
            part["sizes"] = [n]
    return docs[0], docs[1:]


def sizes(text):
    """A comma-separated list of block counts."""
    try:
        v = [int(x) for x in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError("expected N,N,...: %r" % text)
    if not v or min(v) < 1:
        raise argparse.ArgumentTypeError("sizes must be positive: %r" % text)
    return v


def print_table(report):
    """The report's table rows, one line each."""
    for row in report.get("table", {}).get("rows", []):
        print("  " + json.dumps(row, sort_keys=True))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pascald", required=True)
    ap.add_argument("--agent", required=True)
    ap.add_argument("--source", required=True)
    ap.add_argument("--cli", required=True, help="the pascal CLI (writes the plans)")
    ap.add_argument("--workload", choices=sorted(PLAN_KINDS), default="scan")
    ap.add_argument("--plan", help="a plan file instead of `pascal plan --kind WORKLOAD`")
    ap.add_argument("--no-heldout", action="store_true", help="no held-out panel")
    ap.add_argument("--profile", default="deploy/profiles/gb10-like.profile")
    ap.add_argument("--agents", type=int, default=2)
    ap.add_argument("--device", default="sim-gb10")
    ap.add_argument("--export")
    ap.add_argument("--plan-sizes", type=sizes,
                    help="N of the calibration plan instead of the probe's (e.g. 3072,4096,6144)")
    ap.add_argument("--heldout-sizes", type=sizes,
                    help="N of each held-out part instead of the probe's (e.g. 4096,5120)")
    ap.add_argument("--timeout", type=float, default=3600.0,
                    help="seconds the agents may take (default 3600)")
    args = ap.parse_args()
    profile_path = os.path.join(args.source, args.profile)
    plan, panel = device_plans(args, profile_path)
    with World(args, lease_seconds=120) as w:
        common = ["--server", w.url, "--device", args.device, "--backend", "sim",
                  "--profile", profile_path, "--until-idle", "--poll", "0.5"]
        reg = Agent(w, "registrar", common + ["--name", "registrar"], token=w.admin)
        if reg.wait() != 0:
            sys.exit("registration failed:\n" + reg.text())
        body = {"device": args.device, "plan": plan}
        if not args.no_heldout:
            body["heldout"] = panel
        st, created = w.api("POST", "/v1/calibrations", body, w.admin)
        if st != 201:
            sys.exit("create failed: %s %s" % (st, created))
        cal, total = created["id"], created["progress"]["total"]
        t0 = time.monotonic()
        agents = [Agent(w, "agent-%d" % i, common + ["--name", "agent-%d" % i], token=w.agent_token)
                  for i in range(args.agents)]
        codes = [a.wait(timeout=args.timeout) for a in agents]
        wall = time.monotonic() - t0
        ru = resource.getrusage(resource.RUSAGE_CHILDREN)  # the agents (the daemon still runs)
        cpu = ru.ru_utime + ru.ru_stime
        if any(codes):
            w.dump()
            sys.exit("agents exited with %r" % codes)
        done = [a.count(r" done: fill_bytes") for a in agents]
        st, frozen = w.api("POST", "/v1/calibrations/%d/freeze" % cal, None, w.admin)
        if st != 200:
            sys.exit("freeze failed: %s %s" % (st, frozen))
        mape = frozen["report"]["balanced_mape"]
        print("calibration on %s: %d runs (plan and held-out panel), sim profile %s, %d agents (jobs %s)"
              % (args.device, total, os.path.basename(profile_path), args.agents, done))
        print("wall time: %.1f s (%.1f min), %.2f jobs/s; CPU time of the exited children"
              " (agents, probe, plan writer): %.1f s" % (wall, wall / 60, total / wall, cpu))
        print("LOKO balanced MAPE: pascal %.2f %%, aligned K=1 %.2f %% (%s keys scored, %s refused runs)"
              % (mape["pascal"], mape["aligned"], frozen["report"].get("n_keys_scored"),
                 frozen["report"].get("n_refused")))
        print_table(frozen["report"])
        if args.export:
            st, bundle = w.api("GET", "/v1/calibrations/%d/export" % cal)
            if st != 200:
                sys.exit("export failed: %s" % st)
            prof = profile_values(profile_path)
            bundle["provenance"].pop("calibration", None)  # an id of this throwaway daemon
            bundle["provenance"].update({
                "source": "sim", "producer": "pascal-agent --backend sim (pascald jobs API)",
                "profile": prof.get("name"), "profile_file": args.profile,
                "seed": int(prof.get("seed", "1")),
                "run_seeds": "the run's repeat index (0, 1, ... up to the plan's repeats), with"
                " the profile seed and the %s" % ("shape" if args.workload == "gemm" else "key"),
                "plan": (args.plan or PLAN_NAMES[args.workload][0]) +
                        (", sizes %s" % args.plan_sizes if args.plan_sizes else ""),
                "heldout_plan": None if args.no_heldout else PLAN_NAMES[args.workload][1] +
                        (", sizes %s" % args.heldout_sizes if args.heldout_sizes else ""),
                "agents": args.agents, "wall_seconds": round(wall, 1),
                "agent_cpu_seconds": round(cpu, 1),
                "machine": "2-core dev machine shared with other work"})
            with open(args.export, "w") as f:
                json.dump(bundle, f, indent=1)
                f.write("\n")
            # The edited bundle must still import (its model is re-checked).
            st, imp = http("POST", w.url + "/v1/calibrations/import", bundle, w.admin)
            print("exported %s (re-import: %s)" % (args.export, st))


if __name__ == "__main__":
    main()
