#!/usr/bin/python3
"""test_leases.py - the jobs API's lease rules seen from an agent's side, by
raw HTTP: a result for a stale lease is refused with 409 stale_lease, the
current lease's result is accepted, an identical re-upload is idempotent
(200), a different result for the done job is a 409 conflict. Then a second
SIGTERM makes a running pascal-agent release its job at once ("agent
stopping"), and the job goes back to the queue."""
import re
import signal
import time

from e2e import World, check, finish, parse_args, scan_plan, wait_for

PLAN = scan_plan([(1, "sync", 0)], [0, 1, 2], [96], horizons=[1])
LONG = scan_plan([(2, "tma", 3)], [0], [65536], horizons=[64])
# Whole-second leases last L-1..L s; a 1 s lease could lapse before agent-a's
# first heartbeat on a loaded machine. 3 s keeps the test short and safe.
LEASE = 3


def main():
    args = parse_args()
    with World(args, lease_seconds=LEASE) as w:
        w.register_tiny("tiny")
        cal, total = w.create_calibration("tiny", PLAN)
        tok = w.agent_token
        st, c1 = w.api("POST", "/v1/jobs/claim", {"device": "tiny", "agent": "raw-1"}, tok)
        check(st == 200 and c1["job"] is not None, "claim: %s %s" % (st, c1))
        job, old = c1["job"]["id"], c1["job"]["lease_token"]

        def reclaimed():
            s, c = w.api("POST", "/v1/jobs/claim", {"device": "tiny", "agent": "raw-2"}, tok)
            return c if s == 200 and c["job"] and c["job"]["id"] == job else None
        # Other queued jobs come first; keep claiming until the expired one returns.
        c2 = wait_for(reclaimed, "job %d to return to the queue" % job, timeout=30, step=0.2)
        new = c2["job"]["lease_token"]
        check(new != old, "a new lease token for the new lease")
        res = {"fill_bytes": 2.0e6, "kernel_ns": 1.0e5}
        st, body = w.api("POST", "/v1/jobs/%d/result" % job, dict(res, lease_token=old), tok)
        check(st == 409 and body["error"]["code"] == "stale_lease",
              "stale lease result refused with 409 stale_lease: %s %s" % (st, body))
        st, body = w.api("POST", "/v1/jobs/%d/heartbeat" % job, {"lease_token": old}, tok)
        check(st == 409, "stale lease heartbeat refused with 409: %s" % st)
        st, body = w.api("POST", "/v1/jobs/%d/result" % job, dict(res, lease_token=new), tok)
        check(st == 200 and body["job"]["state"] == "done", "current lease accepted: %s %s" % (st, body))
        st, _ = w.api("POST", "/v1/jobs/%d/result" % job, dict(res, lease_token=new), tok)
        check(st == 200, "identical re-upload is idempotent: %s" % st)
        st, body = w.api("POST", "/v1/jobs/%d/result" % job,
                         {"lease_token": new, "fill_bytes": 3.0e6, "kernel_ns": 1.0e5}, tok)
        check(st == 409, "a different result for a done job is refused: %s %s" % (st, body))
        n = w.sql("SELECT COUNT(*) FROM measurements WHERE job = ?", (job,))
        check(n == [(1,)], "one measurement for the job: %r" % n)

        # Second signal: release now. The long job cannot finish in the time.
        cal2, _ = w.create_calibration("tiny", LONG)
        time.sleep(LEASE + 0.2)  # let raw-1's abandoned leases expire so the agent gets LONG's job or PLAN's
        a = w.agent("agent-a", "tiny", "--poll", "0.1")
        m = wait_for(lambda: re.search(r"job (\d+) scan o=2 .* claimed", a.text()),
                     "agent-a to claim the long job")
        a.proc.send_signal(signal.SIGTERM)
        time.sleep(0.2)
        a.proc.send_signal(signal.SIGTERM)
        check(a.wait(timeout=30) == 0, "agent-a exits 0 after releasing its job")
        check("released (stopping)" in a.text(), "agent-a says it released the job")
        long_job = int(m.group(1))
        rows = w.sql("SELECT state, last_error FROM jobs WHERE id = ?", (long_job,))
        check(rows and rows[0][0] == "queued" and "agent stopping" in (rows[0][1] or ""),
              "the released job is queued again with the agent's message: %r" % rows)
    finish()


if __name__ == "__main__":
    main()
