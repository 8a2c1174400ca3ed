#!/usr/bin/python3
"""test_exitcodes.py - pascal-agent's documented exit codes and messages
(docs/agent.md) against a real pascald: 3 for a bad or revoked-looking token,
4 for a device the server does not know (agent token) or knows with other
constants, 5 for an unreachable server after the retries, 2 for usage errors
(including a token on the command line), 6 for --backend cuda in a build
without CUDA and for a device whose lock another process holds (the holder's
pid named); --probe on the sim prints the profile's constants."""
import fcntl
import json
import os
import socket

from e2e import Agent, World, check, finish, parse_args


def run(w, name, args, token=None, env_token=None):
    a = Agent(w, name, args, token=token, env_token=env_token)
    code = a.wait(timeout=60)
    return code, a.text()


def expect(w, name, args, code, needle, token=None, env_token=None):
    got, text = run(w, name, args, token, env_token)
    check(got == code, "%s: exit %s, want %s\n%s" % (name, got, code, text))
    check(needle in text, "%s: message mentions %r:\n%s" % (name, needle, text))


def free_port():
    """A port nothing listens on (bound, then released)."""
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def main():
    args = parse_args()
    with World(args) as w:
        w.register_tiny("tiny")
        base = ["--server", w.url, "--backend", "sim", "--profile", w.profile, "--until-idle",
                "--backoff-base", "0.05", "--backoff-cap", "0.2"]
        expect(w, "badtoken", base + ["--device", "tiny"], 3, "refused the token",
               token="0" * 64)
        expect(w, "badtoken-env", base + ["--device", "tiny"], 3, "refused the token",
               env_token="not-a-real-token")
        expect(w, "unknown-device", base + ["--device", "nosuch"], 4, "not registered",
               token=w.agent_token)
        # The default (gb10-like) profile differs from the registered tiny device.
        other = [a for a in base if a not in ("--profile", w.profile)]
        expect(w, "conflict-agent", other + ["--device", "tiny"], 4, "other constants",
               token=w.agent_token)
        expect(w, "conflict-admin", other + ["--device", "tiny"], 4, "other constants",
               token=w.admin)
        dead = ["--server", "http://127.0.0.1:%d" % free_port(), "--backend", "sim",
                "--device", "tiny", "--retries", "2", "--backoff-base", "0.05",
                "--backoff-cap", "0.1"]
        expect(w, "unreachable", dead, 5, "unreachable after 2 retries", token=w.agent_token)
        expect(w, "usage", ["--server", w.url, "--device", "tiny"], 2, "--backend is required",
               token=w.agent_token)
        expect(w, "argv-token", base + ["--device", "tiny", "--token", "secret"], 2, "--token-file")
        expect(w, "no-token", base + ["--device", "tiny"], 2, "no token")
        expect(w, "missing-token-file", base + ["--device", "tiny", "--token-file", "/nonexistent/t"],
               2, "/nonexistent/t")
        got, text = run(w, "cuda", ["--server", w.url, "--device", "tiny", "--backend", "cuda",
                                    "--until-idle"], token=w.agent_token)
        # Without a CUDA toolkit the agent refuses cuda (6, "built without
        # CUDA"); with one but no GPU the backend cannot open (6, its reason);
        # with a GPU its constants differ from the tiny sim device's (4).
        check(got in (6, 4), "cuda backend: exit %s\n%s" % (got, text))
        check("cuda" in text.lower(), "the cuda outcome names the backend: " + text)
        # One process profiles a device at a time: this test holds the lock.
        lock = os.path.join(w.dir, "dev.lock")
        with open(lock, "w") as held:
            fcntl.flock(held, fcntl.LOCK_EX)
            held.write("%d\n" % os.getpid())
            held.flush()
            expect(w, "locked", base + ["--device", "tiny", "--lock", lock], 6,
                   "being profiled by another process, pid %d" % os.getpid(), token=w.agent_token)
            expect(w, "locked-probe", ["--probe", "--backend", "sim", "--lock", lock], 6,
                   "one process at a time")
        got, text = run(w, "probe", ["--probe", "--backend", "sim", "--profile", w.profile,
                                     "--lock", lock])
        check(got == 0, "sim probe: exit %s\n%s" % (got, text))
        line = [l for l in text.splitlines() if "probe json: " in l]
        check(len(line) == 1, "one probe json line:\n" + text)
        probe = json.loads(line[0].split("probe json: ", 1)[1])
        # smem_per_sm: tiny.profile keeps gb10-like's 100 KiB, for planning
        check(probe["capacity_blocks"] == 64 and probe["sm_count"] == 4 and
              probe["smem_per_sm"] == 102400, "sim probe constants: %r" % probe)
        # the profile's peaks (tiny.profile keeps the defaults, gb10-like's),
        # exactly as stated: measure.sh registers the device from this line
        check(probe.get("peaks") == {"dram_bytes_per_s": 273e9, "l2_bytes_per_s": 2.304e12,
                                     "tensor_flops": 125e12, "sm_clock_hz": 1e9,
                                     "launch_s": 2e-6}, "sim probe peaks: %r" % probe)
        # --static: the cluster experiment through the sim's static path; the
        # sim is exact LRU, so K is the cluster count, as the gap law says.
        got, text = run(w, "static", ["--static", "--backend", "sim", "--profile", w.profile,
                                      "--rounds", "200"])
        check(got == 0, "static: exit %s\n%s" % (got, text))
        doc = json.loads([l for l in text.splitlines() if l.startswith("static json: ")][0][13:])
        check(len(doc["rows"]) == 12 and doc["M"] == 4 and doc["N"] == 8192, "static rows: %r" % doc)
        check(all(r["K"] == r["clusters"] == r["gap_law"] for r in doc["rows"]), "static K: %r" % doc)
        check(doc["mape"]["gap_law"] == 0 and doc["mape"]["che"] > 50, "static MAPE: %r" % doc["mape"])
        expect(w, "ok", base + ["--device", "tiny", "--lock", lock], 0, "no job left",
               token=w.agent_token)
    finish()


if __name__ == "__main__":
    main()
