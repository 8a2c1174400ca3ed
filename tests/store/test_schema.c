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
   * identity, 3 the held-out flag of runs. */
  CHECK_INT(pascal_store_schema_latest(), 4);
  CHECK_INT(version, pascal_store_schema_latest());
  CHECK_INT(fixture_sql_int(&f, "PRAGMA user_version"), pascal_store_schema_latest());
  /* WAL is a property of the file: a second connection sees it. */
  CHECK_INT(fixture_sql_int(&f, "SELECT journal_mode = 'wal' FROM pragma_journal_mode"), 1);
  const char *tables[] = {"devices", "calibrations", "measurements", "jobs", "agents", "tokens"};
  for (size_t i = 0; i < sizeof tables / sizeof tables[0]; i++) {
    char sql[128];
    snprintf(sql, sizeof sql,
             "SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = '%s'",
             tables[i]);
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
  pascal_store_close(f.s);
  f.s = NULL;
  CHECK_INT(fixture_sql(&f, "PRAGMA user_version = 99"), SQLITE_OK);
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

int main(void)
{
  test_fresh_and_reopen();
  test_newer_version_refused();
  test_failed_migration_rolls_back();
  test_open_arguments();
  return check_summary();
}
