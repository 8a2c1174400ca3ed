/*
 * test_jobs.c - the lease protocol with injected time: claim order and lease
 * fields, heartbeat, expiry and requeue, stale tokens refused (also after the
 * job was finished by someone else), idempotent identical re-upload, conflict
 * on a different re-upload, bounded attempts failing the calibration,
 * agents' last-seen times, and the paged job list (filters, order, finish
 * times, no lease secret).
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "fixture.h"

#define LEASE FIXTURE_LEASE

static void test_claim_order_and_fields(void)
{
  fixture f;
  fixture_open(&f);
  int64_t cal = fixture_calibration(&f, 4, 0);
  char ta[33], tb[33];
  pascal_store_job j1, j2;
  int claimed = -1;
  CHECK_INT(pascal_store_job_claim(f.s, "gb10", "agent-1", fixture_token(ta, 'a'), HOLDER, 1000,
                                   LEASE, &j1, &claimed, NULL, NULL),
            PASCAL_STORE_OK);
  CHECK_INT(claimed, 1);
  CHECK_INT(j1.calibration, cal);
  CHECK(strcmp(j1.device, "gb10") == 0);
  CHECK_INT(j1.state, PASCAL_STORE_LEASED);
  CHECK_INT(j1.workload, PASCAL_STORE_SCAN);
  CHECK_INT(j1.block_bytes, 16384);
  CHECK_INT(j1.lease_expires, 1000 + LEASE);
  CHECK_INT(j1.attempts, 1);
  CHECK_INT(j1.max_attempts, PASCAL_STORE_DEFAULT_MAX_ATTEMPTS);
  CHECK(strcmp(j1.lease_owner, "agent-1") == 0);
  pascal_store_run r0 = fixture_scan_run(0);
  CHECK(memcmp(&j1.run, &r0, sizeof r0) == 0);
  CHECK_INT(fixture_claim(&f, "agent-2", tb, 'b', 1001, &j2), PASCAL_STORE_OK);
  CHECK_INT(j2.id, j1.id + 1); /* oldest queued first */
  pascal_store_run r1 = fixture_scan_run(1);
  CHECK(memcmp(&j2.run, &r1, sizeof r1) == 0);
  CHECK_INT(j2.run.path_tma, 1);
  CHECK_INT(j2.run.d, 4);

  /* An unknown device is not found; a device with nothing queued gets none. */
  pascal_store_job none;
  memset(&none, 0x5a, sizeof none);
  CHECK_INT(pascal_store_job_claim(f.s, "nope", "agent-1", ta, HOLDER, 1002, LEASE, &none, &claimed,
                                   NULL, NULL),
            PASCAL_STORE_NOT_FOUND);
  pascal_store_device other = fixture_device();
  strcpy(other.name, "idle");
  CHECK_INT(pascal_store_device_create(f.s, &other, 1, NULL, NULL), PASCAL_STORE_OK);
  CHECK_INT(pascal_store_job_claim(f.s, "idle", "agent-1", ta, HOLDER, 1002, LEASE, &none, &claimed,
                                   NULL, NULL),
            PASCAL_STORE_OK);
  CHECK_INT(claimed, 0);
  CHECK_INT(none.id, 0x5a5a5a5a5a5a5a5aLL); /* untouched */

  /* Bad arguments are refused before anything happens. */
  pascal_error err;
  CHECK_INT(pascal_store_job_claim(f.s, "gb10", "agent-1", "abc", HOLDER, 1002, LEASE, &none,
                                   &claimed, NULL, &err),
            PASCAL_STORE_INVALID);
  CHECK(strcmp(err.field, "lease_token") == 0);
  CHECK_INT(pascal_store_job_claim(f.s, "gb10", "agent-1", "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
                                   HOLDER, 1002, LEASE, &none, &claimed, NULL, &err),
            PASCAL_STORE_INVALID);
  CHECK_INT(pascal_store_job_claim(f.s, "gb10", "agent 1", ta, HOLDER, 1002, LEASE, &none, &claimed,
                                   NULL, &err),
            PASCAL_STORE_INVALID);
  CHECK(strcmp(err.field, "agent") == 0);
  CHECK_INT(pascal_store_job_claim(f.s, "gb10", "agent-1", ta, HOLDER, 1002, 0, &none, &claimed,
                                   NULL, &err),
            PASCAL_STORE_INVALID);
  CHECK(strcmp(err.field, "lease_seconds") == 0);

  pascal_store_agent *agents = NULL;
  size_t n = 0;
  CHECK_INT(pascal_store_agent_list(f.s, &agents, &n, NULL), PASCAL_STORE_OK);
  CHECK_INT(n, 2);
  if (n == 2) {
    CHECK(strcmp(agents[0].name, "agent-1") == 0);
    CHECK_INT(agents[0].last_seen, 1002); /* the empty claim on "idle" counts */
    CHECK_INT(agents[1].last_seen, 1001);
  }
  free(agents);
  fixture_done(&f);
}

static void test_heartbeat_and_expiry(void)
{
  fixture f;
  fixture_open(&f);
  fixture_calibration(&f, 2, 0);
  char ta[33], tb[33], tz[33];
  fixture_token(tz, 'f');
  pascal_store_job j, k;
  int claimed = 0;
  int64_t expires = 0;
  CHECK_INT(fixture_claim(&f, "agent-1", ta, 'a', 1000, &j), PASCAL_STORE_OK);
  /* Heartbeat inside the lease extends it from now. */
  CHECK_INT(pascal_store_job_heartbeat(f.s, j.id, ta, HOLDER, 1050, LEASE, &expires, NULL),
            PASCAL_STORE_OK);
  CHECK_INT(expires, 1110);
  pascal_store_job got;
  CHECK_INT(pascal_store_job_get(f.s, j.id, &got, NULL), PASCAL_STORE_OK);
  CHECK_INT(got.lease_expires, 1110);
  pascal_error err;
  CHECK_INT(pascal_store_job_heartbeat(f.s, j.id, tz, HOLDER, 1051, LEASE, &expires, &err),
            PASCAL_STORE_STALE);
  CHECK(strcmp(err.field, "lease_token") == 0);
  CHECK_INT(pascal_store_job_heartbeat(f.s, 9999, ta, HOLDER, 1051, LEASE, &expires, NULL),
            PASCAL_STORE_NOT_FOUND);

  /* Before expiry the other agent gets the second job, not this one. */
  CHECK_INT(fixture_claim(&f, "agent-2", tb, 'b', 1109, &k), PASCAL_STORE_OK);
  CHECK_INT(k.id, j.id + 1);
  /* At the expiry second the lease is gone: heartbeat and result are stale. */
  CHECK_INT(pascal_store_job_heartbeat(f.s, j.id, ta, HOLDER, 1110, LEASE, &expires, NULL),
            PASCAL_STORE_STALE);
  CHECK_INT(pascal_store_job_result(f.s, j.id, ta, HOLDER, 1e6, 2e3, 1110, NULL, NULL),
            PASCAL_STORE_STALE);
  /* requeue_expired returns it to the queue (the other lease is live). */
  int64_t requeued = -1;
  CHECK_INT(pascal_store_jobs_requeue_expired(f.s, 1110, &requeued, NULL), PASCAL_STORE_OK);
  CHECK_INT(requeued, 1);
  CHECK_INT(pascal_store_job_get(f.s, j.id, &got, NULL), PASCAL_STORE_OK);
  CHECK_INT(got.state, PASCAL_STORE_QUEUED);
  CHECK(strcmp(got.last_error, "lease expired") == 0);
  CHECK_INT(pascal_store_jobs_requeue_expired(f.s, 1110, &requeued, NULL), PASCAL_STORE_OK);
  CHECK_INT(requeued, 0);
  /* A new claim takes it again with attempt 2 and a new token; the old
   * token stays stale even though the job is leased again. */
  CHECK_INT(pascal_store_job_claim(f.s, "gb10", "agent-3", tz, HOLDER, 1111, LEASE, &got, &claimed,
                                   NULL, NULL),
            PASCAL_STORE_OK);
  CHECK_INT(got.id, j.id);
  CHECK_INT(got.attempts, 2);
  CHECK_INT(pascal_store_job_result(f.s, j.id, ta, HOLDER, 1e6, 2e3, 1112, NULL, NULL),
            PASCAL_STORE_STALE);
  CHECK_INT(pascal_store_job_heartbeat(f.s, j.id, ta, HOLDER, 1112, LEASE, &expires, NULL),
            PASCAL_STORE_STALE);
  fixture_done(&f);
}

/* Claim also requeues expired leases itself: a dead agent's job is picked up
 * by the next claim without any timer. */
static void test_claim_takes_expired(void)
{
  fixture f;
  fixture_open(&f);
  fixture_calibration(&f, 1, 0);
  char ta[33], tb[33];
  pascal_store_job j, k;
  int claimed = 0;
  CHECK_INT(pascal_store_job_claim(f.s, "gb10", "dead", fixture_token(ta, 'a'), HOLDER, 1000, LEASE,
                                   &j, &claimed, NULL, NULL),
            PASCAL_STORE_OK);
  CHECK_INT(pascal_store_job_claim(f.s, "gb10", "live", fixture_token(tb, 'b'), HOLDER, 1059, LEASE,
                                   &k, &claimed, NULL, NULL),
            PASCAL_STORE_OK);
  CHECK_INT(claimed, 0);
  CHECK_INT(pascal_store_job_claim(f.s, "gb10", "live", tb, HOLDER, 1060, LEASE, &k, &claimed, NULL,
                                   NULL),
            PASCAL_STORE_OK);
  CHECK_INT(claimed, 1);
  CHECK_INT(k.id, j.id);
  CHECK(strcmp(k.lease_owner, "live") == 0);
  fixture_done(&f);
}

static void test_result_idempotent_and_conflict(void)
{
  fixture f;
  fixture_open(&f);
  int64_t cal = fixture_calibration(&f, 3, 0);
  char ta[33], tb[33];
  pascal_store_job j;
  int claimed = 0;
  CHECK_INT(fixture_claim(&f, "agent-1", ta, 'a', 1000, &j), PASCAL_STORE_OK);
  CHECK_INT(pascal_store_job_result(f.s, j.id, ta, HOLDER, 1.25e9, 3.5e6, 1010, NULL, NULL),
            PASCAL_STORE_OK);
  pascal_store_job got;
  CHECK_INT(pascal_store_job_get(f.s, j.id, &got, NULL), PASCAL_STORE_OK);
  CHECK_INT(got.state, PASCAL_STORE_DONE);
  /* The same upload again (a retry after a lost response): OK, no new row,
   * even after the lease time is over. */
  CHECK_INT(pascal_store_job_result(f.s, j.id, ta, HOLDER, 1.25e9, 3.5e6, 1011, NULL, NULL),
            PASCAL_STORE_OK);
  CHECK_INT(pascal_store_job_result(f.s, j.id, ta, HOLDER, 1.25e9, 3.5e6, 5000, NULL, NULL),
            PASCAL_STORE_OK);
  pascal_error err;
  CHECK_INT(pascal_store_job_result(f.s, j.id, ta, HOLDER, 1.25e9 + 1, 3.5e6, 1012, NULL, &err),
            PASCAL_STORE_CONFLICT);
  CHECK_INT(err.status, PASCAL_EREFUSED);
  CHECK_INT(pascal_store_job_result(f.s, j.id, ta, HOLDER, 1.25e9, 0, 1012, NULL, NULL),
            PASCAL_STORE_CONFLICT);
  /* Another token for a done job is stale, even with the same values. */
  CHECK_INT(pascal_store_job_result(f.s, j.id, fixture_token(tb, 'b'), HOLDER, 1.25e9, 3.5e6, 1012,
                                    NULL, NULL),
            PASCAL_STORE_STALE);
  /* Malformed values are refused before any lookup. */
  CHECK_INT(pascal_store_job_result(f.s, j.id, ta, HOLDER, -1.0, 3.5e6, 1012, NULL, &err),
            PASCAL_STORE_INVALID);
  CHECK(strcmp(err.field, "result.fill_bytes") == 0);
  CHECK_INT(pascal_store_job_result(f.s, j.id, ta, HOLDER, 1e9, 1.0 / 0.0, 1012, NULL, &err),
            PASCAL_STORE_INVALID);
  CHECK_INT(pascal_store_job_result(f.s, 424242, ta, HOLDER, 1e9, 1, 1012, NULL, NULL),
            PASCAL_STORE_NOT_FOUND);

  /* A result without kernel time (0) is stored as "not measured" and its
   * retry compares equal. */
  pascal_store_job j2;
  CHECK_INT(pascal_store_job_claim(f.s, "gb10", "agent-1", tb, HOLDER, 1020, LEASE, &j2, &claimed,
                                   NULL, NULL),
            PASCAL_STORE_OK);
  CHECK_INT(pascal_store_job_result(f.s, j2.id, tb, HOLDER, 7.0, 0, 1021, NULL, NULL),
            PASCAL_STORE_OK);
  CHECK_INT(pascal_store_job_result(f.s, j2.id, tb, HOLDER, 7.0, 0, 1022, NULL, NULL),
            PASCAL_STORE_OK);

  pascal_store_measurement *ms = NULL;
  size_t n = 0;
  CHECK_INT(pascal_store_measurement_list(f.s, cal, &ms, &n, NULL), PASCAL_STORE_OK);
  CHECK_INT(n, 2);
  if (n == 2) {
    CHECK_INT(ms[0].job, j.id);
    CHECK(ms[0].fill_bytes == 1.25e9);
    CHECK(ms[0].kernel_ns == 3.5e6);
    pascal_store_run r0 = fixture_scan_run(0);
    CHECK(memcmp(&ms[0].run, &r0, sizeof r0) == 0);
    CHECK(ms[1].kernel_ns == 0);
  }
  free(ms);
  CHECK_INT(fixture_sql_int(&f, "SELECT count(*) FROM measurements WHERE kernel_ns IS NULL"), 1);
  int64_t done = 0, total = 0;
  CHECK_INT(pascal_store_device_progress(f.s, "gb10", &done, &total, NULL), PASCAL_STORE_OK);
  CHECK_INT(done, 2);
  CHECK_INT(total, 3);
  fixture_done(&f);
}

/* max_attempts = 2: fail, fail -> the job and its calibration fail, and the
 * calibration's other jobs are no longer handed out. */
static void test_bounded_attempts(void)
{
  fixture f;
  fixture_open(&f);
  int64_t cal = fixture_calibration(&f, 2, 2);
  char ta[33], tb[33], tc[33];
  pascal_store_job j;
  pascal_store_job_outcome outcome = {.state = PASCAL_STORE_LEASED};
  int claimed = 0;
  CHECK_INT(fixture_claim(&f, "a", ta, 'a', 1000, &j), PASCAL_STORE_OK);
  CHECK_INT(
      pascal_store_job_fail(f.s, j.id, fixture_token(tb, 'b'), HOLDER, "x", 1001, &outcome, NULL),
      PASCAL_STORE_STALE);
  CHECK_INT(pascal_store_job_fail(f.s, j.id, ta, HOLDER, "cupti: metric not available", 1001,
                                  &outcome, NULL),
            PASCAL_STORE_OK);
  CHECK_INT(outcome.state, PASCAL_STORE_QUEUED);
  /* Failing twice with the same token: the lease is gone. */
  CHECK_INT(pascal_store_job_fail(f.s, j.id, ta, HOLDER, "again", 1001, &outcome, NULL),
            PASCAL_STORE_STALE);
  pascal_store_job again;
  CHECK_INT(pascal_store_job_claim(f.s, "gb10", "a", tb, HOLDER, 1002, LEASE, &again, &claimed,
                                   NULL, NULL),
            PASCAL_STORE_OK);
  CHECK_INT(again.id, j.id);
  CHECK_INT(again.attempts, 2);
  CHECK(strcmp(again.last_error, "cupti: metric not available") == 0);
  CHECK_INT(pascal_store_job_fail(f.s, j.id, tb, HOLDER, NULL, 1003, &outcome, NULL),
            PASCAL_STORE_OK);
  CHECK_INT(outcome.state, PASCAL_STORE_JOB_FAILED);
  pascal_store_calibration c;
  CHECK_INT(pascal_store_calibration_get(f.s, cal, &c, NULL), PASCAL_STORE_OK);
  CHECK_INT(c.state, PASCAL_STORE_FAILED);
  CHECK_INT(c.jobs[PASCAL_STORE_JOB_FAILED], 1);
  CHECK_INT(c.jobs[PASCAL_STORE_QUEUED], 1);
  pascal_store_calibration_clear(&c);
  CHECK_INT(pascal_store_job_claim(f.s, "gb10", "a", fixture_token(tc, 'c'), HOLDER, 1004, LEASE,
                                   &again, &claimed, NULL, NULL),
            PASCAL_STORE_OK);
  CHECK_INT(claimed, 0);
  CHECK_INT(pascal_store_calibration_freeze(f.s, cal, "{}", "{}",
                                            "0123456789abcdef0123456789abcdef"
                                            "0123456789abcdef0123456789abcdef",
                                            1005, NULL),
            PASCAL_STORE_CONFLICT);
  fixture_done(&f);
}

/* An expiry on the last attempt fails the job like a reported failure. */
static void test_expiry_on_last_attempt(void)
{
  fixture f;
  char ta[33];
  pascal_store_job j;
  fixture_open_claimed(&f, 1, 1000, ta, &j);
  int64_t requeued = 0;
  CHECK_INT(pascal_store_jobs_requeue_expired(f.s, 1059, &requeued, NULL), PASCAL_STORE_OK);
  CHECK_INT(requeued, 0);
  CHECK_INT(pascal_store_jobs_requeue_expired(f.s, 1060, &requeued, NULL), PASCAL_STORE_OK);
  CHECK_INT(requeued, 1);
  pascal_store_job got;
  CHECK_INT(pascal_store_job_get(f.s, j.id, &got, NULL), PASCAL_STORE_OK);
  CHECK_INT(got.state, PASCAL_STORE_JOB_FAILED);
  pascal_store_counts counts;
  CHECK_INT(pascal_store_counts_get(f.s, &counts, NULL), PASCAL_STORE_OK);
  CHECK_INT(counts.jobs[PASCAL_STORE_JOB_FAILED], 1);
  CHECK_INT(counts.calibrations[PASCAL_STORE_FAILED], 1);
  CHECK_INT(counts.calibrations[PASCAL_STORE_COLLECTING], 0);
  fixture_done(&f);
}

/* A long failure message is cut at a UTF-8 boundary: 150 two-byte
 * characters (300 bytes) keep 127 of them (254 bytes), never half of one. */
static void test_failure_message_truncation(void)
{
  fixture f;
  fixture_open(&f);
  fixture_calibration(&f, 1, 0);
  char ta[33], msg[301];
  for (int i = 0; i < 150; i++) {
    msg[2 * i] = (char)0xc3;
    msg[2 * i + 1] = (char)0xa9; /* U+00E9 */
  }
  msg[300] = '\0';
  pascal_store_job j;
  CHECK_INT(fixture_claim(&f, "a", ta, 'a', 1000, &j), PASCAL_STORE_OK);
  CHECK_INT(pascal_store_job_fail(f.s, j.id, ta, HOLDER, msg, 1001, NULL, NULL), PASCAL_STORE_OK);
  pascal_store_job got;
  CHECK_INT(pascal_store_job_get(f.s, j.id, &got, NULL), PASCAL_STORE_OK);
  CHECK_INT(strlen(got.last_error), 254);
  CHECK(strncmp(got.last_error, msg, 254) == 0);
  fixture_done(&f);
}

/* A lease belongs to its holder: the right secret from another holder is
 * FORBIDDEN for heartbeat, result (live or done) and fail, and changes
 * nothing; the holder itself goes on. */
static void test_lease_belongs_to_its_holder(void)
{
  fixture f;
  fixture_open(&f);
  fixture_calibration(&f, 2, 0);
  char ta[33];
  pascal_store_job j, got;
  int64_t expires = 0;
  pascal_store_job_outcome outcome;
  pascal_error err;
  CHECK_INT(fixture_claim(&f, "agent-1", ta, 'a', 1000, &j), PASCAL_STORE_OK);
  CHECK_INT(j.lease_holder, HOLDER);
  const int64_t other = HOLDER + 1;
  CHECK_INT(pascal_store_job_heartbeat(f.s, j.id, ta, other, 1001, 60, &expires, &err),
            PASCAL_STORE_FORBIDDEN);
  CHECK(strcmp(err.field, "lease_token") == 0);
  CHECK_INT(err.status, PASCAL_EREFUSED);
  CHECK_INT(pascal_store_job_result(f.s, j.id, ta, other, 1e6, 2e3, 1001, NULL, NULL),
            PASCAL_STORE_FORBIDDEN);
  CHECK_INT(pascal_store_job_fail(f.s, j.id, ta, other, "x", 1001, &outcome, NULL),
            PASCAL_STORE_FORBIDDEN);
  CHECK_INT(pascal_store_job_get(f.s, j.id, &got, NULL), PASCAL_STORE_OK);
  CHECK_INT(got.state, PASCAL_STORE_LEASED);
  CHECK_INT(got.lease_expires, 1060);
  CHECK_INT(fixture_sql_int(&f, "SELECT count(*) FROM measurements"), 0);
  /* a wrong secret stays STALE whoever sends it; the holder is refused
   * nothing */
  char tz[33];
  CHECK_INT(
      pascal_store_job_result(f.s, j.id, fixture_token(tz, 'f'), other, 1e6, 2e3, 1001, NULL, NULL),
      PASCAL_STORE_STALE);
  CHECK_INT(pascal_store_job_result(f.s, j.id, ta, HOLDER, 1e6, 2e3, 1002, NULL, NULL),
            PASCAL_STORE_OK);
  /* done: the identical retry is the holder's alone */
  CHECK_INT(pascal_store_job_result(f.s, j.id, ta, other, 1e6, 2e3, 1003, NULL, NULL),
            PASCAL_STORE_FORBIDDEN);
  CHECK_INT(pascal_store_job_result(f.s, j.id, ta, HOLDER, 1e6, 2e3, 1003, NULL, NULL),
            PASCAL_STORE_OK);
  CHECK_INT(
      pascal_store_job_claim(f.s, "gb10", "agent-2", ta, 0, 1004, 60, &got, &(int){0}, NULL, &err),
      PASCAL_STORE_INVALID);
  CHECK(strcmp(err.field, "holder") == 0);
  CHECK(strcmp(pascal_store_status_name(PASCAL_STORE_FORBIDDEN), "forbidden") == 0);
  fixture_done(&f);
}

/* A claim, a result or a failure reports the progress of the job's device
 * as read in its own transaction: the same figures a separate progress read
 * gives afterwards, counted by hand here (3 jobs; one done, one requeued). */
static void test_outcome_progress(void)
{
  fixture f;
  fixture_open(&f);
  fixture_calibration(&f, 3, 0);
  char ta[33], tb[33];
  pascal_store_job j, k;
  pascal_store_job_outcome outcome = {.state = PASCAL_STORE_LEASED, .done = -1, .total = -1};
  CHECK_INT(fixture_claim(&f, "a", ta, 'a', 1000, &j), PASCAL_STORE_OK);
  int claimed = 0;
  CHECK_INT(pascal_store_job_claim(f.s, "gb10", "b", fixture_token(tb, 'b'), HOLDER, 1000,
                                   FIXTURE_LEASE, &k, &claimed, &outcome, NULL),
            PASCAL_STORE_OK);
  CHECK_INT(claimed, 1);
  CHECK_INT(outcome.state, PASCAL_STORE_LEASED);
  CHECK_INT(outcome.done, 0);
  CHECK_INT(outcome.total, 3);
  CHECK_INT(pascal_store_job_result(f.s, j.id, ta, HOLDER, 1e6, 2e3, 1001, &outcome, NULL),
            PASCAL_STORE_OK);
  CHECK_INT(outcome.state, PASCAL_STORE_DONE);
  CHECK_INT(outcome.done, 1);
  CHECK_INT(outcome.total, 3);
  /* the identical retry reports the same */
  outcome.done = -1;
  CHECK_INT(pascal_store_job_result(f.s, j.id, ta, HOLDER, 1e6, 2e3, 1002, &outcome, NULL),
            PASCAL_STORE_OK);
  CHECK_INT(outcome.done, 1);
  CHECK_INT(pascal_store_job_fail(f.s, k.id, tb, HOLDER, "x", 1003, &outcome, NULL),
            PASCAL_STORE_OK);
  CHECK_INT(outcome.state, PASCAL_STORE_QUEUED);
  CHECK_INT(outcome.done, 1);
  CHECK_INT(outcome.total, 3);
  int64_t done = -1, total = -1;
  CHECK_INT(pascal_store_device_progress(f.s, "gb10", &done, &total, NULL), PASCAL_STORE_OK);
  CHECK_INT(done, outcome.done);
  CHECK_INT(total, outcome.total);
  /* a claim with nothing left to lease still reports the progress */
  char tc[33];
  CHECK_INT(pascal_store_job_claim(f.s, "gb10", "c", fixture_token(tc, 'c'), HOLDER, 1003,
                                   FIXTURE_LEASE, &k, &claimed, &outcome, NULL),
            PASCAL_STORE_OK); /* takes the requeued job */
  CHECK_INT(claimed, 1);
  CHECK_INT(pascal_store_job_claim(f.s, "gb10", "c", fixture_token(tc, 'd'), HOLDER, 1003,
                                   FIXTURE_LEASE, &k, &claimed, &outcome, NULL),
            PASCAL_STORE_OK); /* the third job */
  CHECK_INT(pascal_store_job_claim(f.s, "gb10", "c", fixture_token(tc, 'e'), HOLDER, 1003,
                                   FIXTURE_LEASE, &k, &claimed, &outcome, NULL),
            PASCAL_STORE_OK);
  CHECK_INT(claimed, 0);
  CHECK_INT(outcome.state, PASCAL_STORE_QUEUED);
  CHECK_INT(outcome.done, 1);
  CHECK_INT(outcome.total, 3);
  /* a refused upload leaves the outcome alone */
  outcome.done = -7;
  CHECK_INT(pascal_store_job_result(f.s, k.id, tb, HOLDER, 1e6, 2e3, 1004, &outcome, NULL),
            PASCAL_STORE_STALE);
  CHECK_INT(outcome.done, -7);
  fixture_done(&f);
}

/* pascal_store_job_list: by id, filtered by calibration and state, after a
 * key and up to a limit, with the finish time of done jobs and never the
 * lease token (the struct has no place for one; the owner is there). */
static void test_job_list(void)
{
  fixture f;
  fixture_open(&f);
  int64_t c1 = fixture_calibration(&f, 3, 0);
  char ta[33];
  pascal_store_job j;
  CHECK_INT(fixture_claim(&f, "agent-1", ta, 'a', 1000, &j), PASCAL_STORE_OK);
  CHECK_INT(pascal_store_job_result(f.s, j.id, ta, HOLDER, 1e6, 2e3, 1010, NULL, NULL),
            PASCAL_STORE_OK);
  CHECK_INT(fixture_claim(&f, "agent-2", ta, 'b', 1020, &j), PASCAL_STORE_OK);
  pascal_store_job *l = NULL;
  size_t n = 0;
  CHECK_INT(pascal_store_job_list(f.s, 0, -1, 0, 0, &l, &n, NULL), PASCAL_STORE_OK);
  CHECK_INT(n, 3);
  for (size_t i = 0; n == 3 && i < 3; i++) {
    CHECK_INT(l[i].calibration, c1);
    CHECK_INT(l[i].id, l[0].id + (int64_t)i);
  }
  if (n == 3) {
    CHECK_INT(l[0].state, PASCAL_STORE_DONE);
    CHECK_INT(l[0].finished, 1010);
    CHECK(strcmp(l[0].lease_owner, "agent-1") == 0);
    CHECK_INT(l[1].state, PASCAL_STORE_LEASED);
    CHECK_INT(l[1].finished, 0);
    CHECK_INT(l[1].lease_started, 1020);
    CHECK_INT(l[2].state, PASCAL_STORE_QUEUED);
    CHECK_INT(l[2].lease_owner[0], 0);
  }
  int64_t first = n ? l[0].id : 0;
  free(l);
  /* after a key, with a limit */
  CHECK_INT(pascal_store_job_list(f.s, c1, -1, first, 1, &l, &n, NULL), PASCAL_STORE_OK);
  CHECK_INT(n, 1);
  CHECK_INT(n ? l[0].id : 0, first + 1);
  free(l);
  /* by state */
  CHECK_INT(pascal_store_job_list(f.s, c1, PASCAL_STORE_LEASED, 0, 0, &l, &n, NULL),
            PASCAL_STORE_OK);
  CHECK_INT(n, 1);
  CHECK_INT(n ? l[0].id : 0, first + 1);
  free(l);
  CHECK_INT(pascal_store_job_list(f.s, c1, PASCAL_STORE_JOB_FAILED, 0, 0, &l, &n, NULL),
            PASCAL_STORE_OK);
  CHECK_INT(n, 0);
  CHECK(l == NULL);
  /* another calibration's jobs are not listed under c1, and the reverse */
  int64_t c2 = fixture_calibration(&f, 2, 0);
  CHECK_INT(pascal_store_job_list(f.s, c2, -1, 0, 0, &l, &n, NULL), PASCAL_STORE_OK);
  CHECK_INT(n, 2);
  CHECK_INT(n ? l[0].id : 0, first + 3);
  free(l);
  CHECK_INT(pascal_store_job_list(f.s, c1, -1, first + 2, 0, &l, &n, NULL), PASCAL_STORE_OK);
  CHECK_INT(n, 0);
  free(l);
  CHECK_INT(pascal_store_job_list(f.s, 999, -1, 0, 0, &l, &n, NULL), PASCAL_STORE_OK);
  CHECK_INT(n, 0);
  free(l);
  /* bad filters */
  pascal_error err;
  CHECK_INT(pascal_store_job_list(f.s, -1, -1, 0, 0, &l, &n, &err), PASCAL_STORE_INVALID);
  CHECK_INT(pascal_store_job_list(f.s, 0, PASCAL_STORE_JOB_STATES, 0, 0, &l, &n, &err),
            PASCAL_STORE_INVALID);
  CHECK(strcmp(err.field, "state") == 0);
  fixture_done(&f);
}

int main(void)
{
  test_job_list();
  test_lease_belongs_to_its_holder();
  test_claim_order_and_fields();
  test_heartbeat_and_expiry();
  test_claim_takes_expired();
  test_result_idempotent_and_conflict();
  test_bounded_attempts();
  test_expiry_on_last_attempt();
  test_failure_message_truncation();
  test_outcome_progress();
  return check_summary();
}
