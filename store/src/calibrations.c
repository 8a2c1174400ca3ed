/*
 * calibrations.c - the calibration life cycle (docs/design.md §5): create from an
 * expanded plan (calibration + all its jobs at once), read with progress,
 * list, freeze once every job is done, and import a frozen bundle with its
 * measurements. Each write is one transaction; the schema's triggers make a
 * frozen calibration read-only from then on.
 */
#include "store_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Column positions of CAL_COLUMNS (db.c) followed by plan, bundle, report. */
enum {
  C_ID,
  C_DEVICE,
  C_WORKLOAD,
  C_STATE,
  C_CREATED,
  C_FROZEN_AT,
  C_HASH,
  C_JOBS,
  C_MEASUREMENTS = C_JOBS + PASCAL_STORE_JOB_STATES,
  C_PLAN,
  C_BUNDLE,
  C_REPORT
};

void pascal_store_calibration_clear(pascal_store_calibration *c)
{
  if (!c)
    return;
  free(c->plan_json);
  free(c->bundle_json);
  free(c->report_json);
  memset(c, 0, sizeof *c);
}

void pascal_store_calibration_array_free(pascal_store_calibration *a, size_t count)
{
  for (size_t i = 0; a && i < count; i++)
    pascal_store_calibration_clear(&a[i]);
  free(a);
}

/* A store_row_reader: one row of CAL_COLUMNS into a pascal_store_calibration. */
static pascal_store_status read_calibration(sqlite3_stmt *st, void *elem, pascal_error *err)
{
  pascal_store_calibration *c = elem;
  memset(c, 0, sizeof *c);
  c->id = sqlite3_column_int64(st, C_ID);
  store_column_copy(st, C_DEVICE, c->device, sizeof c->device);
  c->workload = (pascal_store_workload)store_workload_parse(
      (const char *)sqlite3_column_text(st, C_WORKLOAD));
  c->state =
      (pascal_store_cal_state)store_cal_state_parse((const char *)sqlite3_column_text(st, C_STATE));
  c->created = sqlite3_column_int64(st, C_CREATED);
  c->frozen_at = sqlite3_column_int64(st, C_FROZEN_AT);
  store_column_copy(st, C_HASH, c->content_hash, sizeof c->content_hash);
  for (int i = 0; i < PASCAL_STORE_JOB_STATES; i++) {
    c->jobs[i] = sqlite3_column_int64(st, C_JOBS + i);
    c->jobs_total += c->jobs[i];
  }
  c->measurements = sqlite3_column_int64(st, C_MEASUREMENTS);
  int ok = 1;
  c->plan_json = store_column_dup(st, C_PLAN, &ok);
  c->bundle_json = store_column_dup(st, C_BUNDLE, &ok);
  c->report_json = store_column_dup(st, C_REPORT, &ok);
  if (!ok) {
    pascal_store_calibration_clear(c);
    return store_fail(err, PASCAL_STORE_NOMEM, "", "out of memory");
  }
  return PASCAL_STORE_OK;
}

static void calibrations_release(void *array, size_t n)
{
  pascal_store_calibration_array_free(array, n);
}

pascal_store_status pascal_store_calibration_list(pascal_store *s, const char *device,
                                                  pascal_store_calibration **out, size_t *count,
                                                  pascal_error *err)
{
  if (device) {
    pascal_store_status status = store_check_device_name(device, "device", err);
    if (status)
      return status;
  }
  store_lock(s);
  sqlite3_stmt *st = store_stmt_get(s, device ? ST_CAL_LIST_DEVICE : ST_CAL_LIST);
  pascal_store_status status = PASCAL_STORE_OK;
  if (device && sqlite3_bind_text(st, 1, device, -1, SQLITE_STATIC) != SQLITE_OK)
    status = store_sql_error(s->db, sqlite3_errcode(s->db), "calibrations", err);
  if (status == PASCAL_STORE_OK)
    status = store_collect(s, st, sizeof **out, read_calibration, calibrations_release,
                           (void **)out, count, err);
  store_unlock(s);
  return status;
}

pascal_store_status pascal_store_frozen_list(pascal_store *s, pascal_store_calibration **out,
                                             size_t *count, pascal_error *err)
{
  return store_list(s, ST_CAL_FROZEN_LIST, sizeof **out, read_calibration, calibrations_release,
                    (void **)out, count, err);
}

/* Read calibration `id` inside the caller's lock; NOT_FOUND if absent. */
static pascal_store_status get_calibration(pascal_store *s, int64_t id,
                                           pascal_store_calibration *out, pascal_error *err)
{
  return store_read_by_id(s, ST_CAL_GET, id, read_calibration, out, "calibration", err);
}

pascal_store_status pascal_store_calibration_get(pascal_store *s, int64_t id,
                                                 pascal_store_calibration *out, pascal_error *err)
{
  pascal_store_calibration c;
  pascal_store_status status =
      store_get_by_id(s, ST_CAL_GET, id, read_calibration, &c, "calibration", err);
  if (status == PASCAL_STORE_OK)
    *out = c;
  return status;
}

/* Insert the calibration row (state collecting) and return its id. */
/* *id on entry: 0 for the next free id, or the id the row must take. */
static pascal_store_status insert_calibration(pascal_store *s, const char *device,
                                              pascal_store_workload workload, const char *plan_json,
                                              int64_t now, int64_t *id, pascal_error *err)
{
  sqlite3_stmt *st = store_stmt_get(s, ST_CAL_INSERT);
  if ((*id > 0 ? sqlite3_bind_int64(st, 5, *id) : sqlite3_bind_null(st, 5)) ||
      sqlite3_bind_text(st, 1, device, -1, SQLITE_STATIC) ||
      sqlite3_bind_text(st, 2, pascal_store_workload_name(workload), -1, SQLITE_STATIC) ||
      (plan_json ? sqlite3_bind_text(st, 3, plan_json, -1, SQLITE_STATIC)
                 : sqlite3_bind_null(st, 3)) ||
      sqlite3_bind_int64(st, 4, now))
    return store_sql_error(s->db, sqlite3_errcode(s->db), "calibration", err);
  pascal_store_status status = store_step_done(s, st, "calibration insert", err);
  if (status == PASCAL_STORE_OK)
    *id = sqlite3_last_insert_rowid(s->db);
  return status;
}

static pascal_store_status insert_jobs(pascal_store *s, int64_t cal, pascal_store_workload workload,
                                       const pascal_store_run *runs, size_t n,
                                       uint32_t max_attempts, pascal_error *err)
{
  for (size_t i = 0; i < n; i++) {
    char field[PASCAL_ERROR_FIELD_MAX];
    snprintf(field, sizeof field, "runs[%zu]", i);
    pascal_store_status status = store_check_run(&runs[i], workload, field, err);
    if (status)
      return status;
    sqlite3_stmt *st = store_stmt_get(s, ST_JOB_INSERT);
    if (sqlite3_bind_int64(st, 1, cal) || store_bind_run(st, 2, &runs[i], workload) ||
        sqlite3_bind_int64(st, 2 + STORE_RUN_NCOLS, max_attempts))
      return store_sql_error(s->db, sqlite3_errcode(s->db), field, err);
    status = store_step_done(s, st, "job insert", err);
    if (status)
      return status;
  }
  return PASCAL_STORE_OK;
}

/* Create a collecting calibration with one queued job per run: on `device`
 * for `workload` (base 0), or on the frozen calibration `base`'s device and
 * workload, starting with copies of its measurement rows. */
static pascal_store_status create(pascal_store *s, const char *device,
                                  pascal_store_workload workload, int64_t base,
                                  const char *plan_json, const pascal_store_run *runs, size_t nruns,
                                  uint32_t max_attempts, int64_t now, int64_t *id,
                                  pascal_error *err)
{
  pascal_store_status status = PASCAL_STORE_OK;
  if (!base) {
    status = store_check_device_name(device, "device", err);
    if (!status)
      status = store_check_workload(workload, err);
  }
  if (!status)
    status = store_check_text(plan_json, "plan", err);
  if (!status)
    status = store_check_time(now, err);
  if (!status && (!runs || nruns == 0))
    status = store_fail(err, PASCAL_STORE_INVALID, "runs", "the plan has no runs");
  if (status)
    return status;
  if (max_attempts == 0)
    max_attempts = PASCAL_STORE_DEFAULT_MAX_ATTEMPTS;
  status = store_begin(s, err);
  if (status)
    return status;
  pascal_store_calibration b;
  memset(&b, 0, sizeof b);
  int64_t cal = 0;
  if (!base) {
    status = store_device_require(s, device, err);
  } else {
    status = get_calibration(s, base, &b, err);
    if (status == PASCAL_STORE_NOT_FOUND)
      status =
          store_fail(err, PASCAL_STORE_NOT_FOUND, "base", "no calibration %lld", (long long)base);
    else if (!status && b.state != PASCAL_STORE_FROZEN)
      status = store_fail(err, PASCAL_STORE_CONFLICT, "base",
                          "calibration %lld is %s: only a frozen one is extended", (long long)base,
                          pascal_store_cal_state_name(b.state));
    device = b.device;
    workload = b.workload;
  }
  if (!status)
    status = insert_calibration(s, device, workload, plan_json, now, &cal, err);
  if (!status)
    status = insert_jobs(s, cal, workload, runs, nruns, max_attempts, err);
  if (!status && base) {
    sqlite3_stmt *st = store_stmt_get(s, ST_MEAS_COPY);
    if (sqlite3_bind_int64(st, 1, base) || sqlite3_bind_int64(st, 2, cal))
      status = store_sql_error(s->db, sqlite3_errcode(s->db), "base", err);
    else
      status = store_step_done(s, st, "measurement copy", err);
  }
  status = store_end(s, status, err);
  pascal_store_calibration_clear(&b);
  if (status == PASCAL_STORE_OK)
    *id = cal;
  return status;
}

pascal_store_status
pascal_store_calibration_create(pascal_store *s, const char *device, pascal_store_workload workload,
                                const char *plan_json, const pascal_store_run *runs, size_t nruns,
                                uint32_t max_attempts, int64_t now, int64_t *id, pascal_error *err)
{
  return create(s, device, workload, 0, plan_json, runs, nruns, max_attempts, now, id, err);
}

pascal_store_status pascal_store_calibration_extend(pascal_store *s, int64_t base,
                                                    const char *plan_json,
                                                    const pascal_store_run *runs, size_t nruns,
                                                    uint32_t max_attempts, int64_t now, int64_t *id,
                                                    pascal_error *err)
{
  if (base < 1)
    return store_fail(err, PASCAL_STORE_INVALID, "base", "base must be a calibration id >= 1");
  return create(s, NULL, PASCAL_STORE_GEMM, base, plan_json, runs, nruns, max_attempts, now, id,
                err);
}

static pascal_store_status check_frozen_texts(const char *bundle_json, const char *report_json,
                                              const char *content_hash, pascal_error *err)
{
  pascal_store_status status = store_check_text(bundle_json, "bundle", err);
  if (!status)
    status = store_check_text(report_json, "report", err);
  if (!status)
    status = store_check_hex(content_hash, 64, 64, "content_hash", err);
  return status;
}

/* Mark a collecting calibration frozen (inside the caller's transaction). */
static pascal_store_status mark_frozen(pascal_store *s, int64_t id, const char *bundle_json,
                                       const char *report_json, const char *content_hash,
                                       int64_t now, pascal_error *err)
{
  sqlite3_stmt *st = store_stmt_get(s, ST_CAL_FREEZE);
  if (sqlite3_bind_int64(st, 1, id) || sqlite3_bind_text(st, 2, bundle_json, -1, SQLITE_STATIC) ||
      sqlite3_bind_text(st, 3, report_json, -1, SQLITE_STATIC) ||
      sqlite3_bind_text(st, 4, content_hash, -1, SQLITE_STATIC) || sqlite3_bind_int64(st, 5, now))
    return store_sql_error(s->db, sqlite3_errcode(s->db), "freeze", err);
  return store_step_done(s, st, "freeze", err);
}

/* Count the jobs of `id` that are not done. */
static pascal_store_status jobs_not_done(pascal_store *s, int64_t id, int64_t *left,
                                         pascal_error *err)
{
  sqlite3_stmt *st = NULL;
  int row = 0;
  pascal_store_status status =
      store_row_by_id(s, ST_CAL_JOBS_NOT_DONE, id, &st, &row, "freeze", err);
  if (status == PASCAL_STORE_OK)
    *left = row ? sqlite3_column_int64(st, 0) : 0;
  sqlite3_reset(st);
  return status;
}

pascal_store_status pascal_store_calibration_freeze(pascal_store *s, int64_t id,
                                                    const char *bundle_json,
                                                    const char *report_json,
                                                    const char *content_hash, int64_t now,
                                                    pascal_error *err)
{
  pascal_store_status status = check_frozen_texts(bundle_json, report_json, content_hash, err);
  if (!status)
    status = store_check_time(now, err);
  pascal_store_calibration c;
  if (!status)
    status = store_begin_by_id(s, ST_CAL_GET, id, read_calibration, &c, "calibration", err);
  if (status)
    return status;
  int64_t left = 0;
  if (c.state != PASCAL_STORE_COLLECTING)
    status =
        store_fail(err, PASCAL_STORE_CONFLICT, "state", "calibration %lld is %s, not collecting",
                   (long long)id, pascal_store_cal_state_name(c.state));
  pascal_store_calibration_clear(&c);
  if (!status)
    status = jobs_not_done(s, id, &left, err);
  if (!status && left > 0)
    status = store_fail(err, PASCAL_STORE_CONFLICT, "jobs",
                        "calibration %lld has %lld jobs not done", (long long)id, (long long)left);
  if (!status)
    status = mark_frozen(s, id, bundle_json, report_json, content_hash, now, err);
  return store_end(s, status, err);
}

pascal_store_status store_measurement_insert(pascal_store *s, int64_t cal,
                                             pascal_store_workload workload,
                                             const pascal_store_measurement *m, int64_t job,
                                             pascal_error *err)
{
  sqlite3_stmt *st = store_stmt_get(s, ST_MEAS_INSERT);
  if (sqlite3_bind_int64(st, 1, cal) ||
      (job ? sqlite3_bind_int64(st, 2, job) : sqlite3_bind_null(st, 2)) ||
      store_bind_run(st, 3, &m->run, workload) ||
      sqlite3_bind_double(st, 3 + STORE_RUN_NCOLS, m->fill_bytes) ||
      (m->kernel_ns > 0 ? sqlite3_bind_double(st, 4 + STORE_RUN_NCOLS, m->kernel_ns)
                        : sqlite3_bind_null(st, 4 + STORE_RUN_NCOLS)))
    return store_sql_error(s->db, sqlite3_errcode(s->db), "measurement", err);
  return store_step_done(s, st, "measurement insert", err);
}

/* Find a frozen calibration of `device` with this content hash. */
static pascal_store_status find_by_hash(pascal_store *s, const char *device, const char *hash,
                                        int64_t *id, int *found, pascal_error *err)
{
  sqlite3_stmt *st = store_stmt_get(s, ST_CAL_FIND_HASH);
  if (sqlite3_bind_text(st, 1, device, -1, SQLITE_STATIC) ||
      sqlite3_bind_text(st, 2, hash, -1, SQLITE_STATIC))
    return store_sql_error(s->db, sqlite3_errcode(s->db), "import", err);
  pascal_store_status status = store_step_row(s, st, found, "import", err);
  if (status == PASCAL_STORE_OK && *found)
    *id = sqlite3_column_int64(st, 0);
  sqlite3_reset(st);
  return status;
}

/* Validate and insert each measurement in turn: a bad one at index i aborts
 * the caller's transaction with the rows before it already written, which
 * the rollback then removes. */
static pascal_store_status import_measurements(pascal_store *s, int64_t cal,
                                               pascal_store_workload workload,
                                               const pascal_store_measurement *ms, size_t n,
                                               pascal_error *err)
{
  for (size_t i = 0; i < n; i++) {
    char field[PASCAL_ERROR_FIELD_MAX];
    snprintf(field, sizeof field, "measurements[%zu]", i);
    pascal_store_status status = store_check_run(&ms[i].run, workload, field, err);
    if (!status)
      status = store_check_result(ms[i].fill_bytes, ms[i].kernel_ns, field, err);
    if (!status)
      status = store_measurement_insert(s, cal, workload, &ms[i], 0, err);
    if (status)
      return status;
  }
  return PASCAL_STORE_OK;
}

pascal_store_status pascal_store_calibration_import(
    pascal_store *s, const pascal_store_device *device, pascal_store_workload workload,
    const char *plan_json, const pascal_store_measurement *ms, size_t n, const char *bundle_json,
    const char *report_json, const char *content_hash, int64_t now, int64_t *id, int *created,
    pascal_error *err)
{
  return pascal_store_calibration_import_as(s, 0, device, workload, plan_json, ms, n, bundle_json,
                                            report_json, content_hash, now, id, created, err);
}

pascal_store_status pascal_store_calibration_import_as(
    pascal_store *s, int64_t as_id, const pascal_store_device *device,
    pascal_store_workload workload, const char *plan_json, const pascal_store_measurement *ms,
    size_t n, const char *bundle_json, const char *report_json, const char *content_hash,
    int64_t now, int64_t *id, int *created, pascal_error *err)
{
  pascal_store_status status = store_check_device(device, err);
  if (!status)
    status = store_check_workload(workload, err);
  if (!status)
    status = check_frozen_texts(bundle_json, report_json, content_hash, err);
  if (!status)
    status = store_check_time(now, err);
  if (!status && (!ms || n == 0))
    status = store_fail(err, PASCAL_STORE_INVALID, "measurements", "a bundle needs measurements");
  if (!status)
    status = store_begin(s, err);
  if (status)
    return status;
  int64_t cal = 0;
  int device_made = 0, found = 0;
  status = store_device_ensure(s, device, now, &device_made, err);
  if (!status)
    status = find_by_hash(s, device->name, content_hash, &cal, &found, err);
  if (!status && !found) {
    cal = as_id > 0 ? as_id : 0;
    status = insert_calibration(s, device->name, workload, plan_json, now, &cal, err);
    if (!status)
      status = import_measurements(s, cal, workload, ms, n, err);
    if (!status)
      status = mark_frozen(s, cal, bundle_json, report_json, content_hash, now, err);
  }
  status = store_end(s, status, err);
  if (status == PASCAL_STORE_OK) {
    *id = cal;
    if (created)
      *created = !found;
  }
  return status;
}

static pascal_store_status measurement_reader(sqlite3_stmt *st, void *elem, pascal_error *err)
{
  pascal_store_measurement *m = elem;
  store_read_run(st, 0, &m->run);
  m->fill_bytes = sqlite3_column_double(st, STORE_RUN_NCOLS);
  m->kernel_ns = sqlite3_column_double(st, STORE_RUN_NCOLS + 1);
  m->job = sqlite3_column_int64(st, STORE_RUN_NCOLS + 2);
  return PASCAL_STORE_OK;
}

pascal_store_status pascal_store_measurement_list(pascal_store *s, int64_t calibration,
                                                  pascal_store_measurement **out, size_t *count,
                                                  pascal_error *err)
{
  pascal_store_calibration c;
  memset(&c, 0, sizeof c);
  store_lock(s);
  pascal_store_status status = get_calibration(s, calibration, &c, err);
  pascal_store_calibration_clear(&c);
  sqlite3_stmt *st = store_stmt_get(s, ST_MEAS_LIST);
  if (!status && sqlite3_bind_int64(st, 1, calibration) != SQLITE_OK)
    status = store_sql_error(s->db, sqlite3_errcode(s->db), "measurements", err);
  if (!status)
    status = store_collect(s, st, sizeof **out, measurement_reader, NULL, (void **)out, count, err);
  store_unlock(s);
  return status;
}
