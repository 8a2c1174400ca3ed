"""test_result_bounds.py - one upload cannot spoil a calibration (issue 37,
finding 2), through the real daemon:

- a result outside what its run can physically fill (below the cold bytes
  N b, above M W N b: 1e-300, 5e-324, 1e300) answers 422 `implausible` naming
  fill_bytes, and nothing is stored (the job stays leased and takes the
  right value next);
- a wrong value inside that range is taken (200); the operator re-queues
  that run (admin only, audited in the log), the agent measures it again and
  the calibration freezes to the very model a clean run of the same plan
  gives (an independent twin device measured without the mistake);
- an excluded run (a cancelled lease included) lets the calibration freeze
  without it;
- an imported bundle is held to the same ranges: a run of its measurements
  or of its held-out panel outside them is refused with 422 naming the run
  (`measurements[3].fill_bytes`), and nothing is stored. Verified to fail
  before the import checked them: 1e-300 imported with 201.

Verified to fail without the change: before it, 1e-300 answered 200 and the
re-queue route answered 404 (no route); the freeze then answered 422
unfittable and no write could reach the bad run.
"""
import json
import os
import subprocess
import tempfile
import unittest

from harness import DEVICE, PASCAL_CLI, SMALL_PLAN, DaemonTest, law_fill

PLAN = dict(SMALL_PLAN, keys=[{"o": 1, "path": "tma", "d": 2, "m": m} for m in (0, 1, 2, 4, 5, 6)])
TWIN = dict(DEVICE, name="twin")


class ResultBounds(DaemonTest):
    def create(self, dev):
        r = self.req("POST", "/v1/devices", dev, token=self.admin)
        self.assertIn(r.status, (200, 201), r.raw)
        r = self.req("POST", "/v1/calibrations", {"device": dev["name"], "plan": PLAN}, token=self.admin)
        self.assertStatus(r, 201)
        return r.json["id"]

    def claim(self, dev):
        r = self.req("POST", "/v1/jobs/claim", {"device": dev["name"], "agent": "a"}, token=self.agent)
        self.assertStatus(r, 200)
        return r.json["job"]

    def result(self, job, fill, kernel_ns=1000.0):
        return self.req("POST", "/v1/jobs/%d/result" % job["id"],
                        {"lease_token": job["lease_token"], "fill_bytes": fill, "kernel_ns": kernel_ns},
                        token=self.agent)

    def run_rest(self, dev):
        while True:
            job = self.claim(dev)
            if job is None:
                return
            self.assertStatus(self.result(job, law_fill(job["run"], dev)), 200)

    def model(self, cid):
        r = self.req("GET", "/v1/calibrations/%d/export" % cid)
        self.assertStatus(r, 200)
        return r.json

    def test_1_bounds_and_requeue(self):
        cid = self.create(DEVICE)
        job = self.claim(DEVICE)
        run = job["run"]
        cold = run["N"] * DEVICE["block_bytes"]
        most = DEVICE["sm_count"] * run["o"] * run["W"] * cold
        for bad in (1e-300, 5e-324, 1e300, cold * 0.98, most * 1.02):
            r = self.result(job, bad)
            self.assertStatus(r, 422, "implausible")
            self.assertEqual(r.json["error"]["field"], "fill_bytes")
        self.assertStatus(self.result(job, law_fill(run), kernel_ns=-1.0), 400)
        # the range's own ends are possible; the job is still leased: a wrong
        # but possible value is taken
        self.assertStatus(self.result(job, most), 200)
        self.run_rest(DEVICE)
        # the operator re-queues the run: an agent token may not
        path = "/v1/jobs/%d/requeue" % job["id"]
        self.assertStatus(self.req("POST", path, token=self.agent), 403)
        self.assertStatus(self.req("POST", path, {"reason": 7}, token=self.admin), 400, "invalid")
        r = self.req("POST", path, {"reason": "fill at M"}, token=self.admin)
        self.assertStatus(r, 200)
        self.assertEqual((r.json["state"], r.json["excluded"], r.json["attempts"]), ("queued", False, 0))
        self.assertIn("audit: token", self.d.stderr_text())
        self.assertIn("re-queued job %d of calibration %d: fill at M" % (job["id"], cid),
                      self.d.stderr_text())
        again = self.claim(DEVICE)
        self.assertEqual(again["id"], job["id"])
        self.assertStatus(self.result(again, law_fill(run)), 200)
        self.assertStatus(self.req("POST", "/v1/calibrations/%d/freeze" % cid, token=self.admin), 200)
        self.assertStatus(self.req("POST", path, token=self.admin), 409, "conflict")  # frozen now
        # the same plan measured without the mistake fits the same model
        twin = self.create(TWIN)
        self.run_rest(TWIN)
        self.assertStatus(self.req("POST", "/v1/calibrations/%d/freeze" % twin, token=self.admin), 200)
        a, b = self.model(cid), self.model(twin)
        self.assertEqual(json.dumps(a["model"], sort_keys=True), json.dumps(b["model"], sort_keys=True))
        self.assertEqual(a["measurements"], b["measurements"])

    def test_2_exclude(self):
        dev = dict(DEVICE, name="excl")
        cid = self.create(dev)
        first = self.claim(dev)
        self.assertStatus(self.result(first, law_fill(first["run"], dev)), 200)
        leased = self.claim(dev)
        r = self.req("POST", "/v1/jobs/%d/exclude" % leased["id"], token=self.admin)
        self.assertStatus(r, 200)
        self.assertEqual((r.json["state"], r.json["excluded"]), ("done", True))
        # the cancelled lease's holder learns it
        self.assertStatus(self.result(leased, law_fill(leased["run"], dev)), 409, "stale_lease")
        self.assertStatus(self.req("POST", "/v1/jobs/%d/exclude" % leased["id"], token=self.admin), 200)
        self.run_rest(dev)
        self.assertStatus(self.req("POST", "/v1/calibrations/%d/freeze" % cid, token=self.admin), 200)
        m = self.model(cid)
        n = len(m["measurements"]) + len(m.get("heldout", []))
        r = self.req("GET", "/v1/calibrations/%d" % cid)
        self.assertEqual(n, sum(r.json["jobs"].values()) - 1)
        self.assertStatus(self.req("POST", "/v1/jobs/999999/exclude", token=self.admin), 404)



class ImportedBounds(DaemonTest):
    def synth(self, law):
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "b.json")
            subprocess.run([PASCAL_CLI, "synth", "--law", law, "-o", out], check=True)
            with open(out) as f:
                doc = json.load(f)
        for k in ("model", "report", "content_hash"):
            doc.pop(k, None)
        return doc

    def test_implausible_runs_refused(self):
        for n_before, law in enumerate(("scan", "gemm")):
            good = self.synth(law)
            good["heldout"] = [dict(m) for m in good["measurements"][:4]]
            for where in ("measurements", "heldout"):
                for value in (1e-300, 5e-324, 1e300):
                    doc = json.loads(json.dumps(good))
                    doc[where][3]["fill_bytes"] = value
                    r = self.req("POST", "/v1/calibrations/import", doc, token=self.admin)
                    self.assertStatus(r, 422)
                    self.assertEqual(r.json["error"]["field"], "%s[3].fill_bytes" % where, (law, value))
            r = self.req("GET", "/v1/calibrations", token=self.admin)
            self.assertEqual(len(r.json["calibrations"]), n_before, law)  # nothing refused was stored
            r = self.req("POST", "/v1/calibrations/import", good, token=self.admin)
            self.assertStatus(r, 201)


if __name__ == "__main__":
    unittest.main()
