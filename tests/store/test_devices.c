/*
 * test_devices.c - device registration: create, idempotent re-create of the
 * same constants, conflict naming the differing constant, get, list in name
 * order, progress, and refusal of malformed names and constants.
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "fixture.h"

static void test_create_get_list(fixture *f)
{
  pascal_store_device d = fixture_device();
  int created = -1;
  CHECK_INT(pascal_store_device_create(f->s, &d, 100, &created, NULL), PASCAL_STORE_OK);
  CHECK_INT(created, 1);
  /* Identical constants again: OK, not created, original time kept. */
  CHECK_INT(pascal_store_device_create(f->s, &d, 200, &created, NULL), PASCAL_STORE_OK);
  CHECK_INT(created, 0);
  pascal_store_device got;
  CHECK_INT(pascal_store_device_get(f->s, "gb10", &got, NULL), PASCAL_STORE_OK);
  CHECK(strcmp(got.arch, "sm_121") == 0);
  CHECK_INT(got.sm_count, 48);
  CHECK_INT(got.capacity_blocks, 1280);
  CHECK_INT(got.block_bytes, 16384);
  CHECK_INT(got.created, 100);

  pascal_store_device other = d;
  strcpy(other.name, "a100");
  other.sm_count = 108;
  CHECK_INT(pascal_store_device_create(f->s, &other, 300, NULL, NULL), PASCAL_STORE_OK);
  pascal_store_device *list = NULL;
  size_t n = 0;
  CHECK_INT(pascal_store_device_list(f->s, &list, &n, NULL), PASCAL_STORE_OK);
  CHECK_INT(n, 2);
  if (n == 2) {
    CHECK(strcmp(list[0].name, "a100") == 0);
    CHECK(strcmp(list[1].name, "gb10") == 0);
    CHECK_INT(list[0].sm_count, 108);
  }
  free(list);
}

static void test_conflicts(fixture *f)
{
  pascal_store_device base = fixture_device();
  pascal_store_device d;
  pascal_error err;
  const char *fields[] = {"arch", "sm_count", "capacity_blocks", "block_bytes"};
  for (int i = 0; i < 4; i++) {
    d = base;
    if (i == 0)
      strcpy(d.arch, "sm_90");
    else if (i == 1)
      d.sm_count = 47;
    else if (i == 2)
      d.capacity_blocks = 1281;
    else
      d.block_bytes = 8192;
    CHECK_INT(pascal_store_device_create(f->s, &d, 400, NULL, &err), PASCAL_STORE_CONFLICT);
    CHECK(strcmp(err.field, fields[i]) == 0);
    CHECK_INT(err.status, PASCAL_EREFUSED);
  }
  pascal_store_device got;
  CHECK_INT(pascal_store_device_get(f->s, "gb10", &got, NULL), PASCAL_STORE_OK);
  CHECK_INT(got.sm_count, 48); /* unchanged by the refused re-creates */
}

static void test_invalid(fixture *f)
{
  pascal_error err;
  pascal_store_device d = fixture_device();
  strcpy(d.name, "bad name");
  CHECK_INT(pascal_store_device_create(f->s, &d, 1, NULL, &err), PASCAL_STORE_INVALID);
  CHECK(strcmp(err.field, "device.name") == 0);
  d = fixture_device();
  d.name[0] = '\0';
  CHECK_INT(pascal_store_device_create(f->s, &d, 1, NULL, &err), PASCAL_STORE_INVALID);
  d = fixture_device();
  memset(d.name, 'x', sizeof d.name); /* not terminated */
  CHECK_INT(pascal_store_device_create(f->s, &d, 1, NULL, &err), PASCAL_STORE_INVALID);
  d = fixture_device();
  d.sm_count = 0;
  CHECK_INT(pascal_store_device_create(f->s, &d, 1, NULL, &err), PASCAL_STORE_INVALID);
  CHECK(strcmp(err.field, "device.sm_count") == 0);
  d = fixture_device();
  CHECK_INT(pascal_store_device_create(f->s, &d, -1, NULL, &err), PASCAL_STORE_INVALID);
  CHECK(strcmp(err.field, "now") == 0);
  pascal_store_device got;
  CHECK_INT(pascal_store_device_get(f->s, "nope", &got, &err), PASCAL_STORE_NOT_FOUND);
  CHECK_INT(err.status, PASCAL_ENOTFOUND);
  CHECK_INT(pascal_store_device_get(f->s, "../etc", &got, &err), PASCAL_STORE_INVALID);
  int64_t done = -1, total = -1;
  CHECK_INT(pascal_store_device_progress(f->s, "nope", &done, &total, NULL),
            PASCAL_STORE_NOT_FOUND);
  CHECK_INT(done, -1); /* untouched on failure */
}

static void test_progress(fixture *f)
{
  int64_t done = -1, total = -1;
  CHECK_INT(pascal_store_device_progress(f->s, "gb10", &done, &total, NULL), PASCAL_STORE_OK);
  CHECK_INT(done, 0);
  CHECK_INT(total, 0);
  fixture_calibration(f, 5, 0);
  CHECK_INT(pascal_store_device_progress(f->s, "gb10", &done, &total, NULL), PASCAL_STORE_OK);
  CHECK_INT(done, 0);
  CHECK_INT(total, 5);
  CHECK_INT(pascal_store_device_progress(f->s, "a100", &done, &total, NULL), PASCAL_STORE_OK);
  CHECK_INT(total, 0);
}

int main(void)
{
  fixture f;
  fixture_open(&f);
  test_create_get_list(&f);
  test_conflicts(&f);
  test_invalid(&f);
  test_progress(&f);
  fixture_done(&f);
  return check_summary();
}
