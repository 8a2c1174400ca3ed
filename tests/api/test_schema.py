"""test_schema.py - GET /v1/schema describes the queries and the methods the
daemon really reads and writes (core/include/pascal/query.h, PASCAL_METHODS):

  * each workload's example query (the schema's examples) is a well-formed
    query for the daemon (GET and POST answer it or refuse it with 422,
    never 400) and for `pascal predict` (exit 0 or 3, never 2); leaving out
    a required field is a 400 naming it; a field the schema does not list
    is a 400 unknown_field; a number just past a field's range is a 400
    naming it;
  * the methods are the report's table columns, in order, each with a
    balanced MAPE in the report.
Verified to fail: with a field added to a workload's table in the schema
encoder only (not read by the daemon), the example query gets 400
unknown_field."""
import subprocess
import unittest
import urllib.parse

from harness import PASCAL_CLI, SynthDaemonTest


class Schema(SynthDaemonTest):
    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        r = cls.d.request("GET", "/v1/schema")
        assert r.status == 200, r.raw
        cls.schema = r.json

    def example(self, workload):
        return {f["name"]: f["example"] for f in self.schema["queries"][workload]}

    def test_examples_are_queries(self):
        self.assertEqual(sorted(self.schema["queries"]), ["attention", "gemm", "scan"])
        for w in ("scan", "gemm"):
            with self.subTest(workload=w):
                q = dict(self.example(w), device=self.device)
                g = self.d.request("GET", "/v1/predict?" + urllib.parse.urlencode(q))
                p = self.d.request("POST", "/v1/predict", q)
                self.assertIn(g.status, (200, 422), g.raw)
                self.assertEqual(p.status, g.status, p.raw)
                args = [PASCAL_CLI, "predict", "--bundle", self.bundle[w], "--json"]
                for k, v in self.example(w).items():
                    args += ["--" + k, str(v)]
                cli = subprocess.run(args, capture_output=True, text=True)
                self.assertIn(cli.returncode, (0, 3), cli.stderr)

    def test_fields_are_what_the_daemon_reads(self):
        for w in ("scan", "gemm"):
            for f in self.schema["queries"][w]:
                with self.subTest(workload=w, field=f["name"]):
                    q = dict(self.example(w), device=self.device)
                    if f["required"]:
                        del q[f["name"]]
                        r = self.d.request("POST", "/v1/predict", q)
                        self.assertEqual((r.status, r.error_code(), r.json["error"]["field"]),
                                         (400, "missing_field", f["name"]))
                    if "maximum" in f:
                        q = dict(self.example(w), device=self.device)
                        q[f["name"]] = f["maximum"] * 2 + 1
                        r = self.d.request("POST", "/v1/predict", q)
                        self.assertEqual((r.status, r.json["error"]["field"]), (400, f["name"]))
            q = dict(self.example(w), device=self.device, not_a_field=1)
            r = self.d.request("POST", "/v1/predict", q)
            self.assertEqual((r.status, r.error_code()), (400, "unknown_field"))

    def test_methods_are_the_table_columns(self):
        cals = self.d.request("GET", "/v1/calibrations").json["calibrations"]
        report = self.d.request("GET", "/v1/calibrations/%d" % cals[0]["id"]).json["report"]
        keys = [m["key"] for m in self.schema["methods"]]
        self.assertEqual(keys, report["table"]["columns"])
        self.assertEqual(sorted(keys), sorted(report["balanced_mape"]))
        self.assertEqual(self.schema["methods"][0]["title"], "PASCAL")


if __name__ == "__main__":
    unittest.main(verbosity=2)
