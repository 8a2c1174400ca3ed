"""test_triton_adapter.py - pascal_client.triton against a real pascald.

The device fills-gb10 holds three frozen GEMM calibrations, all imported
here from the shipped sim-gb10 GEMM bundle without its peaks (so that the
adapter ranks by fill bytes; test_predict_time covers ranking by time): its
own 128x128x64 tile with 2-byte elements, 64x128x32 with 2-byte elements and
128x128x64 with 4-byte elements (their fills scaled so that the three answer
differently). Configurations are plain
objects shaped like triton.Config. A covered configuration's key must be the
fill bytes the daemon answers, over raw HTTP, for its shape on the
calibration of its tile and element size; every other configuration must be
uncovered with the reason, never answered by another calibration; the
module must import with Triton absent."""
import json
import math
import os
import subprocess
import sys

from harness import SOURCE, DaemonTest

CLIENT = os.path.join(SOURCE, "clients", "python")
sys.path.insert(0, CLIENT)
from pascal_client import Client  # noqa: E402
from pascal_client.triton import MatmulRanker  # noqa: E402

GEMM_BUNDLE = os.path.join(SOURCE, "deploy", "calibrations", "sim-gb10-tiled-gemm.json")
DEV = "fills-gb10"


class Config:
    def __init__(self, bm, bn, bk, warps=4, stages=3, split_k=1):
        self.kwargs = {"BLOCK_M": bm, "BLOCK_N": bn, "BLOCK_K": bk, "SPLIT_K": split_k}
        self.num_warps, self.num_stages = warps, stages


class Tensor:
    def __init__(self, dtype):
        self.dtype = dtype


class TritonAdapter(DaemonTest):
    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.cal = {}
        for tile, elem, scale in (((128, 128, 64), 2, 1.0), ((64, 128, 32), 2, 1.25),
                                  ((128, 128, 64), 4, 2.0)):
            with open(GEMM_BUNDLE, encoding="utf-8") as f:
                b = json.load(f)
            for k in ("model", "report", "content_hash", "heldout", "offgrid"):
                b.pop(k, None)  # the panels measured another tile's bytes
            b["device"]["name"] = DEV
            del b["device"]["peaks"]
            for m in b["measurements"]:  # another tile or element size moves other bytes
                m["fill_bytes"] *= scale
            b["gemm"].update(tile_m=tile[0], tile_n=tile[1], tile_k=tile[2], elem_bytes=elem)
            r = cls.d.request("POST", "/v1/calibrations/import", b, token=cls.admin)
            assert r.status == 201, r.raw
            cls.cal[tile + (elem,)] = r.json["id"]

    def setUp(self):
        self.c = Client("http://127.0.0.1:%d" % self.d.port)
        self.r = MatmulRanker(self.c, DEV, top_k=2)

    def tearDown(self):
        self.c.close()

    def fill(self, cal, M, N, K):
        r = self.req("POST", "/v1/predict", {"device": DEV, "calibration": cal,
                                             "Mg": M, "Ng": N, "Kg": K})
        self.assertStatus(r, 200)
        return r.json["fill_bytes"]

    def test_coverage_lists_every_gemm_calibration(self):
        got = sorted((c.tile, c.elem_bytes, c.calibration) for c in self.r.coverage())
        want = sorted((k[:3], k[3], v) for k, v in self.cal.items())
        self.assertEqual(got, want)
        self.assertEqual(self.r.coverage()[0].shapes[0], (256, 8192))

    def test_covered_configs_use_their_own_calibration(self):
        M, N, K = 2048, 1024, 4096
        for cfg, dtype, key in [(Config(128, 128, 64), "float16", (128, 128, 64, 2)),
                                (Config(128, 128, 64, 8, 4), "torch.bfloat16", (128, 128, 64, 2)),
                                (Config(64, 128, 32), "fp16", (64, 128, 32, 2)),
                                (Config(128, 128, 64), "float32", (128, 128, 64, 4))]:
            a = self.r.assess(cfg, M, N, K, dtype)
            self.assertTrue(a.covered, a.reason)
            self.assertEqual(a.calibration, self.cal[key])
            self.assertEqual(a.key_name, "fill_bytes")
            self.assertEqual(a.key, self.fill(self.cal[key], M, N, K))
        # the three calibrations answer differently, so a key names its calibration
        self.assertEqual(len({self.fill(c, M, N, K) for c in self.cal.values()}), 3)

    def test_uncovered_configs_say_why(self):
        cases = [(Config(32, 32, 32), 1024, "float16", "tile 32x32x32 not calibrated"),
                 (Config(64, 128, 32), 1024, "float32", "calibrated for 2-byte elements"),
                 (Config(128, 128, 64), 1024, "float8_e4m3fn", "calibrated for 2/4-byte elements"),
                 (Config(128, 128, 64), 1000, "float16", "M=1000 is not a whole number"),
                 (Config(128, 128, 64, split_k=2), 1024, "float16", "SPLIT_K=2"),
                 (Config(128, 128, 64), 1024, "complex64", "dtype complex64")]
        for cfg, M, dtype, why in cases:
            a = self.r.assess(cfg, M, 1024, 1024, dtype)
            self.assertFalse(a.covered, (cfg.kwargs, dtype))
            self.assertIn(why, a.reason)
            self.assertIsNone(a.prediction)
            self.assertEqual(a.key, math.inf)

    def test_perf_model_and_early_config_prune(self):
        M, N, K = 4096, 2048, 1024
        a16 = Tensor("torch.float16")
        t128 = self.r.perf_model(M=M, N=N, K=K, a=a16, b=a16, BLOCK_M=128, BLOCK_N=128, BLOCK_K=64,
                                 SPLIT_K=1, num_warps=4, num_stages=3)
        self.assertEqual(t128, self.fill(self.cal[(128, 128, 64, 2)], M, N, K))
        self.assertEqual(self.r.perf_model(M=M, N=N, K=K, dtype="float16", BLOCK_M=32, BLOCK_N=32,
                                           BLOCK_K=32, num_warps=4, num_stages=3), math.inf)
        cfgs = [Config(32, 32, 32), Config(128, 128, 64), Config(64, 128, 32), Config(128, 128, 64, 8),
                Config(256, 128, 64)]
        kept = self.r.early_config_prune(cfgs, {"M": M, "N": N, "K": K, "a": a16, "b": a16})
        fill = {(128, 128, 64): t128, (64, 128, 32): self.fill(self.cal[(64, 128, 32, 2)], M, N, K)}
        best = sorted([cfgs[1], cfgs[2], cfgs[3]],
                      key=lambda c: fill[tuple(c.kwargs[k] for k in ("BLOCK_M", "BLOCK_N", "BLOCK_K"))])
        # top_k=2 covered ones best first (ties in input order), then the uncovered in order
        self.assertEqual(kept, best[:2] + [cfgs[0], cfgs[4]])

    def test_imports_without_triton(self):
        code = ("import sys; sys.modules['triton'] = None; "
                "import pascal_client.triton as t; print(t.MatmulRanker.__name__)")
        p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           env=dict(os.environ, PYTHONPATH=CLIENT))
        self.assertEqual((p.returncode, p.stdout.strip()), (0, "MatmulRanker"), p.stderr)

    def test_example_ranks_twenty_configs(self):
        p = subprocess.run([sys.executable, os.path.join(CLIENT, "examples", "rank_triton_configs.py"),
                            "--url", "http://127.0.0.1:%d" % self.d.port, "--device", DEV,
                            "--M", "4096", "--N", "4096",
                            "--K", "4096"], capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stderr)
        rows = p.stdout.splitlines()[2:]
        self.assertEqual(len(rows), 20, p.stdout)
        ranked = [r for r in rows if not r.lstrip().startswith("-")]
        self.assertEqual(len(ranked), 8, p.stdout)  # two tiles calibrated for 2-byte elements, x 4
        self.assertEqual(sum("uncovered: tile" in r for r in rows), 12, p.stdout)


if __name__ == "__main__":
    import unittest
    unittest.main()
