/*
 * test_calibrations.c - the calibration life cycle: create from runs (one job
 * per run, in order), get with progress, list by device, freeze refused while
 * jobs remain and accepted once all are done, frozen list with bundles, and
 * import of a frozen bundle (new device, idempotent re-import, device
 * conflict, GEMM runs), import under a given id (a read replica's), and the
 * held-out flag of runs (job -> measurement).
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "fixture.h"

#define HASH_A "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
#define HASH_B "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"

/* Claim and complete every queued job of gb10 with fill = 1000 * job id. */
static void finish_all(fixture *f, int64_t now)
{
  char tok[33];
  pascal_store_job j;
  int claimed = 1;
  for (char c = 'a'; claimed; c = c == 'f' ? 'a' : (char)(c + 1)) {
    fixture_token(tok, c);
    tok[0] = (char)('0' + (now++ % 10)); /* a fresh token per lease */
    CHECK_INT(
        pascal_store_job_claim(f->s, "gb10", "ag", tok, HOLDER, now, 60, &j, &claimed, NULL, NULL),
        PASCAL_STORE_OK);
    if (claimed)
      CHECK_INT(pascal_store_job_result(f->s, j.id, tok, HOLDER, 1000.0 * (double)j.id, 5.0, now,
                                        NULL, NULL),
                PASCAL_STORE_OK);
  }
}

static void test_create_get_freeze(void)
{
  fixture f;
  fixture_open(&f);
  int64_t cal = fixture_calibration(&f, 6, 0);
  pascal_store_calibration c;
  CHECK_INT(pascal_store_calibration_get(f.s, cal, &c, NULL), PASCAL_STORE_OK);
  CHECK_INT(c.id, cal);
  CHECK(strcmp(c.device, "gb10") == 0);
  CHECK_INT(c.state, PASCAL_STORE_COLLECTING);
  CHECK_INT(c.workload, PASCAL_STORE_SCAN);
  CHECK_INT(c.jobs_total, 6);
  CHECK_INT(c.jobs[PASCAL_STORE_QUEUED], 6);
  CHECK_INT(c.created, 1000);
  CHECK_INT(c.frozen_at, 0);
  CHECK(c.plan_json && strcmp(c.plan_json, "{\"format\":\"pascal-plan/1\"}") == 0);
  CHECK(c.bundle_json == NULL);
  pascal_store_calibration_clear(&c);
  /* Job ids follow the run order. */
  CHECK_INT(fixture_sql_int(&f, "SELECT count(*) FROM jobs j1 JOIN jobs j2 ON j2.id > j1.id"
                                " WHERE j2.N <= j1.N"),
            0);

  pascal_error err;
  CHECK_INT(pascal_store_calibration_freeze(f.s, cal, "{\"b\":1}", "{\"r\":1}", HASH_A, 2000, &err),
            PASCAL_STORE_CONFLICT);
  CHECK(strcmp(err.field, "jobs") == 0);
  finish_all(&f, 1100);
  CHECK_INT(pascal_store_calibration_freeze(f.s, cal, "{\"b\":1}", "{\"r\":1}", "xyz", 2000, &err),
            PASCAL_STORE_INVALID);
  CHECK(strcmp(err.field, "content_hash") == 0);
  CHECK_INT(pascal_store_calibration_freeze(f.s, cal, "{\"b\":1}", "{\"r\":1}", HASH_A, 2000, NULL),
            PASCAL_STORE_OK);
  CHECK_INT(pascal_store_calibration_get(f.s, cal, &c, NULL), PASCAL_STORE_OK);
  CHECK_INT(c.state, PASCAL_STORE_FROZEN);
  CHECK_INT(c.frozen_at, 2000);
  CHECK_INT(c.jobs[PASCAL_STORE_DONE], 6);
  CHECK_INT(c.measurements, 6);
  CHECK(strcmp(c.content_hash, HASH_A) == 0);
  CHECK(c.bundle_json && strcmp(c.bundle_json, "{\"b\":1}") == 0);
  CHECK(c.report_json && strcmp(c.report_json, "{\"r\":1}") == 0);
  pascal_store_calibration_clear(&c);
  /* Freezing twice: conflict (already frozen). */
  CHECK_INT(pascal_store_calibration_freeze(f.s, cal, "{}", "{}", HASH_B, 2001, &err),
            PASCAL_STORE_CONFLICT);
  CHECK(strcmp(err.field, "state") == 0);
  CHECK_INT(pascal_store_calibration_freeze(f.s, 777, "{}", "{}", HASH_B, 2001, NULL),
            PASCAL_STORE_NOT_FOUND);
  CHECK_INT(pascal_store_calibration_get(f.s, 777, &c, NULL), PASCAL_STORE_NOT_FOUND);

  pascal_store_measurement *ms = NULL;
  size_t n = 0;
  CHECK_INT(pascal_store_measurement_list(f.s, cal, &ms, &n, NULL), PASCAL_STORE_OK);
  CHECK_INT(n, 6);
  for (size_t i = 0; i < n; i++) {
    pascal_store_run r = fixture_scan_run((unsigned)i);
    CHECK(memcmp(&ms[i].run, &r, sizeof r) == 0);
    CHECK(ms[i].fill_bytes == 1000.0 * (double)ms[i].job);
  }
  free(ms);
  CHECK_INT(pascal_store_measurement_list(f.s, 777, &ms, &n, NULL), PASCAL_STORE_NOT_FOUND);

  pascal_store_calibration *frozen = NULL;
  CHECK_INT(pascal_store_frozen_list(f.s, &frozen, &n, NULL), PASCAL_STORE_OK);
  CHECK_INT(n, 1);
  if (n == 1) {
    CHECK(frozen[0].plan_json == NULL);
    CHECK(frozen[0].bundle_json && strcmp(frozen[0].bundle_json, "{\"b\":1}") == 0);
  }
  pascal_store_calibration_array_free(frozen, n);
  fixture_done(&f);
}

static void test_create_refusals(void)
{
  fixture f;
  fixture_open(&f);
  pascal_store_run runs[2] = {fixture_scan_run(0), fixture_scan_run(1)};
  int64_t id = -7;
  pascal_error err;
  CHECK_INT(pascal_store_calibration_create(f.s, "gb10", PASCAL_STORE_SCAN, "{}", runs, 2, 0, 1,
                                            &id, &err),
            PASCAL_STORE_NOT_FOUND);
  CHECK(strcmp(err.field, "device") == 0);
  pascal_store_device d = fixture_device();
  CHECK_INT(pascal_store_device_create(f.s, &d, 1, NULL, NULL), PASCAL_STORE_OK);
  CHECK_INT(pascal_store_calibration_create(f.s, "gb10", PASCAL_STORE_SCAN, "{}", runs, 0, 0, 1,
                                            &id, &err),
            PASCAL_STORE_INVALID);
  CHECK_INT(
      pascal_store_calibration_create(f.s, "gb10", PASCAL_STORE_SCAN, "", runs, 2, 0, 1, &id, &err),
      PASCAL_STORE_INVALID);
  CHECK(strcmp(err.field, "plan") == 0);
  CHECK_INT(pascal_store_calibration_create(f.s, "gb10", PASCAL_STORE_GEMM, "{}", runs, 2, 0, 1,
                                            &id, &err),
            PASCAL_STORE_INVALID);
  CHECK(strcmp(err.field, "runs[0].Mg") == 0);
  runs[1].N = (uint64_t)1 << 63; /* does not fit SQLite's int64 */
  CHECK_INT(pascal_store_calibration_create(f.s, "gb10", PASCAL_STORE_SCAN, "{}", runs, 2, 0, 1,
                                            &id, &err),
            PASCAL_STORE_INVALID);
  CHECK(strcmp(err.field, "runs[1].N") == 0);
  runs[1] = fixture_scan_run(1);
  runs[1].d = 0; /* tma needs d >= 1 */
  CHECK_INT(pascal_store_calibration_create(f.s, "gb10", PASCAL_STORE_SCAN, "{}", runs, 2, 0, 1,
                                            &id, &err),
            PASCAL_STORE_INVALID);
  CHECK(strcmp(err.field, "runs[1].d") == 0);
  runs[1] = fixture_scan_run(1);
  runs[0].d = 3; /* sync forbids d */
  CHECK_INT(pascal_store_calibration_create(f.s, "gb10", PASCAL_STORE_SCAN, "{}", runs, 2, 0, 1,
                                            &id, &err),
            PASCAL_STORE_INVALID);
  CHECK_INT(id, -7);
  /* Nothing of the refused calibrations was written (runs[1] was checked
   * after the calibration row and runs[0]'s job had been inserted). */
  CHECK_INT(fixture_sql_int(&f, "SELECT count(*) FROM calibrations"), 0);
  CHECK_INT(fixture_sql_int(&f, "SELECT count(*) FROM jobs"), 0);
  fixture_done(&f);
}

/* Runs flagged held-out keep the flag through their job into their
 * measurement; a flag other than 0 or 1 is refused naming it. */
static void test_heldout_flag(void)
{
  fixture f;
  fixture_open(&f);
  pascal_store_device d = fixture_device();
  CHECK_INT(pascal_store_device_create(f.s, &d, 1, NULL, NULL), PASCAL_STORE_OK);
  pascal_store_run runs[3] = {fixture_scan_run(0), fixture_scan_run(1), fixture_scan_run(2)};
  runs[2].heldout = 1;
  int64_t cal = 0;
  pascal_error err;
  CHECK_INT(pascal_store_calibration_create(f.s, "gb10", PASCAL_STORE_SCAN, "{}", runs, 3, 0, 1,
                                            &cal, NULL),
            PASCAL_STORE_OK);
  CHECK_INT(fixture_sql_int(&f, "SELECT count(*) FROM jobs WHERE heldout = 1"), 1);
  finish_all(&f, 1100);
  pascal_store_measurement *ms = NULL;
  size_t n = 0;
  CHECK_INT(pascal_store_measurement_list(f.s, cal, &ms, &n, NULL), PASCAL_STORE_OK);
  CHECK_INT(n, 3);
  for (size_t i = 0; i < n; i++)
    CHECK(memcmp(&ms[i].run, &runs[i], sizeof runs[i]) == 0); /* flag included */
  free(ms);
  runs[0].heldout = 2;
  CHECK_INT(pascal_store_calibration_create(f.s, "gb10", PASCAL_STORE_SCAN, "{}", runs, 3, 0, 1,
                                            &cal, &err),
            PASCAL_STORE_INVALID);
  CHECK(strcmp(err.field, "runs[0].heldout") == 0);
  CHECK_INT(fixture_sql(&f, "UPDATE jobs SET heldout = 3 WHERE id = 1"), SQLITE_CONSTRAINT);
  fixture_done(&f);
}

static void test_list_by_device(void)
{
  fixture f;
  fixture_open(&f);
  int64_t a = fixture_calibration(&f, 2, 0);
  pascal_store_device d = fixture_device();
  strcpy(d.name, "h100");
  CHECK_INT(pascal_store_device_create(f.s, &d, 1, NULL, NULL), PASCAL_STORE_OK);
  pascal_store_run g = {.Mg = 4096, .Ng = 4096, .Kg = 1024, .repeat = 1};
  int64_t b = 0;
  CHECK_INT(pascal_store_calibration_create(f.s, "h100", PASCAL_STORE_GEMM, "{\"g\":1}", &g, 1, 0,
                                            1, &b, NULL),
            PASCAL_STORE_OK);
  pascal_store_calibration *list = NULL;
  size_t n = 0;
  CHECK_INT(pascal_store_calibration_list(f.s, NULL, &list, &n, NULL), PASCAL_STORE_OK);
  CHECK_INT(n, 2);
  if (n == 2) {
    CHECK_INT(list[0].id, a);
    CHECK_INT(list[1].id, b);
    CHECK_INT(list[1].workload, PASCAL_STORE_GEMM);
    CHECK_INT(list[1].jobs_total, 1);
    CHECK(list[0].plan_json == NULL);
  }
  pascal_store_calibration_array_free(list, n);
  CHECK_INT(pascal_store_calibration_list(f.s, "h100", &list, &n, NULL), PASCAL_STORE_OK);
  CHECK_INT(n, 1);
  if (n == 1)
    CHECK_INT(list[0].id, b);
  pascal_store_calibration_array_free(list, n);
  CHECK_INT(pascal_store_calibration_list(f.s, "none", &list, &n, NULL), PASCAL_STORE_OK);
  CHECK_INT(n, 0);
  pascal_store_calibration_array_free(list, n);
  /* The GEMM job round-trips its shape. */
  pascal_store_job j;
  int claimed = 0;
  char tok[33];
  CHECK_INT(pascal_store_job_claim(f.s, "h100", "ag", fixture_token(tok, 'c'), HOLDER, 5, 60, &j,
                                   &claimed, NULL, NULL),
            PASCAL_STORE_OK);
  CHECK_INT(claimed, 1);
  CHECK_INT(j.workload, PASCAL_STORE_GEMM);
  CHECK(memcmp(&j.run, &g, sizeof g) == 0);
  fixture_done(&f);
}

static void test_import(void)
{
  fixture f;
  fixture_open(&f);
  pascal_store_device d = fixture_device();
  pascal_store_measurement ms[3];
  for (unsigned i = 0; i < 3; i++) {
    ms[i] = (pascal_store_measurement){.run = fixture_scan_run(i),
                                       .fill_bytes = 10.0 + i,
                                       .kernel_ns = i == 2 ? 0 : 100.0 * i + 1};
  }
  int64_t id = 0, again = 0;
  int created = -1;
  CHECK_INT(pascal_store_calibration_import(f.s, &d, PASCAL_STORE_SCAN, NULL, ms, 3, "{\"b\":2}",
                                            "{\"r\":2}", HASH_B, 3000, &id, &created, NULL),
            PASCAL_STORE_OK);
  CHECK_INT(created, 1);
  pascal_store_calibration c;
  CHECK_INT(pascal_store_calibration_get(f.s, id, &c, NULL), PASCAL_STORE_OK);
  CHECK_INT(c.state, PASCAL_STORE_FROZEN);
  CHECK_INT(c.measurements, 3);
  CHECK_INT(c.jobs_total, 0);
  CHECK(c.plan_json == NULL);
  pascal_store_calibration_clear(&c);
  pascal_store_device got;
  CHECK_INT(pascal_store_device_get(f.s, "gb10", &got, NULL), PASCAL_STORE_OK);
  /* Re-import of the same bundle: same id, nothing new. */
  CHECK_INT(pascal_store_calibration_import(f.s, &d, PASCAL_STORE_SCAN, NULL, ms, 3, "{\"b\":2}",
                                            "{\"r\":2}", HASH_B, 3001, &again, &created, NULL),
            PASCAL_STORE_OK);
  CHECK_INT(again, id);
  CHECK_INT(created, 0);
  CHECK_INT(fixture_sql_int(&f, "SELECT count(*) FROM measurements"), 3);
  /* A bundle for a same-named device with other constants: conflict. */
  d.capacity_blocks = 999;
  pascal_error err;
  CHECK_INT(pascal_store_calibration_import(f.s, &d, PASCAL_STORE_SCAN, NULL, ms, 3, "{}", "{}",
                                            HASH_A, 3002, &again, &created, &err),
            PASCAL_STORE_CONFLICT);
  CHECK(strcmp(err.field, "capacity_blocks") == 0);
  pascal_store_measurement *back = NULL;
  size_t n = 0;
  CHECK_INT(pascal_store_measurement_list(f.s, id, &back, &n, NULL), PASCAL_STORE_OK);
  CHECK_INT(n, 3);
  for (size_t i = 0; i < n && i < 3; i++) {
    CHECK(memcmp(&back[i].run, &ms[i].run, sizeof ms[i].run) == 0);
    CHECK(back[i].fill_bytes == ms[i].fill_bytes);
    CHECK(back[i].kernel_ns == ms[i].kernel_ns);
    CHECK_INT(back[i].job, 0);
  }
  free(back);
  fixture_done(&f);
}

/* import_as: the calibration takes the asked id (gaps allowed, later ones
 * continue after it); an id already taken is a conflict that writes nothing. */
static void test_import_as(void)
{
  fixture f;
  fixture_open(&f);
  pascal_store_device d = fixture_device();
  pascal_store_measurement m = {.run = fixture_scan_run(0), .fill_bytes = 10.0};
  int64_t id = 0;
  int created = -1;
  CHECK_INT(pascal_store_calibration_import_as(f.s, 7, &d, PASCAL_STORE_SCAN, NULL, &m, 1, "{}",
                                               "{}", HASH_A, 1, &id, &created, NULL),
            PASCAL_STORE_OK);
  CHECK_INT(id, 7);
  CHECK_INT(created, 1);
  pascal_error err;
  CHECK_INT(pascal_store_calibration_import_as(f.s, 7, &d, PASCAL_STORE_SCAN, NULL, &m, 1, "{}",
                                               "{}", HASH_B, 2, &id, &created, &err),
            PASCAL_STORE_CONFLICT);
  CHECK_INT(fixture_sql_int(&f, "SELECT count(*) FROM calibrations"), 1);
  CHECK_INT(fixture_sql_int(&f, "SELECT count(*) FROM measurements"), 1);
  CHECK_INT(pascal_store_calibration_import(f.s, &d, PASCAL_STORE_SCAN, NULL, &m, 1, "{}", "{}",
                                            HASH_B, 3, &id, &created, NULL),
            PASCAL_STORE_OK);
  CHECK_INT(id, 8);
  fixture_done(&f);
}

int main(void)
{
  test_create_get_freeze();
  test_create_refusals();
  test_heldout_flag();
  test_list_by_device();
  test_import();
  test_import_as();
  return check_summary();
}
