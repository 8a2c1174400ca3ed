"""test_answer_trust.py - what an answer says about itself, over real HTTP,
on the shipped calibrations (deploy/calibrations, imported at startup):
per-coordinate extrapolation flags in explained, compact and batch answers;
the resident closed form for N <= C; the capacity probe's share refetched
between C and the smallest size; expected_error_pct and the keys it came
from, checked against the calibration's stored leave-one-key-out report; the
Theorem-coherence advice, with its numbers recomputed here; and the same
documents from `pascal predict` on the same bundle."""
import json
import math
import os
import re
import subprocess
import tempfile
import unittest
import urllib.parse

from harness import (DEVICE, PASCAL_CLI, SHIPPED, SMALL_PLAN, SOURCE, Daemon, DaemonTest, law_fill,
                     make_frozen_calibration, run_all_jobs, shipped_bundles)

SIM = os.path.join(SHIPPED, "sim-gb10-scan.json")
C, B, SMS = 1280, 16384, 48  # the sim-gb10 device


class AnswerTrust(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory(prefix="pascald-trust-")
        cls.d = Daemon(cls.tmp.name, bundles=shipped_bundles(
            cls.tmp.name, "sim-gb10-scan.json", "sim-gb10-tiled-gemm.json")).start()
        cals = cls.d.request("GET", "/v1/calibrations").json["calibrations"]
        cls.scan_id = [c["id"] for c in cals if c["device"] == "sim-gb10"][0]

    @classmethod
    def tearDownClass(cls):
        rc = cls.d.stop()
        cls.tmp.cleanup()
        assert rc == 0, rc

    def get(self, **q):
        q.setdefault("device", "sim-gb10")
        r = self.d.request("GET", "/v1/predict?" + urllib.parse.urlencode(q))
        self.assertEqual(r.status, 200, r.raw)
        return r.json

    def all_forms(self, **q):
        """The explained GET answer, after checking that the compact GET,
        POST and batch item carry the same K, rule, expected error and
        extrapolation list."""
        full = self.get(**q)
        compact = self.get(explain="false", **q)
        body = dict(q, device="sim-gb10")
        batch = self.d.request("POST", "/v1/predict", {"queries": [body]}).json["results"][0]
        post = self.d.request("POST", "/v1/predict", body).json
        for doc in (compact, batch, post):
            for k in ("K", "rule", "expected_error_pct", "extrapolated"):
                self.assertEqual(doc[k], full[k], k)
        return full

    def transfers(self, p):
        """The interval's transfers as (coordinate, kind, action), after
        checking that an extrapolated transfer names the action of its
        coordinate's extrapolated item and that no other transfer has one."""
        items = {e["coordinate"]: e["action"] for e in p["extrapolated"]}
        out = []
        for t in p["explanation"]["interval"]["transfers"]:
            if t["kind"] == "extrapolated":
                self.assertEqual(t["action"], items[t["coordinate"]], t)
            else:
                self.assertNotIn("action", t)
            out.append((t["coordinate"], t["kind"], t.get("action")))
        return out

    def test_readme_compact_answer(self):
        """The README's sample answer (its GET with &explain=false) is what
        the daemon answers on the shipped bundle: keys in order, and every
        value as printed there (a trailing ellipsis marks a truncated
        number)."""
        with open(os.path.join(SOURCE, "README.md"), encoding="utf-8") as f:
            sample = re.search(r'`(\{"workload":"scan",[^`]*\})`', f.read()).group(1)
        want = json.loads(re.sub(r'(-?[0-9.e+-]+)\u2026', r'"\1"', sample))
        c = self.get(o=1, path="tma", d=4, m=3, N=4096, W=32, explain="false")
        words = ("workload", "rule", "device", "bound", "time_source")

        def match(got, want, where):
            if isinstance(want, dict):  # the interval, the validation: member by member
                self.assertEqual(list(got), list(want), where)
                for k, v in want.items():
                    match(got[k], v, where + "." + k)
            elif isinstance(want, str) and where.split(".")[-1] not in words:
                self.assertTrue(repr(got).startswith(want), (where, got, want))  # a truncated number
            else:
                self.assertEqual(got, want, where)

        self.assertEqual(list(c), list(want))
        # the README's daemon imported every shipped bundle, in name order;
        # this one fewer: the calibration is named by its own id
        first_run = sorted(f for f in os.listdir(SHIPPED) if f.endswith(".json"))
        self.assertEqual(want.pop("calibration"), first_run.index(os.path.basename(SIM)) + 1)
        self.assertEqual(c.pop("calibration"), self.scan_id)
        for k, v in want.items():
            match(c[k], v, k)

    def test_tma_without_d_is_refused(self):
        r = self.d.request("GET", "/v1/predict?device=sim-gb10&o=1&path=tma&m=3&N=4096&W=32")
        self.assertEqual(r.status, 400)
        self.assertEqual(r.json["error"]["field"], "d")

    def test_resident_closed_form(self):
        p = self.all_forms(o=1, path="tma", d=4, m=3, N=10, W=32)
        self.assertEqual(p["rule"], "resident")
        self.assertEqual(p["K"], 1 / 32)  # the N cold fills over W N requests per worker
        self.assertEqual(p["fill_bytes"], 10 * B)
        self.assertEqual(p["extrapolated"], [])
        self.assertIsNone(p["expected_error_pct"])
        self.assertIsNone(p["explanation"]["advice"])
        self.assertEqual(p["explanation"]["expected_error"]["source"], "none")
        self.assertEqual(self.get(o=1, path="tma", d=4, m=3, N=C, W=2)["rule"], "resident")
        self.assertNotEqual(self.get(o=1, path="tma", d=4, m=3, N=C + 1, W=2)["rule"], "resident")

    def test_capacity_probe_between_c_and_the_smallest_size(self):
        # sim-gb10's probe (4 waves): 1206 blocks stay, 1344 refetch every pass; the
        # smallest size is 3072. At N = 1300, r = (1300 - 1280) / (1344 - 1280), the
        # bracket [0, 1] (docs/expected-error.md)
        q = dict(o=1, path="tma", d=4, m=3, N=1300, W=16)
        p = self.all_forms(**q)
        res = p["explanation"]["residency"]
        r = (1300 - C) / (1344 - C)
        self.assertAlmostEqual(res["refetch"], r, places=15)
        self.assertEqual((res["refetch_low"], res["refetch_high"]), (0, 1))
        self.assertEqual((res["N_low"], res["N_high"]), (C, 1344))
        K_curves = res["K_refetching"]
        self.assertAlmostEqual(p["K"], 1 / 16 + r * (K_curves - 1 / 16), places=14)
        self.assertAlmostEqual(res["K_low"], 1 / 16, places=15)
        self.assertAlmostEqual(res["K_high"], K_curves, places=14)
        self.assertAlmostEqual(p["fill_bytes"], p["K"] * B * 16 * 1300, delta=1e-6 * p["fill_bytes"])
        # the interval spans the bracket; the expected error is at least its ends' mean
        iv = p["interval"]
        self.assertLessEqual(iv["K_low"], res["K_low"] * (1 + 1e-12))
        self.assertGreaterEqual(iv["K_high"], res["K_high"] * (1 - 1e-12))
        ends = (abs(math.log(res["K_low"] / p["K"])) + abs(math.log(res["K_high"] / p["K"]))) / 2
        self.assertGreaterEqual(p["expected_error_pct"], 100 * math.expm1(ends) * (1 - 1e-12))
        self.assertEqual(p["explanation"]["expected_error"]["source"], "residency")
        self.assertIn("capacity probe", p["explanation"]["expected_error"]["method"])
        # the curves alone: W = 1, N at or past the probe's full refetch, N <= C
        for other in (dict(q, W=1), dict(q, N=1344), dict(q, N=2000), dict(q, N=C)):
            self.assertNotIn("residency", self.get(**other)["explanation"], other)

    def test_extrapolation_per_coordinate(self):
        inside = self.all_forms(o=1, path="tma", d=4, m=3, N=4096, W=32)
        self.assertEqual(inside["extrapolated"], [])
        # above the largest size: its curve read at the same blocks per slot, here the
        # horizon 16 * 12288 / 6144 = 32, inside the horizons; one pass as it is
        p = self.all_forms(o=1, path="tma", d=4, m=3, N=12288, W=16)
        self.assertEqual(p["extrapolated"], [dict(coordinate="N", value=12288.0, min=3072.0,
                                                  max=6144.0, action="same-blocks-per-slot")])
        # the interval reads the same-slot group (explanation.interval.transfers;
        # without the codec's "action" member these checks fail with a KeyError)
        self.assertEqual(self.transfers(p), [("m", "interpolated", None), ("W", "interpolated", None),
                                             ("N", "extrapolated", "same-blocks-per-slot")])
        self.assertAlmostEqual(p["K"] / self.all_forms(o=1, path="tma", d=4, m=3, N=6144, W=32)["K"],
                               1, places=12)
        p = self.all_forms(o=1, path="tma", d=4, m=3, N=100000, W=1)
        self.assertEqual(p["extrapolated"], [dict(coordinate="N", value=100000.0, min=3072.0,
                                                  max=6144.0, action="clamped")])
        self.assertEqual(self.transfers(p), [("m", "interpolated", None), ("N", "extrapolated", "clamped")])
        p = self.all_forms(o=1, path="tma", d=4, m=40, N=4096, W=500)
        self.assertEqual([(e["coordinate"], e["min"], e["max"], e["action"]) for e in p["extrapolated"]],
                         [("W", 1.0, 64.0, "linear"), ("m", 0.0, 14.0, "clamped")])
        self.assertEqual(self.transfers(p), [("m", "extrapolated", "clamped"), ("W", "extrapolated", "linear")])
        p = self.all_forms(o=1, path="tma", d=9, m=4, N=4096, W=16)
        self.assertEqual(p["rule"], "depth-fallback")
        self.assertEqual(p["extrapolated"], [dict(coordinate="d", value=9.0, min=4.0, max=6.0,
                                                  action="clamped")])
        self.assertEqual(self.transfers(p), [("d", "extrapolated", "clamped")])

    def test_aligned_answers_read_the_aligned_group(self):
        """A scan answer at K = 1 exactly read no excess: it says so
        (explanation.interval.aligned) and its interval is the aligned
        group's, the same at every distance; one that read an excess scales
        with its distance. Without the aligned group the two m-clamped
        answers would read the m-clamped group (-0.18 .. 0.24 per step on
        this bundle, bench_interval) times 4 and 28, not one interval (a
        daemon built without it refuses the shipped bundle, whose stored
        report it no longer reproduces: both this test and test_advice
        fail then, checked)."""
        near, far = (self.get(o=2, path="sync", m=m, N=4096, W=16) for m in (16, 40))
        for p in (near, far):
            self.assertEqual((p["K"], p["explanation"]["interval"]["aligned"]), (1.0, True), p)
        self.assertEqual([t["distance"] for t in near["explanation"]["interval"]["transfers"]], [4.0])
        self.assertEqual([t["distance"] for t in far["explanation"]["interval"]["transfers"]], [28.0])
        self.assertEqual((near["interval"]["K_low"], near["interval"]["K_high"]),
                         (far["interval"]["K_low"], far["interval"]["K_high"]))
        self.assertLessEqual(near["interval"]["K_low"], 1.0)
        self.assertGreaterEqual(near["interval"]["K_high"], 1.0)
        excess = self.get(o=1, path="tma", d=4, m=3, N=4096, W=32)
        self.assertGreater(excess["K"], 1)
        self.assertFalse(excess["explanation"]["interval"]["aligned"])
        gemm = self.d.request("GET", "/v1/predict?device=sim-gb10&Mg=65536&Ng=1024&Kg=4096").json
        self.assertFalse(gemm["explanation"]["interval"]["aligned"])  # never marked (folds)

    def test_gemm_extrapolation_and_no_advice(self):
        r = self.d.request("GET", "/v1/predict?device=sim-gb10&Mg=65536&Ng=1024&Kg=4096")
        self.assertEqual(r.status, 200, r.raw)
        coords = [e["coordinate"] for e in r.json["extrapolated"]]
        self.assertIn("n_r", coords)
        self.assertIsNone(r.json["explanation"]["advice"])
        self.assertIsInstance(r.json["expected_error_pct"], float)

    def test_expected_error_from_the_stored_report(self):
        # the shipped bundle carries a held-out panel: its keys are the evidence
        report = self.d.request("GET", "/v1/calibrations/%d" % self.scan_id).json["report"]
        fold = {(k["o"], k["path"], k["d"], k["m"]): k["mape"]["pascal"]
                for k in report["heldout"]["keys"]}
        p = self.get(o=1, path="tma", d=4, m=3, N=4096, W=32)
        x = p["explanation"]["expected_error"]
        self.assertEqual(x["source"], "held-out")
        self.assertIn("held-out panel", x["method"])
        self.assertGreaterEqual(len(x["keys"]), 1)
        for k in x["keys"]:
            self.assertEqual((k["o"], k["path"], k["d"]), (1, "tma", 4))  # same family
            self.assertAlmostEqual(k["error_pct"], fold[(k["o"], k["path"], k["d"], k["m"])], places=9)
        mean = sum(k["error_pct"] for k in x["keys"]) / len(x["keys"])
        self.assertAlmostEqual(p["expected_error_pct"], mean, places=12)
        self.assertEqual(x["pct"], p["expected_error_pct"])
        # an exact answer is validated by the reference's own runs
        e = self.get(o=1, path="tma", d=4, m=4, N=4096, W=16)
        self.assertEqual(e["rule"], "exact")
        self.assertEqual(e["explanation"]["expected_error"]["source"], "in-sample")
        self.assertLess(e["expected_error_pct"], 1e-6)

    def test_advice(self):
        p = self.get(o=1, path="tma", d=4, m=3, N=4096, W=32)
        self.assertGreater(p["K"], 1.05)
        a = p["explanation"]["advice"]
        self.assertEqual(a["sigma_max"], (C + 1) // 2)
        self.assertLessEqual(2 * a["sigma_max"] - 1, C)
        self.assertGreater(2 * (a["sigma_max"] + 1) - 1, C)  # the largest such lead
        self.assertEqual(a["checkpoint_blocks"], 640 - 3)    # d - 1 = 3 copies ahead
        M, W, N = SMS, 32, 4096
        k_coh = 1 + (M - 1) * 640 / (M * W * N)
        self.assertAlmostEqual(a["K_coherent"], k_coh, places=12)
        self.assertEqual(a["fill_bytes_at_k1"], B * W * N)
        self.assertAlmostEqual(a["fill_bytes_at_stake"], p["fill_bytes"] - k_coh * B * W * N, delta=1)
        # the same lead limit as GET /v1/bounds' theorem at sigma_max: 2 sigma - 1 <= C
        flat = self.get(o=2, path="sync", m=3, N=4096, W=32)
        self.assertLessEqual(flat["K"], 1.05)
        self.assertIsNone(flat["explanation"]["advice"])

    def test_cli_says_the_same(self):
        for q in (dict(o=1, path="tma", d=4, m=3, N=100000, W=32), dict(o=1, path="tma", d=4, m=3, N=10, W=32),
                  dict(o=2, path="tma", d=3, m=5, N=3072, W=64)):
            args = [PASCAL_CLI, "predict", "--bundle", SIM, "--json"]
            for k, v in q.items():
                args += ["--" + k, str(v)]
            cli = json.loads(subprocess.run(args, capture_output=True, text=True, check=True).stdout)
            doc = self.get(**q)
            del doc["device"], doc["calibration"]
            self.assertEqual(cli, doc)


class FrozenHereAndRestarted(DaemonTest):
    """A calibration measured through the jobs API and frozen by this daemon
    answers with its expected error; after a restart (the model and its
    validation rebuilt from the stored bundle) the answer is the same."""

    def test_freeze_then_restart(self):
        cid = make_frozen_calibration(self)
        report = self.req("GET", "/v1/calibrations/%d" % cid).json["report"]
        fold = {(k["o"], k["path"], k["d"], k["m"]): k["mape"]["pascal"] for k in report["keys"]}
        url = "/v1/predict?device=testdev&o=1&path=tma&d=2&m=3&N=700&W=8"
        before = self.req("GET", url).json
        x = before["explanation"]["expected_error"]
        self.assertEqual(x["source"], "loko")
        self.assertTrue(x["keys"])
        for k in x["keys"]:
            self.assertAlmostEqual(k["error_pct"], fold[(k["o"], k["path"], k["d"], k["m"])], places=9)
        self.assertEqual(self.d.stop(), 0)
        self.d.start()
        self.assertEqual(self.req("GET", url).json, before)


def alternating_fill(run):
    """The tma family's K alternates along m within each class (1 at m = 0,
    1, 2, 8, 9, 10; 1.5 at m = 4, 5, 6), so that a fold's interpolation in m
    lands on the wrong level and aligned K = 1 does better; the sync family
    keeps law_fill's smooth law."""
    if run["path"] == "sync":
        return law_fill(run)
    K = 1.5 if run["m"] // 4 == 1 else 1.0
    return K * DEVICE["block_bytes"] * run["W"] * run["N"]


class LosingFamily(DaemonTest):
    """Freezing a calibration whose leave-one-key-out folds favour aligned
    K = 1 in a family warns about it, and answers from that family carry
    both errors with an interval that holds the aligned answer. (Before the
    warnings, the freeze reply had no "warnings" and the answers no
    "validation": this test failed on both.)"""

    def test_freeze_warns_and_answers_say_so(self):
        self.assertIn(self.req("POST", "/v1/devices", DEVICE, token=self.admin).status, (200, 201))
        r = self.req("POST", "/v1/calibrations", {"device": DEVICE["name"], "plan": SMALL_PLAN},
                     token=self.admin)
        self.assertStatus(r, 201)
        cid = r.json["id"]
        run_all_jobs(self, DEVICE["name"], self.agent, fill=alternating_fill)
        frozen = self.req("POST", "/v1/calibrations/%d/freeze" % cid, token=self.admin)
        self.assertStatus(frozen, 200)
        report = frozen.json["report"]
        # the families that lose, recomputed from the per-key fold errors
        fam = {}
        for k in report["keys"]:
            f = fam.setdefault((k["o"], k["path"], k["d"]), [0.0, 0.0, 0])
            f[0] += k["mape"]["pascal"]
            f[1] += k["mape"]["aligned"]
            f[2] += 1
        losing = {key: (p / n, a / n) for key, (p, a, n) in fam.items() if p > a}
        self.assertIn((1, "tma", 2), losing)  # by construction
        self.assertEqual({(f["o"], f["path"], f["d"]) for f in report["losing_families"]}, set(losing))
        self.assertEqual(len(frozen.json["warnings"]), len(losing))
        self.assertTrue(any(w.startswith("family o=1 tma d=2: PASCAL's leave-one-key-out error")
                            for w in frozen.json["warnings"]), frozen.json["warnings"])
        self.assertEqual(self.req("GET", "/v1/calibrations/%d" % cid).json["warnings"],
                         frozen.json["warnings"])
        # an answer from the family: both errors, and the interval reaches K = 1
        a = self.req("GET", "/v1/predict?device=testdev&o=1&path=tma&d=2&m=3&N=700&W=8").json
        p, al = losing[(1, "tma", 2)]
        self.assertAlmostEqual(a["validation"]["pascal_pct"], p, places=9)
        self.assertAlmostEqual(a["validation"]["aligned_pct"], al, places=9)
        self.assertLessEqual(a["interval"]["K_low"], 1.0)
        self.assertGreaterEqual(a["interval"]["K_high"], 1.0)
        if (1, "sync", 0) not in losing:
            s = self.req("GET", "/v1/predict?device=testdev&o=1&path=sync&m=3&N=700&W=8").json
            self.assertNotIn("validation", s)
        # `pascal fit` warns the same on the exported bundle
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "b.json")
            with open(path, "w") as f:
                json.dump(self.req("GET", "/v1/calibrations/%d/export" % cid).json, f)
            fit = subprocess.run([PASCAL_CLI, "fit", path, "-o", os.path.join(tmp, "f.json")],
                                 capture_output=True, text=True)
            self.assertEqual(fit.returncode, 0, fit.stderr)
            lines = fit.stderr.splitlines()
            self.assertEqual([l for l in lines if not l.startswith("pascal fit: note: ")],
                             ["pascal fit: warning: " + w for w in frozen.json["warnings"]])


if __name__ == "__main__":
    unittest.main(verbosity=2)
