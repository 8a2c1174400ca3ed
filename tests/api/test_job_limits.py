"""test_job_limits.py - the bounds on what one plan, one job and one agent
token may take (issue 37, finding 10):

- a plan run reading more than a run may (PASCAL_RUN_BYTES_MAX, or the
  block reads of PASCAL_RUN_READS_MAX: W = 2^32 - 1 on one block) is refused
  with 400 out_of_range naming "plan", nothing created;
- a job's heartbeats extend its lease no further than --job-time-limit
  seconds from its claim: the heartbeat past it is 409 and the job goes back
  to the queue for the next claim, an attempt spent;
- one agent token may use --agents-per-token agent names; the next new name
  is 409 naming "agent" while a known one goes on, and names not seen for a
  week are forgotten (the week passes inside the daemon, through
  tests/harness/clock_skew.c), which frees their places.

Verified to fail before the change: that daemon has neither option, and by
hand the W = 2^32 - 1 plan was created (201) and five agent names of one
token were all claimed (200).
"""
import os
import tempfile
import time
import unittest

from harness import DEVICE, Daemon, clock_skew_env

PLAN = {"format": "pascal-plan/1", "workload": "scan", "sizes": [512], "horizons": [1, 4],
        "repeats": 1, "keys": [{"o": 1, "path": "tma", "d": 2, "m": m} for m in (0, 1, 2, 4)]}
LIMIT = 3


class JobLimits(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="pascald-limits-")
        self.skew = os.path.join(self.tmp.name, "skew")
        with open(self.skew, "w") as f:
            f.write("0\n")
        self.d = Daemon(self.tmp.name, ["--lease-seconds", "2", "--job-time-limit", str(LIMIT),
                                        "--agents-per-token", "3"], env=clock_skew_env(self.skew))
        self.admin = self.d.token("admin", "ops")
        self.agent = self.d.token("agent", "fleet")
        self.d.start()
        self.assertEqual(self.post("/v1/devices", DEVICE, self.admin).status, 201)

    def tearDown(self):
        rc = self.d.stop()
        self.tmp.cleanup()
        self.assertEqual(rc, 0)

    def post(self, path, body, token):
        return self.d.request("POST", path, body, token=token)

    def claim(self, agent="a1"):
        return self.post("/v1/jobs/claim", {"device": DEVICE["name"], "agent": agent}, self.agent)

    def test_plan_bounds(self):
        before = self.d.row_counts()
        for sizes, horizons in (([512], [4294967295]), ([4294967295], [1])):
            plan = dict(PLAN, sizes=sizes, horizons=horizons)
            r = self.post("/v1/calibrations", {"device": DEVICE["name"], "plan": plan}, self.admin)
            self.assertEqual((r.status, r.error_code()), (400, "out_of_range"), r.raw)
            self.assertEqual(r.json["error"]["field"], "plan")
            self.assertIn("one run may", r.json["error"]["message"])
        self.assertEqual(self.d.row_counts(), before)
        r = self.post("/v1/calibrations", {"device": DEVICE["name"], "plan": PLAN}, self.admin)
        self.assertEqual(r.status, 201, r.raw)

    def test_time_limit(self):
        self.assertEqual(self.post("/v1/calibrations", {"device": DEVICE["name"], "plan": PLAN},
                                   self.admin).status, 201)
        job = self.claim().json["job"]
        beat = {"lease_token": job["lease_token"]}
        path = "/v1/jobs/%d/heartbeat" % job["id"]
        statuses = []
        end = time.monotonic() + LIMIT + 3
        while time.monotonic() < end and (not statuses or statuses[-1] == 200):
            statuses.append(self.post(path, beat, self.agent).status)
            time.sleep(0.5)
        self.assertEqual(statuses[0], 200)
        self.assertEqual(statuses[-1], 409, statuses)  # the lease ended at the limit
        again = self.claim("a2").json["job"]
        self.assertEqual((again["id"], again["attempt"]), (job["id"], 2))

    def test_agents_per_token(self):
        self.assertEqual(self.post("/v1/calibrations", {"device": DEVICE["name"], "plan": PLAN},
                                   self.admin).status, 201)
        for name in ("a1", "a2", "a3"):
            self.assertEqual(self.claim(name).status, 200)
        r = self.claim("a4")
        self.assertEqual((r.status, r.error_code()), (409, "conflict"), r.raw)
        self.assertEqual(r.json["error"]["field"], "agent")
        self.assertEqual(self.claim("a1").status, 200)  # a known name goes on
        metrics = self.d.request("GET", "/metrics").raw.decode()
        self.assertEqual(metrics.count('agent="fleet/'), 3)
        with open(self.skew, "w") as f:
            f.write("%d\n" % (8 * 86400))  # a week and a day later
        self.assertEqual(self.claim("a4").status, 200)
        metrics = self.d.request("GET", "/metrics").raw.decode()
        self.assertEqual(metrics.count('agent="fleet/'), 1)


if __name__ == "__main__":
    unittest.main()
