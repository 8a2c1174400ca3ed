"""test_nginx_replicas.py - Debian's nginx with deploy/nginx-replicas.conf.example
in front of a primary and two read replicas on loopback: 2,000 reads through
nginx (GET and POST /v1/predict, a calibration's export) while one replica is
killed with SIGKILL and restarted and while the primary is killed and
restarted, with no failed read and every answer equal to the primary's;
reads spread over the three backends; writes through nginx reach the
primary (and are not rerouted to a replica while it is down).

Without nginx: exits 77 (ctest: skipped) with one message, or fails when
CI=true."""
import http.client
import json
import os
import sys
import tempfile
import unittest

from nginx import NGINX, Nginx
from replicas import SETTLE, frozen, start_replica_set, wait_until
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "harness"))
import ci_skip  # noqa: E402

READS = 2000
EVENTS = {300: ("kill", 1), 700: ("start", 1), 1100: ("kill", 0), 1500: ("start", 0)}
QUERY = {"device": "sim-gb10", "o": 2, "path": "tma", "d": 2, "m": 4, "N": 4096, "W": 16}
GET_PREDICT = "/v1/predict?" + "&".join("%s=%s" % kv for kv in QUERY.items())


class NginxReplicas(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory(prefix="pascald-nginx-")
        cls.backends, cls.ngx = [], None
        try:
            cls.p, cls.r = start_replica_set(cls.tmp.name)
            cls.backends = [cls.p] + cls.r
            for d in cls.backends:  # a restart comes back on the same port (the last flag wins)
                d.args += ["--listen", "127.0.0.1:%d" % d.port]
            want = frozen(cls.p)
            for r in cls.r:
                assert wait_until(lambda: frozen(r) == want, SETTLE), r.stderr_text()
            cls.ngx = Nginx(cls.tmp.name, cls.p.port, [d.port for d in cls.backends]).start()
        except BaseException:
            cls.tearDownClass()  # no daemon outlives a failed setup
            raise

    @classmethod
    def tearDownClass(cls):
        if cls.ngx:
            cls.ngx.stop()
        for d in cls.backends:
            d.stop()
        cls.tmp.cleanup()

    def through(self, conn, method, path, body=None, token=None):
        hdrs = {"Content-Type": "application/json"} if body is not None else {}
        if token:
            hdrs["Authorization"] = "Bearer " + token
        conn.request(method, path, body=json.dumps(body) if body is not None else None, headers=hdrs)
        r = conn.getresponse()
        return r.status, r.getheader("X-Pascal-Backend", ""), r.read()

    def test_reads_survive_killed_backends(self):
        cals = self.p.request("GET", "/v1/calibrations").json["calibrations"]
        small = [c["id"] for c in cals if c["workload"] == "attention"][0]  # the smallest bundle
        reads = [("GET", GET_PREDICT, None), ("POST", "/v1/predict", QUERY),
                 ("GET", "/v1/calibrations/%d/export" % small, None)]
        want = [json.loads(self.p.request(m, path, body=b).raw) for m, path, b in reads]
        conn = http.client.HTTPConnection("127.0.0.1", self.ngx.port, timeout=30)  # keep-alive
        failed, served, during = [], {}, {}
        down = None
        for i in range(READS):
            if i in EVENTS:
                what, k = EVENTS[i]
                if what == "kill":
                    self.assertEqual(self.backends[k].kill9(), -9)
                    down = "127.0.0.1:%d" % self.backends[k].port
                else:
                    self.backends[k].start()  # on its port: pinned in setUpClass
                    down = None
            method, path, body = reads[i % len(reads)]
            try:
                status, backend, raw = self.through(conn, method, path, body)
            except (OSError, http.client.HTTPException) as e:
                failed.append((i, repr(e)))
                conn.close()
                continue
            if status != 200 or json.loads(raw) != want[i % len(reads)]:
                failed.append((i, status, raw[:200]))
            last = backend.split(", ")[-1]  # after a retry: "dead:port, live:port"
            served[last] = served.get(last, 0) + 1
            if down:
                during[last == down] = during.get(last == down, 0) + 1
        conn.close()
        self.assertEqual(failed, [], self.ngx.error_log())
        self.assertGreaterEqual(len(served), 3, served)  # every backend took reads
        self.assertNotIn(True, during, "a killed backend answered")
        print("reads by backend:", served, file=sys.stderr)

    def test_writes_reach_the_primary(self):
        conn = http.client.HTTPConnection("127.0.0.1", self.ngx.port, timeout=30)
        for k in range(6):  # round robin would put some on replicas: none may land there
            dev = {"name": "via-nginx-%d" % k, "arch": "sim", "sm_count": 4,
                   "capacity_blocks": 256, "block_bytes": 16384}
            status, backend, raw = self.through(conn, "POST", "/v1/devices", dev, self.p.admin)
            self.assertEqual(status, 201, raw)
            self.assertEqual(backend, "127.0.0.1:%d" % self.p.port)
            self.assertEqual(self.p.request("GET", "/v1/devices/" + dev["name"]).status, 200)
        status, backend, raw = self.through(conn, "POST", "/v1/jobs/claim",
                                            {"device": "via-nginx-0", "agent": "a"}, self.p.agent)
        self.assertEqual((status, json.loads(raw)["job"]), (200, None))
        # the primary down: a write fails (502), it is not handed to a replica
        self.assertEqual(self.p.kill9(), -9)
        try:
            status, backend, raw = self.through(conn, "POST", "/v1/devices", dev, self.p.admin)
            self.assertEqual((status, backend), (502, "127.0.0.1:%d" % self.p.port), raw)
        finally:
            self.p.start()
        conn.close()
        # replicas follow through their own sync, not through nginx
        for r in self.r:
            self.assertIsNotNone(wait_until(
                lambda: r.request("GET", "/v1/devices/via-nginx-5").status == 200, SETTLE))


if __name__ == "__main__":
    if not NGINX:
        ci_skip.missing("nginx", "nginx; deploy/install-deps.sh does")
    unittest.main()
