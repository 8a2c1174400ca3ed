"""attention.py - rank attention kernel configurations by PASCAL's attention
predictions (docs/attention.md, docs/autotuning.md), failing open.

A configuration in the names of Triton's fused-attention tutorial (BLOCK_M:
query rows per CTA, BLOCK_N: K/V rows per step, num_stages, with the
problem's Z x H heads, N_CTX and HEAD_DIM; causal when STAGE is 3) becomes
one PASCAL attention query (seq_q = seq_kv = N_CTX, heads = Z H, kv_heads,
head_dim, block_q, block_kv, stages, elem_bytes, causal) to the device's
frozen attention calibration. The key is the prediction's `time_s` when the
daemon answers one, else its fill bytes.

What the model does not describe is ranked by the fallback, never mapped
onto a neighbouring calibration, and never an exception: a configuration
the calibration refuses (another tile, a depth it did not measure, causal
masking, grouped-query or multi-head K/V: Triton's tutorial gives every head
its own K/V, so pass kv_heads=1 only for a kernel that shares one K/V head),
a malformed one, or any answer at all when the daemon cannot be reached.
The fallback key is the aligned K = 1 traffic (the static reference B0 of
docs/attention.md: query tiles once, one pass over K/V per wave of resident
CTAs, one CTA per SM, sm_count from the device when the daemon was ever
reached, else 1), `key_name` "aligned_fill_bytes": a rank every
configuration gets, covered ones first.

AttentionRanker(client, device, kv_heads=None, top_k=None) gives
  perf_model(**kwargs)     -> the key (Triton's perf_model);
  early_config_prune(configs, named_args, **kwargs) -> covered configurations
                              best first (at most top_k), then the others by
                              the fallback key;
  rank(configs, **problem) / assess_many(...) -> Assessments.
Triton is never imported: a configuration is anything with `kwargs`,
`num_warps` and `num_stages` attributes, as triton.Config has.
"""
import math
from dataclasses import dataclass
from typing import Any, Optional

from .results import Prediction
from .triton import _ELEM_BYTES, _KwargsConfig, dtype_name


@dataclass
class AttentionAssessment:
    """One configuration's verdict: covered with PASCAL's key, or the
    fallback key with the reason."""
    config: Any
    query: dict
    covered: bool
    reason: str = ""
    prediction: Optional[Prediction] = None
    key: float = math.inf
    key_name: str = ""


def _num(v, name):
    n = int(v)
    if n < 1 or n != v:
        raise ValueError("%s must be a positive integer, got %r" % (name, v))
    return n


class AttentionRanker:
    """Attention configurations -> PASCAL attention predictions of `device`."""

    def __init__(self, client, device, kv_heads=None, top_k=None):
        self.client = client
        self.device = device
        self.kv_heads = kv_heads  # None: one per head (Triton's tutorial)
        self.top_k = top_k
        self._sm_count = None

    # --- the query ----------------------------------------------------------
    def query(self, config, Z=1, H=1, N_CTX=None, HEAD_DIM=None, dtype=None, causal=None,
              N_CTX_KV=None, **args):
        """The attention query of one configuration (ValueError when it is
        malformed: a missing name, a non-positive size, an unknown dtype).
        The dtype is `dtype`, else the tensor argument q's (Q's), else FP16."""
        kw = dict(getattr(config, "kwargs", None) or {})
        if N_CTX is None or HEAD_DIM is None:
            raise ValueError("N_CTX and HEAD_DIM are needed")
        if dtype is None:
            dtype = getattr(args.get("q", args.get("Q")), "dtype", "float16")
        elem = _ELEM_BYTES.get(dtype_name(dtype))
        if elem is None:
            raise ValueError("dtype %s: element size unknown to the adapter" % dtype_name(dtype))
        heads = _num(Z, "Z") * _num(H, "H")
        if causal is None:
            causal = int(kw.get("STAGE", 1)) == 3
        return {"seq_q": _num(N_CTX, "N_CTX"), "seq_kv": _num(N_CTX_KV or N_CTX, "N_CTX_KV"),
                "heads": heads,
                "kv_heads": heads if self.kv_heads is None else _num(self.kv_heads, "kv_heads"),
                "head_dim": _num(HEAD_DIM, "HEAD_DIM"),
                "block_q": _num(kw["BLOCK_M"], "BLOCK_M"), "block_kv": _num(kw["BLOCK_N"], "BLOCK_N"),
                "stages": _num(getattr(config, "num_stages", None) or kw.get("num_stages"),
                               "num_stages"),
                "elem_bytes": elem, "causal": 1 if causal else 0}

    def fallback_key(self, q):
        """Aligned K = 1 fill bytes (B0): the query tiles once, one pass over
        a K/V head per wave of sm_count CTAs (one CTA per SM)."""
        sm = self._sm_count or 1
        ctas = -(-q["seq_q"] // q["block_q"]) * q["heads"]
        kv_pass = 2.0 * q["seq_kv"] * q["head_dim"] * q["elem_bytes"]
        q_bytes = float(q["seq_q"]) * q["heads"] * q["head_dim"] * q["elem_bytes"]
        return q_bytes + math.ceil(ctas / sm) * kv_pass

    def _learn_device(self):
        if self._sm_count is None:
            try:
                self._sm_count = self.client.device(self.device)[0].sm_count
            except Exception:  # the fallback works without it
                pass

    # --- assessment ---------------------------------------------------------
    def assess_many(self, configs, **problem):
        """Assessments in the given order; the covered ones fetched in one
        batch. Never raises."""
        out, asks = [], []
        for cfg in configs:
            try:
                q = self.query(cfg, **problem)
            except (ValueError, TypeError, KeyError) as e:
                why = "missing %s" % e.args[0] if isinstance(e, KeyError) else str(e)
                out.append(AttentionAssessment(cfg, {}, False, "malformed configuration: " + why))
                continue
            a = AttentionAssessment(cfg, q, False)
            out.append(a)
            asks.append(a)
        answers, down = [], ""
        if asks:
            self._learn_device()
            try:
                answers = self.client.predict_many([dict(a.query, device=self.device) for a in asks])
            except Exception as e:  # daemon down, protocol error: fail open
                answers = [None] * len(asks)
                down = "no answer from pascald (%s): ranked by the fallback" % e
        for a, r in zip(asks, answers):
            if r is None:
                a.reason = down
            elif not r.ok:
                a.reason = "refused by the model (%s): %s" % (r.field, r.message)
            else:
                a.covered, a.prediction = True, r
                a.key_name = "time_s" if r.time_s is not None else "fill_bytes"
                a.key = r.time_s if r.time_s is not None else r.fill_bytes
                continue
            a.key_name, a.key = "aligned_fill_bytes", self.fallback_key(a.query)
        return out

    def rank(self, configs, **problem):
        """Covered configurations by key, then the others by the fallback
        key, then the malformed ones (ties in the given order)."""
        a = self.assess_many(configs, **problem)
        return sorted((x for x in a if x.covered), key=lambda x: x.key) + \
            sorted((x for x in a if not x.covered), key=lambda x: x.key)

    # --- Triton's hooks -------------------------------------------------------
    def perf_model(self, **kwargs):
        """Triton perf_model: the key of one configuration (covered or the
        fallback; inf for a malformed one)."""
        cfg = _KwargsConfig(kwargs)
        return self.assess_many([cfg], **kwargs)[0].key

    def early_config_prune(self, configs, named_args, **kwargs):
        """Triton early_config_prune: covered configurations best first (at
        most top_k), then every other one by the fallback key."""
        ranked = self.rank(configs, **dict(named_args, **kwargs))
        n = sum(a.covered for a in ranked)  # the covered ones come first
        cut = n if self.top_k is None else min(n, self.top_k)
        return [a.config for i, a in enumerate(ranked) if i < cut or not a.covered]
