"""test_read_tokens.py - authenticated reads never wait for the store
(server/pascald/tokens.h), over real HTTP with a real SQLite file and the
`pascald token` CLI, on a daemon started with --auth-reads:

  * a blocked writer: another connection holds the database's write lock
    (BEGIN IMMEDIATE), so an admin's POST /v1/devices waits inside the store
    (busy timeout) holding the store's mutex; meanwhile an authenticated
    GET /v1/predict and a POST batch answer 200 while that write is still
    pending, and the write goes through once the lock is released;
  * revocation: after `pascald token revoke`, a write with the token is
    refused at once (writes ask the store), and reads within the documented
    bound (PD_TOKEN_REVALIDATE_MS = 1 s; 4 s allowed here for a loaded
    machine); a token created while the daemon runs reads at once.

Verified to fail without the table: against the daemon before it (every
check a store lookup under the store's mutex) the predict waits for the
writer and returns only after the write did, so the first test fails."""
import sqlite3
import subprocess
import threading
import time
import unittest
import urllib.parse

from harness import PASCALD, DEVICE, SynthDaemonTest

REVALIDATE_S = 1.0
SLACK_S = 3.0


class ReadTokens(SynthDaemonTest):
    daemon_args = ("--auth-reads",)

    def predict(self, token):
        q = dict(device=self.device, o=1, path="tma", d=2, m=6, N=4096, W=16, explain="false")
        return self.d.request("GET", "/v1/predict?" + urllib.parse.urlencode(q), token=token)

    def batch(self, token):
        qs = [dict(device=self.device, o=1, path="tma", d=2, m=m, N=4096, W=16) for m in range(8)]
        return self.d.request("POST", "/v1/predict", {"queries": qs}, token=token)

    def test_reads_do_not_wait_for_a_blocked_writer(self):
        admin = self.d.token("admin", "blocked-admin")
        reader = self.d.token("agent", "reader")
        self.assertEqual(self.predict(reader).status, 200)  # the token is known from here on
        lock = sqlite3.connect(self.d.db, timeout=0, isolation_level=None)
        lock.execute("BEGIN IMMEDIATE")  # the write lock: WAL readers go on, writers wait
        write = {}

        def post_device():
            write["r"] = self.d.request("POST", "/v1/devices", dict(DEVICE, name="blocked-dev"),
                                        token=admin, validate=False)
            write["at"] = time.monotonic()

        writer = threading.Thread(target=post_device)
        try:
            writer.start()
            time.sleep(0.5)  # the write is in the store, waiting for the lock
            self.assertTrue(writer.is_alive(), "the write did not wait: %r" % write)
            t0 = time.monotonic()
            r = self.predict(reader)
            b = self.batch(reader)
            answered = time.monotonic()
            still_pending = writer.is_alive()
        finally:
            lock.execute("ROLLBACK")
            lock.close()
            writer.join(30)
        self.assertTrue(still_pending, "the reads waited %.2f s, until the write returned"
                        % (answered - t0))
        self.assertEqual(r.status, 200, r.raw)
        self.assertEqual(b.status, 200, b.raw)
        self.assertEqual(b.json["ok"], 8)
        self.assertLess(answered, write["at"])
        self.assertEqual(write["r"].status, 201, write["r"].raw)

    def test_revocation(self):
        tok = self.d.token("admin", "revoked-later")
        self.assertEqual(self.predict(tok).status, 200)  # created while running: reads at once
        dev = dict(DEVICE, name="revocation-dev")
        self.assertEqual(self.d.request("POST", "/v1/devices", dev, token=tok).status, 201)
        listing = subprocess.run([PASCALD, "token", "list", "--db", self.d.db], check=True,
                                 capture_output=True, text=True).stdout
        tid = [l.split()[0] for l in listing.splitlines() if "revoked-later" in l][0]
        subprocess.run([PASCALD, "token", "revoke", "--db", self.d.db, "--id", tid], check=True,
                       capture_output=True)
        revoked = time.monotonic()
        # a write asks the store: refused at once
        self.assertEqual(self.d.request("POST", "/v1/devices", dev, token=tok).status, 401)
        # a read stops within the bound
        while self.predict(tok).status == 200:
            self.assertLess(time.monotonic() - revoked, REVALIDATE_S + SLACK_S,
                            "a revoked token still reads after the bound")
            time.sleep(0.05)
        r = self.predict(tok)
        self.assertEqual(r.status, 401)
        self.assertEqual(r.error_code(), "unauthorized")
        self.assertEqual(self.batch(tok).status, 401)


if __name__ == "__main__":
    unittest.main(verbosity=2)
