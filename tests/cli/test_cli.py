#!/usr/bin/python3
"""Black-box tests of the `pascal` CLI (docs/cli.md).

Usage: test_cli.py PATH/TO/pascal

Expected values are computed here, independently of libpascal: the gap law
and the policy bound with exact fractions, steady-state LRU by brute-force
simulation of the phase trace, coherence and feedback formulas by hand.
Every bad-argument path must exit 2 with one line naming the argument.
"""
import json
import math
import os
import random
import subprocess
import sys
import tempfile
import unittest
from fractions import Fraction

PASCAL = None


def run(*args, expect=0):
    p = subprocess.run([PASCAL, *map(str, args)], capture_output=True, text=True, timeout=120)
    if p.returncode != expect:
        raise AssertionError(f"pascal {' '.join(map(str, args))}: exit {p.returncode}, "
                             f"wanted {expect}\nstdout: {p.stdout[:2000]}\nstderr: {p.stderr}")
    return p


def run_json(*args):
    return json.loads(run(*args, "--json").stdout)


# ---- independent static theory (paper section 3) -------------------------

def gaps_of(n, phases):
    ys = sorted(set(phases))
    return [(ys[(i + 1) % len(ys)] - ys[i]) % n or n for i in range(len(ys))]


def gap_law(n, c, phases):
    g = sorted(gaps_of(n, phases))
    d = len(g)
    prefix = 0
    for j in range(d):  # theta = (C - sum_{i<=j} g_(i)) / (D - j), g_(j) <= theta < g_(j+1)
        theta = Fraction(c - prefix, d - j)
        lo = g[j - 1] if j else 0
        if lo <= theta < g[j]:
            break
        prefix += g[j]
    t_star = theta.numerator // theta.denominator
    k = sum(1 for x in g if x > t_star)
    return theta, t_star, k


def policy_bound(n, c, phases):
    m = len(phases)
    taus = []
    for w in range(m):
        best = None
        for v in range(m):
            lag = (phases[v] - phases[w]) % n
            if lag == 0 and v >= w:
                lag = n
            t = lag + Fraction(w - v, m)
            best = t if best is None else min(best, t)
        taus.append(best)
    assert sum(taus) == n
    phi, room = Fraction(0), Fraction(c)
    for t in sorted(taus):
        take = min(Fraction(1), room / t)
        phi += take
        room -= take * t
        if room <= 0:
            break
    return m - phi, phi


def lru_steady(n, c, phases):
    """Misses per round of fully associative LRU, simulated from cold."""
    from collections import OrderedDict
    cache, misses = OrderedDict(), 0
    warm, count = 4 * n, 2 * n
    for k in range(warm + count):
        for s in phases:
            b = (k + s) % n
            if b in cache:
                cache.move_to_end(b)
            else:
                if k >= warm:
                    misses += 1
                cache[b] = True
                if len(cache) > c:
                    cache.popitem(last=False)
    return Fraction(misses, count)


class Static(unittest.TestCase):
    def test_paper_example(self):
        r = run_json("bounds", "--N", 8, "--C", 2, "--phases", "0,4")
        self.assertEqual(r["gaps"], [4, 4])
        self.assertEqual(r["D"], 2)
        # U(t) = 2 min(4, t) = 2 -> theta = 1; T* = 1; K = #{g > 1} = 2
        self.assertEqual((r["theta"]["num"], r["theta"]["den"]), (1, 1))
        self.assertEqual(r["theta"]["exact"], "1/1")
        self.assertEqual(r["T_star"], 1)
        self.assertEqual(r["K_ttl"], 2)
        self.assertEqual(r["rho_ttl"], 1.0)
        # tau = (4 - 1/2, 4 + 1/2); Phi(2) = 2 / 3.5 = 4/7; bound 2 - 4/7 = 10/7
        pb = r["policy_lower_bound"]
        self.assertEqual(pb["exact"], "10/7")
        self.assertEqual(pb["value"], 10 / 7)
        self.assertAlmostEqual(pb["phi"], 4 / 7, places=15)
        self.assertEqual((pb["whole"], pb["frac_num"], pb["frac_den"]), (1, 3, 7))
        self.assertEqual(r["lru"], {"lower": 2, "upper": 2, "certified": True, "exact": 2})
        self.assertEqual(r["che"], {"hit_rate": 0.25, "K": 1.5})  # hit C/N, K = M (1 - C/N)
        self.assertEqual(r["sdcm"]["K"], 2.0)  # SDCM-FA is exact LRU
        self.assertEqual((r["sdcm"]["ways"], r["sdcm"]["sets"]), (2, 1))
        self.assertEqual(r["tilesight"], {"K": 2.0})  # one set: the limit r < A, exact LRU too

    def test_human_output(self):
        out = run("bounds", "--N", 8, "--C", 2, "--phases", "0,4").stdout
        self.assertIn("K_ttl: 2\n", out)
        self.assertIn("exact: 10/7", out)
        self.assertNotIn("{", out)

    def test_gap_law_random(self):
        # Twelve random cases, five processes each: the CLI's answers and
        # their JSON against the independent arithmetic above, with the LRU
        # certificate holding in 8 and not in 4, one to six distinct phases.
        # The library's arithmetic itself is checked exhaustively (2254
        # cases and 500 seeded ones, core_test_exhaustive); 40 cases here
        # cost 15 s of process starts under the sanitizers.
        rng = random.Random(7)
        for _ in range(12):
            n = rng.randint(2, 40)
            c = rng.randint(1, n - 1)
            phases = [rng.randrange(n) for _ in range(rng.randint(1, 6))]
            r = run_json("bounds", "--N", n, "--C", c, "--phases", ",".join(map(str, phases)))
            theta, t_star, k = gap_law(n, c, phases)
            self.assertEqual(Fraction(r["theta"]["num"], r["theta"]["den"]), theta)
            self.assertEqual(r["T_star"], t_star)
            self.assertEqual(r["K_ttl"], k)
            self.assertEqual(r["gaps"], gaps_of(n, sorted(phases)))
            bound, phi = policy_bound(n, c, phases)
            pb = r["policy_lower_bound"]
            self.assertEqual(Fraction(pb["exact"]), bound)
            self.assertEqual(pb["whole"] + Fraction(pb["frac_num"], pb["frac_den"]), bound)
            exact = lru_steady(n, c, phases)
            self.assertEqual(Fraction(r["lru"]["exact"]), exact)
            if r["lru"]["certified"]:
                self.assertTrue(r["lru"]["lower"] <= exact <= r["lru"]["upper"])
            sim = run_json("simulate", "--policy", "lru", "--N", n, "--C", c,
                           "--phases", ",".join(map(str, phases)))
            self.assertEqual(Fraction(sim["misses"], sim["rounds"]), exact)
            ttl = run_json("simulate", "--policy", "ttl", "--N", n, "--C", c,
                           "--phases", ",".join(map(str, phases)))
            self.assertEqual(ttl["misses_per_round"], k)  # Theorem 1
            for policy in ("belady", "belady-bypass"):
                b = run_json("simulate", "--policy", policy, "--N", n, "--C", c,
                             "--phases", ",".join(map(str, phases)), "--rounds", 20 * n)
                self.assertEqual(b["rounds"], 20 * n)
                self.assertEqual(b["horizon_correction"], n / (20 * n))
                self.assertGreaterEqual(Fraction(b["misses"], b["rounds"]),
                                        bound - Fraction(n, 20 * n))

    def test_sdcm_geometry(self):
        r = run_json("bounds", "--N", 64, "--C", 8, "--phases", "0,20,40", "--ways", 2, "--sets", 4)
        self.assertEqual((r["sdcm"]["ways"], r["sdcm"]["sets"]), (2, 4))
        self.assertTrue(0 <= r["sdcm"]["K"] <= 3)

    def test_tilesight_arithmetic(self):
        """TileSight's SDCM next to exact SDCM. One worker scanning N blocks
        reuses each after N - 1 distinct others, so K = 1 - P(hit | r = N - 1)
        with A ways and S sets, p = 1/S. Up to r = 8 TileSight evaluates the
        exact binomial (both columns agree); above, a normal with continuity
        correction, Phi((A - 1/2 - r p) / sqrt(r p (1 - p))), through a
        polynomial CDF good to 1e-5, which is compared here with erf.
        (Checked failing with the codec writing the exact-SDCM value under
        "tilesight": the r = 19 case then differs by 0.011.)"""
        def binom_hit(r, ways, p):
            return sum(math.comb(r, i) * p ** i * (1 - p) ** (r - i) for i in range(ways))

        # r = 7 <= 8: the exact binomial in both
        r = run_json("bounds", "--N", 8, "--C", 4, "--phases", 0, "--ways", 2, "--sets", 2)
        self.assertAlmostEqual(r["sdcm"]["K"], 1 - binom_hit(7, 2, 0.5), places=14)
        self.assertAlmostEqual(r["tilesight"]["K"], 1 - binom_hit(7, 2, 0.5), places=14)
        # r = 19 > 8: the normal approximation, away from the exact binomial
        r = run_json("bounds", "--N", 20, "--C", 10, "--phases", 0, "--ways", 2, "--sets", 5)
        exact = 1 - binom_hit(19, 2, 0.2)
        z = (2 - 0.5 - 19 * 0.2) / math.sqrt(19 * 0.2 * 0.8)
        normal = 1 - 0.5 * (1 + math.erf(z / math.sqrt(2)))
        self.assertAlmostEqual(r["sdcm"]["K"], exact, places=14)
        self.assertLess(abs(r["tilesight"]["K"] - normal), 1e-5)
        self.assertGreater(abs(r["tilesight"]["K"] - exact), 0.01)

    def test_coherence(self):
        r = run_json("coherence", "--sigma", 3, "--C", 5, "--M", 2, "--E", 100)
        self.assertEqual(r["min_capacity"], 5)  # 2 sigma - 1
        self.assertTrue(r["preserves"])
        self.assertEqual(r["miss_bound"], (100 + 3) // 2)  # floor((E + (M-1) sigma) / M)
        self.assertAlmostEqual(r["rate_bound"], 1 + 3 / 100, places=15)
        r = run_json("coherence", "--sigma", 3, "--C", 4, "--M", 2, "--E", 100)
        self.assertFalse(r["preserves"])

    def test_feedback(self):
        # P_3(1) = max(3, 3/2) = 3; P_3(10) = max(3, 12/2) = 6; Theta = 2*3 - 2 = 4;
        # G = ((10-4) - [1-4]+) / 2 = 3
        r = run_json("feedback", "--alpha", 1, "--beta", 2, "--d", 3,
                     "--lambda-hit", 1, "--lambda-miss", 10)
        self.assertEqual((r["cadence_hit"], r["cadence_miss"], r["overlap"], r["gain"]),
                         (3.0, 6.0, 4.0, 3.0))
        r = run_json("feedback", "--alpha", 1, "--beta", 2, "--d", 4,
                     "--lambda-hit", 1, "--lambda-miss", 5)
        self.assertEqual(r["gain"], 0.0)  # lambda_miss <= Theta = 7


BAD = [
    # (arguments, option the message must name)
    (["bounds", "--N", 8, "--C", 8, "--phases", "0,4"], "--C"),
    (["bounds", "--N", 8, "--C", 9, "--phases", "0,4"], "--C"),
    (["bounds", "--N", 8, "--C", 0, "--phases", "0,4"], "--C"),
    (["bounds", "--N", 0, "--C", 2, "--phases", "0"], "--N"),
    (["bounds", "--N", 8, "--C", 2, "--phases", "0,8"], "--phases[1]"),
    (["bounds", "--N", 8, "--C", 2, "--phases", "0,,4"], "--phases[1]"),
    (["bounds", "--N", 8, "--C", 2, "--phases", "-1"], "--phases[0]"),
    (["bounds", "--N", "8x", "--C", 2, "--phases", "0"], "--N"),
    (["bounds", "--N", "1e3", "--C", 2, "--phases", "0"], "--N"),
    (["bounds", "--N", "99999999999999999999", "--C", 2, "--phases", "0"], "--N"),
    (["bounds", "--N", "4611686018427387905", "--C", 2, "--phases", "0"], "--N"),
    (["bounds", "--N", 8, "--C", 2], "--phases"),
    (["bounds", "--N", 8, "--C", 2, "--phases"], "--phases"),
    (["bounds", "--N", 8, "--C", 2, "--phases", "0", "--frobnicate", "1"], "--frobnicate"),
    (["bounds", "--N", 8, "--N", 9, "--C", 2, "--phases", "0"], "--N"),
    (["bounds", "--N", 8, "--C", 2, "--phases", "0", "--ways", 2], "--sets"),
    (["bounds", "--N", 8, "--C", 2, "--phases", "0", "--ways", 3, "--sets", 1], "--ways"),
    (["bounds", "--N", 8, "--C", 2, "--phases", "0", "--ways", 0, "--sets", 2], "--ways"),
    (["bounds", "--N", 8, "--C", 2, "--phases", "0", "--json=yes"], "--json"),
    (["bounds", "--N", 8, "--C", 2, "--phases", "0", "stray"], "stray"),
    (["simulate", "--policy", "fifo", "--N", 8, "--C", 2, "--phases", "0"], "--policy"),
    (["simulate", "--N", 8, "--C", 2, "--phases", "0"], "--policy"),
    (["simulate", "--policy", "lru", "--N", 8, "--C", 8, "--phases", "0"], "--C"),
    (["simulate", "--policy", "belady", "--N", 8, "--C", 2, "--phases", "0", "--rounds", 0],
     "--rounds"),
    (["simulate", "--policy", "lru", "--N", 100000000, "--C", 2, "--phases", "0,1,2"], "--N"),
    (["coherence", "--sigma", 0, "--C", 5, "--M", 2, "--E", 10], "--sigma"),
    (["coherence", "--sigma", 3, "--C", 5, "--M", 0, "--E", 10], "--M"),
    (["coherence", "--sigma", 3, "--C", 0, "--M", 2, "--E", 10], "--C"),
    (["coherence", "--sigma", 3, "--C", 5, "--M", 2, "--E", 0], "--E"),
    (["coherence", "--sigma", 3, "--C", 5, "--M", 2], "--E"),
    (["feedback", "--alpha", 1, "--beta", 0, "--d", 3, "--lambda-hit", 1, "--lambda-miss", 2],
     "--beta"),
    (["feedback", "--alpha", "-1", "--beta", 1, "--d", 3, "--lambda-hit", 1, "--lambda-miss", 2],
     "--alpha"),
    (["feedback", "--alpha", "nan", "--beta", 1, "--d", 3, "--lambda-hit", 1, "--lambda-miss", 2],
     "--alpha"),
    (["feedback", "--alpha", "inf", "--beta", 1, "--d", 3, "--lambda-hit", 1, "--lambda-miss", 2],
     "--alpha"),
    (["feedback", "--alpha", "1e400", "--beta", 1, "--d", 3, "--lambda-hit", 1, "--lambda-miss", 2],
     "--alpha"),
    (["feedback", "--alpha", "0x10", "--beta", 1, "--d", 3, "--lambda-hit", 1, "--lambda-miss", 2],
     "--alpha"),
    (["feedback", "--alpha", 1, "--beta", 1, "--d", 1, "--lambda-hit", 1, "--lambda-miss", 2],
     "--d"),
    (["feedback", "--alpha", 1, "--beta", 1, "--d", 3, "--lambda-hit", 5, "--lambda-miss", 2],
     "--lambda-miss"),
    (["feedback", "--alpha", 1, "--beta", 1, "--d", 3, "--lambda-hit", "-1", "--lambda-miss", 2],
     "--lambda-hit"),
    (["feedback", "--alpha", 1, "--beta", 1, "--d", "4294967296", "--lambda-hit", 1,
      "--lambda-miss", 2], "--d"),
    (["fit"], "argument"),
    (["fit", "a.json", "b.json"], "b.json"),
    (["fit", "a.json", "-o"], "--out"),
    (["loko"], "argument"),
    (["predict", "--o", 1], "--bundle"),
    (["synth"], "--law"),
    (["synth", "--law", "conv"], "--law"),
    (["synth", "--law", "scan,amp"], "--law"),
    (["synth", "--law", "scan,amp=x"], "--law"),
    (["synth", "--law", "scan,amp=-1"], "--law"),
    (["synth", "--law", "scan,bogus=1"], "--law"),
    (["nonsense"], "nonsense"),
    ([], "usage"),
]


class BadArguments(unittest.TestCase):
    def test_each_exits_2_naming_the_argument(self):
        for args, name in BAD:
            with self.subTest(args=args):
                p = run(*args, expect=2)
                lines = p.stderr.strip().splitlines()
                if args:
                    self.assertEqual(len(lines), 1 if args[0] != "nonsense" else len(lines))
                self.assertIn(name, lines[0])
                self.assertEqual(p.stdout, "")

    def test_help(self):  # every command and option: tests/cli/test_help.py
        self.assertIn("  bounds ", run("--help").stdout)
        self.assertIn("--phases", run("bounds", "--help").stdout)


# ---- dynamic: synth -> fit -> predict / loko ------------------------------

def canonical(v):
    """Jansson's JSON_COMPACT | JSON_SORT_KEYS | JSON_REAL_PRECISION(17)."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if v is None:
        return "null"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        s = "%.17g" % v
        if "." not in s and "e" not in s:
            s += ".0"
        if "e" in s:
            mant, exp = s.split("e")
            sign = "-" if exp.startswith("-") else ""
            s = mant + "e" + sign + exp.lstrip("+-").lstrip("0")
        return s
    if isinstance(v, str):
        out = ['"']
        for ch in v:
            o = ord(ch)
            if ch == '"':
                out.append('\\"')
            elif ch == "\\":
                out.append("\\\\")
            elif ch in "\b\f\n\r\t":
                out.append({"\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t"}[ch])
            elif o < 0x20:
                out.append("\\u%04x" % o)
            else:
                out.append(ch)
        out.append('"')
        return "".join(out)
    if isinstance(v, list):
        return "[" + ",".join(canonical(x) for x in v) + "]"
    return "{" + ",".join(canonical(k) + ":" + canonical(v[k]) for k in sorted(v)) + "}"


def content_hash(bundle):
    import hashlib
    keys = ["format", "device", "workload", "class_rule", "measurements"]
    if bundle["workload"] == "gemm":
        keys.append("gemm")
    content = {k: bundle[k] for k in keys}

    def canonical_runs(runs):
        out = []
        for r in runs:
            fixed = ["o", "path", "d", "m", "N", "W"] if bundle["workload"] == "scan" else ["Mg", "Ng", "Kg"]
            c = {k: r[k] for k in fixed}
            c["fill_bytes"] = float(r["fill_bytes"])
            if "repeat" in r:
                c["repeat"] = r["repeat"]
            if "kernel_ns" in r:
                c["kernel_ns"] = float(r["kernel_ns"])
            out.append(c)
        return out
    content["measurements"] = canonical_runs(bundle["measurements"])
    if bundle.get("heldout"):  # hashed only when the panel has runs
        content["heldout"] = canonical_runs(bundle["heldout"])
    return "sha256:" + hashlib.sha256(canonical(content).encode()).hexdigest()


class Dynamic(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.dir = cls.tmp.name
        cls.scan = os.path.join(cls.dir, "scan.json")
        cls.frozen = os.path.join(cls.dir, "scan-frozen.json")
        run("synth", "--law", "scan,noise=0", "-o", cls.scan)
        run("fit", cls.scan, "-o", cls.frozen)
        cls.gemm = os.path.join(cls.dir, "gemm-frozen.json")
        g = os.path.join(cls.dir, "gemm.json")
        run("synth", "--law", "gemm,seed=3", "--out", g)
        run("fit", g, "-o", cls.gemm)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def load(self, path):
        with open(path) as f:
            return json.load(f)

    def test_synth_bundle(self):
        b = self.load(self.scan)
        self.assertEqual(b["format"], "pascal-calibration/1")
        self.assertEqual(b["provenance"]["source"], "synthetic")
        self.assertEqual(len(b["measurements"]), 756)  # 63 keys x 3 sizes x 4 horizons
        self.assertNotIn("content_hash", b)

    def test_frozen_bundle(self):
        f = self.load(self.frozen)
        self.assertEqual(f["content_hash"], content_hash(f))  # independent recomputation
        self.assertEqual(len(f["model"]["curves"]), 63 * 3)
        self.assertIsInstance(f["report"]["balanced_mape"]["pascal"], float)
        # read -> fit -> write -> read is lossless: refitting the frozen file gives it back
        again = os.path.join(self.dir, "again.json")
        run("fit", self.frozen, "-o", again)
        with open(self.frozen, "rb") as a, open(again, "rb") as b:
            self.assertEqual(a.read(), b.read())
        with open(again, "rb") as b:
            self.assertEqual(run("fit", self.frozen).stdout.encode(), b.read())

    def test_predict_scan(self):
        p = run_json("predict", "--bundle", self.frozen, "--o", 1, "--path", "tma", "--d", 4,
                     "--m", 8, "--N", 4096, "--W", 32)
        for k in ("K", "rho", "fill_bytes", "M", "rule", "explanation"):
            self.assertIn(k, p)
        self.assertEqual(p["M"], 48)  # 48 SMs x o = 1
        self.assertTrue(1 <= p["K"] <= p["M"])
        self.assertAlmostEqual(p["rho"], p["K"] / p["M"], places=15)
        self.assertAlmostEqual(p["fill_bytes"] / (p["K"] * 16384 * 32 * 4096), 1, places=12)
        self.assertEqual(len(p["explanation"]["sizes"]), 2)  # 4096 lies between 3072 and 5120
        human = run("predict", "--bundle", self.frozen, "--o", 1, "--path", "tma", "--d", 4,
                    "--m", 8, "--N", 4096, "--W", 32).stdout
        self.assertIn("rule: ", human)

    def test_predict_says_how_far_to_trust_it(self):
        q = ["predict", "--bundle", self.frozen, "--o", 1, "--path", "tma", "--d", 4, "--m", 4]
        p = run_json(*q, "--N", 100, "--W", 8)  # N <= C = 1280: the N cold fills only
        self.assertEqual((p["rule"], p["K"], p["fill_bytes"]), ("resident", 1 / 8, 100 * 16384))
        self.assertIsNone(p["expected_error_pct"])
        p = run_json(*q, "--N", 20000, "--W", 100)
        self.assertEqual([(e["coordinate"], e["action"]) for e in p["extrapolated"]],
                         [("N", "same-blocks-per-slot"), ("W", "linear")])
        sizes = [r["N"] for r in self.load(self.scan)["measurements"]]
        self.assertEqual((p["extrapolated"][0]["min"], p["extrapolated"][0]["max"]),
                         (min(sizes), max(sizes)))
        # m = 4 is no reference (graph), N and W past the grid: the answer expects at
        # least the mean error of its interval's groups, here more than the nearest keys'
        # folds give (before the interval, this read the m folds' error alone)
        x = p["explanation"]["expected_error"]
        self.assertEqual((p["rule"], x["source"], x["keys"]), ("graph", "interval", []))
        basis = p["explanation"]["interval"]
        self.assertEqual([(t["coordinate"], t["kind"]) for t in basis["transfers"]],
                         [("m", "interpolated"), ("W", "extrapolated"), ("N", "extrapolated")])
        self.assertAlmostEqual(basis["transfers"][0]["distance"], 4)  # from m = 0 and 8
        self.assertAlmostEqual(basis["transfers"][2]["distance"], math.log(20000 / max(sizes)))
        iv = p["interval"]
        self.assertEqual(iv["level"], 0.8)
        self.assertLess(iv["K_low"], p["K"])
        self.assertGreater(iv["K_high"], p["K"])
        # the interval holds the expected error on its wider side
        self.assertGreater(max(iv["K_high"] / p["K"], p["K"] / iv["K_low"]) - 1,
                           p["expected_error_pct"] / 100)
        self.assertAlmostEqual(iv["fill_bytes_high"] / iv["K_high"] / (p["fill_bytes"] / p["K"]), 1)
        a = p["explanation"]["advice"]
        if p["K"] > 1.05:
            self.assertEqual((a["sigma_max"], a["checkpoint_blocks"]), (640, 637))
        else:
            self.assertIsNone(a)
        p = run("predict", "--bundle", self.frozen, "--o", 1, "--path", "tma", "--m", 8,
                "--N", 4096, "--W", 32, expect=2)
        self.assertIn("--d", p.stderr)
        p = run(*q[:7], "--d", 0, "--m", 8, "--N", 4096, "--W", 32, expect=2)
        self.assertIn("--d", p.stderr)

    def test_predict_reproduces_references(self):
        # noise = 0 and a law increasing in W: at a reference key, size and horizon the
        # prediction is the measured K itself
        b = self.load(self.scan)
        for r in b["measurements"][::97]:
            p = run_json("predict", "--bundle", self.frozen, "--o", r["o"], "--path", r["path"],
                         "--d", r["d"], "--m", r["m"], "--N", r["N"], "--W", r["W"])
            k = r["fill_bytes"] / (16384 * r["W"] * r["N"])
            self.assertEqual(p["rule"], "exact")
            self.assertAlmostEqual(p["K"] / k, 1, places=9)

    def test_predict_gemm(self):
        p = run_json("predict", "--bundle", self.gemm, "--Mg", 1280, "--Ng", 896, "--Kg", 2560)
        self.assertEqual((p["n_r"], p["n_c"], p["n_k"]), (10, 7, 40))
        self.assertEqual(p["B0"], 16384 * (10 + 7) * 40)
        self.assertEqual(p["Q"], 32768 * 10 * 7 * 40)
        self.assertTrue(p["K0"] - 1e-9 <= p["K"] <= p["M"])
        self.assertAlmostEqual(p["rho"], p["fill_bytes"] / p["Q"], places=12)

    def test_predict_errors(self):
        p = run("predict", "--bundle", self.frozen, "--o", 3, "--path", "tma", "--d", 4,
                "--m", 8, "--N", 4096, "--W", 32, expect=3)
        self.assertIn("refused", p.stderr)
        p = run("predict", "--bundle", self.gemm, "--o", 1, "--path", "tma", "--d", 4, "--m", 8,
                "--N", 4096, "--W", 32, expect=2)
        self.assertIn("--o", p.stderr)
        p = run("predict", "--bundle", self.frozen, "--o", 1, "--path", "tma", "--d", 4,
                "--m", 8, "--N", 4096, expect=2)
        self.assertIn("--W", p.stderr)
        p = run("predict", "--bundle", self.frozen, "--o", 1, "--path", "dma", "--d", 4,
                "--m", 8, "--N", 4096, "--W", 3, expect=2)
        self.assertIn("--path", p.stderr)
        p = run("predict", "--bundle", self.frozen, "--o", 1, "--path", "tma", "--d", 4,
                "--m", 8, "--N", 4096, "--W", 0, expect=2)
        self.assertIn("--W", p.stderr)
        p = run("predict", "--bundle", os.path.join(self.dir, "missing.json"), "--o", 1,
                expect=1)
        self.assertIn("missing.json", p.stderr)
        # a configuration transfer walks the raster's static reference: 2048 x 2048
        # tiles of 64 x 64 are the most it walks (4 Mi), one tile column more is refused
        cfg = ["--tile_m", 64, "--tile_n", 64, "--Kg", 4096]
        run_json("predict", "--bundle", self.gemm, "--Mg", 64 * 2048, "--Ng", 64 * 2048, *cfg)
        p = run("predict", "--bundle", self.gemm, "--Mg", 64 * 2048, "--Ng", 64 * 2049, *cfg,
                expect=2)
        self.assertIn("--Mg", p.stderr)
        self.assertIn("4196352 output tiles", p.stderr)

    def test_predict_queries(self):
        """--queries answers a batch from one fit: each item as the single
        query's --json answers it (expected error and interval included), a
        daemon's batch body replays unchanged, and a bad item gets its own
        error naming queries[i].field without stopping the others (exit 2;
        only refusals: exit 3)."""
        fields = ["--o", 1, "--path", "tma", "--d", 4, "--m", 8]
        singles = [run_json("predict", "--bundle", self.frozen, *fields, "--N", n, "--W", w)
                   for n, w in ((4096, 32), (3000, 5.5), (100000, 16))]
        device = self.load(self.frozen)["device"]["name"]
        body = {"queries": [
            {"device": device, "o": 1, "path": "tma", "d": 4, "m": 8, "N": 4096, "W": 32},
            {"o": 1, "path": "tma", "d": 4, "m": 8, "N": 3000, "W": 5.5},
            {"o": 3, "path": "tma", "d": 4, "m": 8, "N": 4096, "W": 32},
            {"o": 1, "path": "tma", "d": 4, "m": 8, "N": 4096, "W": "32"},
            {"o": 1, "path": "tma", "d": 4, "m": 8, "N": 100000, "W": 16},
            {"o": 1, "path": "tma", "d": -4, "m": 8, "N": 4096, "W": 32},
            {"o": 1, "path": "tma", "d": 4, "m": 8, "N": 4096, "W": 32, "Mg": 64},
            {"o": 1, "path": "tma", "d": 4, "m": 8, "N": 4096, "W": 32, "colour": 1},
            {"device": "elsewhere", "o": 1, "path": "tma", "d": 4, "m": 8, "N": 4096, "W": 32},
            {"o": 1, "path": "tma", "d": 4, "m": 8, "N": 4096}, [1]]}
        path = os.path.join(self.dir, "queries.json")
        with open(path, "w") as f:
            json.dump(body, f)
        p = run("predict", "--bundle", self.frozen, "--queries", path, "--json", expect=2)
        out = json.loads(p.stdout)
        self.assertEqual((out["count"], out["ok"], out["errors"]), (11, 3, 8))
        r = out["results"]
        self.assertEqual([r[0], r[1], r[4]], singles)
        self.assertIsNotNone(r[0]["expected_error_pct"])
        want = [(2, "refused", "queries[2].path"), (3, "invalid_type", "queries[3].W"),
                (5, "out_of_range", "queries[5].d"), (6, "invalid_value", "queries[6].Mg"),
                (7, "unknown_field", "queries[7].colour"), (8, "invalid_value", "queries[8].device"),
                (9, "missing_field", "queries[9].W"), (10, "invalid_value", "queries[10]")]
        for i, code, field in want:
            self.assertEqual((r[i]["error"]["code"], r[i]["error"]["field"]), (code, field), i)
            self.assertIn(field + ":", p.stderr)
        self.assertEqual(len(p.stderr.splitlines()), len(want))
        # the array alone, from standard input; only refusals: exit 3
        p = subprocess.run([PASCAL, "predict", "--bundle", self.frozen, "--queries", "-", "--json"],
                           input=json.dumps(body["queries"][:3]), capture_output=True, text=True,
                           timeout=120)
        self.assertEqual(p.returncode, 3, p.stderr)
        self.assertEqual(json.loads(p.stdout)["results"][:2], singles[:2])
        # the readable form of a batch that answers every item: exit 0
        with open(path, "w") as f:
            json.dump({"queries": body["queries"][:2]}, f)
        human = run("predict", "--bundle", self.frozen, "--queries", path).stdout
        self.assertIn("results:", human)
        self.assertIn("count: 2", human)
        for bad, field in (("[", path), ('{"queries": 3}', "queries"), ('{"batch": []}', "batch")):
            with open(path, "w") as f:
                f.write(bad)
            p = run("predict", "--bundle", self.frozen, "--queries", path,
                    expect=1 if bad == "[" else 2)
            self.assertIn(field, p.stderr)
        p = run("predict", "--bundle", self.frozen, "--queries", path, "--N", 4096, expect=2)
        self.assertIn("--N: not with --queries", p.stderr)

    def test_unsampled_class_is_refused(self):
        plan = os.path.join(self.dir, "no-class1.json")
        with open(plan, "w") as f:  # m in {0, 2, 4, 6, 8}: classes 0 and 2 only
            json.dump({"format": "pascal-plan/1", "workload": "scan", "sizes": [2048, 4096],
                       "grid": {"o": [1], "path": ["tma"], "d": [2], "m": [0, 2, 4, 6, 8]}}, f)
        b = os.path.join(self.dir, "no-class1-bundle.json")
        run("synth", "--law", "scan", "--plan", plan, "-o", b)
        self.assertEqual(len(self.load(b)["measurements"]), 5 * 2 * 4)
        run("predict", "--bundle", b, "--o", 1, "--path", "tma", "--d", 2, "--m", 4, "--N", 3000,
            "--W", 8)
        p = run("predict", "--bundle", b, "--o", 1, "--path", "tma", "--d", 2, "--m", 5,
                "--N", 3000, "--W", 8, expect=3)
        self.assertEqual(len(p.stderr.strip().splitlines()), 1)

    def test_loko(self):
        r = run_json("loko", self.scan)
        self.assertEqual(r["n_keys"], 63)
        self.assertEqual(len(r["keys"]), 63)
        self.assertLess(r["balanced_mape"]["pascal"], r["balanced_mape"]["aligned"])
        for k in r["keys"]:
            self.assertEqual(set(k["mape"]), {"pascal", "aligned", "exact_sdcm", "ppt_gpu", "che",
                                              "tilesight", "origami"})
            self.assertIsNone(k["mape"]["origami"])  # Origami models GEMM only
        human = run("loko", self.scan).stdout
        self.assertIn("balanced MAPE", human)
        self.assertIn("o=1 tma d=4 m=8", human)

    def split_panel(self):
        """The plain scan bundle without the m = 8 keys, and those keys'
        runs (7 keys x 3 sizes x 4 horizons) as a panel bundle."""
        b = self.load(self.scan)
        cal = dict(b, measurements=[r for r in b["measurements"] if r["m"] != 8])
        panel = dict(b, measurements=[r for r in b["measurements"] if r["m"] == 8])
        paths = []
        for name, doc in (("cal.json", cal), ("panel.json", panel)):
            paths.append(os.path.join(self.dir, name))
            with open(paths[-1], "w") as f:
                json.dump(doc, f)
        return b, cal, panel, paths

    def test_evaluate_heldout(self):
        b, cal, panel, (cal_path, panel_path) = self.split_panel()
        r = run_json("evaluate", cal_path, "--heldout", panel_path)
        row = r["table"]["rows"][0]
        self.assertEqual((row["validation"], row["workload"], row["n_keys"], row["n_runs"]),
                         ("heldout", "scan", 7, 84))
        rep = r["calibrations"][0]["report"]
        self.assertEqual(rep["n_runs"], 672)  # LOKO folds over the fitted runs only
        self.assertEqual(rep["heldout"]["n_runs"], 84)
        # aligned K = 1, recomputed here: balanced over the 7 keys, not the 84 runs
        per_key = {}
        for x in panel["measurements"]:
            k = x["fill_bytes"] / (b["device"]["block_bytes"] * x["W"] * x["N"])
            per_key.setdefault((x["o"], x["path"], x["d"]), []).append(abs(1 / k - 1))
        want = 100 * sum(sum(v) / len(v) for v in per_key.values()) / len(per_key)
        self.assertAlmostEqual(row["mape"]["aligned"], want, places=9)
        for m in ("pascal", "tilesight", "exact_sdcm", "ppt_gpu", "aligned", "che"):
            lo, hi = row["ci"][m]
            self.assertTrue(lo <= row["mape"][m] <= hi, m)
        self.assertEqual(r["table"]["overall"]["mape"], row["mape"])
        # the same panel carried inside the bundle gives the same frozen table
        inside = os.path.join(self.dir, "inside.json")
        frozen = os.path.join(self.dir, "inside-frozen.json")
        with open(inside, "w") as f:
            json.dump(dict(cal, heldout=panel["measurements"]), f)
        run("fit", inside, "-o", frozen)
        fz = self.load(frozen)
        self.assertEqual(fz["content_hash"], content_hash(fz))  # the hash covers the panel
        self.assertEqual(fz["report"]["table"]["rows"][0]["mape"], row["mape"])
        self.assertEqual(run_json("evaluate", frozen)["table"], r["table"])
        self.assertFalse(any(c["m"] == 8 for c in fz["model"]["curves"]))
        # the panel measured in two parts (by size) and joined is the same panel
        sizes = sorted({x["N"] for x in panel["measurements"]})
        parts = []
        for i, keep in enumerate((sizes[:1], sizes[1:])):
            parts.append(os.path.join(self.dir, "part%d.json" % i))
            with open(parts[-1], "w") as f:
                json.dump(dict(panel, measurements=[x for x in panel["measurements"]
                                                    if x["N"] in keep]), f)
        joined = run_json("evaluate", cal_path, "--heldout", ",".join(parts))
        self.assertEqual(joined["table"], r["table"])
        for bad in (parts[0] + ",", "," + parts[0], parts[0] + ",," + parts[1], "",
                    ",".join([parts[0]] * 9)):
            p = run("evaluate", cal_path, "--heldout", bad, expect=2)
            self.assertIn("--heldout", p.stderr)
        p = run("evaluate", cal_path, "--heldout", parts[0] + "," + parts[0], expect=1)
        self.assertIn("heldout", p.stderr)  # the same runs twice: duplicates
        human = run("evaluate", cal_path, "--heldout", panel_path).stdout
        for word in ("balanced overall", "TileSight", "exact SDCM", "scan", "heldout (7)"):
            self.assertIn(word, human)
        # two bundles: one row each and a balanced overall row
        two = run_json("evaluate", frozen, self.gemm)["table"]
        self.assertEqual([x["workload"] for x in two["rows"]], ["scan", "gemm"])
        self.assertAlmostEqual(two["overall"]["mape"]["pascal"],
                               (two["rows"][0]["mape"]["pascal"] + two["rows"][1]["mape"]["pascal"]) / 2,
                               places=9)

    def test_evaluate_latency(self):
        """Table e2e rows: with device peaks and kernel times, PASCAL's column
        scores each held-out run's time against its kernel time. Each kernel
        time is set to 1.25 x the time_s `pascal predict` answers for the run
        (PASCAL's fills through the same pipeline), so that column is 20 %
        whatever the pipeline computes; without peaks there are no rows."""
        b, cal, panel, (cal_path, panel_path) = self.split_panel()
        self.assertNotIn("latency", run_json("evaluate", cal_path, "--heldout", panel_path)
                         ["calibrations"][0]["report"]["heldout"])
        peaks = {"dram_bytes_per_s": 2e10, "l2_bytes_per_s": 2e12, "tensor_flops": 1e14,
                 "sm_clock_hz": 1.5e9, "launch_s": 3e-6}
        for doc in (cal, panel):
            doc["device"] = dict(b["device"], peaks=peaks)
        with open(cal_path, "w") as f:
            json.dump(cal, f)
        frozen = cal_path + ".frozen.json"  # fitted once, not once per query
        run("fit", cal_path, "-o", frozen)
        fields = ("o", "path", "d", "m", "N", "W")
        queries = [{k: x[k] for k in fields} for x in panel["measurements"]]
        batch = os.path.join(self.dir, "latency-queries.json")
        with open(batch, "w") as f:
            json.dump(queries, f)
        answers = run_json("predict", "--bundle", frozen, "--queries", batch)["results"]
        for x, a in zip(panel["measurements"], answers):
            x["kernel_ns"] = 1.25e9 * a["time_s"]
        with open(panel_path, "w") as f:
            json.dump(panel, f)
        lat = run_json("evaluate", cal_path, "--heldout", panel_path)["calibrations"][0]["report"][
            "heldout"]["latency"]
        self.assertEqual((lat["all"]["n_runs"], lat["all"]["n_keys"]), (84, 7))
        self.assertAlmostEqual(lat["all"]["mape"]["pascal"], 20, places=5)
        self.assertEqual(lat["all"]["gap"]["pascal"], 0)
        for c in ("tilesight", "pascal", "measured"):
            lo, hi = lat["all"]["ci"][c]
            self.assertTrue(lo <= lat["all"]["mape"][c] <= hi, c)
        self.assertEqual(lat["dram_bound_rise"], 0.02)
        self.assertTrue(0 <= lat["dram_bound"]["n_runs"] <= 84)
        human = run("evaluate", cal_path, "--heldout", panel_path).stdout
        self.assertIn("latency MAPE", human)
        self.assertIn("scan %s held-out" % b["device"]["name"], human)

    def test_evaluate_gemm_heldout(self):
        """A GEMM grid (Mg, Ng) = (1024, 1024) held out at its four Kg."""
        g = os.path.join(self.dir, "gemm-plain.json")
        run("synth", "--law", "gemm,seed=3", "--out", g)
        b = self.load(g)
        held = [r for r in b["measurements"] if (r["Mg"], r["Ng"]) == (1024, 1024)]
        paths = []
        for name, runs in (("gemm-cal.json", [r for r in b["measurements"] if r not in held]),
                           ("gemm-panel.json", held)):
            paths.append(os.path.join(self.dir, name))
            with open(paths[-1], "w") as f:
                json.dump(dict(b, measurements=runs), f)
        r = run_json("evaluate", paths[0], "--heldout", paths[1])
        row = r["table"]["rows"][0]
        self.assertEqual((row["workload"], row["validation"], row["n_keys"], row["n_runs"]),
                         ("gemm", "heldout", 1, 4))
        self.assertEqual(r["calibrations"][0]["report"]["n_runs"], 116)
        lo, hi = row["ci"]["pascal"]
        self.assertTrue(lo == row["mape"]["pascal"] == hi)  # one key: every resample is it

    def test_fit_states_its_reading_between_knots(self):
        """model.between, model.between_static, model.between_silent and
        model.beyond: the shipped thor-like GEMM's own folds choose the
        linear reading between reduction lengths, the carry by V_s between
        its levels on top, the lower level's kappa where V_s is silent, and
        all of V carried by V_s beyond the grid, and `pascal fit` says so;
        the H100's, frozen before the four choices existed (stripped of
        them), still loads, keeps the defaults between knots, where V_s is
        silent and beyond, takes the carry its folds choose now and says
        only that. An edited rule is refused, naming the model."""
        deploy = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "deploy",
                              "calibrations")
        shipped = self.load(os.path.join(deploy, "sim-thor-tiled-gemm.json"))
        plain = os.path.join(self.dir, "thor-gemm-plain.json")
        with open(plain, "w") as f:
            json.dump({k: v for k, v in shipped.items()
                       if k not in ("model", "report", "content_hash")}, f)
        frozen = os.path.join(self.dir, "thor-gemm-frozen.json")
        p = run("fit", plain, "-o", frozen)
        doc = self.load(frozen)
        between, beyond = doc["model"]["between"], doc["model"]["beyond"]
        carry, silent = doc["model"]["between_static"], doc["model"]["between_silent"]
        self.assertEqual((between["rule"], between["candidates"], between["points"]),
                         ("linear", ["curve", "linear"], 60))
        self.assertEqual((carry["rule"], carry["candidates"], carry["points"]),
                         ("static-excess", ["linear", "static-excess"], 60))
        # the 60 Kg folds' points and 24 of grids strictly inside (4 x 3)
        # held out with each interior Kg (2)
        self.assertEqual((silent["rule"], silent["candidates"], silent["points"]),
                         ("lower-level", ["static-excess", "lower-level"], 84))
        self.assertEqual((beyond["rule"], beyond["candidates"], beyond["points"]),
                         ("ratio", ["excess-ratio", "ratio"], 148))
        for choice in (between, carry, silent, beyond):
            default_pct, alt_pct = choice["fold_pct"]
            self.assertLess(alt_pct, default_pct)
        self.assertIn("reads linear, not curve", p.stderr)
        self.assertIn("reads static-excess, not linear", p.stderr)
        self.assertIn("reads lower-level, not static-excess", p.stderr)
        self.assertIn("reads ratio, not excess-ratio", p.stderr)

        h100 = self.load(os.path.join(deploy, "h100-tiled-gemm.json"))
        older = os.path.join(self.dir, "older.json")
        with open(older, "w") as f:
            json.dump(dict(h100, model={k: v for k, v in h100["model"].items()
                                        if k not in ("between", "between_static", "between_silent",
                                                     "beyond")}), f)
        again = os.path.join(self.dir, "older-again.json")
        p = run("fit", older, "-o", again)
        self.assertEqual(p.stderr.count("note:"), 1, p.stderr)
        self.assertIn("reads static-excess, not curve", p.stderr)
        model = self.load(again)["model"]
        self.assertEqual((model["between"]["rule"], model["between_static"]["rule"],
                          model["between_silent"]["rule"], model["beyond"]["rule"]),
                         ("curve", "static-excess", "static-excess", "excess-ratio"))
        self.assertEqual(model, h100["model"])  # the readings chosen now, written back

        edited = os.path.join(self.dir, "edited.json")
        with open(edited, "w") as f:
            json.dump(dict(doc, model=dict(doc["model"], between=dict(between, rule="curve"))), f)
        p = run("fit", edited, expect=1)  # as any stored model that is not the fit's
        self.assertIn("model: the stored model differs", p.stderr)

    def test_fit_states_its_reading_in_m(self):
        """model.graph: a scan calibration's own references choose how an m
        between two references of its execution class is read. The H100's
        (the class does not show in its runs) take the pooled trend and
        `pascal fit` says so; gb10-like's (divergence steps with m) keep
        the paper's anchored interpolation, without a note. A bundle frozen
        before the choice existed loads and gets it; an edited rule is
        refused, naming the model."""
        deploy = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "deploy",
                              "calibrations")
        want = {"h100-scan.json": "pooled", "sim-gb10-scan.json": "anchored"}
        for name, rule in want.items():
            shipped = self.load(os.path.join(deploy, name))
            plain = os.path.join(self.dir, "plain-" + name)
            with open(plain, "w") as f:
                json.dump({k: v for k, v in shipped.items()
                           if k not in ("model", "report", "content_hash")}, f)
            frozen = os.path.join(self.dir, "frozen-" + name)
            p = run("fit", plain, "-o", frozen)
            graph = self.load(frozen)["model"]["graph"]
            # m = 4, 5, 6 of each of 7 families held out, 3 sizes x 4 horizons
            self.assertEqual((graph["rule"], graph["candidates"], graph["points"]),
                             (rule, ["anchored", "pooled"], 252))
            chosen = graph["fold_pct"][graph["candidates"].index(rule)]
            self.assertEqual(chosen, min(graph["fold_pct"]))
            self.assertEqual("(model.graph)" in p.stderr, rule == "pooled", p.stderr)
            self.assertEqual(self.load(frozen)["model"], shipped["model"])

        h100 = self.load(os.path.join(deploy, "h100-scan.json"))
        older = os.path.join(self.dir, "older-scan.json")
        with open(older, "w") as f:
            json.dump(dict(h100, model={k: v for k, v in h100["model"].items() if k != "graph"}), f)
        again = os.path.join(self.dir, "older-scan-again.json")
        run("fit", older, "-o", again)
        self.assertEqual(self.load(again)["model"], h100["model"])  # chosen now, written back

        edited = os.path.join(self.dir, "edited-scan.json")
        with open(edited, "w") as f:
            json.dump(dict(h100, model=dict(h100["model"],
                                            graph=dict(h100["model"]["graph"], rule="anchored"))), f)
        p = run("fit", edited, expect=1)
        self.assertIn("model: the stored model differs", p.stderr)

    def test_synth_with_panel(self):
        """synth --heldout: the panel plan's runs become the bundle's panel,
        never fitted, scored by evaluate."""
        plan = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "codec", "examples",
                            "plan-scan-keys.json")
        panel = os.path.join(self.dir, "panel-plan.json")
        with open(panel, "w") as f:
            json.dump({"format": "pascal-plan/1", "workload": "scan", "sizes": [3072],
                       "horizons": [4, 16], "repeats": 2,
                       "keys": [{"o": 1, "path": "tma", "d": 4, "m": 4}]}, f)
        out = os.path.join(self.dir, "synth-panel.json")
        run("synth", "--law", "scan,noise=0", "--plan", plan, "--heldout", panel, "-o", out)
        b = self.load(out)
        self.assertEqual(len(b["measurements"]), 40)
        self.assertEqual([(r["m"], r["N"], r["W"], r["repeat"]) for r in b["heldout"]],
                         [(4, 3072, 4, 0), (4, 3072, 4, 1), (4, 3072, 16, 0), (4, 3072, 16, 1)])
        row = run_json("evaluate", out)["table"]["rows"][0]
        self.assertEqual((row["validation"], row["n_runs"], row["n_floor_runs"]), ("heldout", 4, 4))
        self.assertEqual(row["floor_mape"], 0.0)  # noise 0: repeats agree exactly
        p = run("synth", "--law", "gemm", "--heldout", panel, expect=1)
        self.assertIn("workload", p.stderr)

    def test_evaluate_errors(self):
        b, cal, panel, (cal_path, panel_path) = self.split_panel()
        other = os.path.join(self.dir, "other-device.json")
        panel["device"] = dict(panel["device"], capacity_blocks=panel["device"]["capacity_blocks"] + 8)
        with open(other, "w") as f:
            json.dump(panel, f)
        p = run("evaluate", cal_path, "--heldout", other, expect=1)
        self.assertIn("device.capacity_blocks", p.stderr)
        p = run("evaluate", cal_path, "--heldout", self.gemm, expect=1)
        self.assertIn("workload", p.stderr)
        p = run("evaluate", cal_path, self.gemm, "--heldout", panel_path, expect=2)
        self.assertIn("--heldout", p.stderr)
        run("evaluate", expect=2)
        empty = os.path.join(self.dir, "empty-panel.json")
        with open(empty, "w") as f:
            json.dump(dict(panel, device=cal["device"], measurements=[]), f)
        p = run("evaluate", cal_path, "--heldout", empty, expect=1)
        self.assertIn("no run", p.stderr)

    def test_malformed_bundle_files(self):
        b = self.load(self.scan)
        cases = []
        x = json.loads(json.dumps(b)); x["measurements"][12]["fill_bytes"] = -1.0
        cases.append((x, "measurements[12].fill_bytes"))
        x = json.loads(json.dumps(b)); x["format"] = "pascal-calibration/9"
        cases.append((x, "format"))
        x = json.loads(json.dumps(b)); del x["device"]["sm_count"]
        cases.append((x, "device.sm_count"))
        x = json.loads(json.dumps(b)); x["measurements"][5] = x["measurements"][4]
        cases.append((x, "measurements[5]"))
        f = self.load(self.frozen); f["measurements"][0]["fill_bytes"] *= 2
        cases.append((f, "content_hash"))
        for i, (doc, field) in enumerate(cases):
            path = os.path.join(self.dir, f"bad{i}.json")
            with open(path, "w") as out:
                json.dump(doc, out)
            for cmd in (["fit", path], ["loko", path]):
                p = run(*cmd, expect=1)
                self.assertIn(field, p.stderr)
                self.assertEqual(len(p.stderr.strip().splitlines()), 1)
        path = os.path.join(self.dir, "dup.json")
        with open(path, "w") as out:
            out.write('{"format": "pascal-calibration/1", "format": "pascal-calibration/1"}')
        self.assertIn("duplicate", run("fit", path, expect=1).stderr)


if __name__ == "__main__":
    PASCAL = os.path.abspath(sys.argv.pop(1))
    unittest.main(verbosity=1)
