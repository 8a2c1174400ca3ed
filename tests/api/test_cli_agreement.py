"""test_cli_agreement.py - the daemon and the offline CLI give the same
predictions from the same bundle. Bundles come from `pascal synth` (scan and
GEMM laws); the daemon imports them at startup from --bundles (the first-run
import of an empty database); each query is answered by GET /v1/predict,
POST /v1/predict (single and batch) and `pascal predict --json`, and the
documents must be identical: same keys in the same order, same types, every
number the same double bit for bit (the CLI prints 17 digits, the daemon the
codec's shortest round-trip form; both come from the codec's one writer)."""
import json
import os
import subprocess
import unittest
import urllib.parse

from harness import PASCAL_CLI, SynthDaemonTest, exact

SCAN_QUERIES = [
    dict(o=1, path="tma", d=2, m=3, N=2048, W=16),      # exact reference
    dict(o=1, path="tma", d=2, m=6, N=4096, W=16),      # graph, between sizes
    dict(o=1, path="tma", d=4, m=20, N=8192, W=2.5),    # clamp, beyond the sizes
    dict(o=1, path="tma", d=3, m=5, N=3000, W=100),     # depth fallback, W past the end
    dict(o=2, path="sync", d=0, m=9, N=5120, W=1),
    dict(o=2, path="tma", d=4, m=11, N=2500, W=64),
]
GEMM_QUERIES = [dict(Mg=1024, Ng=512, Kg=2048), dict(Mg=768, Ng=384, Kg=1536), dict(Mg=8192, Ng=4096, Kg=8192)]
REFUSED = dict(o=3, path="tma", d=2, m=1, N=2048, W=4)   # unknown family


class CliAgreement(SynthDaemonTest):
    def cli(self, bundle, q):
        args = [PASCAL_CLI, "predict", "--bundle", bundle, "--json"]
        for k, v in q.items():
            args += ["--" + k, str(v)]
        p = subprocess.run(args, capture_output=True, text=True)
        return p.returncode, (json.loads(p.stdout) if p.returncode == 0 else p.stderr)

    def daemon_all(self, q):
        full = dict(q, device=self.device)
        g = self.d.request("GET", "/v1/predict?" + urllib.parse.urlencode(full))
        p = self.d.request("POST", "/v1/predict", full)
        b = self.d.request("POST", "/v1/predict", {"queries": [full], "explain": True})
        self.assertEqual(g.status, p.status)
        return g, p, b.json["results"][0]

    def strip(self, doc):
        doc = dict(doc)
        self.assertEqual(doc.pop("device"), self.device)
        self.assertIsInstance(doc.pop("calibration"), int)
        return exact(doc)

    def test_startup_import(self):
        cals = self.d.request("GET", "/v1/calibrations").json["calibrations"]
        self.assertEqual(sorted(c["workload"] for c in cals), ["gemm", "scan"])
        self.assertTrue(all(c["state"] == "frozen" for c in cals))

    def check(self, bundle, queries):
        for q in queries:
            with self.subTest(q=q):
                rc, want = self.cli(bundle, q)
                self.assertEqual(rc, 0, want)
                want = exact(want)
                g, p, b = self.daemon_all(q)
                self.assertEqual(g.status, 200, g.raw)
                self.assertEqual(self.strip(g.json), want)
                self.assertEqual(self.strip(p.json), want)
                self.assertEqual(self.strip(b), want)

    def test_scan(self):
        self.check(self.bundle["scan"], SCAN_QUERIES)
        rules = {self.cli(self.bundle["scan"], q)[1]["rule"] for q in SCAN_QUERIES}
        self.assertTrue({"exact", "graph", "clamp", "depth-fallback"} <= rules, rules)

    def test_gemm(self):
        self.check(self.bundle["gemm"], GEMM_QUERIES)

    def test_batch_agrees(self):
        """One batch body, explained, posted to the daemon and given to
        `pascal predict --queries`: every answer the same document, every
        bad item the same error code, field and message."""
        for kind, queries in (("scan", SCAN_QUERIES + [REFUSED, dict(SCAN_QUERIES[0], W="x"),
                                                       dict(SCAN_QUERIES[0], colour=1)]),
                              ("gemm", GEMM_QUERIES + [dict(Mg=0, Ng=512, Kg=2048)])):
            body = {"queries": [dict(q, device=self.device) for q in queries], "explain": True}
            daemon = self.d.request("POST", "/v1/predict", body).json["results"]
            path = os.path.join(self.tmp.name, "batch-%s.json" % kind)
            with open(path, "w") as f:
                json.dump(body, f)
            p = subprocess.run([PASCAL_CLI, "predict", "--bundle", self.bundle[kind], "--json",
                                "--queries", path], capture_output=True, text=True)
            self.assertEqual(p.returncode, 2, p.stderr)
            cli = json.loads(p.stdout)["results"]
            self.assertEqual(len(cli), len(daemon))
            for i, (c, d) in enumerate(zip(cli, daemon)):
                with self.subTest(kind=kind, item=i):
                    if "error" in d:
                        self.assertEqual(c["error"], d["error"])
                    else:
                        self.assertEqual(exact(c), self.strip(d))

    def test_refusal_agrees(self):
        rc, _ = self.cli(self.bundle["scan"], REFUSED)
        self.assertNotEqual(rc, 0)
        g, p, b = self.daemon_all(REFUSED)
        self.assertEqual(g.status, 422)
        self.assertEqual(g.json["error"]["code"], "refused")
        self.assertEqual(b["status"], 422)


if __name__ == "__main__":
    unittest.main(verbosity=2)
