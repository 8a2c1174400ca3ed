/*
 * test_atomic.c - all-or-nothing writes: an import that fails midway (a bad
 * measurement found while inserting, or SQLite itself refusing a row through
 * a trigger injected for the test) leaves no device, calibration or
 * measurement behind; the same for a calibration create that fails at its
 * k-th job. Then the same calls succeed once the cause is removed.
 */
#include <string.h>

#include "check.h"
#include "fixture.h"

#define HASH  "dddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddd"
#define NMEAS 10

static void fill(pascal_store_measurement *ms)
{
  for (unsigned i = 0; i < NMEAS; i++)
    ms[i] = (pascal_store_measurement){
        .run = fixture_scan_run(i), .fill_bytes = 1.0 + i, .kernel_ns = 1.0};
}

static void check_empty(const fixture *f)
{
  CHECK_INT(fixture_sql_int(f, "SELECT count(*) FROM devices"), 0);
  CHECK_INT(fixture_sql_int(f, "SELECT count(*) FROM calibrations"), 0);
  CHECK_INT(fixture_sql_int(f, "SELECT count(*) FROM measurements"), 0);
  CHECK_INT(fixture_sql_int(f, "SELECT count(*) FROM jobs"), 0);
}

static void test_import_bad_row(void)
{
  fixture f;
  fixture_open(&f);
  pascal_store_device d = fixture_device();
  pascal_store_measurement ms[NMEAS];
  fill(ms);
  ms[6].fill_bytes = -5; /* rows 0..5 are inserted before this one is seen */
  int64_t id = -1;
  pascal_error err;
  CHECK_INT(pascal_store_calibration_import(f.s, &d, PASCAL_STORE_SCAN, NULL, ms, NMEAS, "{}", "{}",
                                            HASH, 1, &id, NULL, &err),
            PASCAL_STORE_INVALID);
  CHECK(strcmp(err.field, "measurements[6].fill_bytes") == 0);
  CHECK_INT(id, -1);
  check_empty(&f);
  fill(ms);
  ms[2].run.path_tma = 1; /* run 2 is sync with d = 0: tma needs d >= 1 */
  CHECK_INT(pascal_store_calibration_import(f.s, &d, PASCAL_STORE_SCAN, NULL, ms, NMEAS, "{}", "{}",
                                            HASH, 1, &id, NULL, &err),
            PASCAL_STORE_INVALID);
  CHECK(strcmp(err.field, "measurements[2].d") == 0);
  check_empty(&f);
  fixture_done(&f);
}

static void test_import_sql_failure(void)
{
  fixture f;
  fixture_open(&f);
  /* A trigger that makes SQLite refuse the 8th measurement (N = 64 * 8). */
  CHECK_INT(fixture_sql(&f, "CREATE TRIGGER inject BEFORE INSERT ON measurements"
                            " WHEN NEW.N = 512 BEGIN SELECT RAISE(ABORT, 'injected'); END"),
            SQLITE_OK);
  pascal_store_device d = fixture_device();
  pascal_store_measurement ms[NMEAS];
  fill(ms);
  int64_t id = -1;
  pascal_error err;
  pascal_store_status st = pascal_store_calibration_import(
      f.s, &d, PASCAL_STORE_SCAN, NULL, ms, NMEAS, "{}", "{}", HASH, 1, &id, NULL, &err);
  CHECK_INT(st, PASCAL_STORE_CONFLICT);
  CHECK(strstr(err.message, "injected") != NULL);
  check_empty(&f);

  /* A create that fails at its 5th job (N = 64 * 5) leaves no calibration. */
  CHECK_INT(fixture_sql(&f, "CREATE TRIGGER inject_job BEFORE INSERT ON jobs"
                            " WHEN NEW.N = 320 BEGIN SELECT RAISE(ABORT, 'injected'); END"),
            SQLITE_OK);
  CHECK_INT(pascal_store_device_create(f.s, &d, 1, NULL, NULL), PASCAL_STORE_OK);
  pascal_store_run runs[NMEAS];
  for (unsigned i = 0; i < NMEAS; i++)
    runs[i] = fixture_scan_run(i);
  CHECK_INT(pascal_store_calibration_create(f.s, "gb10", PASCAL_STORE_SCAN, "{}", runs, NMEAS, 0, 1,
                                            &id, NULL),
            PASCAL_STORE_CONFLICT);
  CHECK_INT(fixture_sql_int(&f, "SELECT count(*) FROM calibrations"), 0);
  CHECK_INT(fixture_sql_int(&f, "SELECT count(*) FROM jobs"), 0);

  /* Without the injected failures both succeed on the same handle. */
  CHECK_INT(fixture_sql(&f, "DROP TRIGGER inject; DROP TRIGGER inject_job"), SQLITE_OK);
  CHECK_INT(pascal_store_calibration_create(f.s, "gb10", PASCAL_STORE_SCAN, "{}", runs, NMEAS, 0, 1,
                                            &id, NULL),
            PASCAL_STORE_OK);
  CHECK_INT(pascal_store_calibration_import(f.s, &d, PASCAL_STORE_SCAN, NULL, ms, NMEAS, "{}", "{}",
                                            HASH, 1, &id, NULL, NULL),
            PASCAL_STORE_OK);
  CHECK_INT(fixture_sql_int(&f, "SELECT count(*) FROM measurements"), NMEAS);
  CHECK_INT(fixture_sql_int(&f, "SELECT count(*) FROM jobs"), NMEAS);
  fixture_done(&f);
}

/* A result whose measurement insert fails leaves the job leased (not done). */
static void test_result_failure_keeps_lease(void)
{
  fixture f;
  char tok[33];
  pascal_store_job j;
  fixture_open_claimed(&f, 0, 10, tok, &j);
  CHECK_INT(fixture_sql(&f, "CREATE TRIGGER inject AFTER UPDATE OF state ON jobs"
                            " WHEN NEW.state = 'done' BEGIN SELECT RAISE(ABORT, 'x'); END"),
            SQLITE_OK);
  CHECK_INT(pascal_store_job_result(f.s, j.id, tok, HOLDER, 1.0, 1.0, 11, NULL, NULL),
            PASCAL_STORE_CONFLICT);
  CHECK_INT(fixture_sql_int(&f, "SELECT count(*) FROM measurements"), 0);
  CHECK_INT(fixture_sql_int(&f, "SELECT state = 'leased' FROM jobs"), 1);
  CHECK_INT(fixture_sql(&f, "DROP TRIGGER inject"), SQLITE_OK);
  CHECK_INT(pascal_store_job_result(f.s, j.id, tok, HOLDER, 1.0, 1.0, 12, NULL, NULL),
            PASCAL_STORE_OK);
  CHECK_INT(fixture_sql_int(&f, "SELECT count(*) FROM measurements"), 1);
  fixture_done(&f);
}

int main(void)
{
  test_import_bad_row();
  test_import_sql_failure();
  test_result_failure_keeps_lease();
  return check_summary();
}
