#!/usr/bin/python3
"""test_calibrate.py - the whole loop through real processes: a small scan
plan on the tiny sim device is completed by two pascal-agents at once (both
polling before the calibration exists, stopped by SIGTERM after), every
job is accounted for exactly once in the database, the calibration freezes
with a finite LOKO MAPE, and held-out keys are predicted over HTTP (POST and
GET agree). Also: an agent with an admin token registers its device itself,
and a third agent started afterwards with --until-idle exits 0 at once."""
import math
import signal
import urllib.parse

from e2e import World, check, finish, parse_args, scan_plan, wait_for

FAMILIES = [(1, "sync", 0), (1, "tma", 4), (2, "tma", 3)]
# Two references per execution class, so that leaving one key out (LOKO)
# still leaves its class identifiable.
MS = [0, 1, 2, 4, 5, 6]
SIZES = [128, 256]


def main():
    args = parse_args()
    with World(args) as w:
        # The first agent registers the device with the admin token and, with
        # nothing to do yet, exits 0 under --until-idle.
        reg = w.agent("registrar", "tiny", "--until-idle", token=w.admin)
        check(reg.wait() == 0, "admin agent exits 0: " + reg.text())
        check("registered" in reg.text(), "admin agent says it registered the device")
        st, dev = w.api("GET", "/v1/devices/tiny")
        check(st == 200, "device exists after the admin agent ran: %s" % st)
        # the sim profile states a CUDA identity and the agent registered it
        ident = (dev.get("cuda_name"), dev.get("compute_capability"), dev.get("l2_bytes"))
        check(ident == ("PASCAL sim GB10-like", "12.1", 1048576),
              "the agent registered the profile's CUDA identity: %r" % (ident,))
        # and its peaks (the built-in gb10-like ones: tiny.profile keeps them)
        check((dev.get("peaks") or {}).get("dram_bytes_per_s") == 273e9,
              "the agent registered the profile's peaks: %r" % (dev.get("peaks"),))
        st, by_cuda = w.api("GET", "/v1/devices?cuda_name=PASCAL%20sim%20GB10-like&cc=12.1")
        check(st == 200 and [d["name"] for d in by_cuda["devices"]] == ["tiny"],
              "the device is found by its CUDA name: %s %r" % (st, by_cuda))

        # Both agents are up and polling before there is any work, so that
        # both get jobs however slowly the machine starts processes.
        a = w.agent("agent-a", "tiny")
        b = w.agent("agent-b", "tiny")
        for ag in (a, b):
            wait_for(lambda: "no job queued" in ag.text(), ag.name + " to poll for work")
        plan = scan_plan(FAMILIES, MS, SIZES)
        cal, total = w.create_calibration("tiny", plan)
        check(total == len(FAMILIES) * len(MS) * len(SIZES) * 4, "plan expands to %d runs" % total)

        def complete():
            st, c = w.api("GET", "/v1/calibrations/%d" % cal)
            return st == 200 and c["progress"] == {"done": total, "total": total}
        wait_for(complete, "the calibration to complete")
        for ag in (a, b):  # SIGTERM: a clean stop, exit 0
            ag.proc.send_signal(signal.SIGTERM)
        ra, rb = a.wait(), b.wait()
        check(ra == 0 and rb == 0, "both agents stop cleanly on SIGTERM (%s, %s)" % (ra, rb))
        na, nb = a.count(r" done: fill_bytes"), b.count(r" done: fill_bytes")
        check(na + nb == total, "jobs done by the agents %d + %d == %d" % (na, nb, total))
        check(na > 0 and nb > 0, "both agents took jobs (%d, %d)" % (na, nb))
        check(("%d/%d" % (total, total)) in a.text() + b.text(), "the agents show final progress")
        w.check_jobs_accounted(cal, total)

        late = w.agent("late", "tiny", "--until-idle")
        check(late.wait() == 0, "an agent with nothing left exits 0")

        st, frozen = w.api("POST", "/v1/calibrations/%d/freeze" % cal, None, w.admin)
        check(st == 200, "freeze: %s %s" % (st, frozen))
        check(frozen.get("state") == "frozen", "state frozen: %s" % frozen.get("state"))
        report = frozen.get("report") or {}
        mape = (report.get("balanced_mape") or {}).get("pascal")
        check(isinstance(mape, (int, float)) and math.isfinite(mape) and mape >= 0,
              "finite LOKO balanced MAPE in the freeze answer: %r" % (report.get("balanced_mape"),))
        check(report.get("n_runs") == total and report.get("n_scored", 0) > 0,
              "LOKO scored the runs: %r of %r" % (report.get("n_scored"), report.get("n_runs")))
        print("LOKO balanced MAPE (pascal / aligned): %r / %r" %
              (mape, (report.get("balanced_mape") or {}).get("aligned")))
        # every run carries its kernel time and the device its peaks, so the
        # report served by GET has the latency rows (paper Table e2e)
        st, got = w.api("GET", "/v1/calibrations/%d" % cal, None, w.admin)
        lat = ((got.get("report") or {}).get("latency") or {}) if st == 200 else {}
        row = lat.get("all") or {}
        check(row.get("n_runs") == total and lat.get("dram_bound_rise") == 0.02 and
              all(isinstance((row.get("mape") or {}).get(c), float)
                  for c in ("tilesight", "pascal", "measured")),
              "GET report: latency rows over every run: %s %r" % (st, lat))

        # Held-out keys: compute values the plan never measured, a size
        # between the reference sizes and a horizon between the references.
        for (o, path, d, m) in [(1, "tma", 4, 3), (1, "tma", 4, 7), (2, "tma", 3, 3), (1, "sync", 0, 9)]:
            q = {"device": "tiny", "o": o, "path": path, "d": d, "m": m, "N": 192, "W": 32}
            st, p = w.api("POST", "/v1/predict", q)
            ok = check(st == 200, "predict %r: %s %s" % (q, st, p))
            if not ok:
                continue
            K = p.get("K")
            check(isinstance(K, (int, float)) and math.isfinite(K) and 1.0 <= K <= 4 * o,
                  "K for %r is in [1, M]: %r" % (q, K))
            check(p.get("calibration") == cal, "answer names the calibration %r" % p.get("calibration"))
            check(isinstance(p.get("time_s"), float) and p["time_s"] > 0 and p.get("bound"),
                  "the device's peaks give a time: %r %r" % (p.get("time_s"), p.get("bound")))
            st, g = w.api("GET", "/v1/predict?" + urllib.parse.urlencode(q))
            check(st == 200 and g.get("K") == K, "GET predict agrees with POST: %s %r" % (st, g))
        st, p = w.api("POST", "/v1/predict", {"device": "tiny", "o": 3, "path": "tma", "d": 2, "m": 0,
                                              "N": 192, "W": 4})
        check(st == 422, "an uncalibrated family is refused with 422, not extrapolated: %s" % st)
    finish()


if __name__ == "__main__":
    main()
