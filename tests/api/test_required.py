"""test_required.py - every required field, dropped one at a time.

The list of required fields is read from api-spec/ (openapi.yaml, and the
pascal-plan/1 schema for the plan inside a calibration): for every operation
with a request body or a required query parameter, a valid sample request is
sent once as a control (it must not be a 400), then each required field is
removed in turn, nested ones included (plan.sizes, plan.keys[0].m), and the
daemon must answer 400 `missing_field` naming exactly that field. Scan and
GEMM predictions are walked by POST, by GET (the query form of the same
objects) and as a batch item, where the item's error names queries[0].<field>.
A sample is needed for each operation the spec lists with input, so a new
route without one fails here until it is added."""
import copy
import json
import os
import unittest
import urllib.parse

import jsonschema

from harness import (DEVICE, SMALL_PLAN, SOURCE, DaemonTest, law_fill, load_spec, make_frozen_calibration,
                     resolve_pointer)

SPEC = load_spec()


def schema_file(name):
    with open(os.path.join(SOURCE, "api-spec", name), encoding="utf-8") as f:
        return json.load(f)


# openapi.yaml keeps plans and bundles as stubs pointing to their full schema files.
EXTERNAL = {"#/components/schemas/Plan": schema_file("pascal-plan-1.schema.json"),
            "#/components/schemas/Bundle": schema_file("pascal-calibration-1.schema.json")}


def deref(schema, root):
    while "$ref" in schema:
        ref = schema["$ref"]
        if ref in EXTERNAL and root is SPEC:
            schema, root = EXTERNAL[ref], EXTERNAL[ref]
        else:
            schema = resolve_pointer(root, ref)
    return schema, root


def collect(schema, instance, root):
    """(required names, property schemas) of a schema for this instance:
    its own, those of allOf members and of the if/then/else branch the
    instance selects, recursively."""
    schema, root = deref(schema, root)
    req = list(schema.get("required", []))
    props = dict(schema.get("properties", {}))
    parts = list(schema.get("allOf", []))
    if "if" in schema:
        cond = dict(root, **deref(schema["if"], root)[0])
        branch = schema.get("then" if jsonschema.Draft202012Validator(cond).is_valid(instance)
                            else "else")
        if branch:
            parts.append(branch)
    for sub in parts:
        sub_req, sub_props = collect(sub, instance, root)
        req += [k for k in sub_req if k not in req]
        for k, v in sub_props.items():
            props.setdefault(k, v)
    return req, props


def required_paths(schema, instance, root, prefix=""):
    """Dotted paths of every field the schema requires of this instance, and
    recursively of the objects (and first array items) present in it."""
    if not isinstance(instance, dict):
        return []
    schema, root = deref(schema, root)
    req, props = collect(schema, instance, root)
    out = [prefix + k for k in req]
    for key, value in instance.items():
        if key not in props:
            continue
        sub, subroot = deref(props[key], root)
        if isinstance(value, dict):
            out += required_paths(sub, value, subroot, "%s%s." % (prefix, key))
        elif isinstance(value, list) and value and isinstance(value[0], dict) and "items" in sub:
            out += required_paths(sub["items"], value[0], subroot, "%s%s[0]." % (prefix, key))
    return out


def drop(instance, path):
    """A copy of instance without the field at dotted path (a[0].b allowed)."""
    out = copy.deepcopy(instance)
    node = out
    parts = path.replace("[0]", ".#0").split(".")
    for p in parts[:-1]:
        node = node[0] if p == "#0" else node[p]
    del node[parts[-1]]
    return out


def body_schema(op):
    return op["requestBody"]["content"]["application/json"]["schema"]


def alternatives(schema):
    """The oneOf members of a body schema, or the schema itself."""
    schema, _ = deref(schema, SPEC)
    return [deref(s, SPEC)[0] for s in schema["oneOf"]] if "oneOf" in schema else [schema]


SCAN_QUERY = {"device": DEVICE["name"], "o": 1, "path": "tma", "d": 2, "m": 1, "N": 1024, "W": 4}
GEMM_QUERY = {"device": DEVICE["name"], "Mg": 2, "Ng": 2, "Kg": 4}
ATTENTION_QUERY = {"device": DEVICE["name"], "seq_q": 4096, "seq_kv": 65536, "heads": 8,
                   "kv_heads": 1, "head_dim": 64, "block_q": 64, "block_kv": 64, "stages": 2,
                   "elem_bytes": 2, "causal": 0}
QUERIES = (SCAN_QUERY, GEMM_QUERY, ATTENTION_QUERY)


def sample_for(alt):
    """The query of QUERIES that the spec's alternative `alt` accepts."""
    return next(s for s in QUERIES if jsonschema.Draft202012Validator(dict(SPEC, **alt)).is_valid(s))


class RequiredFields(DaemonTest):
    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.ops = {}
        for tmpl, item in SPEC["paths"].items():
            for m, op in item.items():
                if isinstance(op, dict) and "operationId" in op:
                    cls.ops[op["operationId"]] = (m.upper(), tmpl, op)

    def setUp(self):
        if not hasattr(type(self), "cid"):
            type(self).cid = make_frozen_calibration(self)

    def expect_missing(self, resp, field):
        self.assertStatus(resp, 400, "missing_field")
        self.assertEqual(resp.json["error"]["field"], field, resp.raw[:300])

    def walk_body(self, op_id, sample, send, schema=None):
        """Control, then each required field of `sample` dropped in turn."""
        method, tmpl, op = self.ops[op_id]
        schema = schema or body_schema(op)
        fields = required_paths(schema, sample, SPEC)
        self.assertTrue(fields, op_id)
        for field in fields:
            with self.subTest(op=op_id, field=field):
                self.expect_missing(send(drop(sample, field)), field)
        return fields

    def walk_limits(self, op_id, sample, send, schema):
        """Each top-level integer field the spec bounds, set one past its
        minimum and one past its maximum: 400 out_of_range naming it."""
        schema, root = deref(schema, SPEC)
        _, props = collect(schema, sample, root)
        tried = 0
        for name, prop in props.items():
            prop, _ = deref(prop, root)
            if prop.get("type") != "integer" or name not in sample:
                continue
            for bound, step in (("minimum", -1), ("maximum", 1)):
                if bound not in prop:
                    continue
                tried += 1
                with self.subTest(op=op_id, field=name, value=prop[bound] + step):
                    r = send(dict(sample, **{name: prop[bound] + step}))
                    self.assertStatus(r, 400, "out_of_range")
                    self.assertEqual(r.json["error"]["field"], name, r.raw[:300])
        return tried

    def test_limits(self):
        """The integer bounds of the scan query (o, d, m, N), GEMM query and
        the bounds routes, read from the spec."""
        post = self.post("/v1/predict")
        tried = 0
        for alt in alternatives(body_schema(self.ops["predictPost"][2])):
            if "queries" in alt.get("required", []):
                continue
            tried += self.walk_limits("predictPost", sample_for(alt), post, alt)
        for op_id, sample in (("boundsPost", {"N": 64, "C": 32, "phases": [0, 4]}),
                              ("boundsCoherence", {"sigma": 4, "C": 64, "M": 4, "E": 16})):
            tried += self.walk_limits(op_id, sample, self.post(self.ops[op_id][1]),
                                      body_schema(self.ops[op_id][2]))
        self.assertGreater(tried, 10)

    def post(self, path, token=None):
        return lambda body: self.req("POST", path, body, token=token or self.admin)

    def test_predict(self):
        post = self.post("/v1/predict")
        alts = alternatives(body_schema(self.ops["predictPost"][2]))
        for alt in alts:
            if "queries" in alt.get("required", []):
                continue  # the batch: its items are walked below
            sample = sample_for(alt)
            self.assertNotEqual(post(sample).status, 400, sample)
            fields = self.walk_body("predictPost", sample, post, alt)
            # the same object as a GET query string
            get = lambda q: self.req("GET", "/v1/predict?" + urllib.parse.urlencode(q))
            self.assertNotEqual(get(sample).status, 400)
            for field in fields:
                with self.subTest(op="predictGet", field=field):
                    self.expect_missing(get(drop(sample, field)), field)
            # and as the only item of a batch
            control = post({"queries": [sample]}).json["results"][0]
            self.assertNotEqual(control.get("status"), 400, control)
            for field in fields:
                with self.subTest(op="predictPost batch", field=field):
                    r = post({"queries": [drop(sample, field)]})
                    self.assertStatus(r, 200)
                    item = r.json["results"][0]
                    self.assertEqual((item["status"], item["error"]["code"], item["error"]["field"]),
                                     (400, "missing_field", "queries[0]." + field))
        self.assertEqual(post(SCAN_QUERY).status, 200)

    def test_bounds(self):
        sample = {"N": 64, "C": 32, "phases": [0, 4]}
        post = self.post("/v1/bounds")
        self.assertEqual(post(sample).status, 200)
        self.walk_body("boundsPost", sample, post)
        _, tmpl, op = self.ops["boundsGet"]
        query = {"N": "64", "C": "32", "phases": "0,4"}
        self.assertEqual(self.req("GET", tmpl + "?" + urllib.parse.urlencode(query)).status, 200)
        names = [p["name"] for p in op["parameters"] if p.get("required")]
        self.assertEqual(sorted(names), sorted(query))
        for name in names:
            with self.subTest(op="boundsGet", field=name):
                q = {k: v for k, v in query.items() if k != name}
                self.expect_missing(self.req("GET", tmpl + "?" + urllib.parse.urlencode(q)), name)
        for op_id, sample in (("boundsCoherence", {"sigma": 4, "C": 64, "M": 4, "E": 16}),
                              ("boundsFeedback", {"alpha": 1.0, "beta": 2.0, "d": 2,
                                                  "lambda_hit": 1.0, "lambda_miss": 3.0})):
            send = self.post(self.ops[op_id][1])
            self.assertEqual(send(sample).status, 200, op_id)
            self.walk_body(op_id, sample, send)
            # the same fields as the GET form's query parameters, each one dropped
            _, tmpl, op = self.ops[op_id + "Get"]
            get = lambda q, tmpl=tmpl: self.req("GET", tmpl + "?" + urllib.parse.urlencode(q))
            self.assertEqual(get(sample).status, 200, op_id + "Get")
            names = [p["name"] for p in op["parameters"] if p.get("required")]
            self.assertEqual(sorted(names), sorted(sample))
            for name in names:
                with self.subTest(op=op_id + "Get", field=name):
                    self.expect_missing(get({k: v for k, v in sample.items() if k != name}), name)

    def test_devices_and_plans(self):
        dev = dict(DEVICE, name="req-dev")
        self.walk_body("createDevice", dev, self.post("/v1/devices"))
        self.assertStatus(self.req("POST", "/v1/devices", dev, token=self.admin), 201)
        post = self.post("/v1/calibrations")
        scan = {"device": "req-dev", "plan": dict(SMALL_PLAN, keys=[{"o": 1, "path": "tma", "d": 2, "m": 1}])}
        gemm = {"device": "req-dev", "plan": {"format": "pascal-plan/1", "workload": "gemm",
                                               "shapes": [{"Mg": 2, "Ng": 2, "Kg": 4}]}}
        for sample in (scan, gemm):
            fields = self.walk_body("createCalibration", sample, post)
            self.assertIn("plan.format", fields)
            self.assertStatus(post(sample), 201)
        self.assertIn("plan.keys[0].d", required_paths(body_schema(self.ops["createCalibration"][2]),
                                                       scan, SPEC))

    def test_import(self):
        r = self.req("GET", "/v1/calibrations/%d/export" % self.cid)
        self.assertStatus(r, 200)
        bundle = r.json
        post = self.post("/v1/calibrations/import")
        self.walk_body("importCalibration", bundle, post)
        self.assertStatus(post(bundle), 200)  # the control: the same content again

    def test_jobs(self):
        dev = dict(DEVICE, name="req-jobs")
        self.req("POST", "/v1/devices", dev, token=self.admin)
        plan = dict(SMALL_PLAN, sizes=[512], horizons=[1],
                    keys=[{"o": 1, "path": "tma", "d": 2, "m": m} for m in (0, 1, 2)])
        self.assertStatus(self.req("POST", "/v1/calibrations", {"device": "req-jobs", "plan": plan},
                                   token=self.admin), 201)
        claim = {"device": "req-jobs", "agent": "req-agent"}
        claim_post = self.post("/v1/jobs/claim", self.agent)
        self.walk_body("claimJob", claim, claim_post)
        jobs = [claim_post(claim).json["job"] for _ in range(2)]
        for job in jobs:
            self.assertIsNotNone(job)
        lease = {"lease_token": jobs[0]["lease_token"]}
        for op_id, action, sample in (
                ("heartbeatJob", "heartbeat", lease),
                ("uploadJobResult", "result", dict(lease, fill_bytes=law_fill(jobs[0]["run"]), kernel_ns=10.0)),
                ("failJob", "fail", {"lease_token": jobs[1]["lease_token"], "message": "x"})):
            job = jobs[1] if action == "fail" else jobs[0]
            send = self.post("/v1/jobs/%d/%s" % (job["id"], action), self.agent)
            self.walk_body(op_id, sample, send)
            self.assertStatus(send(sample), 200)

    def test_every_input_walked(self):
        """Each operation with a body or a required query parameter has a walk."""
        walked = {"predictPost", "predictGet", "boundsPost", "boundsGet", "boundsCoherence",
                  "boundsCoherenceGet", "boundsFeedback", "boundsFeedbackGet", "createDevice", "createCalibration", "importCalibration",
                  "claimJob", "heartbeatJob", "uploadJobResult", "failJob"}
        need = set()
        for op_id, (_, _, op) in self.ops.items():
            has_req_body = op.get("requestBody", {}).get("required", False)
            has_req_query = any(p.get("required") and p.get("in") == "query"
                                for p in op.get("parameters", []) if "$ref" not in p)
            if has_req_body or has_req_query:
                need.add(op_id)
        self.assertEqual(sorted(need - walked), [], "operations with input but no walk")


if __name__ == "__main__":
    unittest.main(verbosity=2)
