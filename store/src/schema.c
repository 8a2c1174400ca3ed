/*
 * schema.c - the store's schema as a list of versioned migrations
 * (PRAGMA user_version = number of migrations applied). Each migration runs
 * in its own BEGIN IMMEDIATE transaction together with its user_version bump,
 * so a crash mid-migration leaves the previous version intact, and two
 * processes opening the same new file migrate it once (the second re-reads
 * the version under the write lock). The schema is described in docs/store.md.
 *
 * Invariants kept here, in the schema rather than in code (docs/design.md §7):
 * - a frozen calibration, its jobs and its measurements are read-only
 *   (triggers RAISE(ABORT) on UPDATE/DELETE, and on INSERT of measurements);
 * - a frozen row carries its bundle, report, hash and freeze time (CHECK);
 * - a run is either a well-formed scan run or a well-formed GEMM run (CHECK).
 *
 * A migration is appended, never edited: a file at version n has run exactly
 * the first n strings below.
 */
#include "store_internal.h"

#include <stdio.h>

/* Column definitions of a run, shared by jobs and measurements. */
#define RUN_COLUMN_DEFS                                                                            \
  "  o INTEGER NOT NULL, path TEXT, d INTEGER NOT NULL, m INTEGER NOT NULL,\n"                     \
  "  N INTEGER NOT NULL, W INTEGER NOT NULL,\n"                                                    \
  "  Mg INTEGER NOT NULL, Ng INTEGER NOT NULL, Kg INTEGER NOT NULL,\n"                             \
  "  repeat INTEGER NOT NULL CHECK (repeat >= 0),\n"

/* The CHECK of a run (a table constraint: after every column). */
#define RUN_CHECK                                                                                  \
  "  CHECK ((path IN ('sync', 'tma') AND o >= 1 AND m >= 0 AND N >= 1\n"                           \
  "          AND W >= 1 AND Mg = 0 AND Ng = 0 AND Kg = 0\n"                                        \
  "          AND (path = 'tma') = (d >= 1) AND d >= 0)\n"                                          \
  "      OR (path IS NULL AND o = 0 AND d = 0 AND m = 0 AND N = 0 AND W = 0\n"                     \
  "          AND Mg >= 1 AND Ng >= 1 AND Kg >= 1))"

/* A trigger that aborts `event` on `table` when the calibration `cal_expr`
 * (OLD.x or NEW.x) is frozen. */
#define FROZEN_GUARD(name, event, table, cal_expr)                                                 \
  "CREATE TRIGGER " name " BEFORE " event " ON " table "\n"                                        \
  "WHEN (SELECT state FROM calibrations WHERE id = " cal_expr ") = 'frozen'\n"                     \
  "BEGIN SELECT RAISE(ABORT, 'calibration is frozen'); END;\n"

/* Every guard of frozen rows, as migration 1 creates them (migration 4
 * recreates two of them with the same text). */
#define FROZEN_GUARDS_SQL                                                                          \
  "CREATE TRIGGER calibrations_frozen_update BEFORE UPDATE ON calibrations\n"                      \
  "WHEN OLD.state = 'frozen'\n"                                                                    \
  "BEGIN SELECT RAISE(ABORT, 'calibration is frozen'); END;\n"                                     \
  "CREATE TRIGGER calibrations_frozen_delete BEFORE DELETE ON calibrations\n"                      \
  "WHEN OLD.state = 'frozen'\n"                                                                    \
  "BEGIN SELECT RAISE(ABORT, 'calibration is frozen'); END;\n" FROZEN_GUARD(                       \
      "measurements_frozen_insert", "INSERT", "measurements", "NEW.calibration")                   \
      FROZEN_GUARD("measurements_frozen_update", "UPDATE", "measurements", "OLD.calibration")      \
          FROZEN_GUARD("measurements_frozen_update_into", "UPDATE", "measurements",                \
                       "NEW.calibration") FROZEN_GUARD("measurements_frozen_delete", "DELETE",     \
                                                       "measurements", "OLD.calibration")          \
              FROZEN_GUARD("jobs_frozen_insert", "INSERT", "jobs", "NEW.calibration")              \
                  FROZEN_GUARD("jobs_frozen_update", "UPDATE", "jobs", "OLD.calibration")          \
                      FROZEN_GUARD("jobs_frozen_update_into", "UPDATE", "jobs", "NEW.calibration") \
                          FROZEN_GUARD("jobs_frozen_delete", "DELETE", "jobs", "OLD.calibration")

static const char *const migrations[] = {
    /* 1: the initial schema */
    "CREATE TABLE devices (\n"
    "  name TEXT PRIMARY KEY NOT NULL,\n"
    "  arch TEXT NOT NULL,\n"
    "  sm_count INTEGER NOT NULL CHECK (sm_count >= 1),\n"
    "  capacity_blocks INTEGER NOT NULL CHECK (capacity_blocks >= 1),\n"
    "  block_bytes INTEGER NOT NULL CHECK (block_bytes >= 1),\n"
    "  created INTEGER NOT NULL\n"
    ") STRICT;\n"
    "CREATE TABLE calibrations (\n"
    "  id INTEGER PRIMARY KEY,\n"
    "  device TEXT NOT NULL REFERENCES devices (name),\n"
    "  workload TEXT NOT NULL CHECK (workload IN ('scan', 'gemm')),\n"
    "  state TEXT NOT NULL CHECK (state IN ('collecting', 'frozen', 'failed')),\n"
    "  plan TEXT,\n"
    "  bundle TEXT,\n"
    "  report TEXT,\n"
    "  content_hash TEXT,\n"
    "  created INTEGER NOT NULL,\n"
    "  frozen_at INTEGER,\n"
    "  CHECK (state <> 'frozen' OR (bundle IS NOT NULL AND report IS NOT NULL\n"
    "         AND content_hash IS NOT NULL AND frozen_at IS NOT NULL))\n"
    ") STRICT;\n"
    "CREATE INDEX calibrations_by_device ON calibrations (device, state);\n"
    "CREATE INDEX calibrations_by_hash ON calibrations (device, content_hash);\n"
    "CREATE TABLE jobs (\n"
    "  id INTEGER PRIMARY KEY,\n"
    "  calibration INTEGER NOT NULL REFERENCES calibrations (id),\n" RUN_COLUMN_DEFS
    "  state TEXT NOT NULL CHECK (state IN ('queued', 'leased', 'done', 'failed')),\n"
    "  lease_owner TEXT,\n"
    "  lease_token TEXT,\n"
    "  lease_expires INTEGER,\n"
    "  attempts INTEGER NOT NULL DEFAULT 0,\n"
    "  max_attempts INTEGER NOT NULL CHECK (max_attempts >= 1),\n"
    "  last_error TEXT,\n"
    "  finished INTEGER,\n" RUN_CHECK ",\n"
    "  CHECK (attempts >= 0 AND attempts <= max_attempts),\n"
    "  CHECK (state <> 'leased' OR (lease_token IS NOT NULL\n"
    "         AND lease_owner IS NOT NULL AND lease_expires IS NOT NULL))\n"
    ") STRICT;\n"
    "CREATE INDEX jobs_by_calibration ON jobs (calibration, state);\n"
    "CREATE INDEX jobs_leased ON jobs (lease_expires) WHERE state = 'leased';\n"
    "CREATE TABLE measurements (\n"
    "  id INTEGER PRIMARY KEY,\n"
    "  calibration INTEGER NOT NULL REFERENCES calibrations (id),\n"
    "  job INTEGER UNIQUE REFERENCES jobs (id),\n" RUN_COLUMN_DEFS
    "  fill_bytes REAL NOT NULL CHECK (fill_bytes >= 0),\n"
    "  kernel_ns REAL CHECK (kernel_ns IS NULL OR kernel_ns > 0),\n" RUN_CHECK "\n"
    ") STRICT;\n"
    "CREATE INDEX measurements_by_calibration ON measurements (calibration, job);\n"
    "CREATE TABLE agents (\n"
    "  name TEXT PRIMARY KEY NOT NULL,\n"
    "  last_seen INTEGER NOT NULL\n"
    ") STRICT;\n"
    "CREATE TABLE tokens (\n"
    "  id INTEGER PRIMARY KEY,\n"
    "  name TEXT NOT NULL,\n"
    "  role TEXT NOT NULL CHECK (role IN ('admin', 'agent')),\n"
    "  hash TEXT NOT NULL UNIQUE CHECK (length(hash) = 64),\n"
    "  created INTEGER NOT NULL,\n"
    "  revoked INTEGER\n"
    ") STRICT;\n" FROZEN_GUARDS_SQL,
    /* 2: a device's identity as CUDA reports it (NULL: unknown, e.g. a device
     *    registered from a bundle or before this migration) */
    "ALTER TABLE devices ADD COLUMN cuda_name TEXT\n"
    "  CHECK (cuda_name IS NULL OR length(cuda_name) BETWEEN 1 AND 63);\n"
    "ALTER TABLE devices ADD COLUMN cc_major INTEGER\n"
    "  CHECK (cc_major IS NULL OR cc_major BETWEEN 1 AND 99);\n"
    "ALTER TABLE devices ADD COLUMN cc_minor INTEGER\n"
    "  CHECK (cc_minor IS NULL OR cc_minor BETWEEN 0 AND 99);\n"
    "ALTER TABLE devices ADD COLUMN l2_bytes INTEGER\n"
    "  CHECK (l2_bytes IS NULL OR l2_bytes >= 1);\n",
    /* 3: runs of a held-out panel (measured, never fitted) are flagged */
    "ALTER TABLE jobs ADD COLUMN heldout INTEGER NOT NULL DEFAULT 0\n"
    "  CHECK (heldout IN (0, 1));\n"
    "ALTER TABLE measurements ADD COLUMN heldout INTEGER NOT NULL DEFAULT 0\n"
    "  CHECK (heldout IN (0, 1));\n",
    /* 4: a lease belongs to the API token that claimed it (lease_holder), and
     * lease secrets are kept as SHA-256 digests from now on. Secrets stored
     * in clear text by versions 1-3 are dropped: live leases go back to the queue
     * with their attempt returned, done jobs forget theirs (only an identical
     * re-upload under that old secret needed it). Frozen jobs are otherwise
     * immutable, so their guards are lifted for this one statement. */
    "ALTER TABLE jobs ADD COLUMN lease_holder INTEGER;\n"
    "UPDATE jobs SET state = 'queued', lease_token = NULL, attempts = attempts - 1,\n"
    "  last_error = 'lease dropped by the schema upgrade' WHERE state = 'leased';\n"
    "DROP TRIGGER jobs_frozen_update;\n"
    "DROP TRIGGER jobs_frozen_update_into;\n"
    "UPDATE jobs SET lease_token = NULL WHERE lease_token IS NOT NULL;\n" FROZEN_GUARD(
        "jobs_frozen_update", "UPDATE", "jobs", "OLD.calibration")
        FROZEN_GUARD("jobs_frozen_update_into", "UPDATE", "jobs", "NEW.calibration"),
    /* 5: a device's measured peaks for the latency pipeline (NULL: unknown;
     *    all five known or none, checked by the store before writing) */
    "ALTER TABLE devices ADD COLUMN peak_dram_bytes_per_s REAL\n"
    "  CHECK (peak_dram_bytes_per_s IS NULL OR peak_dram_bytes_per_s > 0);\n"
    "ALTER TABLE devices ADD COLUMN peak_l2_bytes_per_s REAL\n"
    "  CHECK (peak_l2_bytes_per_s IS NULL OR peak_l2_bytes_per_s > 0);\n"
    "ALTER TABLE devices ADD COLUMN peak_tensor_flops REAL\n"
    "  CHECK (peak_tensor_flops IS NULL OR peak_tensor_flops > 0);\n"
    "ALTER TABLE devices ADD COLUMN peak_sm_clock_hz REAL\n"
    "  CHECK (peak_sm_clock_hz IS NULL OR peak_sm_clock_hz > 0);\n"
    "ALTER TABLE devices ADD COLUMN peak_launch_s REAL\n"
    "  CHECK (peak_launch_s IS NULL OR peak_launch_s >= 0);\n",
    /* 6: what a device's probe measured besides its constants, as JSON objects
     *    pascald validates before writing (NULL: unknown): the capacity scan
     *    and the static cluster experiment (docs/bundle-format.md) */
    "ALTER TABLE devices ADD COLUMN capacity_probe TEXT\n"
    "  CHECK (capacity_probe IS NULL OR json_type(capacity_probe) = 'object');\n"
    "ALTER TABLE devices ADD COLUMN static_experiment TEXT\n"
    "  CHECK (static_experiment IS NULL OR json_type(static_experiment) = 'object');\n",
    /* 7: an operator may drop a run from a collecting calibration: the job
     *    is 'done' with excluded = 1 and has no measurement (jobs.c); and a
     *    lease's start, which bounds how long heartbeats may extend it */
    "ALTER TABLE jobs ADD COLUMN excluded INTEGER NOT NULL DEFAULT 0\n"
    "  CHECK (excluded IN (0, 1) AND (excluded = 0 OR state = 'done'));\n"
    "ALTER TABLE jobs ADD COLUMN lease_started INTEGER;\n"
    "UPDATE jobs SET lease_started = lease_expires WHERE state = 'leased';\n",
    /* 8: facts about the database itself: 'instance', a random id drawn
     *    when the file is made (a database rebuilt from exports has another),
     *    which a replica compares to notice that its primary changed */
    "CREATE TABLE IF NOT EXISTS meta (\n"
    "  key TEXT PRIMARY KEY NOT NULL,\n"
    "  value TEXT NOT NULL\n"
    ") STRICT;\n"
    "INSERT OR IGNORE INTO meta (key, value) VALUES ('instance', lower(hex(randomblob(16))));\n",
    /* 9: the attention workload (its runs are scan runs, RUN_CHECK holds).
     *    SQLite cannot alter a CHECK; widening one whose old rows all pass
     *    the new one is the text edit SQLite's ALTER TABLE documentation
     *    gives ("making other kinds of table schema changes"), followed by
     *    the schema_version bump apply() does for it (SCHEMA_TEXT_EDIT). */
    "PRAGMA writable_schema = ON;\n"
    "UPDATE sqlite_schema SET sql = replace(sql,\n"
    "  'CHECK (workload IN (''scan'', ''gemm''))',\n"
    "  'CHECK (workload IN (''scan'', ''gemm'', ''attention''))')\n"
    "WHERE type = 'table' AND name = 'calibrations';\n"
    "PRAGMA writable_schema = OFF;\n",
    /* 10: a GEMM run of another configuration than the calibration's own
     *     (a plan's "configurations", a bundle's "configurations"): its
     *     tile, element size, stages and raster; 0 in every column for
     *     every other run (the store checks the rest, validate.c) */
    "ALTER TABLE jobs ADD COLUMN tile_m INTEGER NOT NULL DEFAULT 0 CHECK (tile_m >= 0);\n"
    "ALTER TABLE jobs ADD COLUMN tile_n INTEGER NOT NULL DEFAULT 0 CHECK (tile_n >= 0);\n"
    "ALTER TABLE jobs ADD COLUMN tile_k INTEGER NOT NULL DEFAULT 0 CHECK (tile_k >= 0);\n"
    "ALTER TABLE jobs ADD COLUMN elem_bytes INTEGER NOT NULL DEFAULT 0 CHECK (elem_bytes >= 0);\n"
    "ALTER TABLE jobs ADD COLUMN stages INTEGER NOT NULL DEFAULT 0 CHECK (stages >= 0);\n"
    "ALTER TABLE jobs ADD COLUMN group_m INTEGER NOT NULL DEFAULT 0 CHECK (group_m >= 0);\n"
    "ALTER TABLE measurements ADD COLUMN tile_m INTEGER NOT NULL DEFAULT 0 CHECK (tile_m >= 0);\n"
    "ALTER TABLE measurements ADD COLUMN tile_n INTEGER NOT NULL DEFAULT 0 CHECK (tile_n >= 0);\n"
    "ALTER TABLE measurements ADD COLUMN tile_k INTEGER NOT NULL DEFAULT 0 CHECK (tile_k >= 0);\n"
    "ALTER TABLE measurements ADD COLUMN elem_bytes INTEGER NOT NULL DEFAULT 0 CHECK (elem_bytes "
    ">= 0);\n"
    "ALTER TABLE measurements ADD COLUMN stages INTEGER NOT NULL DEFAULT 0 CHECK (stages >= 0);\n"
    "ALTER TABLE measurements ADD COLUMN group_m INTEGER NOT NULL DEFAULT 0 CHECK (group_m >= "
    "0);\n",
};
/* The migration that edits the schema's text (and so bumps schema_version
 * itself, so that every connection reads the edited schema). */
#define SCHEMA_TEXT_EDIT 9

/* The guards of frozen rows as the schema has them now (migrations 1 and
 * 4), dropped and recreated around pascal_store_mirror_reset. */
static const char *const frozen_guards[] = {"calibrations_frozen_update",
                                            "calibrations_frozen_delete",
                                            "measurements_frozen_insert",
                                            "measurements_frozen_update",
                                            "measurements_frozen_update_into",
                                            "measurements_frozen_delete",
                                            "jobs_frozen_insert",
                                            "jobs_frozen_update",
                                            "jobs_frozen_update_into",
                                            "jobs_frozen_delete"};

static const char guards_sql[] = FROZEN_GUARDS_SQL;

int pascal_store_schema_latest(void)
{
  return (int)(sizeof migrations / sizeof migrations[0]);
}

static pascal_store_status exec(sqlite3 *db, const char *sql, pascal_error *err)
{
  int rc = sqlite3_exec(db, sql, NULL, NULL, NULL);
  return rc == SQLITE_OK ? PASCAL_STORE_OK : store_sql_error(db, rc, "migration", err);
}

static pascal_store_status read_version(sqlite3 *db, int *version, pascal_error *err)
{
  sqlite3_stmt *st = NULL;
  int rc = sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &st, NULL);
  if (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
    *version = sqlite3_column_int(st, 0);
    sqlite3_finalize(st);
    return PASCAL_STORE_OK;
  }
  pascal_store_status status = store_sql_error(db, rc, "reading user_version", err);
  sqlite3_finalize(st);
  return status;
}

/* Bump the schema cookie after an edit of the schema's text. */
static pascal_store_status bump_schema_version(sqlite3 *db, pascal_error *err)
{
  sqlite3_stmt *st = NULL;
  int rc = sqlite3_prepare_v2(db, "PRAGMA schema_version", -1, &st, NULL);
  if (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
    char bump[64];
    snprintf(bump, sizeof bump, "PRAGMA schema_version = %lld", sqlite3_column_int64(st, 0) + 1);
    sqlite3_finalize(st);
    return exec(db, bump, err);
  }
  pascal_store_status status = store_sql_error(db, rc, "reading schema_version", err);
  sqlite3_finalize(st);
  return status;
}

/* Apply migration number `target` (1-based) unless another connection did. */
static pascal_store_status apply(sqlite3 *db, int target, pascal_error *err)
{
  pascal_store_status status = exec(db, "BEGIN IMMEDIATE", err);
  if (status)
    return status;
  int version = 0;
  status = read_version(db, &version, err);
  if (status == PASCAL_STORE_OK && version < target) {
    status = exec(db, migrations[target - 1], err);
    if (status == PASCAL_STORE_OK && target == SCHEMA_TEXT_EDIT)
      status = bump_schema_version(db, err);
    if (status == PASCAL_STORE_OK) {
      char bump[48];
      snprintf(bump, sizeof bump, "PRAGMA user_version = %d", target);
      status = exec(db, bump, err);
    }
  }
  if (status == PASCAL_STORE_OK)
    return exec(db, "COMMIT", err);
  (void)sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL); /* status says what failed */
  return status;
}

pascal_store_status store_schema_require_latest(sqlite3 *db, pascal_error *err)
{
  int version = 0;
  pascal_store_status status = read_version(db, &version, err);
  if (status == PASCAL_STORE_OK && version != pascal_store_schema_latest())
    status = store_fail(err, PASCAL_STORE_IO, "user_version",
                        "database schema version %d is not %d, the one this pascald "
                        "reads without migrating",
                        version, pascal_store_schema_latest());
  return status;
}

pascal_store_status store_migrate(sqlite3 *db, pascal_error *err)
{
  int version = 0;
  pascal_store_status status = read_version(db, &version, err);
  if (status)
    return status;
  if (version > pascal_store_schema_latest())
    return store_fail(err, PASCAL_STORE_IO, "user_version",
                      "database schema version %d is newer than this pascald "
                      "knows (%d)",
                      version, pascal_store_schema_latest());
  for (int target = version + 1; target <= pascal_store_schema_latest(); target++) {
    status = apply(db, target, err);
    if (status)
      return status;
  }
  return PASCAL_STORE_OK;
}

pascal_store_status pascal_store_mirror_reset(pascal_store *s, pascal_error *err)
{
  pascal_store_status status = store_begin(s, err);
  if (status)
    return status;
  char drop[96];
  for (size_t i = 0; i < sizeof frozen_guards / sizeof frozen_guards[0] && !status; i++) {
    snprintf(drop, sizeof drop, "DROP TRIGGER %s", frozen_guards[i]);
    status = exec(s->db, drop, err);
  }
  if (!status)
    status = exec(s->db,
                  "DELETE FROM measurements; DELETE FROM jobs; DELETE FROM calibrations;"
                  " DELETE FROM devices; DELETE FROM agents;",
                  err);
  if (!status)
    status = exec(s->db, guards_sql, err);
  return store_end(s, status, err);
}
