#!/usr/bin/python3
"""Example bundles and plans against the JSON Schemas in api-spec/ (2020-12).

Usage: test_schemas.py SOURCE_DIR PATH/TO/pascal

Checks that (1) both schemas are valid 2020-12 schemas, (2) every example in
tests/codec/examples/ (and deploy/plans/, deploy/calibrations/ when present)
validates, (3) documents the codec writes (`pascal synth`, `pascal fit`)
validate, (4) the codec accepts the examples (synth --plan, fit), and (5)
broken variants are rejected by the schema, so the schema is not vacuous.
"""
import copy
import glob
import json
import os
import subprocess
import sys
import tempfile
import unittest

from jsonschema import Draft202012Validator

SRC = PASCAL = None


def load(path):
    with open(path) as f:
        return json.load(f)


class Schemas(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.bundle = load(os.path.join(SRC, "api-spec/pascal-calibration-1.schema.json"))
        cls.plan = load(os.path.join(SRC, "api-spec/pascal-plan-1.schema.json"))
        for s in (cls.bundle, cls.plan):
            Draft202012Validator.check_schema(s)
        cls.vb = Draft202012Validator(cls.bundle)
        cls.vp = Draft202012Validator(cls.plan)
        cls.tmp = tempfile.TemporaryDirectory()

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def examples(self, kind):
        pats = [f"tests/codec/examples/{kind}-*.json"]
        if kind == "plan":
            pats.append("deploy/plans/*.json")
        else:
            pats.append("deploy/calibrations/*.json")
        files = []
        for p in pats:
            files += sorted(glob.glob(os.path.join(SRC, p)))
        return files

    def assert_valid(self, validator, doc, name):
        errors = sorted(validator.iter_errors(doc), key=str)
        self.assertEqual(errors, [], f"{name}: {errors[:1]}")

    def test_examples_validate(self):
        plans, bundles = self.examples("plan"), self.examples("bundle")
        self.assertGreaterEqual(len(plans), 3)
        self.assertGreaterEqual(len(bundles), 2)
        for path in plans:
            self.assert_valid(self.vp, load(path), path)
        for path in bundles:
            self.assert_valid(self.vb, load(path), path)

    def run_pascal(self, *args):
        p = subprocess.run([PASCAL, *args], capture_output=True, text=True, timeout=120)
        self.assertEqual(p.returncode, 0, p.stderr)
        return p

    def test_codec_agrees_with_examples(self):
        for path in self.examples("plan"):
            doc = load(path)
            law = "gemm" if doc["workload"] == "gemm" else "scan"
            out = os.path.join(self.tmp.name, "from-plan.json")
            self.run_pascal("synth", "--law", law, "--plan", path, "-o", out)
            self.assert_valid(self.vb, load(out), out)
        for path in self.examples("bundle"):
            out = os.path.join(self.tmp.name, "frozen.json")
            self.run_pascal("fit", path, "-o", out)
            frozen = load(out)
            self.assert_valid(self.vb, frozen, out)
            self.assertIn("content_hash", frozen)

    def test_written_documents_validate(self):
        for law in ("scan", "gemm"):
            raw = os.path.join(self.tmp.name, f"{law}.json")
            frozen = os.path.join(self.tmp.name, f"{law}-frozen.json")
            self.run_pascal("synth", "--law", law, "-o", raw)
            self.run_pascal("fit", raw, "-o", frozen)
            self.assert_valid(self.vb, load(raw), raw)
            self.assert_valid(self.vb, load(frozen), frozen)

    def test_broken_bundles_rejected(self):
        scan = load(os.path.join(SRC, "tests/codec/examples/bundle-scan.json"))
        gemm = load(os.path.join(SRC, "tests/codec/examples/bundle-gemm.json"))
        edits = [
            (scan, lambda d: d.update(format="pascal-calibration/2")),
            (scan, lambda d: d.pop("device")),
            (scan, lambda d: d["device"].update(sm_count=0)),
            (scan, lambda d: d.update(workload="conv")),
            (scan, lambda d: d.pop("class_rule")),
            (scan, lambda d: d["provenance"].update(source="gpu")),
            (scan, lambda d: d["measurements"][0].pop("fill_bytes")),
            (scan, lambda d: d["measurements"][0].update(fill_bytes=0)),
            (scan, lambda d: d["measurements"][0].update(N="4096")),
            (scan, lambda d: d["measurements"][7].update(d=2)),  # sync with a depth
            (scan, lambda d: d["measurements"][0].update(path="dma")),
            (scan, lambda d: d["measurements"][0].update(kernel_ns=-1)),
            (scan, lambda d: d.update(gemm=gemm["gemm"])),
            (scan, lambda d: d.update(model={"curves": []})),  # model without content_hash
            (scan, lambda d: d.update(content_hash="sha256:abc")),
            (gemm, lambda d: d.pop("gemm")),
            (gemm, lambda d: d["measurements"][0].pop("Kg")),
            (gemm, lambda d: d["gemm"].update(resident_ctas=0)),
        ]
        for i, (base, edit) in enumerate(edits):
            doc = copy.deepcopy(base)
            edit(doc)
            self.assertFalse(self.vb.is_valid(doc), f"edit {i} was accepted")

    def test_broken_plans_rejected(self):
        keys = load(os.path.join(SRC, "tests/codec/examples/plan-scan-keys.json"))
        grid = load(os.path.join(SRC, "tests/codec/examples/plan-scan-grid.json"))
        gemm = load(os.path.join(SRC, "tests/codec/examples/plan-gemm.json"))
        edits = [
            (keys, lambda d: d.update(format="pascal-plan/2")),
            (keys, lambda d: d.pop("sizes")),
            (keys, lambda d: d.update(sizes=[8, 8])),
            (keys, lambda d: d.update(sizes=[0])),
            (keys, lambda d: d.update(repeats=0)),
            (keys, lambda d: d["keys"][0].update(path="dma")),
            (keys, lambda d: d["keys"][0].pop("d")),       # tma needs d
            (keys, lambda d: d["keys"][4].update(d=3)),    # sync with a depth
            (keys, lambda d: d.update(grid=grid["grid"])),  # keys and grid
            (keys, lambda d: d.pop("keys")),
            (grid, lambda d: d["grid"].pop("d")),          # tma rows need d
            (grid, lambda d: d["grid"].update(o=[0])),
            (gemm, lambda d: d.update(sizes=[8])),
            (gemm, lambda d: d["shapes"][0].pop("Kg")),
            (gemm, lambda d: d.pop("shapes")),
        ]
        for i, (base, edit) in enumerate(edits):
            doc = copy.deepcopy(base)
            edit(doc)
            self.assertFalse(self.vp.is_valid(doc), f"edit {i} was accepted")


if __name__ == "__main__":
    SRC = os.path.abspath(sys.argv.pop(1))
    PASCAL = os.path.abspath(sys.argv.pop(1))
    unittest.main(verbosity=1)
