"""test_connections.py - the connection policy under abuse, on loopback with
small limits and a short request deadline (docs/http-api.md, "Connections").
The attacker connects from 127.0.0.2 (and .3, .4), the health probe from
127.0.0.1, so that the per-address limit tells them apart:
- 50 slow clients sending a header byte every 0.3 s: /healthz keeps answering
  within 1 s, and every slow connection is closed by the deadline (the idle
  timeout is far longer, so nothing else could close it);
- 500 idle connections: the ones over the per-address limit are closed at
  once instead of waiting in the backlog, and /healthz keeps answering;
- at the total limit a newcomer takes the slot of an idle connection of the
  address holding the most, and is answered.
Every loop is bounded in time and the sockets are closed at the end."""
import http.client
import select
import socket
import time
import unittest

from harness import DaemonTest

DEADLINE = 2
PER_IP = 40
LIMIT = 100


def connect(port, src):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.bind((src, 0))
    s.settimeout(2.0)
    s.connect(("127.0.0.1", port))
    s.setblocking(False)
    return s


def closed_by_peer(s, wait):
    """True when the server closed s (EOF or reset) within `wait` seconds."""
    r, _, _ = select.select([s], [], [], wait)
    if not r:
        return False
    try:
        return s.recv(4096) == b""
    except (ConnectionResetError, BlockingIOError):
        return True


class Connections(DaemonTest):
    daemon_args = ("--connection-limit", str(LIMIT), "--connection-limit-per-ip", str(PER_IP),
                   "--request-deadline", str(DEADLINE), "--connection-timeout", "60",
                   "--threads", "2")

    def health_within(self, limit=1.0):
        t0 = time.monotonic()
        c = http.client.HTTPConnection("127.0.0.1", self.d.port, timeout=limit + 1,
                                       source_address=("127.0.0.1", 0))
        try:
            c.request("GET", "/healthz")
            r = c.getresponse()
            r.read()
            status = r.status
        finally:
            c.close()
        took = time.monotonic() - t0
        self.assertEqual(status, 200)
        self.assertLess(took, limit)
        return took

    def metric(self, name):
        c = http.client.HTTPConnection("127.0.0.1", self.d.port, timeout=5)
        c.request("GET", "/metrics")
        text = c.getresponse().read().decode()
        c.close()
        for line in text.splitlines():
            if line.startswith(name + " "):
                return float(line.split()[1])
        raise AssertionError("no metric " + name)

    def open_many(self, n, src):
        socks = []
        for _ in range(n):
            try:
                socks.append(connect(self.d.port, src))
            except OSError:
                pass  # refused in the handshake: counts as refused
        return socks

    def wait_drained(self, seconds=5.0):
        """Until the daemon has seen the test's sockets close (only the probe
        is open). Until then the probe itself may be refused by the limit."""
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            try:
                if self.metric("pascal_http_connections") <= 1:
                    return
            except OSError:
                pass
            time.sleep(0.1)
        self.fail("connections still open %.0f s after the clients closed them" % seconds)

    def test_slow_clients_are_cut_by_the_deadline(self):
        expired0 = self.metric("pascal_http_connections_expired_total")
        socks = self.open_many(50, "127.0.0.2")
        t0 = time.monotonic()
        for s in socks:
            s.send(b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: ")
        alive = list(socks)
        closed_at = {}
        slowest_probe = 0.0
        while alive and time.monotonic() - t0 < DEADLINE + 3:
            for s in list(alive):
                if closed_by_peer(s, 0):
                    closed_at[s] = time.monotonic() - t0
                    alive.remove(s)
                    continue
                try:
                    s.send(b"a")  # one byte: resets the idle timeout, not the deadline
                except OSError:
                    closed_at[s] = time.monotonic() - t0
                    alive.remove(s)
            slowest_probe = max(slowest_probe, self.health_within(1.0))
            time.sleep(0.3)
        try:
            self.assertEqual(alive, [], "slow connections outlived the deadline")
            early = [t for t in closed_at.values() if t < 1.0]
            late = [t for t in closed_at.values() if t >= DEADLINE - 0.1]
            # the ones over the per-address limit go at once, the rest at the deadline
            self.assertEqual(len(early), 50 - PER_IP, sorted(closed_at.values()))
            self.assertEqual(len(late), PER_IP, sorted(closed_at.values()))
            self.assertLess(max(closed_at.values()), DEADLINE + 1.0)
            self.assertGreaterEqual(self.metric("pascal_http_connections_expired_total") - expired0,
                                    PER_IP)
            print("slow clients: %d closed at once, %d by the %d s deadline after %.2f-%.2f s; "
                  "slowest /healthz %.0f ms" % (len(early), len(late), DEADLINE, min(late), max(late),
                                                1000 * slowest_probe))
        finally:
            for s in socks:
                s.close()
        self.wait_drained()

    def test_idle_connections_do_not_starve_health(self):
        socks = self.open_many(500, "127.0.0.2")
        try:
            t0 = time.monotonic()
            refused = sum(1 for s in socks if closed_by_peer(s, 0.5 if s is socks[-1] else 0.05))
            self.assertLess(time.monotonic() - t0, 30)
            self.assertGreaterEqual(refused + (500 - len(socks)), 500 - PER_IP)
            slowest = max(self.health_within(1.0) for _ in range(5))
            print("idle connections: %d of 500 refused at once; slowest /healthz %.0f ms"
                  % (refused + 500 - len(socks), 1000 * slowest))
        finally:
            for s in socks:
                s.close()
        self.wait_drained()

    def test_total_limit_makes_room(self):
        """At the total limit a newcomer is served (issue 37, finding 4): it
        takes the slot of the longest-waiting idle connection of the address
        holding the most. Verified to fail before: the newcomer was closed at
        once and its request never answered."""
        evicted0 = self.metric("pascal_http_connections_evicted_total")
        held = {"127.0.0.2": PER_IP, "127.0.0.3": PER_IP, "127.0.0.4": LIMIT - 2 * PER_IP}
        socks = {}
        try:
            for src, n in held.items():
                socks[src] = self.open_many(n, src)
            time.sleep(0.3)  # all idle, the limit reached with the metrics probe
            self.health_within(2.0)  # the newcomer is answered
            self.assertGreater(self.metric("pascal_http_connections_evicted_total"), evicted0)
            # at once, well inside the request deadline that closes them all later
            ready, _, _ = select.select([k for ss in socks.values() for k in ss], [], [], 0.2)
            gone = {src: sum(1 for k in ss if k in ready) for src, ss in socks.items()}
            self.assertEqual(gone["127.0.0.4"], 0, gone)  # the smaller holder keeps its slots
            self.assertGreaterEqual(gone["127.0.0.2"] + gone["127.0.0.3"], 1, gone)
        finally:
            for ss in socks.values():
                for k in ss:
                    k.close()
        self.wait_drained()
        self.health_within(1.0)

if __name__ == "__main__":
    unittest.main()
