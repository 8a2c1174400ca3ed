"""test_predict_time.py - time_s, bound and time_source in predictions:
present exactly when the calibration's device carries measured peaks
(device.peaks of its bundle). Without kernel times in the runs the time is
the pipeline and wave model on the peaks (time_source "peaks"), worked out
here independently for the two kernels the calibrations measure (the
single-stage GEMM with one resident CTA per SM; the scan with max(d, 1)
stages and o CTAs per SM); with kernel times it is calibrated on them
(time_source "calibrated"), and runs timed by a law worked out here (scan:
fixed + W N cost, cost log-linear in m; GEMM: waves of two CTAs per SM and
a tail) give that law back for configurations never timed. In both answer
forms, in batches and by `pascal predict`; the Triton adapter then ranks by
time. Peaks registered with a device (checked field by field, filled in
when unknown, 409 when different) reach the bundle its calibration
freezes, and so the time."""
import json
import math
import os
import subprocess
import sys

from harness import DEVICE, PASCAL_CLI, SOURCE, DaemonTest, make_frozen_calibration

sys.path.insert(0, os.path.join(SOURCE, "clients", "python"))
from pascal_client import Client  # noqa: E402
from pascal_client.triton import MatmulRanker  # noqa: E402

CALS = os.path.join(SOURCE, "deploy", "calibrations")
PEAKS = {"dram_bytes_per_s": 273e9, "l2_bytes_per_s": 1.92e12, "tensor_flops": 6.5536e12,
         "sm_clock_hz": 1e9, "launch_s": 2e-6}


def timed_bundle(name, device, peaks=PEAKS, law=None):
    """A shipped bundle, made plain, on a new device that states the peaks
    (None: states none), its runs timed by law(run) seconds (None: no
    kernel times)."""
    with open(os.path.join(CALS, name), encoding="utf-8") as f:
        b = json.load(f)
    for k in ("model", "report", "content_hash"):
        del b[k]
    # the off-grid panel keeps the shipped device's kernel times, which the
    # law below does not give (and its trace-based baselines make the
    # import several times slower, under the sanitizers most)
    b.pop("offgrid", None)
    b["device"]["name"] = device
    b["device"].pop("peaks", None)
    if peaks:
        b["device"]["peaks"] = peaks
    for part in ("measurements", "heldout"):
        for r in b.get(part, []):
            r.pop("kernel_ns", None)
            if law:
                r["kernel_ns"] = 1e9 * law(r)
    return b


def scan_law(r):
    """fixed + W N cost, cost log-linear in m (so the graph rule transfers it
    exactly) and independent of N."""
    cost = 1e-6 * math.exp(0.02 * r["m"]) * (1.5 if r["path"] == "sync" else 1 + 0.1 * r["d"])
    return 30e-6 + r["W"] * r["N"] * cost


GEMM_LAW = {"fixed": 25e-6, "L": 20e-6, "s": 11e-6}  # two CTAs per SM: 22 us > 20 us


def gemm_law(r, sm=48, fill=0.0):
    """The law's time, with the fills as a DRAM roofline on each wave's
    iterations (time, bound) when `fill` is given; the bound is the peak
    within 90 % of the first wave's iteration time, else latency."""
    tiles, nk = (r["Mg"] // 128) * (r["Ng"] // 128), r["Kg"] // 64
    full, tail = divmod(tiles, 2 * sm)
    f = fill / (tiles * nk)  # fill bytes per CTA-iteration

    def wave(c, ctas):
        return max(GEMM_LAW["L"], c * GEMM_LAW["s"], ctas * f / PEAKS["dram_bytes_per_s"])
    c_tail = -(-tail // sm)
    T = GEMM_LAW["fixed"] + nk * (full * wave(2, 2 * sm) + (wave(c_tail, tail) if tail else 0.0))
    c1, ctas1 = (2, 2 * sm) if full else (c_tail, tail)
    peaks = {"dram": ctas1 * f / PEAKS["dram_bytes_per_s"],
             "l2": ctas1 * 64 * 256 * 2 / PEAKS["l2_bytes_per_s"],
             "compute": c1 * 2.0 * 128 * 128 * 64 / (PEAKS["tensor_flops"] / sm)}
    name = max(peaks, key=peaks.get)
    bound = name if peaks[name] >= 0.9 * wave(c1, ctas1) else "latency"
    return (T, bound) if fill else T


def gemm_time(Mg, Ng, Kg, fill, sm=48, tm=128, tn=128, tk=64, eb=2):
    """One stage, one CTA per SM: each iteration loads, then computes."""
    tiles, n = (Mg // tm) * (Ng // tn), Kg // tk
    P = PEAKS

    def sm_latency(active):
        dram = fill / (tiles * n) / P["dram_bytes_per_s"] * active
        l2 = tk * (tm + tn) * eb / P["l2_bytes_per_s"] * active
        comp = 2.0 * tm * tn * tk / P["tensor_flops"] * sm
        store = max(tm * tn * eb / P["dram_bytes_per_s"], tm * tn * eb / P["l2_bytes_per_s"]) * active
        return n * (max(dram, l2) + comp) + store, dram, l2, comp

    full, tail = divmod(tiles, sm)
    wave, dram, l2, comp = sm_latency(sm)
    total = full * wave + (sm_latency(tail)[0] if tail else 0.0)
    bound = "compute" if comp > max(dram, l2) else ("dram" if dram >= l2 else "l2")
    return P["launch_s"] + total, bound


def scan_time(o, d, m, N, W, fill, sm=48, block=16384):
    """W x sm x o CTAs of N iterations (one block, m wmma each), max(d, 1) stages."""
    P = PEAKS
    tiles, S, T = W * sm * o, max(d, 1), o
    dram = fill / (tiles * N) / P["dram_bytes_per_s"] * sm
    l2 = block / P["l2_bytes_per_s"] * sm
    mem, comp = max(dram, l2), m * 8192.0 / P["tensor_flops"] * sm
    assert tiles % (sm * T) == 0 and T == 1 and S >= 2  # the cases used below
    depth = S - 1
    prologue = depth * mem
    wave = prologue + max(N - depth, 0) * max(mem, comp) + depth * comp
    head = 1 + 0.1 * prologue / wave
    return P["launch_s"] + wave * head + (tiles // sm - 1) * wave


class PredictTime(DaemonTest):
    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        for name, dev, peaks, law in (("sim-gb10-tiled-gemm.json", "timed-gemm", PEAKS, None),
                                      ("sim-gb10-scan.json", "timed-scan", PEAKS, None),
                                      ("sim-gb10-tiled-gemm.json", "untimed-gemm", None, gemm_law),
                                      ("sim-gb10-tiled-gemm.json", "law-gemm", PEAKS, gemm_law),
                                      ("sim-gb10-scan.json", "law-scan", PEAKS, scan_law)):
            r = cls.d.request("POST", "/v1/calibrations/import", timed_bundle(name, dev, peaks, law),
                              token=cls.admin)
            assert r.status == 201, r.raw

    def predict(self, body):
        r = self.req("POST", "/v1/predict", body)
        self.assertStatus(r, 200)
        return r.json

    def test_no_peaks_no_time(self):
        """Kernel times without peaks: no bound can be named, no time."""
        p = self.predict({"device": "untimed-gemm", "Mg": 2048, "Ng": 1024, "Kg": 4096})
        self.assertNotIn("time_s", p)
        self.assertNotIn("bound", p)
        self.assertNotIn("time_source", p)

    def test_calibrated_gemm_time(self):
        """Shapes never timed (and timed ones) get the law's time; a 4-CTA
        grid is 4 SMs at one CTA each."""
        for Mg, Ng, Kg in ((256, 256, 1024), (640, 896, 1280), (1280, 1280, 2560), (5120, 896, 5120),
                           (8192, 4096, 8192)):
            for explain in (True, False):
                p = self.predict({"device": "law-gemm", "Mg": Mg, "Ng": Ng, "Kg": Kg, "explain": explain})
                want, bound = gemm_law({"Mg": Mg, "Ng": Ng, "Kg": Kg}, fill=p["fill_bytes"])
                self.assertTrue(math.isclose(p["time_s"], want, rel_tol=1e-9), (Mg, Ng, Kg, p["time_s"], want))
                self.assertEqual(p["time_source"], "calibrated")
                # 2 MFLOP at 6.55 TFLOP/s over 48 SMs: 15.4 us, under 90 % of
                # 20 us alone (latency), over it for two CTAs in 22 us (compute)
                self.assertEqual(p["bound"], bound, (Mg, Ng, Kg))
                self.assertEqual(bound, "latency" if Mg * Ng <= 48 * 128 * 128 else "compute")
        self.assertTrue(math.isclose(self.predict({"device": "law-gemm", "Mg": 256, "Ng": 256, "Kg": 1024})["time_s"],
                                     25e-6 + 16 * 20e-6, rel_tol=1e-9))

    def test_calibrated_scan_time(self):
        """Keys, sizes and horizons never timed get the law's time by K's rules."""
        # the families sim-gb10 calibrates: o = 2 up to d = 3, o = 1 from d = 4
        for o, path, d, m, N, W in ((2, "sync", 0, 7, 4096, 16), (1, "tma", 4, 10, 6144, 8),
                                    (2, "tma", 2, 3, 3500, 1), (1, "tma", 5, 11, 5000, 80)):
            q = {"device": "law-scan", "o": o, "path": path, "d": d, "m": m, "N": N, "W": W}
            p = self.predict(q)
            want = scan_law(q)
            self.assertTrue(math.isclose(p["time_s"], want, rel_tol=1e-9), (q, p["time_s"], want))
            self.assertEqual(p["time_source"], "calibrated")
            self.assertIn(p["bound"], ("dram", "l2", "compute", "latency"))

    def test_peaks_travel_in_the_export(self):
        r = self.req("GET", "/v1/devices/timed-gemm")
        cid = r.json["calibrations"][0]["id"]
        r = self.req("GET", "/v1/calibrations/%d/export" % cid)
        self.assertStatus(r, 200)
        self.assertEqual(r.json["device"]["peaks"], PEAKS)
        r = self.req("POST", "/v1/calibrations/import", r.json, token=self.admin)
        self.assertStatus(r, 200)  # the same content, peaks included: the same calibration
        self.assertEqual(r.json["id"], cid)

    def test_gemm_time(self):
        for Mg, Ng, Kg in ((2048, 1024, 4096), (256, 256, 1024), (8192, 4096, 8192), (1536, 768, 3072)):
            for explain in (True, False):
                p = self.predict({"device": "timed-gemm", "Mg": Mg, "Ng": Ng, "Kg": Kg, "explain": explain})
                want, bound = gemm_time(Mg, Ng, Kg, p["fill_bytes"])
                self.assertTrue(math.isclose(p["time_s"], want, rel_tol=1e-12), (Mg, Ng, Kg, p["time_s"], want))
                self.assertEqual(p["bound"], bound)
                self.assertEqual(p["time_source"], "peaks")

    def test_scan_time(self):
        for o, d, m, N, W in ((1, 2, 6, 4096, 16), (1, 3, 0, 2048, 4), (1, 4, 10, 6144, 64)):
            q = {"device": "timed-scan", "o": o, "path": "tma", "d": d, "m": m, "N": N, "W": W}
            p = self.predict(q)
            want = scan_time(o, d, m, N, W, p["fill_bytes"])
            self.assertTrue(math.isclose(p["time_s"], want, rel_tol=1e-12), (q, p["time_s"], want))
            self.assertIn(p["bound"], ("dram", "l2", "compute", "latency"))
        # a fractional horizon has no whole number of CTAs: no time
        p = self.predict({"device": "timed-scan", "o": 1, "path": "tma", "d": 2, "m": 6, "N": 4096, "W": 2.5})
        self.assertNotIn("time_s", p)

    def test_registered_peaks_reach_the_bundle_and_the_time(self):
        dev = dict(DEVICE, name="timed-dev", peaks=PEAKS)
        cid = make_frozen_calibration(self, device=dev)  # registers dev, runs and freezes the plan
        r = self.req("GET", "/v1/devices/timed-dev")
        self.assertEqual(r.json["peaks"], PEAKS)
        r = self.req("GET", "/v1/calibrations/%d/export" % cid)
        self.assertEqual(r.json["device"]["peaks"], PEAKS)
        q = {"device": "timed-dev", "o": 1, "path": "tma", "d": 2, "m": 4, "N": 1024, "W": 4}
        p = self.predict(q)
        want = scan_time(1, 2, 4, 1024, 4, p["fill_bytes"], sm=DEVICE["sm_count"])
        self.assertTrue(math.isclose(p["time_s"], want, rel_tol=1e-12), (p["time_s"], want))
        self.assertIsNone(self.req("GET", "/v1/devices/untimed-gemm").json["peaks"])

    def test_registration_checks_peaks(self):
        base = dict(DEVICE, name="peaks-dev")
        r = self.req("POST", "/v1/devices", base, token=self.admin)
        self.assertStatus(r, 201)
        r = self.req("POST", "/v1/devices", dict(base, peaks=PEAKS), token=self.admin)
        self.assertStatus(r, 200)  # unknown peaks are filled in
        self.assertEqual(r.json["peaks"], PEAKS)
        r = self.req("POST", "/v1/devices", dict(base, peaks=dict(PEAKS, tensor_flops=1e12)), token=self.admin)
        self.assertStatus(r, 409, "conflict")
        self.assertEqual(r.json["error"]["field"], "peaks")
        for peaks, code, field in ((dict(PEAKS, launch_s=-1), "out_of_range", "peaks.launch_s"),
                                   (dict(PEAKS, dram_bytes_per_s=0), "out_of_range", "peaks.dram_bytes_per_s"),
                                   ({k: v for k, v in PEAKS.items() if k != "sm_clock_hz"}, "missing_field",
                                    "peaks.sm_clock_hz"),
                                   (dict(PEAKS, smem_bytes_per_s=1e12), "unknown_field", "peaks.smem_bytes_per_s"),
                                   ([1, 2], "invalid_type", "peaks")):
            r = self.req("POST", "/v1/devices", dict(base, name="peaks-bad", peaks=peaks), token=self.admin)
            self.assertStatus(r, 400, code)
            self.assertEqual(r.json["error"]["field"], field)
        self.assertStatus(self.req("GET", "/v1/devices/peaks-bad"), 404)

    def test_cli_agrees(self):
        """`pascal predict` on the exported bundle answers the same time_s and bound."""
        cases = {"timed-gemm": [["--Mg", "2048", "--Ng", "1024", "--Kg", "4096"]],
                 "law-gemm": [["--Mg", "640", "--Ng", "896", "--Kg", "1280"]],
                 "law-scan": [["--o", "2", "--path", "sync", "--m", "7", "--N", "4096", "--W", "16"]],
                 "timed-scan": [["--o", "1", "--path", "tma", "--d", "3", "--m", "5", "--N", "4096", "--W", "16"],
                                ["--o", "1", "--path", "tma", "--d", "3", "--m", "5", "--N", "4096", "--W", "2.5"]]}
        for dev, argsets in cases.items():
            cid = self.req("GET", "/v1/devices/" + dev).json["calibrations"][0]["id"]
            path = os.path.join(self.tmp.name, dev + ".json")
            with open(path, "w", encoding="utf-8") as f:
                f.write(self.req("GET", "/v1/calibrations/%d/export" % cid).raw.decode())
            for args in argsets:
                p = subprocess.run([PASCAL_CLI, "predict", "--bundle", path, "--json"] + args,
                                   capture_output=True, text=True)
                self.assertEqual(p.returncode, 0, p.stderr)
                cli = json.loads(p.stdout)
                q = {"device": dev}
                if "--path" in args and "--d" not in args:
                    q["d"] = 0
                for k, v in zip(args[::2], args[1::2]):
                    q[k[2:]] = v if k == "--path" else (float(v) if k == "--W" else int(v))
                daemon = self.predict(q)
                self.assertEqual(cli.get("time_s"), daemon.get("time_s"), args)
                self.assertEqual(cli.get("bound"), daemon.get("bound"), args)
                self.assertEqual(cli.get("time_source"), daemon.get("time_source"), args)
                self.assertEqual("time_s" in cli, q.get("W") != 2.5)

    def test_more_fills_more_time_in_a_batch(self):
        qs = [{"device": "timed-gemm", "Mg": 2048, "Ng": 2048, "Kg": k} for k in (1024, 2048, 4096, 8192)]
        with Client("http://127.0.0.1:%d" % self.d.port) as c:
            got = c.predict_many(qs)
            self.assertTrue(all(g.time_s is not None and g.bound for g in got))
            times = [g.time_s for g in got]
            self.assertEqual(times, sorted(times))
            for g, q in zip(got, qs):
                self.assertEqual(g.time_s, self.predict(q)["time_s"])

    def test_adapter_ranks_by_time(self):
        class Config:
            kwargs = {"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64}
            num_warps, num_stages = 4, 3

        with Client("http://127.0.0.1:%d" % self.d.port) as c:
            a = MatmulRanker(c, "timed-gemm").assess(Config(), 2048, 1024, 4096, "float16")
        self.assertTrue(a.covered, a.reason)
        self.assertEqual(a.key_name, "time_s")
        # the configuration's own answer: its num_stages (3) is not the calibration's (1)
        self.assertEqual(a.key, self.predict({"device": "timed-gemm", "Mg": 2048, "Ng": 1024,
                                              "Kg": 4096, "tile_m": 128, "tile_n": 128,
                                              "tile_k": 64, "elem_bytes": 2, "stages": 3,
                                              "group_m": 1})["time_s"])


if __name__ == "__main__":
    import unittest
    unittest.main()
