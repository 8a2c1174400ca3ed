"""test_malformed.py - hostile and broken input: truncated JSON, wrong types,
huge numbers, negative sizes, a 2 MiB body, deep nesting, duplicate keys, bad
UTF-8, unknown fields in strict places. Each gets a 4xx JSON error (checked
against the spec) and leaves every table of the database exactly as it was."""
import json
import unittest

from harness import DEVICE, SMALL_PLAN, DaemonTest, make_frozen_calibration

GOOD_DEVICE = json.dumps(dict(DEVICE, name="fuzz-dev")).encode()


def big_batch(n=3500):
    q = {"device": DEVICE["name"], "o": 1, "path": "tma", "d": 2, "m": 1, "N": 1024, "W": 4}
    return [json.dumps(dict(q, m=i % 9)) for i in range(n)]


def big_corpus():
    """Bodies over 256 KiB, which are parsed in slices: every defect must still
    be found wherever it sits, with the serial parser's message."""
    items = big_batch()
    dup = list(items)
    dup[2700] = dup[2700][:-1] + ', "m": 2}'
    utf = list(items)
    utf[3499] = utf[3499].replace('"tma"', '"t\xffa"')
    return [
        ("trailing comma", ('{"queries":[' + ",".join(items) + ",]}").encode()),
        ("leading comma", ('{"queries":[,' + ",".join(items) + "]}").encode()),
        ("double comma", ('{"queries":[' + ",".join(items[:2000]) + ",," + ",".join(items[2000:]) + "]}").encode()),
        ("duplicate key in a late item", ('{"queries":[' + ",".join(dup) + "]}").encode()),
        ("bad UTF-8 in the last item", ('{"queries":[' + ",".join(utf) + "]}").encode("latin-1")),
        ("unclosed", ('{"queries":[' + ",".join(items)).encode()),
        ("duplicate queries key", ('{"queries":[' + ",".join(items) + '],"queries":[]}').encode()),
        ("trailing garbage", ('{"queries":[' + ",".join(items) + "]} x").encode()),
        ("explain not a boolean", ('{"explain":[],"queries":[' + ",".join(items) + "]}").encode()),
    ]


def corpus():
    dev = dict(DEVICE, name="fuzz-dev")
    plan = dict(SMALL_PLAN)
    cases = [
        ("/v1/devices", GOOD_DEVICE[:-5]),                                   # truncated
        ("/v1/devices", b""),                                                 # empty
        ("/v1/devices", b"[1,2,3]"),                                          # not an object
        ("/v1/devices", b'"just a string"'),
        ("/v1/devices", json.dumps(dict(dev, sm_count="48")).encode()),       # wrong type
        ("/v1/devices", json.dumps(dict(dev, sm_count=48.5)).encode()),
        ("/v1/devices", json.dumps(dict(dev, sm_count=-4)).encode()),         # negative size
        ("/v1/devices", json.dumps(dict(dev, capacity_blocks=0)).encode()),
        ("/v1/devices", json.dumps(dict(dev, block_bytes=10 ** 30)).encode()),  # huge number
        ("/v1/devices", b'{"name":"fuzz-dev","arch":"sim","sm_count":1e400,"capacity_blocks":1,"block_bytes":1}'),
        ("/v1/devices", b'{"name":"fuzz-dev","arch":"sim","sm_count":99999999999999999999999,"capacity_blocks":1,"block_bytes":1}'),
        ("/v1/devices", b'{"name":"fuzz-dev","name":"other","arch":"sim","sm_count":1,"capacity_blocks":1,"block_bytes":1}'),
        ("/v1/devices", b'{"name":"fuzz-\xff\xfe","arch":"sim","sm_count":1,"capacity_blocks":1,"block_bytes":1}'),
        ("/v1/devices", b'{"name":"fuzz-\xc3","arch":"sim","sm_count":1,"capacity_blocks":1,"block_bytes":1}'),
        ("/v1/devices", json.dumps(dict(dev, colour="red")).encode()),        # unknown field
        ("/v1/devices", json.dumps(dict(dev, name="has space")).encode()),
        ("/v1/devices", json.dumps(dict(dev, name="x" * 100)).encode()),
        ("/v1/devices", json.dumps(dict(dev, name="a\u0000b")).encode()),
        # a key holding a NUL after a known name (refused by the reader, as %00 in a query is)
        ("/v1/predict", b'{"device":"fuzz-dev","o\\u0000xyz":1,"path":"tma","d":2,"m":6,"N":4096,"W":16}'),
        ("/v1/devices", b"[" * 100000 + b"]" * 100000),                       # deep nesting
        ("/v1/devices", b'{"a":' * 40 + b"1" + b"}" * 40),
        ("/v1/devices", b"NaN"),
        ("/v1/devices", b'{"name":"fuzz-dev","arch":"sim","sm_count":NaN,"capacity_blocks":1,"block_bytes":1}'),
        ("/v1/calibrations", json.dumps({"device": DEVICE["name"], "plan": dict(plan, sizes=[-1])}).encode()),
        ("/v1/calibrations", json.dumps({"device": DEVICE["name"], "plan": dict(plan, format="pascal-plan/9")}).encode()),
        ("/v1/calibrations", json.dumps({"device": DEVICE["name"], "plan": dict(plan, repeats=0)}).encode()),
        ("/v1/calibrations", json.dumps({"device": DEVICE["name"], "plan": dict(plan, keys=[{"o": 1, "path": "sync", "d": 3, "m": 0}])}).encode()),
        ("/v1/calibrations", json.dumps({"device": DEVICE["name"], "plan": dict(plan, sizes=[2 ** 70])}).encode()),
        ("/v1/calibrations", json.dumps({"device": DEVICE["name"], "plan": [1]}).encode()),
        ("/v1/calibrations", json.dumps({"device": DEVICE["name"], "plan": plan, "extra": 1}).encode()),
        ("/v1/calibrations", json.dumps({"device": DEVICE["name"], "plan": dict(plan, grid={"o": list(range(1, 60)), "path": ["tma"], "d": list(range(1, 60)), "m": list(range(0, 60))}, keys=None)}).encode()),
        ("/v1/calibrations/import", json.dumps({"format": "pascal-calibration/1", "device": {}, "workload": "scan", "measurements": []}).encode()),
        ("/v1/calibrations/import", b'{"format":"pascal-calibration/1",'),
        ("/v1/jobs/claim", json.dumps({"device": DEVICE["name"]}).encode()),
        ("/v1/jobs/claim", json.dumps({"device": DEVICE["name"], "agent": 5}).encode()),
        ("/v1/jobs/claim", json.dumps({"device": "ghost", "agent": "a"}).encode()),
        ("/v1/jobs/1/result", json.dumps({"lease_token": "00" * 16, "fill_bytes": -5}).encode()),
        ("/v1/jobs/1/result", json.dumps({"lease_token": "00" * 16, "fill_bytes": 5, "kernel_ns": "x"}).encode()),
        ("/v1/jobs/1/result", json.dumps({"lease_token": "00" * 16, "fill_bytes": 5}).encode()),
        ("/v1/jobs/99999/result", json.dumps({"lease_token": "00" * 16, "fill_bytes": 5}).encode()),
        ("/v1/jobs/-1/heartbeat", json.dumps({"lease_token": "00" * 16}).encode()),
        ("/v1/jobs/1/fail", json.dumps({"lease_token": 7}).encode()),
        ("/v1/predict", b'{"queries":' + b"[" * 50 + b"]" * 50 + b"}"),
        ("/v1/predict", json.dumps({"queries": "not a list"}).encode()),
        ("/v1/bounds", json.dumps({"N": 8, "C": 2, "phases": [0, 9]}).encode()),
        ("/v1/bounds", json.dumps({"N": -8, "C": 2, "phases": [0]}).encode()),
        ("/v1/bounds/feedback", json.dumps({"alpha": 1, "beta": 1, "d": 1, "lambda_hit": 1, "lambda_miss": 2}).encode()),
        ("/v1/devices", b"x" * (2 << 20)),                                     # 2 MiB
    ]
    return cases


class Malformed(DaemonTest):
    def test_corpus_changes_nothing(self):
        make_frozen_calibration(self)
        # lease one job so that result/fail cases hit a real leased job
        r = self.req("POST", "/v1/devices", dict(DEVICE, name="lease-dev"), token=self.admin)
        before = self.d.row_counts()
        self.assertTrue(before)
        for path, raw in corpus():
            with self.subTest(path=path, body=raw[:80]):
                r = self.req("POST", path, raw=raw, token=self.admin)
                self.assertGreaterEqual(r.status, 400, r.raw[:300])
                self.assertLess(r.status, 500, r.raw[:300])
                self.assertIn("error", r.json)
        self.assertEqual(self.d.row_counts(), before)
        # and the daemon is still healthy
        self.assertEqual(self.req("GET", "/healthz").status, 200)

    def test_big_bodies(self):
        make_frozen_calibration(self)
        before = self.d.row_counts()
        for name, raw in big_corpus():
            with self.subTest(case=name):
                r = self.req("POST", "/v1/predict", raw=raw)
                self.assertEqual(r.status, 400, r.raw[:300])
        for name, raw in big_corpus()[:6]:
            with self.subTest(case=name):
                self.assertEqual(self.req("POST", "/v1/predict", raw=raw).error_code(), "bad_json")
        ok = self.req("POST", "/v1/predict", raw=('{"queries":[' + ",".join(big_batch()) + "]}").encode())
        self.assertEqual((ok.status, ok.json["ok"]), (200, 3500))
        self.assertEqual(self.d.row_counts(), before)

    def test_mutation_fuzz(self):
        """Deterministic mutations (byte flips, cuts, splices, duplications) of
        valid bodies on every POST route: never a 5xx, never a crash (the
        sanitizer build runs this too), the daemon healthy afterwards."""
        import random
        rng = random.Random(20261121)
        seeds = [
            ("/v1/predict", {"device": DEVICE["name"], "o": 1, "path": "tma", "d": 2, "m": 3, "N": 1024, "W": 4}),
            ("/v1/predict", {"queries": [{"device": DEVICE["name"], "Mg": 256, "Ng": 256, "Kg": 256}], "explain": True}),
            ("/v1/bounds", {"N": 8, "C": 2, "phases": [0, 4], "ways": 2, "sets": 1}),
            ("/v1/bounds/coherence", {"sigma": 3, "C": 5, "M": 2, "E": 100}),
            ("/v1/bounds/feedback", {"alpha": 1, "beta": 2, "d": 3, "lambda_hit": 1, "lambda_miss": 20}),
            ("/v1/devices", dict(DEVICE, name="fz")),
            ("/v1/calibrations", {"device": DEVICE["name"], "plan": SMALL_PLAN}),
            ("/v1/jobs/claim", {"device": DEVICE["name"], "agent": "fz"}),
            ("/v1/jobs/1/result", {"lease_token": "ab" * 16, "fill_bytes": 1e6, "kernel_ns": 3}),
            ("/v1/jobs/1/fail", {"lease_token": "ab" * 16, "message": "m"}),
        ]
        alphabet = b'{}[]":,0123456789.-+eE \\ntruefalsenull\xff\xc3\x80'
        for n in range(600):
            path, doc = seeds[n % len(seeds)]
            b = bytearray(json.dumps(doc).encode())
            for _ in range(rng.randint(1, 4)):
                op, i = rng.randrange(4), rng.randrange(len(b))
                if op == 0:
                    b[i] = rng.choice(alphabet)
                elif op == 1:
                    del b[i:i + rng.randint(1, 8)]
                elif op == 2:
                    b[i:i] = bytes(rng.choice(alphabet) for _ in range(rng.randint(1, 8)))
                else:
                    b[i:i] = b[i:i + rng.randint(1, 40)]
                if not b:
                    b = bytearray(b"{")
            r = self.req("POST", path, raw=bytes(b), token=self.admin)
            self.assertLess(r.status, 500, (path, bytes(b), r.raw[:200]))
            self.assertIsNotNone(r.json, (path, bytes(b)))
        self.assertEqual(self.req("GET", "/healthz").status, 200)

    def test_query_strings(self):
        for q in ["/v1/predict?device=testdev&o=1e999&path=tma&d=2&m=1&N=1&W=1",
                  "/v1/predict?device=testdev&o=1&o=2",
                  "/v1/predict?device=%ff%fe&o=1",
                  "/v1/predict?device=testdev&o=-1&path=tma&m=1&N=1&W=1",
                  "/v1/predict?device=testdev&o=1&path=tma&d=2&m=1&N=99999999999999999999&W=1",
                  "/v1/predict?device=testdev&bogus=1",
                  # a parameter name that is not UTF-8 is refused, not dropped
                  "/v1/predict?device=testdev&o=1&path=tma&d=2&m=1&N=1&W=1&%ff=1",
                  "/v1/bounds?N=8&C=2&phases=,",
                  "/v1/bounds?N=8&C=2&phases=1,,2",
                  "/v1/calibrations?device=a%20b"]:
            with self.subTest(q=q):
                r = self.req("GET", q)
                self.assertEqual(r.status, 400, r.raw[:300])


if __name__ == "__main__":
    unittest.main(verbosity=2)
