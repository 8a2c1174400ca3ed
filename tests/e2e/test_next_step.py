#!/usr/bin/python3
"""test_next_step.py - pascal-agent on the sim backend says what to do once
every run is measured, and does not pretend to keep working:

- with --until-idle it prints, after the last job, that all runs of the
  device are measured and the exact freeze command of the calibration (its
  real id); running that command as printed, with an admin token in
  $ADMIN_TOKEN, freezes the calibration (200, state frozen); the agent then
  exits 0;
- without --until-idle it prints the same next step once, logs an idle line
  that says every run is measured, keeps polling (still running) without
  printing the step again, and stops cleanly on SIGTERM; a new calibration
  puts it back to work and, once that one is measured, it names the new id;
- the progress lines (stdout not a terminal: one per job) carry a rate and
  ETA from the second job on, and the last one says all runs are measured.

Verified to fail before the change: the agent printed no freeze command and
its last progress line showed a falling rate and an ETA."""
import re
import shutil
import signal
import subprocess

from e2e import World, check, finish, parse_args, scan_plan, wait_for

FAMILIES = [(1, "sync", 0), (1, "tma", 4)]
MS = [0, 1, 2, 4]
SIZES = [128]


def freeze_lines(text):
    return re.findall(r"^  (curl -X POST .*/v1/calibrations/(\d+)/freeze)$", text, re.M)


def main():
    args = parse_args()
    with World(args) as w:
        w.register_tiny("tiny")
        plan = scan_plan(FAMILIES, MS, SIZES)
        cal, total = w.create_calibration("tiny", plan)
        a = w.agent("idle-exit", "tiny", "--until-idle")
        check(a.wait() == 0, "--until-idle exits 0: " + a.text()[-2000:])
        with open(a.out) as f:
            out = f.read()
        check("all %d runs of device 'tiny' are measured" % total in out,
              "the agent says every run is measured:\n" + out[-1500:])
        lines = freeze_lines(out)
        check([int(i) for _, i in lines] == [cal], "one freeze command, for calibration %d: %r"
              % (cal, lines))
        # the progress lines: one per job, a rate and an ETA from the second on
        progress = re.findall(r"\[(\d+)/(\d+) .*\]$", out, re.M)
        check(len(progress) == total, "one progress line per job (%d of %d)" % (len(progress),
                                                                               total))
        etas = re.findall(r"\[\d+/\d+ +[\d.]+% +([\d.]+|--) jobs/s +ETA (\S+)\]$", out, re.M)
        check(len(etas) == total - 1, "a rate and ETA on each line before the last (%d)" % len(etas))
        check(etas and etas[0] == ("--", "--"), "no rate or ETA from one job: %r" % etas[:2])
        check(all(r != "--" and e != "--" for r, e in etas[1:]),
              "a rate and an ETA from the second job on: %r" % etas[:4])
        check(progress and out.count("[%d/%d  100.0%%  all runs measured]" % (total, total)) == 1,
              "the last progress line says all runs are measured")
        # run the printed command as it is, with the admin token in $ADMIN_TOKEN
        if check(shutil.which("curl") is not None, "curl is installed (deploy/install-deps.sh)"):
            r = subprocess.run(["sh", "-c", lines[0][0] + " -s -o /dev/null -w '%{http_code}'"],
                               capture_output=True, text=True, timeout=60,
                               env={"ADMIN_TOKEN": w.admin, "PATH": "/usr/bin:/bin"})
            check(r.stdout == "200", "the printed freeze command freezes: %r %r" % (r.stdout,
                                                                                 r.stderr))
            st, c = w.api("GET", "/v1/calibrations/%d" % cal)
            check(c.get("state") == "frozen", "calibration %d is frozen: %s" % (cal,
                                                                               c.get("state")))

        # without --until-idle: says it once, idles, keeps running, stops cleanly
        cal2, total2 = w.create_calibration("tiny", plan)
        b = w.agent("idle-wait", "tiny")
        wait_for(lambda: "idle: every run of device 'tiny' is measured" in b.text(),
                 "the idle line")
        check(b.proc.poll() is None, "the agent keeps polling after everything is measured")
        text = b.text()
        check([int(i) for _, i in freeze_lines(text)] == [cal2],
              "the idle agent names calibration %d: %r" % (cal2, freeze_lines(text)))
        # a new calibration: back to work, and the new id once it is measured
        cal3, total3 = w.create_calibration("tiny", plan)
        # once it is measured too, both collecting calibrations are ready: both named
        wait_for(lambda: len(freeze_lines(b.text())) >= 3, "the next step for calibration %d" % cal3)
        named = [int(i) for _, i in freeze_lines(b.text())]
        check(named == [cal2, cal2, cal3],
              "the step is said once per completion, naming every ready calibration: %r" % named)
        b.proc.send_signal(signal.SIGTERM)
        check(b.wait() == 0, "SIGTERM stops the idle agent with 0")
    finish()


if __name__ == "__main__":
    main()
