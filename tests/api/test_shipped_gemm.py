"""test_shipped_gemm.py - the GEMM calibrations pascald ships and imports at
first start (deploy/calibrations/*-tiled-gemm.json), checked against the
paper's GEMM plan and the sim profiles they were measured on, then served
over real HTTP.

Per bundle: source `sim` with its profile named; the device geometry and
`device.peaks` are the profile file's own values (parsed here); the
calibration runs are the paper's 120 shapes and the held-out panel its 60
test shapes, each once, with the tiling pascald fits (128 x 128 x 64 FP16,
one resident CTA per SM); every fill lies between the cold-input bytes B_0
and the logical demand Q of its shape. pascald serves each device's GEMM
calibration (frozen, its report with a held-out part of 60 runs over 20
grids) next to its scan calibration, answers a GEMM query with it and,
since the bundle carries peaks, a time. No shipped bundle is synthetic.

Issue 31 item 6: every configuration of Triton's tutorial matmul autotune
lists (the tiles below at 2 and 1 bytes, stages 2 to 5, GROUP_SIZE_M 1 and
8) is answered on both sim devices from the one calibrated configuration,
in one batch over real HTTP. Independently of the server, the test sizes
each configuration by the rule docs/autotuning.md states (Triton's
early_config_prune): a CTA holds stages (BM + BN) BK elem_bytes bytes of
shared memory plus the runtime's 1 KiB; CTAs per SM = min(what the
profile's smem_per_sm holds, what 128 KiB of accumulators hold at 4 BM BN
bytes each, 8). A configuration that fits gets 200 with a positive time, its
own configuration echoed, those CTAs per SM and the transferred items this
test expects; one that does not (sim-gb10: 20 of 68 tile x stage pairs;
sim-thor: 3) gets 422 naming stages, "does not fit". Without the re-shipped
device.smem_per_sm every configuration answers with the calibration's one
CTA per SM and none is refused (checked: the test fails)."""
import json
import os
import sys
import unittest

from harness import SOURCE, DaemonTest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "harness"))
from sim_profile import check_sim_bundle, profile_values  # noqa: E402

BUNDLES = os.path.join(SOURCE, "deploy", "calibrations")
DEVICES = {"sim-gb10": "sim-gb10-tiled-gemm.json", "sim-thor": "sim-thor-tiled-gemm.json"}
# The paper's GEMM shapes: calibration on powers of two, held-out off them.
CAL_SHAPES = {(m, n, k) for m in (256, 512, 1024, 2048, 4096, 8192)
              for n in (256, 512, 1024, 2048, 4096) for k in (1024, 2048, 4096, 8192)}
HELDOUT_SHAPES = {(m, n, k) for m in (640, 896, 1280, 2560, 5120)
                  for n in (640, 896, 1280, 2560) for k in (1280, 2560, 5120)}
PEAK_KEYS = ("dram_bytes_per_s", "l2_bytes_per_s", "tensor_flops", "sm_clock_hz", "launch_s")
PROFILES = {"sim-gb10": "gb10-like.profile", "sim-thor": "thor-like.profile"}
# Triton's tutorial matmul autotune lists (03-matrix-multiplication.py):
# (BLOCK_M, BLOCK_N, BLOCK_K) at 2 bytes (FP16), and at 1 byte (FP8).
TUTORIAL_TILES = {2: [(128, 256, 64), (64, 256, 32), (128, 128, 32), (128, 64, 32), (64, 128, 32),
                      (128, 32, 32), (64, 32, 32), (32, 64, 32), (128, 128, 64)],
                  1: [(128, 256, 128), (256, 128, 128), (256, 64, 128), (64, 256, 128),
                      (128, 128, 128), (128, 64, 64), (64, 128, 64), (128, 32, 64)]}


def load(name):
    with open(os.path.join(BUNDLES, name), encoding="utf-8") as f:
        return json.load(f)


def demand_bounds(mg, ng, kg):
    """(B_0, Q) in bytes for 128 x 128 x 64 FP16 tiles."""
    n_r, n_c, n_k = mg // 128, ng // 128, kg // 64
    tile = 128 * 64 * 2
    return (n_r + n_c) * n_k * tile, 2 * n_r * n_c * n_k * tile


class ShippedGemmBundles(unittest.TestCase):
    def test_bundles_follow_the_paper_plan_and_their_profile(self):
        for dev, name in DEVICES.items():
            b = load(name)
            prof = check_sim_bundle(self, b, "gemm", dev, name, SOURCE)
            self.assertEqual(b["device"]["peaks"],
                             {k: float(prof["peak_" + k]) for k in PEAK_KEYS}, name)
            self.assertEqual(b["device"]["smem_per_sm"], int(prof["smem_per_sm"]), name)
            self.assertEqual(b["gemm"], {"tile_m": 128, "tile_n": 128, "tile_k": 64,
                                         "elem_bytes": 2,
                                         "resident_ctas": int(prof["sm_count"])}, name)
            for runs, shapes in ((b["measurements"], CAL_SHAPES), (b["heldout"], HELDOUT_SHAPES)):
                got = [(r["Mg"], r["Ng"], r["Kg"]) for r in runs]
                self.assertEqual(len(got), len(shapes), name)
                self.assertEqual(set(got), shapes, name)
                for r, s in zip(runs, got):
                    b0, q = demand_bounds(*s)
                    self.assertTrue(b0 <= r["fill_bytes"] <= q, (name, s, r["fill_bytes"], b0, q))
                    self.assertGreater(r["kernel_ns"], 0, (name, s))

    def test_no_synthetic_bundle_is_shipped(self):
        for f in sorted(os.listdir(BUNDLES)):
            if f.endswith(".json"):
                self.assertNotEqual(load(f)["provenance"].get("source"), "synthetic", f)


def ctas_per_sm(smem, m, n, k, b, stages):
    """The docs' resource rule; 0: the configuration does not fit."""
    by_smem = smem // (stages * (m + n) * k * b + 1024)
    by_acc = (128 * 1024) // (4 * m * n)
    return min(by_smem, by_acc, 8)


class ServedGemm(DaemonTest):
    """One daemon with the sim devices' shipped bundles (each import
    recomputes a report: the GEMM ones cost seconds under the sanitizers)."""
    shipped = tuple("%s-%s.json" % (dev, w) for dev in DEVICES
                    for w in ("scan", "tiled-gemm", "tiled-attention"))

    def test_each_device_serves_its_gemm_calibration(self):
        for dev in DEVICES:
            r = self.req("GET", "/v1/devices/" + dev)
            self.assertStatus(r, 200)
            cals = {c["workload"]: c for c in r.json["calibrations"]}
            self.assertEqual(sorted(cals), ["attention", "gemm", "scan"], dev)
            gemm = cals["gemm"]
            self.assertEqual(gemm["state"], "frozen", dev)
            rep = self.req("GET", "/v1/calibrations/%d" % gemm["id"]).json["report"]
            self.assertEqual((rep["heldout"]["n_runs"], len(rep["heldout"]["keys"])), (60, 20), dev)
            p = self.req("POST", "/v1/predict", {"device": dev, "Mg": 2048, "Ng": 1024, "Kg": 4096})
            self.assertStatus(p, 200)
            self.assertEqual((p.json["workload"], p.json["calibration"]), ("gemm", gemm["id"]), dev)
            self.assertGreater(p.json["time_s"], 0, dev)

    def test_between_reduction_lengths_the_static_reference_carries(self):
        """sim-thor's 8192 x 4096 grid is aligned at Kg = 2048 and refetches
        20-fold at 4096; its off-grid run at Kg = 3072 measured no excess.
        The bundle's Kg folds chose the carry by V_s (model.between_static),
        which says the cache still holds the panels at 3072: the answer is
        the run's measured fills, B_0, and its explanation names the two
        levels read. At a calibrated Kg nothing is carried."""
        b = load(DEVICES["sim-thor"])
        self.assertEqual(b["model"]["between_static"]["rule"], "static-excess")
        measured = [r["fill_bytes"] for r in b["offgrid"]
                    if (r["Mg"], r["Ng"], r["Kg"]) == (8192, 4096, 3072)]
        self.assertEqual(len(measured), 2)
        self.assertEqual(measured[0], demand_bounds(8192, 4096, 3072)[0])
        p = self.req("GET", "/v1/predict?device=sim-thor&Mg=8192&Ng=4096&Kg=3072")
        self.assertStatus(p, 200)
        self.assertEqual(p.json["fill_bytes"], measured[0])
        carry = p.json["explanation"]["carry"]
        self.assertEqual(carry["reading"], "static-excess")
        self.assertEqual(carry["n_k"], [32, 64])  # Kg 2048 and 4096 in tiles of 64
        self.assertIsNone(carry["share"][0])      # V_s refetches nothing at 2048
        self.assertGreater(carry["share"][1], 0)
        self.assertEqual(carry["kappa_s"], 1.0)
        at_level = self.req("GET", "/v1/predict?device=sim-thor&Mg=8192&Ng=4096&Kg=4096")
        self.assertStatus(at_level, 200)
        self.assertIsNone(at_level.json["explanation"]["carry"])

    def test_where_the_static_reference_is_silent_the_lower_level_holds(self):
        """sim-thor's off-grid shapes with Ng = 3072 at Kg = 3072 lie
        between the 2048 and 4096 grids and between Kg = 2048 and 4096;
        they measured no excess, but the 4096 grids refetch at Kg = 4096,
        so the grids read between them carry an excess at that level while
        the shapes' own V_s refetches at neither. The bundle's folds chose
        the lower level's kappa there (model.between_silent): the answers
        are the runs' measured fills (a batch, one per shape) and their
        explanations say so."""
        b = load(DEVICES["sim-thor"])
        self.assertEqual(b["model"]["between_silent"]["rule"], "lower-level")
        shapes = [(384, 3072, 3072), (1536, 3072, 3072), (3072, 3072, 3072)]
        measured = {(r["Mg"], r["Ng"], r["Kg"]): r["fill_bytes"] for r in b["offgrid"]
                    if r["repeat"] == 0}
        r = self.req("POST", "/v1/predict", {"explain": True, "queries": [
            {"device": "sim-thor", "Mg": m, "Ng": n, "Kg": k} for (m, n, k) in shapes]})
        self.assertStatus(r, 200)
        for shape, a in zip(shapes, r.json["results"]):
            self.assertEqual(a["fill_bytes"], measured[shape], shape)
            self.assertEqual(a["explanation"]["carry"],
                             {"reading": "lower-level", "n_k": [32, 64], "share": [None, None],
                              "kappa_s": None}, shape)

    def test_every_tutorial_configuration_is_answered(self):
        shape = {"Mg": 2048, "Ng": 1024, "Kg": 4096}  # whole tiles of every listed tile
        for dev, prof_name in PROFILES.items():
            prof = profile_values(os.path.join(SOURCE, "deploy", "profiles", prof_name))
            smem = int(prof["smem_per_sm"])
            configs = [(m, n, k, b, s, g) for b, tiles in TUTORIAL_TILES.items()
                       for (m, n, k) in tiles for s in (2, 3, 4, 5) for g in (1, 8)]
            queries = [dict(shape, device=dev, tile_m=m, tile_n=n, tile_k=k, elem_bytes=b,
                            stages=s, group_m=g) for (m, n, k, b, s, g) in configs]
            r = self.req("POST", "/v1/predict", {"queries": queries})
            self.assertStatus(r, 200)
            self.assertEqual(r.json["count"], len(configs))
            refused = 0
            for i, ((m, n, k, b, s, g), a) in enumerate(zip(configs, r.json["results"])):
                where = (dev, m, n, k, b, s, g)
                c = ctas_per_sm(smem, m, n, k, b, s)
                if c == 0:
                    refused += 1
                    self.assertEqual(a["status"], 422, where)
                    self.assertEqual(a["error"]["field"], "queries[%d].stages" % i, where)
                    self.assertIn("does not fit", a["error"]["message"], where)
                    continue
                self.assertEqual(a["workload"], "gemm", where)
                self.assertTrue(0 < a["time_s"] < float("inf"), where)
                cfg = a["config"]
                self.assertEqual((cfg["tile_m"], cfg["tile_n"], cfg["tile_k"], cfg["elem_bytes"],
                                  cfg["stages"], cfg["group_m"]), (m, n, k, b, s, g), where)
                self.assertEqual((cfg["ctas_per_sm"], cfg["occupancy"], cfg["smem_per_sm"]),
                                 (c, "resources", smem), where)
                want = ([] if (m, n, k) == (128, 128, 64) else ["tile"]) + \
                    ([] if b == 2 else ["elem_bytes"]) + ["stages"] + \
                    ([] if g == 1 else ["group_m"])
                self.assertEqual(cfg["transferred"], want, where)
                self.assertTrue(a["interval"] is None or a["interval"]["transferred"], where)
            self.assertEqual(refused, {"sim-gb10": 40, "sim-thor": 6}[dev], dev)

    def test_intervals_stay_inside_what_a_run_can_measure(self):
        """Every interval of K lies within what a run can measure, also far
        off the grids: a scan's K between 1 / max(W, 1) (each block it
        touches filled once) and M = SMs x o (every worker missing every
        block); a GEMM's between K_0 = M (n_r + n_c) / (2 n_r n_c) (each
        operand tile filled once, M = one CTA per SM) and M (every tile read
        missing), computed here from the profile's SM count. Without the
        clip (pascal_interval_clip_k; checked) the first answer out of it
        was a scan at W = 0.5 with K_low 0.947, below the 1 every block it
        touches costs."""
        for dev, prof_name in PROFILES.items():
            sms = int(profile_values(os.path.join(SOURCE, "deploy", "profiles", prof_name))["sm_count"])
            scans = [dict(device=dev, o=o, path=path, d=d, m=m, N=N, W=W)
                     for o in (1, 2) for (path, d) in (("sync", 0), ("tma", 1), ("tma", 4), ("tma", 6))
                     for m in (0, 5, 14, 40) for N in (1500, 4096, 60000) for W in (0.5, 2, 48, 500)]
            gemms = [dict(device=dev, Mg=mg, Ng=ng, Kg=kg) for mg in (256, 1280, 8192, 32768)
                     for ng in (128, 4096, 16384) for kg in (64, 4096, 65536)]
            r = self.req("POST", "/v1/predict", {"queries": scans + gemms, "explain": False})
            self.assertStatus(r, 200)
            checked = 0
            for q, a in zip(scans + gemms, r.json["results"]):
                where = (q, a.get("error"))
                if "error" in a:  # a family the calibration did not measure
                    self.assertEqual((a["status"], a["error"]["code"]), (422, "refused"), where)
                    continue
                iv = a["interval"]
                if iv is None:
                    continue
                if "Mg" in q:
                    n_r, n_c = q["Mg"] // 128, q["Ng"] // 128
                    k_min, k_max = sms * (n_r + n_c) / (2 * n_r * n_c), sms
                else:
                    k_min, k_max = 1 / max(q["W"], 1), sms * q["o"]
                slack = 1e-9 * k_max
                self.assertTrue(k_min - slack <= iv["K_low"] <= a["K"] <= iv["K_high"] <= k_max + slack,
                                (where, k_min, iv["K_low"], a["K"], iv["K_high"], k_max))
                checked += 1
            self.assertGreater(checked, len(scans + gemms) // 2, dev)


if __name__ == "__main__":
    unittest.main()
