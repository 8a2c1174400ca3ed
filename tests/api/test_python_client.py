"""test_python_client.py - the Python client (clients/python, pascal_client)
against a real pascald holding the shipped calibrations: every answer is
compared with the same request made by the test harness over raw HTTP; a
batch longer than the daemon's batch limit comes back whole and in order with
its refused item in place; 413 makes the client shrink its batches; 4xx
raises PascalHTTPError naming the field; a daemon that drops the connection
or answers 503 is retried; one that never answers is PascalUnavailable."""
import http.server
import json
import os
import sys
import threading
import unittest

from harness import SHIPPED, SOURCE, DaemonTest

sys.path.insert(0, os.path.join(SOURCE, "clients", "python"))
from pascal_client import (Client, PascalHTTPError, PascalUnavailable,  # noqa: E402
                           Prediction, PredictionError)

SCAN = dict(o=2, path="tma", d=2, m=6, N=4096, W=16)
GEMM = dict(Mg=2048, Ng=1024, Kg=4096)


def scan_queries(n):
    """n distinct scan queries of sim-gb10 inside the calibrated ranges,
    some of them diverging (o=2, d=3 at W=64 has K near 12)."""
    return [dict(device="sim-gb10", o=2 - i % 2, path="tma", d=3 + i % 2, m=i % 11,
                 N=(2048, 4096, 6144)[i % 3], W=(1, 4, 16, 64)[i % 4]) for i in range(n)]


class ClientAnswers(DaemonTest):
    shipped = ("sim-gb10-scan.json", "sim-gb10-tiled-gemm.json", "sim-gb10-tiled-attention.json")

    def setUp(self):
        self.c = Client("http://127.0.0.1:%d" % self.d.port, timeout=10)

    def tearDown(self):
        self.c.close()

    def raw(self, body):
        r = self.req("POST", "/v1/predict", body)
        self.assertStatus(r, 200)
        return r.json

    def test_scan_prediction_matches_raw_http(self):
        p = self.c.predict("sim-gb10", **SCAN)
        want = self.raw(dict(SCAN, device="sim-gb10"))
        self.assertIsInstance(p, Prediction)
        for k in ("K", "rho", "fill_bytes", "M", "rule", "expected_error_pct", "calibration"):
            self.assertEqual(getattr(p, k), want[k], k)
        self.assertEqual(p.explanation, want["explanation"])
        self.assertEqual((p.interval.level, p.interval.K_low, p.interval.K_high),
                         (want["interval"]["level"], want["interval"]["K_low"], want["interval"]["K_high"]))
        self.assertEqual(p.interval.time_s_high, want["interval"].get("time_s_high"))
        self.assertTrue(p.interval.holds(p.K))
        if "validation" in want:
            self.assertEqual((p.validation.pascal_pct, p.validation.aligned_pct),
                             (want["validation"]["pascal_pct"], want["validation"]["aligned_pct"]))
        else:
            self.assertIsNone(p.validation)
        self.assertEqual(p.workload, "scan")
        self.assertFalse(p.is_extrapolated)

    def test_gemm_prediction_and_compact_form(self):
        p = self.c.predict("sim-gb10", explain=False, **GEMM)
        want = self.raw(dict(GEMM, device="sim-gb10"))
        self.assertEqual((p.workload, p.K, p.fill_bytes), ("gemm", want["K"], want["fill_bytes"]))
        self.assertIsNone(p.explanation)

    def test_extrapolation_is_reported(self):
        big = dict(SCAN, N=1 << 20)
        p = self.c.predict("sim-gb10", **big)
        want = self.raw(dict(big, device="sim-gb10"))
        self.assertTrue(want["extrapolated"])
        self.assertEqual([(e.coordinate, e.value, e.action) for e in p.extrapolated],
                         [(e["coordinate"], e["value"], e["action"]) for e in want["extrapolated"]])
        self.assertIn("N", [e.coordinate for e in p.extrapolated])

    def test_advice_when_diverging(self):
        seen = 0
        for q in scan_queries(40):
            want = self.raw(q)
            if want["K"] <= 1.05:
                continue
            p = self.c.predict(**q)
            self.assertIsNotNone(p.advice)
            self.assertEqual(p.advice.sigma_max, want["explanation"]["advice"]["sigma_max"])
            seen += 1
        self.assertGreater(seen, 0, "no diverging query among the samples")

    def test_refusal_and_bad_field_raise_http_errors(self):
        with self.assertRaises(PascalHTTPError) as cm:
            self.c.predict("sim-gb10", **dict(SCAN, o=3))
        self.assertEqual((cm.exception.status, cm.exception.code), (422, "refused"))
        with self.assertRaises(PascalHTTPError) as cm:
            self.c.predict("sim-gb10", **dict(SCAN, W=0))
        self.assertEqual((cm.exception.status, cm.exception.field), (400, "W"))
        with self.assertRaises(PascalHTTPError) as cm:
            self.c.predict("no-such-device", **SCAN)
        self.assertEqual(cm.exception.status, 404)

    def test_many_keeps_order_and_refusals_in_place(self):
        qs = scan_queries(23)
        qs[9] = dict(qs[9], o=3)  # no calibrated family: 422 inside the batch
        qs[17] = dict(GEMM, device="sim-gb10")
        self.c.batch_max = 5
        got = self.c.predict_many(qs)
        self.assertEqual(len(got), len(qs))
        for i, (q, p) in enumerate(zip(qs, got)):
            r = self.req("POST", "/v1/predict", q)
            if i == 9:
                self.assertIsInstance(p, PredictionError)
                self.assertFalse(p.ok)
                self.assertEqual((p.status, p.code), (422, "refused"))
                # the field names the item's place in the caller's list, not in its batch
                self.assertTrue(p.field.startswith("queries[9]."), p.field)
                self.assertIn("o=3", p.message)
                continue
            self.assertStatus(r, 200)
            self.assertTrue(p.ok)
            self.assertEqual((p.fill_bytes, p.K), (r.json["fill_bytes"], r.json["K"]), i)

    def test_bounds(self):
        b = self.c.bounds(8, 2, [0, 4])
        r = self.req("POST", "/v1/bounds", {"N": 8, "C": 2, "phases": [0, 4]})
        self.assertStatus(r, 200)
        self.assertEqual((b.N, b.C, b.M, b.T_star, b.K_ttl), (8, 2, 2, r.json["T_star"], r.json["K_ttl"]))
        self.assertEqual(b.theta, r.json["theta"]["decimal"])
        self.assertEqual(b.lru_exact, r.json["lru"]["exact"])
        with self.assertRaises(PascalHTTPError) as cm:
            self.c.bounds(8, 0, [0])
        self.assertEqual(cm.exception.field, "C")

    def test_devices(self):
        names = sorted(d.name for d in self.c.devices())
        bundled = set()
        for f in self.shipped:
            with open(os.path.join(SHIPPED, f)) as fh:
                bundled.add(json.load(fh)["device"]["name"])
        self.assertEqual(names, sorted(bundled))
        dev, cals = self.c.device("sim-gb10")
        self.assertEqual(dev.sm_count, 48)
        self.assertEqual(sorted(c["workload"] for c in cals), ["attention", "gemm", "scan"])
        gemm = [c["id"] for c in cals if c["workload"] == "gemm"][0]
        self.assertEqual(self.c.calibration_bundle(gemm)["gemm"]["tile_m"], 128)


class ClientAgainstLimits(DaemonTest):
    """A daemon with a batch limit of 4 and read authentication."""
    daemon_args = ("--batch-max", "4", "--auth-reads")
    shipped = ("sim-gb10-scan.json",)

    def test_split_at_the_daemons_limit(self):
        with Client("http://127.0.0.1:%d" % self.d.port, token=self.admin) as c:
            qs = scan_queries(11)
            got = c.predict_many(qs)
            self.assertLessEqual(c.batch_max, 4)
            one = [c.predict(**q, explain=False).fill_bytes for q in qs]
            self.assertEqual([p.fill_bytes for p in got], one)

    def test_token_required(self):
        with Client("http://127.0.0.1:%d" % self.d.port) as c:
            with self.assertRaises(PascalHTTPError) as cm:
                c.devices()
            self.assertEqual((cm.exception.status, cm.exception.code), (401, "unauthorized"))


class Flaky(http.server.BaseHTTPRequestHandler):
    """Drops the first connection, answers 503 once, then a version document."""
    script = []

    def do_GET(self):
        step = Flaky.script.pop(0) if Flaky.script else "ok"
        if step == "drop":
            self.close_connection = True
            return
        body = b'{"error":{"code":"unavailable","message":"busy","field":null}}' if step == "503" \
            else b'{"name":"pascald","version":"x","release":"x","api":"v1","formats":[]}'
        self.send_response(503 if step == "503" else 200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *a):
        pass


class Retries(unittest.TestCase):
    def serve(self):
        srv = http.server.HTTPServer(("127.0.0.1", 0), Flaky)
        t = threading.Thread(target=srv.serve_forever, daemon=True)
        t.start()
        self.addCleanup(srv.server_close)
        self.addCleanup(srv.shutdown)
        return srv.server_address[1]

    def test_drop_and_503_are_retried(self):
        Flaky.script = ["drop", "503"]
        with Client("http://127.0.0.1:%d" % self.serve(), backoff=0.01) as c:
            self.assertEqual(c.version()["api"], "v1")
        self.assertEqual(Flaky.script, [])

    def test_gives_up_after_the_retries(self):
        Flaky.script = ["503"] * 3
        with Client("http://127.0.0.1:%d" % self.serve(), retries=2, backoff=0.01) as c:
            with self.assertRaises(PascalUnavailable):
                c.version()
        self.assertEqual(Flaky.script, [])

    def test_nothing_listening(self):
        s = __import__("socket").socket()
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
        s.close()
        with Client("http://127.0.0.1:%d" % port, retries=1, backoff=0.01) as c:
            with self.assertRaises(PascalUnavailable):
                c.devices()


if __name__ == "__main__":
    unittest.main()
