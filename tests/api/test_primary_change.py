"""test_primary_change.py - a replica notices that its primary's history
changed and syncs again from scratch (issue 37, finding 6):

- the primary's database rebuilt from its own exports (the documented
  recovery), imported in another order so that the ids swap: the replica's
  next sync reports a resync in /healthz ("another one"), then holds exactly
  the primary's ids and hashes and answers a prediction pinned to an id as
  the primary does;
- the primary's file restored from a backup taken before its third
  calibration (the same instance id, a history that went back): the replica
  starts over again ("went back") and no longer holds calibration 3.

Verified to fail before the change (the old daemon, the identity checks
left out): after the rebuild the replica kept its old mapping, ids 1 and 2
swapped against the primary's, with only a last_error ("calibration 1 here
is not the primary's") and no resync.
"""
import json
import os
import shutil
import subprocess
import tempfile
import unittest

from harness import PASCAL_CLI, Daemon
from replicas import frozen, primary_url, replica, sync_now

PRED = "/v1/predict?device=synthetic-gb10&o=1&path=tma&d=2&m=6&N=4096&W=16&calibration=%d"


class PrimaryChange(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="pascald-change-")
        w = self.tmp.name
        self.bundles = os.path.join(w, "bundles")
        os.mkdir(self.bundles)
        for law in ("gemm", "scan"):
            subprocess.run([PASCAL_CLI, "synth", "--law", law, "-o", os.path.join(self.bundles, law + ".json")],
                           check=True)
        self.p = Daemon(w, bundles=self.bundles, db=os.path.join(w, "primary.db"))
        self.p.stderr_path = os.path.join(w, "primary.stderr")
        self.p.admin = self.p.token("admin", "p-admin")
        self.p.start()
        self.p.fixed_port = self.p.port  # restarts where the replica points
        self.r = replica(w, "r1", primary_url(self.p), interval=3600)  # syncs when asked
        self.r.start()

    def tearDown(self):
        for d in (self.r, self.p):
            d.stop()
        self.tmp.cleanup()

    def status(self):
        return self.r.request("GET", "/healthz").json["replica"]

    def same_as_primary(self):
        self.assertEqual(frozen(self.r), frozen(self.p))
        for cid in frozen(self.p):
            a = self.p.request("GET", PRED % cid)
            b = self.r.request("GET", PRED % cid)
            self.assertEqual((a.status, a.json), (b.status, b.json), cid)

    def restart_primary(self, db_file=None):
        self.p.stop()
        if db_file:
            for suffix in ("", "-wal", "-shm"):
                if os.path.exists(self.p.db + suffix):
                    os.unlink(self.p.db + suffix)
            if db_file != "new":
                shutil.copy(db_file, self.p.db)
        self.p.bundles = ""
        self.p.admin = self.p.token("admin", "p-admin-%d" % len(os.listdir(self.tmp.name)))
        self.p.start()

    def test_rebuilt_and_restored_primary(self):
        st = sync_now(self.r)
        self.assertIsNone(st["last_error"])
        self.assertEqual((st["resyncs"], st["last_resync"]), (0, None))
        listing = self.p.request("GET", "/v1/calibrations").json
        self.assertEqual(st["primary_instance"], listing["database"]["instance"])
        self.same_as_primary()
        before = frozen(self.p)

        # the documented recovery: a new database from the exports, imported
        # in the other order (the ids swap)
        exports = [self.p.request("GET", "/v1/calibrations/%d/export" % cid).json for cid in sorted(before)]
        self.restart_primary("new")
        for b in reversed(exports):
            r = self.p.request("POST", "/v1/calibrations/import", b, token=self.p.admin)
            self.assertEqual(r.status, 201, r.raw)
        self.assertEqual(sorted(frozen(self.p).values()), sorted(before.values()))
        self.assertNotEqual(frozen(self.p), before)
        st = sync_now(self.r)
        self.assertEqual(st["resyncs"], 1, st)
        self.assertIn("another one", st["last_resync"]["why"])
        self.assertIsNone(st["last_error"])
        self.same_as_primary()
        self.assertIn("syncing again from scratch", self.r.stderr_text())

        # a backup of this database, then a third calibration, then the
        # backup restored: the same instance, a history that went back
        backup = os.path.join(self.tmp.name, "backup.db")
        self.p.stop()
        shutil.copy(self.p.db, backup)
        self.p.start()
        with open(os.path.join(self.bundles, "scan.json")) as f:
            third = json.load(f)
        third["device"]["name"] = "third-dev"
        r = self.p.request("POST", "/v1/calibrations/import", third, token=self.p.admin)
        self.assertEqual(r.status, 201, r.raw)
        self.assertEqual(sync_now(self.r)["resyncs"], 1)
        self.assertIn(3, frozen(self.r))
        self.restart_primary(backup)
        st = sync_now(self.r)
        self.assertEqual(st["resyncs"], 2, st)
        self.assertIn("went back", st["last_resync"]["why"])
        self.assertNotIn(3, frozen(self.r))
        self.same_as_primary()


if __name__ == "__main__":
    unittest.main()
