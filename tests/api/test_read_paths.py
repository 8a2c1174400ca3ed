"""test_read_paths.py - the read routes' query readers (the query string read
straight into the query, POST bodies read from their text, the batch read
item by item) over real HTTP:

  * every request of read_corpus.py gets the status and the body pinned in
    data/read_answers.json (recorded from the daemon that read every query
    through a Jansson tree): an error byte for byte (same code, message and
    field), an answer with the same members, types and strings (its numbers
    are the model's, checked bit for bit by test_cli_agreement, and not
    pinned here, so that a change to the model does not read as a change
    to the readers);
  * a good query answers the same through GET, POST and as a batch item;
  * the batch limit: a batch one item over it is refused with 413 naming
    "queries" however long it is, a batch at it is answered;
  * GET /v1/bounds equals `pascal bounds --json`, number for number."""
import json
import os
import subprocess
import unittest
import urllib.parse

import read_corpus
from harness import PASCAL_CLI, SynthDaemonTest, exact

HERE = os.path.dirname(os.path.abspath(__file__))


def shape(v):
    """A decoded answer without its numbers' values (their types stay)."""
    if isinstance(v, dict):
        return [(k, shape(x)) for k, x in v.items()]
    if isinstance(v, list):
        return [shape(x) for x in v]
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        return type(v).__name__
    return v


class ReadPaths(SynthDaemonTest):
    daemon_args = ("--batch-max", str(read_corpus.BATCH_MAX))

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        with open(os.path.join(HERE, "data", "read_answers.json"), encoding="utf-8") as f:
            cls.pinned = json.load(f)

    def test_corpus_answers_pinned(self):
        reqs = read_corpus.requests()
        self.assertEqual(sorted(n for n, _, _, _ in reqs), sorted(self.pinned))
        for name, method, target, body in reqs:
            with self.subTest(name):
                r = self.d.request(method, target, raw=body, validate=False)
                status, text = self.pinned[name]
                self.assertEqual(r.status, status, r.raw)
                if status == 200:
                    self.assertEqual(shape(json.loads(r.raw)), shape(json.loads(text)))
                else:
                    self.assertEqual(r.raw.decode("utf-8"), text)

    def test_error_names_the_field(self):
        """Every 400 of the corpus names a field or says why none applies."""
        for name, (status, body) in self.pinned.items():
            if status == 400:
                with self.subTest(name):
                    err = json.loads(body)["error"]
                    self.assertTrue(err["field"] or err["code"] in ("bad_json", "invalid_value"), err)

    def test_get_post_batch_agree(self):
        q = dict(read_corpus.SCAN_J)
        for explain in (True, False):
            g = self.d.request("GET", "/v1/predict?" + urllib.parse.urlencode(dict(q, explain=str(explain).lower())))
            p = self.d.request("POST", "/v1/predict", dict(q, explain=explain))
            b = self.d.request("POST", "/v1/predict", {"explain": explain, "queries": [q, q]})
            t = self.d.request("POST", "/v1/predict", {"queries": [q], "explain": explain})  # tree path
            self.assertEqual(g.status, 200)
            self.assertEqual(g.raw, p.raw)
            self.assertEqual(exact(b.json["results"][0]), exact(g.json))
            self.assertEqual(exact(b.json["results"][1]), exact(g.json))
            self.assertEqual(exact(t.json["results"][0]), exact(g.json))

    def test_batch_limit(self):
        n = read_corpus.BATCH_MAX
        item = read_corpus.GEMM_J
        at = self.d.request("POST", "/v1/predict", {"queries": [item] * n})
        self.assertEqual((at.status, at.json["count"], at.json["ok"]), (200, n, n))
        for extra in (1, 2, 1000):
            r = self.d.request("POST", "/v1/predict", {"queries": [item] * (n + extra)})
            self.assertEqual(r.status, 413)
            self.assertEqual(r.json["error"]["field"], "queries")
            self.assertEqual(r.json["error"]["code"], "batch_too_large")

    def test_bounds_equal_cli(self):
        cases = [(8, 2, [0, 4], None), (64, 8, [0, 20, 40], (2, 4)), (1000, 37, list(range(0, 1000, 9)), None),
                 (5000, 100, [i * 7 % 5000 for i in range(4100)], None)]  # above 4096 workers: nulls
        for n, c, phases, geo in cases:
            with self.subTest(n=n, c=c, m=len(phases)):
                args = ["--N", str(n), "--C", str(c), "--phases", ",".join(map(str, phases))]
                qs = {"N": n, "C": c, "phases": ",".join(map(str, phases))}
                if geo:
                    args += ["--ways", str(geo[0]), "--sets", str(geo[1])]
                    qs.update(ways=geo[0], sets=geo[1])
                cli = subprocess.run([PASCAL_CLI, "bounds", "--json"] + args, capture_output=True, text=True,
                                     check=True)
                g = self.d.request("GET", "/v1/bounds?" + urllib.parse.urlencode(qs))
                p = self.d.request("POST", "/v1/bounds", dict(N=n, C=c, phases=phases,
                                                              **({"ways": geo[0], "sets": geo[1]} if geo else {})))
                self.assertEqual(g.status, 200, g.raw)
                self.assertEqual(exact(g.json), exact(json.loads(cli.stdout)))
                self.assertEqual(g.raw, p.raw)


if __name__ == "__main__":
    unittest.main()
