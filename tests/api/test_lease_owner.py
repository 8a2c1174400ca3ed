"""test_lease_owner.py - a lease belongs to the API token that claimed it:
another agent token (or an admin token) holding the lease secret gets 403 on
heartbeat, result and fail and changes nothing; the claimer goes on. The
database keeps the claiming token's id and only the SHA-256 of the secret;
the agent recorded is "<token name>/<agent>"."""
import hashlib
import sqlite3
import unittest

from harness import DEVICE, DaemonTest, law_fill

PLAN = {"format": "pascal-plan/1", "workload": "scan", "sizes": [512], "horizons": [1, 4],
        "repeats": 1, "keys": [{"o": 1, "path": "tma", "d": 2, "m": 0}]}


class LeaseOwner(DaemonTest):
    def sql(self, query, args=()):
        con = sqlite3.connect("file:%s?mode=ro" % self.d.db, uri=True)
        try:
            return con.execute(query, args).fetchall()
        finally:
            con.close()

    def test_other_tokens_are_forbidden(self):
        other = self.d.token("agent", "other-agent")
        self.assertIn(self.req("POST", "/v1/devices", dict(DEVICE, name="own"), token=self.admin).status,
                      (200, 201))
        self.assertStatus(self.req("POST", "/v1/calibrations", {"device": "own", "plan": PLAN},
                                   token=self.admin), 201)
        r = self.req("POST", "/v1/jobs/claim", {"device": "own", "agent": "w1"}, token=self.agent)
        self.assertStatus(r, 200)
        job = r.json["job"]
        jid, secret = job["id"], job["lease_token"]

        (row,) = self.sql("SELECT lease_token, lease_holder, lease_owner FROM jobs WHERE id = ?", (jid,))
        (holder,) = self.sql("SELECT id FROM tokens WHERE name = 'test-agent'")[0]
        self.assertEqual(row, (hashlib.sha256(secret.encode()).hexdigest(), holder, "test-agent/w1"))
        self.assertEqual(self.sql("SELECT count(*) FROM jobs WHERE lease_token = ?", (secret,))[0][0], 0)

        before = self.d.row_counts()
        expires = self.sql("SELECT lease_expires FROM jobs WHERE id = ?", (jid,))
        calls = [("heartbeat", {"lease_token": secret}),
                 ("result", {"lease_token": secret, "fill_bytes": law_fill(job["run"])}),
                 ("fail", {"lease_token": secret, "message": "not mine"})]
        for token in (other, self.admin):
            for what, body in calls:
                r = self.req("POST", "/v1/jobs/%d/%s" % (jid, what), body, token=token)
                self.assertStatus(r, 403, "forbidden")
                self.assertEqual(r.json["error"]["field"], "lease_token")
        self.assertEqual(self.d.row_counts(), before)
        self.assertEqual(self.sql("SELECT state, lease_expires FROM jobs WHERE id = ?", (jid,)),
                         [("leased", expires[0][0])])

        # a made-up secret is stale for anyone; the claimer goes on
        r = self.req("POST", "/v1/jobs/%d/heartbeat" % jid, {"lease_token": "ab" * 16}, token=other)
        self.assertStatus(r, 409, "stale_lease")
        r = self.req("POST", "/v1/jobs/%d/heartbeat" % jid, {"lease_token": secret}, token=self.agent)
        self.assertStatus(r, 200)
        up = {"lease_token": secret, "fill_bytes": law_fill(job["run"])}
        self.assertStatus(self.req("POST", "/v1/jobs/%d/result" % jid, up, token=self.agent), 200)
        # the identical retry of a done job is the claimer's alone
        self.assertStatus(self.req("POST", "/v1/jobs/%d/result" % jid, up, token=other), 403, "forbidden")
        self.assertStatus(self.req("POST", "/v1/jobs/%d/result" % jid, up, token=self.agent), 200)

    def test_malformed_secret_and_long_agent(self):
        r = self.req("POST", "/v1/jobs/1/heartbeat", {"lease_token": "XYZ" * 11}, token=self.agent)
        self.assertStatus(r, 400, "invalid")
        self.assertEqual(r.json["error"]["field"], "lease_token")
        r = self.req("POST", "/v1/jobs/claim", {"device": "own", "agent": "a" * 60}, token=self.agent)
        self.assertStatus(r, 400, "out_of_range")
        self.assertEqual(r.json["error"]["field"], "agent")


if __name__ == "__main__":
    unittest.main()
