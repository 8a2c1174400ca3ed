"""test_loko_api.py - the leave-one-key-out report of a calibration imported
over the API, with keys of unequal run counts, against a hand computation.

The synthetic scan bundle of `pascal synth` is thinned so that every key with
an even m loses its largest size (8 runs instead of 12). The "aligned"
baseline predicts K = 1 for every run, independently of any refit, so each
key's aligned MAPE is computed here from the raw measurements
(obs = fill_bytes / (b W N)), over the runs that were scored (a refusal
names the size it refused). The balanced MAPE of every method must be the
mean over scored keys of the per-key MAPEs (paper Eq. dynamic_selection),
which, with these unequal counts, differs clearly from the mean over runs."""
import json
import os
import re
import subprocess
import tempfile
import unittest
from collections import defaultdict

from harness import PASCAL_CLI, DaemonTest


class LokoUnequalKeys(DaemonTest):
    def test_balanced_over_keys(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "scan.json")
            subprocess.run([PASCAL_CLI, "synth", "--law", "scan", "-o", path], check=True)
            with open(path, encoding="utf-8") as f:
                bundle = json.load(f)
        largest = max(m["N"] for m in bundle["measurements"])
        bundle["measurements"] = [m for m in bundle["measurements"]
                                  if not (m["m"] % 2 == 0 and m["N"] == largest)]
        b = bundle["device"]["block_bytes"]
        errors = defaultdict(list)  # key -> (N, |1/obs - 1|) of each run (aligned: K = 1)
        for m in bundle["measurements"]:
            obs = m["fill_bytes"] / (b * m["W"] * m["N"])
            errors[(m["o"], m["path"], m["d"], m["m"])].append((m["N"], abs(1 / obs - 1)))
        self.assertEqual({len(v) for v in errors.values()}, {8, 12})

        r = self.req("POST", "/v1/calibrations/import", bundle, token=self.admin)
        self.assertStatus(r, 201)
        rep = r.json["report"]
        self.assertEqual(rep["n_keys"], len(errors))
        self.assertEqual(rep["n_runs"], len(bundle["measurements"]))
        partial = 0
        for k in rep["keys"]:
            key = (k["o"], k["path"], k["d"], k["m"])
            self.assertEqual(k["n_runs"], len(errors[key]), key)
            runs = errors[key]
            if k["n_scored"] < k["n_runs"]:
                # a refused size is named in the refusal; the key's MAPE is over the others
                partial += 1
                refused_n = int(re.search(r"at N=(\d+)", k["refusal"]).group(1))
                runs = [r for r in runs if r[0] != refused_n]
                self.assertEqual(len(runs), k["n_scored"], key)
            hand = 100 * sum(e for _, e in runs) / len(runs)
            self.assertAlmostEqual(k["mape"]["aligned"], hand, delta=1e-9 * hand, msg=key)
        self.assertGreater(partial, 0, "no key with refused runs: the denominator is untested")

        scored = [k for k in rep["keys"] if k["n_scored"] > 0]
        self.assertEqual(rep["n_keys_scored"], len(scored))
        for method, value in rep["balanced_mape"].items():
            if value is None:
                continue
            by_key = sum(k["mape"][method] for k in scored) / len(scored)
            by_run = (sum(k["mape"][method] * k["n_scored"] for k in scored)
                      / sum(k["n_scored"] for k in scored))
            self.assertAlmostEqual(value, by_key, delta=1e-12 * by_key, msg=method)
            if method in ("pascal", "aligned"):
                # the test can tell the two averages apart
                self.assertGreater(abs(by_key - by_run), 1e-6 * by_key, method)


if __name__ == "__main__":
    unittest.main(verbosity=2)
