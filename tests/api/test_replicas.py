"""test_replicas.py - read replicas over real HTTP on loopback: a primary and
two replicas (own SQLite files); a calibration imported, and one frozen
through the jobs API, on the primary answer on every replica within the poll
interval, under the primary's ids and with the primary's predictions; every
write to a replica is refused with 421 naming the primary; a replica pointed
at a fake primary whose bundle does not match its content hash (or that
answers garbage, or lists nothing) refuses and keeps what it held; a replica
restarted from its own SQLite file, its primary down, serves at once."""
import http.server
import json
import os
import subprocess
import tempfile
import threading
import time
import unittest

from harness import (PASCAL_CLI, PASCALD, SHIPPED, SMALL_PLAN, Client, Daemon,
                     make_frozen_calibration)
from replicas import (BUNDLES, INTERVAL, SETTLE, frozen, primary_url, replica, start_replica_set,
                      sync_now, wait_until)

WRITES = [("POST", "/v1/devices"), ("POST", "/v1/calibrations"), ("POST", "/v1/calibrations/import"),
          ("POST", "/v1/calibrations/1/freeze"), ("POST", "/v1/jobs/claim"),
          ("POST", "/v1/jobs/1/heartbeat"), ("POST", "/v1/jobs/1/result"), ("POST", "/v1/jobs/1/fail"),
          # primary-only listings: a replica holds no jobs or the primary's tokens
          ("GET", "/v1/jobs"), ("GET", "/v1/tokens")]
PREDICT = "/v1/predict?device=testdev&o=1&path=tma&d=2&m=4&N=1024&W=16"


class Replicas(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory(prefix="pascald-replicas-")
        cls.r, cls.p = [], None
        try:
            cls.p, cls.r = start_replica_set(cls.tmp.name)
        except BaseException:
            cls.tearDownClass()  # no daemon outlives a failed setup
            raise

    @classmethod
    def tearDownClass(cls):
        for d in cls.r + ([cls.p] if cls.p else []):
            d.stop()
        cls.tmp.cleanup()

    def test_1_new_calibrations_reach_every_replica_within_the_interval(self):
        shipped = frozen(self.p)
        self.assertEqual(len(shipped), len(BUNDLES))  # imported at first start
        for r in self.r:
            self.assertIsNotNone(wait_until(lambda: frozen(r) == shipped, SETTLE), r.stderr_text())
        # one made through the jobs API and frozen, one imported; the freeze
        # and the import are timed: a replica spends about as long on each
        t0 = time.monotonic()
        cid = make_frozen_calibration(Client(self.p, self.p.admin, self.p.agent), plan=SMALL_PLAN)
        t_freeze = time.monotonic() - t0
        bundle = self.p.request("GET", "/v1/calibrations/%d/export" % cid).json
        for k in ("content_hash", "model", "report"):
            bundle.pop(k)
        bundle["device"]["name"] = "imported-dev"
        t0 = time.monotonic()
        imp = self.p.request("POST", "/v1/calibrations/import", bundle, token=self.p.admin)
        t_import = time.monotonic() - t0
        self.assertEqual(imp.status, 201, imp.raw)
        # one interval, then two imports on each of two replicas sharing the
        # cores (generous: the freeze also ran the jobs), plus a second of slack
        bound = INTERVAL + 4 * (t_freeze + t_import) + 1.0
        want = frozen(self.p)
        self.assertEqual(len(want), len(BUNDLES) + 2)
        for r in self.r:
            took = wait_until(lambda: frozen(r) == want, bound)
            self.assertIsNotNone(took, "replica did not follow within the interval: " + r.stderr_text())
            # the same id answers with the same prediction as on the primary
            # (listed once stored, loaded for predictions a moment later)
            wait_until(lambda: r.request("GET", PREDICT).status == 200, SETTLE)
            a, b = self.p.request("GET", PREDICT), r.request("GET", PREDICT)
            self.assertEqual((a.status, b.status), (200, 200), b.raw)
            self.assertEqual(a.json, b.json)
            for cid in want:  # the bundle itself is the primary's, byte for byte
                path = "/v1/calibrations/%d/export" % cid
                self.assertEqual(self.p.request("GET", path).raw, r.request("GET", path).raw)
            devs = {d["name"] for d in r.request("GET", "/v1/devices").json["devices"]}
            primary_devs = {d["name"] for d in self.p.request("GET", "/v1/devices").json["devices"]}
            self.assertTrue({"testdev", "imported-dev"} <= primary_devs)
            self.assertEqual(devs, primary_devs)
            h = r.request("GET", "/healthz").json["replica"]
            self.assertEqual(h["primary"], primary_url(self.p))
            self.assertEqual(h["newest_calibration"], max(want))
            self.assertLess(h["lag_seconds"], bound)
            s = r.request("GET", "/v1/stats").json["replica"]
            self.assertGreaterEqual(s["syncs"]["ok"], 1)
            self.assertIsNone(s["last_error"])
            m = r.request("GET", "/metrics", validate=False).raw.decode()
            self.assertIn("pascal_replica_newest_calibration %d\n" % max(want), m)
            self.assertRegex(m, r"pascal_replica_lag_seconds [0-9.]+\n")
        self.assertNotIn("replica", self.p.request("GET", "/healthz").json)  # a primary is none

    def test_2_writes_refused_with_421_naming_the_primary(self):
        for r in self.r:
            for method, path in WRITES:
                for token in (None, r.admin):
                    resp = r.request(method, path, {} if method == "POST" else None, token=token)
                    self.assertEqual(resp.status, 421, (path, resp.raw))
                    self.assertEqual(resp.error_code(), "read_only_replica")
                    self.assertEqual(resp.json["error"]["primary"], primary_url(self.p))
                    self.assertIn(primary_url(self.p), resp.json["error"]["message"])
        # on demand sync: admin only, 202 on a replica (it never waits on the
        # primary), 409 on a primary
        self.assertEqual(self.r[0].request("POST", "/v1/replication/sync").status, 401)
        before = self.r[0].request("GET", "/healthz").json["replica"]["imported"]
        st = sync_now(self.r[0])
        self.assertIsNone(st["last_error"])
        self.assertEqual(st["imported"], before)
        self.assertEqual(frozen(self.r[0]), frozen(self.p))
        resp = self.p.request("POST", "/v1/replication/sync", token=self.p.admin)
        self.assertEqual((resp.status, resp.error_code()), (409, "not_a_replica"))

    def test_3_restarted_replica_serves_before_its_first_sync(self):
        held = frozen(self.r[1])
        self.assertEqual(self.r[1].kill9(), -9)
        self.p.stop()  # no sync can happen now
        try:
            r = self.r[1].start()
            self.assertEqual(frozen(r), held)  # at once, from its own SQLite file
            self.assertEqual(r.request("GET", PREDICT).status, 200)
            h = r.request("GET", "/healthz").json["replica"]
            self.assertEqual(h["newest_calibration"], max(held))
            self.assertEqual(h["syncs"]["ok"], 0)
            self.assertIsNone(h["lag_seconds"])  # never synced in this process
            self.assertIsNotNone(wait_until(
                lambda: r.request("GET", "/healthz").json["replica"]["last_error"], SETTLE))
            self.assertEqual(frozen(r), held)  # a dead primary empties nothing
            self.assertIsNotNone(sync_now(r)["last_error"])
        finally:
            self.p.start()


class Config(unittest.TestCase):
    def test_config_file_key_and_bad_urls(self):
        with tempfile.TemporaryDirectory(prefix="pascald-replica-cfg-") as tmp:
            for bad in ("127.0.0.1:8081", "ftp://h", "http://", "http://h:0", "http://h:", "http://a b"):
                p = subprocess.run([PASCALD, "--replica-of", bad, "--db", os.path.join(tmp, "x.db")],
                                   capture_output=True, text=True, timeout=20)
                self.assertEqual(p.returncode, 2, bad)
                self.assertIn("replica_of", p.stderr)
            db = os.path.join(tmp, "ro.db")  # an existing database, opened read-only
            subprocess.run([PASCALD, "token", "create", "--db", db, "--role", "admin", "--name", "a"],
                           check=True, capture_output=True)
            p = subprocess.run([PASCALD, "--replica-of", "http://127.0.0.1:9", "--read-only",
                                "--db", db, "--listen", "127.0.0.1:0"],
                               capture_output=True, text=True, timeout=20)
            self.assertNotEqual(p.returncode, 0)
            self.assertIn("replica_of and read_only exclude each other", p.stderr)
            cfg = os.path.join(tmp, "replica.conf")
            with open(cfg, "w") as f:
                f.write("replica_of = http://127.0.0.1:9/\nreplica_interval = 7\n")
            d = Daemon(tmp, ["--config", cfg]).start()
            try:
                h = d.request("GET", "/healthz").json["replica"]
                self.assertEqual((h["primary"], h["interval_seconds"]), ("http://127.0.0.1:9", 7))
            finally:
                d.stop()


class FakePrimary(http.server.BaseHTTPRequestHandler):
    """Answers GET with whatever the test put in `routes` (path -> bytes),
    after `delay` seconds."""
    routes = {}
    delay = 0

    def do_GET(self):
        time.sleep(self.delay)
        body = self.routes.get(self.path)
        self.send_response(200 if body is not None else 404)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body or b"")))
        self.end_headers()
        self.wfile.write(body or b"")

    def log_message(self, *a):
        pass


def other_frozen(real, workdir):
    """`real` on another device, frozen by `pascal fit`: a sound bundle with
    its own content hash."""
    plain = {k: v for k, v in real.items() if k not in ("model", "report", "content_hash")}
    plain["device"] = dict(plain["device"], name="other-dev")
    src, out = os.path.join(workdir, "other.json"), os.path.join(workdir, "other-frozen.json")
    with open(src, "w") as f:
        json.dump(plain, f)
    subprocess.run([PASCAL_CLI, "fit", src, "-o", out], check=True)
    with open(out) as f:
        return json.load(f)


class BadPrimary(unittest.TestCase):
    def test_wrong_hash_and_garbage_change_nothing(self):
        tmp = tempfile.TemporaryDirectory(prefix="pascald-fake-primary-")
        srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), FakePrimary)
        threading.Thread(target=srv.serve_forever, daemon=True).start()
        with open(os.path.join(SHIPPED, "sim-gb10-scan.json")) as f:
            real = json.load(f)
        dev = dict(real["device"])
        h = real["content_hash"][len("sha256:"):]

        def serve(cals, bundles):
            FakePrimary.routes = {
                "/v1/devices": json.dumps({"devices": [dev]}).encode(),
                "/v1/calibrations": json.dumps({"calibrations": cals}).encode()}
            for cid, b in bundles.items():
                FakePrimary.routes["/v1/calibrations/%d/export" % cid] = json.dumps(b).encode()

        listing = lambda cid, hx: {"id": cid, "device": dev["name"], "state": "frozen", "content_hash": hx}
        serve([listing(7, h)], {7: real})
        r = replica(tmp.name, "rf", "http://127.0.0.1:%d" % srv.server_address[1])
        try:
            r.start()
            self.assertIsNotNone(wait_until(lambda: frozen(r) == {7: h}, SETTLE), r.stderr_text())
            pred = "/v1/predict?device=sim-gb10&o=2&path=tma&d=2&m=4&N=4096&W=16"
            # listed once stored; loaded for predictions a moment later
            wait_until(lambda: r.request("GET", pred).status == 200, SETTLE)
            before = r.request("GET", pred)
            self.assertEqual(before.status, 200, before.raw)
            # calibration 8: content altered under the old hash; 9: the listed
            # hash is not the bundle's, which is itself a sound frozen bundle
            # of other content (a replica that skipped comparing the two would
            # import it: issue 37, finding 11; checked by deleting that
            # comparison from replica.c, which fails this test)
            tampered = json.loads(json.dumps(real))
            tampered["measurements"][0]["fill_bytes"] *= 1.5
            other = other_frozen(real, tmp.name)
            other_hash = other["content_hash"][len("sha256:"):]
            self.assertNotEqual(other_hash, h)
            nine = dict(listing(9, "0" * 64), device="other-dev")
            serve([listing(7, h), nine], {7: real, 9: other})
            self.assertIn("calibration 9 refused: its bundle's content_hash sha256:%s is not the "
                          "listed sha256:%s" % (other_hash, "0" * 64), sync_now(r)["last_error"])
            serve([listing(7, h), listing(8, h), nine], {7: real, 8: tampered, 9: other})
            why = sync_now(r)["last_error"]
            self.assertIn("calibration 8 refused", why)
            self.assertIn("content_hash", why)
            self.assertIn("2 error(s)", why)
            for garbage in (b"{not json", b"[]", b'{"calibrations": 3}', b'{"calibrations": []}'):
                FakePrimary.routes["/v1/calibrations"] = garbage
                why = sync_now(r)["last_error"]
                self.assertIsNotNone(why, garbage)
                if garbage == b'{"calibrations": []}':  # valid, but calibration 7 is gone from it
                    self.assertIn("holding what is here", why)
            FakePrimary.routes = {"/v1/devices": b"\x00\xff garbage"}
            self.assertIsNotNone(sync_now(r)["last_error"])
            self.assertEqual(frozen(r), {7: h})  # kept, nothing else came in
            self.assertEqual(r.request("GET", pred).json, before.json)
            st = r.request("GET", "/v1/stats").json["replica"]
            self.assertIn("GET /v1/devices", st["last_error"])
            self.assertGreaterEqual(st["syncs"]["failed"], 5)
            # a primary that never answers (issue 37, finding 5): every
            # request for a sync answers 202 at once and /healthz and the
            # predictions go on while the sync hangs (before, each request
            # held an HTTP thread for the whole sync: 59.8 s without /healthz);
            # SIGTERM still ends the replica at once (transfers are aborted)
            FakePrimary.delay = 25
            asked = [r.request("POST", "/v1/replication/sync", token=r.admin) for _ in range(6)]
            self.assertEqual([a.status for a in asked], [202] * 6)
            for _ in range(6):
                self.assertEqual(r.request("GET", "/healthz").status, 200)
                self.assertEqual(r.request("GET", pred).status, 200)
            t0 = time.monotonic()
            self.assertEqual(r.stop(), 0)
            self.assertLess(time.monotonic() - t0, 10)
        finally:
            FakePrimary.delay = 0
            r.stop()
            srv.shutdown()
            srv.server_close()
            tmp.cleanup()


if __name__ == "__main__":
    unittest.main()
