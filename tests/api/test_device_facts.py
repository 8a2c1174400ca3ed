"""test_device_facts.py - a device's facts agree with what its calibrations'
plots draw. Importing a bundle fills in what its device object knows (peaks,
the capacity scan, the static experiment) where the registered device does
not know it yet, and never contradicts what it knows (an import does not
fail over probe data measured another time); a calibration whose own
bundle lacks probe data plots the device's as registered.

The H100 bundles shipped in deploy/calibrations: the scan bundle's device
carries peaks and a capacity scan, the GEMM bundle's the same and the static
experiment as well. Expectations are read from the bundle files.

Verified to fail without the change: after importing both, GET /v1/devices
showed no peaks and no probe data for the device, and the scan
calibration's static plot was a 404."""
import copy
import json
import os
import subprocess
import tempfile
import unittest

from harness import DEVICE, PASCAL_CLI, SOURCE, ApiAsserts, Daemon

BUNDLES = os.path.join(SOURCE, "deploy", "calibrations")


def bundle(name):
    with open(os.path.join(BUNDLES, name), encoding="utf-8") as f:
        return json.load(f)


class DeviceFacts(ApiAsserts, unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="pascald-facts-")
        self.d = Daemon(self.tmp.name)
        self.admin = self.d.token("admin", "facts-admin")
        self.d.start()

    def tearDown(self):
        self.assertEqual(self.d.stop(), 0)
        self.tmp.cleanup()

    def device(self, name):
        r = self.req("GET", "/v1/devices/" + name)
        self.assertStatus(r, 200)
        return r.json

    def test_import_fills_what_the_device_does_not_know(self):
        scan, gemm = bundle("h100-scan.json"), bundle("h100-tiled-gemm.json")
        name = scan["device"]["name"]
        self.assertNotIn("static_experiment", scan["device"])
        r = self.req("POST", "/v1/calibrations/import", scan, token=self.admin)
        self.assertStatus(r, 201)
        cal_scan = r.json["id"]
        dev = self.device(name)
        self.assertEqual(dev["capacity_probe"], scan["device"]["capacity_probe"])
        self.assertEqual(dev["peaks"], scan["device"]["peaks"])
        self.assertIsNone(dev["static_experiment"])
        r = self.req("GET", "/v1/calibrations/%d/plots/static.svg" % cal_scan)
        self.assertStatus(r, 404)
        self.assertEqual(r.json["error"]["field"], "device.static_experiment")

        r = self.req("POST", "/v1/calibrations/import", gemm, token=self.admin)
        self.assertStatus(r, 201)
        cal_gemm = r.json["id"]
        dev = self.device(name)
        self.assertEqual(dev["static_experiment"], gemm["device"]["static_experiment"])
        self.assertEqual(dev["capacity_probe"], scan["device"]["capacity_probe"])
        # the scan calibration's static plot now draws the device's experiment:
        # the same chart as the GEMM calibration's, whose bundle carries it
        a = self.req("GET", "/v1/calibrations/%d/plots/static.svg" % cal_scan, validate=False)
        b = self.req("GET", "/v1/calibrations/%d/plots/static.svg" % cal_gemm, validate=False)
        self.assertEqual((a.status, b.status), (200, 200))
        self.assertEqual(a.raw, b.raw)
        self.assertGreater(a.raw.count(b'class="marker"'), 0)

    def test_import_never_contradicts_the_device(self):
        scan = bundle("h100-scan.json")
        name = scan["device"]["name"]
        probe = copy.deepcopy(scan["device"]["capacity_probe"])
        probe["fill_ratio"][-1] += 0.5  # measured another time
        dev = dict(DEVICE, name=name, arch=scan["device"]["arch"],
                   sm_count=scan["device"]["sm_count"],
                   capacity_blocks=scan["device"]["capacity_blocks"],
                   block_bytes=scan["device"]["block_bytes"], capacity_probe=probe)
        self.assertStatus(self.req("POST", "/v1/devices", dev, token=self.admin), 201)
        r = self.req("POST", "/v1/calibrations/import", scan, token=self.admin)
        self.assertStatus(r, 201)
        got = self.device(name)
        self.assertEqual(got["capacity_probe"], probe)          # kept
        self.assertEqual(got["peaks"], scan["device"]["peaks"])  # filled in
        # the calibration's own capacity plot is its bundle's, not the device's
        r = self.req("GET", "/v1/calibrations/%d/plots/capacity.svg" % r.json["id"],
                     validate=False)
        self.assertStatus(r, 200)
        out = os.path.join(self.tmp.name, "capacity.svg")
        subprocess.run([PASCAL_CLI, "plot", os.path.join(BUNDLES, "h100-scan.json"), "--kind",
                        "capacity", "-o", out], check=True)
        with open(out, "rb") as f:
            self.assertEqual(r.raw, f.read())


if __name__ == "__main__":
    unittest.main()
