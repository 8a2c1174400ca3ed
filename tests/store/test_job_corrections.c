/*
 * test_job_corrections.c - an operator's re-queue and exclusion of a
 * collecting calibration's runs (issue 37, finding 2): a done run goes back
 * to the queue without its measurement and with all its attempts, is claimed
 * and measured again; an excluded run is done without a measurement (so the
 * calibration can freeze without it), its lease ends (the holder's result is
 * STALE); both are refused once the calibration is frozen. Before these
 * calls existed a done job could only be failed (409) and no write reached
 * its measurement: the calibration had to be measured again.
 */
#include <string.h>

#include "check.h"
#include "fixture.h"

#define NOW 2000

static long long meas(const fixture *f)
{
  return fixture_sql_int(f, "SELECT count(*) FROM measurements");
}

static void test_requeue_done(void)
{
  fixture f;
  char tok[33];
  pascal_store_job j, got;
  pascal_error err;
  fixture_open_claimed(&f, 3, NOW, tok, &j);
  CHECK_INT(pascal_store_job_requeue(f.s, j.id, NULL, NOW, &got, &err), PASCAL_STORE_CONFLICT);
  CHECK(strcmp(err.field, "state") == 0); /* a leased run is still being measured */
  CHECK_INT(pascal_store_job_result(f.s, j.id, tok, HOLDER, 1e-300, 0, NOW + 1, NULL, NULL),
            PASCAL_STORE_OK);
  CHECK_INT(meas(&f), 1);
  CHECK_INT(pascal_store_job_requeue(f.s, j.id, "fill of 1e-300", NOW + 2, &got, &err),
            PASCAL_STORE_OK);
  CHECK_INT(got.state, PASCAL_STORE_QUEUED);
  CHECK_INT(got.attempts, 0);
  CHECK(strcmp(got.last_error, "fill of 1e-300") == 0);
  CHECK_INT(meas(&f), 0);
  /* the schema refuses an excluded job that is not done */
  CHECK_INT(fixture_sql(&f, "UPDATE jobs SET excluded = 1"), SQLITE_CONSTRAINT);
  /* the old lease's retry is no longer an idempotent repeat */
  CHECK_INT(pascal_store_job_result(f.s, j.id, tok, HOLDER, 1e-300, 0, NOW + 3, NULL, NULL),
            PASCAL_STORE_STALE);
  char tok2[33];
  CHECK_INT(fixture_claim(&f, "b", tok2, 'b', NOW + 4, &got), PASCAL_STORE_OK);
  CHECK_INT(got.id, j.id);
  CHECK_INT(pascal_store_job_result(f.s, j.id, tok2, HOLDER, 4096, 0, NOW + 5, NULL, NULL),
            PASCAL_STORE_OK);
  CHECK_INT(fixture_sql_int(&f, "SELECT fill_bytes FROM measurements"), 4096);
  fixture_done(&f);
}

static void test_exclude_and_freeze(void)
{
  fixture f;
  fixture_open(&f);
  int64_t cal = fixture_calibration(&f, 2, 3);
  char tok[33];
  pascal_store_job a, b, got;
  pascal_error err;
  CHECK_INT(fixture_claim(&f, "a", tok, 'a', NOW, &a), PASCAL_STORE_OK);
  CHECK_INT(pascal_store_job_result(f.s, a.id, tok, HOLDER, 1e300, 0, NOW, NULL, NULL),
            PASCAL_STORE_OK);
  CHECK_INT(fixture_claim(&f, "b", tok, 'b', NOW, &b), PASCAL_STORE_OK);
  /* excluding a leased run cancels it: its holder's result is stale */
  CHECK_INT(pascal_store_job_exclude(f.s, b.id, "cancelled", NOW + 1, &got, &err), PASCAL_STORE_OK);
  CHECK_INT(got.state, PASCAL_STORE_DONE);
  CHECK_INT(got.excluded, 1);
  CHECK_INT(pascal_store_job_result(f.s, b.id, tok, HOLDER, 1, 0, NOW + 2, NULL, NULL),
            PASCAL_STORE_STALE);
  CHECK_INT(pascal_store_job_exclude(f.s, a.id, NULL, NOW + 3, &got, NULL), PASCAL_STORE_OK);
  CHECK(strcmp(got.last_error, "excluded by an operator") == 0);
  CHECK_INT(pascal_store_job_exclude(f.s, a.id, NULL, NOW + 3, &got, NULL), PASCAL_STORE_OK);
  CHECK_INT(meas(&f), 0);
  /* an excluded run can be brought back */
  CHECK_INT(pascal_store_job_requeue(f.s, b.id, NULL, NOW + 4, &got, NULL), PASCAL_STORE_OK);
  CHECK_INT(got.excluded, 0);
  CHECK_INT(got.state, PASCAL_STORE_QUEUED);
  CHECK_INT(pascal_store_job_exclude(f.s, b.id, NULL, NOW + 5, &got, NULL), PASCAL_STORE_OK);
  pascal_store_calibration c;
  CHECK_INT(pascal_store_calibration_get(f.s, cal, &c, NULL), PASCAL_STORE_OK);
  CHECK_INT(c.jobs[PASCAL_STORE_DONE], c.jobs_total); /* the freeze may go on */
  pascal_store_calibration_clear(&c);
  CHECK_INT(pascal_store_calibration_freeze(f.s, cal, "{}", "{}", FIXTURE_HASH, NOW + 6, NULL),
            PASCAL_STORE_OK);
  CHECK_INT(pascal_store_job_requeue(f.s, a.id, NULL, NOW + 7, NULL, &err), PASCAL_STORE_CONFLICT);
  CHECK(strstr(err.message, "frozen") != NULL);
  CHECK_INT(pascal_store_job_exclude(f.s, 999, NULL, NOW + 7, NULL, NULL), PASCAL_STORE_NOT_FOUND);
  fixture_done(&f);
}

int main(void)
{
  test_requeue_done();
  test_exclude_and_freeze();
  return check_summary();
}
