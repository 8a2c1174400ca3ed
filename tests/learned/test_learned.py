#!/usr/bin/python3
"""test_learned.py - `python3 -m pascal_eval.learned` (tools/pascal_eval) on
small synthetic bundles made by `pascal synth`.

Usage: test_learned.py PATH/TO/pascal

  * The columns it takes from `pascal evaluate` (PASCAL and the analytic
    baselines) are re-scored in Python and must equal `pascal evaluate
    --json`'s table to the last bit: balanced MAPE, bootstrap intervals, gaps
    and gap intervals, per bundle and overall (checked failing with the
    bootstrap seed changed from 12 to 13).
  * The labels: aligned K = 1 (GEMM K_0) scored against the tool's observed K
    per run gives libpascal's per-key aligned error (checked failing with W
    dropped from the scan K's denominator).
  * The learned columns: per-key MAPE recomputed here from the per-run
    predictions and observed K.
  * Calibration runs only: permuting the held-out labels, and adding an extra
    panel, leaves every chosen hyper-parameter, CV error and prediction
    unchanged while the scores change (checked failing with the held-out runs
    appended to the calibration runs before the selection). The two runs use different PYTHONHASHSEEDs,
    so the same equality shows the fits are deterministic across processes.
  * CV folds never split a key; relative boosting is absolute-error boosting
    with inverse observed-traffic weights.
  * Exit 2 with one line naming the argument for every bad argument, exit 1
    naming the file and field for a bad input file.
"""
import json
import math
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(SRC, "tests", "harness"))
sys.path.insert(0, os.path.join(SRC, "tools"))
import ci_skip  # noqa: E402

try:
    import numpy as np  # noqa: E402
    from pascal_eval import bundles, methods, selection  # noqa: E402
except ImportError as e:
    ci_skip.missing("scikit-learn (%s)" % e, "python3-sklearn")

PASCAL = None
LEARNED = [m.name for m in methods.METHODS]
REFERENCE = ["pascal", "tilesight", "ppt_gpu", "exact_sdcm", "aligned", "che"]

# Three keys each: grouped CV then has three folds, which keeps the fits cheap
# (a boosted tree costs about a millisecond however few the runs).
SCAN_KEYS = [{"o": 1, "path": "sync", "m": 0}, {"o": 1, "path": "tma", "d": 2, "m": 0},
             {"o": 1, "path": "tma", "d": 2, "m": 2}]
SCAN_PLAN = {"format": "pascal-plan/1", "workload": "scan", "sizes": [2048, 3072],
             "horizons": [1, 16, 64], "keys": SCAN_KEYS}
SCAN_PANEL = {"format": "pascal-plan/1", "workload": "scan", "sizes": [2560],
              "horizons": [1, 8], "repeats": 2,
              "keys": [{"o": 1, "path": "sync", "m": 4}, {"o": 1, "path": "tma", "d": 2, "m": 4},
                       {"o": 1, "path": "tma", "d": 2, "m": 6}]}


def shapes(*triples):
    return {"format": "pascal-plan/1", "workload": "gemm",
            "shapes": [{"Mg": m, "Ng": n, "Kg": k} for m, n, k in triples]}


GEMM_PLAN = shapes(*[(m, n, k) for m, n in ((256, 256), (1024, 256), (1024, 1024))
                     for k in (1024, 4096)])
GEMM_PANEL = shapes((512, 512, 2048), (512, 512, 1024), (2048, 512, 2048), (640, 896, 1280))
GEMM_EXTRA = shapes((768, 768, 2048), (768, 768, 3072), (2048, 2048, 1024))


def write(path, doc):
    with open(path, "w", encoding="utf-8") as f:
        json.dump(doc, f)
    return path


def learned(*args, seed="1"):
    env = dict(os.environ, PYTHONPATH=os.path.join(SRC, "tools"), PASCAL_CLI=PASCAL,
               PYTHONHASHSEED=seed)
    return subprocess.Popen([sys.executable, "-m", "pascal_eval.learned", *args], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def finish(p, expect=0):
    out, err = p.communicate(timeout=170)
    if p.returncode != expect:
        raise AssertionError("pascal_eval.learned %s: exit %d, wanted %d\n%s" %
                             (" ".join(p.args[3:]), p.returncode, expect, err[-3000:]))
    return out, err


def evaluate(*args):
    p = subprocess.run([PASCAL, "evaluate", *args, "--json"], capture_output=True, text=True,
                       timeout=120, check=True)
    return json.loads(p.stdout)


class Learned(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        t = lambda name: os.path.join(cls.tmp.name, name)  # noqa: E731
        for law, plan, panel in (("scan", SCAN_PLAN, SCAN_PANEL), ("gemm", GEMM_PLAN, GEMM_PANEL)):
            subprocess.run([PASCAL, "synth", "--law", law, "--plan", write(t(law + "-plan"), plan),
                            "--heldout", write(t(law + "-panel"), panel), "-o", t(law + ".json")],
                           check=True, timeout=60)
        subprocess.run([PASCAL, "synth", "--law", "gemm,seed=5", "--plan",
                        write(t("extra-plan"), GEMM_EXTRA), "-o", t("extra.json")],
                       check=True, timeout=60)
        with open(t("gemm.json"), encoding="utf-8") as f:
            doc = json.load(f)
        fills = [r["fill_bytes"] for r in doc["heldout"]]
        for r, v in zip(doc["heldout"], fills[1:] + fills[:1]):  # rotate: every label moves
            r["fill_bytes"] = v
        write(t("gemm-permuted.json"), doc)
        cls.scan, cls.gemm, cls.extra = t("scan.json"), t("gemm.json"), t("extra.json")
        cls.permuted = t("gemm-permuted.json")
        # the two fitting runs at once (two cores), with different hash seeds
        a = learned(cls.scan, cls.gemm, "--json", seed="1")
        c = learned(cls.permuted, "--panel", "extra=" + cls.extra, "--json", seed="2")
        cls.a = json.loads(finish(a)[0])
        cls.c = json.loads(finish(c)[0])
        cls.ev = evaluate(cls.scan, cls.gemm)
        cls.ev_extra = evaluate(cls.permuted, "--heldout", cls.extra)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def assert_rows_equal(self, mine, theirs):
        for field in ("mape", "ci", "gap", "gap_ci"):
            for m in REFERENCE:
                self.assertEqual(mine[field][m], theirs[field][m], (field, m))

    def test_reference_columns_equal_pascal_evaluate(self):
        rows = self.ev["table"]["rows"]
        self.assertEqual([r["validation"] for r in rows], ["heldout", "heldout"])
        for cal, row in zip(self.a["calibrations"], rows):
            self.assertEqual((cal["device"], cal["workload"]), (row["device"], row["workload"]))
            self.assert_rows_equal(cal["panels"]["heldout"]["summary"], row)
            self.assertEqual(cal["panels"]["heldout"]["n_keys_scored"], row["n_keys"])
        self.assert_rows_equal(self.a["overall"]["heldout"], self.ev["table"]["overall"])
        extra = self.c["calibrations"][0]["panels"]["extra"]
        self.assert_rows_equal(extra["summary"], self.ev_extra["table"]["rows"][0])

    def test_labels_and_keys(self):
        """Aligned K = 1 (GEMM: K_0 = M (n_r + n_c) / (2 n_r n_c)) scored by
        hand against the observed K gives libpascal's per-key error."""
        for cal, rep in zip(self.a["calibrations"], self.ev["calibrations"]):
            panel = cal["panels"]["heldout"]
            with open(cal["bundle"], encoding="utf-8") as f:
                doc = json.load(f)
            runs = doc["heldout"]
            self.assertEqual(len(panel["observed"]), len(runs))
            fields = ["o", "path", "d", "m"] if cal["workload"] == "scan" else ["Mg", "Ng"]
            for k, ck in zip(panel["keys"], rep["report"]["heldout"]["keys"]):
                key = [k[f] for f in fields]
                self.assertEqual(key, [ck[f] for f in fields])
                errs = []
                for r, obs in zip(runs, panel["observed"]):
                    if [r[f] for f in fields] != key:
                        continue
                    if cal["workload"] == "scan":
                        want_obs = r["fill_bytes"] / (doc["device"]["block_bytes"] * r["W"] * r["N"])
                        aligned = 1.0
                    else:
                        g = doc["gemm"]
                        n_r, n_c = r["Mg"] // g["tile_m"], r["Ng"] // g["tile_n"]
                        n_k = r["Kg"] // g["tile_k"]
                        q = n_r * n_c * n_k * (g["tile_m"] + g["tile_n"]) * g["tile_k"] * g["elem_bytes"]
                        want_obs = g["resident_ctas"] * r["fill_bytes"] / q
                        aligned = g["resident_ctas"] * (n_r + n_c) / (2 * n_r * n_c)
                    self.assertAlmostEqual(obs / want_obs, 1, places=12)
                    errs.append(abs(aligned / obs - 1))
                self.assertEqual(len(errs), k["n_runs"])
                self.assertAlmostEqual(100 * sum(errs) / len(errs), ck["mape"]["aligned"],
                                       places=10)

    def test_learned_columns_scored_from_predictions(self):
        for cal in self.a["calibrations"] + self.c["calibrations"]:
            fields = ["o", "path", "d", "m"] if cal["workload"] == "scan" else ["Mg", "Ng"]
            for name, panel in cal["panels"].items():
                files = panel["files"] or [cal["bundle"]]
                runs = []
                for path in files:
                    with open(path, encoding="utf-8") as f:
                        doc = json.load(f)
                    runs += doc["measurements"] if panel["files"] else doc["heldout"]
                for m in LEARNED:
                    pred = panel["predictions"][m]
                    self.assertEqual(len(pred), len(runs))
                    self.assertTrue(all(math.isfinite(p) for p in pred), m)
                    per_key = []
                    for k in panel["keys"]:
                        idx = [i for i, r in enumerate(runs) if all(r[f] == k[f] for f in fields)]
                        want = 100 * sum(abs(pred[i] / panel["observed"][i] - 1) for i in idx) / len(idx)
                        self.assertAlmostEqual(k["mape"][m], want, places=9, msg=(name, m))
                        per_key.append(k["mape"][m])
                    self.assertAlmostEqual(panel["summary"]["mape"][m],
                                           sum(per_key) / len(per_key), places=9)
                    lo, hi = panel["summary"]["ci"][m]
                    self.assertTrue(lo <= panel["summary"]["mape"][m] <= hi or lo == hi, m)

    def test_fitted_on_calibration_runs_only_and_deterministic(self):
        a = next(c for c in self.a["calibrations"] if c["workload"] == "gemm")
        c = self.c["calibrations"][0]
        self.assertEqual(c["selection"], a["selection"])  # params and CV errors, bit for bit
        pa, pc = a["panels"]["heldout"], c["panels"]["heldout"]
        self.assertEqual(pc["predictions"], pa["predictions"])
        self.assertTrue(all(x != y for x, y in zip(pc["observed"], pa["observed"])))
        changed = [m for m in LEARNED if pc["summary"]["mape"][m] != pa["summary"]["mape"][m]]
        self.assertEqual(changed, LEARNED)  # the scores did see the permuted labels
        self.assertEqual(set(c["panels"]), {"heldout", "extra"})

    def test_folds_never_split_a_key(self):
        runs = bundles.load(self.scan).calibration_runs()
        splits = selection.folds(runs)
        self.assertEqual(len(splits), min(selection.FOLDS, len(SCAN_KEYS)))
        for train, test in splits:
            self.assertFalse({runs.keys[i] for i in train} & {runs.keys[i] for i in test})
        self.assertEqual(sorted(np.concatenate([t for _, t in splits])), list(range(len(runs))))

    def test_relative_boosting_is_weighted_absolute_error(self):
        from sklearn.ensemble import GradientBoostingRegressor
        rel = next(m for m in methods.METHODS if m.name == "relative_boost")
        runs = bundles.load(self.gemm).calibration_runs()
        params = {"learning_rate": 0.1, "max_depth": 2, "n_estimators": 25}
        est = rel.fit(params, runs.X, runs.K)
        self.assertEqual(est.loss, "absolute_error")
        ref = GradientBoostingRegressor(loss="absolute_error", random_state=0, **params)
        ref.fit(runs.X, runs.K, sample_weight=1 / runs.K)
        self.assertEqual(list(rel.predict(est, runs.X)), list(ref.predict(runs.X)))
        unweighted = GradientBoostingRegressor(loss="absolute_error", random_state=0, **params)
        unweighted.fit(runs.X, runs.K)
        self.assertNotEqual(list(ref.predict(runs.X)), list(unweighted.predict(runs.X)))
        self.assertEqual(len(methods.METHODS), 6)

    def test_bad_arguments_exit_2(self):
        cases = [([], "BUNDLE"), (["--bogus", self.scan], "--bogus"),
                 ([self.scan, "--json=1"], "--json"), ([self.scan, "--heldout"], "--heldout"),
                 ([self.scan, self.gemm, "--heldout", self.extra], "--heldout"),
                 ([self.scan, self.gemm, "--panel", "x=" + self.extra], "--panel"),
                 ([self.scan, "--panel", "nofiles"], "--panel"),
                 ([self.scan, "--panel", "heldout=" + self.extra], "--panel"),
                 ([self.scan, "--heldout", "a,,b"], "--heldout"),
                 ([self.scan, "--heldout", self.extra, "--heldout", self.extra], "--heldout"),
                 ([self.scan, "--pascal", "/nonexistent/pascal"], "--pascal")]
        for args, arg in cases:
            with self.subTest(args=args):
                out, err = finish(learned(*args), expect=2)
                self.assertEqual(out, "")
                self.assertEqual(len(err.strip().splitlines()), 1, err)
                self.assertTrue(err.startswith("pascal_eval.learned: %s:" % arg), err)

    def test_bad_input_exit_1(self):
        with open(self.scan, encoding="utf-8") as f:
            doc = json.load(f)
        doc["measurements"][3]["fill_bytes"] = -1
        bad = write(os.path.join(self.tmp.name, "bad.json"), doc)
        doc["measurements"][3]["fill_bytes"] = 1e9
        del doc["heldout"][2]["W"]
        no_w = write(os.path.join(self.tmp.name, "now.json"), doc)
        with open(self.gemm, encoding="utf-8") as f:
            doc = json.load(f)
        del doc["heldout"]
        no_panel = write(os.path.join(self.tmp.name, "nopanel.json"), doc)
        junk = write(os.path.join(self.tmp.name, "junk.json"), [1, 2])
        for path, needle in ((bad, "measurements[3].fill_bytes"), (no_w, "heldout[2].W"),
                             (no_panel, "heldout"),
                             (junk, "junk.json"), (os.path.join(self.tmp.name, "absent.json"),
                                                   "absent.json")):
            with self.subTest(path=path):
                out, err = finish(learned(path), expect=1)
                self.assertEqual(out, "")
                self.assertEqual(len(err.strip().splitlines()), 1, err)
                self.assertIn(needle, err)


if __name__ == "__main__":
    PASCAL = os.path.abspath(sys.argv.pop(1))
    unittest.main(verbosity=2)
