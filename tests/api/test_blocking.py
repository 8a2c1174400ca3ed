"""test_blocking.py - predictions never wait on the store (issue 37, finding
5). Another process holds SQLite's write lock; four registrations (twice
pascald's --threads 2) wait on it inside pascald for up to its busy timeout.
Every prediction asked meanwhile must be answered while those writes are
still waiting, and the writes complete once the lock is released.

This is an order, not a time: the predictions are asked after the writes
and must all be answered before any write is. Verified to fail before the
change: with the writes on libmicrohttpd's two threads, the predictions were
answered only after the lock was released and every write had completed.
"""
import os
import sqlite3
import subprocess
import tempfile
import threading
import time
import unittest

from harness import DEVICE, PASCAL_CLI, Daemon

HOLD = 3.0  # seconds the lock is held at most (pascald's busy timeout is 5 s)


class Blocking(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="pascald-block-")
        bundles = os.path.join(self.tmp.name, "bundles")
        os.mkdir(bundles)
        subprocess.run([PASCAL_CLI, "synth", "--law", "scan", "-o", os.path.join(bundles, "s.json")],
                       check=True)
        self.d = Daemon(self.tmp.name, ["--threads", "2"], bundles=bundles)
        self.admin = self.d.token("admin", "ops")
        self.d.start()

    def tearDown(self):
        rc = self.d.stop()
        self.tmp.cleanup()
        self.assertEqual(rc, 0)

    def test_predictions_pass_a_locked_store(self):
        pred = "/v1/predict?device=synthetic-gb10&o=1&path=tma&d=2&m=6&N=4096&W=16"
        self.assertEqual(self.d.request("GET", pred).status, 200)
        locked, release = threading.Event(), threading.Event()

        def hold():
            con = sqlite3.connect(self.d.db, timeout=10, isolation_level=None)
            con.execute("BEGIN IMMEDIATE")
            locked.set()
            release.wait(HOLD)
            con.execute("ROLLBACK")
            con.close()

        writes = {}

        def write(i):
            r = self.d.request("POST", "/v1/devices", dict(DEVICE, name="w%d" % i), token=self.admin)
            writes[i] = (r.status, time.monotonic())

        holder = threading.Thread(target=hold)
        holder.start()
        locked.wait(10)
        writers = [threading.Thread(target=write, args=(i,)) for i in range(4)]
        for w in writers:
            w.start()
        time.sleep(0.5)  # the writes reach the store and wait on its lock
        answered = []
        for _ in range(6):
            answered.append((self.d.request("GET", pred).status, time.monotonic()))
        pending = len(writes)
        release.set()
        holder.join()
        for w in writers:
            w.join()
        self.assertEqual([s for s, _ in answered], [200] * 6)
        self.assertEqual(pending, 0, "a write finished before the predictions: %r" % writes)
        self.assertEqual(sorted(s for s, _ in writes.values()), [201] * 4)
        self.assertLess(max(t for _, t in answered), min(t for _, t in writes.values()))


if __name__ == "__main__":
    unittest.main()
