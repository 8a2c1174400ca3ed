#!/usr/bin/python3
"""test_heldout.py - a calibration with a held-out panel through real
processes: a small scan plan plus a panel of two keys it never lists (two
repeats each) is measured by a sim pascal-agent over HTTP, the panel's jobs
and measurements are flagged in the SQLite file, the panel never enters the
fit (the model has no curve of its keys, LOKO scores only the plan's runs),
and the frozen report gives both the LOKO folds and the panel, with the
comparison table, intervals and the repeat-to-repeat floor; the exported
bundle carries the panel. A panel in two parts (an array of plans, as the
paper's scan panel needs: one cross product of sizes and horizons each)
expands both. Malformed panels are refused naming the field."""
import math

from e2e import World, check, finish, parse_args, scan_plan

FAMILIES = [(1, "sync", 0), (1, "tma", 4)]
MS = [0, 1, 2, 4, 5, 6]  # classes 0, 1, 2 twice each
SIZES = [128, 256]
HORIZONS = [1, 4]
PANEL = {"format": "pascal-plan/1", "workload": "scan", "sizes": [192], "horizons": [4, 16],
         "repeats": 2, "keys": [{"o": 1, "path": "tma", "d": 4, "m": 3},
                                {"o": 1, "path": "sync", "m": 3}]}
PANEL_RUNS = 2 * 1 * 2 * 2


def bad_requests(w, plan):
    gemm = {"format": "pascal-plan/1", "workload": "gemm",
            "shapes": [{"Mg": 256, "Ng": 256, "Kg": 128}]}
    for body, field in [
            ({"device": "tiny", "plan": plan, "heldout": gemm}, "heldout.workload"),
            ({"device": "tiny", "plan": plan, "heldout": 1}, "heldout"),
            ({"device": "tiny", "plan": plan, "heldout": []}, "heldout"),
            ({"device": "tiny", "plan": plan, "heldout": [1]}, "heldout[0]"),
            ({"device": "tiny", "plan": plan, "heldout": [PANEL, gemm]}, "heldout[1].workload"),
            ({"device": "tiny", "plan": dict(plan, heldout=[PANEL, dict(PANEL, sizes=[0])])},
             "plan.heldout[1].sizes[0]"),
            ({"device": "tiny", "plan": dict(plan, heldout=PANEL), "heldout": PANEL}, "heldout"),
            ({"device": "tiny", "plan": plan, "heldout": dict(PANEL, sizes=[0])},
             "heldout.sizes[0]")]:
        st, r = w.api("POST", "/v1/calibrations", body, w.admin)
        err = (r or {}).get("error") or {}
        check(st == 400 and err.get("field") == field,
              "bad panel refused naming %s: %s %s" % (field, st, r))


def main():
    args = parse_args()
    with World(args) as w:
        w.register_tiny("tiny")
        plan = scan_plan(FAMILIES, MS, SIZES, HORIZONS)
        bad_requests(w, plan)
        total_fit = len(FAMILIES) * len(MS) * len(SIZES) * len(HORIZONS)
        st, body = w.api("POST", "/v1/calibrations",
                         {"device": "tiny", "plan": plan, "heldout": PANEL}, w.admin)
        check(st == 201, "create with a panel: %s %s" % (st, body))
        cal, total = body["id"], body["progress"]["total"]
        check(total == total_fit + PANEL_RUNS, "plan and panel expand to %d jobs" % total)
        check((body.get("plan") or {}).get("heldout", {}).get("repeats") == 2,
              "the stored plan keeps its panel: %r" % body.get("plan"))

        # the panel may also travel inside the plan itself
        st, inner = w.api("POST", "/v1/calibrations",
                          {"device": "tiny", "plan": dict(plan, heldout=PANEL)}, w.admin)
        check(st == 201 and inner["progress"]["total"] == total and
              inner["plan"].get("heldout") == body["plan"]["heldout"],
              "a plan carrying its panel expands the same way: %s %r" % (st, inner.get("progress")))

        # a panel in two parts: each expanded after the plan, in order
        part2 = dict(PANEL, sizes=[160], horizons=[8])
        st, two = w.api("POST", "/v1/calibrations",
                        {"device": "tiny", "plan": plan, "heldout": [PANEL, part2]}, w.admin)
        check(st == 201 and two["progress"]["total"] == total + 2 * 1 * 1 * 2 and
              [p.get("sizes") for p in two["plan"].get("heldout", [])] == [[192], [160]],
              "a two-part panel expands both parts: %s %r" % (st, two.get("plan", {}).get("heldout")))
        jobs = w.sql("SELECT N, W FROM jobs WHERE calibration = ? AND heldout = 1 ORDER BY id",
                     (two["id"],))
        jobs = [tuple(j) for j in jobs]
        check(sorted(jobs[:8]) == [(192, 4)] * 4 + [(192, 16)] * 4 and jobs[8:] == [(160, 8)] * 4,
              "parts expand in order, flagged held-out: %r" % jobs)
        ag = w.agent("agent", "tiny", "--until-idle")
        check(ag.wait() == 0, "the agent measures everything and exits 0: " + ag.text()[-400:])
        w.check_jobs_accounted(cal, total)
        flagged = w.sql("SELECT count(*) FROM jobs WHERE calibration = ? AND heldout = 1", (cal,))
        measured = w.sql("SELECT count(*), min(m), max(m) FROM measurements"
                         " WHERE calibration = ? AND heldout = 1", (cal,))
        check(flagged[0][0] == PANEL_RUNS, "panel jobs flagged: %r" % flagged)
        check(measured[0] == (PANEL_RUNS, 3, 3), "panel measurements flagged: %r" % measured)

        st, frozen = w.api("POST", "/v1/calibrations/%d/freeze" % cal, None, w.admin)
        check(st == 200 and frozen.get("state") == "frozen", "freeze: %s %s" % (st, frozen))
        rep = frozen.get("report") or {}
        check(rep.get("n_runs") == total_fit, "LOKO scores only the plan's runs: %r" % rep.get("n_runs"))
        held = rep.get("heldout") or {}
        check(held.get("n_runs") == PANEL_RUNS and held.get("n_keys") == 2,
              "the panel report has its runs and keys: %r" % {k: held.get(k) for k in ("n_runs", "n_keys")})
        check(all(k.get("m") == 3 for k in held.get("keys", [])), "panel keys are the m = 3 keys")
        summ = held.get("summary") or {}
        check(summ.get("n_floor_runs") == PANEL_RUNS and isinstance(summ.get("floor_mape"), float)
              and summ["floor_mape"] >= 0, "floor over the repeated panel runs: %r" % summ)
        table = rep.get("table") or {}
        rows = table.get("rows") or [{}]
        check(len(rows) == 1 and rows[0].get("validation") == "heldout" and
              rows[0].get("workload") == "scan" and rows[0].get("device") == "tiny",
              "the table row is the held-out panel: %r" % rows[0].get("validation"))
        for m in ("pascal", "tilesight", "ppt_gpu", "exact_sdcm", "aligned", "che"):
            v, ci = rows[0]["mape"].get(m), rows[0]["ci"].get(m)
            check(isinstance(v, float) and math.isfinite(v) and ci and ci[0] <= v <= ci[1],
                  "%s: MAPE %r inside its interval %r" % (m, v, ci))
        check(rows[0]["mape"]["pascal"] == held["balanced_mape"]["pascal"],
              "the row is the panel's balanced MAPE")
        check(table.get("overall", {}).get("mape") == rows[0]["mape"], "one row: overall = row")
        print("panel: PASCAL %.2f%% %r, floor %.2f%%, K > 1.05 in %d of %d runs" %
              (rows[0]["mape"]["pascal"], rows[0]["ci"]["pascal"], rows[0]["floor_mape"] or 0,
               rows[0]["n_above"], rows[0]["n_scored"]))

        st, got = w.api("GET", "/v1/calibrations/%d" % cal)
        check(st == 200 and got.get("report") == rep, "GET serves the frozen report")
        st, bundle = w.api("GET", "/v1/calibrations/%d/export" % cal)
        check(st == 200 and len(bundle.get("heldout", [])) == PANEL_RUNS,
              "the exported bundle carries the panel: %s" % st)
        check(len(bundle.get("measurements", [])) == total_fit, "and the plan's runs apart")
        curves = (bundle.get("model") or {}).get("curves", [])
        check(curves and not any(c.get("m") == 3 for c in curves),
              "no curve was fitted to a panel key")
        st, again = w.api("POST", "/v1/calibrations/import", bundle, w.admin)
        check(st == 200 and again.get("id") == cal,
              "re-importing the bundle finds the same calibration (hash covers the panel): %s %r"
              % (st, (again or {}).get("id")))
    finish()


if __name__ == "__main__":
    main()
