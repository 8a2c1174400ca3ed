#!/usr/bin/env python3
"""bench/http/slow_clients.py - the red-team loads of issue 37, findings 3
and 4, against one pascald on loopback; prints figures, asserts nothing.

1. Slow readers: CLIENTS connections each send a batch of 10,000 queries
   asking for the explained answer (about 12.7 MB of JSON) and never read.
   Printed: the daemon's resident memory before and with them held (VmRSS,
   and its peak VmHWM, from /proc), per connection, and how long a
   legitimate client waits for /healthz and a prediction meanwhile.
2. Keep-alive slowloris: nine loopback addresses open 64 connections each
   (576, over the default connection_limit of 512), and each connection
   sends one complete request every PERIOD seconds, holding its slot. A
   legitimate client from a tenth address then makes TRIES requests, each on
   a new connection. Printed: how many it got answered and how fast.

usage: bench/http/slow_clients.py [BUILD_DIR]   (PASCALD=binary overrides
BUILD_DIR/bin/pascald, so that another build can be measured the same way;
CLIENTS=128, PERIOD=5, TRIES=20).
"""
import json
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
BUILD = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "..", "..", "build")
PASCALD = os.environ.get("PASCALD", os.path.join(BUILD, "bin", "pascald"))
PASCAL = os.path.join(BUILD, "bin", "pascal")
CLIENTS = int(os.environ.get("CLIENTS", "128"))
PERIOD = float(os.environ.get("PERIOD", "5"))
TRIES = int(os.environ.get("TRIES", "20"))
DEVICE = "synthetic-gb10"


def start(workdir):
    bundles = os.path.join(workdir, "bundles")
    os.mkdir(bundles)
    subprocess.run([PASCAL, "synth", "--law", "scan", "-o", os.path.join(bundles, "s.json")], check=True)
    p = subprocess.Popen([PASCALD, "--listen", "127.0.0.1:0", "--db", os.path.join(workdir, "p.db"),
                          "--bundles", bundles], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    line = p.stdout.readline().decode()
    return p, int(line.rsplit(":", 1)[1])


def memory_mib(pid):
    got = {}
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            k, _, v = line.partition(":")
            if k in ("VmRSS", "VmHWM"):
                got[k] = int(v.split()[0]) / 1024.0
    return got["VmRSS"], got["VmHWM"]


def connect_from(src, port, timeout=2):
    """A connection to the daemon from loopback address `src`, or None."""
    try:
        s = socket.socket()
        s.bind((src, 0))
        s.settimeout(timeout)
        s.connect(("127.0.0.1", port))
        return s
    except OSError:
        return None


def ask(port, path, src="127.0.0.1", timeout=10.0):
    """One request on a new connection: (status or None, seconds)."""
    t0 = time.monotonic()
    try:
        s = socket.socket()
        s.bind((src, 0))
        s.settimeout(timeout)
        s.connect(("127.0.0.1", port))
        s.sendall(b"GET %s HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n" % path.encode())
        head = s.recv(64)
        s.close()
        return int(head.split()[1]), time.monotonic() - t0
    except (OSError, IndexError, ValueError):
        return None, time.monotonic() - t0


PREDICT = "/v1/predict?device=%s&o=1&path=tma&d=2&m=6&N=4096&W=16" % DEVICE


def slow_readers(p, port):
    qs = [{"device": DEVICE, "o": 1 + i % 2, "path": "tma", "d": 2, "m": i % 9, "N": 2048 + 64 * (i % 40),
           "W": 1 + i % 30} for i in range(10000)]
    body = json.dumps({"explain": True, "queries": qs}).encode()
    req = (b"POST /v1/predict HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
           b"Content-Length: %d\r\n\r\n" % len(body)) + body
    time.sleep(1)
    base, _ = memory_mib(p.pid)
    socks = []
    for _ in range(CLIENTS):
        s = socket.socket()
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)  # a reader that takes nothing
        s.connect(("127.0.0.1", port))
        s.sendall(req)
        socks.append(s)
    # until the daemon has answered what it will (its memory still for 3 s)
    rss, still, end = memory_mib(p.pid)[0], 0, time.monotonic() + 90
    while still < 3 and time.monotonic() < end:
        time.sleep(1)
        now = memory_mib(p.pid)[0]
        still = still + 1 if abs(now - rss) < 1 else 0
        rss = now
    rss, hwm = memory_mib(p.pid)
    waits = [ask(port, "/healthz")[1] for _ in range(3)] + [ask(port, PREDICT)[1] for _ in range(3)]
    print("slow readers: %d clients, each a %.0f KB batch asking for an explained answer, never read"
          % (CLIENTS, len(body) / 1e3))
    print("  daemon memory: %.0f MiB before, %.0f MiB with them held (peak %.0f MiB): %.2f MiB per client"
          % (base, rss, hwm, (rss - base) / CLIENTS))
    print("  a legitimate client meanwhile: slowest /healthz or prediction %.0f ms" % (1e3 * max(waits)))
    for s in socks:
        s.close()


def slowloris(port):
    stop = threading.Event()
    held = []

    def holder(src):
        conns = [s for s in (connect_from(src, port) for _ in range(64)) if s]
        held.append(len(conns))
        while not stop.is_set():
            for s in list(conns):
                try:
                    s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
                    if not s.recv(4096):
                        raise OSError("closed")
                except OSError:
                    conns.remove(s)
                    s.close()
                    again = connect_from(src, port)  # back at once, as an attacker would be
                    if again:
                        conns.append(again)
            stop.wait(PERIOD)
        for s in conns:
            s.close()

    threads = [threading.Thread(target=holder, args=("127.0.0.%d" % (10 + i),)) for i in range(9)]
    for t in threads:
        t.start()
    time.sleep(3)
    results = []
    for _ in range(TRIES):
        results.append(ask(port, "/healthz", src="127.0.0.99", timeout=5))
        time.sleep(0.5)
    stop.set()
    for t in threads:
        t.join()
    ok = [t for st, t in results if st == 200]
    print("keep-alive slowloris: 9 addresses x 64 connections (%d opened), one request each every %.0f s"
          % (sum(held), PERIOD))
    print("  a legitimate client: %d of %d requests answered; %d within 1 s; slowest %.0f ms"
          % (len(ok), TRIES, sum(1 for t in ok if t <= 1.0), 1e3 * max(ok) if ok else float("nan")))


def main():
    print("pascald: %s" % PASCALD)
    with tempfile.TemporaryDirectory(prefix="pascald-slow-") as w:
        p, port = start(w)
        try:
            slow_readers(p, port)
            slowloris(port)
        finally:
            p.terminate()
            p.wait(timeout=30)


if __name__ == "__main__":
    main()
