#!/usr/bin/env python3
"""`pascal plot` against the shipped bundles and a synthetic one with repeats
and a held-out panel: every SVG parses as XML, its series and points are the
ones the bundle implies (counted here from the bundle's JSON and from
`pascal loko --json`, not from the plot code), the capacity and static plots
of a device that carries probe data draw every point of it, and every bad
choice (a kind whose data the bundle lacks included) exits 2
naming the option and writes no file."""
import json
import math
import os
import subprocess
import sys
import tempfile
import unittest
import xml.etree.ElementTree as ET

SVG = "{http://www.w3.org/2000/svg}"
PASCAL = ""
SOURCE = ""
SCAN = GEMM = ""


def run(*args, check=True):
    p = subprocess.run([PASCAL, *args], capture_output=True, text=True, timeout=120)
    if check and p.returncode != 0:
        raise AssertionError(f"pascal {' '.join(args)}: {p.returncode} {p.stderr}")
    return p


def series(path):
    """{name: (points, has_line)} of an SVG chart, in order."""
    root = ET.parse(path).getroot()
    assert root.tag == SVG + "svg"
    assert root.find(SVG + "title").text and root.find(SVG + "desc").text
    out = {}
    for g in root.iter(SVG + "g"):
        if g.get("class") == "series":
            points = [e for e in g if e.get("class") == "marker"]
            out[g.get("data-series")] = (len(points), g.find(SVG + "polyline") is not None)
    legend = [g for g in root.iter(SVG + "g") if g.get("class") == "legend-entry"]
    assert len(legend) == len(out)
    return out


def marker_centres(path):
    """(x, y) centre of every data marker of an SVG chart, from its geometry
    as svg.c writes each shape (circle; square; three paths starting at the
    centre's x; an x starting at x - r), rounded to 0.01 px."""
    out = []
    for g in ET.parse(path).getroot().iter(SVG + "g"):
        if g.get("class") != "series":
            continue
        for e in g:
            if e.get("class") != "marker":
                continue
            if e.tag == SVG + "circle":
                x, y = float(e.get("cx")), float(e.get("cy"))
            elif e.tag == SVG + "rect":
                x = float(e.get("x")) + float(e.get("width")) / 2
                y = float(e.get("y")) + float(e.get("height")) / 2
            else:
                nums = [float(v) for v in e.get("d").replace("M", " ").replace("L", " ")
                        .replace("Z", " ").split()]
                xs, ys = nums[0::2], nums[1::2]
                x, y = (min(xs) + max(xs)) / 2, (min(ys) + max(ys)) / 2
            out.append((round(x, 2), round(y, 2)))
    return out


def scan_k(b, r):
    return r["fill_bytes"] / (b["device"]["block_bytes"] * r["W"] * r["N"])


def fam(r):
    return (r["o"], r["path"], r["d"])


class PlotCli(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.synth = os.path.join(cls.tmp.name, "synth.json")
        plan = {"format": "pascal-plan/1", "workload": "scan", "sizes": [3072, 6144],
                "horizons": [1, 4, 16, 64], "repeats": 2,
                "grid": {"o": [2], "path": ["tma"], "d": [3], "m": [0, 1, 2, 4, 5, 6, 12]}}
        panel = {"format": "pascal-plan/1", "workload": "scan", "sizes": [6144],
                 "horizons": [64], "repeats": 2,
                 "keys": [{"o": 2, "path": "tma", "d": 3, "m": 8},
                          {"o": 2, "path": "tma", "d": 3, "m": 9}]}
        pp, hp = (os.path.join(cls.tmp.name, n) for n in ("plan.json", "panel.json"))
        json.dump(plan, open(pp, "w"))
        json.dump(panel, open(hp, "w"))
        run("synth", "--law", "scan", "--plan", pp, "--heldout", hp, "-o", cls.synth)
        # The same bundle with a device that carries probe data (made up here:
        # a step at 700 blocks, and a static table of two block sizes).
        b = json.load(open(cls.synth))
        b["device"]["capacity_probe"] = {"waves": 4, "size_blocks": [100, 400, 700, 1000, 1300],
                                         "fill_ratio": [1.0, 1.02, 1.05, 3.2, 4.0]}
        rows = [{"block_bytes": bb, "C": c, "clusters": k, "K": k * 1.1, "gap_law": float(k),
                 "sdcm": k * 1.05, "che": k * 0.5 + 3}
                for bb, c in ((8192, 1536), (16384, 768)) for k in (1, 2, 6)]
        b["device"]["static_experiment"] = {"M": 48, "N": 8192, "H": 100, "rows": rows}
        cls.probed = os.path.join(cls.tmp.name, "probed.json")
        json.dump(b, open(cls.probed, "w"))

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def plot(self, bundle, *args):
        out = os.path.join(self.tmp.name, "out.svg")
        if os.path.exists(out):
            os.remove(out)
        run("plot", bundle, *args, "-o", out)
        return series(out)

    def test_scan_curves_default_family(self):
        b = json.load(open(SCAN))
        runs = b["measurements"]
        top = max(runs, key=lambda r: scan_k(b, r))  # first run of largest K
        top = next(r for r in runs if scan_k(b, r) == scan_k(b, top))
        n = max(r["N"] for r in runs if fam(r) == fam(top))
        ms = sorted({r["m"] for r in runs if fam(r) == fam(top) and r["N"] == n})
        s = self.plot(SCAN, "--kind", "curves")
        self.assertEqual(list(s), [f"m={m}" for m in ms])
        for m in ms:
            want = sum(1 for r in runs if fam(r) == fam(top) and r["N"] == n and r["m"] == m)
            self.assertEqual(s[f"m={m}"], (want, True))

    def test_scan_curves_chosen_family_and_size(self):
        b = json.load(open(SCAN))
        runs = [r for r in b["measurements"] if fam(r) == (2, "sync", 0) and r["N"] == 3072]
        s = self.plot(SCAN, "--kind", "curves", "--family", "2,sync,0", "--N", "3072")
        self.assertEqual(len(s), len({r["m"] for r in runs}))
        self.assertEqual(sum(p for p, _ in s.values()), len(runs))

    def test_transfer_with_heldout(self):
        s = self.plot(self.synth, "--kind", "transfer")
        # 7 reference m at (6144, 64); classes of m in 0..12 are 0, 1, 2; 2 held-out keys.
        self.assertEqual(list(s), ["reference keys", "transfer rule, class 0",
                                   "transfer rule, class 1", "transfer rule, class 2",
                                   "held-out keys"])
        self.assertEqual(s["reference keys"], (7, False))
        self.assertEqual(s["held-out keys"], (2, False))
        # with repeats, each reference point has an error bar
        root = ET.parse(os.path.join(self.tmp.name, "out.svg")).getroot()
        bars = [e for e in root.iter(SVG + "path") if e.get("class") == "errorbar"]
        self.assertEqual(len(bars), 7 + 2)

    def check_key_errors(self, s, keys):
        names = {"pascal": "PASCAL (LOKO folds)", "aligned": "aligned (K=1)",
                 "exact_sdcm": "exact SDCM", "ppt_gpu": "PPT-GPU", "che": "Che",
                 "tilesight": "TileSight SDCM", "origami": "Origami (tritonBLAS)"}
        for key, name in names.items():
            vals = [k["mape"][key] for k in keys if k["mape"][key] is not None]
            if vals:
                self.assertEqual(s[name][0], sum(1 for v in vals if v > 0), name)
            else:
                self.assertNotIn(name, s)

    def check_evaluation(self, bundle, heldout):
        s = self.plot(bundle, "--kind", "evaluation")
        rep = json.loads(run("loko", bundle, "--json").stdout)
        self.check_key_errors(s, rep["keys"])
        floor = rep["summary"]["floor_mape"]
        self.assertEqual("repeat-to-repeat floor" in s, floor is not None and floor > 0)
        # the held-out keys are never on the calibration's rank axis
        self.assertFalse(any("held-out" in name for name in s), list(s))
        centres = marker_centres(os.path.join(self.tmp.name, "out.svg"))
        self.assertEqual(len(centres), len(set(centres)), "two markers on one spot")
        if not heldout:
            p = run("plot", bundle, "--kind", "heldout", "-o",
                    os.path.join(self.tmp.name, "none.svg"), check=False)
            self.assertEqual(p.returncode, 2)
            self.assertIn("heldout", p.stderr)
            return
        h = self.plot(bundle, "--kind", "heldout")
        panel = rep["heldout"]
        vals = [k["mape"]["pascal"] for k in panel["keys"] if k["mape"]["pascal"] is not None]
        self.assertEqual(h["PASCAL (held-out panel)"][0], sum(1 for v in vals if v > 0))
        self.assertNotIn("PASCAL (LOKO folds)", h)  # a panel is scored by the full model
        root = ET.parse(os.path.join(self.tmp.name, "out.svg")).getroot()
        labels = [t.text for t in root.iter(SVG + "text") if t.get("class") == "label"]
        self.assertTrue(any(l.startswith("held-out key rank") for l in labels), labels)

    def test_evaluation(self):
        for bundle in (SCAN, GEMM):  # the shipped scan bundle carries a panel, GEMM not
            self.check_evaluation(bundle, "heldout" in json.load(open(bundle)))
        self.check_evaluation(self.synth, True)

    def test_gemm(self):
        b = json.load(open(GEMM))
        runs = b["measurements"]
        mg = min(r["Mg"] for r in runs)
        ngs = sorted({r["Ng"] for r in runs if r["Mg"] == mg})
        s = self.plot(GEMM, "--kind", "curves")
        self.assertEqual(list(s), [f"Ng={n}" for n in ngs])
        s = self.plot(GEMM, "--kind", "transfer", "--family", "1024")
        kg = max(r["Kg"] for r in runs if r["Mg"] == 1024)
        self.assertEqual(s["reference grids"][0],
                         sum(1 for r in runs if r["Mg"] == 1024 and r["Kg"] == kg))
        self.assertTrue(s["transfer rule"][1])

    def test_capacity_and_static(self):
        b = json.load(open(self.probed))
        c = b["device"]["capacity_blocks"]
        s = self.plot(self.probed, "--kind", "capacity")
        self.assertEqual(s, {"fill / scanned bytes": (5, True),
                             "chosen C = %d blocks" % c: (0, True), "tolerance 1.1": (0, True)})
        s = self.plot(self.probed, "--kind", "static")
        self.assertEqual(s, {"gap law (Theorem 1)": (6, False), "exact SDCM": (6, False),
                             "Che": (6, False), "measured = predicted": (0, True)})
        # a probe that breaks the rules is refused naming the field
        bad = json.load(open(self.probed))
        bad["device"]["capacity_probe"]["size_blocks"][2] = 400
        path = os.path.join(self.tmp.name, "bad.json")
        json.dump(bad, open(path, "w"))
        p = run("plot", path, "--kind", "capacity", check=False)
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertIn("device.capacity_probe.size_blocks[2]", p.stderr)

    def test_bad_choices_exit_2_naming_the_option(self):
        out = os.path.join(self.tmp.name, "never.svg")
        cases = [
            (SCAN, ["--kind", "pie"], "--kind"),
            (self.synth, ["--kind", "capacity"], "device.capacity_probe"),
            (self.synth, ["--kind", "static"], "device.static_experiment"),
            (self.probed, ["--kind", "capacity", "--family", "1,sync,0"], "--family"),
            (self.probed, ["--kind", "static", "--N", "3072"], "--N"),
            (SCAN, ["--kind", "curves", "--family", "9,sync,0"], "--family"),
            (SCAN, ["--kind", "curves", "--family", "1,warp,0"], "--family"),
            (SCAN, ["--kind", "curves", "--family", "1,sync"], "--family"),
            (SCAN, ["--kind", "curves", "--N", "5000"], "--N"),
            (SCAN, ["--kind", "curves", "--W", "4"], "--W"),
            (SCAN, ["--kind", "transfer", "--W", "3"], "--W"),
            (SCAN, ["--kind", "transfer", "--W", "-1"], "--W"),
            (SCAN, ["--kind", "evaluation", "--family", "1,sync,0"], "--family"),
            (SCAN, ["--kind", "transfer", "--Kg", "64"], "--Kg"),
            (GEMM, ["--kind", "transfer", "--N", "64"], "--N"),
            (GEMM, ["--kind", "curves", "--family", "1,sync,0"], "--family"),
            (GEMM, ["--kind", "transfer", "--Kg", "64"], "--Kg"),
            (SCAN, [], "--kind"),
        ]
        for bundle, args, opt in cases:
            p = run("plot", bundle, *args, "-o", out, check=False)
            self.assertEqual(p.returncode, 2, (args, p.stderr))
            self.assertIn(opt, p.stderr, args)
            self.assertEqual(len(p.stderr.strip().splitlines()), 1, p.stderr)
            self.assertFalse(os.path.exists(out), args)

    def test_unreadable_bundle_exits_1(self):
        p = run("plot", os.path.join(self.tmp.name, "missing.json"), "--kind", "curves",
                check=False)
        self.assertEqual(p.returncode, 1, p.stderr)


if __name__ == "__main__":
    PASCAL, SOURCE = sys.argv[1], sys.argv[2]
    SCAN = os.path.join(SOURCE, "deploy/calibrations/sim-gb10-scan.json")
    GEMM = os.path.join(SOURCE, "deploy/calibrations/sim-gb10-tiled-gemm.json")
    unittest.main(argv=sys.argv[:1], verbosity=1)
