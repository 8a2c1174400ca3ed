"""test_store_file.py - a database file unlinked or replaced under a running
pascald (issue 37, finding 1): every write answers 503 `unavailable` instead
of an acknowledgement that the next start would not find, /healthz answers
503 "degraded" with store.writable false, the log says why, and reads and the
rest of the API go on.

Verified to fail without the fix: against the daemon before
pascal_store_file_check, the registration after the unlink answered 201,
/healthz answered 200 "ok" and the restarted daemon had no device at all.
"""
import os
import sqlite3
import tempfile
import unittest

from harness import DEVICE, Daemon

OTHER = dict(DEVICE, name="after-unlink")


class StoreFile(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="pascald-file-")
        self.d = Daemon(self.tmp.name)
        self.admin = self.d.token("admin", "file-admin")
        self.d.start()

    def tearDown(self):
        rc = self.d.stop()
        self.tmp.cleanup()
        self.assertEqual(rc, 0)

    def post_device(self, dev):
        return self.d.request("POST", "/v1/devices", dev, token=self.admin)

    def assert_degraded(self, why):
        h = self.d.request("GET", "/healthz")
        self.assertEqual(h.status, 503, h.raw)
        self.assertEqual(h.json["status"], "degraded")
        self.assertFalse(h.json["store"]["writable"])
        self.assertIn(why, h.json["store"]["error"])
        r = self.post_device(OTHER)
        self.assertEqual(r.status, 503, r.raw)
        self.assertEqual(r.error_code(), "unavailable")
        self.assertIn(why, r.json["error"]["message"])
        self.assertIn("store unavailable", self.d.stderr_text())

    def test_healthy_file(self):
        h = self.d.request("GET", "/healthz")
        self.assertEqual(h.status, 200)
        self.assertEqual(h.json["status"], "ok")
        self.assertEqual(h.json["store"], {"writable": True})

    def test_unlinked(self):
        self.assertEqual(self.post_device(DEVICE).status, 201)
        for suffix in ("", "-wal", "-shm"):
            if os.path.exists(self.d.db + suffix):
                os.unlink(self.d.db + suffix)
        self.assert_degraded("is gone")
        # reads go on from the open file: the device written before is there
        r = self.d.request("GET", "/v1/devices/" + DEVICE["name"])
        self.assertEqual(r.status, 200, r.raw)
        self.assertEqual(self.d.request("GET", "/v1/version").status, 200)

    def test_replaced(self):
        self.assertEqual(self.post_device(DEVICE).status, 201)
        # a restore of another file over the path (rename: a new inode)
        other = os.path.join(self.tmp.name, "restored.db")
        sqlite3.connect(other).execute("CREATE TABLE t (x)").connection.close()
        os.replace(other, self.d.db)
        self.assert_degraded("was replaced")
        # a restart serves the restored file, writable again
        self.d.stop()
        self.d.start()
        h = self.d.request("GET", "/healthz")
        self.assertEqual((h.status, h.json["store"]["writable"]), (200, True))
        r = self.d.request("GET", "/v1/devices")
        self.assertEqual((r.status, r.json["devices"]), (200, []))

if __name__ == "__main__":
    unittest.main()
