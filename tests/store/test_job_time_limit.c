/*
 * test_job_time_limit.c - a job's time limit (issue 37, finding 10):
 * heartbeats extend a lease at most to lease_started + time_limit, the one
 * at or after that is STALE and extends nothing, so the lease runs out and
 * the job goes back to the queue (an attempt spent), however long its agent
 * keeps calling. Without the limit (the plain heartbeat) a lease lived as
 * long as its heartbeats, which was how a W = 2^32 - 1 run held its job for
 * a year.
 */
#include <string.h>

#include "check.h"
#include "fixture.h"

#define NOW   5000
#define LIMIT 100 /* seconds; leases are FIXTURE_LEASE = 60 */

static void test_limit(void)
{
  fixture f;
  char tok[33];
  pascal_store_job j, got;
  pascal_error err;
  int64_t expires = 0;
  fixture_open_claimed(&f, 3, NOW, tok, &j);
  CHECK_INT(j.lease_started, NOW);
  CHECK_INT(pascal_store_job_heartbeat_limited(f.s, j.id, tok, HOLDER, NOW + 30, FIXTURE_LEASE,
                                               LIMIT, &expires, NULL),
            PASCAL_STORE_OK);
  CHECK_INT(expires, NOW + 30 + FIXTURE_LEASE);
  CHECK_INT(pascal_store_job_heartbeat_limited(f.s, j.id, tok, HOLDER, NOW + 80, FIXTURE_LEASE,
                                               LIMIT, &expires, NULL),
            PASCAL_STORE_OK);
  CHECK_INT(expires, NOW + LIMIT); /* capped */
  CHECK_INT(pascal_store_job_heartbeat_limited(f.s, j.id, tok, HOLDER, NOW + LIMIT - 1,
                                               FIXTURE_LEASE, LIMIT, &expires, NULL),
            PASCAL_STORE_OK);
  CHECK_INT(expires, NOW + LIMIT);
  CHECK_INT(pascal_store_job_heartbeat_limited(f.s, j.id, tok, HOLDER, NOW + LIMIT, FIXTURE_LEASE,
                                               LIMIT, &expires, &err),
            PASCAL_STORE_STALE);
  CHECK(strstr(err.message, "expired") != NULL);
  /* the lease ran out: the next claim takes the job again */
  char tok2[33];
  CHECK_INT(fixture_claim(&f, "b", tok2, 'b', NOW + LIMIT + 1, &got), PASCAL_STORE_OK);
  CHECK_INT(got.id, j.id);
  CHECK_INT(got.attempts, 2);
  CHECK_INT(got.lease_started, NOW + LIMIT + 1);
  /* no limit: the plain heartbeat extends as before */
  CHECK_INT(pascal_store_job_heartbeat(f.s, j.id, tok2, HOLDER, NOW + 10 * LIMIT, FIXTURE_LEASE,
                                       &expires, NULL),
            PASCAL_STORE_STALE); /* its own lease expired at NOW + LIMIT + 61 */
  fixture_done(&f);
}

/* A limit shorter than the lease itself (a limit lowered while jobs run):
 * the live lease is not extended past it. */
static void test_limit_inside_a_lease(void)
{
  fixture f;
  char tok[33];
  pascal_store_job j;
  pascal_error err;
  fixture_open_claimed(&f, 3, NOW, tok, &j);
  CHECK_INT(pascal_store_job_heartbeat_limited(f.s, j.id, tok, HOLDER, NOW + 40, FIXTURE_LEASE, 30,
                                               NULL, &err),
            PASCAL_STORE_STALE);
  CHECK(strstr(err.message, "time limit of 30 s") != NULL);
  fixture_done(&f);
}

static void test_shift_moves_the_start(void)
{
  fixture f;
  char tok[33];
  pascal_store_job j, got;
  int64_t moved = 0;
  fixture_open_claimed(&f, 3, NOW, tok, &j);
  CHECK_INT(pascal_store_leases_shift(f.s, -3600, &moved, NULL), PASCAL_STORE_OK);
  CHECK_INT(moved, 1);
  CHECK_INT(pascal_store_job_get(f.s, j.id, &got, NULL), PASCAL_STORE_OK);
  CHECK_INT(got.lease_started, NOW - 3600);
  CHECK_INT(got.lease_expires, NOW - 3600 + FIXTURE_LEASE);
  fixture_done(&f);
}

int main(void)
{
  test_limit();
  test_limit_inside_a_lease();
  test_shift_moves_the_start();
  return check_summary();
}
