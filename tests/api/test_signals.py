"""test_signals.py - signals other than SIGTERM/SIGINT never stop pascald
(issue 37, finding 9): SIGHUP reopens --log-file (a log rotated away by a
rename is followed by a new file of the same name, the daemon serving on
through it, a keep-alive connection included), and SIGUSR1, SIGUSR2,
SIGALRM, SIGVTALRM, SIGPROF and SIGIO are logged and ignored. SIGTERM then
still exits 0.

Verified to fail before the change: SIGHUP and SIGUSR1 killed the daemon at
once (exit -1, the request on the open connection refused), and there was
no --log-file.
"""
import http.client
import os
import signal
import tempfile
import time
import unittest

from harness import Daemon

STRAY = (signal.SIGUSR1, signal.SIGUSR2, signal.SIGALRM, signal.SIGVTALRM, signal.SIGPROF,
         signal.SIGIO)


def wait_for(pred, seconds=10.0):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if pred():
            return True
        time.sleep(0.05)
    return pred()


def read(path):
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except FileNotFoundError:
        return ""


class Signals(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="pascald-sig-")
        self.log = os.path.join(self.tmp.name, "pascald.log")
        self.d = Daemon(self.tmp.name, ["--log-file", self.log]).start()

    def tearDown(self):
        rc = self.d.stop()
        self.tmp.cleanup()
        self.assertEqual(rc, 0, "SIGTERM after the signals must still be a clean exit")

    def test_hup_reopens_the_log(self):
        self.assertTrue(wait_for(lambda: "frozen calibration(s) loaded" in read(self.log)))
        conn = http.client.HTTPConnection("127.0.0.1", self.d.port, timeout=10)
        conn.request("GET", "/healthz")
        self.assertEqual(conn.getresponse().read()[:1], b"{")
        os.rename(self.log, self.log + ".1")  # what logrotate does
        self.d.proc.send_signal(signal.SIGHUP)
        self.assertTrue(wait_for(lambda: "log file %s reopened" % self.log in read(self.log)),
                        read(self.log + ".1")[-500:])
        self.assertIsNone(self.d.proc.poll())
        conn.request("GET", "/healthz")  # the same keep-alive connection
        r = conn.getresponse()
        self.assertEqual(r.status, 200)
        r.read()
        conn.close()
        self.assertNotIn("reopened", read(self.log + ".1"))
        # the new file gets what follows
        self.d.proc.send_signal(signal.SIGUSR1)
        self.assertTrue(wait_for(lambda: "signal %d ignored" % signal.SIGUSR1 in read(self.log)))

    def test_stray_signals_are_ignored(self):
        for sig in STRAY:
            self.d.proc.send_signal(sig)
            self.assertTrue(wait_for(lambda: "signal %d ignored" % sig in read(self.log)), sig)
            self.assertIsNone(self.d.proc.poll(), sig)
            self.assertEqual(self.d.request("GET", "/healthz").status, 200)

    def test_bad_log_file(self):
        p = Daemon(self.tmp.name, ["--log-file", os.path.join(self.tmp.name, "no", "such", "x.log")])
        with self.assertRaises(RuntimeError) as e:
            p.start()
        self.assertIn("cannot open log file", str(e.exception))


if __name__ == "__main__":
    unittest.main()
