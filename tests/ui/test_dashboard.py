#!/usr/bin/env python3
"""test_dashboard.py - the dashboard in headless Chromium against a live pascald
holding the shipped calibrations, driven through chromedriver's W3C WebDriver
HTTP API with the standard library only (docs/dashboard.md).

Checks, each against the API's own figures:
- devices: every device's row states the peaks and probe data the API has
  for it, and those agree with its calibrations' plots (a capacity or
  static plot loads exactly where the row says the data exists);
- calibrations: an imported calibration says "imported: N runs" (no full
  "0 / 0" bar), a collecting one shows done / total (percent) and follows
  its jobs without a reload, a frozen collected one "N / N measured";
- collection: the collecting calibration's panel lists the agent holding a
  lease, a rate and a time left once jobs finish, and when the last job is
  done it says "All N runs measured: ready to freeze." with the freeze
  command, which (run as shown) freezes it; then the panel says nothing is
  being measured and, choosing the new calibration, the losing-family
  warning of the freeze is shown, as the API lists it;
- plots: every chart loads and has the series `pascal plot` draws for the
  exported bundle; the calibration's keys and the held-out panel's keys are
  two charts with their own axes; every method of the evaluation chart has
  markers and no two markers share a spot; a chart whose data is absent is
  a note naming what is missing; GEMM families read "Mg = ...";
- predict: every field of every workload (from GET /v1/schema: the GEMM and
  attention fields too) has its help beside it; the scan answer shows K
  (the API's), the fills, time and bound, the interval, the rule, the
  expected error, extrapolation, the losing family, the advice and what the
  capacity probe keeps in L2 (N between C and the smallest size) formatted
  for people (no exponent), the explanation as a readable list; the GEMM
  answer shows "< 0.01 %" for an error of 1e-14;
- no CSP violation or script error; screenshots of the page, the collection
  panel in its ready state, the predict answer and the plots, none blank.

argv[1]: where to save the main screenshot (PNG); the others go beside it.
Exit 77 when chromium or chromedriver is missing, unless CI=true, where that
is a failure."""
import base64
import json
import os
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import time
import unittest
import urllib.error
import urllib.request
import zlib

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "api"))
from harness import (DEVICE, PASCAL_CLI, SHIPPED, SMALL_PLAN, Daemon, law_fill,  # noqa: E402
                     shipped_bundles)
from test_answer_trust import alternating_fill  # noqa: E402
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "harness"))
import ci_skip  # noqa: E402
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "plot"))
from test_plot_cli import marker_centres  # noqa: E402

# The shipped bundles the daemon imports: the measured H100 (its capacity
# scan) and every workload of sim-gb10 (sim-thor's would add only import time).
BUNDLES = ("h100-scan.json", "h100-tiled-gemm.json", "sim-gb10-scan.json",
           "sim-gb10-tiled-gemm.json", "sim-gb10-tiled-attention.json")
# Probe data of the extra device (as POST /v1/devices takes it).
PROBE = {"waves": 4, "size_blocks": [64, 128, 192, 256, 320, 384],
         "fill_ratio": [1.0, 1.0, 1.01, 1.04, 3.1, 4.0]}
STATIC = {"M": 4, "N": 8192, "H": 100,
          "rows": [{"block_bytes": 16384, "C": 256, "clusters": c, "K": c * 1.2, "gap_law": c,
                    "sdcm": c * 1.1, "che": c + 2.0} for c in (1, 2, 4)]}
DEVICE_KEYS = {"capacity": "capacity_probe", "static": "static_experiment"}
SCREENSHOT = sys.argv[1] if len(sys.argv) > 1 else "dashboard.png"


def shipped_devices():
    """The device of every bundle pascald imports at start-up, one entry per
    bundle (a device with a scan and a GEMM bundle appears twice)."""
    names = []
    for f in BUNDLES:
        with open(os.path.join(SHIPPED, f)) as fh:
            names.append(json.load(fh)["device"]["name"])
    return sorted(names)


def fmt(x):
    """The page's number format (app.js fmt) for the values these tests read."""
    if x is None:
        return "-"
    if abs(x) >= 1e6 or (abs(x) < 1e-3 and x != 0):
        raise AssertionError("exponent format not expected here: %r" % x)
    return "%.2f" % x


def find_browser():
    for path in ("/usr/lib/chromium/chromium", shutil.which("chromium")):
        if path and os.access(path, os.X_OK):
            return path, shutil.which("chromedriver")
    return None, shutil.which("chromedriver")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def http(method, url, body=None, timeout=60, token=None):
    data = json.dumps(body).encode() if body is not None else None
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = "Bearer " + token
    req = urllib.request.Request(url, data=data, method=method, headers=headers)
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()


class WebDriver:
    """The few W3C WebDriver commands the test needs."""

    def __init__(self, browser, driver, workdir):
        self.port = free_port()
        self.log = open(os.path.join(workdir, "chromedriver.log"), "wb")
        self.proc = subprocess.Popen([driver, "--port=%d" % self.port],
                                     stdout=self.log, stderr=subprocess.STDOUT)
        self.base = "http://127.0.0.1:%d" % self.port
        deadline = time.monotonic() + 30
        while True:
            try:
                if json.loads(http("GET", self.base + "/status", timeout=5)[1])["value"]["ready"]:
                    break
            except (OSError, ValueError, KeyError):
                pass
            if time.monotonic() > deadline or self.proc.poll() is not None:
                raise RuntimeError("chromedriver did not start")
            time.sleep(0.2)
        caps = {"browserName": "chrome", "goog:loggingPrefs": {"browser": "ALL"},
                "goog:chromeOptions": {"binary": browser, "args": [
                    "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                    "--window-size=1280,1000", "--user-data-dir=" + os.path.join(workdir, "profile")]}}
        status, raw = http("POST", self.base + "/session", {"capabilities": {"alwaysMatch": caps}},
                           timeout=120)
        if status != 200:
            self.close()
            raise RuntimeError("no WebDriver session: %s" % raw[:500])
        self.session = self.base + "/session/" + json.loads(raw)["value"]["sessionId"]

    def cmd(self, method, path, body=None):
        status, raw = http(method, self.session + path, body)
        value = json.loads(raw)["value"] if raw else None
        if status != 200:
            raise AssertionError("WebDriver %s %s: %s" % (method, path, value))
        return value

    def js(self, script, *args):
        return self.cmd("POST", "/execute/sync", {"script": script, "args": list(args)})

    def wait(self, script, what, timeout=60):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            value = self.js(script)
            if value:
                return value
            time.sleep(0.25)
        raise AssertionError("timed out waiting for " + what)

    def close(self):
        if getattr(self, "session", None):
            try:
                http("DELETE", self.session, timeout=30)
            except OSError:
                pass
        self.proc.terminate()
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.log.close()


def png_pixels(png):
    """Width, height and rows of RGB(A) bytes of an 8-bit PNG (zlib only)."""
    assert png[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat = 8, b""
    while pos < len(png):
        n, kind = struct.unpack(">I4s", png[pos:pos + 8])
        chunk = png[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, colour = struct.unpack(">IIBB", chunk[:10])
            assert depth == 8 and colour in (2, 6), (depth, colour)
            bpp = 3 if colour == 2 else 4
        elif kind == b"IDAT":
            idat += chunk
        pos += 12 + n
    raw = zlib.decompress(idat)
    stride = w * bpp
    rows, prev = [], bytearray(stride)
    for y in range(h):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        if f == 1:
            for i in range(bpp, stride):
                line[i] = (line[i] + line[i - bpp]) & 255
        elif f == 2:
            line = bytearray((a + b) & 255 for a, b in zip(line, prev))
        elif f == 3:
            for i in range(stride):
                left = line[i - bpp] if i >= bpp else 0
                line[i] = (line[i] + ((left + prev[i]) >> 1)) & 255
        elif f == 4:
            for i in range(stride):
                a = line[i - bpp] if i >= bpp else 0
                b, c = prev[i], prev[i - bpp] if i >= bpp else 0
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(line)
        prev = line
    return w, h, bpp, rows


class Dashboard(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory(prefix="pascal-ui-")
        cls.d = Daemon(cls.tmp.name, bundles=shipped_bundles(cls.tmp.name, *BUNDLES))
        cls.admin = cls.d.token("admin", "ui-admin")
        cls.agent = cls.d.token("agent", "ui-agent")
        cls.d.start()
        cls.url = "http://127.0.0.1:%d" % cls.d.port
        # a frozen calibration of a device that carries probe data (made up
        # here), for the capacity and static plots
        probed = dict(DEVICE, name="with-probe", capacity_probe=PROBE, static_experiment=STATIC)
        status, raw = http("POST", cls.url + "/v1/devices", probed, token=cls.admin)
        assert status == 201, raw
        status, raw = http("POST", cls.url + "/v1/calibrations",
                           {"device": "with-probe", "plan": SMALL_PLAN}, token=cls.admin)
        assert status == 201, raw
        cls.probed = json.loads(raw)["id"]
        while True:
            status, raw = http("POST", cls.url + "/v1/jobs/claim",
                               {"device": "with-probe", "agent": "ui-setup"}, token=cls.agent)
            job = json.loads(raw)["job"]
            if job is None:
                break
            http("POST", cls.url + "/v1/jobs/%d/result" % job["id"],
                 {"lease_token": job["lease_token"], "fill_bytes": law_fill(job["run"]),
                  "kernel_ns": 1000.0}, token=cls.agent)
        status, raw = http("POST", cls.url + "/v1/calibrations/%d/freeze" % cls.probed,
                           token=cls.admin)
        assert status == 200, raw
        # a calibration still collecting, whose progress the page follows
        http("POST", cls.url + "/v1/devices", DEVICE, token=cls.admin)
        status, raw = http("POST", cls.url + "/v1/calibrations",
                           {"device": DEVICE["name"], "plan": SMALL_PLAN}, token=cls.admin)
        assert status == 201, raw
        cls.collecting = json.loads(raw)
        try:
            cls.wd = WebDriver(BROWSER, DRIVER, cls.tmp.name)
        except Exception:
            cls.d.stop()
            cls.tmp.cleanup()
            raise

    @classmethod
    def tearDownClass(cls):
        cls.wd.close()
        rc = cls.d.stop()
        cls.tmp.cleanup()
        assert rc == 0, "pascald exited with %r" % rc

    def load(self):
        self.wd.cmd("POST", "/url", {"url": self.url + "/"})
        self.wd.wait("return document.body.getAttribute('data-loaded') === '1' && "
                     "document.querySelectorAll('#validation tbody tr').length > 0",
                     "the tables")

    def api(self, path):
        status, raw = http("GET", self.url + path)
        self.assertEqual(status, 200, path)
        return json.loads(raw)

    def shot(self, name, selector=None):
        """A screenshot (of the element `selector`, else the viewport) saved
        beside SCREENSHOT as NAME.png; checked not to be blank."""
        if selector:
            e = self.wd.cmd("POST", "/element", {"using": "css selector", "value": selector})
            eid = next(iter(e.values()))
            self.wd.js("arguments[0].scrollIntoView()", e)
            png = base64.b64decode(self.wd.cmd("GET", "/element/%s/screenshot" % eid))
        else:
            png = base64.b64decode(self.wd.cmd("GET", "/screenshot"))
        path = SCREENSHOT if name is None else os.path.join(os.path.dirname(
            os.path.abspath(SCREENSHOT)), "dashboard-%s.png" % name)
        with open(path, "wb") as f:
            f.write(png)
        w, h, bpp, pixels = png_pixels(png)
        colours, ink = set(), 0
        for row in pixels[::4]:
            for x in range(0, w * bpp, 4 * bpp):
                px = bytes(row[x:x + 3])
                colours.add(px)
                ink += px != b"\xff\xff\xff" and px != b"\xfa\xfa\xfa"
        samples = len(pixels[::4]) * len(range(0, w * bpp, 4 * bpp))
        self.assertGreater(len(colours), 20, path)
        self.assertGreater(ink / samples, 0.02, path)
        print("screenshot %s: %dx%d, %d colours, %.0f%% not background" %
              (path, w, h, len(colours), 100.0 * ink / samples))
        return w, h

    def cli_series(self, bundle, kind):
        out = os.path.join(self.tmp.name, kind + ".svg")
        subprocess.run([PASCAL_CLI, "plot", bundle, "--kind", kind, "-o", out], check=True)
        with open(out, encoding="utf-8") as f:
            return f.read().count('<g class="series"')

    def check_plots(self, cid):
        """The six plots of calibration `cid` as the page shows them: an
        image where the data exists (the held-out panel in the bundle, the
        probe data in the bundle or with the device, as its row says), with
        the series `pascal plot` draws for the exported bundle, else a note
        naming the missing field. Returns the number of images and the URLs
        of the absent plots."""
        bundle = os.path.join(self.tmp.name, "export-%s.json" % cid)
        status, raw = http("GET", self.url + "/v1/calibrations/%s/export" % cid)
        self.assertEqual(status, 200)
        with open(bundle, "wb") as f:
            f.write(raw)
        doc = json.loads(raw)
        device = self.api("/v1/devices/" + doc["device"]["name"])
        present = {k for k, key in DEVICE_KEYS.items()
                   if key in doc["device"] or device.get(key) is not None}
        if doc.get("heldout"):
            present.add("heldout")
        want = 3 + len(present)
        imgs, notes = self.wd.wait(
            "const a = [...document.querySelectorAll('img.plot')], "
            "n = [...document.querySelectorAll('#plots .absent')];"
            "return a.length === %d && n.length === %d && "
            "a.every(i => i.complete && i.src.includes('/calibrations/%s/')) && "
            "[a.map(i => [i.dataset.kind, i.src, i.naturalWidth]),"
            " n.map(p => [p.dataset.kind, p.textContent])]" % (want, 6 - want, cid),
            "the plots of calibration %s" % cid)
        self.assertEqual(sorted(k for k, _, _ in imgs),
                         sorted(["curves", "transfer", "evaluation", *present]))
        for kind, src, width in imgs:
            self.assertEqual(width, 800, kind)
            status, raw = http("GET", src)
            self.assertEqual(status, 200, src)
            bundled = kind not in DEVICE_KEYS or DEVICE_KEYS[kind] in doc["device"]
            if bundled:  # the CLI draws from the bundle alone
                self.assertEqual(raw.decode().count('<g class="series"'),
                                 self.cli_series(bundle, kind), kind)
            if kind in ("evaluation", "heldout"):
                svg = os.path.join(self.tmp.name, "page-%s.svg" % kind)
                with open(svg, "wb") as f:
                    f.write(raw)
                centres = marker_centres(svg)
                self.assertEqual(len(centres), len(set(centres)), "markers on one spot")
                text = raw.decode()
                self.assertIn(("held-out key rank" if kind == "heldout"
                               else "calibration key rank"), text)
        for kind, text in notes:
            self.assertNotIn(kind, present)
            field = "heldout" if kind == "heldout" else "device." + DEVICE_KEYS[kind]
            self.assertTrue(text.startswith(field + ": "), text)
        return len(imgs), ["%s/v1/calibrations/%s/plots/%s.svg" % (self.url, cid, k)
                           for k, _ in notes]

    def finish_jobs(self, n, fill, hold=False):
        """Claim and complete n jobs of the collecting calibration (or keep
        the last one leased when `hold`); returns the held job."""
        for i in range(n):
            status, raw = http("POST", self.url + "/v1/jobs/claim",
                               {"device": DEVICE["name"], "agent": "ui-hold" if hold and i == n - 1
                                else "ui-test"}, token=self.agent)
            job = json.loads(raw)["job"]
            if job is None:
                return None
            if hold and i == n - 1:
                return job
            status, raw = http("POST", self.url + "/v1/jobs/%d/result" % job["id"],
                               {"lease_token": job["lease_token"], "fill_bytes": fill(job["run"]),
                                "kernel_ns": 1000.0}, token=self.agent)
            self.assertEqual(status, 200, raw)
        return None

    def test_page(self):
        self.load()
        wd = self.wd
        # devices: each row states what the API has for it
        rows = dict(wd.js("return [...document.querySelectorAll('#devices tbody tr')]"
                          ".map(r => [r.dataset.name, [...r.cells].map(c => c.textContent)])"))
        self.assertEqual(sorted(rows), sorted(set(shipped_devices()) | {DEVICE["name"], "with-probe"}))
        for d in self.api("/v1/devices")["devices"]:
            data = ", ".join(t for k, t in (("capacity_probe", "capacity scan"),
                                            ("static_experiment", "static table")) if d.get(k))
            self.assertEqual(rows[d["name"]][8], data or "-", d["name"])
            self.assertEqual(rows[d["name"]][7], "measured" if d.get("peaks") else "-")
        self.assertEqual(rows["with-probe"][8], "capacity scan, static table")
        # the shipped H100 bundles carry a capacity scan: the row says so
        self.assertIn("capacity scan", rows["nvidia-h100-80gb-hbm3"][8])

        # calibrations: imported ones say so, the collecting one counts its jobs
        cells = dict(wd.js("return [...document.querySelectorAll('#calibrations tbody tr')]"
                           ".map(r => [r.dataset.id, [r.dataset.state, r.cells[4].textContent.trim(),"
                           " r.cells[4].querySelectorAll('progress').length]])"))
        cid, total = str(self.collecting["id"]), self.collecting["progress"]["total"]
        for c in self.api("/v1/calibrations")["calibrations"]:
            st, text, bars = cells[str(c["id"])]
            if c["progress"]["total"] == 0:
                self.assertEqual((st, text, bars),
                                 ("frozen", "imported: %s runs" % format(c["measurements"], ","), 0))
        count = lambda done: "%d / %d (%d %%)" % (done, total, 100 * done // total)
        self.assertEqual(cells[cid], ["collecting", count(0), 1])
        t = self.api("/v1/calibrations/%d" % self.probed)["progress"]["total"]
        self.assertEqual(cells[str(self.probed)][1:], ["%d / %d measured" % (t, t), 1])
        progress = "return document.querySelector('#calibrations tr[data-id=\"%s\"]')" \
                   ".cells[4].textContent.trim()" % cid
        panel = "document.querySelector('#collecting .collect[data-id=\"%s\"]')" % cid
        fig = ("return (%s.querySelector('[data-figure=\"%%s\"] .value') || {}).textContent"
               % panel)
        self.assertEqual(wd.js(fig % "agents"), "none")
        self.assertEqual(wd.js(fig % "rate"), "--")
        # jobs finish in two rounds the page sees apart; one stays leased
        self.finish_jobs(3, alternating_fill)
        wd.wait(progress + " === '%s'" % count(3), "live progress", timeout=20)
        time.sleep(2.5)
        held = self.finish_jobs(6, alternating_fill, hold=True)
        wd.wait(progress + " === '%s'" % count(8), "more progress", timeout=20)
        self.assertEqual(wd.wait(fig % "agents" + " === 'ui-agent/ui-hold' && 'ok'",
                                 "the agent holding a lease"), "ok")
        rate = wd.wait(fig % "rate" + ".endsWith('jobs/s') && " + (fig % "rate")[7:], "a rate")
        self.assertGreater(float(rate.split()[0]), 0)
        eta = wd.js(fig % "eta")
        self.assertNotEqual(eta, "--")
        self.shot("collecting", "#collection")
        # the rest, and the held job: ready to freeze
        status, raw = http("POST", self.url + "/v1/jobs/%d/result" % held["id"],
                           {"lease_token": held["lease_token"], "fill_bytes":
                            alternating_fill(held["run"]), "kernel_ns": 1000.0}, token=self.agent)
        self.assertEqual(status, 200, raw)
        self.finish_jobs(total, alternating_fill)
        wd.wait("return %s.dataset.ready === '1'" % panel, "the ready state")
        self.assertEqual(wd.js("return %s.querySelector('[data-ready-text]').textContent" % panel),
                         "All %d runs measured: ready to freeze." % total)
        command = wd.js("return %s.querySelector('code').textContent" % panel)
        self.assertEqual(command, 'curl -X POST -H "Authorization: Bearer $ADMIN_TOKEN" '
                                  '%s/v1/calibrations/%s/freeze' % (self.url, cid))
        self.shot("ready", "#collection")
        # run the command as shown (its URL, the admin token for $ADMIN_TOKEN)
        status, raw = http("POST", command.rsplit(" ", 1)[1], token=self.admin)
        self.assertEqual(status, 200, raw)
        warnings = json.loads(raw)["warnings"]
        self.assertTrue(warnings, "alternating_fill makes the tma family lose")
        wd.wait("return !!document.getElementById('nothing-collecting')", "the panel to empty")
        wd.wait(progress + " === '%d / %d measured'" % (total, total), "the frozen row")
        wd.js("const s = document.getElementById('cal-select'); s.value = '%s';"
              "s.dispatchEvent(new Event('change'));" % cid)
        shown = wd.wait("const w = [...document.querySelectorAll('#validation-warnings li')];"
                        "return w.length && w.map(l => l.textContent)", "the losing family")
        self.assertEqual(shown, warnings)
        absent = self.check_plots(cid)[1]
        self.shot("warning", "#detail")

        # the validation table of a shipped scan calibration, held-out row included
        status, raw = http("GET", self.url + "/v1/calibrations")
        scan = [c["id"] for c in json.loads(raw)["calibrations"] if c["workload"] == "scan"][0]
        report = self.api("/v1/calibrations/%d" % scan)["report"]
        wd.js("const s = document.getElementById('cal-select'); s.value = '%d';"
              "s.dispatchEvent(new Event('change'));" % scan)
        wd.wait("return document.querySelector('#validation tbody tr td') && "
                "document.querySelectorAll('#validation tbody tr').length === %d"
                % (1 + bool(report.get("heldout")) + bool(report.get("offgrid"))), "the table")
        rows = wd.js("return [...document.querySelectorAll('#validation tbody tr')]"
                     ".map(r => [...r.cells].map(c => c.textContent))")
        self.assertEqual(rows[0][0], "LOKO folds")
        self.assertEqual(rows[0][1], "63")  # the scan calibration's keys
        cols = report["table"]["columns"] if report.get("table") else list(report["balanced_mape"])
        held = report["heldout"]
        self.assertEqual(rows[1][:2], ["held-out panel",
                                       str(held.get("n_keys_scored", held.get("n_keys")))])
        self.assertEqual(rows[1][2:], [fmt(held["balanced_mape"][c]) for c in cols])
        self.assertEqual(wd.js("return document.querySelectorAll('#stats div').length"), 11)
        absent += self.check_plots(str(scan))[1]
        self.shot("evaluation", "#plots figure[data-kind=evaluation]")
        self.shot("heldout", "#plots figure[data-kind=heldout]")

        # the predict form: every field of every workload with its help
        schema = self.api("/v1/schema")
        for w, fields in schema["queries"].items():
            helps = wd.js("return [...document.querySelectorAll('#%s-fields label.field')]"
                          ".map(l => [l.dataset.field, l.querySelector('.help').textContent])" % w)
            self.assertEqual([h[0] for h in helps], [f["name"] for f in fields], w)
            for (name, text), f in zip(helps, fields):
                self.assertTrue(text.startswith(f["doc"]), (w, name, text))
        self.assertIn("gemm", schema["queries"])
        self.assertIn("attention", schema["queries"])

        # the scan answer, formatted for people (the measured H100 sorts first: choose sim-gb10)
        wd.js("const s = document.getElementById('predict-device'); s.value = 'sim-gb10';"
              "s.dispatchEvent(new Event('change'));")
        self.assertEqual(wd.js("return ['scan-fields', 'gemm-fields', 'attention-fields'].map(i => "
                               "getComputedStyle(document.getElementById(i)).display)"),
                         ["inline-block", "none", "none"])
        form = {"device": "sim-gb10", "o": 2, "path": "tma", "d": 3, "m": 7, "N": 6144, "W": 64}
        status, raw = http("POST", self.url + "/v1/predict", form)
        self.assertEqual(status, 200)
        a = json.loads(raw)
        button = wd.cmd("POST", "/element", {"using": "css selector",
                                             "value": "#predict-form button"})
        wd.cmd("POST", "/element/%s/click" % next(iter(button.values())), {})
        shown = wd.wait("const k = document.getElementById('answer-k');"
                        "return k && k.textContent", "the answer")
        self.assertEqual(shown, "%.4f" % a["K"])
        figs = dict(wd.js("return [...document.querySelectorAll('#answer [data-figure]')]"
                          ".map(d => [d.dataset.figure, [d.querySelector('.value').textContent,"
                          " (d.querySelector('.detail') || {}).textContent || '',"
                          " (d.querySelector('.help') || {}).textContent || '']])"))
        self.assertEqual(figs["fills"][0], "%s GB" % ("%.3g" % (a["fill_bytes"] / 1e9)))
        self.assertEqual(figs["time"][0], "%s ms" % ("%.3g" % (a["time_s"] * 1e3)))
        self.assertEqual(figs["bound"][1], a["bound"])
        iv = a["interval"]
        self.assertEqual(figs["interval"][0], "K %.3f to %.3f" % (iv["K_low"], iv["K_high"]))
        self.assertEqual(figs["rule"][0], a["rule"])
        pct = a["expected_error_pct"]  # two decimals below 10 %, one above
        self.assertEqual(figs["expected error"][0], ("%.2f %%" if pct < 10 else "%.1f %%") % pct)
        self.assertEqual(figs["extrapolated"][0], "no")
        self.assertIn("loses to aligned K = 1", figs["family loses"][0])
        adv = a["explanation"]["advice"]
        self.assertEqual(figs["advice"][0], "keep the spread under %s blocks" %
                         format(adv["sigma_max"], ","))
        for key, (value, detail, helptext) in figs.items():
            self.assertTrue(helptext, key)  # every figure says what it is
            self.assertNotRegex(value + detail, r"\de[-+]\d", key)  # no exponent for people
        tree = wd.js("return document.getElementById('explanation').textContent")
        self.assertIn("expected_error", tree)
        self.assertNotIn("{", tree)
        self.assertIn('"rule"', wd.js("return document.getElementById('explanation-json')"
                                      ".textContent"))
        self.assertNotIn("residency", figs)
        # between C (1280) and the smallest size (3072): what the capacity probe keeps
        wd.js("document.querySelector('#scan-fields [name=N]').value = '1300';"
              "document.getElementById('answer').replaceChildren();")
        near = json.loads(http("POST", self.url + "/v1/predict", dict(form, N=1300))[1])
        wd.cmd("POST", "/element/%s/click" % next(iter(button.values())), {})
        wd.wait("const k = document.getElementById('answer-k');"
                "return k && k.textContent === %s" % json.dumps("%.4f" % near["K"]), "the N = 1300 answer")
        res = near["explanation"]["residency"]
        fig = wd.js("const d = document.querySelector('#answer [data-figure=residency]');"
                    "return d && [d.querySelector('.value').textContent,"
                    " d.querySelector('.detail').textContent]")
        self.assertEqual(fig[0], "each later pass refetches %d %%" % round(100 * res["refetch"]))
        self.assertIn("bracket, 1,280 to 1,344 blocks", fig[1])
        self.assertIn("K %.3f to %.3f" % (res["K_low"], res["K_high"]), fig[1])
        wd.js("document.querySelector('#scan-fields [name=N]').value = '6144';")
        wd.cmd("POST", "/element/%s/click" % next(iter(button.values())), {})
        wd.wait("const k = document.getElementById('answer-k');"
                "return k && k.textContent === %s" % json.dumps("%.4f" % a["K"]), "the answer again")
        wd.js("document.getElementById('explanation-box').open = true")
        self.shot("predict", "#answer")
        self.shot("form", "#predict-form")

        # sim-gb10's GEMM: the form asks for its fields, the answer is the API's,
        # and an error of 1e-14 % reads "< 0.01 %"
        self.assertEqual(wd.js("return [...document.getElementById('predict-workload').options]"
                               ".map(o => o.value)"), ["scan", "gemm", "attention"])
        wd.js("const s = document.getElementById('predict-workload'); s.value = 'gemm';"
              "s.dispatchEvent(new Event('change'));"
              "document.getElementById('answer').replaceChildren();")
        self.assertEqual(wd.js("return ['scan-fields', 'gemm-fields'].map(i => "
                               "getComputedStyle(document.getElementById(i)).display)"),
                         ["none", "inline-block"])
        # the calibrated configuration: the tile, stages, element size and
        # raster fields, whose absence means the calibration's own, start
        # empty (their examples would ask for another configuration)
        self.assertEqual(wd.js("return [...document.querySelectorAll('#gemm-fields input')]"
                               ".map(i => [i.name, i.value])"),
                         [["Mg", "1024"], ["Ng", "1024"], ["Kg", "4096"], ["tile_m", ""],
                          ["tile_n", ""], ["tile_k", ""], ["elem_bytes", ""], ["stages", ""],
                          ["group_m", ""]])
        status, raw = http("POST", self.url + "/v1/predict",
                           {"device": "sim-gb10", "Mg": 1024, "Ng": 1024, "Kg": 4096})
        g = json.loads(raw)
        wd.cmd("POST", "/element/%s/click" % next(iter(button.values())), {})
        shown = wd.wait("const k = document.getElementById('answer-k');"
                        "return k && k.textContent", "the GEMM answer")
        self.assertEqual(shown, "%.4f" % g["K"])
        self.assertLess(g["expected_error_pct"], 0.005)
        self.assertEqual(wd.js("return document.querySelector('#answer [data-figure=\"expected "
                               "error\"] .value').textContent"), "< 0.01 %")

        # the GEMM calibration: families read "Mg = ...", plots as the bundle draws them
        gemm = [c["id"] for c in self.api("/v1/calibrations")["calibrations"]
                if c["workload"] == "gemm" and c["device"] == "sim-gb10"][0]
        wd.js("const s = document.getElementById('cal-select'); s.value = '%d';"
              "s.dispatchEvent(new Event('change'));" % gemm)
        absent += self.check_plots(str(gemm))[1]
        fams = wd.js("return [...document.getElementById('family-select').options]"
                     ".map(o => o.textContent)")
        self.assertEqual(fams[0], "default")
        self.assertTrue(all(f.startswith("Mg = ") for f in fams[1:]) and len(fams) > 2, fams)
        # the device with probe data: its capacity and static plots are drawn
        wd.js("const s = document.getElementById('cal-select'); s.value = '%d';"
              "s.dispatchEvent(new Event('change'));" % self.probed)
        absent += self.check_plots(str(self.probed))[1]

        # no script error and no CSP violation on the way
        log = wd.cmd("GET", "/se/log/types") and wd.cmd("POST", "/se/log", {"type": "browser"})
        # (the page asks for optional plots first: the 404 of one whose data is
        # absent is the browser's network log, not a page error)
        bad = [e["message"] for e in log if e["level"] == "SEVERE"
               and "favicon.ico" not in e["message"]
               and not any(e["message"].startswith(u + " - Failed to load resource: the server "
                                                   "responded with a status of 404")
                           for u in absent)]
        self.assertEqual(bad, [], "\n".join(bad))

        # the top of the page
        wd.js("window.scrollTo(0, 0)")
        w, h = self.shot(None)
        self.assertEqual((w, h), tuple(wd.js("return [window.innerWidth, window.innerHeight]")))


if __name__ == "__main__":
    BROWSER, DRIVER = find_browser()
    if not BROWSER or not DRIVER:
        ci_skip.missing("chromium" if not BROWSER else "chromedriver",
                        "chromium chromium-driver; deploy/install-deps.sh does")
    unittest.main(argv=sys.argv[:1], verbosity=2)
