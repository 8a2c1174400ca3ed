#!/usr/bin/python3
"""test_agent_protocol.py - pascal-agent against a scripted stand-in for
pascald (stdlib http.server speaking the jobs API of api-spec/openapi.yaml), to drive the
agent into cases a healthy daemon rarely shows: 5xx answers retried with
backoff, a 4xx never retried (exit 7), a non-JSON answer (exit 7), heartbeats carrying the lease while a
job runs longer than a quarter of its lease, a heartbeat refused with 409 (the
result is discarded, not uploaded), a backend failure reported through /fail,
an unreadable job reported and fatal, --concurrency 2, and the device's
capacity C taken from the server's registration (looked up before registering).

Usage: test_agent_protocol.py --agent PATH --source DIR
"""
import argparse
import json
import os
import pty
import re
import subprocess
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

FAILS = []
TINY = {"arch": "sim", "sm_count": 4, "capacity_blocks": 64, "block_bytes": 16384}


def check(cond, what):
    if not cond:
        FAILS.append(what)
        print("FAIL:", what, flush=True)
    return cond


def scan_job(jid, lease_seconds=60.0, N=96, W=4, o=1, path="sync", d=0, m=0):
    return {"id": jid, "calibration": 1, "lease_token": "lease%04d" % jid,
            "lease_expires_at": "2026-11-21T10:00:00Z", "lease_seconds": lease_seconds,
            "attempt": 1, "workload": "scan", "block_bytes": 16384,
            "run": {"o": o, "path": path, "d": d, "m": m, "N": N, "W": W, "repeat": 0}}


class Fake:
    """The scripted daemon. `jobs`: what successive claims hand out;
    `claim_errors`: statuses (or raw 200 bodies) answered to the first claims instead;
    `heartbeat_status`: the answer to every heartbeat; `total`: the progress
    total (default: every job; less when a job is not expected to finish,
    as a real daemon would have requeued it to someone else)."""

    def __init__(self, jobs, claim_errors=(), heartbeat_status=200, total=None, refuse_results=()):
        self.jobs = list(jobs)
        self.refuse_results = set(refuse_results)  # job ids whose results are refused with 422
        self.total = len(self.jobs) if total is None else total
        self.done = 0
        self.claim_errors = list(claim_errors)
        self.heartbeat_status = heartbeat_status
        self.registered = True  # GET /v1/devices/tiny finds the device
        self.events = []  # (time, method, path, body, status)
        self.lock = threading.Lock()
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *a):
                pass

            def do_GET(self):
                self._answer(None)

            def do_POST(self):
                n = int(self.headers.get("Content-Length", "0"))
                self._answer(json.loads(self.rfile.read(n) or b"null"))

            def _answer(self, body):
                if self.headers.get("Authorization") != "Bearer tok3n":
                    status, reply = 401, {"error": {"code": "unauthorized", "message": "bad token", "field": None}}
                else:
                    status, reply = fake.route(self.command, self.path, body)
                with fake.lock:
                    fake.events.append((time.monotonic(), self.command, self.path, body, status))
                data = reply if isinstance(reply, bytes) else json.dumps(reply).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = "http://127.0.0.1:%d" % self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def progress(self):
        return {"done": self.done, "total": self.total}

    def route(self, method, path, body):
        with self.lock:
            if method == "POST" and path == "/v1/devices":
                return 200, dict(TINY, name=body["name"])
            if method == "GET" and path == "/v1/devices/tiny" and self.registered:
                return 200, {"device": dict(TINY, name="tiny")}
            if method == "POST" and path == "/v1/jobs/claim":
                if self.claim_errors:
                    st = self.claim_errors.pop(0)
                    if isinstance(st, bytes):  # a raw, non-JSON 200 answer
                        return 200, st
                    return st, {"error": {"code": "scripted", "message": "scripted %d" % st, "field": None}}
                job = self.jobs.pop(0) if self.jobs else None
                return 200, {"job": job, "progress": self.progress()}
            m = re.match(r"/v1/jobs/(\d+)/(heartbeat|result|fail)$", path)
            if method == "POST" and m:
                if m.group(2) == "heartbeat":
                    return self.heartbeat_status, ({"lease_expires_at": "x"} if self.heartbeat_status == 200 else
                                                   {"error": {"code": "stale_lease", "message": "gone", "field": None}})
                if m.group(2) == "result" and int(m.group(1)) in self.refuse_results:
                    return 422, {"error": {"code": "implausible", "field": "fill_bytes",
                                           "message": "fill_bytes 1 is outside what this run can fill"}}
                if m.group(2) == "result":
                    self.done += 1
                return 200, {"job": {"id": int(m.group(1)), "state": "done"}, "progress": self.progress()}
            return 404, {"error": {"code": "not_found", "message": path, "field": None}}

    def calls(self, suffix):
        with self.lock:
            return [e for e in self.events if e[2].endswith(suffix)]

    def close(self):
        self.server.shutdown()
        self.server.server_close()


def agent_cmd(args, fake, tmp, name, *extra):
    tf = os.path.join(tmp, "token")
    with open(tf, "w") as f:
        f.write("tok3n\n")
    return [args.agent, "--server", fake.url, "--token-file", tf, "--device", "tiny",
           "--backend", "sim", "--profile", os.path.join(args.source, "tests/e2e/tiny.profile"),
           "--name", name, "--until-idle", "--poll", "0.05", "--backoff-base", "0.05",
           "--backoff-cap", "0.2"] + list(extra)


def run_agent(args, fake, tmp, name, *extra):
    cmd = agent_cmd(args, fake, tmp, name, *extra)
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    except subprocess.TimeoutExpired as e:
        return "timeout", "%s%s" % (e.stdout, e.stderr)
    return r.returncode, r.stdout + r.stderr


def run_agent_on_tty(args, fake, tmp, name):
    """Run the agent with stdout on a pseudo-terminal; (exit code, tty bytes)."""
    master, slave = pty.openpty()
    p = subprocess.Popen(agent_cmd(args, fake, tmp, name), stdout=slave, stderr=subprocess.DEVNULL)
    os.close(slave)
    data = b""
    while True:
        try:
            chunk = os.read(master, 4096)
        except OSError:  # EIO: the agent closed the terminal
            break
        if not chunk:
            break
        data += chunk
    os.close(master)
    return p.wait(timeout=60), data


def scenario(title):
    print("==", title, flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--agent", required=True)
    ap.add_argument("--source", required=True)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="pascal-proto-") as tmp:
        scenario("5xx answers are retried with backoff, then the job runs")
        fake = Fake([scan_job(1)], claim_errors=[503, 502])
        code, out = run_agent(args, fake, tmp, "retry")
        check(code == 0, "exit 0 after transient 5xx: %s\n%s" % (code, out))
        check(len(re.findall(r"claim: server error .* retry \d+/10", out)) == 2, "two logged retries:\n" + out)
        check(len(fake.calls("/result")) == 1, "the job's result was uploaded once")
        check("1/1" in out, "progress 1/1 shown:\n" + out)
        fake.close()

        scenario("the device's C comes from the server, looked up before registering")
        fake = Fake([scan_job(1)])
        code, out = run_agent(args, fake, tmp, "known-c")
        check(code == 0, "exit 0: %s\n%s" % (code, out))
        check("registered with C = 64 blocks: not measured again" in out, "stored C used:\n" + out)
        lookup, register = fake.calls("/v1/devices/tiny"), fake.calls("/v1/devices")
        check(lookup and register and lookup[0][0] <= register[0][0], "lookup before registration")
        fake.close()
        fake = Fake([scan_job(1)])
        fake.registered = False  # a device nobody registered: nothing to reuse
        code, out = run_agent(args, fake, tmp, "unknown-c")
        check(code == 0 and "not measured again" not in out, "no stored C: %s\n%s" % (code, out))
        fake.close()

        scenario("a 4xx is never retried")
        fake = Fake([scan_job(1)], claim_errors=[400])
        code, out = run_agent(args, fake, tmp, "bad-request")
        check(code == 7, "exit 7 on an unexpected 4xx: %s\n%s" % (code, out))
        check(len(fake.calls("/claim")) == 1, "the 400 claim was not repeated")
        check("scripted 400" in out, "the server's message is shown:\n" + out)
        fake.close()

        scenario("an answer that is not the jobs API ends the agent (exit 7)")
        fake = Fake([scan_job(1)], claim_errors=[b"<html>proxy login</html>"])
        code, out = run_agent(args, fake, tmp, "garbage")
        check(code == 7, "exit 7 on a non-JSON claim answer: %s\n%s" % (code, out))
        check("progress" in out, "the log says what was missing:\n" + out)
        fake.close()

        scenario("heartbeats carry the lease while a job runs")
        long_job = scan_job(5, lease_seconds=0.3, N=8192, W=64, o=2, path="tma", d=3)
        fake = Fake([long_job])
        code, out = run_agent(args, fake, tmp, "beat")
        check(code == 0, "exit 0: %s\n%s" % (code, out))
        beats = fake.calls("/v1/jobs/5/heartbeat")
        result = fake.calls("/v1/jobs/5/result")
        check(len(result) == 1, "one result upload")
        if result:  # the first claim handed out job 5
            print("heartbeats during the %.2f s job: %d" % (result[0][0] - fake.calls("/claim")[0][0], len(beats)))
        check(len(beats) >= 1, "at least one heartbeat during a run longer than lease/4 (%d)" % len(beats))
        check(all(b[3] == {"lease_token": "lease0005"} for b in beats), "heartbeats carry the lease token")
        if result:
            check(all(b[0] < result[0][0] for b in beats), "heartbeats come before the result")
            body = result[0][3]
            check(set(body) == {"lease_token", "fill_bytes", "kernel_ns"} and body["lease_token"] == "lease0005"
                  and body["fill_bytes"] >= 8192 * 16384 and body["kernel_ns"] > 0,
                  "result body per the contract: %r" % body)
        fake.close()

        scenario("a heartbeat refused with 409: the result is discarded")
        fake = Fake([scan_job(6, lease_seconds=0.3, N=8192, W=64, o=2, path="tma", d=3), scan_job(7)],
                    heartbeat_status=409, total=1)
        code, out = run_agent(args, fake, tmp, "lost")
        check(code == 0, "exit 0: %s\n%s" % (code, out))
        check("job 6: lease lost" in out, "the lost lease is logged:\n" + out)
        check(fake.calls("/v1/jobs/6/result") == [], "no result uploaded for the lost job")
        check(len(fake.calls("/v1/jobs/7/result")) == 1, "the agent went on with the next job")
        fake.close()

        scenario("a backend failure is reported through /fail and the agent goes on")
        gemm = {"id": 8, "lease_token": "lease0008", "lease_seconds": 60, "workload": "gemm",
                "block_bytes": 16384, "run": {"Mg": 200, "Ng": 256, "Kg": 1024, "repeat": 0}}
        fake = Fake([gemm, scan_job(9)], total=1)
        code, out = run_agent(args, fake, tmp, "failing")
        check(code == 0, "exit 0: %s\n%s" % (code, out))
        fails = fake.calls("/v1/jobs/8/fail")
        check(len(fails) == 1 and "not a multiple of tile_m" in fails[0][3]["message"]
              and fails[0][3]["lease_token"] == "lease0008",
              "a GEMM shape off the tile grid reported as failed: %r" % fails)
        check(len(fake.calls("/v1/jobs/9/result")) == 1, "next job done")
        fake.close()

        scenario("a result refused as implausible (422) is reported through /fail and the agent goes on")
        fake = Fake([scan_job(11), scan_job(12)], total=1, refuse_results=[11])
        code, out = run_agent(args, fake, tmp, "refused")
        check(code == 0, "exit 0: %s\n%s" % (code, out))
        fails = fake.calls("/v1/jobs/11/fail")
        check(len(fake.calls("/v1/jobs/11/result")) == 1, "the refused result was not repeated")
        check(len(fails) == 1 and "refused the result" in fails[0][3]["message"]
              and "outside what this run can fill" in fails[0][3]["message"]
              and fails[0][3]["lease_token"] == "lease0011",
              "the refusal reported as the job's failure, with the server's reason: %r" % fails)
        check(len(fake.calls("/v1/jobs/12/result")) == 1, "next job done")
        fake.close()

        scenario("an unreadable job is reported and ends the agent (exit 7)")
        broken = scan_job(10)
        del broken["run"]["N"]
        fake = Fake([broken])
        code, out = run_agent(args, fake, tmp, "broken")
        check(code == 7, "exit 7: %s\n%s" % (code, out))
        fails = fake.calls("/v1/jobs/10/fail")
        check(len(fails) == 1 and "job.run.N" in fails[0][3]["message"], "/fail names the field: %r" % fails)
        fake.close()

        scenario("on a terminal: one progress line redrawn in place")
        fake = Fake([scan_job(i) for i in range(40, 43)])
        code, tty = run_agent_on_tty(args, fake, tmp, "tty")
        check(code == 0, "exit 0 on a terminal: %s" % code)
        check(b"\r\x1b[K" in tty and b"3/3  100.0%" in tty and b"ETA" in tty,
              "progress redrawn with \\r and erase-line: %r" % tty[-300:])
        # the progress is one line; below it, once all is measured, the next step
        line, _, step = tty.partition(b"all 3 runs of device")
        check(b"done: fill_bytes" not in line and b"\n" not in line,
              "no per-job lines on the terminal, one line only: %r" % tty[-300:])
        check(b"3/3  100.0%  all runs measured" in line and b"/v1/calibrations/ID/freeze" in step,
              "then the next step below it: %r" % tty[-300:])
        fake.close()

        scenario("--concurrency 2 runs every job once")
        fake = Fake([scan_job(i, N=192, W=16) for i in range(20, 30)])
        code, out = run_agent(args, fake, tmp, "pair", "--concurrency", "2")
        check(code == 0, "exit 0: %s\n%s" % (code, out))
        uploaded = sorted(int(re.search(r"/v1/jobs/(\d+)/", e[2]).group(1)) for e in fake.calls("/result"))
        check(uploaded == list(range(20, 30)), "each job uploaded exactly once: %r" % uploaded)
        fake.close()
    print("%d failures" % len(FAILS))
    sys.exit(1 if FAILS else 0)


if __name__ == "__main__":
    main()
