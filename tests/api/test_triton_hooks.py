"""test_triton_hooks.py - pascal_client.triton's hooks driven as Triton 3.x's
autotuner drives them, with Triton absent, when the daemon cannot help.

`prune_configs` below does what triton.runtime.autotuner.Autotuner
.prune_configs does in Triton 3.x (read in triton-lang/triton,
python/triton/runtime/autotuner.py): early_config_prune(configs, nargs,
**kwargs) must return at least one configuration; then, with a perf_model
and more configurations than top_k (a float <= 1 is a fraction of them),
perf_model(**nargs, **kwargs, **config.all_kwargs()) for each and the top_k
smallest by a stable sort. `Config` mirrors triton.Config (kwargs,
num_warps=4, num_stages=3, num_ctas=1, maxnreg; all_kwargs() adds the
non-None ones). The kernel is Triton's tutorial matmul (03-matrix-
multiplication: a_ptr, b_ptr, c_ptr, M, N, K, strides, BLOCK_SIZE_M/N/K,
GROUP_SIZE_M, ACTIVATION) with its autotune list, and triton.ops.matmul's
names (A, B, BLOCK_M, GROUP_M, SPLIT_K).

Before this adapter, each case here raised inside the hook (ValueError: no
dtype, configuration without BLOCK_M, PascalUnavailable after 1.5 s of
retries, a 404) or returned inf for every configuration, so Triton's sort
kept list order; each assertion below fails on that adapter."""
import math
import os
import socket
import sys
import threading
import unittest
import warnings

from harness import SOURCE, DaemonTest
from nginx import free_port

sys.path.insert(0, os.path.join(SOURCE, "clients", "python"))
from pascal_client import Client  # noqa: E402
from pascal_client.triton import (CANNOT_RUN_KEY, MatmulNames, MatmulRanker,  # noqa: E402
                                  PascalTunerWarning, estimate_s, NOMINAL_PEAKS)


class Config:
    """triton.Config's shape and all_kwargs() (Triton 3.x)."""

    def __init__(self, kwargs, num_warps=4, num_stages=3, num_ctas=1, maxnreg=None):
        self.kwargs, self.num_warps, self.num_stages = kwargs, num_warps, num_stages
        self.num_ctas, self.maxnreg = num_ctas, maxnreg

    def all_kwargs(self):
        extra = (("num_warps", self.num_warps), ("num_ctas", self.num_ctas),
                 ("num_stages", self.num_stages), ("maxnreg", self.maxnreg))
        return dict(self.kwargs, **{k: v for k, v in extra if v is not None})


def prune_configs(configs, nargs, kwargs, prune_configs_by):
    """Triton 3.x's Autotuner.prune_configs (see the module's docstring)."""
    pruned = configs
    early = prune_configs_by.get("early_config_prune")
    perf = prune_configs_by.get("perf_model")
    top_k = prune_configs_by.get("top_k", 1.0)
    if early:
        pruned = early(configs, nargs, **kwargs)
        if not pruned:
            raise AssertionError("early_config_prune returned no configuration")
    if perf:
        if isinstance(top_k, float) and top_k <= 1.0:
            top_k = max(1, int(len(pruned) * top_k))
        if len(pruned) > top_k:
            est = {c: perf(**nargs, **kwargs, **c.all_kwargs()) for c in pruned}
            pruned = sorted(est.keys(), key=lambda c: est[c])[:top_k]
    return pruned


def tutorial_configs():
    """The tutorial's CUDA autotune list (tile, stages, warps), GROUP_SIZE_M = 8."""
    rows = [(128, 256, 64, 3, 8), (64, 256, 32, 4, 4), (128, 128, 32, 4, 4), (128, 64, 32, 4, 4),
            (64, 128, 32, 4, 4), (128, 32, 32, 4, 4), (64, 32, 32, 5, 2), (32, 64, 32, 5, 2),
            (128, 256, 128, 3, 8), (256, 128, 128, 3, 8), (256, 64, 128, 4, 4),
            (64, 256, 128, 4, 4), (128, 128, 128, 4, 4), (128, 64, 64, 4, 4), (64, 128, 64, 4, 4),
            (128, 32, 64, 4, 4)]
    return [Config({"BLOCK_SIZE_M": m, "BLOCK_SIZE_N": n, "BLOCK_SIZE_K": k, "GROUP_SIZE_M": 8},
                   num_stages=s, num_warps=w) for m, n, k, s, w in rows]


class Dtype:
    def __init__(self, name):
        self.name = name

    def __str__(self):
        return "torch." + self.name


class Tensor:
    """What a hook sees of a torch tensor: dtype, element_size(), device."""

    def __init__(self, dtype, size=None):
        self.dtype, self._size = Dtype(dtype), size

    def element_size(self):
        return self._size


def tutorial_nargs(M, N, K, dtype="float16"):
    a, b, c = Tensor(dtype), Tensor(dtype), Tensor(dtype)
    return {"a_ptr": a, "b_ptr": b, "c_ptr": c, "M": M, "N": N, "K": K, "stride_am": K,
            "stride_ak": 1, "stride_bk": N, "stride_bn": 1, "stride_cm": N, "stride_cn": 1}


class CountingRefuser:
    """A port that accepts and closes every connection, counting them."""

    def __init__(self):
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.port = self.sock.getsockname()[1]
        self.count = 0
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self):
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.count += 1
            conn.close()

    def close(self):
        self.sock.close()


class HooksWithoutDaemon(unittest.TestCase):
    def ranker(self, url=None, **kw):
        return MatmulRanker(url or "http://127.0.0.1:%d" % free_port(), "sim-gb10", **kw)

    def test_daemon_down_keeps_configs_and_warns_once(self):
        r = self.ranker(top_k=4)
        cfgs = tutorial_configs()
        nargs = tutorial_nargs(4096, 4096, 4096)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            kept = r.early_config_prune(cfgs, nargs, ACTIVATION="")
            keys = [r.perf_model(**nargs, ACTIVATION="", **c.all_kwargs()) for c in cfgs]
        self.assertEqual(kept, cfgs)  # unchanged, in order
        self.assertTrue(all(math.isfinite(k) and k > 0 for k in keys), keys)
        mine = [x for x in w if issubclass(x.category, PascalTunerWarning)]
        self.assertEqual(len(mine), 1, [str(x.message) for x in w])
        self.assertIn("local roofline", str(mine[0].message))
        # the fallback ranks: each key is the local roofline of its tile on nominal peaks
        for c, k in zip(cfgs, keys):
            kw = c.kwargs
            block = (kw["BLOCK_SIZE_M"], kw["BLOCK_SIZE_N"], kw["BLOCK_SIZE_K"])
            self.assertEqual(k, estimate_s(4096, 4096, 4096, block, 2, NOMINAL_PEAKS))
        self.assertGreater(len(set(keys)), 3)

    def test_autotuner_prunes_through_a_down_daemon(self):
        """Triton's prune_configs with both hooks and top_k = 4 never raises and
        keeps the four smallest local rooflines."""
        r = self.ranker(top_k=4)
        cfgs = tutorial_configs()
        nargs = tutorial_nargs(1000, 4096, 4096)  # M off every tile
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            got = prune_configs(cfgs, nargs, {"ACTIVATION": ""},
                                {"early_config_prune": r.early_config_prune,
                                 "perf_model": r.perf_model, "top_k": 4})
            est = [r.perf_model(**nargs, ACTIVATION="", **c.all_kwargs()) for c in cfgs]
        want = sorted(cfgs, key=lambda c: est[cfgs.index(c)])[:4]
        self.assertEqual(got, want)
        self.assertNotEqual(got, cfgs[:4])  # not merely list order

    def test_down_daemon_is_asked_once_not_per_config(self):
        srv = CountingRefuser()
        try:
            r = MatmulRanker(Client("http://127.0.0.1:%d" % srv.port, retries=1, backoff=0.01),
                             "sim-gb10")
            cfgs = tutorial_configs()
            nargs = tutorial_nargs(2048, 2048, 2048)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                r.early_config_prune(cfgs, nargs)
                for c in cfgs:
                    r.perf_model(**nargs, **c.all_kwargs())
            # one batch, tried twice (retries=1); then the daemon counts as down
            self.assertEqual(srv.count, 2)
        finally:
            srv.close()

    def test_dtype_from_tensors_and_names(self):
        r = self.ranker()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            # tutorial: a_ptr; ops.matmul: A with BLOCK_M / GROUP_M / SPLIT_K
            k16 = r.perf_model(**tutorial_nargs(512, 512, 512, "bfloat16"),
                               **tutorial_configs()[2].all_kwargs())
            k32 = r.perf_model(**tutorial_nargs(512, 512, 512, "float32"),
                               **tutorial_configs()[2].all_kwargs())
            ops = Config({"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 32, "GROUP_M": 8,
                          "SPLIT_K": 1})
            kops = r.perf_model(A=Tensor("float16"), B=Tensor("float16"), C=Tensor("float16"),
                                M=512, N=512, K=512, **ops.all_kwargs())
            # a dtype the table does not know, sized by element_size()
            kodd = r.perf_model(**tutorial_nargs(512, 512, 512, "float8_e8m0fnu") | {
                "a_ptr": Tensor("float8_e8m0fnu", 1)}, **tutorial_configs()[2].all_kwargs())
        nominal = lambda eb: estimate_s(512, 512, 512, (128, 128, 32), eb, NOMINAL_PEAKS)
        self.assertEqual((k16, k32, kops, kodd), (nominal(2), nominal(4), nominal(2), nominal(1)))
        self.assertNotEqual(k16, k32)

    def test_unreadable_arguments_answer_zero_and_keep_order(self):
        r = self.ranker()
        cfgs = tutorial_configs()[:3]
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            # no M/N/K under the configured names: nothing can be assessed
            r2 = MatmulRanker("http://127.0.0.1:1", "x", names=MatmulNames(m=("rows",)))
            kept = r2.early_config_prune(cfgs, tutorial_nargs(64, 64, 64))
            keys = [r2.perf_model(**tutorial_nargs(64, 64, 64), **c.all_kwargs()) for c in cfgs]
            # a configuration without block sizes
            k = r.perf_model(**tutorial_nargs(64, 64, 64), num_warps=4, num_stages=3)
        self.assertEqual((kept, keys, k), (cfgs, [0.0, 0.0, 0.0], 0.0))
        self.assertTrue(any("rows" in str(x.message) for x in w))

    def test_local_shared_memory_rule(self):
        """With smem_bytes given, Triton's rule marks what cannot run; it keeps
        the largest finite key and never collapses the others."""
        r = self.ranker(smem_bytes=100 * 1024)
        big = Config({"BLOCK_SIZE_M": 256, "BLOCK_SIZE_N": 128, "BLOCK_SIZE_K": 128,
                      "GROUP_SIZE_M": 8}, num_stages=3)  # 384 x 128 x 3 x 2 = 288 KiB
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            a = r.assess_many([big] + tutorial_configs()[2:4], 4096, 4096, 4096, "float16")
            k = r.perf_model(**tutorial_nargs(4096, 4096, 4096), **big.all_kwargs())
        self.assertEqual([x.status for x in a], ["cannot_run", "estimated", "estimated"])
        self.assertIn("shared memory: 294912 bytes > 102400", a[0].reason)
        self.assertEqual(k, CANNOT_RUN_KEY)
        self.assertTrue(all(math.isfinite(x.key) for x in a))

    def test_imports_without_triton_or_torch(self):
        import subprocess
        code = ("import sys; sys.modules['triton'] = None; sys.modules['torch'] = None; "
                "import pascal_client.triton as t; print(t.MatmulRanker.__name__)")
        p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           env=dict(os.environ, PYTHONPATH=os.path.join(SOURCE, "clients", "python")))
        self.assertEqual((p.returncode, p.stdout.strip()), (0, "MatmulRanker"), p.stderr)


class HooksWithAnUnknownDevice(DaemonTest):
    """A real pascald that knows no such device answers 404: the hooks warn
    once and keep Triton's order."""

    def test_unknown_device(self):
        r = MatmulRanker("http://127.0.0.1:%d" % self.d.port, "no-such-gpu", top_k=2)
        cfgs = tutorial_configs()
        nargs = tutorial_nargs(2048, 2048, 2048)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            kept = r.early_config_prune(cfgs, nargs)
            keys = [r.perf_model(**nargs, **c.all_kwargs()) for c in cfgs]
        self.assertEqual(kept, cfgs)
        self.assertTrue(all(math.isfinite(k) for k in keys))
        mine = [str(x.message) for x in w if issubclass(x.category, PascalTunerWarning)]
        self.assertEqual(len(mine), 1, mine)
        self.assertIn("no-such-gpu", mine[0])


if __name__ == "__main__":
    unittest.main()
