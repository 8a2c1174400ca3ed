"""test_triton_adapter.py - Triton matmul configurations ranked by a real
pascald, through the GEMM query's configuration fields.

The device tuner-gb10 holds the shipped sim-gb10 GEMM calibration (its
runs, its peaks: the answers carry time_s), imported with the device's
shared memory (gb10-like: 100 KiB per SM) so that what does not fit is
refused. Every key the adapter ranks by must be the time_s pascald answers,
over raw HTTP, for the same configuration; what cannot run must be pruned
and named; the daemon's 4xx must name the field; the torch device name must
map to the device; the hooks run as Triton 3.x's autotuner runs them
(test_triton_hooks.prune_configs, the tutorial's configurations)."""
import json
import math
import os
import subprocess
import sys
import types
import warnings

from harness import SOURCE, DaemonTest
from test_triton_hooks import Config, Tensor, prune_configs, tutorial_configs, tutorial_nargs

CLIENT = os.path.join(SOURCE, "clients", "python")
sys.path.insert(0, CLIENT)
from pascal_client import Client  # noqa: E402
from pascal_client.triton import CANNOT_RUN_KEY, MatmulRanker, PascalTunerWarning  # noqa: E402

GEMM_BUNDLE = os.path.join(SOURCE, "deploy", "calibrations", "sim-gb10-tiled-gemm.json")
DEV = "tuner-gb10"
CUDA_NAME = "PASCAL sim GB10-like"


def block(cfg):
    kw = cfg.kwargs
    return tuple(kw.get(k, kw.get(k.replace("_SIZE", ""))) for k in
                 ("BLOCK_SIZE_M", "BLOCK_SIZE_N", "BLOCK_SIZE_K"))


class TritonAdapter(DaemonTest):
    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        with open(GEMM_BUNDLE, encoding="utf-8") as f:
            b = json.load(f)
        for k in ("model", "report", "content_hash"):
            del b[k]
        b["device"]["name"] = DEV
        b["device"]["smem_per_sm"] = 102400
        r = cls.d.request("POST", "/v1/calibrations/import", b, token=cls.admin)
        assert r.status == 201, r.raw
        cls.cal = r.json["id"]
        d = dict((k, b["device"][k]) for k in ("name", "arch", "sm_count", "capacity_blocks",
                                                  "block_bytes"))
        d["cuda_name"] = CUDA_NAME
        r = cls.d.request("POST", "/v1/devices", d, token=cls.admin)
        assert r.status in (200, 201), r.raw

    def setUp(self):
        self.c = Client("http://127.0.0.1:%d" % self.d.port)
        self.r = MatmulRanker(self.c, DEV)

    def tearDown(self):
        self.c.close()

    def answer(self, M, N, K, tile, elem=2, stages=3, group=8):
        q = {"device": DEV, "Mg": M, "Ng": N, "Kg": K, "tile_m": tile[0], "tile_n": tile[1],
             "tile_k": tile[2], "elem_bytes": elem, "stages": stages, "group_m": group}
        return self.req("POST", "/v1/predict", q)

    def test_configuration_fields_are_answered_and_named(self):
        r = self.answer(2048, 2048, 4096, (64, 128, 32), stages=4)
        self.assertStatus(r, 200)
        cfg = r.json["config"]
        self.assertEqual((cfg["tile_m"], cfg["tile_n"], cfg["tile_k"], cfg["stages"],
                          cfg["group_m"]), (64, 128, 32, 4, 8))
        self.assertEqual(cfg["transferred"], ["tile", "stages", "group_m"])
        self.assertEqual((cfg["occupancy"], cfg["ctas_per_sm"], cfg["smem_per_sm"]),
                         ("resources", 2, 102400))  # 49 KiB of 100
        self.assertEqual(r.json["query"]["tile_m"], 64)
        self.assertGreater(r.json["time_s"], 0)
        # the calibration's own configuration is the measured answer
        r = self.answer(2048, 2048, 4096, (128, 128, 64), stages=1, group=1)
        self.assertStatus(r, 200)
        self.assertEqual(r.json["config"]["transferred"], [])
        self.assertEqual(r.json["config"]["occupancy"], "measured")
        bare = self.req("POST", "/v1/predict", {"device": DEV, "Mg": 2048, "Ng": 2048, "Kg": 4096})
        self.assertEqual(bare.json["fill_bytes"], r.json["fill_bytes"])
        self.assertNotIn("tile_m", bare.json["query"])  # absent, not echoed as 0
        # the GET form reads the same fields
        g = self.req("GET", "/v1/predict?device=%s&Mg=2048&Ng=2048&Kg=4096&tile_m=64&tile_n=128"
                     "&tile_k=32&elem_bytes=2&stages=4&group_m=8&explain=false" % DEV)
        self.assertStatus(g, 200)
        self.assertEqual(g.json["time_s"], self.answer(2048, 2048, 4096, (64, 128, 32),
                                                       stages=4).json["time_s"])

    def test_bad_fields_name_themselves(self):
        for tile, elem, stages, group, status, field in (
                ((64, 64, 32), 3, 3, 8, 400, "elem_bytes"),
                ((0, 64, 32), 2, 3, 8, 400, "tile_m"),
                ((64, 64, 32), 2, 17, 8, 400, "stages"),
                ((64, 64, 32), 2, 3, 0, 400, "group_m"),
                ((128, 256, 64), 2, 3, 8, 422, "stages"),    # 144 KiB of 100
                ((256, 256, 32), 2, 1, 8, 422, "tile_m"),    # a 256 KiB accumulator
                ((64, 64, 32), 2, 3, 8, 400, "Mg")):          # 1000 is not whole 64-row tiles
            r = self.answer(1000 if field == "Mg" else 1024, 1024, 1024, tile, elem, stages, group)
            self.assertStatus(r, status)
            self.assertEqual(r.json["error"]["field"], field, r.json)
            if status == 422:
                self.assertIn("does not fit", r.json["error"]["message"])

    def test_keys_are_the_daemons_times(self):
        cfgs = tutorial_configs()
        M, N, K = 4096, 4096, 4096
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            a = self.r.assess_many(cfgs, M, N, K, "float16")
        self.assertEqual([x for x in w if issubclass(x.category, PascalTunerWarning)], [])
        for x, cfg in zip(a, cfgs):
            r = self.answer(M, N, K, block(cfg), 2, cfg.num_stages, 8)
            if r.status == 422:
                self.assertEqual((x.status, x.key), ("cannot_run", CANNOT_RUN_KEY))
                self.assertIn("does not fit", x.reason)
            else:
                self.assertStatus(r, 200)
                self.assertEqual((x.status, x.key_name, x.key), ("answered", "time_s",
                                                                 r.json["time_s"]))
        self.assertGreater(sum(x.status == "answered" for x in a), 8)
        self.assertGreater(sum(x.status == "cannot_run" for x in a), 0)

    def test_autotuner_prunes_and_ranks(self):
        cfgs = tutorial_configs()
        nargs = tutorial_nargs(4096, 4096, 4096)
        r = MatmulRanker(self.c, DEV, top_k=4)
        got = prune_configs(cfgs, nargs, {"ACTIVATION": ""},
                            {"early_config_prune": r.early_config_prune,
                             "perf_model": r.perf_model, "top_k": 4})
        times = {}
        for cfg in cfgs:
            resp = self.answer(4096, 4096, 4096, block(cfg), 2, cfg.num_stages, 8)
            if resp.status == 200:
                times[id(cfg)] = resp.json["time_s"]
        want = sorted((c for c in cfgs if id(c) in times), key=lambda c: times[id(c)])[:4]
        self.assertEqual(got, want)
        # perf_model alone (no early prune): the ones that cannot run come last, finite
        keys = [r.perf_model(**nargs, ACTIVATION="", **c.all_kwargs()) for c in cfgs]
        self.assertTrue(all(math.isfinite(k) for k in keys))
        self.assertEqual(sorted(cfgs, key=lambda c: keys[cfgs.index(c)])[:4], want)

    def test_off_tile_shapes_are_padded(self):
        cfg = tutorial_configs()[4]  # 64 x 128 x 32, 4 stages
        a = self.r.assess(cfg, 1000, 3000, 4000, "bfloat16")
        self.assertTrue(a.padded)
        r = self.answer(1024, 3072, 4000, (64, 128, 32), 2, 4, 8)
        self.assertEqual((a.status, a.key), ("answered", r.json["time_s"]))
        self.assertEqual(a.transferred, ["tile", "stages", "group_m", "shape"])
        # fp32 and fp8 are answered too (4- and 1-byte elements)
        for dtype, elem in (("float32", 4), ("float8_e4m3fn", 1)):
            x = self.r.assess(tutorial_configs()[6], 1024, 1024, 1024, dtype)  # 64x32x32 x5
            self.assertEqual((x.status, x.key),
                             ("answered", self.answer(1024, 1024, 1024, (64, 32, 32), elem, 5,
                                                      8).json["time_s"]))

    def test_split_k_gets_a_scaled_estimate(self):
        """What the daemon is not asked (SPLIT_K > 1) is ranked by the local
        roofline scaled onto the daemon's answers: finite, flagged."""
        ops = [Config({"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 32, "GROUP_M": 8, "SPLIT_K": s},
                      num_stages=3) for s in (1, 4)]
        a = self.r.assess_many(ops, 2048, 2048, 8192, "float16")
        self.assertEqual([x.status for x in a], ["answered", "estimated"])
        self.assertIn("SPLIT_K=4", a[1].reason)
        scale = a[0].key / a[0].estimate_s
        self.assertEqual((a[1].key_name, a[1].key), ("time_s", a[1].estimate_s * scale))

    def test_device_from_the_torch_device_name(self):
        fake = types.ModuleType("torch")
        fake.cuda = types.SimpleNamespace(get_device_name=lambda i: CUDA_NAME if i == 0 else "?")
        old = sys.modules.get("torch")
        sys.modules["torch"] = fake
        try:
            t = Tensor("float16")
            t.device = types.SimpleNamespace(type="cuda", index=0)
            r = MatmulRanker(self.c)  # no device: the tensor's
            k = r.perf_model(**dict(tutorial_nargs(2048, 2048, 2048), a_ptr=t),
                             **tutorial_configs()[2].all_kwargs())
        finally:
            if old is None:
                del sys.modules["torch"]
            else:
                sys.modules["torch"] = old
        self.assertEqual(k, self.answer(2048, 2048, 2048, (128, 128, 32), 2, 4, 8).json["time_s"])

    def test_example_ranks_the_tutorial_list(self):
        p = subprocess.run([sys.executable, os.path.join(CLIENT, "examples", "rank_triton_configs.py"),
                            "--url", "http://127.0.0.1:%d" % self.d.port, "--device", DEV,
                            "--M", "4096", "--N", "4096", "--K", "4096"],
                           capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stderr)
        rows = p.stdout.splitlines()[2:]
        self.assertEqual(len(rows), 16, p.stdout)
        ranked = [r for r in rows if not r.lstrip().startswith("-")]
        self.assertGreater(len(ranked), 8, p.stdout)
        self.assertTrue(all("does not fit" in r for r in rows if r.lstrip().startswith("-")))


if __name__ == "__main__":
    import unittest
    unittest.main()
