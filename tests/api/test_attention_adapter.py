"""test_attention_adapter.py - the Python client's attention adapter
(pascal_client.attention, docs/autotuning.md) against a real pascald with the
shipped calibrations, and against no daemon at all:
  - with kv_heads=1 the calibrated depths are covered, keyed by the same
    time_s `predict` answers, ranked first and best first; a depth the
    calibration did not measure, another BLOCK_M, a causal kernel (STAGE 3)
    and the default multi-head K/V are refused with the model's reason and
    ranked after them by the fallback key (aligned K = 1 traffic, checked by
    hand);
  - with the daemon unreachable nothing raises: every configuration gets the
    fallback key and the reason, and Triton's two hooks answer;
  - a malformed configuration is reported, ranked last, and raises nothing.
Verified to fail: with assess_many's `except Exception` removed, the
unreachable daemon raises PascalUnavailable out of rank()."""
import math
import os
import sys
import unittest

from harness import SOURCE, DaemonTest

sys.path.insert(0, os.path.join(SOURCE, "clients", "python"))
from pascal_client import Client  # noqa: E402
from pascal_client.attention import AttentionRanker  # noqa: E402


class Config:
    """triton.Config's shape: kwargs, num_warps, num_stages."""

    def __init__(self, stages, block_m=64, block_n=64, stage=1, **more):
        self.kwargs = dict(BLOCK_M=block_m, BLOCK_N=block_n, STAGE=stage, **more)
        self.num_warps = 4
        self.num_stages = stages

    def __repr__(self):
        return "Config(%r, stages=%r)" % (self.kwargs, self.num_stages)


PROBLEM = dict(Z=2, H=8, N_CTX=16384, HEAD_DIM=64, dtype="float16")


class AttentionAdapter(DaemonTest):
    shipped = ("sim-gb10-tiled-attention.json", "sim-thor-tiled-attention.json")

    def client(self):
        return Client("http://127.0.0.1:%d" % self.d.port, token=self.admin)

    def test_covered_ranked_by_time_then_the_rest(self):
        c = self.client()
        r = AttentionRanker(c, "sim-thor", kv_heads=1)
        cfgs = [Config(3), Config(4), Config(1), Config(2, block_m=128), Config(2),
                Config(2, stage=3)]
        ranked = r.rank(cfgs, **PROBLEM)
        covered = [a for a in ranked if a.covered]
        self.assertEqual(sorted(a.config.num_stages for a in covered), [1, 2, 3])
        self.assertEqual([a.key for a in covered], sorted(a.key for a in covered))
        for a in covered:
            want = c.predict("sim-thor", seq_q=16384, seq_kv=16384, heads=16, kv_heads=1,
                             head_dim=64, block_q=64, block_kv=64,
                             stages=a.config.num_stages, elem_bytes=2, causal=0)
            self.assertEqual((a.key_name, a.key), ("time_s", want.time_s))
        rest = {(a.config.num_stages, a.config.kwargs["BLOCK_M"], a.config.kwargs["STAGE"]): a
                for a in ranked if not a.covered}
        self.assertIn("stages", rest[(4, 64, 1)].reason)
        self.assertIn("block_q", rest[(2, 128, 1)].reason)
        self.assertIn("causal", rest[(2, 64, 3)].reason)
        self.assertEqual(ranked[:3], covered)
        # fallback by hand: 16 heads x 256 tiles = 4096 CTAs over 20 SMs:
        # 205 waves of one 4 MiB K/V pass, plus 4 MiB of query tiles
        a = rest[(4, 64, 1)]
        self.assertEqual(a.key_name, "aligned_fill_bytes")
        self.assertEqual(a.key, 16384 * 16 * 64 * 2 + math.ceil(4096 / 20) * 2 * 16384 * 64 * 2)
        self.assertLess(rest[(2, 128, 1)].key, a.key)  # half the CTAs, fewer waves

    def test_multi_head_kv_is_refused(self):
        r = AttentionRanker(self.client(), "sim-gb10")  # Triton's tutorial: K/V per head
        ranked = r.rank([Config(1), Config(2)], **PROBLEM)
        for a in ranked:
            self.assertFalse(a.covered)
            self.assertIn("kv_heads", a.reason)
            self.assertEqual(a.key_name, "aligned_fill_bytes")

    def test_hooks(self):
        r = AttentionRanker(self.client(), "sim-thor", kv_heads=1, top_k=1)
        cfgs = [Config(1), Config(2), Config(3), Config(5)]
        kept = r.early_config_prune(cfgs, dict(PROBLEM))
        self.assertEqual(len(kept), 2)  # the best covered one, then the uncovered depth
        self.assertEqual(kept[1].num_stages, 5)
        key = r.perf_model(BLOCK_M=64, BLOCK_N=64, num_stages=2, **PROBLEM)
        self.assertTrue(0 < key < math.inf)


class NoDaemon(unittest.TestCase):
    def test_unreachable_daemon_ranks_by_the_fallback(self):
        c = Client("http://127.0.0.1:9", retries=0, timeout=2)
        r = AttentionRanker(c, "sim-gb10", kv_heads=1, top_k=2)
        cfgs = [Config(2), Config(1, block_m=128), Config(3, block_m=32),
                Config(2, BLOCK_M_MISSING=1)]
        del cfgs[3].kwargs["BLOCK_M"]
        ranked = r.rank(cfgs, **PROBLEM)
        self.assertFalse(any(a.covered for a in ranked))
        self.assertEqual([a.config.kwargs.get("BLOCK_M") for a in ranked], [128, 64, 32, None])
        for a in ranked[:3]:
            self.assertIn("no answer from pascald", a.reason)
        self.assertIn("malformed", ranked[3].reason)
        self.assertEqual(ranked[3].key, math.inf)
        self.assertEqual(len(r.early_config_prune(cfgs, dict(PROBLEM))), 4)
        self.assertTrue(r.perf_model(BLOCK_M=64, BLOCK_N=64, num_stages=2, **PROBLEM) > 0)
        self.assertEqual(r.perf_model(BLOCK_N=64, num_stages=2, **PROBLEM), math.inf)


if __name__ == "__main__":
    unittest.main()
