/*
 * jobs.c - calibration jobs and their leases (docs/design.md §5 step 3): claim the
 * oldest queued job of a device, heartbeat, upload a result (idempotent for
 * an identical retry), report a failure, and return expired leases to the
 * queue. A job's attempts are bounded: the attempt that reaches max_attempts
 * and fails (or whose lease expires) fails the job and its calibration.
 * An operator may re-queue a done run or exclude a run of a collecting
 * calibration (its measurement is deleted; an excluded job is done without
 * one), so that one bad upload never costs the whole calibration.
 *
 * Lease invariant: a job is 'leased' with exactly one live lease_token; the
 * token is cleared whenever the job goes back to the queue, so a token that
 * was once valid can never match again after its lease ended, and a 'done'
 * job keeps the token of the lease that completed it (for idempotent retries
 * by that same agent only). The lease belongs to its holder (the claiming
 * API token): the right secret from another holder is FORBIDDEN.
 */
#include "store_internal.h"

#include <assert.h>
#include <stdio.h>
#include <string.h>

#include "pascal/utf8.h"

/* Upper bound on a lease, which keeps now + lease_seconds far inside int64. */
#define STORE_LEASE_MAX ((int64_t)1 << 30)

/* Column positions of JOB_COLUMNS (db.c). */
enum {
  J_ID,
  J_CAL,
  J_WORKLOAD,
  J_STATE,
  J_BLOCK_BYTES,
  J_OWNER,
  J_EXPIRES,
  J_ATTEMPTS,
  J_MAX_ATTEMPTS,
  J_LAST_ERROR,
  J_TOKEN,
  J_DEVICE,
  J_HOLDER,
  J_RUN,
  J_EXCLUDED = J_RUN + STORE_RUN_NCOLS,
  J_CAL_STATE,
  J_LEASE_STARTED,
  J_FINISHED
};

/* A job as read inside a transaction, with its current lease token. */
typedef struct job_row {
  pascal_store_job job;
  char token[PASCAL_STORE_LEASE_MAX];
  int cal_state; /* its calibration's pascal_store_cal_state */
} job_row;

/* Equality of two NUL-terminated secrets whose time depends only on the
 * length of `given` (not on where the first difference is). */
static int secret_equal(const char *stored, const char *given)
{
  size_t n = strlen(given);
  unsigned char diff = (unsigned char)(strlen(stored) != n);
  size_t m = strnlen(stored, n);
  for (size_t i = 0; i < n; i++)
    diff |= (unsigned char)((i < m ? stored[i] : 0) ^ given[i]);
  return diff == 0;
}

/* A store_row_reader: one row of JOB_COLUMNS into a job_row. */
static pascal_store_status read_job(sqlite3_stmt *st, void *elem, pascal_error *err)
{
  job_row *out = elem;
  pascal_store_job *j = &out->job;
  memset(out, 0, sizeof *out);
  j->id = sqlite3_column_int64(st, J_ID);
  j->calibration = sqlite3_column_int64(st, J_CAL);
  j->workload = (pascal_store_workload)store_workload_parse(
      (const char *)sqlite3_column_text(st, J_WORKLOAD));
  j->state =
      (pascal_store_job_state)store_job_state_parse((const char *)sqlite3_column_text(st, J_STATE));
  j->block_bytes = (uint32_t)sqlite3_column_int64(st, J_BLOCK_BYTES);
  store_column_copy(st, J_OWNER, j->lease_owner, sizeof j->lease_owner);
  j->lease_expires = sqlite3_column_int64(st, J_EXPIRES);
  j->attempts = (uint32_t)sqlite3_column_int64(st, J_ATTEMPTS);
  j->max_attempts = (uint32_t)sqlite3_column_int64(st, J_MAX_ATTEMPTS);
  store_column_copy(st, J_LAST_ERROR, j->last_error, sizeof j->last_error);
  store_column_copy(st, J_TOKEN, out->token, sizeof out->token);
  store_column_copy(st, J_DEVICE, j->device, sizeof j->device);
  j->lease_holder = sqlite3_column_int64(st, J_HOLDER);
  store_read_run(st, J_RUN, &j->run);
  j->excluded = sqlite3_column_int(st, J_EXCLUDED) != 0;
  j->lease_started = sqlite3_column_int64(st, J_LEASE_STARTED);
  j->finished = sqlite3_column_int64(st, J_FINISHED);
  out->cal_state = store_cal_state_parse((const char *)sqlite3_column_text(st, J_CAL_STATE));
  /* The lease invariant (top of this file), on every job read: a queued job
   * has no token and an attempt left, a leased one exactly one token and
   * its holder, a failed one no token; attempts never pass the bound. */
  assert(j->max_attempts >= 1 && j->attempts <= j->max_attempts);
  assert(j->state != PASCAL_STORE_QUEUED || (!out->token[0] && j->attempts < j->max_attempts));
  assert(j->state != PASCAL_STORE_LEASED || (out->token[0] && j->lease_holder >= 1));
  assert(j->state != PASCAL_STORE_JOB_FAILED || !out->token[0]);
  return PASCAL_STORE_OK;
}

static pascal_store_status agent_seen(pascal_store *s, const char *name, int64_t now,
                                      pascal_error *err)
{
  sqlite3_stmt *st = store_stmt_get(s, ST_AGENT_SEEN);
  if (sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC) || sqlite3_bind_int64(st, 2, now))
    return store_sql_error(s->db, sqlite3_errcode(s->db), "agent", err);
  return store_step_done(s, st, "agent", err);
}

/* The single integer of `which` bound to one text, or -1 on failure. */
static int64_t count_by_text(pascal_store *s, store_stmt which, const char *text,
                             pascal_store_status *status, pascal_error *err)
{
  sqlite3_stmt *st = NULL;
  int row = 0;
  *status = store_row_by_text(s, which, text, &st, &row, "agent", err);
  int64_t n = *status == PASCAL_STORE_OK && row ? sqlite3_column_int64(st, 0) : 0;
  sqlite3_reset(st);
  return *status ? -1 : n;
}

pascal_store_status pascal_store_agent_admit(pascal_store *s, const char *prefix, const char *name,
                                             int64_t now, int64_t keep_seconds,
                                             int64_t max_per_prefix, pascal_error *err)
{
  pascal_store_status status = store_check_label(name, "agent", err);
  if (!status)
    status = store_check_time(now, err);
  if (!status && (!prefix || strncmp(name, prefix, strlen(prefix)) != 0))
    status = store_fail(err, PASCAL_STORE_INVALID, "agent", "the agent name must start with %s",
                        prefix ? prefix : "its prefix");
  if (!status)
    status = store_begin(s, err);
  if (status)
    return status;
  sqlite3_stmt *st = store_stmt_get(s, ST_AGENTS_EXPIRE);
  if (sqlite3_bind_int64(st, 1, now - keep_seconds))
    status = store_sql_error(s->db, sqlite3_errcode(s->db), "agent", err);
  if (!status)
    status = store_step_done(s, st, "agent", err);
  int64_t known = status ? 0 : count_by_text(s, ST_AGENT_KNOWN, name, &status, err);
  int64_t n = status || known ? 0 : count_by_text(s, ST_AGENTS_OF_PREFIX, prefix, &status, err);
  if (!status && !known && n >= max_per_prefix)
    status = store_fail(err, PASCAL_STORE_CONFLICT, "agent",
                        "%lld agents named %s... were seen in the last %lld s, the most one "
                        "token may have; reuse a name, or wait for one to expire",
                        (long long)n, prefix, (long long)keep_seconds);
  return store_end(s, status, err);
}

pascal_store_status pascal_store_agent_seen(pascal_store *s, const char *name, int64_t now,
                                            pascal_error *err)
{
  pascal_store_status status = store_check_label(name, "agent", err);
  if (!status)
    status = store_check_time(now, err);
  if (!status)
    status = store_begin(s, err);
  if (status)
    return status;
  return store_end(s, agent_seen(s, name, now, err), err);
}

/* A job that has failed for good fails its collecting calibration. */
static pascal_store_status fail_calibrations(pascal_store *s, pascal_error *err)
{
  return store_step_done(s, store_stmt_get(s, ST_CAL_FAIL_WITH_FAILED_JOBS), "calibration fail",
                         err);
}

/* Requeue (or fail) every lease expired at `now`, inside a transaction. */
static pascal_store_status expire_leases(pascal_store *s, int64_t now, int64_t *count,
                                         pascal_error *err)
{
  sqlite3_stmt *st = store_stmt_get(s, ST_JOBS_EXPIRE);
  if (sqlite3_bind_int64(st, 1, now) != SQLITE_OK)
    return store_sql_error(s->db, sqlite3_errcode(s->db), "expire", err);
  pascal_store_status status = store_step_done(s, st, "expire", err);
  if (status)
    return status;
  *count = sqlite3_changes64(s->db);
  return *count ? fail_calibrations(s, err) : PASCAL_STORE_OK;
}

pascal_store_status pascal_store_leases_shift(pascal_store *s, int64_t delta, int64_t *moved,
                                              pascal_error *err)
{
  if (delta < -STORE_LEASE_MAX * 1024 || delta > STORE_LEASE_MAX * 1024)
    return store_fail(err, PASCAL_STORE_INVALID, "delta", "a clock step of %lld s is beyond reason",
                      (long long)delta);
  pascal_store_status status = store_begin(s, err);
  if (status)
    return status;
  sqlite3_stmt *st = store_stmt_get(s, ST_JOBS_SHIFT);
  if (sqlite3_bind_int64(st, 1, delta) != SQLITE_OK)
    status = store_sql_error(s->db, sqlite3_errcode(s->db), "shift", err);
  if (!status)
    status = store_step_done(s, st, "shift", err);
  int64_t n = status ? 0 : sqlite3_changes64(s->db);
  status = store_end(s, status, err);
  if (status == PASCAL_STORE_OK && moved)
    *moved = n;
  return status;
}

pascal_store_status pascal_store_jobs_requeue_expired(pascal_store *s, int64_t now,
                                                      int64_t *requeued, pascal_error *err)
{
  pascal_store_status status = store_check_time(now, err);
  if (!status)
    status = store_begin(s, err);
  if (status)
    return status;
  int64_t count = 0;
  status = store_end(s, expire_leases(s, now, &count, err), err);
  if (status == PASCAL_STORE_OK && requeued)
    *requeued = count;
  return status;
}

static pascal_store_status check_lease_args(const char *lease_token, int64_t holder, int64_t now,
                                            int64_t lease_seconds, pascal_error *err)
{
  pascal_store_status status =
      store_check_hex(lease_token, 32, PASCAL_STORE_LEASE_MAX - 1, "lease_token", err);
  if (!status && holder < 1)
    status = store_fail(err, PASCAL_STORE_INVALID, "holder", "the lease holder must be >= 1");
  if (!status)
    status = store_check_time(now, err);
  if (!status && (lease_seconds < 1 || lease_seconds > STORE_LEASE_MAX))
    status = store_fail(err, PASCAL_STORE_INVALID, "lease_seconds",
                        "lease_seconds must be in [1, 2^30]");
  return status;
}

/* Find the oldest queued job of the device and lease it; *id = 0 if none. */
static pascal_store_status lease_next(pascal_store *s, const char *device, const char *agent,
                                      const char *token, int64_t holder, int64_t now,
                                      int64_t expires, int64_t *id, pascal_error *err)
{
  sqlite3_stmt *st = NULL;
  int row = 0;
  pascal_store_status status =
      store_row_by_text(s, ST_JOB_NEXT_QUEUED, device, &st, &row, "claim", err);
  *id = status == PASCAL_STORE_OK && row ? sqlite3_column_int64(st, 0) : 0;
  sqlite3_reset(st);
  if (status || *id == 0)
    return status;
  st = store_stmt_get(s, ST_JOB_LEASE);
  if (sqlite3_bind_int64(st, 1, *id) || sqlite3_bind_text(st, 2, token, -1, SQLITE_STATIC) ||
      sqlite3_bind_text(st, 3, agent, -1, SQLITE_STATIC) || sqlite3_bind_int64(st, 4, expires) ||
      sqlite3_bind_int64(st, 5, holder) || sqlite3_bind_int64(st, 6, now))
    return store_sql_error(s->db, sqlite3_errcode(s->db), "claim", err);
  return store_step_done(s, st, "claim", err);
}

pascal_store_status pascal_store_job_claim(pascal_store *s, const char *device, const char *agent,
                                           const char *lease_token, int64_t holder, int64_t now,
                                           int64_t lease_seconds, pascal_store_job *out,
                                           int *claimed, pascal_store_job_outcome *outcome,
                                           pascal_error *err)
{
  pascal_store_status status = store_check_device_name(device, "device", err);
  if (!status)
    status = store_check_label(agent, "agent", err);
  if (!status)
    status = check_lease_args(lease_token, holder, now, lease_seconds, err);
  if (!status)
    status = store_begin(s, err);
  if (status)
    return status;
  int64_t expired = 0, id = 0;
  job_row row;
  status = store_device_require(s, device, err);
  if (!status)
    status = expire_leases(s, now, &expired, err);
  if (!status)
    status = lease_next(s, device, agent, lease_token, holder, now, now + lease_seconds, &id, err);
  if (!status)
    status = agent_seen(s, agent, now, err);
  if (!status && id) {
    status = store_read_by_id(s, ST_JOB_GET, id, read_job, &row, "job", err);
    /* the job just leased holds this lease and no other */
    assert(status ||
           (row.job.state == PASCAL_STORE_LEASED && secret_equal(row.token, lease_token) &&
            row.job.lease_holder == holder && row.job.lease_expires == now + lease_seconds));
  }
  pascal_store_job_outcome got = {.state = id ? PASCAL_STORE_LEASED : PASCAL_STORE_QUEUED};
  if (!status && outcome)
    status = store_device_progress(s, device, &got.done, &got.total, err);
  status = store_end(s, status, err);
  if (status == PASCAL_STORE_OK) {
    if (id)
      *out = row.job;
    *claimed = id != 0;
    if (outcome)
      *outcome = got;
  }
  return status;
}

/* FORBIDDEN when `holder` is not the one that took the lease of `row`. */
static pascal_store_status require_holder(const job_row *row, int64_t holder, pascal_error *err)
{
  if (row->job.lease_holder == holder)
    return PASCAL_STORE_OK;
  return store_fail(err, PASCAL_STORE_FORBIDDEN, "lease_token",
                    "job %lld was leased by another token", (long long)row->job.id);
}

/* STALE unless `row` is leased under `token` and the lease is live at now;
 * FORBIDDEN when it is, but for another holder. */
static pascal_store_status require_live_lease(const job_row *row, const char *token, int64_t holder,
                                              int64_t now, pascal_error *err)
{
  if (row->job.state != PASCAL_STORE_LEASED || !secret_equal(row->token, token))
    return store_fail(err, PASCAL_STORE_STALE, "lease_token",
                      "job %lld is not leased under this token", (long long)row->job.id);
  if (require_holder(row, holder, err))
    return PASCAL_STORE_FORBIDDEN;
  if (row->job.lease_expires <= now)
    return store_fail(err, PASCAL_STORE_STALE, "lease_token", "the lease on job %lld expired",
                      (long long)row->job.id);
  return PASCAL_STORE_OK;
}

pascal_store_status pascal_store_job_heartbeat_limited(pascal_store *s, int64_t job,
                                                       const char *lease_token, int64_t holder,
                                                       int64_t now, int64_t lease_seconds,
                                                       int64_t time_limit, int64_t *lease_expires,
                                                       pascal_error *err)
{
  job_row row;
  pascal_store_status status = check_lease_args(lease_token, holder, now, lease_seconds, err);
  if (!status && (time_limit < 0 || time_limit > STORE_LEASE_MAX))
    status = store_fail(err, PASCAL_STORE_INVALID, "time_limit", "time_limit must be in [0, 2^30]");
  if (!status)
    status = store_begin_by_id(s, ST_JOB_GET, job, read_job, &row, "job", err);
  if (status)
    return status;
  int64_t until = now + lease_seconds, end = row.job.lease_started + time_limit;
  status = require_live_lease(&row, lease_token, holder, now, err);
  if (!status && time_limit && now >= end)
    status = store_fail(err, PASCAL_STORE_STALE, "lease_token",
                        "job %lld ran past its time limit of %lld s: its lease is not extended "
                        "and ends as it is",
                        (long long)job, (long long)time_limit);
  if (!status) {
    if (time_limit && until > end)
      until = end;
    sqlite3_stmt *st = store_stmt_get(s, ST_JOB_EXTEND);
    if (sqlite3_bind_int64(st, 1, job) || sqlite3_bind_int64(st, 2, until))
      status = store_sql_error(s->db, sqlite3_errcode(s->db), "heartbeat", err);
    else
      status = store_step_done(s, st, "heartbeat", err);
  }
  if (!status)
    status = agent_seen(s, row.job.lease_owner, now, err);
  status = store_end(s, status, err);
  if (status == PASCAL_STORE_OK && lease_expires)
    *lease_expires = until;
  return status;
}

pascal_store_status pascal_store_job_heartbeat(pascal_store *s, int64_t job,
                                               const char *lease_token, int64_t holder, int64_t now,
                                               int64_t lease_seconds, int64_t *lease_expires,
                                               pascal_error *err)
{
  return pascal_store_job_heartbeat_limited(s, job, lease_token, holder, now, lease_seconds, 0,
                                            lease_expires, err);
}

/* A repeat upload for a job done under this token: identical or conflict. */
static pascal_store_status compare_done(pascal_store *s, int64_t job, double fill_bytes,
                                        double kernel_ns, pascal_error *err)
{
  sqlite3_stmt *st = NULL;
  int row = 0;
  pascal_store_status status = store_row_by_id(s, ST_MEAS_OF_JOB, job, &st, &row, "result", err);
  if (status == PASCAL_STORE_OK) {
    /* kernel_ns NULL reads as 0.0, which is how "not measured" is given. */
    int same = row && sqlite3_column_double(st, 0) == fill_bytes &&
               sqlite3_column_double(st, 1) == kernel_ns;
    if (!same)
      status = store_fail(err, PASCAL_STORE_CONFLICT, "fill_bytes",
                          "job %lld is done with a different result", (long long)job);
  }
  sqlite3_reset(st);
  return status;
}

/* Store the result of a live lease and mark the job done. */
static pascal_store_status complete(pascal_store *s, const job_row *row, double fill_bytes,
                                    double kernel_ns, int64_t now, pascal_error *err)
{
  pascal_store_measurement m = {
      .run = row->job.run, .fill_bytes = fill_bytes, .kernel_ns = kernel_ns, .job = row->job.id};
  pascal_store_status status =
      store_measurement_insert(s, row->job.calibration, row->job.workload, &m, row->job.id, err);
  if (status)
    return status;
  sqlite3_stmt *st = store_stmt_get(s, ST_JOB_DONE);
  if (sqlite3_bind_int64(st, 1, row->job.id) || sqlite3_bind_int64(st, 2, now))
    return store_sql_error(s->db, sqlite3_errcode(s->db), "result", err);
  status = store_step_done(s, st, "result", err);
  if (!status)
    status = agent_seen(s, row->job.lease_owner, now, err);
  return status;
}

/* Fill *outcome (may be NULL) with `state` and the progress of the job's
 * device, inside the transaction that changed the job. */
static pascal_store_status read_outcome(pascal_store *s, const job_row *row,
                                        pascal_store_job_state state,
                                        pascal_store_job_outcome *outcome, pascal_error *err)
{
  if (!outcome)
    return PASCAL_STORE_OK;
  outcome->state = state;
  outcome->done = outcome->total = 0;
  return store_device_progress(s, row->job.device, &outcome->done, &outcome->total, err);
}

pascal_store_status pascal_store_job_result_checked(pascal_store *s, int64_t job,
                                                    const char *lease_token, int64_t holder,
                                                    double fill_bytes, double kernel_ns,
                                                    int64_t now, pascal_store_result_check check,
                                                    void *arg, pascal_store_job_outcome *outcome,
                                                    pascal_error *err)
{
  pascal_store_status status = check_lease_args(lease_token, holder, now, 1, err);
  if (!status)
    status = store_check_result(fill_bytes, kernel_ns, "result", err);
  job_row row;
  if (!status)
    status = store_begin_by_id(s, ST_JOB_GET, job, read_job, &row, "job", err);
  if (status)
    return status;
  if (row.job.state == PASCAL_STORE_DONE && secret_equal(row.token, lease_token)) {
    status = require_holder(&row, holder, err);
    if (!status)
      status = compare_done(s, job, fill_bytes, kernel_ns, err);
  } else {
    status = require_live_lease(&row, lease_token, holder, now, err);
    if (!status && check)
      status = check(&row.job, fill_bytes, kernel_ns, arg, err);
    if (!status)
      status = complete(s, &row, fill_bytes, kernel_ns, now, err);
  }
  pascal_store_job_outcome got_outcome;
  if (!status)
    status = read_outcome(s, &row, PASCAL_STORE_DONE, outcome ? &got_outcome : NULL, err);
  status = store_end(s, status, err);
  if (status == PASCAL_STORE_OK && outcome)
    *outcome = got_outcome;
  return status;
}

pascal_store_status pascal_store_job_result(pascal_store *s, int64_t job, const char *lease_token,
                                            int64_t holder, double fill_bytes, double kernel_ns,
                                            int64_t now, pascal_store_job_outcome *outcome,
                                            pascal_error *err)
{
  return pascal_store_job_result_checked(s, job, lease_token, holder, fill_bytes, kernel_ns, now,
                                         NULL, NULL, outcome, err);
}

pascal_store_status pascal_store_job_fail(pascal_store *s, int64_t job, const char *lease_token,
                                          int64_t holder, const char *message, int64_t now,
                                          pascal_store_job_outcome *outcome, pascal_error *err)
{
  job_row row;
  pascal_store_status status = check_lease_args(lease_token, holder, now, 1, err);
  if (!status)
    status = store_begin_by_id(s, ST_JOB_GET, job, read_job, &row, "job", err);
  if (status)
    return status;
  char text[PASCAL_STORE_MESSAGE_MAX];
  pascal_utf8_copy(text, sizeof text, message && *message ? message : "failed");
  int got = 0;
  int next = PASCAL_STORE_QUEUED;
  status = require_live_lease(&row, lease_token, holder, now, err);
  if (!status) {
    sqlite3_stmt *st = store_stmt_get(s, ST_JOB_RETRY);
    if (sqlite3_bind_int64(st, 1, job) || sqlite3_bind_text(st, 2, text, -1, SQLITE_TRANSIENT) ||
        sqlite3_bind_int64(st, 3, now))
      status = store_sql_error(s->db, sqlite3_errcode(s->db), "fail", err);
    else
      status = store_step_row(s, st, &got, "fail", err);
    if (!status && got)
      next = store_job_state_parse((const char *)sqlite3_column_text(st, 0));
    if (!status)
      status = store_step_done(s, st, "fail", err);
  }
  if (!status && next == PASCAL_STORE_JOB_FAILED)
    status = fail_calibrations(s, err);
  pascal_store_job_outcome got_outcome;
  if (!status)
    status =
        read_outcome(s, &row, (pascal_store_job_state)next, outcome ? &got_outcome : NULL, err);
  status = store_end(s, status, err);
  if (status == PASCAL_STORE_OK && outcome)
    *outcome = got_outcome;
  return status;
}

/* Requeue or exclude (pascal_store.h): the checks, the measurement's
 * deletion and the job's update, in one transaction. */
static pascal_store_status correct(pascal_store *s, int64_t job, store_stmt action,
                                   const char *reason, int64_t now, pascal_store_job *out,
                                   pascal_error *err)
{
  job_row row;
  pascal_store_status status = store_check_time(now, err);
  if (!status)
    status = store_begin_by_id(s, ST_JOB_GET, job, read_job, &row, "job", err);
  if (status)
    return status;
  const pascal_store_job *j = &row.job;
  int requeue = action == ST_JOB_REQUEUE;
  if (row.cal_state != PASCAL_STORE_COLLECTING)
    status = store_fail(err, PASCAL_STORE_CONFLICT, "state",
                        "calibration %lld is %s: only a collecting calibration's runs change",
                        (long long)j->calibration,
                        pascal_store_cal_state_name((pascal_store_cal_state)row.cal_state));
  else if (requeue ? j->state != PASCAL_STORE_DONE : j->state == PASCAL_STORE_JOB_FAILED)
    status = store_fail(err, PASCAL_STORE_CONFLICT, "state", "job %lld is %s: %s", (long long)job,
                        pascal_store_job_state_name(j->state),
                        requeue ? "only a done run is re-queued" : "a failed run is not excluded");
  if (status || (!requeue && j->excluded))
    goto done; /* excluding twice: nothing more to do */
  char text[PASCAL_STORE_MESSAGE_MAX];
  pascal_utf8_copy(text, sizeof text,
                   reason && *reason ? reason
                   : requeue         ? "re-queued by an operator"
                                     : "excluded by an operator");
  sqlite3_stmt *st = store_stmt_get(s, ST_MEAS_DELETE_OF_JOB);
  if (sqlite3_bind_int64(st, 1, job))
    status = store_sql_error(s->db, sqlite3_errcode(s->db), "job", err);
  if (!status)
    status = store_step_done(s, st, "job", err);
  st = store_stmt_get(s, action);
  if (!status &&
      (sqlite3_bind_int64(st, 1, job) || sqlite3_bind_text(st, 2, text, -1, SQLITE_TRANSIENT) ||
       (!requeue && sqlite3_bind_int64(st, 3, now))))
    status = store_sql_error(s->db, sqlite3_errcode(s->db), "job", err);
  if (!status)
    status = store_step_done(s, st, "job", err);
  if (!status)
    status = store_read_by_id(s, ST_JOB_GET, job, read_job, &row, "job", err);
done:
  status = store_end(s, status, err);
  if (status == PASCAL_STORE_OK && out)
    *out = row.job;
  return status;
}

pascal_store_status pascal_store_job_requeue(pascal_store *s, int64_t job, const char *reason,
                                             int64_t now, pascal_store_job *out, pascal_error *err)
{
  return correct(s, job, ST_JOB_REQUEUE, reason, now, out, err);
}

pascal_store_status pascal_store_job_exclude(pascal_store *s, int64_t job, const char *reason,
                                             int64_t now, pascal_store_job *out, pascal_error *err)
{
  return correct(s, job, ST_JOB_EXCLUDE, reason, now, out, err);
}

/* A store_row_reader for lists: the job without its lease token. */
static pascal_store_status read_job_public(sqlite3_stmt *st, void *elem, pascal_error *err)
{
  job_row row;
  pascal_store_status status = read_job(st, &row, err);
  if (status == PASCAL_STORE_OK)
    *(pascal_store_job *)elem = row.job;
  return status;
}

pascal_store_status pascal_store_job_list(pascal_store *s, int64_t calibration, int state,
                                          int64_t after, size_t limit, pascal_store_job **out,
                                          size_t *count, pascal_error *err)
{
  if (calibration < 0 || after < 0 || state < -1 || state >= PASCAL_STORE_JOB_STATES ||
      limit > (size_t)INT64_MAX)
    return store_fail(err, PASCAL_STORE_INVALID, calibration < 0 ? "calibration" : "state",
                      "invalid job list filter");
  store_lock(s);
  sqlite3_stmt *st = store_stmt_get(s, ST_JOB_LIST);
  pascal_store_status status = PASCAL_STORE_OK;
  if (sqlite3_bind_int64(st, 1, calibration) ||
      (state >= 0
           ? sqlite3_bind_text(st, 2, pascal_store_job_state_name((pascal_store_job_state)state),
                               -1, SQLITE_STATIC)
           : sqlite3_bind_null(st, 2)) ||
      sqlite3_bind_int64(st, 3, after) || sqlite3_bind_int64(st, 4, limit ? (int64_t)limit : -1))
    status = store_sql_error(s->db, sqlite3_errcode(s->db), "jobs", err);
  if (status == PASCAL_STORE_OK)
    status = store_collect(s, st, sizeof **out, read_job_public, NULL, (void **)out, count, err);
  else
    sqlite3_reset(st);
  store_unlock(s);
  return status;
}

pascal_store_status pascal_store_job_get(pascal_store *s, int64_t id, pascal_store_job *out,
                                         pascal_error *err)
{
  job_row row;
  pascal_store_status status = store_get_by_id(s, ST_JOB_GET, id, read_job, &row, "job", err);
  if (status == PASCAL_STORE_OK)
    *out = row.job;
  return status;
}
