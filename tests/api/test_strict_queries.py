"""test_strict_queries.py - every field of a scan and a GEMM query walked
through missing, wrong type, out of range and contradictory values; the
daemon (GET, POST and a batch item over real HTTP) and `pascal predict` must
give the same verdict, and the verdict expected here: a 400 (CLI exit 2)
naming the field, or an answer. A TMA query without d or with d = 0 and a sync
query with d > 0 are errors naming d; a query mixing scan and GEMM fields is
one error naming the first GEMM field."""
import json
import subprocess
import unittest
import urllib.parse

from harness import PASCAL_CLI, SynthDaemonTest

SCAN = dict(o=1, path="tma", d=2, m=3, N=4096, W=16)
SYNC = dict(o=2, path="sync", m=9, N=5120, W=1)
GEMM = dict(Mg=1024, Ng=512, Kg=2048)
OK = ("ok", None)


def bad(field):
    return ("bad", field)


def without(q, k):
    q = dict(q)
    del q[k]
    return q


def cases():
    """(name, bundle kind, query, expected verdict). A value given as the
    WRONG marker is sent as the wrong JSON type (a string where a number is
    due, a number where a string is due) and as non-numeric text on the
    command line and in the query string."""
    out = [("scan ok", "scan", SCAN, OK), ("sync ok", "scan", SYNC, OK),
           ("sync d=0 ok", "scan", dict(SYNC, d=0), OK), ("gemm ok", "gemm", GEMM, OK)]
    for f in SCAN:
        out.append(("scan missing " + f, "scan", without(SCAN, f), bad(f)))
        out.append(("scan wrong type " + f, "scan", dict(SCAN, **{f: WRONG}), bad(f)))
    for f in GEMM:
        out.append(("gemm missing " + f, "gemm", without(GEMM, f), bad(f)))
        out.append(("gemm wrong type " + f, "gemm", dict(GEMM, **{f: WRONG}), bad(f)))
        out.append(("gemm zero " + f, "gemm", dict(GEMM, **{f: 0}), bad(f)))
        out.append(("gemm not a tile multiple " + f, "gemm", dict(GEMM, **{f: 1000}), bad(f)))
        out.append(("gemm too large " + f, "gemm", dict(GEMM, **{f: 2 ** 32}), bad(f)))
    for f, v in [("o", 0), ("o", 65), ("d", 65), ("m", 1000001), ("N", 0), ("N", 2 ** 32),
                 ("W", 0), ("W", -1), ("W", 2 * 10 ** 15), ("path", "both")]:
        out.append(("scan out of range %s=%s" % (f, v), "scan", dict(SCAN, **{f: v}), bad(f)))
    out += [
        ("tma without d", "scan", without(SCAN, "d"), bad("d")),
        ("tma with d=0", "scan", dict(SCAN, d=0), bad("d")),
        ("sync with d=2", "scan", dict(SYNC, d=2), bad("d")),
        ("scan and gemm mixed", "scan", dict(SCAN, Mg=1024), bad("Mg")),
        ("gemm and scan mixed", "gemm", dict(GEMM, o=1), bad("Mg")),
        ("gemm and scan mixed, Kg first", "gemm", dict(Kg=2048, m=3), bad("Kg")),
    ]
    return out


WRONG = object()


def json_value(k, v):
    if v is WRONG:
        return 7 if k == "path" else "x"
    return v


def text_value(k, v):
    return "x" if v is WRONG else str(v)


class StrictQueries(SynthDaemonTest):
    def cli_verdict(self, kind, q):
        args = [PASCAL_CLI, "predict", "--bundle", self.bundle[kind], "--json"]
        for k, v in q.items():
            args += ["--" + k, text_value(k, v)]
        p = subprocess.run(args, capture_output=True, text=True)
        if p.returncode == 0:
            return OK
        self.assertEqual(p.returncode, 2, p.stderr)
        # "pascal predict: --d: message"
        head = p.stderr.split(": ", 2)
        self.assertTrue(head[1].startswith("--"), p.stderr)
        return bad(head[1][2:])

    def daemon_verdict(self, status, doc, prefix=""):
        if status == 200:
            return OK
        self.assertEqual(status, 400, doc)
        field = doc["error"]["field"]
        self.assertTrue(field.startswith(prefix), field)
        return bad(field[len(prefix):])

    def test_verdicts(self):
        for name, kind, q, want in cases():
            with self.subTest(name):
                self.assertEqual(self.cli_verdict(kind, q), want, "CLI")
                body = {k: json_value(k, v) for k, v in q.items()}
                body["device"] = self.device
                qs = {k: text_value(k, v) for k, v in q.items()}
                qs["device"] = self.device
                g = self.d.request("GET", "/v1/predict?" + urllib.parse.urlencode(qs))
                self.assertEqual(self.daemon_verdict(g.status, g.json), want, "GET " + g.raw.decode())
                p = self.d.request("POST", "/v1/predict", body)
                self.assertEqual(self.daemon_verdict(p.status, p.json), want, "POST " + p.raw.decode())
                b = self.d.request("POST", "/v1/predict", {"queries": [body]})
                self.assertEqual(b.status, 200)
                item = b.json["results"][0]
                self.assertEqual(self.daemon_verdict(item.get("status", 200), item, "queries[0]."),
                                 want, "batch " + json.dumps(item))

    def test_batch_items_read_alone(self):
        """Each item of a batch gets the verdict it gets alone, whatever the
        items before it held: the items are read one after another into the
        same field table, by the text reader and (a non-object item among
        them) by the tree path. Checked to fail when the table kept the
        previous item's fields (the tree path once did: every item after a
        mixed one was mixed)."""
        items = [dict(SCAN, Mg=1024), dict(SCAN), without(SCAN, "N"), dict(SCAN, zz=1),
                 dict(SCAN), dict(SCAN, calibration=0), dict(SCAN, d=0), dict(SCAN)]
        for it in items:
            it["device"] = self.device
        alone = []
        for it in items:
            r = self.d.request("POST", "/v1/predict", {"queries": [it]})
            self.assertEqual(r.status, 200)
            alone.append(r.json["results"][0])
        for shape, queries in (("text", items), ("tree", items + [3])):
            with self.subTest(shape):
                r = self.d.request("POST", "/v1/predict", {"queries": queries})
                self.assertEqual(r.status, 200)
                got = r.json["results"][: len(items)]
                for i, (a, g) in enumerate(zip(alone, got)):
                    if "error" in a:  # the field named under the item's own index
                        a = json.loads(json.dumps(a).replace("queries[0]", "queries[%d]" % i))
                    self.assertEqual(g, a, "item %d" % i)
                if shape == "tree":
                    self.assertEqual(r.json["results"][-1]["status"], 400)

    def test_mixed_is_one_message(self):
        r = self.d.request("POST", "/v1/predict", dict(SCAN, Mg=1024, device=self.device))
        self.assertEqual(r.json["error"]["code"], "mixed_query")
        self.assertIn("not both", r.json["error"]["message"])


if __name__ == "__main__":
    unittest.main(verbosity=2)
