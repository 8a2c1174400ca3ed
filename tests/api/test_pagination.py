"""test_pagination.py - the list routes (GET /v1/calibrations, /v1/devices,
/v1/jobs, /v1/tokens) page with ?limit=N and the opaque ?cursor= of the page
before: walking every page with each limit from 1 to past the end yields the
whole list exactly once and in order (compared with the unpaged list and, for
jobs and tokens, with the rows of the database file itself); rows added while
walking are not skipped; a bad limit or cursor is a 400 naming the field; the
job listing shows who holds a lease and when a job finished, never a lease
secret; the token listing never shows a hash. Every answer is checked
against api-spec/openapi.yaml by the harness.

Verified to fail without the change: before it, ?limit=1 was a 400
unknown_field on every list route and /v1/jobs, /v1/tokens were 404."""
import sqlite3
import unittest

from harness import DEVICE, SMALL_PLAN, DaemonTest, run_all_jobs


def walk(test, path, key, limit, token=None, extra=""):
    """Every page of `path` with `limit`: (items, number of pages)."""
    items, pages, cursor = [], 0, None
    while True:
        q = "%s?limit=%d%s" % (path, limit, extra)
        if cursor:
            q += "&cursor=" + cursor
        r = test.req("GET", q, token=token)
        test.assertStatus(r, 200)
        page = r.json[key]
        test.assertLessEqual(len(page), limit)
        items += page
        pages += 1
        cursor = r.json["next_cursor"]
        if cursor is None:
            return items, pages
        test.assertEqual(len(page), limit)  # only the last page may be short
        test.assertLess(pages, 10000)


class Pagination(DaemonTest):
    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.devices = []
        for i in range(5):
            dev = dict(DEVICE, name="pg-%02d" % (4 - i))  # registered out of name order
            cls.devices.append(dev["name"])
            r = cls.d.request("POST", "/v1/devices", dev, token=cls.admin)
            assert r.status == 201, r.raw
        plan = dict(SMALL_PLAN, sizes=[512], horizons=[1, 4])  # 15 keys x 1 x 2 = 30 jobs
        cls.cals = []
        for name in cls.devices[:3]:
            r = cls.d.request("POST", "/v1/calibrations", {"device": name, "plan": plan},
                              token=cls.admin)
            assert r.status == 201, r.raw
            cls.cals.append(r.json["id"])
        for i in range(3):
            cls.d.token("agent", "extra-%d" % i)

    def test_calibrations_every_limit(self):
        full = self.req("GET", "/v1/calibrations").json
        self.assertIsNone(full["next_cursor"])
        ids = [c["id"] for c in full["calibrations"]]
        self.assertEqual(ids, sorted(self.cals))
        for limit in range(1, len(ids) + 2):
            items, pages = walk(self, "/v1/calibrations", "calibrations", limit)
            self.assertEqual([c["id"] for c in items], ids, limit)
            self.assertEqual(pages, max(1, -(-len(ids) // limit)))  # a full last page ends it
        # a page's database generation is the whole list's, not the page's
        r = self.req("GET", "/v1/calibrations?limit=1")
        self.assertEqual(r.json["database"]["generation"], max(ids))
        # the device filter pages too
        items, _ = walk(self, "/v1/calibrations", "calibrations", 1, extra="&device=" + self.devices[0])
        self.assertEqual([c["id"] for c in items], [self.cals[0]])

    def test_devices_by_name(self):
        full = [d["name"] for d in self.req("GET", "/v1/devices").json["devices"]]
        self.assertEqual(full, sorted(full))
        for limit in (1, 2, 3, len(full), len(full) + 1):
            items, _ = walk(self, "/v1/devices", "devices", limit)
            self.assertEqual([d["name"] for d in items], full, limit)

    def test_rows_added_while_walking_are_not_skipped(self):
        r = self.req("GET", "/v1/devices?limit=2")
        first = [d["name"] for d in r.json["devices"]]
        cursor = r.json["next_cursor"]
        # a device sorting after the page and one sorting before it
        for name in ("zz-late", "aa-early"):
            self.assertStatus(self.req("POST", "/v1/devices", dict(DEVICE, name=name),
                                       token=self.admin), 201)
        rest, c = [], cursor
        while c:
            r = self.req("GET", "/v1/devices?limit=2&cursor=" + c)
            rest += [d["name"] for d in r.json["devices"]]
            c = r.json["next_cursor"]
        seen = first + rest
        self.assertEqual(len(seen), len(set(seen)))  # nothing twice
        self.assertIn("zz-late", rest)                # added after the cursor: listed
        self.assertNotIn("aa-early", seen)            # before it: the next walk's
        self.assertEqual(seen, sorted(seen))

    def test_jobs_match_the_database(self):
        rows = self.db_rows("SELECT id, calibration, state FROM jobs ORDER BY id")
        full = self.req("GET", "/v1/jobs").json
        self.assertEqual([(j["id"], j["calibration"], j["state"]) for j in full["jobs"]], rows)
        for limit in (1, 7, 30, 89, 90, 91, 1000):
            items, pages = walk(self, "/v1/jobs", "jobs", limit)
            self.assertEqual([j["id"] for j in items], [r[0] for r in rows], limit)
            self.assertEqual(pages, max(1, -(-len(rows) // limit)), limit)
        items, _ = walk(self, "/v1/jobs", "jobs", 4, extra="&calibration=%d" % self.cals[1])
        self.assertEqual([j["id"] for j in items],
                         [r[0] for r in rows if r[1] == self.cals[1]])

    def test_job_listing_shows_agents_and_finish_times_not_secrets(self):
        cal = self.cals[2]
        name = self.devices[2]
        # lease one job and keep it; finish the rest
        r = self.req("POST", "/v1/jobs/claim", {"device": name, "agent": "gpu0"}, token=self.agent)
        held = r.json["job"]
        run_all_jobs(self, name, self.agent)
        leased = self.req("GET", "/v1/jobs?calibration=%d&state=leased" % cal).json["jobs"]
        self.assertEqual([j["id"] for j in leased], [held["id"]])
        self.assertEqual(leased[0]["agent"], "test-agent/gpu0")
        self.assertIsNotNone(leased[0]["lease_expires_at"])
        self.assertIsNone(leased[0]["finished_at"])
        done = self.req("GET", "/v1/jobs?calibration=%d&state=done" % cal).json["jobs"]
        self.assertEqual(len(done), 29)
        for j in done:
            self.assertEqual(j["agent"], "test-agent/harness")
            self.assertIsNotNone(j["finished_at"])
            self.assertIsNone(j["lease_expires_at"])
        queued = self.req("GET", "/v1/jobs?calibration=%d&state=queued&limit=5" % cal).json
        self.assertEqual(queued, {"jobs": [], "next_cursor": None})
        raw = self.req("GET", "/v1/jobs?calibration=%d" % cal).raw.decode()
        self.assertNotIn(held["lease_token"], raw)
        self.assertNotIn("lease_token", raw)

    def test_tokens_admin_only_without_hashes(self):
        self.assertStatus(self.req("GET", "/v1/tokens"), 401)
        self.assertStatus(self.req("GET", "/v1/tokens", token=self.agent), 403, "forbidden")
        rows = self.db_rows("SELECT id, name, role, hash FROM tokens ORDER BY id")
        r = self.req("GET", "/v1/tokens", token=self.admin)
        self.assertStatus(r, 200)
        self.assertEqual([(t["id"], t["name"], t["role"]) for t in r.json["tokens"]],
                         [row[:3] for row in rows])
        for row in rows:
            self.assertNotIn(row[3], r.raw.decode())
        items, _ = walk(self, "/v1/tokens", "tokens", 2, token=self.admin)
        self.assertEqual([t["id"] for t in items], [row[0] for row in rows])

    def test_bad_limit_and_cursor_name_the_field(self):
        good = self.req("GET", "/v1/jobs?limit=1").json["next_cursor"]
        dev_cursor = self.req("GET", "/v1/devices?limit=1").json["next_cursor"]
        cases = [("limit=0", "limit"), ("limit=1001", "limit"), ("limit=-1", "limit"),
                 ("limit=1.5", "limit"), ("limit=x", "limit"), ("limit=", "limit"),
                 ("cursor=", "cursor"), ("cursor=zz", "cursor"), ("cursor=abc", "cursor"),
                 ("cursor=" + good[:-2], "cursor"), ("cursor=" + dev_cursor, "cursor"),
                 ("cursor=" + "6a6f62733a30", "cursor"),          # hex of "jobs:0"
                 ("cursor=" + "6a6f62733a2d33", "cursor"),        # "jobs:-3"
                 ("cursor=" + "ab" * 200, "cursor"), ("state=running", "state"),
                 ("calibration=0", "calibration"), ("page=2", "page")]
        for q, field in cases:
            r = self.req("GET", "/v1/jobs?" + q)
            self.assertEqual(r.status, 400, q)
            self.assertEqual(r.json["error"]["field"], field, q)
        for path, tok in (("/v1/calibrations", None), ("/v1/devices", None),
                          ("/v1/tokens", self.admin)):
            for q, field in (("limit=0", "limit"), ("cursor=" + good, "cursor")):
                r = self.req("GET", "%s?%s" % (path, q), token=tok)
                self.assertEqual((r.status, r.json["error"]["field"]), (400, field), path + q)
        # a device cursor is good on the device list
        self.assertStatus(self.req("GET", "/v1/devices?cursor=" + dev_cursor), 200)
        self.assertStatus(self.req("GET", "/v1/jobs?calibration=999999"), 404)

    def db_rows(self, sql):
        con = sqlite3.connect("file:%s?mode=ro" % self.d.db, uri=True)
        try:
            return [tuple(r) for r in con.execute(sql)]
        finally:
            con.close()


if __name__ == "__main__":
    unittest.main()
