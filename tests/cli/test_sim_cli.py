#!/usr/bin/python3
"""test_sim_cli.py - `pascal sim scan|gemm|attention` black-box (issue 31
item 2): one run on the sim device without a daemon.

Two independent expectations. The shipped sim bundles: their runs were
measured by pascal-agent --backend sim through pascald, so `pascal sim` with
the same profile, key, size and seed must give the same fill bytes and
kernel time bit for bit (the sim is deterministic). And worked by hand
(gb10-like: 48 SMs, 100 KiB of shared memory, C = 20 MiB): a 1024^3 FP16
GEMM with Triton's 64 x 128 x 32 tile, 4 stages: a CTA holds 4 x (64 + 128)
x 32 x 2 = 48 KiB (+1 KiB), two per SM, M = 96; every input (4 MiB) fits,
so V = B_0 = 1024 x (1024 + 1024) x 2 = 4194304 bytes; Q = 16 x 8 x 32 x
(64 + 128) x 32 x 2 = 50331648, K = M V / Q = 8; lines are 64 rows (gcd),
an A tile one line and a B tile two: 16 x 8 x 32 x 3 = 12288 requests. A
resident scan (N = 1024 <= C = 1280 blocks) fills each block once: V =
1024 x 16 KiB, K = 1 / W. A resident attention launch (64 x 64 tiles,
head_dim 64, FP16: a K/V step is 16 KiB, a query tile 8 KiB) of seq_q 64,
seq_kv 1024 and 2 query heads on one K/V head, o = 1 (M = 48): 16 K/V steps
filled once and 2 query tiles, V = 16 x 16384 + 2 x 8192 = 278528 bytes; 32
K/V requests, K = M x 16 / 32 = 24. Profiles by shipped name and by file;
every bad argument (another workload's option too) exits 2 with one line
naming it; a configuration that does not fit exits 3; a malformed profile
file exits 1 naming the key.

Usage: test_sim_cli.py PASCAL_BINARY REPO_ROOT
"""
import json
import os
import subprocess
import sys
import tempfile
import unittest

PASCAL = sys.argv[1]
ROOT = sys.argv[2]


def run(*args):
    p = subprocess.run([PASCAL, "sim"] + list(args), capture_output=True, text=True, timeout=120,
                       cwd=ROOT)
    return p.returncode, p.stdout, p.stderr


def sim(*args):
    rc, out, err = run(*(list(args) + ["--json"]))
    if rc != 0:
        raise AssertionError("pascal sim %s: exit %d: %s" % (" ".join(args), rc, err))
    return json.loads(out)


def bundle(name):
    with open(os.path.join(ROOT, "deploy", "calibrations", name)) as f:
        return json.load(f)


GEMM = ["gemm", "--profile", "gb10-like", "--Mg", "1024", "--Ng", "1024", "--Kg", "1024",
        "--tile", "64x128x32", "--stages", "4", "--elem-bytes", "2", "--group-m", "8", "--json"]


def with_(args, **kw):
    out = list(args)
    for k, v in kw.items():
        opt = "--" + k.replace("_", "-")
        out[out.index(opt) + 1] = v
    return out


def scan_args(profile, r):
    a = ["scan", "--profile", profile, "--o", str(r["o"]), "--path", r["path"], "--m", str(r["m"]),
         "--N", str(r["N"]), "--W", str(r["W"]), "--seed", str(r.get("repeat", 0))]
    if r["path"] == "tma":
        a += ["--d", str(r["d"])]
    return a


class SimCli(unittest.TestCase):
    def test_scan_reproduces_shipped_runs(self):
        for name, profile in (("sim-gb10-scan.json", "gb10-like"),
                              ("sim-thor-scan.json", "thor-like")):
            b = bundle(name)
            block = b["device"]["block_bytes"]
            picked = [r for r in b["measurements"] if r["W"] == 1][::9][:4]
            picked += [r for r in b["heldout"] if r["W"] == 1 and r.get("repeat") == 1][:2]
            # and the first diverged run at W = 16 (the smallest size): one run
            # through the shared L2 after the SMs have drifted apart, so a
            # change of the cache or of the variation that the coherent runs
            # above do not see fails here (checked: with l2_ways = 16 added to
            # either profile this run's fill_bytes differ from the bundle's)
            picked += [r for r in b["measurements"] if r["W"] == 16 and r["N"] == min(
                x["N"] for x in b["measurements"]) and r["fill_bytes"] > 1.05 * 16 * r["N"] * block][:1]
            self.assertGreaterEqual(len(picked), 7)
            for r in picked:
                got = sim(*scan_args(profile, r))
                self.assertEqual(got["fill_bytes"], r["fill_bytes"], (name, r))
                self.assertEqual(got["kernel_ns"], r["kernel_ns"], (name, r))
                self.assertAlmostEqual(got["K"], got["fill_bytes"] / (r["W"] * r["N"] * block))
                self.assertEqual(got["requests"], got["hits"] + got["merges"] + got["fills"])
                self.assertEqual(got["profile"], profile)

    def test_gemm_reproduces_shipped_runs(self):
        b = bundle("sim-gb10-tiled-gemm.json")
        small = sorted(b["measurements"], key=lambda r: r["Mg"] * r["Ng"] * r["Kg"])[:3]
        for r in small:
            # the calibration kernel: the plans' tile, one stage, one CTA per SM
            got = sim("gemm", "--profile", "gb10-like", "--Mg", str(r["Mg"]), "--Ng", str(r["Ng"]),
                      "--Kg", str(r["Kg"]), "--tile", "128x128x64", "--stages", "1",
                      "--elem-bytes", "2", "--ctas-per-sm", "1", "--seed", str(r.get("repeat", 0)))
            self.assertEqual(got["fill_bytes"], r["fill_bytes"], r)
            self.assertEqual(got["kernel_ns"], r["kernel_ns"], r)
            self.assertEqual(got["tile"], "128x128x64")
            self.assertEqual((got["M"], got["ctas_per_sm"]), (48, 1))
        # and runs of its configurations (tools/measure-configs.py: seed 0,
        # CTAs per SM from the shared memory)
        for c in b["configurations"][::9]:
            got = sim("gemm", "--profile", "gb10-like", "--Mg", str(c["Mg"]), "--Ng", str(c["Ng"]),
                      "--Kg", str(c["Kg"]), "--tile", "%dx%dx%d" % (c["tile_m"], c["tile_n"],
                                                                   c["tile_k"]),
                      "--stages", str(c["stages"]), "--elem-bytes", str(c["elem_bytes"]),
                      "--group-m", str(c["group_m"]))
            self.assertEqual((got["fill_bytes"], got["kernel_ns"]),
                             (c["fill_bytes"], c["kernel_ns"]), c)
        # they are the sim's gemm-configs plan, configurations x shapes, in
        # the order tools/measure-configs.py writes them (checked to fail
        # with one configuration of plan_gen.c's sim list changed)
        p = subprocess.run([PASCAL, "plan", "--kind", "gemm-configs", "--smem-per-sm", "0"],
                           capture_output=True, text=True, timeout=60)
        self.assertEqual(p.returncode, 0, p.stderr)
        plan = json.loads(p.stdout)
        keys = ("tile_m", "tile_n", "tile_k", "elem_bytes", "stages", "group_m")
        want = [tuple(c[k] for k in keys) + (s["Mg"], s["Ng"], s["Kg"])
                for c in plan["configurations"] for s in plan["shapes"]]
        got = [tuple(c[k] for k in keys + ("Mg", "Ng", "Kg")) for c in b["configurations"]]
        self.assertEqual(got, want)

    def test_attention_reproduces_shipped_runs(self):
        # an attention plan's run (o, d, N, W) is W query tiles of each of
        # sm_count x o heads over one K/V head of N steps of the default
        # 64 x 64 x 64 FP16 tiling (the sim agent's mapping)
        for name, profile in (("sim-gb10-tiled-attention.json", "gb10-like"),
                              ("sim-thor-tiled-attention.json", "thor-like")):
            b = bundle(name)
            sms = b["device"]["sm_count"]
            picked = b["measurements"][::31][:3] + b["heldout"][:1]
            for r in picked:
                got = sim("attention", "--profile", profile, "--o", str(r["o"]),
                          "--stages", str(r["d"]), "--seq-kv", str(64 * r["N"]),
                          "--seq-q", str(64 * r["W"]), "--heads", str(sms * r["o"]),
                          "--seed", str(r.get("repeat", 0)))
                self.assertEqual(got["fill_bytes"], r["fill_bytes"], (name, r))
                self.assertEqual(got["kernel_ns"], r["kernel_ns"], (name, r))
                self.assertEqual(got["requests"], got["hits"] + got["merges"] + got["fills"])
                self.assertEqual((got["workload"], got["profile"], got["o"]),
                                 ("attention", profile, r["o"]))

    def test_one_answer_shape(self):
        # the three workloads answer with the same members beside their inputs
        common = {"workload", "seed", "profile", "M", "fill_bytes", "K", "kernel_ns", "requests",
                  "hits", "merges", "fills"}
        docs = [sim("scan", "--o", "1", "--path", "sync", "--m", "0", "--N", "100", "--W", "1"),
                sim("gemm", "--Mg", "256", "--Ng", "256", "--Kg", "256", "--tile", "128x128x64",
                    "--stages", "2", "--elem-bytes", "2"),
                sim("attention", "--seq-q", "64", "--seq-kv", "640", "--heads", "4",
                    "--stages", "2")]
        for d in docs:
            self.assertLessEqual(common, set(d), d)
            self.assertEqual(d["profile"], "gb10-like")  # the built-in profile without --profile

    def test_gemm_worked(self):
        rc, out, err = run(*GEMM)
        self.assertEqual(rc, 0, err)
        d = json.loads(out)
        self.assertEqual((d["fill_bytes"], d["K"], d["M"], d["requests"], d["ctas_per_sm"]),
                         (4194304.0, 8.0, 96, 12288, 2))
        self.assertGreater(d["kernel_ns"], 0)
        # deterministic for a seed, another seed another time
        self.assertEqual(run(*GEMM)[1], out)
        other = json.loads(run(*(GEMM + ["--seed", "5"]))[1])
        self.assertNotEqual(other["kernel_ns"], d["kernel_ns"])

    def test_scan_and_attention_worked(self):
        d = sim("scan", "--profile", "thor-like", "--o", "1", "--path", "tma", "--d", "2", "--m",
                "6", "--N", "1024", "--W", "4")
        self.assertEqual((d["profile"], d["fill_bytes"], d["K"]), ("thor-like", 1024 * 16384.0,
                                                                   0.25))
        d = sim("attention", "--seq-q", "64", "--seq-kv", "1024", "--heads", "2", "--stages", "2",
                "--o", "1")
        self.assertEqual((d["profile"], d["fill_bytes"], d["K"], d["M"], d["q_bytes"]),
                         ("gb10-like", 278528.0, 24.0, 48, 16384.0))

    def test_does_not_fit(self):
        rc, out, err = run(*with_(GEMM, tile="128x256x64"))  # 4 x 384 x 64 x 2 = 192 KiB
        self.assertEqual(rc, 3, err)
        self.assertIn("does not fit", err)
        self.assertIn("stages", err)

    def test_profile_file_and_name_agree(self):
        path = os.path.join(ROOT, "deploy", "profiles", "thor-like.profile")
        a = ["--o", "2", "--path", "tma", "--d", "3", "--m", "5", "--N", "2000", "--W", "2"]
        self.assertEqual(sim("scan", "--profile", path, *a), sim("scan", "--profile", "thor-like", *a))

    def test_bad_arguments_exit_2_naming_them(self):
        ok = ["--profile", "gb10-like", "--o", "1", "--path", "tma", "--d", "4", "--m", "0",
              "--N", "100", "--W", "1"]

        def without(opt):
            i = ok.index(opt)
            return ok[:i] + ok[i + 2:]

        def replaced(opt, value):
            i = ok.index(opt)
            return ok[:i + 1] + [value] + ok[i + 2:]

        cases = [
            (["scan"] + replaced("--profile", "no-such-profile"), "--profile"),
            (["scan"] + replaced("--profile", "/nonexistent/x.profile"), "--profile"),
            (["scan"] + replaced("--o", "0"), "--o"),
            (["scan"] + replaced("--o", "65"), "--o"),
            (["scan"] + replaced("--path", "dma"), "--path"),
            (["scan"] + without("--d"), "--d"),
            (["scan"] + replaced("--d", "0"), "--d"),
            (["scan"] + replaced("--path", "sync"), "--d"),
            (["scan"] + replaced("--m", "x"), "--m"),
            (["scan"] + replaced("--N", "0"), "--N"),
            (["scan"] + replaced("--W", "0"), "--W"),
            (["scan"] + without("--N"), "--N"),
            (["scan"] + ok + ["--bogus", "1"], "--bogus"),
            (with_(GEMM, Mg="1000"), "--Mg"),
            (with_(GEMM, tile="64x128"), "--tile"),
            (with_(GEMM, elem_bytes="3"), "--elem-bytes"),
            (with_(GEMM, stages="0"), "--stages"),
            (with_(GEMM, stages="17"), "--stages"),
            (with_(GEMM, profile="no-such-profile"), "--profile"),
            (GEMM[:3] + GEMM[5:], "--Mg"),
            (["scan"] + ok + ["--Mg", "1024"], "--Mg"),  # another workload's option
            (GEMM + ["--o", "1"], "--o"),
            (["attention", "--seq-q", "64", "--seq-kv", "640", "--heads", "4"], "--stages"),
            (["attention", "--seq-q", "64", "--seq-kv", "640", "--heads", "4", "--stages", "0"],
             "--stages"),
            (["attention", "--seq-q", "64", "--seq-kv", "640", "--heads", "4", "--stages", "2",
              "--path", "tma"], "--path"),
            (["attention", "--profile", "thor-like", "--seq-q", "64", "--seq-kv", "640",
              "--heads", "4", "--stages", "64"], "--stages"),  # does not fit shared memory
            (["dance"], "scan, gemm or attention"),
            ([], "scan, gemm or attention"),
        ]
        for args, named in cases:
            rc, out, err = run(*args)
            self.assertEqual(rc, 2, (args, err))
            self.assertEqual(out, "", args)
            self.assertEqual(len(err.strip().splitlines()), 1, (args, err))
            self.assertIn(named, err, args)

    def test_malformed_profile_exits_1_naming_the_key(self):
        with tempfile.NamedTemporaryFile("w", suffix=".profile", delete=False) as f:
            f.write("sm_count = 48\nl2_ways = lots\n")
        try:
            rc, out, err = run("scan", "--profile", f.name, "--o", "1", "--path", "sync",
                               "--m", "0", "--N", "10", "--W", "1")
            self.assertEqual(rc, 1, err)
            self.assertIn("l2_ways", err)
            self.assertEqual(len(err.strip().splitlines()), 1, err)
        finally:
            os.unlink(f.name)


if __name__ == "__main__":
    unittest.main(argv=[sys.argv[0]], verbosity=1)
