/*
 * test_tokens.c - API tokens stored by hash: create, find (active only),
 * duplicate hash refused, list with roles, revoke (idempotent, first time
 * kept, unknown id not found); agents' last-seen; counts by state.
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "fixture.h"

#define H1 "1111111111111111111111111111111111111111111111111111111111111111"
#define H2 "2222222222222222222222222222222222222222222222222222222222222222"

static void test_tokens(fixture *f)
{
  int64_t a = 0, b = 0;
  CHECK_INT(pascal_store_token_create(f->s, "ops", PASCAL_STORE_ROLE_ADMIN, H1, 10, &a, NULL),
            PASCAL_STORE_OK);
  CHECK_INT(
      pascal_store_token_create(f->s, "gb10-agent", PASCAL_STORE_ROLE_AGENT, H2, 11, &b, NULL),
      PASCAL_STORE_OK);
  CHECK(b > a);
  pascal_error err;
  int64_t c = -1;
  CHECK_INT(pascal_store_token_create(f->s, "dup", PASCAL_STORE_ROLE_AGENT, H2, 12, &c, &err),
            PASCAL_STORE_CONFLICT);
  CHECK_INT(c, -1);
  CHECK_INT(
      pascal_store_token_create(f->s, "x", PASCAL_STORE_ROLE_AGENT, "not-a-hash", 12, &c, &err),
      PASCAL_STORE_INVALID);
  CHECK(strcmp(err.field, "hash") == 0);
  for (int role = 2; role <= 7; role += 5) { /* just past the last role, and far past */
    CHECK_INT(pascal_store_token_create(f->s, "x", (pascal_store_role)role, H2, 12, &c, &err),
              PASCAL_STORE_INVALID);
    CHECK(strcmp(err.field, "role") == 0);
  }

  pascal_store_token t;
  CHECK_INT(pascal_store_token_find(f->s, H2, &t, NULL), PASCAL_STORE_OK);
  CHECK_INT(t.id, b);
  CHECK_INT(t.role, PASCAL_STORE_ROLE_AGENT);
  CHECK(strcmp(t.name, "gb10-agent") == 0);
  CHECK(strcmp(t.hash, H2) == 0);
  CHECK_INT(t.revoked, 0);
  CHECK_INT(pascal_store_token_find(
                f->s, "3333333333333333333333333333333333333333333333333333333333333333", &t, NULL),
            PASCAL_STORE_NOT_FOUND);

  CHECK_INT(pascal_store_token_revoke(f->s, b, 20, NULL), PASCAL_STORE_OK);
  CHECK_INT(pascal_store_token_revoke(f->s, b, 30, NULL), PASCAL_STORE_OK);
  CHECK_INT(pascal_store_token_revoke(f->s, 999, 30, NULL), PASCAL_STORE_NOT_FOUND);
  CHECK_INT(pascal_store_token_find(f->s, H2, &t, NULL), PASCAL_STORE_NOT_FOUND);
  CHECK_INT(pascal_store_token_find(f->s, H1, &t, NULL), PASCAL_STORE_OK);

  pascal_store_token *list = NULL;
  size_t n = 0;
  CHECK_INT(pascal_store_token_list(f->s, &list, &n, NULL), PASCAL_STORE_OK);
  CHECK_INT(n, 2);
  if (n == 2) {
    CHECK_INT(list[0].role, PASCAL_STORE_ROLE_ADMIN);
    CHECK_INT(list[0].revoked, 0);
    CHECK_INT(list[1].revoked, 20); /* the first revocation time is kept */
    CHECK_INT(list[1].created, 11);
  }
  free(list);
  /* The plain token never reaches the database: only 64-hex hashes do. */
  CHECK_INT(fixture_sql_int(f, "SELECT count(*) FROM tokens WHERE length(hash) <> 64"), 0);
  CHECK(strcmp(pascal_store_role_name(PASCAL_STORE_ROLE_AGENT), "agent") == 0);
}

static void test_agents_and_counts(fixture *f)
{
  CHECK_INT(pascal_store_agent_seen(f->s, "host-b", 50, NULL), PASCAL_STORE_OK);
  CHECK_INT(pascal_store_agent_seen(f->s, "host-a", 60, NULL), PASCAL_STORE_OK);
  CHECK_INT(pascal_store_agent_seen(f->s, "host-b", 40, NULL), PASCAL_STORE_OK); /* older */
  CHECK_INT(pascal_store_agent_seen(f->s, "", 40, NULL), PASCAL_STORE_INVALID);
  pascal_store_agent *agents = NULL;
  size_t n = 0;
  CHECK_INT(pascal_store_agent_list(f->s, &agents, &n, NULL), PASCAL_STORE_OK);
  CHECK_INT(n, 2);
  if (n == 2) {
    CHECK(strcmp(agents[0].name, "host-a") == 0);
    CHECK_INT(agents[1].last_seen, 50); /* never goes back in time */
  }
  free(agents);

  pascal_store_counts counts;
  CHECK_INT(pascal_store_counts_get(f->s, &counts, NULL), PASCAL_STORE_OK);
  for (int i = 0; i < PASCAL_STORE_CAL_STATES; i++)
    CHECK_INT(counts.calibrations[i], 0);
  fixture_calibration(f, 3, 0);
  fixture_calibration(f, 2, 0);
  char tok[33];
  pascal_store_job j;
  CHECK_INT(fixture_claim(f, "host-a", tok, 'a', 70, &j), PASCAL_STORE_OK);
  CHECK_INT(pascal_store_counts_get(f->s, &counts, NULL), PASCAL_STORE_OK);
  CHECK_INT(counts.calibrations[PASCAL_STORE_COLLECTING], 2);
  CHECK_INT(counts.jobs[PASCAL_STORE_QUEUED], 4);
  CHECK_INT(counts.jobs[PASCAL_STORE_LEASED], 1);
  CHECK_INT(counts.jobs[PASCAL_STORE_DONE], 0);
}

int main(void)
{
  fixture f;
  fixture_open(&f);
  test_tokens(&f);
  test_agents_and_counts(&f);
  fixture_done(&f);
  return check_summary();
}
