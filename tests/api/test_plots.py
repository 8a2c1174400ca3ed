"""test_plots.py - GET /v1/calibrations/{id}/plots/{kind}.svg and the dashboard
files over real HTTP from a daemon holding the shipped calibrations: every
plot is well-formed SVG identical to `pascal plot` on the exported bundle
(whose series counts tests/plot/test_plot_cli.py checks against the bundle),
the second answer comes from the cache, every bad choice is a 4xx naming the
field, a calibration still collecting is 409, and the page's security headers
allow this origin only."""
import os
import subprocess
import tempfile
import unittest
import xml.etree.ElementTree as ET

from harness import (DEVICE, PASCAL_CLI, SMALL_PLAN, SOURCE, Daemon, DaemonTest, shipped_bundles)

SVG = "{http://www.w3.org/2000/svg}"


def n_series(raw):
    root = ET.fromstring(raw)
    assert root.tag == SVG + "svg"
    return sum(1 for g in root.iter(SVG + "g") if g.get("class") == "series")


class Plots(DaemonTest):
    shipped = ("sim-gb10-scan.json", "sim-gb10-tiled-gemm.json")

    def cal_ids(self):
        r = self.req("GET", "/v1/calibrations")
        return {c["workload"]: c["id"] for c in r.json["calibrations"]
                if c["device"] == "sim-gb10"}

    def cli_plot(self, cid, kind, *args):
        """`pascal plot` on the bundle the daemon exports."""
        with tempfile.TemporaryDirectory() as tmp:
            bundle = os.path.join(tmp, "b.json")
            with open(bundle, "wb") as f:
                f.write(self.req("GET", "/v1/calibrations/%d/export" % cid).raw)
            out = os.path.join(tmp, "p.svg")
            subprocess.run([PASCAL_CLI, "plot", bundle, "--kind", kind, *args, "-o", out],
                           check=True, capture_output=True)
            with open(out, "rb") as f:
                return f.read()

    def test_plots_match_the_cli(self):
        ids = self.cal_ids()
        cases = [("scan", "curves", "", ()), ("scan", "curves", "?family=2,tma,2&N=4096",
                                              ("--family", "2,tma,2", "--N", "4096")),
                 ("scan", "transfer", "?W=16", ("--W", "16")), ("scan", "evaluation", "", ()),
                 ("gemm", "curves", "?family=512", ("--family", "512")),
                 ("gemm", "transfer", "?Kg=2048", ("--Kg", "2048")),
                 ("gemm", "evaluation", "", ())]
        for wl, kind, query, args in cases:
            path = "/v1/calibrations/%d/plots/%s.svg%s" % (ids[wl], kind, query)
            r = self.req("GET", path)
            self.assertStatus(r, 200)
            self.assertEqual(r.ctype, "image/svg+xml; charset=utf-8")
            self.assertIn("default-src 'none'", r.headers["content-security-policy"])
            self.assertGreater(n_series(r.raw), 0, path)
            self.assertEqual(r.raw, self.cli_plot(ids[wl], kind, *args), path)
            again = self.req("GET", path)  # from the cache: the same bytes
            self.assertStatus(again, 200)
            self.assertEqual(again.raw, r.raw)

    def test_bad_choices_name_the_field(self):
        cid = self.cal_ids()["scan"]
        base = "/v1/calibrations/%d/plots/" % cid
        cases = [("pie.svg", 400, "kind"), ("curves", 404, "kind"), ("curves.png", 404, "kind"),
                 ("curves.svg?family=x", 400, "family"),
                 ("curves.svg?family=1,warp,0", 400, "family"),
                 ("curves.svg?family=9,sync,0", 404, "family"),
                 ("curves.svg?N=5000", 404, "N"), ("curves.svg?N=abc", 400, "N"),
                 ("curves.svg?N=0", 400, "N"), ("transfer.svg?W=3", 404, "W"),
                 ("transfer.svg?W=-1", 400, "W"), ("curves.svg?W=4", 400, "W"),
                 ("evaluation.svg?family=1,sync,0", 400, "family"),
                 ("transfer.svg?Kg=64", 400, "Kg"), ("curves.svg?bogus=1", 400, "bogus"),
                 ("curves.svg?N=1&N=2", 400, "N")]
        for tail, status, field in cases:
            r = self.req("GET", base + tail)
            self.assertEqual(r.status, status, (tail, r.raw))
            self.assertEqual(r.json["error"]["field"], field, (tail, r.raw))
        r = self.req("GET", "/v1/calibrations/999/plots/curves.svg")
        self.assertStatus(r, 404, "not_found")

    def test_probe_plots_follow_the_bundle(self):
        """capacity and static: drawn when the bundle's device carries the
        data, else 404 naming what is missing (tests/e2e/test_probe_plots.py
        counts their series)."""
        for cid in self.cal_ids().values():
            device = self.req("GET", "/v1/calibrations/%d/export" % cid).json["device"]
            for kind, key in (("capacity", "capacity_probe"), ("static", "static_experiment")):
                r = self.req("GET", "/v1/calibrations/%d/plots/%s.svg" % (cid, kind))
                if key in device:
                    self.assertStatus(r, 200)
                    self.assertEqual(r.raw, self.cli_plot(cid, kind))
                else:
                    self.assertStatus(r, 404, "not_found")
                    self.assertEqual(r.json["error"]["field"], "device." + key)
                    self.assertIn(key, r.json["error"]["message"])

    def test_collecting_calibration_is_409(self):
        self.req("POST", "/v1/devices", DEVICE, token=self.admin)
        r = self.req("POST", "/v1/calibrations", {"device": DEVICE["name"], "plan": SMALL_PLAN},
                     token=self.admin)
        self.assertStatus(r, 201)
        r = self.req("GET", "/v1/calibrations/%d/plots/curves.svg" % r.json["id"])
        self.assertStatus(r, 409, "not_frozen")

    def test_dashboard_files_and_headers(self):
        r = self.req("GET", "/")
        self.assertStatus(r, 200)
        self.assertEqual(r.ctype, "text/html; charset=utf-8")
        csp = r.headers["content-security-policy"]
        self.assertIn("default-src 'none'", csp)
        self.assertIn("script-src 'self'", csp)
        self.assertIn("frame-ancestors 'none'", csp)
        self.assertNotIn("unsafe", csp)
        self.assertEqual(r.headers["x-content-type-options"], "nosniff")
        self.assertIn(b'src="/ui/app.js"', r.raw)
        self.assertNotIn(b"<script>", r.raw)  # no inline script: the CSP would block it
        for name, ctype in (("app.js", "text/javascript"), ("app.css", "text/css")):
            r = self.req("GET", "/ui/" + name)
            self.assertStatus(r, 200)
            self.assertEqual(r.ctype, ctype + "; charset=utf-8")
            with open(os.path.join(SOURCE, "server", "pascald", "ui", name), "rb") as f:
                self.assertEqual(r.raw, f.read())
        r = self.req("GET", "/ui/missing.js")
        self.assertStatus(r, 404, "not_found")
        self.assertEqual(r.json["error"]["field"], "file")
        # the API keeps its own headers: JSON answers carry no page policy
        r = self.req("GET", "/v1/stats")
        self.assertEqual(r.headers.get("cache-control"), "no-store")


class PlotsWithAuthReads(unittest.TestCase):
    def test_page_open_plots_need_a_token(self):
        with tempfile.TemporaryDirectory() as tmp:
            d = Daemon(tmp, ("--auth-reads",), bundles=shipped_bundles(tmp, "sim-gb10-scan.json"))
            reader = d.token("agent", "reader")
            d.start()
            try:
                self.assertEqual(d.request("GET", "/").status, 200)
                self.assertEqual(d.request("GET", "/ui/app.js").status, 200)
                r = d.request("GET", "/v1/calibrations/1/plots/curves.svg")
                self.assertEqual(r.status, 401)
                r = d.request("GET", "/v1/calibrations/1/plots/curves.svg", token=reader)
                self.assertEqual(r.status, 200)
            finally:
                self.assertEqual(d.stop(), 0)


if __name__ == "__main__":
    unittest.main(verbosity=2)
