"""triton.py - rank Triton matmul configurations by PASCAL's GEMM predictions.

A Triton matmul configuration (BLOCK_M, BLOCK_N, BLOCK_K, num_warps,
num_stages; problem M, N, K and the operands' dtype) becomes one PASCAL GEMM
query (Mg=M, Ng=N, Kg=K) to the frozen GEMM calibration of the device whose
tile is exactly BLOCK_M x BLOCK_N x BLOCK_K with the dtype's element size.
The ranking key is the prediction's `time_s` when the daemon answers one (a
device with measured peaks), otherwise the predicted DRAM -> L2 fill bytes
of the whole kernel (`key_name` says which). A configuration no calibration
covers (another tile, another element size, a dimension that is not a whole
number of tiles, SPLIT_K > 1, an unknown dtype) is reported as uncovered with
the reason and never mapped onto a neighbouring calibration.

MatmulRanker(client, device) gives:
  perf_model(**kwargs)   -> the key (inf when uncovered): Triton's perf_model;
  early_config_prune(configs, named_args, **kwargs) -> covered configurations
                            ranked (best first, at most top_k), then the
                            uncovered ones, which PASCAL cannot judge;
  assess(config, M, N, K, dtype) / rank(configs, M, N, K, dtype) -> Assessments.
Triton is never imported: a configuration is anything with `kwargs`,
`num_warps` and `num_stages` attributes, as triton.Config has.
"""
import math
from dataclasses import dataclass
from typing import Any, Optional, Tuple

from .results import Prediction

# element size in bytes of the dtypes a Triton matmul takes (torch and Triton spellings)
_ELEM_BYTES = {
    "float16": 2, "fp16": 2, "half": 2, "bfloat16": 2, "bf16": 2,
    "float32": 4, "fp32": 4, "float": 4, "tf32": 4,
    "float8_e4m3fn": 1, "float8_e5m2": 1, "fp8e4nv": 1, "fp8e5": 1, "fp8": 1, "int8": 1,
}


def dtype_name(dtype):
    """'torch.float16', triton's fp16 or a plain string -> 'float16' / 'fp16'."""
    return str(dtype).rsplit(".", 1)[-1].strip().lower()


@dataclass(frozen=True)
class Coverage:
    """What one frozen GEMM calibration of the device covers."""
    calibration: int
    tile: Tuple[int, int, int]
    elem_bytes: int
    shapes: Tuple[Tuple[int, int], Tuple[int, int], Tuple[int, int]]  # (min, max) of Mg, Ng, Kg measured


@dataclass
class Assessment:
    """One configuration's verdict: covered with a key, or uncovered with a reason."""
    config: Any
    block: Tuple[int, int, int]
    num_warps: Optional[int]
    num_stages: Optional[int]
    covered: bool
    reason: str = ""
    calibration: Optional[int] = None
    prediction: Optional[Prediction] = None
    key: float = math.inf
    key_name: str = ""

    @property
    def extrapolated(self):
        return self.prediction.extrapolated if self.prediction else []


def _config_fields(config):
    kw = dict(getattr(config, "kwargs", None) or {})
    try:
        block = tuple(int(kw[k]) for k in ("BLOCK_M", "BLOCK_N", "BLOCK_K"))
    except KeyError as e:
        raise ValueError("configuration without %s" % e.args[0]) from None
    return block, int(kw.get("SPLIT_K", 1)), getattr(config, "num_warps", None), \
        getattr(config, "num_stages", None)


class MatmulRanker:
    """Triton matmul configurations -> PASCAL GEMM predictions of `device`."""

    def __init__(self, client, device, top_k=None):
        self.client = client
        self.device = device
        self.top_k = top_k
        self._coverage = None
        self._answers = {}  # (calibration, M, N, K) -> Prediction or PredictionError

    def coverage(self):
        """The frozen GEMM calibrations of the device and their tiles (read once)."""
        if self._coverage is None:
            _, cals = self.client.device(self.device)
            cov = []
            for cal in cals:
                if cal["workload"] != "gemm" or cal["state"] != "frozen":
                    continue
                bundle = self.client.calibration_bundle(cal["id"])
                g = bundle["gemm"]
                ms = bundle["measurements"]
                rng = tuple((min(m[k] for m in ms), max(m[k] for m in ms)) for k in ("Mg", "Ng", "Kg"))
                cov.append(Coverage(cal["id"], (g["tile_m"], g["tile_n"], g["tile_k"]),
                                    g["elem_bytes"], rng))
            self._coverage = cov
        return self._coverage

    def _match(self, block, split_k, M, N, K, dtype):
        """(coverage, '') or (None, why not)."""
        name = dtype_name(dtype)
        elem = _ELEM_BYTES.get(name)
        if elem is None:
            return None, "dtype %s: element size unknown to the adapter" % name
        if split_k != 1:
            return None, "SPLIT_K=%d: PASCAL's GEMM model has one CTA per output tile" % split_k
        tiles = [c for c in self.coverage() if c.tile == block]
        if not tiles:
            have = sorted({"%dx%dx%d" % c.tile for c in self.coverage()}) or ["none"]
            return None, "tile %dx%dx%d not calibrated on %s (calibrated tiles: %s)" % (
                block + (self.device, ", ".join(have)))
        same = [c for c in tiles if c.elem_bytes == elem]
        if not same:
            return None, "dtype %s (%d-byte elements): tile %dx%dx%d is calibrated for %s-byte elements" % (
                (name, elem) + block + ("/".join(str(c.elem_bytes) for c in tiles),))
        for dim, size, b in (("M", M, block[0]), ("N", N, block[1]), ("K", K, block[2])):
            if size % b:
                return None, "%s=%d is not a whole number of %d-wide tiles" % (dim, size, b)
        return max(same, key=lambda c: c.calibration), ""

    def assess_many(self, configs, M, N, K, dtype):
        """Assessments of configurations for one problem, in the given order;
        the predictions they need are fetched in one batch."""
        out, wanted = [], []
        for cfg in configs:
            block, split_k, warps, stages = _config_fields(cfg)
            cov, why = self._match(block, split_k, M, N, K, dtype)
            a = Assessment(cfg, block, warps, stages, cov is not None, why,
                           cov.calibration if cov else None)
            out.append(a)
            if cov and (cov.calibration, M, N, K) not in self._answers:
                wanted.append((cov.calibration, M, N, K))
        wanted = sorted(set(wanted))
        if wanted:
            qs = [{"device": self.device, "calibration": c, "Mg": m, "Ng": n, "Kg": k}
                  for c, m, n, k in wanted]
            for w, r in zip(wanted, self.client.predict_many(qs)):
                self._answers[w] = r
        for a in out:
            if not a.covered:
                continue
            r = self._answers[(a.calibration, M, N, K)]
            if not r.ok:
                a.covered, a.reason = False, "refused by the model: %s" % r.message
                continue
            a.prediction = r
            a.key_name = "time_s" if r.time_s is not None else "fill_bytes"
            a.key = r.time_s if r.time_s is not None else r.fill_bytes
        return out

    def assess(self, config, M, N, K, dtype):
        return self.assess_many([config], M, N, K, dtype)[0]

    def rank(self, configs, M, N, K, dtype):
        """Covered configurations by key (ties in the given order), then uncovered."""
        a = self.assess_many(configs, M, N, K, dtype)
        covered = sorted((x for x in a if x.covered), key=lambda x: x.key)
        return covered + [x for x in a if not x.covered]

    # --- Triton's hooks -------------------------------------------------------
    def perf_model(self, **kwargs):
        """Triton perf_model: called with the kernel's arguments and one
        configuration's meta-parameters; returns the key, inf when uncovered."""
        cfg = _KwargsConfig(kwargs)
        return self.assess(cfg, kwargs["M"], kwargs["N"], kwargs["K"], _dtype_of(kwargs)).key

    def early_config_prune(self, configs, named_args, **kwargs):
        """Triton early_config_prune: the covered configurations best first
        (at most top_k), then every uncovered one for the tuner to measure."""
        args = dict(named_args, **kwargs)
        ranked = self.rank(configs, args["M"], args["N"], args["K"], _dtype_of(args))
        covered = [a.config for a in ranked if a.covered]
        if self.top_k is not None:
            covered = covered[:self.top_k]
        return covered + [a.config for a in ranked if not a.covered]


class _KwargsConfig:
    """A configuration seen through perf_model's flat keyword arguments."""

    def __init__(self, kw):
        self.kwargs = kw
        self.num_warps = kw.get("num_warps")
        self.num_stages = kw.get("num_stages")


def _dtype_of(args):
    """The operands' dtype: an explicit `dtype` argument, else the first
    tensor-like argument's dtype (a, A, b, B, ...)."""
    if args.get("dtype") is not None:
        return args["dtype"]
    for name in ("a", "A", "b", "B", "x", "X"):
        dt = getattr(args.get(name), "dtype", None)
        if dt is not None:
            return dt
    raise ValueError("no dtype: pass dtype= or a tensor argument a/A with a dtype")
