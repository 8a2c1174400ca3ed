#!/usr/bin/python3
"""test_gemm_configs.py - configuration runs through real processes (plan
kind gemm-configs, docs/autotuning.md "Configurations"): a tiny GEMM
calibration is measured and frozen, then extended (POST /v1/calibrations
with "base") by a plan of three configurations on two shapes; the sim agent
runs each job as `pascal sim gemm` runs that configuration, the SQLite file
keeps each job's configuration, and the freeze puts exactly these runs into
the bundle's "configurations" while its measurements stay the base's.

Independent expectations: every stored configuration run equals, to the
byte and the nanosecond, what the offline `pascal sim gemm` prints for the
same profile, shape, configuration and seed (the repeat); the base
calibration is unchanged. Refusals name the field: a base that is not
frozen, none at all for a plan of configurations, a configuration that
does not fit the device's 100 KiB of shared memory per SM, a configuration
member out of range. Verified to fail: with
the sim backend ignoring run.config (the calibration's own tiling) the
first configuration's fill and time differ from `pascal sim gemm`'s."""
import json
import os
import subprocess

from e2e import World, check, finish, parse_args

SHAPES = [{"Mg": 256, "Ng": 256, "Kg": 512}, {"Mg": 512, "Ng": 256, "Kg": 256}]
CONFIGS = [{"tile_m": 64, "tile_n": 64, "tile_k": 32, "elem_bytes": 2, "stages": 2, "group_m": 1},
           {"tile_m": 128, "tile_n": 64, "tile_k": 64, "elem_bytes": 2, "stages": 3, "group_m": 8},
           {"tile_m": 32, "tile_n": 64, "tile_k": 32, "elem_bytes": 1, "stages": 4, "group_m": 8}]
KEYS = ("tile_m", "tile_n", "tile_k", "elem_bytes", "stages", "group_m")


def plan(configs, shapes=SHAPES):
    p = {"format": "pascal-plan/1", "workload": "gemm", "shapes": shapes, "repeats": 1}
    if configs is not None:
        p["configurations"] = configs
    return p


def offline(pascal, profile, shape, c):
    out = subprocess.run([pascal, "sim", "gemm", "--profile", profile, "--Mg", str(shape["Mg"]),
                          "--Ng", str(shape["Ng"]), "--Kg", str(shape["Kg"]),
                          "--tile", "%dx%dx%d" % (c["tile_m"], c["tile_n"], c["tile_k"]),
                          "--elem-bytes", str(c["elem_bytes"]), "--stages", str(c["stages"]),
                          "--group-m", str(c["group_m"]), "--seed", "0", "--json"],
                         capture_output=True, text=True, timeout=60)
    check(out.returncode == 0, "pascal sim gemm runs: " + out.stderr[-300:])
    doc = json.loads(out.stdout or "{}")
    return doc.get("fill_bytes"), doc.get("kernel_ns")


def main():
    args = parse_args()
    pascal = os.path.join(os.path.dirname(args.pascald), "pascal")
    with World(args) as w:
        w.register_tiny("tiny", compute_capability="12.1")
        base, total = w.create_calibration("tiny", plan(None))
        # a base that is not frozen yet is refused, naming "base"
        st, body = w.api("POST", "/v1/calibrations",
                         {"device": "tiny", "plan": plan(CONFIGS), "base": base}, w.admin)
        check(st == 409 and body.get("error", {}).get("field") == "base",
              "a collecting base is refused: %s %s" % (st, body))
        ag = w.agent("agent-base", "tiny", "--until-idle")
        check(ag.wait() == 0, "the base GEMM plan is measured: " + ag.text()[-400:])
        st, frozen = w.api("POST", "/v1/calibrations/%d/freeze" % base, None, w.admin)
        check(st == 200, "the base freezes: %s %s" % (st, str(frozen)[:300]))
        st, base_bundle = w.api("GET", "/v1/calibrations/%d/export" % base, None, w.admin)
        check(st == 200 and "configurations" not in base_bundle, "the base has no configurations")

        # refusals of the extension, each naming its field
        too_big = dict(CONFIGS[0], tile_m=256, tile_n=256, tile_k=64, stages=4)
        st, body = w.api("POST", "/v1/calibrations", {"device": "tiny", "plan": plan([too_big]),
                                                      "base": base}, w.admin)
        check(st == 400 and body.get("error", {}).get("field") == "plan.configurations",
              "a configuration that does not fit 100 KiB is refused: %s %s" % (st, body))
        st, body = w.api("POST", "/v1/calibrations",
                         {"device": "tiny", "plan": plan([dict(CONFIGS[0], stages=0)]),
                          "base": base}, w.admin)
        check(st == 400 and body.get("error", {}).get("field") == "plan.configurations[0].stages",
              "stages 0 is refused naming it: %s %s" % (st, body))
        st, body = w.api("POST", "/v1/calibrations", {"device": "tiny", "plan": plan(CONFIGS)},
                         w.admin)
        check(st == 400 and body.get("error", {}).get("field") == "base",
              "configuration runs alone are refused, naming base: %s %s" % (st, body))
        st, body = w.api("POST", "/v1/calibrations",
                         {"device": "tiny", "plan": plan(CONFIGS), "base": "1"}, w.admin)
        check(st == 400 and body.get("error", {}).get("field") == "base",
              "a base that is not an id is refused: %s %s" % (st, body))

        st, body = w.api("POST", "/v1/calibrations",
                         {"device": "tiny", "plan": plan(CONFIGS), "base": base}, w.admin)
        check(st == 201 and body.get("progress", {}).get("total") == len(SHAPES) * len(CONFIGS),
              "the extension queues shapes x configurations jobs: %s %s" % (st, body))
        ext = body.get("id")
        rows = w.sql("SELECT count(*) FROM measurements WHERE calibration = ? AND job IS NULL",
                     (ext,))
        check(rows[0][0] == total, "the base's %d measurements are copied: %r" % (total, rows))
        ag = w.agent("agent-configs", "tiny", "--until-idle")
        check(ag.wait() == 0, "the configuration runs are measured: " + ag.text()[-400:])
        check(ag.count("tile 128x64x64 elem 2 stages 3 group_m 8") == len(SHAPES) * 2,
              "the agent names each configuration it runs (claimed, done)")
        stored = w.sql("SELECT Mg, Ng, Kg, %s, fill_bytes, kernel_ns FROM measurements"
                       " WHERE calibration = ? AND tile_m > 0" % ", ".join(KEYS), (ext,))
        check(len(stored) == len(SHAPES) * len(CONFIGS), "one stored run per job: %d" % len(stored))
        for r in stored:
            shape = {"Mg": r[0], "Ng": r[1], "Kg": r[2]}
            c = dict(zip(KEYS, r[3:9]))
            want = offline(pascal, w.profile, shape, c)
            check(c in CONFIGS and (r[9], r[10]) == want,
                  "%r %r: stored (%r, %r) == pascal sim gemm %r" % (shape, c, r[9], r[10], want))

        st, frozen = w.api("POST", "/v1/calibrations/%d/freeze" % ext, None, w.admin)
        check(st == 200, "the extension freezes: %s %s" % (st, str(frozen)[:300]))
        st, bundle = w.api("GET", "/v1/calibrations/%d/export" % ext, None, w.admin)
        got = sorted((c["Mg"], c["Ng"], c["Kg"]) + tuple(c[k] for k in KEYS)
                     + (c["fill_bytes"], c["kernel_ns"]) for c in bundle.get("configurations", []))
        want = sorted(tuple(r[0:3]) + tuple(r[3:9]) + (r[9], r[10]) for r in stored)
        check(st == 200 and got == want, "the bundle's configurations are the stored runs: %r" % got)
        check(bundle.get("measurements") == base_bundle.get("measurements"),
              "the extension's measurements are the base's")
        check(bundle.get("content_hash") != base_bundle.get("content_hash"),
              "the configurations are under the content hash")
        st, again = w.api("GET", "/v1/calibrations/%d/export" % base, None, w.admin)
        check(again == base_bundle, "the base calibration is unchanged")
    finish()


if __name__ == "__main__":
    main()
