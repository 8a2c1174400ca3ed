"""test_conventions.py - HTTP conventions every client leans on:
- every 201 carries a Location whose GET answers 200 with the same document
  (devices, calibrations, imported bundles); a 200 "already there" has none;
- GET /v1/bounds/coherence and /v1/bounds/feedback with query parameters
  answer exactly what POST answers for the same fields (the paper's worked
  cases, and a grid of them), and name a bad field the same way;
- /metrics carries pascal_build_info with the version /v1/version reports,
  labels requests by method and path (the route's pattern), and passes an
  independent reading of the text exposition format 0.0.4 (HELP and TYPE
  before a family's samples, one TYPE per family, no duplicate series,
  cumulative histogram buckets ending at +Inf == _count, label escapes) and,
  where Prometheus's promtool is installed, `promtool check metrics`.

Verified to fail without the change: a 201 had no Location, GET on the two
bounds routes was 405, and the metrics had route="GET /healthz"."""
import itertools
import json
import os
import re
import shutil
import subprocess
import unittest

from harness import DEVICE, SMALL_PLAN, SOURCE, DaemonTest


class Location(DaemonTest):
    def follow(self, r):
        loc = r.headers.get("location")
        self.assertTrue(loc and loc.startswith("/v1/"), r.headers)
        g = self.req("GET", loc)
        self.assertStatus(g, 200)
        return loc, g.json

    def test_every_201_has_a_location_that_reads_back(self):
        r = self.req("POST", "/v1/devices", dict(DEVICE, name="loc-dev"), token=self.admin)
        self.assertStatus(r, 201)
        loc, doc = self.follow(r)
        self.assertEqual(loc, "/v1/devices/loc-dev")
        self.assertEqual({k: doc[k] for k in r.json}, r.json)
        again = self.req("POST", "/v1/devices", dict(DEVICE, name="loc-dev"), token=self.admin)
        self.assertStatus(again, 200)
        self.assertNotIn("location", again.headers)

        r = self.req("POST", "/v1/calibrations", {"device": "loc-dev", "plan": SMALL_PLAN},
                     token=self.admin)
        self.assertStatus(r, 201)
        loc, doc = self.follow(r)
        self.assertEqual(loc, "/v1/calibrations/%d" % r.json["id"])
        self.assertEqual(doc, r.json)

        path = os.path.join(SOURCE, "deploy", "calibrations")
        bundle = sorted(f for f in os.listdir(path) if f.endswith(".json"))[0]
        with open(os.path.join(path, bundle), encoding="utf-8") as f:
            body = json.load(f)
        r = self.req("POST", "/v1/calibrations/import", body, token=self.admin)
        self.assertStatus(r, 201)
        loc, doc = self.follow(r)
        self.assertEqual(loc, "/v1/calibrations/%d" % r.json["id"])
        self.assertEqual(doc["content_hash"], r.json["content_hash"])
        again = self.req("POST", "/v1/calibrations/import", body, token=self.admin)
        self.assertStatus(again, 200)
        self.assertNotIn("location", again.headers)


def query(fields):
    return "&".join("%s=%s" % (k, repr(v) if isinstance(v, float) else v)
                    for k, v in fields.items())


class BoundsByGet(DaemonTest):
    def same(self, path, fields):
        p = self.req("POST", path, fields)
        g = self.req("GET", "%s?%s" % (path, query(fields)))
        self.assertEqual((g.status, g.json), (p.status, p.json), fields)
        return g

    def test_coherence_get_equals_post(self):
        # the paper's Theorem 4 case of tests/api/test_routes.py: C = 5 preserves, C = 4 not
        self.assertTrue(self.same("/v1/bounds/coherence",
                                  {"sigma": 3, "C": 5, "M": 2, "E": 100}).json["preserves"])
        self.assertFalse(self.same("/v1/bounds/coherence",
                                   {"sigma": 3, "C": 4, "M": 2, "E": 100}).json["preserves"])
        answered = 0  # the grid holds invalid combinations too: refused alike
        for sigma, c, m, e in itertools.product((1, 7, 64), (1, 9, 1000), (2, 8), (1, 50)):
            answered += self.same("/v1/bounds/coherence",
                                  {"sigma": sigma, "C": c, "M": m, "E": e}).status == 200
        self.assertGreater(answered, 10)

    def test_feedback_get_equals_post(self):
        # Theta = (d-1)(alpha+beta) - beta = 4; G = ([20-4]_+ - [1-4]_+)/2 = 8
        g = self.same("/v1/bounds/feedback",
                      {"alpha": 1.0, "beta": 2.0, "d": 3, "lambda_hit": 1.0, "lambda_miss": 20.0})
        self.assertAlmostEqual(g.json["overlap"], 4.0)
        self.assertAlmostEqual(g.json["gain"], 8.0)
        answered = 0
        for a, b, d, lh, lm in itertools.product((0.0, 0.25), (0.5, 3.0), (2, 5), (0.0, 2.5),
                                                 (1.0, 40.0)):
            answered += self.same("/v1/bounds/feedback", {"alpha": a, "beta": b, "d": d,
                                                          "lambda_hit": lh,
                                                          "lambda_miss": lm}).status == 200
        self.assertGreater(answered, 10)

    def test_bad_fields_named_alike(self):
        for path, fields, bad in (
                ("/v1/bounds/coherence", {"sigma": 3, "C": 5, "M": 2, "E": 100}, "M"),
                ("/v1/bounds/feedback", {"alpha": 1.0, "beta": 2.0, "d": 3, "lambda_hit": 1.0,
                                         "lambda_miss": 20.0}, "d")):
            for change in ({bad: 1}, {bad: -4}, {"extra": 1}):
                f = dict(fields, **change)
                g = self.same(path, f)
                self.assertEqual(g.status, 400, f)
                self.assertEqual(g.json["error"]["field"], list(change)[0], f)
            missing = dict(fields)
            del missing[bad]
            g = self.same(path, missing)
            self.assertEqual((g.status, g.json["error"]["field"]), (400, bad))
        g = self.req("GET", "/v1/bounds/coherence?sigma=x&C=5&M=2&E=100")
        self.assertEqual((g.status, g.json["error"]["field"]), (400, "sigma"))


SAMPLE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? (\S+)$')
LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\\n]|\\[\\"n])*)"(,|$)')


def read_exposition(test, text):
    """Parse text format 0.0.4 strictly; returns {family: (type, [(name, labels, value)])}."""
    families, current, seen = {}, None, set()
    for line in text.splitlines():
        if line.startswith("# HELP "):
            name = line.split(" ", 3)[2]
            test.assertNotIn(name, families, "HELP for %s after its samples" % name)
            current = name
            continue
        if line.startswith("# TYPE "):
            _, _, name, typ = line.split(" ", 3)
            test.assertEqual(name, current, "TYPE %s without its HELP first" % name)
            test.assertIn(typ, ("counter", "gauge", "histogram", "summary", "untyped"))
            families[name] = (typ, [])
            continue
        test.assertTrue(line and not line.startswith("#"), repr(line))
        m = SAMPLE.match(line)
        test.assertIsNotNone(m, line)
        name, labels_text, value = m.group(1), m.group(3) or "", m.group(4)
        test.assertIn(current, families, "sample %s before its TYPE" % name)
        fam = re.sub(r"_(bucket|sum|count)$", "", name) if families.get(current, ("",))[0] == \
            "histogram" else name
        test.assertEqual(fam, current, "sample %s outside its family" % name)
        labels, pos = {}, 0
        while pos < len(labels_text):
            lm = LABEL.match(labels_text, pos)
            test.assertIsNotNone(lm, line)
            test.assertNotIn(lm.group(1), labels, line)
            labels[lm.group(1)] = lm.group(2)
            pos = lm.end()
        float(value)
        key = (name, tuple(sorted(labels.items())))
        test.assertNotIn(key, seen, "duplicate series " + line)
        seen.add(key)
        families[current][1].append((name, labels, float(value)))
    for fam, (typ, samples) in families.items():
        if typ == "counter":
            test.assertTrue(fam.endswith("_total"), fam)
        if typ != "histogram":
            continue
        series = {}
        for name, labels, v in samples:
            rest = tuple(sorted((k, x) for k, x in labels.items() if k != "le"))
            series.setdefault(rest, {"buckets": []})
            if name.endswith("_bucket"):
                series[rest]["buckets"].append((labels["le"], v))
            else:
                series[rest][name.rsplit("_", 1)[1]] = v
        for rest, s in series.items():
            les = [le for le, _ in s["buckets"]]
            test.assertEqual(les[-1], "+Inf", rest)
            test.assertEqual([float(x) for x in les], sorted(float(x) for x in les), rest)
            counts = [v for _, v in s["buckets"]]
            test.assertEqual(counts, sorted(counts), rest)
            test.assertEqual(counts[-1], s["count"], rest)
            test.assertIn("sum", s, rest)
    return families


class Metrics(DaemonTest):
    def test_build_info_and_method_path_labels(self):
        self.req("GET", "/healthz")
        self.req("POST", "/v1/bounds/coherence", {"sigma": 3, "C": 5, "M": 2, "E": 100})
        self.req("GET", "/v1/bounds/coherence?sigma=3&C=5&M=2&E=100")
        self.req("GET", "/no/such/route")
        self.req("GET", "/v1/calibrations/12345")
        text = self.req("GET", "/metrics").raw.decode()
        fams = read_exposition(self, text)
        version = self.req("GET", "/v1/version").json
        typ, samples = fams["pascal_build_info"]
        self.assertEqual(typ, "gauge")
        self.assertEqual(samples, [("pascal_build_info", {"version": version["version"],
                                                          "release": version["release"],
                                                          "api": "v1"}, 1.0)])
        reqs = {(l["method"], l["path"], l["status"]): v
                for _, l, v in fams["pascal_http_requests_total"][1]}
        self.assertEqual(reqs[("GET", "/healthz", "200")], 1)
        self.assertEqual(reqs[("GET", "/v1/bounds/coherence", "200")], 1)
        self.assertEqual(reqs[("POST", "/v1/bounds/coherence", "200")], 1)
        self.assertEqual(reqs[("other", "unmatched", "404")], 1)
        for _, labels, _ in fams["pascal_http_requests_total"][1]:
            self.assertNotIn("route", labels)
            self.assertIn(labels["method"], ("GET", "POST", "other"))
        # the paths are the routes' patterns: "{id}", never a concrete id
        self.assertEqual(reqs[("GET", "/v1/calibrations/{id}", "404")], 1)
        self.assertNotIn("12345", text)
        promtool = shutil.which("promtool")
        if promtool:  # Debian's prometheus package; the reading above stands without it
            p = subprocess.run([promtool, "check", "metrics"], input=text, capture_output=True,
                               text=True)
            self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
            self.assertEqual((p.stdout + p.stderr).strip(), "")
        print("promtool: %s" % (promtool or "not installed (independent reading only)"))

    def test_reader_refuses_broken_text(self):
        """The independent reader is no rubber stamp: each fault is caught."""
        good = ("# HELP a_total x\n# TYPE a_total counter\na_total{m=\"GET\"} 1\n"
                "# HELP h y\n# TYPE h histogram\nh_bucket{le=\"1\"} 1\nh_bucket{le=\"+Inf\"} 2\n"
                "h_sum 0.5\nh_count 2\n")
        read_exposition(self, good)
        for bad in (good.replace("a_total{m=\"GET\"} 1\n", "a_total{m=\"GET\"} 1\n" * 2),
                    good.replace("h_count 2", "h_count 3"),
                    good.replace("# TYPE a_total counter\n", ""),
                    good.replace('le="+Inf"} 2', 'le="+Inf"} 0'),
                    good.replace("a_total", "a", 3),
                    good.replace('m="GET"', 'm="G"ET"')):
            with self.assertRaises(AssertionError):
                read_exposition(self, bad)


if __name__ == "__main__":
    unittest.main()
