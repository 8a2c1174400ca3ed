"""test_authz.py - the authorization matrix, walked from api-spec/openapi.yaml.

Every operation of the spec declares its role in `x-pascal-role` (open, read,
agent, admin). For each one this test calls the live daemon (started with
--auth-reads, so reads are guarded too) with no token, a revoked token, a token
of a role too weak, and the right token, and checks 401 / 401 / 403 / neither.
The spec and the router must list the same operations: the router's own list
is what /v1/stats reports per route, so a route added to either side alone
fails here. A second daemon without --auth-reads shows reads open to everyone
while writes stay guarded."""
import re
import subprocess
import unittest

from harness import DEVICE, PASCALD, DaemonTest, load_spec

METHODS = ("get", "post", "put", "delete", "patch")
ROLES = ("open", "read", "agent", "admin")


def operations(spec):
    """[(METHOD, template, role, has_body, operation)] for every operation."""
    ops = []
    for tmpl, item in spec["paths"].items():
        for m, op in item.items():
            if m in METHODS:
                ops.append((m.upper(), tmpl, op.get("x-pascal-role"), "requestBody" in op, op))
    return ops


def concrete(tmpl):
    """A path the router matches: {id} -> an id no row has, {name} -> a name."""
    return re.sub(r"\{name\}", "authz-ghost", re.sub(r"\{id\}", "987654", tmpl))


def revoke(daemon, name):
    listing = subprocess.run([PASCALD, "token", "list", "--db", daemon.db], check=True,
                             capture_output=True, text=True).stdout
    ids = [l.split()[0] for l in listing.splitlines() if l.split()[2:3] == [name]]
    if len(ids) != 1:
        raise AssertionError("token %s not listed once: %s" % (name, listing))
    subprocess.run([PASCALD, "token", "revoke", "--db", daemon.db, "--id", ids[0]], check=True,
                   capture_output=True)


class SpecRoles(unittest.TestCase):
    """The role extension is present, known, and agrees with the rest of the operation."""

    def test_roles_declared(self):
        spec = load_spec()
        ops = operations(spec)
        self.assertGreater(len(ops), 20)
        for method, tmpl, role, _, op in ops:
            where = "%s %s" % (method, tmpl)
            self.assertIn(role, ROLES, where + " has no valid x-pascal-role")
            codes = set(op["responses"])
            if role == "open":
                self.assertEqual(op.get("security"), [{}], where + " is open: security [{}]")
                self.assertNotIn("401", codes, where)
            else:
                self.assertIn("401", codes, where + " must declare 401")
            if role in ("agent", "admin"):
                self.assertEqual(op.get("security"), [{"bearerAuth": []}], where)
                self.assertIn("403", codes, where + " must declare 403")


class Matrix(DaemonTest):
    daemon_args = ("--auth-reads",)

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        for role in ("admin", "agent"):
            tok = cls.d.token(role, "revoked-" + role)
            revoke(cls.d, "revoked-" + role)
            setattr(cls, "revoked_" + role, tok)
        cls.ops = operations(load_spec())

    def call(self, method, tmpl, has_body, token):
        return self.req(method, concrete(tmpl), {} if has_body else None, token=token)

    def test_spec_equals_router(self):
        r = self.req("GET", "/v1/stats", token=self.agent)
        self.assertStatus(r, 200)
        router = {x["route"] for x in r.json["requests"]["by_route"]} - {"unmatched"}
        spec = {"%s %s" % (m, t) for m, t, _, _, _ in self.ops}
        self.assertEqual(sorted(router - spec), [], "routes missing from the spec")
        self.assertEqual(sorted(spec - router), [], "spec operations the router lacks")

    def test_matrix(self):
        for method, tmpl, role, has_body, _ in self.ops:
            with self.subTest(op="%s %s" % (method, tmpl), role=role):
                anon = self.call(method, tmpl, has_body, None)
                if role == "open":
                    self.assertNotIn(anon.status, (401, 403), anon.raw[:300])
                    continue
                self.assertStatus(anon, 401, "unauthorized")
                self.assertTrue(anon.headers.get("www-authenticate", "").startswith("Bearer"))
                for tok in (self.revoked_admin, self.revoked_agent, "pasc_" + "0" * 64):
                    self.assertStatus(self.call(method, tmpl, has_body, tok), 401, "unauthorized")
                if role == "admin":
                    self.assertStatus(self.call(method, tmpl, has_body, self.agent), 403, "forbidden")
                right = (self.admin,) if role == "admin" else (self.admin, self.agent)
                for tok in right:
                    r = self.call(method, tmpl, has_body, tok)
                    self.assertNotIn(r.status, (401, 403), r.raw[:300])
                    self.assertLess(r.status, 500, r.raw[:300])

    def test_right_token_does_real_work(self):
        """Not just 'not 401': each role's token completes one real write."""
        dev = dict(DEVICE, name="authz-dev")
        self.assertStatus(self.req("POST", "/v1/devices", dev, token=self.admin), 201)
        r = self.req("POST", "/v1/jobs/claim", {"device": "authz-dev", "agent": "a"}, token=self.agent)
        self.assertStatus(r, 200)
        self.assertIsNone(r.json["job"])
        self.assertStatus(self.req("GET", "/v1/devices/authz-dev", token=self.agent), 200)


class ReadsOpenByDefault(DaemonTest):
    def test_default_daemon(self):
        for method, tmpl, role, has_body, _ in operations(load_spec()):
            with self.subTest(op="%s %s" % (method, tmpl), role=role):
                r = self.req(method, concrete(tmpl), {} if has_body else None)
                if role in ("open", "read"):
                    self.assertNotIn(r.status, (401, 403), r.raw[:300])
                else:
                    self.assertStatus(r, 401, "unauthorized")
                if role == "read":  # a token that is sent is still checked
                    bad = self.req(method, concrete(tmpl), {} if has_body else None,
                                   token="pasc_" + "0" * 64)
                    self.assertStatus(bad, 401, "unauthorized")


if __name__ == "__main__":
    unittest.main(verbosity=2)
