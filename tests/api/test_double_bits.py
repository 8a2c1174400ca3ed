"""test_double_bits.py - doubles that need all 17 significant digits survive
the API bit for bit: measurements uploaded by an agent come back identical in
the exported bundle (HTTP -> SQLite -> HTTP), and a query's W comes back
identical in the prediction's echo of its query. A writer that printed 15 or
16 digits would change these values."""
import math
import unittest

from harness import DEVICE, SMALL_PLAN, DaemonTest, law_fill


def digits(x):
    """Significant digits of the shortest form that reads back as x."""
    return len(repr(x).lower().split("e")[0].replace(".", "").replace("-", "").strip("0"))


def needs_17(x):
    """The first double at or above x (within 64 steps) whose shortest form has
    17 digits; x itself in binades where every double has a 16-digit form."""
    y = x
    for _ in range(64):
        if digits(y) == 17:
            return y
        y = math.nextafter(y, math.inf)
    return x


def key_of(run):
    return tuple(run[k] for k in ("o", "path", "d", "m", "N", "W", "repeat"))


class DoubleBits(DaemonTest):
    sent = None  # run key -> fill_bytes uploaded, once per class

    def calibrate(self):
        """Run the plan with 17-digit fill bytes and freeze it (once)."""
        if type(self).sent is not None:
            return type(self).sent
        self.assertStatus(self.req("POST", "/v1/devices", DEVICE, token=self.admin), 201)
        r = self.req("POST", "/v1/calibrations", {"device": DEVICE["name"], "plan": SMALL_PLAN},
                     token=self.admin)
        self.assertStatus(r, 201)
        cid, sent = r.json["id"], {}
        while True:
            r = self.req("POST", "/v1/jobs/claim", {"device": DEVICE["name"], "agent": "bits"},
                         token=self.agent)
            job = r.json["job"]
            if job is None:
                break
            fill = needs_17(law_fill(job["run"]))
            sent[key_of(job["run"])] = fill
            r = self.req("POST", "/v1/jobs/%d/result" % job["id"],
                         {"lease_token": job["lease_token"], "fill_bytes": fill}, token=self.agent)
            self.assertStatus(r, 200)
        self.assertStatus(self.req("POST", "/v1/calibrations/%d/freeze" % cid, token=self.admin), 200)
        type(self).sent, type(self).cid = sent, cid
        return sent

    def test_measurements_round_trip(self):
        sent = self.calibrate()
        r = self.req("GET", "/v1/calibrations/%d/export" % self.cid)
        self.assertStatus(r, 200)
        back = {key_of(m): m["fill_bytes"] for m in r.json["measurements"]}
        self.assertEqual(set(back), set(sent))
        self.assertGreater(sum(digits(v) == 17 for v in sent.values()), len(sent) // 4)
        for k, v in sent.items():
            self.assertEqual(float(back[k]).hex(), v.hex(), k)

    def test_query_echo(self):
        self.calibrate()
        W = needs_17(0.1 + 0.2)  # 0.30000000000000004
        self.assertEqual(repr(W), "0.30000000000000004")
        q = {"device": DEVICE["name"], "o": 1, "path": "tma", "d": 2, "m": 1, "N": 1024, "W": W}
        r = self.req("POST", "/v1/predict", q)
        self.assertStatus(r, 200)
        self.assertEqual(float(r.json["query"]["W"]).hex(), W.hex())
        self.assertIn(b"0.30000000000000004", r.raw)


if __name__ == "__main__":
    unittest.main(verbosity=2)
