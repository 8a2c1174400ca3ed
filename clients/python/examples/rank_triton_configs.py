#!/usr/bin/env python3
"""rank_triton_configs.py - rank the autotune list of Triton's tutorial
matmul (16 configurations) for one problem by PASCAL's predicted time, the
way the adapter's early_config_prune does, and print what cannot run and why.

    python3 clients/python/examples/rank_triton_configs.py \
        --url http://127.0.0.1:8080 --device sim-gb10 --M 4096 --N 4096 --K 4096 --dtype float16

Triton is not needed: the configurations are plain objects shaped like
triton.Config (kwargs, num_warps, num_stages).
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from pascal_client import Client  # noqa: E402
from pascal_client.triton import MatmulRanker  # noqa: E402

# the tutorial's CUDA list: BLOCK_SIZE_M, _N, _K, num_stages, num_warps (GROUP_SIZE_M = 8)
TUTORIAL = [(128, 256, 64, 3, 8), (64, 256, 32, 4, 4), (128, 128, 32, 4, 4), (128, 64, 32, 4, 4),
            (64, 128, 32, 4, 4), (128, 32, 32, 4, 4), (64, 32, 32, 5, 2), (32, 64, 32, 5, 2),
            (128, 256, 128, 3, 8), (256, 128, 128, 3, 8), (256, 64, 128, 4, 4),
            (64, 256, 128, 4, 4), (128, 128, 128, 4, 4), (128, 64, 64, 4, 4), (64, 128, 64, 4, 4),
            (128, 32, 64, 4, 4)]


class Config:
    def __init__(self, kwargs, num_warps, num_stages):
        self.kwargs, self.num_warps, self.num_stages = kwargs, num_warps, num_stages


def configs():
    return [Config({"BLOCK_SIZE_M": m, "BLOCK_SIZE_N": n, "BLOCK_SIZE_K": k, "GROUP_SIZE_M": 8},
                   w, s) for m, n, k, s, w in TUTORIAL]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--url", default="http://127.0.0.1:8080")
    ap.add_argument("--token")
    ap.add_argument("--device", default="sim-gb10")
    ap.add_argument("--M", type=int, default=4096)
    ap.add_argument("--N", type=int, default=4096)
    ap.add_argument("--K", type=int, default=4096)
    ap.add_argument("--dtype", default="float16")
    a = ap.parse_args()
    with Client(a.url, token=a.token) as c:
        ranked = MatmulRanker(c, a.device).rank(configs(), a.M, a.N, a.K, a.dtype)
    print("M=%d N=%d K=%d %s on %s" % (a.M, a.N, a.K, a.dtype, a.device))
    print("%4s  %-12s %5s %6s  %-10s %14s %8s  %s" % ("rank", "BLOCK_MxNxK", "warps", "stages", "key",
                                                       "value", "err%", "note"))
    for i, r in enumerate(ranked, 1):
        tile = "%dx%dx%d" % r.block
        if r.status == "cannot_run":
            print("%4s  %-12s %5s %6s  %-10s %14s %8s  %s" % ("-", tile, r.num_warps, r.num_stages,
                                                              "-", "-", "-", r.reason))
            continue
        p = r.prediction
        err = "-" if p is None or p.expected_error_pct is None else "%.1f" % p.expected_error_pct
        if r.status == "answered":
            cfg = p.raw.get("config", {})
            note = "transferred: %s" % (",".join(r.transferred) or "none (measured)")
            note += "; %s CTAs/SM" % cfg.get("ctas_per_sm", "?")
        else:
            note = "estimated: " + r.reason
        print("%4d  %-12s %5s %6s  %-10s %14.6g %8s  %s" % (i, tile, r.num_warps, r.num_stages,
                                                            r.key_name, r.key, err, note))
    return 0


if __name__ == "__main__":
    sys.exit(main())
