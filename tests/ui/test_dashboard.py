#!/usr/bin/env python3
"""test_dashboard.py - the dashboard in headless Chromium against a live pascald
holding the shipped calibrations, driven through chromedriver's W3C WebDriver
HTTP API with the standard library only (docs/dashboard.md).

Checks: the tables fill (devices, calibrations, validation); the progress of
a calibration still collecting follows its jobs without a reload; every plot image
loads and the SVG behind it has as many series as `pascal plot` draws for the
bundle (tests/plot/test_plot_cli.py ties those to the bundle), the capacity
and static plots among them for a device that carries probe data, and a
note naming the missing field where a bundle has none; the held-out panel's
row of the validation table shows the API's figures; the predict
form's answer is the API's K; the page raised no CSP violation or script
error; a screenshot is saved and is not blank.

argv[1]: where to save the screenshot (PNG). Exit 77 when chromium or
chromedriver is missing, unless CI=true, where that is a failure."""
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
from harness import DEVICE, PASCAL_CLI, SMALL_PLAN, SOURCE, Daemon, law_fill  # noqa: E402
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "harness"))
import ci_skip  # noqa: E402

BUNDLES = os.path.join(SOURCE, "deploy", "calibrations")
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
    for f in sorted(os.listdir(BUNDLES)):
        if f.endswith(".json"):
            with open(os.path.join(BUNDLES, f)) as fh:
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
        cls.d = Daemon(cls.tmp.name, bundles=BUNDLES)
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

    def cli_series(self, bundle, kind):
        out = os.path.join(self.tmp.name, kind + ".svg")
        subprocess.run([PASCAL_CLI, "plot", bundle, "--kind", kind, "-o", out], check=True)
        with open(out, encoding="utf-8") as f:
            return f.read().count('<g class="series"')

    def check_plots(self, cid):
        """The five plots of calibration `cid` as the page shows them: an
        image with the series `pascal plot` draws for the exported bundle, or,
        for probe data the bundle lacks, a note naming the field. Returns the
        number of images and the URLs of the absent plots."""
        bundle = os.path.join(self.tmp.name, "export-%s.json" % cid)
        status, raw = http("GET", self.url + "/v1/calibrations/%s/export" % cid)
        self.assertEqual(status, 200)
        with open(bundle, "wb") as f:
            f.write(raw)
        device = json.loads(raw)["device"]
        present = {k for k, key in DEVICE_KEYS.items() if key in device}
        want = 3 + len(present)
        imgs, notes = self.wd.wait(
            "const a = [...document.querySelectorAll('img.plot')], "
            "n = [...document.querySelectorAll('#plots .absent')];"
            "return a.length === %d && n.length === %d && "
            "a.every(i => i.complete && i.src.includes('/calibrations/%s/')) && "
            "[a.map(i => [i.dataset.kind, i.src, i.naturalWidth]),"
            " n.map(p => [p.dataset.kind, p.textContent])]" % (want, 5 - want, cid),
            "the plots of calibration %s" % cid)
        self.assertEqual(sorted(k for k, _, _ in imgs),
                         sorted(["curves", "transfer", "evaluation", *present]))
        for kind, src, width in imgs:
            self.assertEqual(width, 800, kind)
            status, raw = http("GET", src)
            self.assertEqual(status, 200, src)
            self.assertEqual(raw.decode().count('<g class="series"'),
                             self.cli_series(bundle, kind), kind)
        for kind, text in notes:
            self.assertNotIn(kind, present)
            self.assertTrue(text.startswith("device." + DEVICE_KEYS[kind] + ": "), text)
        return len(imgs), ["%s/v1/calibrations/%s/plots/%s.svg" % (self.url, cid, k)
                           for k, _ in notes]

    def test_page(self):
        self.load()
        wd = self.wd
        # tables
        self.assertEqual(wd.js("return [...document.querySelectorAll('#devices tbody tr')]"
                               ".map(r => r.dataset.name).sort()"),
                         sorted(set(shipped_devices()) | {DEVICE["name"], "with-probe"}))
        self.assertEqual(wd.js("return document.querySelector('#devices tr[data-name=\"with-probe\"]')"
                               ".cells[6].textContent"), "capacity scan, static table")
        cals = dict(wd.js("return [...document.querySelectorAll('#calibrations tbody tr')]"
                          ".map(r => [r.dataset.id, r.dataset.state])"))
        cid, total = str(self.collecting["id"]), self.collecting["progress"]["total"]
        self.assertEqual(cals.pop(cid), "collecting")
        self.assertEqual(sorted(cals.values()), ["frozen"] * (len(shipped_devices()) + 1))
        progress = "return document.querySelector('#calibrations tr[data-id=\"%s\"]')" \
                   ".cells[4].textContent.trim()" % cid
        self.assertEqual(wd.js(progress), "0 / %d" % total)
        # the agent completes three jobs: the page shows it without a reload
        for _ in range(3):
            status, raw = http("POST", self.url + "/v1/jobs/claim",
                               {"device": DEVICE["name"], "agent": "ui-test"}, token=self.agent)
            job = json.loads(raw)["job"]
            status, raw = http("POST", self.url + "/v1/jobs/%d/result" % job["id"],
                               {"lease_token": job["lease_token"], "fill_bytes": law_fill(job["run"]),
                                "kernel_ns": 1000.0}, token=self.agent)
            self.assertEqual(status, 200, raw)
        wd.wait(progress + " === '3 / %d'" % total,
                "live progress", timeout=20)
        rows = wd.js("return [...document.querySelectorAll('#validation tbody tr')]"
                     ".map(r => [...r.cells].map(c => c.textContent))")
        self.assertEqual(rows[0][0], "LOKO folds")
        self.assertEqual(rows[0][1], "63")  # the scan calibration's keys
        # the held-out panel's row: the API's balanced MAPE of each method
        shown = wd.js("return document.getElementById('cal-select').value")
        status, raw = http("GET", self.url + "/v1/calibrations/" + shown)
        report = json.loads(raw)["report"]
        self.assertIsNotNone(report.get("heldout"), "the shipped scan bundle has a panel")
        cols = report["table"]["columns"] if report.get("table") else list(report["balanced_mape"])
        held = report["heldout"]
        self.assertEqual(len(rows), 2)
        self.assertEqual(rows[1][:2], ["held-out panel",
                                       str(held.get("n_keys_scored", held.get("n_keys")))])
        self.assertEqual(rows[1][2:], [fmt(held["balanced_mape"][c]) for c in cols])
        self.assertEqual(wd.js("return document.querySelectorAll('#stats div').length"), 11)

        # every plot loads and has the series `pascal plot` draws for the bundle;
        # a plot of probe data the bundle lacks is a note naming what is missing
        absent = self.check_plots(shown)[1]

        # the predict form asks for the scan fields of sim-gb10 only, and shows the API's answer
        # (the measured H100 sorts first among the devices: choose sim-gb10)
        wd.js("const s = document.getElementById('predict-device'); s.value = 'sim-gb10';"
              "s.dispatchEvent(new Event('change'));")
        self.assertEqual(wd.js("return ['scan-fields', 'gemm-fields'].map(i => "
                               "getComputedStyle(document.getElementById(i)).display)"),
                         ["inline-block", "none"])
        form = {"device": "sim-gb10", "o": 2, "path": "tma", "d": 3, "m": 7, "N": 6144, "W": 64}
        status, raw = http("POST", self.url + "/v1/predict", form)
        self.assertEqual(status, 200)
        want = json.loads(raw)["K"]
        button = wd.cmd("POST", "/element", {"using": "css selector",
                                             "value": "#predict-form button"})
        wd.cmd("POST", "/element/%s/click" % next(iter(button.values())), {})
        shown = wd.wait("const k = document.getElementById('answer-k');"
                        "return k && k.textContent", "the answer")
        self.assertEqual(shown, "%.4f" % want)
        self.assertTrue(wd.js("return document.getElementById('explanation').textContent"
                              ".includes('\"rule\"')"))

        # sim-gb10 has a GEMM and an attention calibration too: the form offers
        # them, asks for the GEMM fields and shows the API's GEMM answer
        self.assertEqual(wd.js("return [...document.getElementById('predict-workload').options]"
                               ".map(o => o.value)"), ["scan", "gemm", "attention"])
        wd.js("const s = document.getElementById('predict-workload'); s.value = 'gemm';"
              "s.dispatchEvent(new Event('change'));"
              "document.getElementById('answer').replaceChildren();")
        self.assertEqual(wd.js("return ['scan-fields', 'gemm-fields'].map(i => "
                               "getComputedStyle(document.getElementById(i)).display)"),
                         ["none", "inline-block"])
        status, raw = http("POST", self.url + "/v1/predict",
                           {"device": "sim-gb10", "Mg": 1024, "Ng": 1024, "Kg": 4096})
        self.assertEqual(status, 200)
        want = json.loads(raw)["K"]
        wd.cmd("POST", "/element/%s/click" % next(iter(button.values())), {})
        shown = wd.wait("const k = document.getElementById('answer-k');"
                        "return k && k.textContent", "the GEMM answer")
        self.assertEqual(shown, "%.4f" % want)

        # choosing the GEMM calibration redraws its plots
        status, raw = http("GET", self.url + "/v1/calibrations")
        gemm = [c["id"] for c in json.loads(raw)["calibrations"] if c["workload"] == "gemm"][0]
        wd.js("const s = document.getElementById('cal-select'); s.value = '%d';"
              "s.dispatchEvent(new Event('change'));" % gemm)
        absent += self.check_plots(str(gemm))[1]
        # the device with probe data: its capacity and static plots are drawn
        wd.js("const s = document.getElementById('cal-select'); s.value = '%d';"
              "s.dispatchEvent(new Event('change'));" % self.probed)
        self.assertEqual(self.check_plots(str(self.probed)), (5, []))

        # no script error and no CSP violation on the way
        log = wd.cmd("GET", "/se/log/types") and wd.cmd("POST", "/se/log", {"type": "browser"})
        # (the page asks for the probe plots first: the 404 of a bundle
        # without the data is the browser's network log, not a page error)
        bad = [e["message"] for e in log if e["level"] == "SEVERE"
               and "favicon.ico" not in e["message"]
               and not any(e["message"].startswith(u + " - Failed to load resource: the server "
                                                   "responded with a status of 404")
                           for u in absent)]
        self.assertEqual(bad, [])

        # a screenshot (of the top of the page) that is not blank
        wd.js("window.scrollTo(0, 0)")
        png = base64.b64decode(wd.cmd("GET", "/screenshot"))
        with open(SCREENSHOT, "wb") as f:
            f.write(png)
        w, h, bpp, pixels = png_pixels(png)
        self.assertEqual((w, h), tuple(wd.js("return [window.innerWidth, window.innerHeight]")))
        colours, ink = set(), 0
        for row in pixels[::4]:
            for x in range(0, w * bpp, 4 * bpp):
                px = bytes(row[x:x + 3])
                colours.add(px)
                ink += px != b"\xff\xff\xff" and px != b"\xfa\xfa\xfa"
        samples = len(pixels[::4]) * len(range(0, w * bpp, 4 * bpp))
        self.assertGreater(len(colours), 50)
        self.assertGreater(ink / samples, 0.05)
        print("screenshot %s: %dx%d, %d colours, %.0f%% not background" %
              (SCREENSHOT, w, h, len(colours), 100.0 * ink / samples))


if __name__ == "__main__":
    BROWSER, DRIVER = find_browser()
    if not BROWSER or not DRIVER:
        ci_skip.missing("chromium" if not BROWSER else "chromedriver",
                        "chromium chromium-driver; deploy/install-deps.sh does")
    unittest.main(argv=sys.argv[:1], verbosity=2)
