"""batch_bodies.py - the POST /v1/predict batch bodies the HTTP benchmarks
send (run.sh, instructions.sh): N varied scan queries on sim-gb10's
families (keys, sizes, some below its measured sizes, horizons), written as
DIR/batch-N.json.

usage: python3 batch_bodies.py DIR N [N ...]"""
import json
import sys

MS = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 14, 16]
FAMILIES = [(1, "tma", 4), (1, "tma", 6), (2, "tma", 2), (2, "sync", 0)]


def batch(n):
    qs = []
    for i in range(n):
        fam = FAMILIES[i % 4]
        qs.append({"device": "sim-gb10", "o": fam[0], "path": fam[1], "d": fam[2],
                   "m": MS[i % len(MS)], "N": 2048 + 37 * (i % 97), "W": 1 + (i % 64)})
    return {"queries": qs}


if __name__ == "__main__":
    for n in sys.argv[2:]:
        with open("%s/batch-%d.json" % (sys.argv[1], int(n)), "w") as f:
            json.dump(batch(int(n)), f, separators=(",", ":"))
