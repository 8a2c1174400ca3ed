"""test_clock_steps.py - a wall-clock step changes no wait or lease inside
pascald (issue 37, finding 8). The step is made inside the daemon only, by
tests/harness/clock_skew.c (LD_PRELOAD: CLOCK_REALTIME, gettimeofday and time
read the real time plus the seconds in a file; CLOCK_MONOTONIC untouched):

- a lease keeps its remaining time across a step back of an hour (it still
  expires: a heartbeat after it is 409 stale_lease) and across a step forward
  of two hours (it does not expire at once: the heartbeat is 200); the log
  says each step and how many leases moved;
- a replica whose wall clock reads an hour ahead from its start goes on
  syncing every --replica-interval (its wait runs on CLOCK_MONOTONIC).

Verified to fail before the change: with leases on time() the heartbeat
after the step back was 200 and the one after the step forward 409, and the
replica synced once in 5 s (its wait ran to the skewed CLOCK_REALTIME).
"""
import os
import tempfile
import time
import unittest

from harness import DEVICE, Daemon, clock_skew_env, law_fill
from replicas import primary_url

PLAN = {"format": "pascal-plan/1", "workload": "scan", "sizes": [512], "horizons": [1, 4],
        "repeats": 1, "keys": [{"o": 1, "path": "tma", "d": 2, "m": m} for m in (0, 1, 2, 4)]}
LEASE = 3


class ClockSteps(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="pascald-clock-")
        self.skew = os.path.join(self.tmp.name, "skew")
        self.set_skew(0)
        self.daemons = []

    def tearDown(self):
        for d in self.daemons:
            self.assertEqual(d.stop(), 0)
        self.tmp.cleanup()

    def set_skew(self, seconds):
        with open(self.skew + ".tmp", "w") as f:
            f.write("%d\n" % seconds)
        os.replace(self.skew + ".tmp", self.skew)

    def daemon(self, name, args, **kw):
        d = Daemon(self.tmp.name, args, db=os.path.join(self.tmp.name, name + ".db"),
                   env=clock_skew_env(self.skew), **kw)
        d.stderr_path = os.path.join(self.tmp.name, name + ".stderr")
        d.admin = d.token("admin", name + "-admin")
        d.agent = d.token("agent", name + "-agent")
        self.daemons.append(d.start())
        return d

    def test_leases_keep_their_time(self):
        d = self.daemon("lease", ["--lease-seconds", str(LEASE)])
        self.assertEqual(d.request("POST", "/v1/devices", DEVICE, token=d.admin).status, 201)
        r = d.request("POST", "/v1/calibrations", {"device": DEVICE["name"], "plan": PLAN}, token=d.admin)
        self.assertEqual(r.status, 201, r.raw)

        def claim():
            r = d.request("POST", "/v1/jobs/claim", {"device": DEVICE["name"], "agent": "a"}, token=d.agent)
            self.assertEqual(r.status, 200, r.raw)
            return r.json["job"]

        def heartbeat(job):
            return d.request("POST", "/v1/jobs/%d/heartbeat" % job["id"],
                             {"lease_token": job["lease_token"]}, token=d.agent).status

        # a step back of an hour: the lease still ends LEASE seconds on
        first = claim()
        self.set_skew(-3600)
        time.sleep(LEASE + 1.5)
        self.assertEqual(heartbeat(first), 409)
        self.assertIn("stepped by -3600 s", d.stderr_text())
        # a step forward of two hours: a fresh lease does not end at once
        second = claim()
        self.set_skew(3600)
        self.assertEqual(heartbeat(second), 200)
        self.assertIn("stepped by +7200 s; 1 live lease(s) moved", d.stderr_text())
        r = d.request("POST", "/v1/jobs/%d/result" % second["id"],
                      {"lease_token": second["lease_token"], "fill_bytes": law_fill(second["run"])},
                      token=d.agent)
        self.assertEqual(r.status, 200, r.raw)

    def test_replica_waits_on_the_monotonic_clock(self):
        primary = Daemon(self.tmp.name, db=os.path.join(self.tmp.name, "primary.db")).start()
        self.daemons.append(primary)
        self.set_skew(3600)
        replica = self.daemon("replica", ["--replica-of", primary_url(primary), "--replica-interval", "1"])
        time.sleep(5)
        syncs = replica.request("GET", "/healthz").json["replica"]["syncs"]
        self.assertGreaterEqual(syncs["ok"], 3, syncs)


if __name__ == "__main__":
    unittest.main()
