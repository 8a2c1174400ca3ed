/*
 * test_device_probe_data.c - a device's probe data (migration 6): the
 * capacity scan and static experiment texts stored and read back byte for
 * byte; unknown ones filled in by a later registration, different ones
 * refused naming the field; the schema refuses text that is not a JSON
 * object; a version-5 file gains the columns with its device kept.
 */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "fixture.h"

static const char PROBE[] = "{\"waves\":4,\"size_blocks\":[384,521],\"fill_ratio\":[1.0,3.5]}";
static const char TABLE[] = "{\"M\":2,\"N\":8,\"H\":4,\"rows\":[{\"block_bytes\":4096,\"C\":4,"
                            "\"clusters\":1,\"K\":0.5,\"gap_law\":0.5,\"sdcm\":0.5,\"che\":0.25}]}";

static void test_fill_in_and_conflict(fixture *f)
{
  pascal_store_device d = fixture_device(), got;
  pascal_error err;
  int created = -1;
  CHECK_INT(pascal_store_device_create(f->s, &d, 1, &created, NULL), PASCAL_STORE_OK);
  CHECK_INT(pascal_store_device_get(f->s, d.name, &got, NULL), PASCAL_STORE_OK);
  CHECK(!got.capacity_probe[0] && !got.static_experiment[0]);
  /* a later registration that knows the probe fills it in */
  snprintf(d.capacity_probe, sizeof d.capacity_probe, "%s", PROBE);
  CHECK_INT(pascal_store_device_create(f->s, &d, 2, &created, NULL), PASCAL_STORE_OK);
  CHECK_INT(created, 0);
  CHECK_INT(pascal_store_device_get(f->s, d.name, &got, NULL), PASCAL_STORE_OK);
  CHECK(strcmp(got.capacity_probe, PROBE) == 0);
  CHECK(!got.static_experiment[0]);
  /* then the static table; the probe, unknown to this one, stays */
  d.capacity_probe[0] = '\0';
  snprintf(d.static_experiment, sizeof d.static_experiment, "%s", TABLE);
  CHECK_INT(pascal_store_device_create(f->s, &d, 3, &created, NULL), PASCAL_STORE_OK);
  CHECK_INT(pascal_store_device_get(f->s, d.name, &got, NULL), PASCAL_STORE_OK);
  CHECK(strcmp(got.capacity_probe, PROBE) == 0);
  CHECK(strcmp(got.static_experiment, TABLE) == 0);
  /* a different probe or table is refused, naming it, and nothing changes */
  snprintf(d.capacity_probe, sizeof d.capacity_probe, "%s",
           "{\"waves\":4,\"size_blocks\":[384,521],\"fill_ratio\":[1.0,3.6]}");
  CHECK_INT(pascal_store_device_create(f->s, &d, 4, &created, &err), PASCAL_STORE_CONFLICT);
  CHECK(strcmp(err.field, "capacity_probe") == 0);
  d.capacity_probe[0] = '\0';
  d.static_experiment[7] = '3';
  CHECK_INT(pascal_store_device_create(f->s, &d, 5, &created, &err), PASCAL_STORE_CONFLICT);
  CHECK(strcmp(err.field, "static_experiment") == 0);
  CHECK_INT(pascal_store_device_get(f->s, d.name, &got, NULL), PASCAL_STORE_OK);
  CHECK(strcmp(got.capacity_probe, PROBE) == 0);
  CHECK(strcmp(got.static_experiment, TABLE) == 0);
  /* the schema refuses text that is not a JSON object */
  CHECK(fixture_sql(f, "UPDATE devices SET capacity_probe = '[1,2]'") != SQLITE_OK);
  CHECK(fixture_sql(f, "UPDATE devices SET static_experiment = 'not json'") != SQLITE_OK);
  /* an unterminated text never reaches SQLite */
  pascal_store_device bad = fixture_device();
  snprintf(bad.name, sizeof bad.name, "unterminated");
  memset(bad.static_experiment, 'x', sizeof bad.static_experiment);
  CHECK_INT(pascal_store_device_create(f->s, &bad, 1, NULL, &err), PASCAL_STORE_INVALID);
  CHECK(strcmp(err.field, "device.static_experiment") == 0);
  CHECK_INT(pascal_store_device_get(f->s, "unterminated", &got, NULL), PASCAL_STORE_NOT_FOUND);
}

/* A version-5 file (the columns of migrations 6 and 7 dropped) opens at the latest
 * version with its device and no probe data. */
static void test_migration_from_5(fixture *f)
{
  pascal_store_device d = fixture_device(), got;
  snprintf(d.name, sizeof d.name, "old5");
  CHECK_INT(pascal_store_device_create(f->s, &d, 9, NULL, NULL), PASCAL_STORE_OK);
  CHECK_INT(fixture_sql_closed(
                f, FIXTURE_DROP_MIGRATION_10
                "ALTER TABLE jobs DROP COLUMN excluded; ALTER TABLE jobs DROP COLUMN lease_started;"
                "ALTER TABLE devices DROP COLUMN capacity_probe;"
                "ALTER TABLE devices DROP COLUMN static_experiment;"
                "PRAGMA user_version = 5"),
            SQLITE_OK);
  CHECK_INT(pascal_store_open(f->path, &f->s, NULL), PASCAL_STORE_OK);
  CHECK_INT(fixture_sql_int(f, "PRAGMA user_version"), pascal_store_schema_latest());
  CHECK_INT(pascal_store_device_get(f->s, "old5", &got, NULL), PASCAL_STORE_OK);
  CHECK_INT(got.created, 9);
  CHECK(!got.capacity_probe[0] && !got.static_experiment[0]);
}

int main(void)
{
  fixture f;
  fixture_open(&f);
  test_fill_in_and_conflict(&f);
  test_migration_from_5(&f);
  fixture_done(&f);
  return check_summary();
}
