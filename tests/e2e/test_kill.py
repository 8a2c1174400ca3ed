#!/usr/bin/python3
"""test_kill.py - an agent killed with SIGKILL in the middle of a job: its
lease expires (pascald --lease-seconds 4), the job returns to the queue and a
second agent finishes it; no job is lost or counted twice (one measurement per
job in the database, the killed job done on its second attempt)."""
import re
import signal

from e2e import World, check, finish, parse_args, scan_plan, wait_for

# Three jobs on the tiny device, 8 workers x 64 scans x 8192 blocks: a few
# tenths of a second each (seconds under sanitizers), long enough to be
# killed in the middle of one.
PLAN = scan_plan([(2, "tma", 3)], [0, 1, 2], [8192], horizons=[64])
# Leases are counted in whole seconds (an L-second lease lasts L-1..L s) and
# agents heartbeat every L/3 s: 4 s leaves agent-b two missed beats of slack
# on a loaded machine under sanitizers before it would lose a lease.
LEASE = 4


def main():
    args = parse_args()
    with World(args, lease_seconds=LEASE) as w:
        w.register_tiny("tiny")
        cal, total = w.create_calibration("tiny", PLAN)
        a = w.agent("agent-a", "tiny")
        m = wait_for(lambda: re.search(r"job (\d+) .* claimed", a.text()), "agent-a to claim a job")
        a.proc.send_signal(signal.SIGKILL)
        a.proc.wait()
        job = int(m.group(1))
        rows = w.sql("SELECT state, lease_owner FROM jobs WHERE id = ?", (job,))
        check(rows == [("leased", "e2e-agent/agent-a")],  # <token name>/<agent>
              "job %d still leased to the killed agent: %r" % (job, rows))

        b = w.agent("agent-b", "tiny", "--until-idle")
        check(b.wait() == 0, "agent-b exits 0 after finishing everything")
        check(re.search(r"job %d .* claimed" % job, b.text()) is not None,
              "agent-b took over job %d after the lease expired" % job)
        check(b.count(r" done: fill_bytes") == total, "agent-b finished all %d jobs" % total)
        check("lease lost" not in b.text(), "heartbeats kept agent-b's leases")
        w.check_jobs_accounted(cal, total)
        attempts = w.sql("SELECT attempts FROM jobs WHERE id = ?", (job,))
        check(attempts and attempts[0][0] == 2, "the killed job took two attempts: %r" % attempts)
    finish()


if __name__ == "__main__":
    main()
