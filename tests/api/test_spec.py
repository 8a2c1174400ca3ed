"""test_spec.py - api-spec/openapi.yaml itself: OpenAPI 3.1 structure, every
path has operations with responses and a unique operationId, every $ref
resolves, every path parameter is declared, every schema is a valid Draft
2020-12 schema, and the spec lists exactly the daemon's routes."""
import re
import unittest

import jsonschema

from harness import DaemonTest, load_spec, resolve_pointer

METHODS = ("get", "post", "put", "delete", "patch", "head", "options")


def walk_refs(node, out):
    if isinstance(node, dict):
        for k, v in node.items():
            if k == "$ref":
                out.append(v)
            else:
                walk_refs(v, out)
    elif isinstance(node, list):
        for v in node:
            walk_refs(v, out)
    return out


class SpecStructure(unittest.TestCase):
    spec = load_spec()

    def test_header(self):
        self.assertTrue(self.spec["openapi"].startswith("3.1"))
        self.assertIn("title", self.spec["info"])
        self.assertIn("bearerAuth", self.spec["components"]["securitySchemes"])

    def test_operations(self):
        ids = []
        for path, item in self.spec["paths"].items():
            ops = [m for m in item if m in METHODS]
            self.assertTrue(ops, path)
            for m in ops:
                op = item[m]
                self.assertIn("operationId", op, "%s %s" % (m, path))
                ids.append(op["operationId"])
                self.assertTrue(op.get("responses"), "%s %s has no responses" % (m, path))
                for status, resp in op["responses"].items():
                    self.assertRegex(status, r"^[1-5][0-9][0-9]$")
                    if "$ref" in resp:
                        resp = resolve_pointer(self.spec, resp["$ref"])
                    self.assertIn("description", resp)
                    # /healthz's 503 is its own report (degraded), not an error
                    if int(status) >= 400 and (path, status) != ("/healthz", "503"):
                        schema = resp["content"]["application/json"]["schema"]
                        self.assertEqual(schema, {"$ref": "#/components/schemas/Error"})
                declared = set()
                for p in op.get("parameters", []):
                    if "$ref" in p:
                        p = resolve_pointer(self.spec, p["$ref"])
                    if p["in"] == "path":
                        declared.add(p["name"])
                        self.assertTrue(p["required"])
                self.assertEqual(declared, set(re.findall(r"\{([^}]+)\}", path)), path)
        self.assertEqual(len(ids), len(set(ids)), "operationIds must be unique")

    def test_refs_resolve(self):
        refs = walk_refs(self.spec, [])
        self.assertGreater(len(refs), 50)
        for ref in refs:
            resolve_pointer(self.spec, ref)  # raises KeyError if dangling

    def test_schemas_valid(self):
        for name, schema in self.spec["components"]["schemas"].items():
            root = dict(self.spec)
            root.update(schema)
            jsonschema.Draft202012Validator.check_schema(schema)
            jsonschema.Draft202012Validator(root)  # builds with refs in scope
        # the validator really rejects: an Error without "field"
        root = dict(self.spec)
        root["$ref"] = "#/components/schemas/Error"
        with self.assertRaises(jsonschema.ValidationError):
            jsonschema.Draft202012Validator(root).validate({"error": {"code": "x", "message": "y"}})


class SpecMatchesDaemon(DaemonTest):
    def test_routes_listed(self):
        """The daemon's route table (as /v1/stats labels it) equals the spec's operations."""
        r = self.req("GET", "/v1/stats")
        daemon = {x["route"] for x in r.json["requests"]["by_route"]} - {"unmatched"}
        spec = set()
        for path, item in load_spec()["paths"].items():
            for m in item:
                if m in METHODS:
                    spec.add("%s %s" % (m.upper(), re.sub(r"\{id\}|\{name\}", lambda x: x.group(0), path)))
        self.assertEqual(daemon, spec)


if __name__ == "__main__":
    unittest.main(verbosity=2)
