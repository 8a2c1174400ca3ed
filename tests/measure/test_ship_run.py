#!/usr/bin/python3
"""test_ship_run.py - deploy/gpu/ship-run.py, which turns the folder a GPU
host returned into the bundles of deploy/calibrations, and the measured
H100 bundles it made.

Round trip: the shipped h100-scan.json and h100-tiled-gemm.json are taken
apart into the files a measure.sh run writes (the calibration without its
panel, the panel as two held-out parts or as its own GEMM bundle, the
off-grid panels in the work archive, a report.json) and put together
again by ship-run.py: the result must have the shipped bundle's content
hash, panels and model, and a provenance read
from the run's report. The off-grid panels a run leaves in its work
archive (four scan parts, one GEMM bundle) become each bundle's `offgrid`,
the scan's only when all four parts are there; a part of another device
exits 2 naming it. Every bad input exits 2 naming what is wrong and
writes nothing. The shipped bundles themselves: provenance `cuda` with the
facts docs/results-h100.md quotes, and `pascal evaluate` gives its held-out
figures, K and the latency table before (pipeline on peaks) and after (the
calibrated time).

Usage: test_ship_run.py BUILD_DIR SOURCE_DIR
"""
import io
import json
import os
import subprocess
import sys
import tarfile
import tempfile
import unittest

BUILD, SOURCE = sys.argv[1], sys.argv[2]
SHIP = os.path.join(SOURCE, "deploy", "gpu", "ship-run.py")
PASCAL = os.path.join(BUILD, "bin", "pascal")
SHIPPED = os.path.join(SOURCE, "deploy", "calibrations")
REPORT = {"env": {"date": "2026-11-26T21:30:55Z", "host": "Linux 6.18 x86_64 ", "backend": "cuda",
                  "gpu": "NVIDIA H100 80GB HBM3, 580.159.04, 9.0 ", "bundle": "source: 911e2f9 "},
          "probe": {"l2_bytes": 52428800},
          "phases": [{"phase": "scan", "state": "ok", "seconds": 224},
                     {"phase": "heldout", "state": "ok", "seconds": 171},
                     {"phase": "gemm", "state": "ok", "seconds": 35}]}


def load(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def write(path, doc):
    with open(path, "w", encoding="utf-8") as f:
        json.dump(doc, f)


def without_panel(bundle):
    return {k: v for k, v in bundle.items()
            if k not in ("heldout", "offgrid", "model", "report", "content_hash")}


def run_folder(dest):
    """The files measure.sh leaves in its --out folder, made from the shipped bundles."""
    scan, gemm = load(os.path.join(SHIPPED, "h100-scan.json")), load(os.path.join(SHIPPED, "h100-tiled-gemm.json"))
    write(os.path.join(dest, "scan.json"), without_panel(scan))
    half = len(scan["heldout"]) // 2
    parts = [dict(without_panel(scan), measurements=runs)
             for runs in (scan["heldout"][:half], scan["heldout"][half:])]
    write(os.path.join(dest, "heldout.json"), {"format": "pascal-heldout-parts/1", "parts": parts})
    write(os.path.join(dest, "gemm.json"), without_panel(gemm))
    write(os.path.join(dest, "gemm-heldout.json"), dict(without_panel(gemm), measurements=gemm["heldout"]))
    write(os.path.join(dest, "report.json"), REPORT)
    if "offgrid" in scan and "offgrid" in gemm:
        work_archive(dest, offgrid_files(scan, gemm, scan["offgrid"], gemm["offgrid"]))
    return scan, gemm


def offgrid_files(scan, gemm, scan_runs, gemm_runs):
    """The off-grid panels as the offgrid phase leaves them in the work
    archive: the scan's runs in four parts, the GEMM's in one bundle."""
    q = len(scan_runs) // 4
    quarters = [scan_runs[i * q:(i + 1) * q] for i in range(3)] + [scan_runs[3 * q:]]
    files = {"offgrid-%d.json" % (i + 1): dict(without_panel(scan), measurements=runs)
             for i, runs in enumerate(quarters)}
    files["gemm-offgrid.json"] = dict(without_panel(gemm), measurements=gemm_runs)
    return files


def work_archive(run, files):
    """measure-work.tar.gz in run with the given {name: document} at ./name."""
    with tarfile.open(os.path.join(run, "measure-work.tar.gz"), "w:gz") as tar:
        for name, doc in files.items():
            data = json.dumps(doc).encode("utf-8")
            info = tarfile.TarInfo("./" + name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))


def ship(run, out, *extra):
    return subprocess.run([sys.executable, SHIP, run, "--name", "t", "--pascal", PASCAL, "--out", out]
                          + list(extra), capture_output=True, text=True, timeout=120)


class ShipRun(unittest.TestCase):
    def test_round_trip_gives_the_shipped_bundles(self):
        with tempfile.TemporaryDirectory() as run, tempfile.TemporaryDirectory() as out:
            scan, gemm = run_folder(run)
            p = ship(run, out)
            self.assertEqual(p.returncode, 0, p.stderr)
            for name, want in (("t-scan.json", scan), ("t-tiled-gemm.json", gemm)):
                got = load(os.path.join(out, name))
                self.assertEqual(got["content_hash"], want["content_hash"], name)
                self.assertEqual(got["heldout"], want["heldout"], name)
                self.assertEqual(got.get("offgrid"), want.get("offgrid"), name)
                self.assertEqual(got["model"], want["model"], name)
                prov = got["provenance"]
                self.assertEqual((prov["source"], prov["gpu"], prov["driver"], prov["compute_capability"]),
                                 ("cuda", "NVIDIA H100 80GB HBM3", "580.159.04", "9.0"), name)
                self.assertEqual(prov["measured_commit"], "911e2f9", name)
            prov = load(os.path.join(out, "t-scan.json"))["provenance"]
            # 224 s of wall time less the kernels' own time, over the 756 runs
            kernel_s = sum(r["kernel_ns"] for r in scan["measurements"]) / 1e9
            self.assertAlmostEqual(prov["seconds_per_measurement_beyond_kernel"],
                                   (224 - kernel_s) / 756, places=3)
            self.assertEqual(prov["phase_seconds"], {"scan": 224, "heldout": 171})

    def test_offgrid_panels_from_the_work_archive(self):
        # stand-ins for the off-grid parts: the shipped held-out runs, split
        # as the offgrid phase exports them (any runs of the device will do:
        # the script moves them, it does not read them)
        with tempfile.TemporaryDirectory() as run, tempfile.TemporaryDirectory() as out:
            scan, gemm = run_folder(run)
            files = offgrid_files(scan, gemm, scan["heldout"], gemm["heldout"])
            work_archive(run, files)
            write(os.path.join(run, "report.json"),
                  dict(REPORT, phases=REPORT["phases"] + [{"phase": "offgrid", "state": "ok", "seconds": 80}]))
            p = ship(run, out)
            self.assertEqual(p.returncode, 0, p.stderr)
            for name, want, off in (("t-scan.json", scan, scan["heldout"]),
                                    ("t-tiled-gemm.json", gemm, gemm["heldout"])):
                got = load(os.path.join(out, name))
                self.assertEqual(got["offgrid"], off, name)
                self.assertEqual((got["measurements"], got["heldout"], got["model"]),
                                 (want["measurements"], want["heldout"], want["model"]), name)
                self.assertEqual(got["report"]["offgrid"]["n_runs"], len(off), name)
                self.assertEqual(got["provenance"]["phase_seconds"]
                                 ["offgrid (scan and GEMM off-grid panels)"], 80, name)
            # three scan parts: no scan panel; the GEMM one still ships
            del files["offgrid-4.json"]
            work_archive(run, files)
            p = ship(run, out)
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertNotIn("offgrid", load(os.path.join(out, "t-scan.json")))
            self.assertEqual(load(os.path.join(out, "t-tiled-gemm.json"))["offgrid"], gemm["heldout"])
        with tempfile.TemporaryDirectory() as run, tempfile.TemporaryDirectory() as out:
            scan, gemm = run_folder(run)
            other = without_panel(gemm)
            other["device"] = dict(other["device"], name="other-gpu")
            work_archive(run, {"gemm-offgrid.json": dict(other, measurements=gemm["heldout"])})
            p = ship(run, out)
            self.assertEqual(p.returncode, 2, p.stderr)
            self.assertIn("gemm-offgrid.json", p.stderr)
            self.assertEqual(os.listdir(out), [])

    def test_bad_inputs_exit_2_and_write_nothing(self):
        with tempfile.TemporaryDirectory() as run, tempfile.TemporaryDirectory() as out:
            run_folder(run)
            other = load(os.path.join(run, "heldout.json"))
            other["parts"][1]["device"] = dict(other["parts"][1]["device"], name="other-gpu")
            bad_part = os.path.join(run, "bad")
            os.mkdir(bad_part)
            for f in ("scan.json", "report.json"):
                os.link(os.path.join(run, f), os.path.join(bad_part, f))
            write(os.path.join(bad_part, "heldout.json"), other)
            empty = os.path.join(run, "empty")
            os.mkdir(empty)
            cases = [((run, "--name", "Bad Name"), "--name"),
                     ((empty,), "report.json"),
                     ((bad_part,), "heldout.json part 2"),
                     ((run, "--pascal", "/nonexistent/pascal"), "--pascal")]
            for args, named in cases:
                cmd = [sys.executable, SHIP, args[0], "--out", out]
                rest = list(args[1:])
                if "--name" not in rest:
                    rest += ["--name", "t"]
                if "--pascal" not in rest:
                    rest += ["--pascal", PASCAL]
                p = subprocess.run(cmd + rest, capture_output=True, text=True, timeout=60)
                self.assertEqual(p.returncode, 2, (args, p.stderr))
                self.assertIn(named, p.stderr, args)
                self.assertEqual(os.listdir(out), [], args)


class ShippedH100(unittest.TestCase):
    def test_provenance_and_held_out_figures(self):
        for name in ("h100-scan.json", "h100-tiled-gemm.json"):
            prov = load(os.path.join(SHIPPED, name))["provenance"]
            self.assertEqual(prov["source"], "cuda", name)
            for key in ("gpu", "driver", "toolkit", "date", "fill_metric", "cold_read_check", "capacity"):
                self.assertTrue(prov.get(key), (name, key))
            self.assertTrue(prov["fill_metric"].startswith("dram__bytes_read.sum"), name)
        p = subprocess.run([PASCAL, "evaluate", "--json", os.path.join(SHIPPED, "h100-scan.json"),
                            os.path.join(SHIPPED, "h100-tiled-gemm.json")],
                           capture_output=True, text=True, timeout=120)
        self.assertEqual(p.returncode, 0, p.stderr)
        cals = json.loads(p.stdout)["calibrations"]
        held = {c["workload"]: c["report"]["heldout"]["summary"] for c in cals}
        # docs/results-h100.md quotes these (balanced MAPE %, two decimals)
        self.assertEqual(round(held["scan"]["mape"]["pascal"], 2), 0.55)
        self.assertEqual(round(held["scan"]["mape"]["aligned"], 2), 17.00)
        self.assertEqual((held["scan"]["n_runs"], held["scan"]["n_above"]), (420, 184))
        self.assertEqual(round(held["gemm"]["mape"]["pascal"], 2), 2.54)
        # and the latency table before (the pipeline on peaks) and after (the
        # time calibrated on the calibration runs' own kernel_ns), PASCAL's fills
        lat = {c["workload"]: c["report"]["heldout"] for c in cals}
        for wl, before, after in (("scan", 50.02, 0.55), ("gemm", 74.91, 3.82)):
            self.assertEqual(round(lat[wl]["latency"]["all"]["mape"]["pascal"], 2), before, wl)
            self.assertEqual(round(lat[wl]["latency_calibrated"]["all"]["mape"]["pascal"], 2), after, wl)


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1], verbosity=2)
