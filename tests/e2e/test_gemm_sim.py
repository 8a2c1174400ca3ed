#!/usr/bin/python3
"""test_gemm_sim.py - a GEMM calibration measured on the sim through real
processes: a tiny GEMM plan (2 x 2 x 3 shapes, 128 x 128 x 64 FP16 tiles) is
expanded by a real pascald, measured by `pascal-agent --backend sim` over
HTTP, stored in the SQLite file and frozen into a GEMM model. Each stored
fill volume lies between the cold-input bytes B_0 = 16384 (n_r + n_c) n_k
and the logical demand Q = 32768 n_r n_c n_k; shapes whose input tiles and FP32
output (4 blocks per output tile) all fit the tiny device's 64-block cache
fill exactly B_0. A second agent run of the same
plan on a fresh calibration gives the same volumes (the sim is seeded by the
repeat)."""
from e2e import World, check, finish, parse_args

SHAPES = [{"Mg": mg, "Ng": ng, "Kg": kg}
          for mg in (256, 512) for ng in (256, 512) for kg in (256, 512, 1024)]
CAPACITY_TILES = 64  # tiny.profile: 64 blocks of 16 KiB, one tile each


def bounds(shape):
    n_r, n_c, n_k = shape["Mg"] // 128, shape["Ng"] // 128, shape["Kg"] // 64
    return (16384 * (n_r + n_c) * n_k, 32768 * n_r * n_c * n_k, (n_r + n_c) * n_k + 4 * n_r * n_c)


def measure(w, name):
    plan = {"format": "pascal-plan/1", "workload": "gemm", "shapes": SHAPES, "repeats": 1}
    cal, total = w.create_calibration("tiny", plan)
    check(total == len(SHAPES), "the plan expands to one job per shape: %d" % total)
    ag = w.agent(name, "tiny", "--until-idle")
    check(ag.wait() == 0, "the sim agent measures the GEMM plan and exits 0: " + ag.text()[-600:])
    w.check_jobs_accounted(cal, total)
    rows = w.sql("SELECT Mg, Ng, Kg, fill_bytes, kernel_ns FROM measurements"
                 " WHERE calibration = ?", (cal,))
    return cal, {(r[0], r[1], r[2]): (r[3], r[4]) for r in rows}


def main():
    args = parse_args()
    with World(args) as w:
        w.register_tiny("tiny", compute_capability="12.1")
        cal, got = measure(w, "agent-a")
        check(len(got) == len(SHAPES), "one measurement per shape: %d" % len(got))
        for s in SHAPES:
            b0, q, tiles = bounds(s)
            v, t = got.get((s["Mg"], s["Ng"], s["Kg"]), (0, 0))
            check(b0 <= v <= q and t > 0, "%r: B_0 %d <= V %r <= Q %d" % (s, b0, v, q))
            if tiles <= CAPACITY_TILES:
                check(v == b0, "%r: all %d lines fit, V %r == B_0 %d" % (s, tiles, v, b0))
        check(any(v > bounds({"Mg": k[0], "Ng": k[1], "Kg": k[2]})[0] for k, (v, _) in got.items()),
              "some shape outgrows the cache and refills")
        st, frozen = w.api("POST", "/v1/calibrations/%d/freeze" % cal, None, w.admin)
        check(st == 200 and frozen.get("state") == "frozen" and frozen.get("workload") == "gemm",
              "the GEMM calibration freezes: %s %s" % (st, str(frozen)[:400]))
        st, bundle = w.api("GET", "/v1/calibrations/%d/export" % cal, None, w.admin)
        exported = {(m["Mg"], m["Ng"], m["Kg"]): m.get("kernel_ns") for m in bundle.get("measurements", [])}
        check(st == 200 and exported == {k: t for k, (_, t) in got.items()},
              "the export carries every run's stored kernel_ns: %s %r" % (st, exported))
        # the device is registered with arch "sim" and compute capability
        # 12.1 (tiny.profile keeps the built-in gb10-like one): the frozen
        # GEMM calibration states that capability's 100 KiB of shared memory
        # per SM, which sizes the configurations it answers (without the rule
        # in pascald's device_from_store the key is absent: checked)
        smem = bundle.get("device", {}).get("smem_per_sm")
        check(smem == 100 * 1024, "the GEMM bundle states the shared memory per SM: %r" % smem)
        _, again = measure(w, "agent-b")
        check(again == got, "the same plan measures the same volumes and times again")
    finish()


if __name__ == "__main__":
    main()
