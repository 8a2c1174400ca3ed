/*
 * test_config_runs.c - GEMM configuration runs in the store (migration 10,
 * pascal_store_calibration_extend): a job and its measurement keep the
 * configuration a plan gave it; a configuration on a scan or held-out run
 * is refused naming the field; a version-9 file opens with every old run
 * of the calibration's own kernel; extending a frozen calibration copies
 * its measurements and queues the new runs, and only a frozen one is
 * extended. Verified failing: with the config columns left out of
 * STORE_RUN_COLUMNS the round trip reads 0 for tile_m; with the measurement
 * copy removed from _extend the count check sees 1 measurement, not 2.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "fixture.h"

static const pascal_gemm_config CFG = {64, 128, 32, 2, 3, 8};

static pascal_store_run gemm_run(int configured)
{
  pascal_store_run r;
  memset(&r, 0, sizeof r);
  r.Mg = 1024;
  r.Ng = 1024;
  r.Kg = 2048;
  if (configured)
    r.config = CFG;
  return r;
}

static void test_round_trip_and_refusals(void)
{
  fixture f;
  fixture_open(&f);
  pascal_store_device d = fixture_device();
  CHECK_INT(pascal_store_device_create(f.s, &d, 9, NULL, NULL), PASCAL_STORE_OK);
  pascal_store_run runs[2] = {gemm_run(0), gemm_run(1)};
  int64_t cal = 0;
  pascal_error err;
  CHECK_INT(pascal_store_calibration_create(f.s, d.name, PASCAL_STORE_GEMM, "{}", runs, 2, 0, 10,
                                            &cal, &err),
            PASCAL_STORE_OK);
  pascal_store_job *jobs = NULL;
  size_t n = 0;
  CHECK_INT(pascal_store_job_list(f.s, cal, -1, 0, 100, &jobs, &n, NULL), PASCAL_STORE_OK);
  CHECK_INT(n, 2);
  if (n == 2) {
    CHECK_INT(jobs[0].run.config.tile_m, 0);
    CHECK(memcmp(&jobs[1].run.config, &CFG, sizeof CFG) == 0);
  }
  free(jobs);
  /* refused: a configuration on a scan run, on a held-out run, out of range */
  pascal_store_run bad = fixture_scan_run(0);
  bad.config = CFG;
  CHECK_INT(pascal_store_calibration_create(f.s, d.name, PASCAL_STORE_SCAN, "{}", &bad, 1, 0, 10,
                                            &cal, &err),
            PASCAL_STORE_INVALID);
  CHECK(strcmp(err.field, "runs[0].tile_m") == 0);
  bad = gemm_run(1);
  bad.heldout = 1;
  CHECK_INT(pascal_store_calibration_create(f.s, d.name, PASCAL_STORE_GEMM, "{}", &bad, 1, 0, 10,
                                            &cal, &err),
            PASCAL_STORE_INVALID);
  CHECK(strcmp(err.field, "runs[0].heldout") == 0);
  bad = gemm_run(1);
  bad.config.stages = 0;
  CHECK_INT(pascal_store_calibration_create(f.s, d.name, PASCAL_STORE_GEMM, "{}", &bad, 1, 0, 10,
                                            &cal, &err),
            PASCAL_STORE_INVALID);
  CHECK(strcmp(err.field, "runs[0].stages") == 0);
  fixture_done(&f);
}

static void test_migration_from_9(void)
{
  fixture f;
  fixture_open(&f);
  int64_t cal = fixture_calibration(&f, 2, 0);
  CHECK_INT(fixture_sql_closed(&f, FIXTURE_DROP_MIGRATION_10 "PRAGMA user_version = 9"), SQLITE_OK);
  CHECK_INT(fixture_sql_int(&f, "SELECT count(*) FROM pragma_table_info('jobs')"
                                " WHERE name = 'tile_m'"),
            0);
  CHECK_INT(pascal_store_open(f.path, &f.s, NULL), PASCAL_STORE_OK);
  CHECK_INT(fixture_sql_int(&f, "PRAGMA user_version"), 10);
  CHECK_INT(fixture_sql_int(&f, "SELECT count(*) FROM jobs WHERE tile_m = 0 AND group_m = 0"), 2);
  pascal_store_job *jobs = NULL;
  size_t n = 0;
  CHECK_INT(pascal_store_job_list(f.s, cal, -1, 0, 100, &jobs, &n, NULL), PASCAL_STORE_OK);
  CHECK_INT(n, 2);
  free(jobs);
  fixture_done(&f);
}

static void test_extend(void)
{
  fixture f;
  fixture_open(&f);
  char tok[33];
  pascal_store_job j;
  int64_t frozen = fixture_frozen_calibration(&f, tok, &j, 10);
  pascal_store_run run = fixture_scan_run(1);
  int64_t id = 0;
  pascal_error err;
  CHECK_INT(pascal_store_calibration_extend(f.s, frozen, "{\"n\":1}", &run, 1, 0, 20, &id, &err),
            PASCAL_STORE_OK);
  CHECK(id > frozen);
  pascal_store_calibration c;
  memset(&c, 0, sizeof c);
  CHECK_INT(pascal_store_calibration_get(f.s, id, &c, NULL), PASCAL_STORE_OK);
  CHECK_INT(c.state, PASCAL_STORE_COLLECTING);
  CHECK(strcmp(c.device, "gb10") == 0);
  CHECK_INT(c.measurements, 1); /* the base's one measurement, copied */
  CHECK_INT(c.jobs_total, 1);
  pascal_store_calibration_clear(&c);
  pascal_store_measurement *ms = NULL;
  size_t n = 0;
  CHECK_INT(pascal_store_measurement_list(f.s, id, &ms, &n, NULL), PASCAL_STORE_OK);
  CHECK_INT(n, 1);
  if (n == 1) {
    CHECK_INT(ms[0].job, 0);
    CHECK(ms[0].fill_bytes == 9.0);
  }
  free(ms);
  /* the base is untouched */
  CHECK_INT(pascal_store_calibration_get(f.s, frozen, &c, NULL), PASCAL_STORE_OK);
  CHECK_INT(c.measurements, 1);
  pascal_store_calibration_clear(&c);
  /* only a frozen calibration is extended; an unknown one is not found */
  CHECK_INT(pascal_store_calibration_extend(f.s, id, "{}", &run, 1, 0, 30, &id, &err),
            PASCAL_STORE_CONFLICT);
  CHECK(strcmp(err.field, "base") == 0);
  CHECK_INT(pascal_store_calibration_extend(f.s, 999, "{}", &run, 1, 0, 30, &id, &err),
            PASCAL_STORE_NOT_FOUND);
  CHECK(strcmp(err.field, "base") == 0);
  fixture_done(&f);
}

int main(void)
{
  test_round_trip_and_refusals();
  test_migration_from_9();
  test_extend();
  return check_summary();
}
