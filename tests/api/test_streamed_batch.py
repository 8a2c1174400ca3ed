"""test_streamed_batch.py - a large batch answer is written as it is sent
(issue 37, finding 3: a client that does not read must not make pascald hold
the whole answer; bench/http/slow_clients.py measures the memory). The
streamed answer (chunked, a chunk of items at a time) must be exactly the
answer of the same items asked in small batches, which pascald builds whole:
every item, in order, bit for bit, with the right count, ok and errors, for
an explained batch and a compact one, refused items among them.

Verified to fail before the change: the large answers came with a
Content-Length (built whole), not chunked.
"""
import http.client
import json
import unittest

from harness import SynthDaemonTest


def queries(device, n):
    out = []
    for i in range(n):
        if i % 97 == 13:
            out.append({"device": device, "o": 1, "path": "bogus", "m": 6, "N": 4096, "W": 16})
        else:
            out.append({"device": device, "o": 1 + i % 2, "path": "tma", "d": 2, "m": (i * 7) % 11,
                        "N": 2048 + 64 * (i % 50), "W": 1 + i % 40})
    return out


class StreamedBatch(SynthDaemonTest):
    def post(self, body):
        c = http.client.HTTPConnection("127.0.0.1", self.d.port, timeout=60)
        try:
            c.request("POST", "/v1/predict", body=json.dumps(body).encode(),
                      headers={"Content-Type": "application/json"})
            r = c.getresponse()
            raw = r.read()
            return r.status, {k.lower(): v for k, v in r.getheaders()}, json.loads(raw)
        finally:
            c.close()

    def check(self, n, explain, small):
        qs = queries(self.device, n)
        status, headers, whole = self.post({"explain": explain, "queries": qs})
        self.assertEqual(status, 200)
        self.assertEqual(headers.get("transfer-encoding"), "chunked", headers)
        self.assertNotIn("content-length", headers)
        parts = []
        for i in range(0, n, small):
            st, h, part = self.post({"explain": explain, "queries": qs[i:i + small]})
            self.assertEqual(st, 200)
            self.assertIn("content-length", h)  # small answers are built whole
            for j, r in enumerate(part["results"]):  # an error names the item's index
                if "error" in r:
                    r = json.loads(json.dumps(r).replace("queries[%d]" % j, "queries[%d]" % (i + j)))
                parts.append(r)
        self.assertEqual(len(whole["results"]), n)
        self.assertEqual(whole["results"], parts)
        errors = sum(1 for r in parts if "error" in r)
        self.assertGreater(errors, 0)
        self.assertEqual((whole["count"], whole["ok"], whole["errors"]), (n, n - errors, errors))

    def raw(self, text):
        c = http.client.HTTPConnection("127.0.0.1", self.d.port, timeout=60)
        try:
            c.request("POST", "/v1/predict", body=text.encode(),
                      headers={"Content-Type": "application/json"})
            r = c.getresponse()
            return r.status, json.loads(r.read())
        finally:
            c.close()

    def test_large_bodies_read_apart_as_in_order(self):
        """A large batch's items are read on several threads, each slice
        from where the counter found its first item (predict_batch.c): the
        answers must be those of the reading in order. Indented text reads
        as compact text; an element that is not an object is that item's
        error; text between two items other than a comma (or a missing
        comma) is the body's 400 with Jansson's line and column, as for a
        small body. Checked to fail with the separator check removed."""
        qs = [q for q in queries(self.device, 4000) if q["path"] != "bogus"]
        n = len(qs)
        status, _, compact = self.post({"queries": qs})
        self.assertEqual((status, compact["ok"]), (200, n))
        st, indented = self.raw(json.dumps({"queries": qs}, indent=2))
        self.assertEqual(st, 200)
        self.assertEqual(indented, compact)
        st, mixed = self.raw(json.dumps({"queries": qs[:3000] + [5] + qs[3000:]}))
        self.assertEqual((st, mixed["count"], mixed["errors"]), (200, n + 1, 1))
        self.assertEqual(mixed["results"][3000]["error"]["field"], "queries[3000]")
        self.assertEqual(mixed["results"][:3000] + mixed["results"][3001:], compact["results"])
        text = json.dumps({"queries": qs}, separators=(",", ":"))
        cut = text.index("},{", len(text) // 2) + 1
        for bad in (text[:cut] + " x " + text[cut:], text[:cut] + text[cut + 1:]):
            st, err = self.raw(bad)
            self.assertEqual(st, 400)
            self.assertEqual(err["error"]["code"], "bad_json")
            self.assertIn("column %d" % (cut + (2 if " x " in bad else 1)), err["error"]["message"])

    def test_explained(self):
        self.check(2000, True, 100)

    def test_compact(self):
        # 1,500 items are built whole by two slices on two cores (their texts
        # joined), the last 500 by one; the streamed chunks by two, sent
        # part after part
        self.check(5000, False, 1500)


if __name__ == "__main__":
    unittest.main()
