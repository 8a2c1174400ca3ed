"""test_lifecycle.py - the daemon as a process: configuration precedence
(defaults < --config file < PASCAL_* environment < flags), bad configuration
refused with exit status 2, `pascald token create` printing the token alone on
its last stdout line, --auth-reads, graceful SIGTERM while a request is in
flight (the answer arrives whole, exit status 0; a connection opened during
the drain is closed unanswered), restart on the same database keeping its
frozen calibrations."""
import os
import signal
import socket
import subprocess
import tempfile
import threading
import time
import unittest

from harness import DEVICE, PASCALD, Client, Daemon, make_frozen_calibration


class Config(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="pascald-cfg-")
        self.dir = self.tmp.name

    def tearDown(self):
        self.tmp.cleanup()

    def run_bad(self, args, env=None):
        p = subprocess.run([PASCALD] + args, capture_output=True, text=True, timeout=20,
                           env=dict(os.environ, **(env or {})))
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertTrue(p.stderr.startswith("pascald: "), p.stderr)
        return p.stderr

    def test_bad_configuration_refused(self):
        self.assertIn("listen", self.run_bad(["--listen", "nohostport"]))
        self.assertIn("lease_seconds", self.run_bad(["--lease-seconds", "0"]))
        self.assertIn("unknown option", self.run_bad(["--colour", "red"]))
        self.assertIn("threads", self.run_bad([], env={"PASCAL_THREADS": "many"}))
        cfg = os.path.join(self.dir, "bad.conf")
        with open(cfg, "w") as f:
            f.write("listen = 127.0.0.1:0\nthis line is wrong\n")
        self.assertIn("bad.conf:2", self.run_bad(["--config", cfg]))
        # an over-long comment is refused, not read in pieces whose tail
        # ("threads = many") would be taken as a setting of its own
        with open(cfg, "w") as f:
            f.write("# " + "x" * 8190 + "threads = many\n")
        self.assertIn("bad.conf:1: line longer", self.run_bad(["--config", cfg]))
        self.assertIn("cannot open config", self.run_bad(["--config", os.path.join(self.dir, "none")]))

    def test_precedence_file_env_flags(self):
        cfg = os.path.join(self.dir, "pascald.conf")
        with open(cfg, "w") as f:
            f.write('# comment\nlisten = 127.0.0.1:1\ndb = "%s"\nlease_seconds = 7\n' %
                    os.path.join(self.dir, "from-file.db"))
        env = dict(os.environ, PASCAL_LEASE_SECONDS="9", PASCAL_DB=os.path.join(self.dir, "from-env.db"))
        p = subprocess.Popen([PASCALD, "--config", cfg, "--listen", "127.0.0.1:0", "--bundles", ""],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, text=True)
        try:
            line = p.stdout.readline()
            self.assertRegex(line, r"^pascald listening on http://127\.0\.0\.1:\d+$")
            self.assertTrue(os.path.exists(os.path.join(self.dir, "from-env.db")))   # env beats file
            self.assertFalse(os.path.exists(os.path.join(self.dir, "from-file.db")))
            d = Daemon(self.dir, db=os.path.join(self.dir, "from-env.db"))
            d.port = int(line.rsplit(":", 1)[1])
            admin = d.token("admin", "cfg")
            agent = d.token("agent", "cfg-agent")
            d.request("POST", "/v1/devices", dict(DEVICE, name="cfg-dev"), token=admin)
            plan = {"format": "pascal-plan/1", "workload": "scan", "sizes": [512], "horizons": [1],
                    "keys": [{"o": 1, "path": "sync", "d": 0, "m": 0}]}
            d.request("POST", "/v1/calibrations", {"device": "cfg-dev", "plan": plan}, token=admin)
            job = d.request("POST", "/v1/jobs/claim", {"device": "cfg-dev", "agent": "x"}, token=agent).json["job"]
            self.assertEqual(job["lease_seconds"], 9)  # env beats file (7), no flag given
        finally:
            p.send_signal(signal.SIGTERM)
            self.assertEqual(p.wait(timeout=20), 0)
            p.stdout.close()
            p.stderr.close()

    def test_defaults_and_token_cli(self):
        # default database ./var/pascal.db, created with its directory
        p = subprocess.run([PASCALD, "token", "create", "--role", "agent", "--name", "gpu-host-1"],
                           cwd=self.dir, capture_output=True, text=True, timeout=20)
        self.assertEqual(p.returncode, 0, p.stderr)
        last = p.stdout.strip().splitlines()[-1]
        self.assertRegex(last, r"^pasc_[0-9a-f]{64}$")
        self.assertTrue(os.path.exists(os.path.join(self.dir, "var", "pascal.db")))
        p = subprocess.run([PASCALD, "token", "create", "--role", "root", "--name", "x"], cwd=self.dir,
                           capture_output=True, text=True, timeout=20)
        self.assertEqual(p.returncode, 2)
        # token names follow the rule of device and agent names
        p = subprocess.run([PASCALD, "token", "create", "--role", "agent", "--name", "two words"],
                           cwd=self.dir, capture_output=True, text=True, timeout=20)
        self.assertEqual(p.returncode, 2)
        self.assertIn("--name", p.stderr)
        p = subprocess.run([PASCALD, "token", "revoke", "--id", "999"], cwd=self.dir, capture_output=True,
                           text=True, timeout=20)
        self.assertEqual(p.returncode, 1)
        self.assertIn("999", p.stderr)


class AuthReads(unittest.TestCase):
    def test_reads_need_a_token(self):
        with tempfile.TemporaryDirectory(prefix="pascald-ar-") as tmp:
            d = Daemon(tmp, ("--auth-reads",))
            agent = d.token("agent", "reader")
            d.start()
            try:
                r = d.request("GET", "/v1/devices")
                self.assertEqual(r.status, 401)
                self.assertIn("bearer", r.headers.get("www-authenticate", "").lower())
                self.assertEqual(d.request("GET", "/v1/devices", token=agent).status, 200)
                self.assertEqual(d.request("GET", "/metrics", validate=False).status, 401)
                self.assertEqual(d.request("GET", "/healthz").status, 200)  # health stays open
            finally:
                self.assertEqual(d.stop(), 0)


class Shutdown(unittest.TestCase):
    def test_sigterm_finishes_inflight_and_restart_keeps_calibrations(self):
        with tempfile.TemporaryDirectory(prefix="pascald-sd-") as tmp:
            d = Daemon(tmp)
            t = Client(d, d.token("admin", "a"), d.token("agent", "b"))
            d.start()
            cid = make_frozen_calibration(t)
            qs = [{"device": DEVICE["name"], "o": 1, "path": "tma", "d": 2, "m": i % 11, "N": 600 + i, "W": 4}
                  for i in range(10000)]
            result = {}

            def big():
                result["r"] = d.request("POST", "/v1/predict", {"queries": qs, "explain": True})

            th = threading.Thread(target=big)
            th.start()
            time.sleep(0.05)  # the request is being received or answered
            d.proc.send_signal(signal.SIGTERM)
            th.join(60)
            self.assertEqual(d.stop(), 0)
            r = result["r"]
            self.assertEqual(r.status, 200)
            self.assertEqual(r.json["count"], 10000)
            self.assertEqual(r.json["ok"], 10000)
            d.start()  # same database: the frozen calibration is served again
            try:
                self.assertEqual(d.request("GET", "/healthz").json["calibrations_loaded"], 1)
                q = d.request("GET", "/v1/predict?device=%s&o=1&path=tma&d=2&m=4&N=1024&W=16" % DEVICE["name"])
                self.assertEqual(q.status, 200)
                self.assertEqual(q.json["calibration"], cid)
            finally:
                self.assertEqual(d.stop(), 0)

    def test_connections_opened_while_draining_are_closed(self):
        """After SIGTERM the daemon finishes what it has begun and closes
        newcomers unanswered: a request whose body is half sent holds the
        drain open, a new connection is closed without a reply, and once the
        body is complete that request is answered and the daemon exits 0."""
        with tempfile.TemporaryDirectory(prefix="pascald-dr-") as tmp:
            d = Daemon(tmp)
            d.start()
            body = b'{"queries": []}'
            held = socket.create_connection(("127.0.0.1", d.port), timeout=10)
            held.sendall(b"POST /v1/predict HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                         b"Content-Length: %d\r\n\r\n" % len(body) + body[:5])
            time.sleep(0.2)  # its head is read: the request is in flight
            d.proc.send_signal(signal.SIGTERM)
            closed = False
            deadline = time.monotonic() + 8
            while not closed and time.monotonic() < deadline:
                with socket.create_connection(("127.0.0.1", d.port), timeout=10) as s:
                    try:
                        s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
                        closed = s.recv(100) == b""
                    except ConnectionResetError:
                        closed = True
                time.sleep(0.02)
            self.assertTrue(closed, "a connection opened after SIGTERM was answered for 8 s")
            held.sendall(body[5:])
            reply = b""
            while True:
                chunk = held.recv(65536)
                if not chunk:
                    break
                reply += chunk
            held.close()
            self.assertTrue(reply.startswith(b"HTTP/1.1 "), reply[:200])
            self.assertIn(b"Connection: close", reply)
            self.assertEqual(d.stop(), 0)


if __name__ == "__main__":
    unittest.main(verbosity=2)
