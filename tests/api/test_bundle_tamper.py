"""test_bundle_tamper.py - an exported (frozen) bundle edited in any content
field is refused on import.

Scan and GEMM bundles from `pascal synth` are imported, then exported: the
export carries the content hash over format, device, workload, class_rule,
gemm and measurements. Every leaf of that content (the device constants, the
GEMM tile parameters, each field of a measurement) is changed in turn and the
edited export is imported: it must be refused with nothing written. Where the
edited content is itself a valid calibration (the same edit imported as a
plain bundle, without model, report and hash, is accepted), the refusal must
come from the content hash, so a hash that ignored a field is caught even
when the refitted model happens to agree."""
import copy
import json
import os
import subprocess
import tempfile
import unittest

from harness import PASCAL_CLI, DaemonTest

FROZEN_ONLY = ("model", "report", "content_hash")


def leaves(doc, prefix=()):
    """Paths to the scalar leaves of the hashed content."""
    if isinstance(doc, dict):
        for k, v in doc.items():
            yield from leaves(v, prefix + (k,))
    else:
        yield prefix


def edited(value):
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + 1
    if isinstance(value, float):
        return value * 1.25
    return {"sync": "tma", "tma": "sync", "scan": "gemm", "gemm": "scan"}.get(value, value + "-x")


def set_path(doc, path, value):
    node = doc
    for p in path[:-1]:
        node = node[p]
    node[path[-1]] = value


def get_path(doc, path):
    for p in path:
        doc = doc[p]
    return doc


class Tamper(DaemonTest):
    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.plain = {}
        with tempfile.TemporaryDirectory() as tmp:
            for law in ("scan", "gemm"):
                out = os.path.join(tmp, law + ".json")
                subprocess.run([PASCAL_CLI, "synth", "--law", law, "-o", out], check=True)
                with open(out, encoding="utf-8") as f:
                    cls.plain[law] = json.load(f)

    def exported(self, law):
        r = self.req("POST", "/v1/calibrations/import", self.plain[law], token=self.admin)
        self.assertIn(r.status, (200, 201), r.raw[:300])
        r = self.req("GET", "/v1/calibrations/%d/export" % r.json["id"])
        self.assertStatus(r, 200)
        self.assertRegex(r.json["content_hash"], "^sha256:[0-9a-f]{64}$")
        return r.json

    def targets(self, bundle):
        """(path, label) of every content leaf: top-level scalars, the device,
        the gemm parameters, and each field of one measurement (a tma one for
        scans, so that its depth can change validly)."""
        content = {k: bundle[k] for k in ("format", "device", "workload", "class_rule", "gemm")
                   if k in bundle}
        paths = list(leaves(content))
        ms = bundle["measurements"]
        i = next((j for j, m in enumerate(ms) if m.get("path") == "tma"), 0)
        paths += [("measurements", i, k) for k in ms[i]]
        return paths

    def check_law(self, law):
        bundle = self.exported(law)
        r = self.req("POST", "/v1/calibrations/import", bundle, token=self.admin)
        self.assertStatus(r, 200)  # the control: the untouched export is the same content
        paths = self.targets(bundle)
        self.assertGreater(len(paths), 10)
        if law == "gemm":
            self.assertIn(("gemm", "tile_k"), paths)
        for path in paths:
            with self.subTest(law=law, field=".".join(map(str, path))):
                bad = copy.deepcopy(bundle)
                set_path(bad, path, edited(get_path(bad, path)))
                before = self.d.row_counts()
                r = self.req("POST", "/v1/calibrations/import", bad, token=self.admin)
                self.assertIn(r.status, (400, 409, 422), r.raw[:300])
                self.assertEqual(self.d.row_counts(), before, "a refused import wrote rows")
                plain = {k: v for k, v in bad.items() if k not in FROZEN_ONLY}
                p = self.req("POST", "/v1/calibrations/import", plain, token=self.admin)
                if p.status in (200, 201):  # valid content: only the hash can tell
                    self.assertEqual(r.json["error"]["field"], "content_hash", r.raw[:300])

    def test_report(self):
        """The report is not hashed but recomputed on import (issue 37,
        finding 7): an export whose report was edited (the paper's headline
        MAPE set to 0.01, a key's score, a count, a member dropped or added,
        the whole report nulled) is refused with 400 naming the report's
        field, nothing written. Verified to fail before the check: the edited
        export imported with 201 and was exported as edited."""
        bundle = self.exported("scan")
        first = next(i for i, k in enumerate(bundle["report"]["keys"]) if k.get("mape"))
        edits = [
            (("summary", "mape", "pascal"), 0.01, "report.summary.mape.pascal"),
            (("keys", first, "mape", "pascal"), 1e-3, "report.keys[%d].mape.pascal" % first),
            (("n_runs",), bundle["report"]["n_runs"] + 1, "report.n_runs"),
            (("summary", "mape", "made_up"), 1.0, "report.summary.mape"),
        ]
        cases = []
        for path, value, field in edits:
            bad = copy.deepcopy(bundle)
            set_path(bad["report"], path, value)
            cases.append((bad, field))
        dropped = copy.deepcopy(bundle)
        del dropped["report"]["table"]
        cases.append((dropped, "report"))
        nulled = dict(bundle, report=None)
        cases.append((nulled, "report"))
        # within the tolerance (the last bits a build may differ in) is the same report
        close = copy.deepcopy(bundle)
        m = close["report"]["summary"]["mape"]
        m["pascal"] = m["pascal"] * (1 + 1e-13)
        self.assertStatus(self.req("POST", "/v1/calibrations/import", close, token=self.admin), 200)
        for bad, field in cases:
            with self.subTest(field=field):
                before = self.d.row_counts()
                r = self.req("POST", "/v1/calibrations/import", bad, token=self.admin)
                self.assertStatus(r, 400)
                self.assertEqual(r.json["error"]["field"], field, r.raw[:300])
                self.assertIn("changed after it was frozen", r.json["error"]["message"])
                self.assertEqual(self.d.row_counts(), before, "a refused import wrote rows")

    def fitted(self, name):
        """The scan calibration under device name `name`, frozen by `pascal fit`."""
        plain = copy.deepcopy(self.plain["scan"])
        plain["device"]["name"] = name
        with tempfile.TemporaryDirectory() as tmp:
            src, out = os.path.join(tmp, "in.json"), os.path.join(tmp, "out.json")
            with open(src, "w", encoding="utf-8") as f:
                json.dump(plain, f)
            subprocess.run([PASCAL_CLI, "fit", src, "-o", out], check=True)
            with open(out, encoding="utf-8") as f:
                return json.load(f)

    def test_report_old_layout(self):
        """A report of the layout before `summary` existed, or before the
        Origami column (no "origami" in balanced_mape; docs/bundle-format.md),
        is not compared but replaced: what is exported is the report the
        measurements give, whatever the old one said. Verified to fail
        without the Origami rule: the second import answered 400 naming
        report.balanced_mape."""
        frozen = self.fitted("old-layout")
        truth = frozen["report"]
        old = {k: v for k, v in truth.items() if k not in ("summary", "heldout", "table")}
        old["balanced_mape"] = {"pascal": 0.01, "sdcm": 1.0}
        r = self.req("POST", "/v1/calibrations/import", dict(frozen, report=old), token=self.admin)
        self.assertStatus(r, 201)
        r = self.req("GET", "/v1/calibrations/%d/export" % r.json["id"])
        self.assertEqual(r.json["report"]["balanced_mape"], truth["balanced_mape"])
        self.assertEqual(r.json["report"]["summary"], truth["summary"])
        frozen = self.fitted("before-origami")
        truth = frozen["report"]
        before = copy.deepcopy(truth)
        del before["balanced_mape"]["origami"]
        before["summary"]["mape"]["pascal"] = 0.01
        r = self.req("POST", "/v1/calibrations/import", dict(frozen, report=before),
                     token=self.admin)
        self.assertStatus(r, 201)
        r = self.req("GET", "/v1/calibrations/%d/export" % r.json["id"])
        self.assertEqual(r.json["report"]["summary"], truth["summary"])
        self.assertIn("origami", r.json["report"]["balanced_mape"])

    def test_scan(self):
        self.check_law("scan")

    def test_gemm(self):
        self.check_law("gemm")


if __name__ == "__main__":
    unittest.main(verbosity=2)
