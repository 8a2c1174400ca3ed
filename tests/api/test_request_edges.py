"""test_request_edges.py - the smaller edges of issue 37, finding 10:

- the request deadline covers the arrival of a request, not the handler's
  work: a registration that waits 3 s on a database another process holds
  locked, under --request-deadline 1, still gets its 201 (before: the sweeper
  shut the connection at about 1.25 s and the client read an empty reply);
- HEAD answers on every GET route (status and headers, no body) and a route
  without GET still says 405 with its Allow header;
- an HTTP/1.1 request without Host is 400 and closes;

Verified to fail before the change: the registration got an empty reply,
HEAD /healthz answered 405, and a Host-less request answered 200.
"""
import socket
import sqlite3
import threading
import time
import unittest

from harness import DEVICE, DaemonTest


def raw(port, data, timeout=10):
    s = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    try:
        s.sendall(data)
        buf = b""
        while True:
            chunk = s.recv(65536)
            if not chunk:
                return buf
            buf += chunk
    finally:
        s.close()


class RequestEdges(DaemonTest):
    daemon_args = ("--request-deadline", "1")

    def test_deadline_stops_when_the_handler_starts(self):
        held = threading.Event()

        def hold():
            con = sqlite3.connect(self.d.db, timeout=10, isolation_level=None)
            con.execute("BEGIN IMMEDIATE")
            held.set()
            time.sleep(3)
            con.execute("ROLLBACK")
            con.close()

        t = threading.Thread(target=hold)
        t.start()
        held.wait(10)
        try:
            r = self.req("POST", "/v1/devices", dict(DEVICE, name="patient"), token=self.admin)
        finally:
            t.join()
        self.assertStatus(r, 201)

    def test_head(self):
        for path in ("/healthz", "/v1/version", "/v1/devices", "/"):
            get = self.req("GET", path)
            head = self.req("HEAD", path, validate=False)
            self.assertEqual(head.status, get.status, path)
            self.assertEqual(head.raw, b"", path)
            self.assertEqual(head.headers.get("content-type"), get.headers.get("content-type"), path)
        r = self.req("HEAD", "/v1/jobs/claim", validate=False)
        self.assertEqual(r.status, 405)
        self.assertEqual(r.headers.get("allow"), "POST")

    def test_host_required(self):
        out = raw(self.d.port, b"GET /healthz HTTP/1.1\r\nConnection: close\r\n\r\n")
        self.assertTrue(out.startswith(b"HTTP/1.1 400"), out[:200])
        self.assertIn(b'"field":"Host"', out)
        out = raw(self.d.port, b"GET /healthz HTTP/1.0\r\n\r\n")  # 1.0 has no Host rule
        self.assertTrue(out.startswith(b"HTTP/1.1 200") or out.startswith(b"HTTP/1.0 200"), out[:200])


if __name__ == "__main__":
    unittest.main()
