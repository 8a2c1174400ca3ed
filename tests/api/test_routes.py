"""test_routes.py - every route's happy path through real HTTP, each response
checked against api-spec/openapi.yaml; auth (none / wrong role / right role /
revoked); every error status the API promises (400 404 405 409 413 415 422)."""
import http.client
import json
import subprocess
import unittest

from harness import (DEVICE, PASCALD, SMALL_PLAN, DaemonTest, law_fill, make_frozen_calibration,
                     run_all_jobs)


class Routes(DaemonTest):

    @classmethod
    def setUpClass(cls):
        super().setUpClass()

    def setUp(self):
        if not hasattr(type(self), "cid"):
            type(self).cid = make_frozen_calibration(self)

    def test_health_version(self):
        r = self.req("GET", "/healthz")
        self.assertStatus(r, 200)
        self.assertEqual(r.json["status"], "ok")
        self.assertGreaterEqual(r.json["calibrations_loaded"], 1)
        r = self.req("GET", "/v1/version")
        self.assertStatus(r, 200)
        self.assertIn("pascal-calibration/1", r.json["formats"])

    def test_devices(self):
        r = self.req("GET", "/v1/devices")
        self.assertStatus(r, 200)
        self.assertIn(DEVICE["name"], [d["name"] for d in r.json["devices"]])
        r = self.req("GET", "/v1/devices/" + DEVICE["name"])
        self.assertStatus(r, 200)
        self.assertEqual(r.json["capacity_blocks"], DEVICE["capacity_blocks"])
        self.assertIn(self.cid, [c["id"] for c in r.json["calibrations"]])
        # identical re-post: 200; new device: 201; different constants: 409
        r = self.req("POST", "/v1/devices", DEVICE, token=self.admin)
        self.assertStatus(r, 200)
        other = dict(DEVICE, name="dev-two")
        self.assertStatus(self.req("POST", "/v1/devices", other, token=self.admin), 201)
        r = self.req("POST", "/v1/devices", dict(other, sm_count=99), token=self.admin)
        self.assertStatus(r, 409, "conflict")
        self.assertStatus(self.req("GET", "/v1/devices/no-such-device"), 404, "not_found")

    def test_calibrations_list_get_export_import(self):
        r = self.req("GET", "/v1/calibrations")
        self.assertStatus(r, 200)
        self.assertIn(self.cid, [c["id"] for c in r.json["calibrations"]])
        r = self.req("GET", "/v1/calibrations?device=" + DEVICE["name"])
        self.assertStatus(r, 200)
        self.assertTrue(all(c["device"] == DEVICE["name"] for c in r.json["calibrations"]))
        r = self.req("GET", "/v1/calibrations/%d" % self.cid)
        self.assertStatus(r, 200)
        cal = r.json
        self.assertEqual(cal["state"], "frozen")
        self.assertEqual(cal["progress"]["done"], cal["progress"]["total"])
        self.assertEqual(cal["progress"]["total"], 2 * 15 * 3)
        self.assertEqual(cal["measurements"], 90)
        self.assertIsNotNone(cal["report"])
        self.assertRegex(cal["content_hash"], "^[0-9a-f]{64}$")
        r = self.req("GET", "/v1/calibrations/%d/export" % self.cid)
        self.assertStatus(r, 200)
        bundle = r.json
        self.assertEqual(bundle["format"], "pascal-calibration/1")
        self.assertEqual(len(bundle["measurements"]), 90)
        # re-import of the same content: 200 and the same calibration
        r = self.req("POST", "/v1/calibrations/import", bundle, token=self.admin)
        self.assertStatus(r, 200)
        self.assertEqual(r.json["id"], self.cid)
        # import onto another device name: a new frozen calibration (201)
        b2 = json.loads(json.dumps(bundle))
        for k in ("content_hash", "model", "report"):
            b2.pop(k, None)
        b2["device"]["name"] = "imported-dev"
        r = self.req("POST", "/v1/calibrations/import", b2, token=self.admin)
        self.assertStatus(r, 201)
        self.assertEqual(r.json["state"], "frozen")
        self.assertEqual(r.json["device"], "imported-dev")
        r = self.req("GET", "/v1/predict?device=imported-dev&o=1&path=tma&d=2&m=4&N=1024&W=16")
        self.assertStatus(r, 200)
        self.assertEqual(r.json["calibration"], r.json["calibration"])

    def test_predict_get_post_batch(self):
        q = {"device": DEVICE["name"], "o": 1, "path": "tma", "d": 2, "m": 4, "N": 1024, "W": 16}
        r = self.req("POST", "/v1/predict", q)
        self.assertStatus(r, 200)
        p = r.json
        self.assertEqual(p["calibration"], self.cid)
        self.assertEqual(p["rule"], "exact")
        # at a measured point the model reproduces the measurement (noise-free law)
        run = dict(q)
        expect_v = law_fill(run)
        self.assertAlmostEqual(p["fill_bytes"] / expect_v, 1.0, places=6)
        self.assertAlmostEqual(p["K"], expect_v / (DEVICE["block_bytes"] * 16 * 1024), places=6)
        self.assertEqual(p["M"], DEVICE["sm_count"])
        g = self.req("GET", "/v1/predict?device=testdev&o=1&path=tma&d=2&m=4&N=1024&W=16")
        self.assertStatus(g, 200)
        self.assertEqual(g.json, p)
        compact = {k: p[k] for k in ("workload", "K", "rho", "fill_bytes", "M", "rule", "expected_error_pct",
                                      "extrapolated", "interval", "validation", "device", "calibration")
                   if k in p}  # validation: only where the family loses to aligned K = 1
        # m = 4 at a calibrated N and W reads its reference alone, and the plan has no
        # repeats to spread it: the interval is the measured point itself
        self.assertEqual((p["interval"]["K_low"], p["interval"]["K_high"]), (p["K"], p["K"]))
        c = self.req("GET", "/v1/predict?device=testdev&o=1&path=tma&d=2&m=4&N=1024&W=16&explain=false")
        self.assertStatus(c, 200)
        self.assertEqual(c.json, compact)
        self.assertEqual(self.req("POST", "/v1/predict", dict(q, explain=False)).json, compact)
        self.assertEqual(self.req("POST", "/v1/predict", dict(q, explain=True)).json, p)
        self.assertStatus(self.req("GET", "/v1/predict?device=testdev&o=1&path=tma&d=2&m=4&N=1024&W=16&explain=maybe"), 400)
        # a URL flag may also be spelled 0/1 (it reaches the handler as a string)
        base = "/v1/predict?device=testdev&o=1&path=tma&d=2&m=4&N=1024&W=16&explain="
        self.assertEqual(self.req("GET", base + "0").json, compact)
        self.assertEqual(self.req("GET", base + "1").json, p)
        # held-out compute m=3 (class 2 bracketed by 2 and 6) -> graph rule
        r = self.req("POST", "/v1/predict", dict(q, m=3, calibration=self.cid))
        self.assertStatus(r, 200)
        self.assertIn(r.json["rule"], ("graph", "clamp"))
        batch = {"queries": [q, dict(q, m=3), dict(q, o=7), {"device": "nope", "o": 1, "path": "tma",
                                                              "d": 2, "m": 0, "N": 1, "W": 1},
                             dict(q, W="x")]}
        r = self.req("POST", "/v1/predict", batch)
        self.assertStatus(r, 200)
        self.assertEqual(r.json["count"], 5)
        self.assertEqual(r.json["ok"], 2)
        res = r.json["results"]
        self.assertEqual(res[0], compact)
        r2 = self.req("POST", "/v1/predict", {"queries": [dict(q, explain=False)]})
        self.assertEqual(r2.json["results"][0]["error"]["code"], "unknown_field")
        self.assertEqual(res[2]["status"], 422)
        self.assertEqual(res[2]["error"]["code"], "refused")
        self.assertEqual(res[3]["status"], 404)
        self.assertEqual(res[4]["status"], 400)
        self.assertEqual(res[4]["error"]["field"], "queries[4].W")
        r = self.req("POST", "/v1/predict", dict(batch, explain=True))
        self.assertEqual(r.json["results"][0], p)
        self.assertEqual(r.json["results"][1]["rule"], res[1]["rule"])
        self.assertStatus(self.req("POST", "/v1/predict", dict(batch, explain="yes")), 400)

    def test_large_batch_in_order(self):
        """A batch big enough to be parsed (> 256 KiB) and answered in slices on
        several threads gives, item for item and in order, what small batches
        give; strings holding brackets and commas do not confuse the split."""
        qs = [{"device": DEVICE["name"], "o": 1, "path": ("tma", "sync")[i % 2], "d": 2 * (1 - i % 2),
               "m": i % 11, "N": 512 + (i % 700), "W": 1 + i % 20} for i in range(3500)]
        qs[1234] = dict(qs[1234], o=9)  # one refused item in the middle
        for i in (1750, 1751, 2600):    # unknown fields with JSON-like strings
            qs[i] = dict(qs[i], note='],[{"x":1},"\\"]')
        body = json.dumps({"queries": qs}).encode()
        self.assertGreater(len(body), 256 * 1024)
        big = self.req("POST", "/v1/predict", raw=body)
        self.assertStatus(big, 200)
        parts = []
        for lo in range(0, 3500, 1000):
            r = self.req("POST", "/v1/predict", {"queries": qs[lo:lo + 1000]})
            parts += r.json["results"]
        for i, (a, b) in enumerate(zip(big.json["results"], parts)):
            if "error" in a:  # the field names the item's index in its own batch
                self.assertTrue(a["error"]["field"].startswith("queries[%d]." % i), a)
                self.assertEqual(a["status"], b["status"])
            else:
                self.assertEqual(a, b)
        self.assertEqual((big.json["count"], big.json["ok"], big.json["errors"]), (3500, 3496, 4))
        self.assertEqual(big.json["results"][1751]["error"]["code"], "unknown_field")

    def test_predict_errors(self):
        base = {"device": DEVICE["name"], "o": 1, "path": "tma", "d": 2, "m": 4, "N": 1024, "W": 16}
        self.assertStatus(self.req("POST", "/v1/predict", dict(base, o=3)), 422, "refused")
        self.assertStatus(self.req("POST", "/v1/predict", dict(base, path="dma")), 400)
        self.assertStatus(self.req("POST", "/v1/predict", dict(base, device="ghost")), 404)
        self.assertStatus(self.req("POST", "/v1/predict", dict(base, calibration=999999)), 404)
        r = self.req("POST", "/v1/predict", dict(base, extra=1))
        self.assertStatus(r, 400, "unknown_field")
        self.assertEqual(r.json["error"]["field"], "extra")
        r = self.req("GET", "/v1/predict?device=testdev&o=1&path=tma&d=2&m=4&N=abc&W=16")
        self.assertStatus(r, 400)
        self.assertEqual(r.json["error"]["field"], "N")
        # gemm query against a device with only a scan calibration
        r = self.req("POST", "/v1/predict", {"device": DEVICE["name"], "Mg": 256, "Ng": 256, "Kg": 256})
        self.assertStatus(r, 404)
        big = {"queries": [base] * 10001}
        self.assertStatus(self.req("POST", "/v1/predict", big), 413, "batch_too_large")

    def test_bounds(self):
        r = self.req("POST", "/v1/bounds", {"N": 8, "C": 2, "phases": [0, 4]})
        self.assertStatus(r, 200)
        # hand-worked (paper section 3.4): policy bound 10/7 for N=8, C=2, phases (0,4)
        self.assertAlmostEqual(r.json["policy_lower_bound"]["value"], 10.0 / 7.0, places=12)
        self.assertEqual(r.json["gaps"], [4, 4])
        g = self.req("GET", "/v1/bounds?N=8&C=2&phases=0,4")
        self.assertStatus(g, 200)
        self.assertEqual(g.json, r.json)
        self.assertStatus(self.req("GET", "/v1/bounds?N=8&C=2&phases=0,x"), 400)
        self.assertStatus(self.req("GET", "/v1/bounds?N=8&C=2"), 400)
        self.assertStatus(self.req("POST", "/v1/bounds", {"N": 8, "C": 9, "phases": [0]}), 400)
        r = self.req("POST", "/v1/bounds/coherence", {"sigma": 3, "C": 5, "M": 2, "E": 100})
        self.assertStatus(r, 200)
        self.assertEqual(r.json["min_capacity"], 5)
        self.assertTrue(r.json["preserves"])
        r = self.req("POST", "/v1/bounds/coherence", {"sigma": 3, "C": 4, "M": 2, "E": 100})
        self.assertFalse(r.json["preserves"])
        r = self.req("POST", "/v1/bounds/feedback",
                     {"alpha": 1.0, "beta": 2.0, "d": 3, "lambda_hit": 1.0, "lambda_miss": 20.0})
        self.assertStatus(r, 200)
        # Theta = (d-1)(alpha+beta) - beta = 4; G = ([20-4]_+ - [1-4]_+)/2 = 8
        self.assertAlmostEqual(r.json["overlap"], 4.0)
        self.assertAlmostEqual(r.json["gain"], 8.0)

    def test_stats_metrics(self):
        self.req("GET", "/healthz")
        r = self.req("GET", "/v1/stats")
        self.assertStatus(r, 200)
        s = r.json
        self.assertGreaterEqual(s["requests"]["total"], 1)
        self.assertGreaterEqual(s["calibrations"]["frozen"], 1)
        self.assertIn("test-agent/harness", [a["name"] for a in s["agents"]])  # token/agent
        routes = {x["route"]: x for x in s["requests"]["by_route"]}
        self.assertGreaterEqual(routes["GET /healthz"]["by_status"].get("200", 0), 1)
        b = s["requests"]["latency"]["buckets"]
        self.assertEqual(b[-1]["le"], "+Inf")
        self.assertEqual(b[-1]["count"], s["requests"]["latency"]["count"])
        self.assertEqual([x["count"] for x in b], sorted(x["count"] for x in b))
        m = self.req("GET", "/metrics")
        self.assertStatus(m, 200)
        self.assertTrue(m.ctype.startswith("text/plain; version=0.0.4"))
        text = m.raw.decode()
        self.assertIn('pascal_http_requests_total{method="GET",path="/healthz",status="200"}', text)
        self.assertIn('le="+Inf"', text)
        self.assertIn("# TYPE pascal_http_request_duration_seconds histogram", text)
        for line in text.splitlines():
            if line.startswith("#") or not line:
                continue
            name = line.split("{")[0].split(" ")[0]
            self.assertTrue(name.startswith("pascal_"), line)
            if name.endswith("_total"):
                self.assertIn("# TYPE %s counter" % name, text)
            float(line.rsplit(" ", 1)[1])

    def test_auth(self):
        dev = dict(DEVICE, name="auth-dev")
        r = self.req("POST", "/v1/devices", dev)
        self.assertStatus(r, 401, "unauthorized")
        self.assertTrue(r.headers.get("www-authenticate", "").startswith("Bearer"))
        r = self.req("POST", "/v1/devices", dev, token="pasc_" + "0" * 64)
        self.assertStatus(r, 401)
        self.assertStatus(self.req("POST", "/v1/devices", dev, headers={"Authorization": "Basic eDp5"}), 401)
        self.assertStatus(self.req("POST", "/v1/devices", dev, token=self.agent), 403, "forbidden")
        claim = {"device": DEVICE["name"], "agent": "a1"}
        self.assertStatus(self.req("POST", "/v1/jobs/claim", claim), 401)
        self.assertStatus(self.req("POST", "/v1/jobs/claim", claim, token=self.agent), 200)
        self.assertStatus(self.req("POST", "/v1/devices", dev, token=self.admin), 201)
        # revoke a fresh admin token with the CLI: it stops working at once
        tok = self.d.token("admin", "short-lived")
        self.assertStatus(self.req("POST", "/v1/devices", dev, token=tok), 200)
        listing = subprocess.run([PASCALD, "token", "list", "--db", self.d.db], check=True,
                                 capture_output=True, text=True).stdout
        self.assertNotIn(tok, listing)  # only hashes are stored; the token is never shown again
        tid = [l.split()[0] for l in listing.splitlines() if "short-lived" in l][0]
        subprocess.run([PASCALD, "token", "revoke", "--db", self.d.db, "--id", tid], check=True,
                       capture_output=True)
        self.assertStatus(self.req("POST", "/v1/devices", dev, token=tok), 401)
        # reads are open by default
        self.assertStatus(self.req("GET", "/v1/devices"), 200)

    def test_routing_errors(self):
        r = self.req("GET", "/v1/nothing-here", validate=False)
        self.assertStatus(r, 404, "not_found")
        r = self.req("DELETE", "/healthz")
        self.assertStatus(r, 405, "method_not_allowed")
        self.assertIn("GET", r.headers.get("allow", ""))
        r = self.req("PUT", "/v1/predict", validate=False)
        self.assertStatus(r, 405)
        self.assertEqual(r.headers.get("allow"), "GET, POST")
        r = self.req("POST", "/v1/predict", raw=b'{"device":"x"}', ctype="text/plain")
        self.assertStatus(r, 415, "unsupported_media_type")
        r = self.req("POST", "/v1/predict", raw=b"x" * (2 << 20))
        self.assertStatus(r, 413, "body_too_large")
        # chunked upload (no Content-Length): drained past the cap, then 413
        conn = http.client.HTTPConnection("127.0.0.1", self.d.port, timeout=30)
        conn.request("POST", "/v1/predict", body=iter([b"[" * 65536] * 32), encode_chunked=True,
                     headers={"Content-Type": "application/json", "Transfer-Encoding": "chunked"})
        resp = conn.getresponse()
        self.assertEqual(resp.status, 413)
        self.assertEqual(json.loads(resp.read())["error"]["code"], "body_too_large")
        conn.close()
        self.assertStatus(self.req("GET", "/v1/calibrations/abc"), 404)
        self.assertStatus(self.req("GET", "/v1/calibrations/424242"), 404)
        self.assertStatus(self.req("GET", "/v1/calibrations/424242/export"), 404)

    def test_calibration_lifecycle_errors(self):
        dev = dict(DEVICE, name="life-dev")
        self.req("POST", "/v1/devices", dev, token=self.admin)
        plan = dict(SMALL_PLAN, sizes=[512], horizons=[1, 4])
        r = self.req("POST", "/v1/calibrations", {"device": "ghost-dev", "plan": plan}, token=self.admin)
        self.assertStatus(r, 404)
        r = self.req("POST", "/v1/calibrations", {"device": "life-dev", "plan": dict(plan, sizes=[])},
                     token=self.admin)
        self.assertStatus(r, 400)
        self.assertTrue(r.json["error"]["field"].startswith("plan"))
        # A scan size not above the device's C (256) is refused, the size named.
        for sizes, bad in (([512, 256], 1), ([100], 0)):
            r = self.req("POST", "/v1/calibrations", {"device": "life-dev", "plan": dict(plan, sizes=sizes)},
                         token=self.admin)
            self.assertStatus(r, 400)
            self.assertEqual(r.json["error"]["field"], "plan.sizes[%d]" % bad)
            self.assertIn("N = %d" % sizes[bad], r.json["error"]["message"])
        r = self.req("POST", "/v1/calibrations", {"device": "life-dev", "plan": plan}, token=self.admin)
        self.assertStatus(r, 201)
        cid = r.json["id"]
        self.assertEqual(r.json["state"], "collecting")
        self.assertEqual(r.json["progress"], {"done": 0, "total": 30})
        # freeze with jobs left: 409; export before frozen: 409
        self.assertStatus(self.req("POST", "/v1/calibrations/%d/freeze" % cid, token=self.admin), 409)
        self.assertStatus(self.req("GET", "/v1/calibrations/%d/export" % cid), 409, "not_frozen")
        self.assertEqual(run_all_jobs(self, "life-dev", self.agent), 30)
        r = self.req("POST", "/v1/calibrations/%d/freeze" % cid, token=self.admin)
        self.assertStatus(r, 200)
        self.assertEqual(r.json["state"], "frozen")
        self.assertIsNotNone(r.json["report"])
        self.assertStatus(self.req("POST", "/v1/calibrations/%d/freeze" % cid, token=self.admin), 409)
        r = self.req("POST", "/v1/calibrations/import", {"format": "pascal-calibration/1"}, token=self.admin)
        self.assertStatus(r, 400)


if __name__ == "__main__":
    unittest.main(verbosity=2)
