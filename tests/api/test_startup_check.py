"""test_startup_check.py - PRAGMA quick_check at start: a database file with a
damaged page (the jobs table's root page overwritten after a clean shutdown)
makes pascald refuse to start with exit status 3 and a message naming the
file and the problem; --read-only starts it anyway for recovery, serves what
is readable, answers every write with 503 and leaves the file byte for byte
as it was. A sound file in --read-only mode refuses writes the same way."""
import hashlib
import os
import sqlite3
import subprocess
import tempfile
import unittest

from harness import DEVICE, PASCALD, Daemon

PLAN = {"format": "pascal-plan/1", "workload": "scan", "sizes": [512], "horizons": [1, 4],
        "repeats": 1, "keys": [{"o": 1, "path": "tma", "d": 2, "m": 0}]}


def file_digest(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


class StartupCheck(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="pascald-startup-")
        self.addCleanup(self.tmp.cleanup)

    def populated(self):
        """A database with a device, a calibration and its jobs, closed cleanly;
        returns the daemon (stopped) and an admin token."""
        d = Daemon(self.tmp.name)
        admin = d.token("admin", "adm")
        d.start()
        try:
            self.assertIn(d.request("POST", "/v1/devices", DEVICE, token=admin).status, (200, 201))
            r = d.request("POST", "/v1/calibrations", {"device": DEVICE["name"], "plan": PLAN}, token=admin)
            self.assertEqual(r.status, 201, r.raw)
        finally:
            self.assertEqual(d.stop(), 0)
        self.assertFalse(os.path.exists(d.db + "-wal") and os.path.getsize(d.db + "-wal") > 0)
        return d, admin

    def damage_jobs(self, db):
        con = sqlite3.connect(db)
        (root,) = con.execute("SELECT rootpage FROM sqlite_schema WHERE name = 'jobs'").fetchone()
        (size,) = con.execute("PRAGMA page_size").fetchone()
        con.close()
        with open(db, "r+b") as f:
            f.seek((root - 1) * size)
            f.write(bytes((i * 37 + 11) % 256 for i in range(size)))

    def test_damaged_file_refuses_to_start(self):
        d, admin = self.populated()
        self.damage_jobs(d.db)
        p = subprocess.run([PASCALD, "--listen", "127.0.0.1:0", "--db", d.db, "--bundles", ""],
                           capture_output=True, text=True, timeout=30)
        self.assertEqual(p.returncode, 3, p.stderr)
        self.assertEqual(p.stdout, "")
        self.assertIn("database %s is damaged" % d.db, p.stderr)
        self.assertIn("quick_check", p.stderr)
        self.assertIn("--read-only", p.stderr)

        before = file_digest(d.db)
        ro = Daemon(self.tmp.name, ("--read-only",), db=d.db)
        ro.start()
        try:
            self.assertEqual(ro.request("GET", "/healthz").status, 200)
            r = ro.request("GET", "/v1/devices/" + DEVICE["name"])
            self.assertEqual(r.status, 200, r.raw)
            r = ro.request("POST", "/v1/devices", dict(DEVICE, name="new-dev"), token=admin,
                           validate=False)  # the spec lists no operational 503
            self.assertEqual((r.status, r.error_code()), (503, "unavailable"), r.raw)
            r = ro.request("POST", "/v1/jobs/claim", {"device": DEVICE["name"], "agent": "a"}, token=admin,
                           validate=False)
            self.assertEqual((r.status, r.error_code()), (503, "unavailable"), r.raw)
        finally:
            self.assertEqual(ro.stop(), 0)
        self.assertIn("serving it read-only", ro.stderr_text())
        self.assertEqual(file_digest(d.db), before)

    def test_sound_file_read_only(self):
        d, admin = self.populated()
        before = file_digest(d.db)
        ro = Daemon(self.tmp.name, ("--read-only",), db=d.db)
        ro.start()
        try:
            r = ro.request("GET", "/v1/calibrations")
            self.assertEqual(r.status, 200, r.raw)
            self.assertEqual(len(r.json["calibrations"]), 1)
            r = ro.request("POST", "/v1/devices", dict(DEVICE, name="new-dev"), token=admin,
                           validate=False)  # the spec lists no operational 503
            self.assertEqual((r.status, r.error_code()), (503, "unavailable"), r.raw)
        finally:
            self.assertEqual(ro.stop(), 0)
        self.assertIn(" (read-only), 0 frozen calibration(s) loaded", ro.stderr_text())
        self.assertEqual(file_digest(d.db), before)

    def test_read_only_needs_an_existing_file(self):
        missing = os.path.join(self.tmp.name, "none.db")
        p = subprocess.run([PASCALD, "--listen", "127.0.0.1:0", "--db", missing, "--bundles", "",
                            "--read-only"], capture_output=True, text=True, timeout=30)
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertIn("cannot open database", p.stderr)
        self.assertFalse(os.path.exists(missing))


if __name__ == "__main__":
    unittest.main()
