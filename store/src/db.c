/*
 * db.c - the connection: open (pragmas, migrations, prepared statements),
 * close, statements and transactions (statuses and errors: status.c).
 *
 * Durability (docs/design.md §7, docs/store.md): journal_mode=WAL with
 * synchronous=FULL makes every COMMIT fsync the WAL before it returns, so an
 * operation that returned OK survives kill -9 and power loss.
 */
#include "store_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define STORE_BUSY_TIMEOUT_MS 5000

/* The columns every calibration query returns, read by calibrations.c. */
#define CAL_COLUMNS                                                                                \
  "c.id, c.device, c.workload, c.state, c.created, c.frozen_at,"                                   \
  " c.content_hash,"                                                                               \
  " (SELECT count(*) FROM jobs WHERE calibration = c.id AND state = 'queued'),"                    \
  " (SELECT count(*) FROM jobs WHERE calibration = c.id AND state = 'leased'),"                    \
  " (SELECT count(*) FROM jobs WHERE calibration = c.id AND state = 'done'),"                      \
  " (SELECT count(*) FROM jobs WHERE calibration = c.id AND state = 'failed'),"                    \
  " (SELECT count(*) FROM measurements WHERE calibration = c.id),"

/* The job row read by jobs.c: job columns, then its calibration's workload
 * and its device's block size, its lease token, device name and lease
 * holder, then the run. */
#define JOB_COLUMNS                                                                                \
  "j.id, j.calibration, c.workload, j.state, dv.block_bytes,"                                      \
  " j.lease_owner, j.lease_expires, j.attempts, j.max_attempts,"                                   \
  " j.last_error, j.lease_token, c.device, coalesce(j.lease_holder, 0),"                           \
  " j.o, j.path, j.d, j.m, j.N, j.W, j.Mg, j.Ng, j.Kg, j.repeat, j.heldout,"                       \
  " j.tile_m, j.tile_n, j.tile_k, j.elem_bytes, j.stages, j.group_m,"                              \
  " j.excluded, c.state, coalesce(j.lease_started, 0), coalesce(j.finished, 0)"                    \
  " FROM jobs j JOIN calibrations c ON c.id = j.calibration"                                       \
  " JOIN devices dv ON dv.name = c.device"

#define DEVICE_COLUMNS                                                                             \
  "name, arch, sm_count, capacity_blocks, block_bytes, created, cuda_name,"                        \
  " cc_major, cc_minor, l2_bytes, peak_dram_bytes_per_s, peak_l2_bytes_per_s,"                     \
  " peak_tensor_flops, peak_sm_clock_hz, peak_launch_s, capacity_probe, static_experiment"

static const char *const stmt_sql[ST_COUNT] = {
    [ST_BEGIN] = "BEGIN IMMEDIATE",
    [ST_BEGIN_READ] = "BEGIN DEFERRED",
    [ST_COMMIT] = "COMMIT",
    [ST_ROLLBACK] = "ROLLBACK",
    [ST_DEVICE_INSERT] =
        "INSERT INTO devices (name, arch, sm_count, capacity_blocks, block_bytes,"
        " created, cuda_name, cc_major, cc_minor, l2_bytes, peak_dram_bytes_per_s,"
        " peak_l2_bytes_per_s, peak_tensor_flops, peak_sm_clock_hz, peak_launch_s,"
        " capacity_probe, static_experiment)"
        " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17)",
    [ST_DEVICE_LEARN] = "UPDATE devices SET cuda_name = ?2, cc_major = ?3, cc_minor = ?4,"
                        " l2_bytes = ?5, peak_dram_bytes_per_s = ?6, peak_l2_bytes_per_s = ?7,"
                        " peak_tensor_flops = ?8, peak_sm_clock_hz = ?9, peak_launch_s = ?10,"
                        " capacity_probe = ?11, static_experiment = ?12 WHERE name = ?1",
    [ST_DEVICE_GET] = "SELECT " DEVICE_COLUMNS " FROM devices WHERE name = ?1",
    [ST_DEVICE_LIST] = "SELECT " DEVICE_COLUMNS " FROM devices ORDER BY name",
    [ST_DEVICE_PROGRESS] = "SELECT coalesce(sum(j.state = 'done'), 0), count(j.id) FROM jobs j"
                           " JOIN calibrations c ON c.id = j.calibration"
                           " WHERE c.device = ?1 AND c.state = 'collecting'",
    [ST_CAL_INSERT] = "INSERT INTO calibrations (id, device, workload, state, plan,"
                      " created) VALUES (?5, ?1, ?2, 'collecting', ?3, ?4)",
    [ST_CAL_GET] = "SELECT " CAL_COLUMNS " c.plan, c.bundle, c.report"
                   " FROM calibrations c WHERE c.id = ?1",
    [ST_CAL_LIST] = "SELECT " CAL_COLUMNS " NULL, NULL, NULL"
                    " FROM calibrations c ORDER BY c.id",
    [ST_CAL_LIST_DEVICE] = "SELECT " CAL_COLUMNS " NULL, NULL, NULL"
                           " FROM calibrations c WHERE c.device = ?1 ORDER BY c.id",
    [ST_CAL_FROZEN_LIST] = "SELECT " CAL_COLUMNS " NULL, c.bundle, c.report"
                           " FROM calibrations c WHERE c.state = 'frozen'"
                           " ORDER BY c.id",
    [ST_CAL_FIND_HASH] = "SELECT id FROM calibrations WHERE device = ?1"
                         " AND content_hash = ?2 AND state = 'frozen'"
                         " ORDER BY id LIMIT 1",
    [ST_CAL_FREEZE] = "UPDATE calibrations SET state = 'frozen', bundle = ?2,"
                      " report = ?3, content_hash = ?4, frozen_at = ?5"
                      " WHERE id = ?1 AND state = 'collecting'",
    [ST_CAL_FAIL_WITH_FAILED_JOBS] =
        "UPDATE calibrations SET state = 'failed' WHERE state = 'collecting'"
        " AND EXISTS (SELECT 1 FROM jobs WHERE calibration = calibrations.id"
        " AND state = 'failed')",
    [ST_CAL_JOBS_NOT_DONE] = "SELECT count(*) FROM jobs WHERE calibration = ?1"
                             " AND state <> 'done'",
    [ST_JOB_INSERT] = "INSERT INTO jobs (calibration, " STORE_RUN_COLUMNS
                      ", state, max_attempts) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7,"
                      " ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, 'queued', ?19)",
    [ST_JOB_GET] = "SELECT " JOB_COLUMNS " WHERE j.id = ?1",
    [ST_JOB_LIST] = "SELECT " JOB_COLUMNS " WHERE (?1 = 0 OR j.calibration = ?1)"
                    " AND (?2 IS NULL OR j.state = ?2) AND j.id > ?3 ORDER BY j.id LIMIT ?4",
    [ST_JOB_NEXT_QUEUED] = "SELECT j.id FROM jobs j JOIN calibrations c"
                           " ON c.id = j.calibration WHERE j.state = 'queued'"
                           " AND c.device = ?1 AND c.state = 'collecting'"
                           " ORDER BY j.id LIMIT 1",
    [ST_JOB_LEASE] = "UPDATE jobs SET state = 'leased', lease_token = ?2,"
                     " lease_owner = ?3, lease_expires = ?4, lease_holder = ?5,"
                     " lease_started = ?6,"
                     " attempts = attempts + 1 WHERE id = ?1 AND state = 'queued'",
    [ST_JOB_EXTEND] = "UPDATE jobs SET lease_expires = ?2 WHERE id = ?1",
    [ST_JOB_DONE] = "UPDATE jobs SET state = 'done', finished = ?2 WHERE id = ?1",
    [ST_JOB_RETRY] = "UPDATE jobs SET state = CASE WHEN attempts >= max_attempts"
                     " THEN 'failed' ELSE 'queued' END, lease_token = NULL,"
                     " last_error = ?2, finished = CASE WHEN attempts >= max_attempts"
                     " THEN ?3 END WHERE id = ?1 RETURNING state",
    [ST_JOB_REQUEUE] = "UPDATE jobs SET state = 'queued', excluded = 0, attempts = 0,"
                       " lease_token = NULL, last_error = ?2, finished = NULL WHERE id = ?1",
    [ST_JOB_EXCLUDE] = "UPDATE jobs SET state = 'done', excluded = 1, lease_token = NULL,"
                       " last_error = ?2, finished = ?3 WHERE id = ?1",
    [ST_MEAS_DELETE_OF_JOB] = "DELETE FROM measurements WHERE job = ?1",
    [ST_JOBS_SHIFT] = "UPDATE jobs SET lease_expires = lease_expires + ?1,"
                      " lease_started = lease_started + ?1 WHERE state = 'leased'",
    [ST_JOBS_EXPIRE] = "UPDATE jobs SET state = CASE WHEN attempts >= max_attempts"
                       " THEN 'failed' ELSE 'queued' END, lease_token = NULL,"
                       " last_error = 'lease expired', finished = CASE WHEN"
                       " attempts >= max_attempts THEN ?1 END"
                       " WHERE state = 'leased' AND lease_expires <= ?1",
    [ST_MEAS_INSERT] = "INSERT INTO measurements (calibration, job, " STORE_RUN_COLUMNS
                       ", fill_bytes, kernel_ns) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8,"
                       " ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21)",
    [ST_MEAS_OF_JOB] = "SELECT fill_bytes, kernel_ns FROM measurements"
                       " WHERE job = ?1",
    [ST_MEAS_LIST] = "SELECT " STORE_RUN_COLUMNS ", fill_bytes, kernel_ns, job"
                     " FROM measurements WHERE calibration = ?1"
                     " ORDER BY job, id",
    [ST_MEAS_COPY] = "INSERT INTO measurements (calibration, job, " STORE_RUN_COLUMNS
                     ", fill_bytes, kernel_ns) SELECT ?2, NULL, " STORE_RUN_COLUMNS
                     ", fill_bytes, kernel_ns FROM measurements WHERE calibration = ?1"
                     " ORDER BY job, id",
    [ST_TOKEN_INSERT] = "INSERT INTO tokens (name, role, hash, created)"
                        " VALUES (?1, ?2, ?3, ?4)",
    [ST_TOKEN_FIND] = "SELECT id, name, role, hash, created, revoked FROM tokens"
                      " WHERE hash = ?1 AND revoked IS NULL",
    [ST_TOKEN_LIST] = "SELECT id, name, role, hash, created, revoked FROM tokens"
                      " ORDER BY id",
    [ST_TOKEN_REVOKE] = "UPDATE tokens SET revoked = coalesce(revoked, ?2)"
                        " WHERE id = ?1",
    [ST_TOKEN_EXISTS] = "SELECT 1 FROM tokens WHERE hash = ?1",
    [ST_AGENT_SEEN] = "INSERT INTO agents (name, last_seen) VALUES (?1, ?2)"
                      " ON CONFLICT (name) DO UPDATE SET"
                      " last_seen = max(last_seen, excluded.last_seen)",
    [ST_AGENTS_EXPIRE] = "DELETE FROM agents WHERE last_seen < ?1",
    [ST_AGENT_KNOWN] = "SELECT 1 FROM agents WHERE name = ?1",
    [ST_AGENTS_OF_PREFIX] = "SELECT count(*) FROM agents"
                            " WHERE substr(name, 1, length(?1)) = ?1",
    [ST_AGENT_LIST] = "SELECT name, last_seen FROM agents ORDER BY name",
    [ST_COUNT_CALS] = "SELECT state, count(*) FROM calibrations GROUP BY state",
    [ST_COUNT_JOBS] = "SELECT state, count(*) FROM jobs GROUP BY state",
    [ST_USER_VERSION] = "PRAGMA user_version",
    [ST_META_GET] = "SELECT value FROM meta WHERE key = ?1",
    [ST_META_SET] = "INSERT INTO meta (key, value) VALUES (?1, ?2)"
                    " ON CONFLICT (key) DO UPDATE SET value = excluded.value",
};

sqlite3_stmt *store_stmt_get(pascal_store *s, store_stmt which)
{
  sqlite3_stmt *st = s->stmt[which];
  sqlite3_reset(st);
  sqlite3_clear_bindings(st);
  return st;
}

pascal_store_status store_step_row(pascal_store *s, sqlite3_stmt *st, int *row, const char *what,
                                   pascal_error *err)
{
  int rc = sqlite3_step(st);
  if (rc == SQLITE_ROW || rc == SQLITE_DONE) {
    *row = rc == SQLITE_ROW;
    return PASCAL_STORE_OK;
  }
  pascal_store_status status = store_sql_error(s->db, rc, what, err);
  sqlite3_reset(st);
  return status;
}

pascal_store_status store_step_done(pascal_store *s, sqlite3_stmt *st, const char *what,
                                    pascal_error *err)
{
  int row = 0;
  pascal_store_status status;
  do
    status = store_step_row(s, st, &row, what, err);
  while (status == PASCAL_STORE_OK && row);
  sqlite3_reset(st);
  return status;
}

void store_lock(pascal_store *s)
{
  pthread_mutex_lock(&s->lock);
}
void store_unlock(pascal_store *s)
{
  pthread_mutex_unlock(&s->lock);
}

pascal_store_status pascal_store_file_check(pascal_store *s, pascal_error *err)
{
  struct stat now;
  if (!s->has_file)
    return PASCAL_STORE_OK;
  if (stat(s->path, &now) != 0)
    return store_fail(err, PASCAL_STORE_IO, "db",
                      "database file %s is gone (%s) while open: writes are refused, since "
                      "they would be lost; restore the file and restart",
                      s->path, strerror(errno));
  if (now.st_dev != s->file_dev || now.st_ino != s->file_ino)
    return store_fail(err, PASCAL_STORE_IO, "db",
                      "database file %s was replaced while open: writes are refused, since "
                      "they would go to the old file; restart to open the new one",
                      s->path);
  return PASCAL_STORE_OK;
}

static pascal_store_status begin(pascal_store *s, store_stmt which, pascal_error *err)
{
  store_lock(s);
  pascal_store_status status =
      which == ST_BEGIN ? pascal_store_file_check(s, err) : PASCAL_STORE_OK;
  if (!status)
    status = store_step_done(s, store_stmt_get(s, which), "begin", err);
  if (status)
    store_unlock(s);
  return status;
}

pascal_store_status store_begin(pascal_store *s, pascal_error *err)
{
  return begin(s, ST_BEGIN, err);
}

pascal_store_status store_begin_read(pascal_store *s, pascal_error *err)
{
  return begin(s, ST_BEGIN_READ, err);
}

pascal_store_status store_end(pascal_store *s, pascal_store_status status, pascal_error *err)
{
  if (status == PASCAL_STORE_OK) {
    status = store_step_done(s, store_stmt_get(s, ST_COMMIT), "commit", err);
    if (status)
      status = PASCAL_STORE_IO; /* a commit never fails for a client's reason */
  }
  if (status && !sqlite3_get_autocommit(s->db)) /* the first failure is what is reported */
    (void)store_step_done(s, store_stmt_get(s, ST_ROLLBACK), "rollback", NULL);
  store_unlock(s);
  return status;
}

/* Create the parent directory of `path` if it is missing (one level). */
static pascal_store_status make_parent(const char *path, pascal_error *err)
{
  const char *slash = strrchr(path, '/');
  if (!slash || slash == path)
    return PASCAL_STORE_OK;
  size_t len = (size_t)(slash - path);
  char *dir = malloc(len + 1);
  if (!dir)
    return store_fail(err, PASCAL_STORE_NOMEM, "db", "out of memory");
  memcpy(dir, path, len);
  dir[len] = '\0';
  pascal_store_status status = PASCAL_STORE_OK;
  if (mkdir(dir, 0700) != 0 && errno != EEXIST)
    status = store_fail(err, PASCAL_STORE_IO, "db", "cannot create %s: %s", dir, strerror(errno));
  free(dir);
  return status;
}

/* Run a pragma and check that its single result is `want` (when not NULL). */
static pascal_store_status pragma(sqlite3 *db, const char *sql, const char *want, pascal_error *err)
{
  sqlite3_stmt *st = NULL;
  int rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
  if (rc != SQLITE_OK)
    return store_sql_error(db, rc, sql, err);
  rc = sqlite3_step(st);
  pascal_store_status status = PASCAL_STORE_OK;
  if (rc != SQLITE_ROW && rc != SQLITE_DONE)
    status = store_sql_error(db, rc, sql, err);
  else if (want && (rc != SQLITE_ROW || !sqlite3_column_text(st, 0) ||
                    strcmp((const char *)sqlite3_column_text(st, 0), want) != 0))
    status = store_fail(err, PASCAL_STORE_IO, "db", "%s did not give %s", sql, want);
  sqlite3_finalize(st);
  return status;
}

static pascal_store_status configure(sqlite3 *db, pascal_error *err)
{
  int rc = sqlite3_busy_timeout(db, STORE_BUSY_TIMEOUT_MS);
  if (rc != SQLITE_OK)
    return store_sql_error(db, rc, "busy_timeout", err);
  sqlite3_extended_result_codes(db, 1);
  pascal_store_status status = pragma(db, "PRAGMA journal_mode = WAL", "wal", err);
  if (!status)
    status = pragma(db, "PRAGMA synchronous = FULL", NULL, err);
  if (!status)
    status = pragma(db, "PRAGMA foreign_keys = ON", NULL, err);
  return status;
}

void pascal_store_close(pascal_store *s)
{
  if (!s)
    return;
  for (int i = 0; i < ST_COUNT; i++)
    sqlite3_finalize(s->stmt[i]);
  sqlite3_close(s->db);
  pthread_mutex_destroy(&s->lock);
  free(s->path);
  free(s);
}

/* A read-only connection: the busy timeout and extended codes of configure(),
 * and a file that already has the newest schema (nothing can migrate it). */
static pascal_store_status configure_read_only(sqlite3 *db, pascal_error *err)
{
  int rc = sqlite3_busy_timeout(db, STORE_BUSY_TIMEOUT_MS);
  if (rc != SQLITE_OK)
    return store_sql_error(db, rc, "busy_timeout", err);
  sqlite3_extended_result_codes(db, 1);
  return store_schema_require_latest(db, err);
}

/* Record the identity of the file just opened (pascal_store_file_check). */
static pascal_store_status remember_file(pascal_store *s, pascal_error *err)
{
  const char *name = sqlite3_db_filename(s->db, "main"); /* absolute */
  struct stat st;
  if (!name || !*name || stat(name, &st) != 0)
    return PASCAL_STORE_OK; /* nothing to compare with (a temporary database) */
  s->path = strdup(name);
  if (!s->path)
    return store_fail(err, PASCAL_STORE_NOMEM, "db", "out of memory");
  s->file_dev = st.st_dev;
  s->file_ino = st.st_ino;
  s->has_file = 1;
  return PASCAL_STORE_OK;
}

static pascal_store_status open_file(const char *path, int read_only, pascal_store **out,
                                     pascal_error *err)
{
  if (!path || !*path)
    return store_fail(err, PASCAL_STORE_INVALID, "db", "database path is empty");
  if (!out)
    return store_fail(err, PASCAL_STORE_INVALID, "out", "out is NULL");
  pascal_store_status status = read_only ? PASCAL_STORE_OK : make_parent(path, err);
  if (status)
    return status;
  pascal_store *s = calloc(1, sizeof *s);
  if (!s)
    return store_fail(err, PASCAL_STORE_NOMEM, "db", "out of memory");
  if (pthread_mutex_init(&s->lock, NULL) != 0) {
    free(s);
    return store_fail(err, PASCAL_STORE_NOMEM, "db", "cannot create a mutex");
  }
  int rc = sqlite3_open_v2(
      path, &s->db, read_only ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE,
      NULL);
  if (rc != SQLITE_OK) {
    status = store_sql_error(s->db, rc, path, err);
    goto fail;
  }
  if (read_only) {
    status = configure_read_only(s->db, err);
  } else {
    status = configure(s->db, err);
    if (!status)
      status = store_migrate(s->db, err);
  }
  if (status)
    goto fail;
  status = remember_file(s, err);
  if (status)
    goto fail;
  for (int i = 0; i < ST_COUNT; i++) {
    rc = sqlite3_prepare_v3(s->db, stmt_sql[i], -1, SQLITE_PREPARE_PERSISTENT, &s->stmt[i], NULL);
    if (rc != SQLITE_OK) {
      status = store_sql_error(s->db, rc, "prepare", err);
      goto fail;
    }
  }
  *out = s;
  return PASCAL_STORE_OK;
fail:
  pascal_store_close(s);
  return status;
}

pascal_store_status pascal_store_open(const char *path, pascal_store **out, pascal_error *err)
{
  return open_file(path, 0, out, err);
}

pascal_store_status pascal_store_open_read_only(const char *path, pascal_store **out,
                                                pascal_error *err)
{
  return open_file(path, 1, out, err);
}

pascal_store_status pascal_store_quick_check(pascal_store *s, pascal_error *err)
{
  sqlite3_stmt *st = NULL;
  store_lock(s);
  int rc = sqlite3_prepare_v2(s->db, "PRAGMA quick_check(1)", -1, &st, NULL);
  if (rc == SQLITE_OK)
    rc = sqlite3_step(st);
  pascal_store_status status = PASCAL_STORE_OK;
  if (rc == SQLITE_ROW) {
    const char *first = (const char *)sqlite3_column_text(st, 0);
    if (!first || strcmp(first, "ok") != 0)
      status = store_fail(err, PASCAL_STORE_CORRUPT, "db", "PRAGMA quick_check: %s",
                          first ? first : "no answer");
  } else {
    status = store_sql_error(s->db, rc, "PRAGMA quick_check", err);
  }
  sqlite3_finalize(st);
  store_unlock(s);
  return status;
}

pascal_store_status pascal_store_schema_version(pascal_store *s, int *version, pascal_error *err)
{
  store_lock(s);
  sqlite3_stmt *st = store_stmt_get(s, ST_USER_VERSION);
  int row = 0;
  pascal_store_status status = store_step_row(s, st, &row, "user_version", err);
  if (status == PASCAL_STORE_OK && row)
    *version = sqlite3_column_int(st, 0);
  sqlite3_reset(st);
  store_unlock(s);
  return status;
}
