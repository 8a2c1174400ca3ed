#!/usr/bin/python3
"""test_netcut.py - a network cut: pascald is stopped in the middle of a run
and restarted a moment later on the same port and database. The agent rides
it out with its retries (capped exponential backoff) and completes the plan;
no job is lost or counted twice. Then SIGTERM: an agent asked to stop
finishes its current job, uploads it and exits 0, leaving nothing leased."""
import re
import signal
import time

from e2e import World, check, finish, parse_args, scan_plan, wait_for

# 32 short jobs (up to tens of ms each on the tiny device): the cut comes
# after the third, while most are still queued.
PLAN = scan_plan([(1, "sync", 0), (1, "tma", 4)], [0, 1, 2, 6], [1024, 1536])
# 2 longer jobs (a few tenths of a second) for the SIGTERM part.
LONG = scan_plan([(2, "tma", 3)], [0, 1], [8192], horizons=[64])


def main():
    args = parse_args()
    with World(args) as w:
        w.register_tiny("tiny")
        cal, total = w.create_calibration("tiny", PLAN)
        a = w.agent("agent-a", "tiny", "--until-idle", "--retries", "40")
        wait_for(lambda: a.count(r" done: fill_bytes") >= 3, "agent-a to finish three jobs")
        w.daemon.stop(signal.SIGKILL)   # the cut: no goodbye
        time.sleep(1.5)
        w.daemon.start()                # same port (kept by Daemon), same database
        check(a.wait() == 0, "agent-a survives the cut and exits 0")
        check(re.search(r"retry \d+/40", a.text()) is not None, "agent-a retried during the cut")
        check(w.daemon.starts == 2, "the daemon was restarted")
        w.check_jobs_accounted(cal, total)

        cal2, total2 = w.create_calibration("tiny", LONG)
        b = w.agent("agent-b", "tiny")
        m = wait_for(lambda: re.search(r"job (\d+) .* claimed", b.text()), "agent-b to claim")
        b.proc.send_signal(signal.SIGTERM)
        check(b.wait() == 0, "agent-b exits 0 on SIGTERM")
        job = int(m.group(1))
        rows = w.sql("SELECT state FROM jobs WHERE id = ?", (job,))
        check(rows == [("done",)], "the job running at SIGTERM was finished and uploaded: %r" % rows)
        leased = w.sql("SELECT id FROM jobs WHERE calibration = ? AND state = 'leased'", (cal2,))
        check(leased == [], "nothing left leased after a clean stop: %r" % leased)
        check("stopped by signal" in b.text(), "agent-b says why it stopped")
    finish()


if __name__ == "__main__":
    main()
