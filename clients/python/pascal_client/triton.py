"""triton.py - rank Triton matmul configurations by PASCAL's predicted time,
through hooks that never break the autotuner (docs/autotuning.md).

A configuration (BLOCK_M x BLOCK_N x BLOCK_K, GROUP_SIZE_M, num_stages,
num_warps) of a matmul (M, N, K, the operands' dtype) becomes one PASCAL GEMM
query: Mg, Ng, Kg (M, N, K rounded up to whole tiles, as the kernel's masked
grid runs them), tile_m, tile_n, tile_k, elem_bytes, stages and group_m. The
daemon answers it from the device's GEMM calibration, measured or
transferred to the configuration (its `config` member says which); the key
is the answer's `time_s`, or its fill bytes on a device without peaks.

What can go wrong never reaches the tuner:
- a configuration the device cannot run (the daemon's 422 naming one of
  its fields: shared memory, registers) is pruned by early_config_prune, as Triton's
  own early_config_prune prunes by shared memory, and gets the largest
  finite key from perf_model;
- a configuration the daemon does not answer (SPLIT_K > 1, an element size
  the adapter does not know, any other refusal) gets a finite, flagged
  estimate: the local roofline below, scaled by the median ratio of the
  daemon's keys to the same roofline over the configurations it answered;
- the daemon down, a device it does not know, an answer it cannot read:
  one warning, then early_config_prune returns the configurations unchanged
  and perf_model returns the local roofline (a finite ranking), and the
  daemon is not asked again for `retry_s` seconds.

The local roofline (`estimate_s`): max(FLOPs of the padded problem / F,
bytes the CTAs read / L2 rate, cold input bytes / DRAM rate) with the
device's peaks when the adapter has read them, else NOMINAL_PEAKS.

Names are configurable (`MatmulNames`): the defaults read both Triton's
tutorial kernel (a_ptr, BLOCK_SIZE_M, GROUP_SIZE_M) and triton.ops.matmul
(A, BLOCK_M, GROUP_M, SPLIT_K). Triton is never imported: a configuration is
anything with `kwargs`, `num_warps` and `num_stages`, as triton.Config has;
a tensor is anything with a `dtype` (and `element_size()`, `device`).
"""
import math
import statistics
import time
import warnings
from dataclasses import dataclass
from typing import Any, Optional, Tuple

from .client import Client
from .errors import PascalError, PascalHTTPError
from .results import Prediction

# element size in bytes of the dtypes a Triton matmul takes (torch and Triton spellings)
_ELEM_BYTES = {
    "float16": 2, "fp16": 2, "half": 2, "bfloat16": 2, "bf16": 2,
    "float32": 4, "fp32": 4, "float": 4, "tf32": 4,
    "float8_e4m3fn": 1, "float8_e5m2": 1, "float8_e4m3fnuz": 1, "float8_e5m2fnuz": 1,
    "fp8e4nv": 1, "fp8e5": 1, "fp8": 1, "int8": 1, "uint8": 1,
}

# The query's configuration fields: a 422 naming one is "cannot run".
_CONFIG_FIELDS = ("tile_m", "tile_n", "tile_k", "elem_bytes", "stages", "group_m")

# Peaks of the local roofline when the device's are unknown: an H100 SXM's
# published dense FP16 tensor rate and HBM3 bandwidth, and an L2 rate of
# twice the DRAM's. Only the ratios matter to a ranking.
NOMINAL_PEAKS = {"tensor_flops": 989e12, "dram_bytes_per_s": 3.35e12, "l2_bytes_per_s": 6.7e12}

# perf_model's key for a configuration the device cannot run: finite, so
# that a list of them keeps its order under Triton's sort, and above any time.
CANNOT_RUN_KEY = 1e30


class PascalTunerWarning(UserWarning):
    """The adapter fell back (the daemon down, a device unknown, ...)."""


def dtype_name(dtype):
    """'torch.float16', triton's fp16 or a plain string -> 'float16' / 'fp16'."""
    return str(dtype).rsplit(".", 1)[-1].strip().lower()


@dataclass(frozen=True)
class MatmulNames:
    """Where the adapter finds each quantity: the first name present wins."""
    block_m: Tuple[str, ...] = ("BLOCK_SIZE_M", "BLOCK_M")
    block_n: Tuple[str, ...] = ("BLOCK_SIZE_N", "BLOCK_N")
    block_k: Tuple[str, ...] = ("BLOCK_SIZE_K", "BLOCK_K")
    group_m: Tuple[str, ...] = ("GROUP_SIZE_M", "GROUP_M")
    split_k: Tuple[str, ...] = ("SPLIT_K",)
    m: Tuple[str, ...] = ("M",)
    n: Tuple[str, ...] = ("N",)
    k: Tuple[str, ...] = ("K",)
    operands: Tuple[str, ...] = ("a_ptr", "a", "A", "b_ptr", "b", "B", "x", "X")


def _first(d, names):
    for n in names:
        if d.get(n) is not None:
            return d[n]
    return None


@dataclass
class Assessment:
    """One configuration's verdict. status: 'answered' (the daemon's key),
    'estimated' (the local roofline, finite, with the reason) or
    'cannot_run' (the device cannot run it, with the reason)."""
    config: Any
    block: Tuple[int, int, int]
    group_m: int
    num_warps: Optional[int]
    num_stages: int
    elem_bytes: Optional[int]
    status: str = "estimated"
    reason: str = ""
    prediction: Optional[Prediction] = None
    key: float = math.nan
    key_name: str = "estimate_s"
    estimate_s: float = math.nan
    padded: bool = False

    @property
    def covered(self):
        return self.status == "answered"

    @property
    def transferred(self):
        """What the daemon transferred to this configuration ([] when it was measured)."""
        cfg = (self.prediction.raw or {}).get("config", {}) if self.prediction else {}
        return list(cfg.get("transferred", []))


class _ServiceDown(Exception):
    """The daemon cannot answer at all (down, unknown device, unreadable)."""


class MatmulRanker:
    """Triton matmul configurations -> PASCAL GEMM predictions of `device`.

    client: a pascal_client.Client or a URL (then a client that does not
    retry: a tuner must not wait). device: the PASCAL device name; None maps
    the operand tensor's CUDA device name through GET /v1/devices?cuda_name.
    top_k: early_config_prune keeps at most this many. smem_bytes: the
    device's shared memory per block, for pruning by Triton's rule when the
    daemon is down (None: no local pruning)."""

    def __init__(self, client, device=None, top_k=None, names=None, smem_bytes=None,
                 retry_s=30.0, timeout=2.0):
        self.client = Client(client, retries=0, timeout=timeout) if isinstance(client, str) else client
        self.device = device
        self.top_k = top_k
        self.names = names or MatmulNames()
        self.smem_bytes = smem_bytes
        self.retry_s = retry_s
        self.peaks = None
        self._answers = {}   # query tuple -> Prediction or PredictionError
        self._down_until = 0.0
        self._warned = set()
        self._devices = {}   # CUDA name -> PASCAL device
        self._scale = {}     # (M, N, K, elem_bytes) -> (estimate's scale, key name)

    # --- warnings and the daemon's state ----------------------------------------
    def _warn(self, kind, message):
        if kind not in self._warned:
            self._warned.add(kind)
            warnings.warn("pascal_client.triton: " + message, PascalTunerWarning, stacklevel=3)

    def _service_failed(self, why):
        self._down_until = time.monotonic() + self.retry_s
        self._warn("service", "%s; ranking by the local roofline for %g s" % (why, self.retry_s))

    # --- reading a configuration and a problem -----------------------------------
    def _fields(self, config):
        kw = dict(getattr(config, "kwargs", None) or {})
        nm = self.names
        block = tuple(_first(kw, names) for names in (nm.block_m, nm.block_n, nm.block_k))
        if any(b is None for b in block):
            raise ValueError("configuration without block sizes %s"
                             % "/".join(n[0] for n in (nm.block_m, nm.block_n, nm.block_k)))
        group = _first(kw, nm.group_m)
        split = _first(kw, nm.split_k)
        stages = getattr(config, "num_stages", None)
        return (tuple(int(b) for b in block), int(group or 1), int(split or 1),
                getattr(config, "num_warps", None), int(stages or 1))

    def _problem(self, args):
        nm = self.names
        mnk = tuple(_first(args, names) for names in (nm.m, nm.n, nm.k))
        if any(v is None for v in mnk):
            raise ValueError("arguments without %s" % "/".join(n[0] for n in (nm.m, nm.n, nm.k)))
        tensor = _first(args, nm.operands)
        dtype = args.get("dtype")
        if dtype is None and tensor is not None:
            dtype = getattr(tensor, "dtype", None)
        elem = _ELEM_BYTES.get(dtype_name(dtype)) if dtype is not None else None
        if elem is None and tensor is not None and callable(getattr(tensor, "element_size", None)):
            elem = int(tensor.element_size())
        return tuple(int(v) for v in mnk), elem, dtype, tensor

    def _resolve_device(self, tensor):
        """The PASCAL device: the given one, else the tensor's CUDA name mapped by the daemon."""
        if self.device is not None:
            return self.device
        name = cuda_device_name(tensor)
        if name is None:
            raise _ServiceDown("no device given and no CUDA device found for the operands")
        if name not in self._devices:
            devs = self.client.devices(cuda_name=name)
            if not devs:
                raise _ServiceDown("no PASCAL device for the CUDA device '%s'" % name)
            self._devices[name] = devs[0].name
        return self._devices[name]

    def _read_peaks(self, device):
        if self.peaks is None:
            dev, _ = self.client.device(device)
            self.peaks = (dev.raw or {}).get("peaks") or {}

    # --- assessing -----------------------------------------------------------------
    def assess_many(self, configs, M, N, K, dtype=None, elem_bytes=None, tensor=None):
        """Assessments of configurations for one problem, in the given order;
        the daemon's answers they need are fetched in one batch. Never raises
        for a failure of the daemon (see the module's docstring)."""
        if elem_bytes is None and dtype is not None:
            elem_bytes = _ELEM_BYTES.get(dtype_name(dtype))
        out = []
        for cfg in configs:
            block, group, split, warps, stages = self._fields(cfg)
            a = Assessment(cfg, block, group, warps, stages, elem_bytes)
            a.padded = any(size % b for size, b in zip((M, N, K), block))
            if elem_bytes is None:
                a.reason = "dtype %s: element size unknown to the adapter" % (
                    dtype_name(dtype) if dtype is not None else "absent")
            elif split != 1:
                a.reason = "SPLIT_K=%d: PASCAL's GEMM model has one CTA per output tile" % split
            elif self.smem_bytes is not None and _smem(block, stages, elem_bytes) > self.smem_bytes:
                a.status = "cannot_run"
                a.reason = "shared memory: %d bytes > %d" % (_smem(block, stages, elem_bytes),
                                                             self.smem_bytes)
            else:
                a.status = "ask"
            out.append(a)
        asked = [a for a in out if a.status == "ask"]
        if asked and time.monotonic() >= self._down_until:
            try:
                device = self._resolve_device(tensor)
                self._ask(device, asked, M, N, K)
            except _ServiceDown as e:
                self._service_failed(str(e))
            except (PascalError, OSError, ValueError, KeyError, TypeError) as e:
                self._service_failed("the daemon did not answer (%s)" % e)
        for a in out:
            if a.status == "ask":
                a.status = "estimated"
                a.reason = a.reason or "the daemon did not answer"
        self._estimate(out, M, N, K)
        return out

    def _query(self, device, a, M, N, K):
        bm, bn, bk = a.block
        return {"device": device, "Mg": _round_up(M, bm), "Ng": _round_up(N, bn),
                "Kg": _round_up(K, bk), "tile_m": bm, "tile_n": bn, "tile_k": bk,
                "elem_bytes": a.elem_bytes, "stages": a.num_stages, "group_m": a.group_m}

    def _ask(self, device, asked, M, N, K):
        queries = [self._query(device, a, M, N, K) for a in asked]
        keys = [tuple(sorted(q.items())) for q in queries]
        wanted = sorted({k for k in keys if k not in self._answers})
        if wanted:
            try:
                got = self.client.predict_many([dict(k) for k in wanted])
            except PascalHTTPError as e:
                raise _ServiceDown("the daemon refused the batch: %s" % e) from None
            self._answers.update(zip(wanted, got))
        if self.peaks is None:
            try:
                self._read_peaks(device)
            except PascalError:
                self.peaks = {}
        refused = 0
        for a, k in zip(asked, keys):
            r = self._answers[k]
            if r.ok:
                a.status, a.prediction = "answered", r
                a.key_name = "time_s" if r.time_s is not None else "fill_bytes"
                a.key = r.time_s if r.time_s is not None else r.fill_bytes
            elif r.status == 422 and (r.field or "").rsplit(".", 1)[-1] in _CONFIG_FIELDS:
                a.status, a.reason = "cannot_run", r.message
            elif r.status == 404:
                raise _ServiceDown("device '%s': %s" % (device, r.message))
            else:
                a.status, a.reason = "estimated", "refused by the daemon: %s" % r.message
                refused += 1
        if refused:
            self._warn("refused", "the daemon refused %d configuration(s); they are ranked by "
                       "the local roofline" % refused)

    def _estimate(self, out, M, N, K):
        """Every assessment's local roofline; finite keys for the estimated
        ones, scaled onto the answered ones' key when there are some."""
        peaks = dict(NOMINAL_PEAKS, **{k: v for k, v in (self.peaks or {}).items()
                                      if k in NOMINAL_PEAKS and v})
        for a in out:
            a.estimate_s = estimate_s(M, N, K, a.block, a.elem_bytes or 2, peaks)
        answered = [a for a in out if a.status == "answered"]
        names = {a.key_name for a in answered}
        # one key for every answered configuration: time when all have it
        if len(names) > 1:
            for a in answered:
                a.key_name, a.key = "fill_bytes", a.prediction.fill_bytes
        # perf_model asks for one configuration at a time: the scale of the
        # problem's last answers holds for an estimate asked alone
        problem = (M, N, K, out[0].elem_bytes) if out else None
        if answered:
            self._scale[problem] = (statistics.median(a.key / a.estimate_s for a in answered),
                                    answered[0].key_name)
        scale, name = self._scale.get(problem, (1.0, "estimate_s"))
        for a in out:
            if a.status == "estimated":
                a.key, a.key_name = a.estimate_s * scale, name
            elif a.status == "cannot_run":
                a.key = CANNOT_RUN_KEY

    def assess(self, config, M, N, K, dtype=None, **kw):
        return self.assess_many([config], M, N, K, dtype, **kw)[0]

    def rank(self, configs, M, N, K, dtype=None, **kw):
        """Assessments best first (ties in the given order); the ones the
        device cannot run last."""
        return sorted(self.assess_many(configs, M, N, K, dtype, **kw), key=lambda a: a.key)

    # --- Triton's hooks --------------------------------------------------------------
    def perf_model(self, **kwargs):
        """Triton's perf_model, called as Triton 3.x calls it: the kernel's
        arguments, the launch's keywords and one configuration's
        all_kwargs() (its meta-parameters, num_warps, num_stages, ...).
        Always a finite float."""
        try:
            (M, N, K), elem, dtype, tensor = self._problem(kwargs)
            a = self.assess_many([_KwargsConfig(kwargs)], M, N, K, dtype, elem, tensor)[0]
            return float(a.key) if math.isfinite(a.key) else CANNOT_RUN_KEY
        except Exception as e:  # a hook must not abort the user's launch
            self._warn("perf_model", "perf_model could not assess a configuration (%s); it "
                       "answers 0.0, which keeps Triton's order" % e)
            return 0.0

    def early_config_prune(self, configs, named_args, **kwargs):
        """Triton's early_config_prune: the configurations the device can run,
        best first (at most top_k); the configurations unchanged (with one
        warning) when the daemon cannot rank them. Never empty."""
        configs = list(configs)
        try:
            (M, N, K), elem, dtype, tensor = self._problem(dict(named_args, **kwargs))
            ranked = self.rank(configs, M, N, K, dtype, elem_bytes=elem, tensor=tensor)
            if not any(a.status == "answered" for a in ranked):
                return configs  # nothing the daemon ranked: Triton's own order
            kept = [a.config for a in ranked if a.status != "cannot_run"]
            if not kept:
                self._warn("nothing_fits", "no configuration fits the device; all are kept")
                return configs
            return kept[:self.top_k] if self.top_k is not None else kept
        except Exception as e:  # a hook must not abort the user's launch
            self._warn("prune", "early_config_prune kept the configurations unchanged (%s)" % e)
            return configs


class _KwargsConfig:
    """A configuration seen through perf_model's flat keyword arguments."""

    def __init__(self, kw):
        self.kwargs = kw
        self.num_warps = kw.get("num_warps")
        self.num_stages = kw.get("num_stages")


def _round_up(v, b):
    return max(1, -(-v // b)) * b


def _smem(block, stages, elem_bytes):
    """Triton's shared-memory rule for a matmul: (BLOCK_M + BLOCK_N) x
    BLOCK_K x num_stages x element size (as triton.ops.matmul_perf_model's
    early_config_prune computes it)."""
    return (block[0] + block[1]) * block[2] * stages * elem_bytes


def estimate_s(M, N, K, block, elem_bytes, peaks):
    """The local roofline of one configuration (the module's docstring)."""
    bm, bn, bk = block
    mp, np_, kp = _round_up(M, bm), _round_up(N, bn), _round_up(K, bk)
    flops = 2.0 * mp * np_ * kp
    l2 = (mp // bm) * (np_ // bn) * kp * (bm + bn) * elem_bytes
    dram = (mp + np_) * kp * elem_bytes
    return max(flops / peaks["tensor_flops"], l2 / peaks["l2_bytes_per_s"],
               dram / peaks["dram_bytes_per_s"])


def cuda_device_name(tensor):
    """The CUDA device name of a tensor's device through torch (None without
    torch, a CUDA device or a tensor)."""
    dev = getattr(tensor, "device", None)
    if dev is None or getattr(dev, "type", None) != "cuda":
        return None
    try:
        import torch
        return torch.cuda.get_device_name(dev.index if dev.index is not None else 0)
    except Exception:
        return None
