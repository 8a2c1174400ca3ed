"""test_jobs.py - the jobs contract under a short lease (--lease-seconds 2;
the store counts whole seconds, so an L-second lease lasts between L-1 and L s):
lease expiry and requeue, stale lease 409, idempotent re-upload, conflicting
re-upload 409, fail/requeue with bounded attempts, frozen immutability enforced
by the database itself (direct SQL UPDATE fails), and kill -9 during uploads
followed by a restart that loses no acknowledged measurement."""
import sqlite3
import tempfile
import threading
import time
import unittest

from harness import DEVICE, SMALL_PLAN, Client, Daemon, DaemonTest, law_fill, make_frozen_calibration, run_all_jobs

TINY_PLAN = {"format": "pascal-plan/1", "workload": "scan", "sizes": [512], "horizons": [1, 4],
             "repeats": 1, "keys": [{"o": 1, "path": "tma", "d": 2, "m": 0}]}


def new_calibration(test, name, plan=TINY_PLAN):
    test.assertIn(test.req("POST", "/v1/devices", dict(DEVICE, name=name), token=test.admin).status, (200, 201))
    r = test.req("POST", "/v1/calibrations", {"device": name, "plan": plan}, token=test.admin)
    test.assertStatus(r, 201)
    return r.json["id"]


class Leases(DaemonTest):
    daemon_args = ("--lease-seconds", "2", "--max-attempts", "3")

    def claim(self, device, agent):
        r = self.req("POST", "/v1/jobs/claim", {"device": device, "agent": agent}, token=self.agent)
        self.assertStatus(r, 200)
        return r.json

    def test_expiry_requeue_stale_idempotent(self):
        new_calibration(self, "lease-a")
        first = self.claim("lease-a", "agent-1")["job"]
        self.assertEqual(first["attempt"], 1)
        self.assertEqual(first["lease_seconds"], 2)
        r = self.req("POST", "/v1/jobs/%d/heartbeat" % first["id"], {"lease_token": first["lease_token"]},
                     token=self.agent)
        self.assertStatus(r, 200)
        time.sleep(3.1)  # the lease (2 s, whole seconds) has expired
        second = self.claim("lease-a", "agent-2")["job"]
        self.assertEqual(second["id"], first["id"], "expired job goes back to the head of the queue")
        self.assertEqual(second["attempt"], 2)
        self.assertNotEqual(second["lease_token"], first["lease_token"])
        up = {"lease_token": first["lease_token"], "fill_bytes": 1e6}
        r = self.req("POST", "/v1/jobs/%d/result" % first["id"], up, token=self.agent)
        self.assertStatus(r, 409, "stale_lease")
        r = self.req("POST", "/v1/jobs/%d/heartbeat" % first["id"], {"lease_token": first["lease_token"]},
                     token=self.agent)
        self.assertStatus(r, 409, "stale_lease")
        good = {"lease_token": second["lease_token"], "fill_bytes": law_fill(second["run"]), "kernel_ns": 5.0}
        r = self.req("POST", "/v1/jobs/%d/result" % second["id"], good, token=self.agent)
        self.assertStatus(r, 200)
        self.assertEqual(r.json["job"], {"id": second["id"], "state": "done"})
        self.assertEqual(r.json["progress"], {"done": 1, "total": 2})
        before = self.d.row_counts()
        r = self.req("POST", "/v1/jobs/%d/result" % second["id"], good, token=self.agent)
        self.assertStatus(r, 200)  # identical retry: idempotent, nothing written
        self.assertEqual(self.d.row_counts(), before)
        r = self.req("POST", "/v1/jobs/%d/result" % second["id"], dict(good, fill_bytes=good["fill_bytes"] * 2),
                     token=self.agent)
        self.assertStatus(r, 409, "conflict")
        self.assertEqual(self.d.row_counts(), before)

    def test_lapsed_lease_refused_before_requeue(self):
        """A lease that ran out is dead even while nobody has claimed the job
        again: result, heartbeat and fail all answer 409 stale_lease and
        write nothing; the next claim then hands the job out as attempt 2."""
        new_calibration(self, "lease-lapse")
        job = self.claim("lease-lapse", "agent-1")["job"]
        time.sleep(3.1)  # past the 2 s lease; no claim has requeued it yet
        before = self.d.row_counts()
        lease = {"lease_token": job["lease_token"]}
        for action, body in (("result", dict(lease, fill_bytes=law_fill(job["run"]))),
                             ("heartbeat", lease), ("fail", dict(lease, message="late"))):
            with self.subTest(action=action):
                r = self.req("POST", "/v1/jobs/%d/%s" % (job["id"], action), body, token=self.agent)
                self.assertStatus(r, 409, "stale_lease")
        self.assertEqual(self.d.row_counts(), before)
        again = self.claim("lease-lapse", "agent-2")["job"]
        self.assertEqual((again["id"], again["attempt"]), (job["id"], 2))

    def test_fail_bounded_attempts(self):
        cid = new_calibration(self, "lease-b")
        states = []
        for attempt in (1, 2, 3):
            job = self.claim("lease-b", "agent-f")["job"]
            self.assertEqual(job["attempt"], attempt)
            r = self.req("POST", "/v1/jobs/%d/fail" % job["id"],
                         {"lease_token": job["lease_token"], "message": "boom %d" % attempt}, token=self.agent)
            self.assertStatus(r, 200)
            states.append(r.json["job"]["state"])
        self.assertEqual(states, ["queued", "queued", "failed"])
        r = self.req("GET", "/v1/calibrations/%d" % cid)
        self.assertEqual(r.json["state"], "failed")
        self.assertEqual(r.json["jobs"]["failed"], 1)


class FrozenImmutable(DaemonTest):
    def test_sql_update_fails(self):
        cid = make_frozen_calibration(self)
        con = sqlite3.connect(self.d.db, timeout=10)
        try:
            tables = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type='table'")}
            self.assertIn("calibrations", tables)
            self.assertIn("measurements", tables)
            cols = [r[1] for r in con.execute("PRAGMA table_info(measurements)")]
            cal_col = [c for c in cols if c.startswith("calibration")][0]
            for sql in ("UPDATE calibrations SET state = 'collecting' WHERE id = %d" % cid,
                        "UPDATE calibrations SET bundle_json = '{}' WHERE id = %d" % cid,
                        "DELETE FROM calibrations WHERE id = %d" % cid,
                        "UPDATE measurements SET fill_bytes = fill_bytes * 2 WHERE %s = %d" % (cal_col, cid),
                        "DELETE FROM measurements WHERE %s = %d" % (cal_col, cid)):
                with self.subTest(sql=sql):
                    with self.assertRaises(sqlite3.DatabaseError):
                        con.execute(sql)
                        con.commit()
                    con.rollback()
        finally:
            con.close()
        r = self.req("GET", "/v1/calibrations/%d" % cid)
        self.assertEqual(r.json["state"], "frozen")
        self.assertEqual(r.json["measurements"], 90)


class KillDuringUploads(unittest.TestCase):
    def test_kill9_loses_no_acknowledged_measurement(self):
        with tempfile.TemporaryDirectory(prefix="pascald-kill-") as tmp:
            d = Daemon(tmp, ("--lease-seconds", "2"))
            admin, agent = d.token("admin", "a"), d.token("agent", "b")
            d.start()
            d.request("POST", "/v1/devices", dict(DEVICE, name="kill-dev"), token=admin)
            cid = d.request("POST", "/v1/calibrations", {"device": "kill-dev", "plan": SMALL_PLAN},
                            token=admin).json["id"]
            acked, stop = [], threading.Event()

            def uploader():
                while not stop.is_set():
                    try:
                        r = d.request("POST", "/v1/jobs/claim", {"device": "kill-dev", "agent": "k"}, token=agent)
                        job = r.json["job"]
                        if job is None:
                            return
                        r = d.request("POST", "/v1/jobs/%d/result" % job["id"],
                                      {"lease_token": job["lease_token"], "fill_bytes": law_fill(job["run"])},
                                      token=agent)
                        if r.status == 200:
                            acked.append(job["id"])
                    except Exception:  # the daemon died under us
                        return

            t = threading.Thread(target=uploader)
            t.start()
            while len(acked) < 25 and t.is_alive():
                time.sleep(0.005)
            d.kill9()
            stop.set()
            t.join()
            self.assertGreaterEqual(len(acked), 25)
            d.start()
            try:
                cal = d.request("GET", "/v1/calibrations/%d" % cid).json
                self.assertGreaterEqual(cal["jobs"]["done"], len(acked))
                self.assertEqual(cal["measurements"], cal["jobs"]["done"])
                time.sleep(3.1)  # a lease cut by the kill expires and is requeued
                left = cal["progress"]["total"] - cal["jobs"]["done"]
                self.assertEqual(run_all_jobs(Client(d, admin, agent), "kill-dev", agent), left)
                r = d.request("POST", "/v1/calibrations/%d/freeze" % cid, token=admin)
                self.assertEqual(r.status, 200, r.raw)
                self.assertEqual(r.json["measurements"], r.json["progress"]["total"])
            finally:
                self.assertEqual(d.stop(), 0)


if __name__ == "__main__":
    unittest.main(verbosity=2)
