/*
 * test_mirror.c - what a replica needs to notice that its primary changed
 * and to start over (issue 37, finding 6): every database file has its own
 * random instance id, stable across reopening; meta values round-trip;
 * pascal_store_mirror_reset empties calibrations (frozen ones included),
 * jobs, measurements, devices and agents in one transaction, keeps tokens
 * and meta, and puts the frozen-row guards back. Before it, a frozen
 * calibration could not be deleted at all (the guards), so a replica could
 * only keep serving its old ids.
 */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "fixture.h"

static void test_instance_and_meta(void)
{
  fixture a, b;
  fixture_open(&a);
  fixture_open(&b);
  char ia[PASCAL_STORE_META_MAX], ib[PASCAL_STORE_META_MAX], again[PASCAL_STORE_META_MAX];
  CHECK_INT(pascal_store_meta_get(a.s, "instance", ia, sizeof ia, NULL), PASCAL_STORE_OK);
  CHECK_INT(pascal_store_meta_get(b.s, "instance", ib, sizeof ib, NULL), PASCAL_STORE_OK);
  CHECK_INT((int)strlen(ia), 32);
  CHECK_INT((int)strspn(ia, "0123456789abcdef"), 32);
  CHECK(strcmp(ia, ib) != 0);
  pascal_store_close(a.s);
  CHECK_INT(pascal_store_open(a.path, &a.s, NULL), PASCAL_STORE_OK);
  CHECK_INT(pascal_store_meta_get(a.s, "instance", again, sizeof again, NULL), PASCAL_STORE_OK);
  CHECK(strcmp(ia, again) == 0);
  pascal_error err;
  CHECK_INT(pascal_store_meta_get(a.s, "primary_instance", again, sizeof again, &err),
            PASCAL_STORE_NOT_FOUND);
  CHECK_INT(pascal_store_meta_set(a.s, "primary_instance", "abc", NULL), PASCAL_STORE_OK);
  CHECK_INT(pascal_store_meta_set(a.s, "primary_instance", "def", NULL), PASCAL_STORE_OK);
  CHECK_INT(pascal_store_meta_get(a.s, "primary_instance", again, sizeof again, NULL),
            PASCAL_STORE_OK);
  CHECK(strcmp(again, "def") == 0);
  fixture_done(&a);
  fixture_done(&b);
}

static void test_reset(void)
{
  fixture f;
  fixture_open(&f);
  char tok[33];
  pascal_store_job j;
  fixture_frozen_calibration(&f, tok, &j, 100);
  fixture_calibration(&f, 3, 3);
  int64_t tid = 0;
  CHECK_INT(pascal_store_token_create(
                f.s, "keep", PASCAL_STORE_ROLE_ADMIN,
                "abababababababababababababababababababababababababababababababab", 1, &tid, NULL),
            PASCAL_STORE_OK);
  long long triggers =
      fixture_sql_int(&f, "SELECT count(*) FROM sqlite_schema WHERE type = 'trigger'");
  CHECK(fixture_sql(&f, "DELETE FROM calibrations WHERE state = 'frozen'") != SQLITE_OK);
  CHECK_INT(pascal_store_mirror_reset(f.s, NULL), PASCAL_STORE_OK);
  const char *tables[] = {"calibrations", "jobs", "measurements", "devices", "agents"};
  for (size_t i = 0; i < sizeof tables / sizeof tables[0]; i++) {
    char sql[64];
    snprintf(sql, sizeof sql, "SELECT count(*) FROM %s", tables[i]);
    CHECK_INT(fixture_sql_int(&f, sql), 0);
  }
  CHECK_INT(fixture_sql_int(&f, "SELECT count(*) FROM tokens"), 1);
  CHECK_INT(fixture_sql_int(&f, "SELECT count(*) FROM meta WHERE key = 'instance'"), 1);
  CHECK_INT(fixture_sql_int(&f, "SELECT count(*) FROM sqlite_schema WHERE type = 'trigger'"),
            triggers);
  /* the guards are back: a calibration frozen after the reset is immutable */
  fixture_frozen_calibration(&f, tok, &j, 200);
  CHECK(fixture_sql(&f, "DELETE FROM calibrations WHERE state = 'frozen'") != SQLITE_OK);
  CHECK(fixture_sql(&f, "UPDATE jobs SET attempts = 0") != SQLITE_OK);
  CHECK_INT(fixture_sql(&f, "PRAGMA integrity_check"), SQLITE_OK);
  fixture_done(&f);
}

int main(void)
{
  test_instance_and_meta();
  test_reset();
  return check_summary();
}
