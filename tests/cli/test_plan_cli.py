#!/usr/bin/python3
"""test_plan_cli.py - `pascal plan` black-box: for GB10 (C = 1280, 100 KiB of
shared memory per SM) it writes exactly the shipped deploy/plans files; for an
H100-like probe (132 SMs, 50 MiB L2, 228 KiB per SM) every size is above C and
the counts are the paper's (756 calibration runs, 420 held-out runs in two
parts, 120 + 60 GEMM shapes); bad arguments exit 2 naming the option, a bad
probe file exits 1 naming the field.

Usage: test_plan_cli.py PASCAL_BINARY PLANS_DIR
"""
import json
import os
import subprocess
import sys
import tempfile
import unittest

PASCAL = sys.argv[1]
PLANS = sys.argv[2]
H100_PROBE = {"arch": "sm_90", "sm_count": 132, "capacity_blocks": 3200, "block_bytes": 16384,
              "l2_bytes": 52428800, "smem_per_sm": 233472}


def run(*args):
    p = subprocess.run([PASCAL, "plan"] + list(args), capture_output=True, text=True, timeout=60)
    return p.returncode, p.stdout, p.stderr


def plan(*args):
    rc, out, err = run(*args)
    if rc != 0:
        raise AssertionError("pascal plan %s: exit %d: %s" % (" ".join(args), rc, err))
    return json.loads(out)


def runs(p):
    if p["workload"] == "gemm":
        return len(p["shapes"]) * len(p.get("configurations", [None])) * p["repeats"]
    return len(p["sizes"]) * len(p["keys"]) * len(p["horizons"]) * p["repeats"]


class PlanCli(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.probe = os.path.join(self.tmp.name, "probe.json")
        with open(self.probe, "w") as f:
            json.dump(H100_PROBE, f)

    def tearDown(self):
        self.tmp.cleanup()

    def shipped(self, name):
        with open(os.path.join(PLANS, name)) as f:
            return json.load(f)

    def test_gb10_reproduces_shipped_plans(self):
        out = os.path.join(self.tmp.name, "scan.json")
        rc, _, err = run("--kind", "scan", "--C", "1280", "--smem-per-sm", "102400", "-o", out)
        self.assertEqual(rc, 0, err)
        with open(out) as f:
            self.assertEqual(json.load(f), self.shipped("scan-paper.json"))
        self.assertEqual(plan("--kind", "gemm"), self.shipped("gemm-paper.json"))

    def test_h100_probe(self):
        p = plan("--kind", "scan", "--probe", self.probe)
        self.assertEqual(p["sizes"], [7680, 10240, 15360])
        self.assertTrue(all(n > H100_PROBE["capacity_blocks"] for n in p["sizes"]))
        self.assertEqual(len(p["keys"]), 63)
        self.assertEqual(runs(p), 756)
        # the same device given by options
        self.assertEqual(plan("--kind", "scan", "--l2-bytes", "52428800", "--smem-per-sm", "233472"), p)
        cal = {(k["o"], k["path"], k["d"], k["m"]) for k in p["keys"]}
        total, pairs, keys = 0, set(), set()
        for part in ("1", "2"):
            h = plan("--kind", "scan-heldout", "--probe", self.probe, "--part", part)
            self.assertEqual(h["repeats"], 2)
            self.assertTrue(all(n > H100_PROBE["capacity_blocks"] for n in h["sizes"]))
            pairs |= {(n, w) for n in h["sizes"] for w in h["horizons"]}
            keys |= {(k["o"], k["path"], k["d"], k["m"]) for k in h["keys"]}
            total += runs(h)
        self.assertEqual((total, len(pairs), len(keys)), (420, 5, 42))
        self.assertFalse(keys & cal)
        self.assertEqual({(o, pa, d) for o, pa, d, _ in keys}, {(o, pa, d) for o, pa, d, _ in cal})
        g = plan("--kind", "gemm-heldout")
        self.assertEqual(runs(g), 60)
        gcal = {(s["Mg"], s["Ng"], s["Kg"]) for s in self.shipped("gemm-paper.json")["shapes"]}
        self.assertFalse({(s["Mg"], s["Ng"], s["Kg"]) for s in g["shapes"]} & gcal)

    def test_gemm_configs(self):
        # from the H100 probe (228 KiB per SM): the own staged kernel's
        # eight (128x128x64 FP16, stages 1-4, G = 1 and 8), 24 runs; the same
        # from --smem-per-sm; the sim list from --smem-per-sm 0 (nine, 27
        # runs, three at G = 8)
        p = plan("--kind", "gemm-configs", "--probe", self.probe)
        self.assertEqual((len(p["configurations"]), runs(p)), (8, 24))
        self.assertEqual({(c["tile_m"], c["tile_n"], c["tile_k"], c["elem_bytes"], c["stages"], c["group_m"])
                          for c in p["configurations"]},
                         {(128, 128, 64, 2, s, g) for s in (1, 2, 3, 4) for g in (1, 8)})
        self.assertEqual(plan("--kind", "gemm-configs", "--smem-per-sm", str(H100_PROBE["smem_per_sm"])), p)
        s = plan("--kind", "gemm-configs", "--smem-per-sm", "0")
        self.assertEqual((len(s["configurations"]), runs(s)), (9, 27))
        self.assertEqual(sum(c["group_m"] == 8 for c in s["configurations"]), 3)

    def test_bad_arguments_exit_2(self):
        cases = [
            (["--kind", "scan-test", "--C", "1280", "--smem-per-sm", "0"], "--kind"),
            (["--kind", "scan", "--smem-per-sm", "0"], "--C"),
            (["--kind", "scan", "--C", "1280"], "--smem-per-sm"),
            (["--kind", "scan", "--C", "1280", "--probe", self.probe], "--probe"),
            (["--kind", "scan-heldout", "--C", "1280", "--smem-per-sm", "0"], "--part"),
            (["--kind", "scan", "--C", "1280", "--smem-per-sm", "50000"], "--smem-per-sm"),
            (["--kind", "scan", "--C", "0", "--smem-per-sm", "0"], "--C"),
            (["--kind", "scan", "--C", "1280", "--smem-per-sm", "0", "--max-occupancy", "0"],
             "--max-occupancy"),
            (["--kind", "gemm", "--C", "1280"], "--C"),
            (["--kind", "gemm-heldout", "--probe", self.probe], "--probe"),
            (["--kind", "gemm-configs"], "--smem-per-sm"),
            (["--kind", "gemm-configs", "--smem-per-sm", "0", "--probe", self.probe], "--probe"),
            (["--kind", "gemm-configs", "--smem-per-sm", "0", "--C", "1280"], "--C"),
            (["--kind", "gemm-configs", "--smem-per-sm", "1000"], "--smem-per-sm"),
        ]
        for args, named in cases:
            rc, out, err = run(*args)
            self.assertEqual(rc, 2, (args, err))
            self.assertEqual(out, "")
            self.assertIn(named, err, args)
            self.assertEqual(len(err.strip().splitlines()), 1, err)

    def test_bad_probe_exit_1(self):
        bad = os.path.join(self.tmp.name, "bad.json")
        with open(bad, "w") as f:
            json.dump(dict(H100_PROBE, smem_per_sm="lots"), f)
        rc, out, err = run("--kind", "scan", "--probe", bad)
        self.assertEqual(rc, 1)
        self.assertIn("smem_per_sm", err)
        with open(bad, "w") as f:
            json.dump(dict(H100_PROBE, capacity_blocks=0), f)
        rc, out, err = run("--kind", "scan", "--probe", bad)
        self.assertEqual(rc, 1)
        self.assertIn("capacity_blocks", err)


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1], verbosity=2)
