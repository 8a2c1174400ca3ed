"""test_shipped_attention.py - the attention calibrations pascald ships and
imports at first start (deploy/calibrations/*-tiled-attention.json,
docs/attention.md), checked against the attention protocol as `pascal plan`
writes it for the sim profile each was measured on, then served over real
HTTP.

Per bundle: source `sim` with its profile named; the device geometry is the
profile's; the tiling is the default (64 x 64, head_dim 64, FP16); the
calibration runs are exactly `pascal plan --kind attention` for the
profile's C and shared memory (96 runs) and the held-out panel exactly
`--kind attention-heldout` (24 runs) plus the five `--kind attention-cells`
parts (30 runs); every fill exceeds the run's query tiles (W M 8 KiB) and
its K/V part is at least one pass per wave's worth of the cold K/V steps
(K >= 1, the sim's LRU cannot do better for N > C). pascald serves each
device's attention calibration (frozen, its report with a held-out part of
54 runs over 3 keys), answers an attention query at a reference with a K
between that reference's two repeats, and a time."""
import json
import os
import subprocess
import sys
import unittest

from harness import PASCAL_CLI, SOURCE, DaemonTest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "harness"))
from sim_profile import check_sim_bundle  # noqa: E402

BUNDLES = os.path.join(SOURCE, "deploy", "calibrations")
DEVICES = {"sim-gb10": "sim-gb10-tiled-attention.json",
           "sim-thor": "sim-thor-tiled-attention.json"}
QTILE = 64 * 64 * 2


def load(name):
    with open(os.path.join(BUNDLES, name), encoding="utf-8") as f:
        return json.load(f)


def plan_runs(prof, kind, part=None):
    """(o, path, d, m, N, W, repeat) of every run `pascal plan` writes."""
    args = [PASCAL_CLI, "plan", "--kind", kind, "--C", prof["capacity_blocks"],
            "--smem-per-sm", prof["smem_per_sm"]]
    if part:
        args += ["--part", str(part)]
    plan = json.loads(subprocess.run(args, check=True, capture_output=True, text=True).stdout)
    return sorted((k["o"], k["path"], k["d"], k["m"], n, w, rep)
                  for n in plan["sizes"] for k in plan["keys"] for w in plan["horizons"]
                  for rep in range(plan.get("repeats", 1)))


def run_tuple(r):
    return (r["o"], r["path"], r["d"], r["m"], r["N"], r["W"], r.get("repeat", 0))


class ShippedAttentionBundles(unittest.TestCase):
    def test_bundles_follow_the_protocol_and_their_profile(self):
        for dev, name in DEVICES.items():
            b = load(name)
            prof = check_sim_bundle(self, b, "attention", dev, name, SOURCE)
            self.assertEqual(b["attention"], {"block_q": 64, "block_kv": 64, "head_dim": 64,
                                              "elem_bytes": 2}, name)
            self.assertEqual(sorted(run_tuple(r) for r in b["measurements"]),
                             plan_runs(prof, "attention"), name)
            panel = plan_runs(prof, "attention-heldout")
            for part in range(1, 6):
                panel += plan_runs(prof, "attention-cells", part)
            self.assertEqual(sorted(run_tuple(r) for r in b["heldout"]), sorted(panel), name)
            sm, block = int(prof["sm_count"]), int(prof["block_bytes"])
            for r in b["measurements"] + b["heldout"]:
                q = r["W"] * sm * r["o"] * QTILE
                k = (r["fill_bytes"] - q) / (block * r["W"] * r["N"])
                self.assertGreaterEqual(k, 1.0, (name, run_tuple(r)))
                self.assertGreater(r["kernel_ns"], 0, (name, run_tuple(r)))


class ServedAttention(DaemonTest):
    shipped = tuple(DEVICES.values())

    def test_each_device_serves_its_attention_calibration(self):
        for dev, name in DEVICES.items():
            r = self.req("GET", "/v1/devices/" + dev)
            self.assertStatus(r, 200)
            cals = {c["workload"]: c for c in r.json["calibrations"]}
            att = cals["attention"]
            self.assertEqual(att["state"], "frozen", dev)
            rep = self.req("GET", "/v1/calibrations/%d" % att["id"]).json["report"]
            self.assertEqual((rep["heldout"]["n_runs"], len(rep["heldout"]["keys"])), (54, 3), dev)
            # a reference run: the largest size, W = 24, depth 2, its two repeats
            b = load(name)
            n = max(r["N"] for r in b["measurements"])
            refs = [r for r in b["measurements"] if (r["N"], r["W"], r["d"]) == (n, 24, 2)]
            self.assertEqual(len(refs), 2, dev)
            o, sm = refs[0]["o"], b["device"]["sm_count"]
            ks = [(r["fill_bytes"] - 24 * sm * o * QTILE) / (16384.0 * 24 * n) for r in refs]
            q = {"device": dev, "seq_q": 64 * 24, "seq_kv": 64 * n, "heads": sm * o,
                 "head_dim": 64, "stages": 2}
            p = self.req("POST", "/v1/predict", q)
            self.assertStatus(p, 200)
            self.assertEqual((p.json["workload"], p.json["calibration"]), ("attention", att["id"]))
            self.assertEqual(p.json["rule"], "exact", dev)
            self.assertTrue(min(ks) - 1e-9 <= p.json["K"] <= max(ks) + 1e-9, (dev, ks, p.json["K"]))
            self.assertGreater(p.json["time_s"], 0, dev)


if __name__ == "__main__":
    unittest.main()
