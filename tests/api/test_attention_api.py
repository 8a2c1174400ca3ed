"""test_attention_api.py - attention queries over real HTTP (docs/attention.md,
docs/http-api.md): pascald imports an attention bundle at startup (a
synthetic one made here from a stated law, never shipped), lists its fields
in GET /v1/schema, answers a query at one of its references with the
measured fills to the byte (query tiles included) by POST, GET and inside a
batch, answers the same through `pascal predict`, and refuses what the
model does not describe with the 4xx that names the field.

The law: 16-SM, C = 256-block test device, 16 KiB blocks = one 64-row FP16
K/V step at head_dim 64; depths 1 and 2 at o = 2, depth 3 at o = 1; the
K/V excess K(N, W, d) = 1 + d (N/C - 1) W / (W + 4) / 2; the fills are
K b W N plus the W M query tiles of 8 KiB."""
import json
import os
import subprocess
import tempfile
import unittest

from harness import PASCAL_CLI, Daemon

DEVICE = {"name": "att-dev", "arch": "sim", "sm_count": 16, "capacity_blocks": 256,
          "block_bytes": 16384,
          "peaks": {"dram_bytes_per_s": 2e11, "l2_bytes_per_s": 1e12, "tensor_flops": 1e14,
                    "sm_clock_hz": 1e9, "launch_s": 2e-6}}
B, QT = 16384.0, 8192.0
SIZES, HORIZONS = (512, 768), (1, 4, 16)


def o_at(d):
    return 2 if d < 3 else 1


def k_law(n, w, d):
    return 1.0 + d * (n / 256.0 - 1.0) * w / (w + 4.0) / 2.0


def fills(n, w, d):
    return w * 16 * o_at(d) * QT + k_law(n, w, d) * B * w * n


def bundle():
    runs = [{"o": o_at(d), "path": "tma", "d": d, "m": 128, "N": n, "W": w,
             "fill_bytes": fills(n, w, d), "kernel_ns": 1e5 * w * n / 512.0}
            for d in (1, 2, 3) for n in SIZES for w in HORIZONS]
    return {"format": "pascal-calibration/1", "device": DEVICE, "workload": "attention",
            "class_rule": "mod4-min2",
            "attention": {"block_q": 64, "block_kv": 64, "head_dim": 64, "elem_bytes": 2},
            "provenance": {"source": "synthetic"}, "measurements": runs}


def query(n, w, d, **extra):
    """W M CTAs of one 64-row tile over 2 heads, N steps of K/V."""
    ctas = w * 16 * o_at(d)
    q = {"device": "att-dev", "seq_q": 64 * ctas // 2, "seq_kv": 64 * n, "heads": 2,
         "head_dim": 64, "stages": d}
    q.update(extra)
    return q


class AttentionApi(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory(prefix="pascald-att-")
        cls.bundles = os.path.join(cls.tmp.name, "bundles")
        os.mkdir(cls.bundles)
        cls.path = os.path.join(cls.bundles, "att.json")
        with open(cls.path, "w", encoding="utf-8") as f:
            json.dump(bundle(), f)
        cls.d = Daemon(cls.tmp.name, bundles=cls.bundles).start()
        cls.token = cls.d.token("admin", "att")

    @classmethod
    def tearDownClass(cls):
        rc = cls.d.stop()
        cls.tmp.cleanup()
        assert rc == 0, rc

    def req(self, *a, **k):
        return self.d.request(*a, token=self.token, **k)

    def test_schema_lists_the_fields(self):
        r = self.req("GET", "/v1/schema")
        self.assertEqual(r.status, 200)
        names = [f["name"] for f in r.json["queries"]["attention"]]
        self.assertEqual(names, ["seq_q", "seq_kv", "heads", "kv_heads", "head_dim", "block_q",
                                 "block_kv", "stages", "elem_bytes", "causal"])
        req = {f["name"] for f in r.json["queries"]["attention"] if f["required"]}
        self.assertEqual(req, {"seq_q", "seq_kv", "heads", "head_dim", "stages"})

    def test_reference_gives_back_its_fills(self):
        for d in (1, 2, 3):
            n, w = 768, 4
            r = self.req("POST", "/v1/predict", query(n, w, d))
            self.assertEqual(r.status, 200, r.raw)
            a = r.json
            self.assertEqual(a["workload"], "attention")
            self.assertEqual(a["rule"], "exact")
            self.assertAlmostEqual(a["K"] / k_law(n, w, d), 1.0, places=9)
            self.assertAlmostEqual(a["fill_bytes"] / fills(n, w, d), 1.0, places=9)
            self.assertEqual(a["M"], 16 * o_at(d))
            self.assertEqual(a["scan"], {"o": o_at(d), "path": "tma", "d": d, "m": 128, "N": n,
                                         "W": float(w), "ctas": w * 16 * o_at(d)})
            self.assertEqual(a["q_bytes"], w * 16 * o_at(d) * QT)
            self.assertEqual(a["B0"], a["q_bytes"] + B * w * n)
            self.assertEqual(a["query"]["kv_heads"], 0)  # absent: multi-query
            self.assertEqual(a["time_source"], "calibrated")  # the runs carry kernel times

    def test_get_and_batch_agree_with_post(self):
        q = query(512, 16, 2)
        post = self.req("POST", "/v1/predict", q).json
        qs = "&".join("%s=%s" % kv for kv in q.items())
        get = self.req("GET", "/v1/predict?" + qs)
        self.assertEqual(get.status, 200, get.raw)
        self.assertEqual(get.json["fill_bytes"], post["fill_bytes"])
        q.pop("device")
        batch = self.req("POST", "/v1/predict", {"queries": [
            dict(q, device="att-dev"),
            {"device": "att-dev", "o": 1, "path": "sync", "m": 1, "N": 9, "W": 1},
            dict(q, device="att-dev", causal=1)]})
        self.assertEqual(batch.status, 200, batch.raw)
        items = batch.json["results"]
        self.assertEqual(items[0]["fill_bytes"], post["fill_bytes"])
        self.assertEqual(items[1]["status"], 404)  # no scan calibration on this device
        self.assertEqual((items[2]["status"], items[2]["error"]["field"]),
                         (422, "queries[2].causal"))

    def test_errors_name_the_field(self):
        cases = [
            (dict(query(512, 4, 2), causal=1), 422, "causal"),
            (dict(query(512, 4, 2), kv_heads=2), 422, "kv_heads"),
            (dict(query(512, 4, 2), kv_heads=3), 400, "kv_heads"),
            (dict(query(512, 4, 2), head_dim=128), 422, "head_dim"),
            (dict(query(512, 4, 2), block_kv=32), 422, "block_kv"),
            (dict(query(512, 4, 2), stages=4), 422, "stages"),
            (dict(query(512, 4, 2), seq_q=0), 400, "seq_q"),
            (dict(query(512, 4, 2), causal=2), 400, "causal"),
            (dict(query(512, 4, 2), m=3), 400, "seq_q"),
            ({k: v for k, v in query(512, 4, 2).items() if k != "stages"}, 400, "stages"),
            (dict(query(512, 4, 2), heads="8"), 400, "heads"),
        ]
        for q, status, field in cases:
            r = self.req("POST", "/v1/predict", q)
            self.assertEqual((r.status, r.json["error"]["field"]), (status, field), r.raw)
        r = self.req("POST", "/v1/predict", query(512, 4, 2, causal=1))
        self.assertIn("not modelled", r.json["error"]["message"])

    def test_cli_answers_the_same(self):
        q = query(768, 16, 3)
        post = self.req("POST", "/v1/predict", q).json
        args = [PASCAL_CLI, "predict", "--bundle", self.path, "--json"]
        for k in ("seq_q", "seq_kv", "heads", "head_dim", "stages"):
            args += ["--" + k, str(q[k])]
        out = subprocess.run(args, check=True, capture_output=True, text=True).stdout
        self.assertEqual(json.loads(out)["fill_bytes"], post["fill_bytes"])
        bad = subprocess.run(args + ["--causal", "1"], capture_output=True, text=True)
        self.assertEqual(bad.returncode, 3)  # the model's refusal (docs/cli.md)
        self.assertIn("causal", bad.stderr)
        bad = subprocess.run(args + ["--causal", "2"], capture_output=True, text=True)
        self.assertEqual(bad.returncode, 2)  # out of the field's range


if __name__ == "__main__":
    unittest.main()
