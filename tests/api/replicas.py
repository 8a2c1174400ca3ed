"""replicas.py - a primary pascald and read replicas on loopback, for
test_replicas.py and test_nginx_replicas.py: each daemon has its own
SQLite file in one temporary directory; replicas follow the primary with
--replica-of and a short --replica-interval."""
import os
import time

from harness import Daemon, shipped_bundles

# What the primary imports at its first start: two workloads of the shipped
# set (every import, the replicas' too, recomputes a report).
BUNDLES = ("sim-gb10-scan.json", "sim-gb10-tiled-attention.json")
INTERVAL = 1  # seconds between two syncs of a replica
SETTLE = 60   # seconds a first sync may take (imports refit: slow under sanitizers)


def primary_url(d):
    return "http://127.0.0.1:%d" % d.port


def start_primary(workdir):
    d = Daemon(workdir, bundles=shipped_bundles(workdir, *BUNDLES), db=os.path.join(workdir, "primary.db"))
    d.stderr_path = os.path.join(workdir, "primary.stderr")
    d.admin = d.token("admin", "primary-admin")
    d.agent = d.token("agent", "primary-agent")
    return d.start()


def replica(workdir, name, primary_base, interval=INTERVAL):
    """A replica Daemon (not started) with its own database and admin token."""
    d = Daemon(workdir, ["--replica-of", primary_base, "--replica-interval", str(interval)],
               db=os.path.join(workdir, name + ".db"))
    d.stderr_path = os.path.join(workdir, name + ".stderr")
    d.admin = d.token("admin", name + "-admin")
    return d


def start_replica_set(workdir, n=2):
    """A started primary and its n started replicas r1..rn; when any fails to
    start, the ones already running are stopped before the error goes on."""
    started = []
    try:
        started.append(start_primary(workdir))
        for i in range(1, n + 1):
            started.append(replica(workdir, "r%d" % i, primary_url(started[0])).start())
    except BaseException:
        for d in started:
            d.stop()
        raise
    return started[0], started[1:]


def frozen(d):
    """{id: content_hash} of the frozen calibrations a daemon lists."""
    r = d.request("GET", "/v1/calibrations")
    assert r.status == 200, r.raw
    return {c["id"]: c["content_hash"] for c in r.json["calibrations"] if c["state"] == "frozen"}


def wait_until(pred, timeout):
    """Poll pred() until it is true; returns the seconds it took, or None."""
    t0 = time.monotonic()
    while time.monotonic() - t0 < timeout:
        if pred():
            return time.monotonic() - t0
        time.sleep(0.05)
    return None


def sync_now(r, timeout=SETTLE):
    """POST /v1/replication/sync (202), then wait for that sync to end;
    returns the replica status it left (its last_error says how it ended)."""
    resp = r.request("POST", "/v1/replication/sync", token=r.admin)
    assert resp.status == 202, resp.raw
    k = resp.json["sync"]
    done = {}

    def over():
        st = r.request("GET", "/healthz").json["replica"]
        done["st"] = st
        return st["syncs"]["ok"] + st["syncs"]["failed"] >= k

    assert wait_until(over, timeout) is not None, done
    return done["st"]
