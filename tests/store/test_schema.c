/*
 * test_schema.c - migrations: an empty file is migrated to the newest
 * version with every table, trigger and pragma in place; reopening is a
 * no-op that keeps the data; a file from a newer release is refused; a
 * failed migration leaves the previous version.
 */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "fixture.h"

static void test_fresh_and_reopen(void)
{
  fixture f;
  fixture_open(&f);
  int version = -1;
  CHECK_INT(pascal_store_schema_version(f.s, &version, NULL), PASCAL_STORE_OK);
  /* Migrations in store/src/schema.c: 1 the initial schema, 2 devices' CUDA
   * identity, 3 the held-out flag of runs, 4 lease holders and hashed lease secrets,
   * 5 devices' measured peaks, 6 devices' probe data (capacity scan, static
   * cluster experiment), 7 excluded runs and lease starts, 8 the database's
   * instance id, 9 the attention workload. */
  CHECK_INT(pascal_store_schema_latest(), 10);
  CHECK_INT(version, pascal_store_schema_latest());
  CHECK_INT(fixture_sql_int(&f, "PRAGMA user_version"), pascal_store_schema_latest());
  /* WAL is a property of the file: a second connection sees it. */
  CHECK_INT(fixture_sql_int(&f, "SELECT journal_mode = 'wal' FROM pragma_journal_mode"), 1);
  const char *tables[] = {"devices", "calibrations", "measurements", "jobs", "agents", "tokens"};
  for (size_t i = 0; i < sizeof tables / sizeof tables[0]; i++) {
    char sql[128];
    snprintf(sql, sizeof sql,
             "SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = '%s'", tables[i]);
    CHECK_INT(fixture_sql_int(&f, sql), 1);
  }
  CHECK(fixture_sql_int(&f, "SELECT count(*) FROM sqlite_schema WHERE type = 'trigger'") >= 6);

  pascal_store_device d = fixture_device();
  CHECK_INT(pascal_store_device_create(f.s, &d, 5, NULL, NULL), PASCAL_STORE_OK);
  pascal_store_close(f.s);
  /* Reopen twice: no migration runs again, data and version are kept. */
  for (int round = 0; round < 2; round++) {
    CHECK_INT(pascal_store_open(f.path, &f.s, NULL), PASCAL_STORE_OK);
    CHECK_INT(pascal_store_schema_version(f.s, &version, NULL), PASCAL_STORE_OK);
    CHECK_INT(version, pascal_store_schema_latest());
    pascal_store_device got;
    CHECK_INT(pascal_store_device_get(f.s, "gb10", &got, NULL), PASCAL_STORE_OK);
    CHECK_INT(got.created, 5);
    pascal_store_close(f.s);
  }
  CHECK_INT(pascal_store_open(f.path, &f.s, NULL), PASCAL_STORE_OK);
  fixture_done(&f);
}

static void test_newer_version_refused(void)
{
  fixture f;
  fixture_open(&f);
  CHECK_INT(fixture_sql_closed(&f, "PRAGMA user_version = 99"), SQLITE_OK);
  pascal_error err;
  pascal_store *s = NULL;
  CHECK_INT(pascal_store_open(f.path, &s, &err), PASCAL_STORE_IO);
  CHECK(s == NULL);
  CHECK(strstr(err.message, "newer") != NULL);
  CHECK_INT(err.status, PASCAL_ERANGE);
  char back[64];
  snprintf(back, sizeof back, "PRAGMA user_version = %d", pascal_store_schema_latest());
  CHECK_INT(fixture_sql(&f, back), SQLITE_OK);
  CHECK_INT(pascal_store_open(f.path, &f.s, NULL), PASCAL_STORE_OK);
  fixture_done(&f);
}

/* A file whose migration 1 fails halfway (a table of that name already
 * exists, so CREATE TABLE devices aborts after nothing) stays at version 0
 * with no table of the migration left behind. */
static void test_failed_migration_rolls_back(void)
{
  fixture f;
  fixture_open(&f);
  pascal_store_close(f.s);
  f.s = NULL;
  char suffix[320];
  snprintf(suffix, sizeof suffix, "%s-wal", f.path);
  remove(f.path);
  remove(suffix);
  snprintf(suffix, sizeof suffix, "%s-shm", f.path);
  remove(suffix);
  /* A fresh file where "tokens" (created late in migration 1) is taken. */
  sqlite3 *db = NULL;
  CHECK_INT(sqlite3_open(f.path, &db), SQLITE_OK);
  CHECK_INT(sqlite3_exec(db, "CREATE TABLE tokens (x)", NULL, NULL, NULL), SQLITE_OK);
  sqlite3_close(db);
  pascal_store *s = NULL;
  pascal_error err;
  CHECK_INT(pascal_store_open(f.path, &s, &err), PASCAL_STORE_IO);
  CHECK_INT(fixture_sql_int(&f, "PRAGMA user_version"), 0);
  CHECK_INT(fixture_sql_int(&f, "SELECT count(*) FROM sqlite_schema WHERE name = 'devices'"), 0);
  CHECK_INT(fixture_sql(&f, "DROP TABLE tokens"), SQLITE_OK);
  CHECK_INT(pascal_store_open(f.path, &f.s, NULL), PASCAL_STORE_OK);
  CHECK_INT(fixture_sql_int(&f, "PRAGMA user_version"), pascal_store_schema_latest());
  fixture_done(&f);
}

/* Migration 4 on a version-3 file (rebuilt from a fresh one by dropping the
 * columns of migrations 4 to 7 and storing clear-text secrets as versions
 * 1-3 did): the live lease
 * goes back to the queue with its attempt returned, no clear-text secret is
 * left (a frozen calibration's job included), the frozen guard is back. */
static void test_migration_4_hashes_leases(void)
{
  fixture f;
  fixture_open(&f);
  char tok[33];
  pascal_store_job j;
  fixture_frozen_calibration(&f, tok, &j, 10);
  fixture_calibration(&f, 2, 0);
  CHECK_INT(fixture_claim(&f, "b", tok, 'b', 20, &j), PASCAL_STORE_OK);
  int triggers = fixture_sql_int(&f, "SELECT count(*) FROM sqlite_schema WHERE type = 'trigger'");
  CHECK_INT(fixture_sql_closed(&f,
                               "DROP TRIGGER jobs_frozen_update;"
                               "DROP TRIGGER jobs_frozen_update_into;"
                               "UPDATE jobs SET lease_token = 'cleartext' || id;"
                               "ALTER TABLE jobs DROP COLUMN excluded; ALTER TABLE jobs DROP "
                               "COLUMN lease_started;" FIXTURE_DROP_MIGRATION_10
                               "ALTER TABLE jobs DROP COLUMN lease_holder;"
                               "ALTER TABLE devices DROP COLUMN peak_dram_bytes_per_s;"
                               "ALTER TABLE devices DROP COLUMN peak_l2_bytes_per_s;"
                               "ALTER TABLE devices DROP COLUMN peak_tensor_flops;"
                               "ALTER TABLE devices DROP COLUMN peak_sm_clock_hz;"
                               "ALTER TABLE devices DROP COLUMN peak_launch_s;"
                               "ALTER TABLE devices DROP COLUMN capacity_probe;"
                               "ALTER TABLE devices DROP COLUMN static_experiment;"
                               "CREATE TRIGGER jobs_frozen_update BEFORE UPDATE ON jobs"
                               " WHEN (SELECT state FROM calibrations WHERE id = OLD.calibration)"
                               " = 'frozen' BEGIN SELECT RAISE(ABORT, 'frozen'); END;"
                               "CREATE TRIGGER jobs_frozen_update_into BEFORE UPDATE ON jobs"
                               " WHEN (SELECT state FROM calibrations WHERE id = NEW.calibration)"
                               " = 'frozen' BEGIN SELECT RAISE(ABORT, 'frozen'); END;"
                               "PRAGMA user_version = 3"),
            SQLITE_OK);
  CHECK_INT(pascal_store_open(f.path, &f.s, NULL), PASCAL_STORE_OK);
  CHECK_INT(fixture_sql_int(&f, "PRAGMA user_version"), pascal_store_schema_latest());
  CHECK_INT(fixture_sql_int(&f, "SELECT count(*) FROM jobs WHERE lease_token IS NOT NULL"), 0);
  CHECK_INT(fixture_sql_int(&f, "SELECT count(*) FROM jobs WHERE state = 'leased'"), 0);
  pascal_store_job got;
  CHECK_INT(pascal_store_job_get(f.s, j.id, &got, NULL), PASCAL_STORE_OK);
  CHECK_INT(got.state, PASCAL_STORE_QUEUED);
  CHECK_INT(got.attempts, 0);
  CHECK_INT(fixture_sql_int(&f, "SELECT count(*) FROM sqlite_schema WHERE type = 'trigger'"),
            triggers);
  CHECK_INT(fixture_sql(&f, "UPDATE jobs SET state = 'queued' WHERE calibration = 1"),
            SQLITE_CONSTRAINT);
  CHECK_INT(fixture_sql(&f, "PRAGMA integrity_check"), SQLITE_OK);
  fixture_done(&f);
}

static void test_open_arguments(void)
{
  pascal_store *s = NULL;
  pascal_error err;
  CHECK_INT(pascal_store_open("", &s, &err), PASCAL_STORE_INVALID);
  CHECK(strcmp(err.field, "db") == 0);
  CHECK_INT(pascal_store_open("/proc/no-such-dir/x/pascal.db", &s, &err), PASCAL_STORE_IO);
  CHECK(s == NULL);
  /* Status names are stable API. */
  CHECK(strcmp(pascal_store_status_name(PASCAL_STORE_STALE), "stale") == 0);
  CHECK(strcmp(pascal_store_status_name(PASCAL_STORE_CONFLICT), "conflict") == 0);
  CHECK(strcmp(pascal_store_status_name(PASCAL_STORE_NOT_FOUND), "not_found") == 0);
}

/* Migration 9 on a version-8 file (the calibrations' CHECK edited back to
 * scan and gemm, as versions 1-8 wrote it, and a frozen scan calibration
 * in it): the file opens at the latest version, an attention calibration
 * is then accepted by the store and by SQLite's CHECK on a second
 * connection (so every connection reads the edited schema), a workload the
 * CHECK does not name is still refused, the frozen guards still hold and
 * the integrity check passes. Verified to fail without the migration (its
 * UPDATE removed: the store's attention insert fails the CHECK) and without
 * the schema_version bump (the store's own connection still checks the old
 * CHECK and refuses the attention calibration). */
static void test_migration_9_attention(void)
{
  fixture f;
  fixture_open(&f);
  char tok[33];
  pascal_store_job j;
  int64_t frozen = fixture_frozen_calibration(&f, tok, &j, 10);
  CHECK_INT(fixture_sql_closed(&f, FIXTURE_DROP_MIGRATION_10
                               "PRAGMA writable_schema = ON;"
                               "UPDATE sqlite_schema SET sql = replace(sql,"
                               " ', ''attention''', '') WHERE name = 'calibrations';"
                               "PRAGMA writable_schema = OFF;"
                               "PRAGMA user_version = 8"),
            SQLITE_OK);
  CHECK_INT(fixture_sql(&f, "INSERT INTO calibrations (device, workload, state, created)"
                            " VALUES ('gb10', 'attention', 'collecting', 1)"),
            SQLITE_CONSTRAINT);
  CHECK_INT(pascal_store_open(f.path, &f.s, NULL), PASCAL_STORE_OK);
  CHECK_INT(fixture_sql_int(&f, "PRAGMA user_version"), 10);
  pascal_store_run run = fixture_scan_run(1); /* a tma run: attention runs are scans */
  int64_t id = 0;
  pascal_error err;
  CHECK_INT(pascal_store_calibration_create(f.s, "gb10", PASCAL_STORE_ATTENTION, "{}", &run, 1, 0,
                                            20, &id, &err),
            PASCAL_STORE_OK);
  pascal_store_calibration c;
  memset(&c, 0, sizeof c);
  CHECK_INT(pascal_store_calibration_get(f.s, id, &c, NULL), PASCAL_STORE_OK);
  CHECK_INT(c.workload, PASCAL_STORE_ATTENTION);
  CHECK(strcmp(pascal_store_workload_name(c.workload), "attention") == 0);
  pascal_store_calibration_clear(&c);
  CHECK_INT(fixture_sql(&f, "INSERT INTO calibrations (device, workload, state, created)"
                            " VALUES ('gb10', 'attention', 'collecting', 1)"),
            SQLITE_OK);
  CHECK_INT(fixture_sql(&f, "INSERT INTO calibrations (device, workload, state, created)"
                            " VALUES ('gb10', 'conv', 'collecting', 1)"),
            SQLITE_CONSTRAINT);
  char sql[96];
  snprintf(sql, sizeof sql, "DELETE FROM calibrations WHERE id = %lld", (long long)frozen);
  CHECK_INT(fixture_sql(&f, sql), SQLITE_CONSTRAINT);
  CHECK_INT(fixture_sql_int(&f, "SELECT count(*) FROM pragma_integrity_check"
                                " WHERE integrity_check <> 'ok'"),
            0);
  fixture_done(&f);
}

int main(void)
{
  test_fresh_and_reopen();
  test_newer_version_refused();
  test_failed_migration_rolls_back();
  test_migration_9_attention();
  test_migration_4_hashes_leases();
  test_open_arguments();
  return check_summary();
}
