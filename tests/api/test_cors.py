#!/usr/bin/python3
"""test_cors.py - CORS over real HTTP. Off by default: no Access-Control-*
header on any answer and OPTIONS stays 405. With allowed origins (flag and
config file): an allowed Origin gets Access-Control-Allow-Origin echoed on
answers (errors included) and its preflight is answered 204 with the path's
methods, the request headers and the max-age; another origin gets no
Access-Control-Allow-Origin and its preflight a 403 naming Origin. The
answers' other headers (Cache-Control, WWW-Authenticate) are unchanged, and
a bad origin list stops the daemon at start with a message naming the key."""
import os
import subprocess
import tempfile
import unittest

from harness import Daemon, DaemonTest, PASCALD

WEB = "https://tuner.example.org"
LOCAL = "http://localhost:5173"
PREFLIGHT = {"Origin": WEB, "Access-Control-Request-Method": "POST",
             "Access-Control-Request-Headers": "authorization, content-type"}


def cors_headers(resp):
    return {k: v for k, v in resp.headers.items() if k.startswith("access-control-")}


class CorsOffByDefault(DaemonTest):
    def test_no_cors_headers(self):
        for path in ("/healthz", "/v1/devices", "/v1/no-such-route"):
            r = self.req("GET", path, headers={"Origin": WEB})
            self.assertEqual(cors_headers(r), {}, path)
            self.assertNotIn("vary", r.headers)
            self.assertEqual(r.headers.get("cache-control"), "no-store")

    def test_options_is_not_a_preflight(self):
        r = self.req("OPTIONS", "/v1/predict", headers=PREFLIGHT, validate=False)
        self.assertStatus(r, 405, "method_not_allowed")
        self.assertEqual(cors_headers(r), {})


class CorsByFlag(DaemonTest):
    daemon_args = ("--cors-origins", WEB + ", " + LOCAL, "--cors-max-age", "120")

    def test_allowed_origin_is_echoed(self):
        for origin in (WEB, LOCAL, "HTTPS://Tuner.Example.org"):
            r = self.req("GET", "/v1/devices", headers={"Origin": origin})
            self.assertStatus(r, 200)
            self.assertEqual(r.headers.get("access-control-allow-origin"), origin)
            self.assertEqual(r.headers.get("vary"), "Origin")
            self.assertEqual(r.headers.get("cache-control"), "no-store")

    def test_error_answers_carry_it_too(self):
        # a browser must be able to read the error body
        r = self.req("POST", "/v1/devices", {"name": "x"}, headers={"Origin": WEB})
        self.assertStatus(r, 401, "unauthorized")
        self.assertEqual(r.headers.get("access-control-allow-origin"), WEB)
        self.assertEqual(r.headers.get("www-authenticate"), 'Bearer realm="pascald"')

    def test_other_origins_get_nothing(self):
        for origin in ("https://evil.example.org", WEB + ".evil.org", "https://tuner.example.org:444",
                       "http://tuner.example.org", "null", ""):
            r = self.req("GET", "/v1/devices", headers={"Origin": origin})
            self.assertStatus(r, 200)
            self.assertNotIn("access-control-allow-origin", r.headers, origin)
            self.assertEqual(r.headers.get("vary"), "Origin")
        r = self.req("GET", "/v1/devices")
        self.assertNotIn("access-control-allow-origin", r.headers)

    def test_preflight_allowed(self):
        r = self.req("OPTIONS", "/v1/predict", headers=PREFLIGHT, validate=False)
        self.assertEqual(r.status, 204, r.raw)
        self.assertEqual(r.raw, b"")
        h = r.headers
        self.assertEqual(h.get("access-control-allow-origin"), WEB)
        self.assertEqual(sorted(m.strip() for m in h["access-control-allow-methods"].split(",")),
                         ["GET", "POST"])
        allowed = {x.strip().lower() for x in h["access-control-allow-headers"].split(",")}
        self.assertEqual(allowed, {"authorization", "content-type"})
        self.assertEqual(h.get("access-control-max-age"), "120")
        r = self.req("OPTIONS", "/v1/devices/1", headers=dict(PREFLIGHT, Origin=LOCAL),
                     validate=False)
        self.assertEqual(r.status, 204, r.raw)
        self.assertEqual(r.headers.get("access-control-allow-origin"), LOCAL)

    def test_preflight_refused(self):
        r = self.req("OPTIONS", "/v1/predict",
                     headers=dict(PREFLIGHT, Origin="https://evil.example.org"), validate=False)
        self.assertStatus(r, 403, "forbidden")
        self.assertEqual(r.json["error"]["field"], "Origin")
        self.assertIn("https://evil.example.org", r.json["error"]["message"])
        self.assertNotIn("access-control-allow-origin", r.headers)

    def test_not_a_preflight(self):
        # OPTIONS without Access-Control-Request-Method, and unknown paths
        r = self.req("OPTIONS", "/v1/predict", headers={"Origin": WEB}, validate=False)
        self.assertStatus(r, 405, "method_not_allowed")
        r = self.req("OPTIONS", "/v1/nowhere", headers=PREFLIGHT, validate=False)
        self.assertStatus(r, 404, "not_found")


class CorsConfig(unittest.TestCase):
    def start(self, conf_text, env=None):
        tmp = tempfile.TemporaryDirectory(prefix="pascald-cors-")
        self.addCleanup(tmp.cleanup)
        conf = os.path.join(tmp.name, "pascald.conf")
        with open(conf, "w", encoding="utf-8") as f:
            f.write(conf_text)
        return tmp.name, conf

    def test_config_file_key(self):
        work, conf = self.start('cors_origins = "%s"\ncors_max_age = 0\n' % LOCAL)
        d = Daemon(work, ["--config", conf]).start()
        try:
            r = d.request("OPTIONS", "/v1/bounds", headers=dict(PREFLIGHT, Origin=LOCAL),
                          validate=False)
            self.assertEqual(r.status, 204, r.raw)
            self.assertEqual(r.headers.get("access-control-allow-origin"), LOCAL)
            self.assertEqual(r.headers.get("access-control-max-age"), "0")
            r = d.request("GET", "/healthz", headers={"Origin": WEB})
            self.assertNotIn("access-control-allow-origin", r.headers)
        finally:
            self.assertEqual(d.stop(), 0)

    def test_bad_origin_lists_refused_at_start(self):
        for bad in ("*", "tuner.example.org", "https://tuner.example.org/", "https://a.org/path",
                    "ftp://a.org", "https://a.org:0", "https://a.org:99999", "https://",
                    ",".join("https://h%d.org" % i for i in range(17))):
            work, conf = self.start("cors_origins = %s\n" % bad)
            p = subprocess.run([PASCALD, "--config", conf, "--listen", "127.0.0.1:0",
                                "--db", os.path.join(work, "db"), "--bundles", ""],
                               capture_output=True, text=True, timeout=30)
            self.assertNotEqual(p.returncode, 0, bad)
            self.assertIn("cors_origins", p.stderr, bad)
        work, conf = self.start("cors_max_age = 86401\n")
        p = subprocess.run([PASCALD, "--config", conf, "--listen", "127.0.0.1:0",
                            "--db", os.path.join(work, "db"), "--bundles", ""],
                           capture_output=True, text=True, timeout=30)
        self.assertNotEqual(p.returncode, 0)
        self.assertIn("cors_max_age", p.stderr)


if __name__ == "__main__":
    unittest.main()
