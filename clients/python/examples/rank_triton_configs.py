#!/usr/bin/env python3
"""rank_triton_configs.py - rank 20 Triton matmul configurations for one
problem shape by PASCAL's predictions, the way an autotuner's
early_config_prune would, and print why the others are not ranked.

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

TILES = [(128, 128, 64), (64, 128, 32), (128, 64, 32), (64, 64, 32), (128, 256, 64)]
WARPS_STAGES = [(4, 3), (4, 4), (8, 3), (8, 4)]


class Config:
    def __init__(self, kwargs, num_warps, num_stages):
        self.kwargs, self.num_warps, self.num_stages = kwargs, num_warps, num_stages


def configs():
    return [Config({"BLOCK_M": m, "BLOCK_N": n, "BLOCK_K": k, "SPLIT_K": 1}, w, s)
            for m, n, k in TILES for w, s in WARPS_STAGES]


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
        if r.covered:
            p = r.prediction
            err = "-" if p.expected_error_pct is None else "%.1f" % p.expected_error_pct
            note = "calibration %d" % r.calibration
            if p.extrapolated:
                note += "; extrapolated " + ",".join(e.coordinate for e in p.extrapolated)
            print("%4d  %-12s %5s %6s  %-10s %14.6g %8s  %s" % (i, tile, r.num_warps, r.num_stages,
                                                                r.key_name, r.key, err, note))
        else:
            print("%4s  %-12s %5s %6s  %-10s %14s %8s  uncovered: %s" % ("-", tile, r.num_warps,
                                                                         r.num_stages, "-", "-", "-",
                                                                         r.reason))
    return 0


if __name__ == "__main__":
    sys.exit(main())
