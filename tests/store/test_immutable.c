/*
 * test_immutable.c - a frozen calibration cannot be changed by anyone: direct
 * SQL (a second connection, as the sqlite3 shell would be) that updates or
 * deletes its row, its measurements or its jobs, or inserts a measurement
 * into it, is aborted by the schema's triggers; the same statements on a
 * collecting calibration succeed, so the triggers are what refuses them.
 */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "fixture.h"

static int64_t frozen_calibration(fixture *f)
{
  pascal_store_device d = fixture_device();
  pascal_store_measurement ms[2] = {
      {.run = fixture_scan_run(0), .fill_bytes = 1.0, .kernel_ns = 2.0},
      {.run = fixture_scan_run(1), .fill_bytes = 3.0, .kernel_ns = 4.0}};
  int64_t id = 0;
  CHECK_INT(pascal_store_calibration_import(f->s, &d, PASCAL_STORE_SCAN, "{}", ms, 2, "{\"b\":0}",
                                            "{}", FIXTURE_HASH, 10, &id, NULL, NULL),
            PASCAL_STORE_OK);
  return id;
}

/* Run `fmt` (with %lld = calibration id) on a raw connection. */
static int sql_on(const fixture *f, const char *fmt, int64_t id)
{
  char sql[512];
  snprintf(sql, sizeof sql, fmt, (long long)id, (long long)id);
  return fixture_sql(f, sql);
}

static const char *const writes[] = {
    "UPDATE calibrations SET bundle = '{\"evil\":1}' WHERE id = %lld",
    "UPDATE calibrations SET state = 'collecting' WHERE id = %lld",
    "DELETE FROM calibrations WHERE id = %lld",
    "UPDATE measurements SET fill_bytes = fill_bytes * 2 WHERE calibration = %lld",
    "DELETE FROM measurements WHERE calibration = %lld",
    "INSERT INTO measurements (calibration, o, path, d, m, N, W, Mg, Ng, Kg, repeat,"
    " fill_bytes) VALUES (%lld, 1, 'sync', 0, 0, 8, 1, 0, 0, 0, 0, 5.0)",
};

static void test_frozen_rows_refused(void)
{
  fixture f;
  fixture_open(&f);
  int64_t id = frozen_calibration(&f);
  for (size_t i = 0; i < sizeof writes / sizeof writes[0]; i++) {
    int rc = sql_on(&f, writes[i], id);
    CHECK_INT(rc, SQLITE_CONSTRAINT); /* RAISE(ABORT) reports a constraint */
    if (rc != SQLITE_CONSTRAINT)
      fprintf(stderr, "  statement %zu was not refused\n", i);
  }
  /* Moving a measurement into the frozen calibration is refused too. */
  int64_t open_cal = fixture_calibration(&f, 1, 0);
  char tok[33];
  pascal_store_job j;
  CHECK_INT(fixture_claim(&f, "a", tok, 'd', 20, &j), PASCAL_STORE_OK);
  CHECK_INT(pascal_store_job_result(f.s, j.id, tok, HOLDER, 9.0, 1.0, 21, NULL, NULL),
            PASCAL_STORE_OK);
  char sql[256];
  snprintf(sql, sizeof sql, "UPDATE measurements SET calibration = %lld WHERE calibration = %lld",
           (long long)id, (long long)open_cal);
  CHECK_INT(fixture_sql(&f, sql), SQLITE_CONSTRAINT);
  /* ... and out of it. */
  snprintf(sql, sizeof sql, "UPDATE measurements SET calibration = %lld WHERE calibration = %lld",
           (long long)open_cal, (long long)id);
  CHECK_INT(fixture_sql(&f, sql), SQLITE_CONSTRAINT);
  /* Everything is as frozen. */
  pascal_store_calibration c;
  CHECK_INT(pascal_store_calibration_get(f.s, id, &c, NULL), PASCAL_STORE_OK);
  CHECK_INT(c.state, PASCAL_STORE_FROZEN);
  CHECK_INT(c.measurements, 2);
  CHECK(c.bundle_json && strcmp(c.bundle_json, "{\"b\":0}") == 0);
  pascal_store_calibration_clear(&c);
  CHECK_INT(fixture_sql_int(&f, "SELECT sum(fill_bytes) FROM measurements WHERE job IS NULL"), 4);

  /* The same kinds of statements on the collecting calibration go through:
   * the refusal above came from the frozen state. */
  CHECK_INT(sql_on(&f, "UPDATE measurements SET fill_bytes = 8 WHERE calibration = %lld", open_cal),
            SQLITE_OK);
  CHECK_INT(sql_on(&f, "UPDATE calibrations SET plan = '{\"x\":1}' WHERE id = %lld", open_cal),
            SQLITE_OK);
  CHECK_INT(sql_on(&f, "DELETE FROM measurements WHERE calibration = %lld", open_cal), SQLITE_OK);
  fixture_done(&f);
}

static void test_frozen_jobs_refused(void)
{
  fixture f;
  fixture_open(&f);
  char tok[33];
  pascal_store_job j;
  int64_t cal = fixture_frozen_calibration(&f, tok, &j, 20);
  CHECK_INT(sql_on(&f, "UPDATE jobs SET state = 'queued' WHERE calibration = %lld", cal),
            SQLITE_CONSTRAINT);
  CHECK_INT(sql_on(&f, "DELETE FROM jobs WHERE calibration = %lld", cal), SQLITE_CONSTRAINT);
  CHECK_INT(sql_on(&f, "UPDATE measurements SET kernel_ns = 2 WHERE calibration = %lld", cal),
            SQLITE_CONSTRAINT);
  /* Through the API: an identical retry is still OK (no write), a
   * different one is a conflict; nothing changed. */
  CHECK_INT(pascal_store_job_result(f.s, j.id, tok, HOLDER, 9.0, 1.0, 23, NULL, NULL),
            PASCAL_STORE_OK);
  CHECK_INT(pascal_store_job_result(f.s, j.id, tok, HOLDER, 9.5, 1.0, 23, NULL, NULL),
            PASCAL_STORE_CONFLICT);
  CHECK_INT(fixture_sql_int(&f, "SELECT count(*) FROM measurements WHERE fill_bytes = 9.0"), 1);
  fixture_done(&f);
}

int main(void)
{
  test_frozen_rows_refused();
  test_frozen_jobs_refused();
  return check_summary();
}
