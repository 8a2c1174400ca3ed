#!/usr/bin/python3
"""test_sim_cli.py - `pascal sim gemm|scan|attention` black-box (issue 31
item 2): one run on the sim device without a daemon.

Worked by hand (gb10-like: 48 SMs, 100 KiB of shared memory, C = 20 MiB):
a 1024^3 FP16 GEMM with Triton's 64 x 128 x 32 tile, 4 stages: a CTA holds
4 x (64 + 128) x 32 x 2 = 48 KiB (+1 KiB), two per SM, M = 96; every input
(4 MiB) fits, so V = B_0 = 1024 x (1024 + 1024) x 2 = 4194304 bytes; Q =
16 x 8 x 32 x (64 + 128) x 32 x 2 = 50331648, K = M V / Q = 8; lines are 64
rows (gcd), an A tile one line and a B tile two: 16 x 8 x 32 x 3 = 12288
requests. A resident scan (N = 1024 <= C = 1280 blocks) fills each block
once: V = 1024 x 16 KiB, K = 1 / W. A resident attention launch (64 x 64
tiles, head_dim 64, FP16: a K/V step is 16 KiB, a query tile 8 KiB) of
seq_q 64, seq_kv 1024 and 2 query heads on one K/V head, o = 1 (M = 48):
16 K/V steps filled once and 2 query tiles, V = 16 x 16384 + 2 x 8192 =
278528 bytes; 32 K/V requests, K = M x 16 / 32 = 24. Bad arguments exit 2
with one line naming the option; a configuration that does not fit exits 3.

Usage: test_sim_cli.py PASCAL_BINARY SOURCE_DIR
"""
import json
import subprocess
import sys
import unittest

PASCAL = sys.argv[1]
SOURCE = sys.argv[2]


def run(*args):
    p = subprocess.run([PASCAL, "sim"] + list(args), capture_output=True, text=True, timeout=60,
                       cwd=SOURCE)
    return p.returncode, p.stdout, p.stderr


GEMM = ["gemm", "--profile", "gb10-like", "--Mg", "1024", "--Ng", "1024", "--Kg", "1024",
        "--tile", "64x128x32", "--stages", "4", "--elem-bytes", "2", "--group-m", "8", "--json"]


def with_(args, **kw):
    out = list(args)
    for k, v in kw.items():
        opt = "--" + k.replace("_", "-")
        out[out.index(opt) + 1] = v
    return out


class Sim(unittest.TestCase):
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

    def test_profile_by_name_and_scan(self):
        rc, out, err = run("scan", "--profile", "thor-like", "--o", "1", "--path", "tma", "--d",
                           "2", "--m", "6", "--N", "1024", "--W", "4", "--json")
        self.assertEqual(rc, 0, err)
        d = json.loads(out)
        self.assertEqual((d["profile"], d["fill_bytes"], d["K"]), ("thor-like", 1024 * 16384.0,
                                                                   0.25))

    def test_attention_worked(self):
        rc, out, err = run("attention", "--seq-q", "64", "--seq-kv", "1024", "--heads", "2",
                           "--stages", "2", "--o", "1", "--json")
        self.assertEqual(rc, 0, err)
        d = json.loads(out)
        self.assertEqual((d["profile"], d["fill_bytes"], d["K"], d["M"], d["q_bytes"]),
                         ("gb10-like", 278528.0, 24.0, 48, 16384.0))

    def test_bad_arguments_name_the_option(self):
        for args, opt in ((with_(GEMM, tile="64x128"), "--tile"),
                          (with_(GEMM, elem_bytes="3"), "--elem-bytes"),
                          (with_(GEMM, Mg="1000"), "--Mg"),
                          (with_(GEMM, stages="0"), "--stages"),
                          (with_(GEMM, profile="no-such-profile"), "--profile"),
                          (["scan", "--profile", "gb10-like", "--o", "1", "--path", "tmx",
                            "--m", "6", "--N", "1024", "--W", "4"], "--path"),
                          (["scan", "--profile", "gb10-like", "--o", "1", "--path", "tma",
                            "--m", "6", "--N", "1024", "--W", "4"], "--d"),
                          (["attention", "--seq-q", "64", "--seq-kv", "1024", "--heads", "2",
                            "--stages", "0"], "--stages"),
                          (["attention", "--seq-q", "64", "--seq-kv", "1024", "--heads", "2",
                            "--stages", "2", "--profile", "none/such.profile"], "--profile"),
                          (["matmul"], "gemm, scan or attention")):
            rc, out, err = run(*args)
            self.assertEqual(rc, 2, (args, err))
            self.assertEqual(len(err.strip().splitlines()), 1, err)
            self.assertIn(opt, err)

    def test_does_not_fit(self):
        rc, out, err = run(*with_(GEMM, tile="128x256x64"))  # 4 x 384 x 64 x 2 = 192 KiB
        self.assertEqual(rc, 3, err)
        self.assertIn("does not fit", err)
        self.assertIn("stages", err)


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1])
