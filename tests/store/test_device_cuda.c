/*
 * test_device_cuda.c - a device's CUDA identity (name, compute capability,
 * L2 size): stored and read back; unknown parts filled in by a later
 * registration, known parts in conflict refused by name; malformed values
 * refused; and migration 2 upgrading a version-1 file that already holds a
 * device, which keeps it with an unknown identity.
 */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "fixture.h"

static pascal_store_device h100(void)
{
  pascal_store_device d = fixture_device();
  snprintf(d.name, sizeof d.name, "h100-a");
  snprintf(d.arch, sizeof d.arch, "sm_90");
  d.sm_count = 132;
  d.capacity_blocks = 3200;
  snprintf(d.cuda_name, sizeof d.cuda_name, "NVIDIA H100 80GB HBM3");
  d.cc_major = 9;
  d.cc_minor = 0;
  d.l2_bytes = 52428800;
  return d;
}

/* Register `d` at time `now`, expecting *created = `want_created`, then read
 * back `d`'s name: it must hold the full H100 identity (or none at all). */
static void register_and_expect(fixture *f, const pascal_store_device *d, int64_t now,
                                int want_created, int want_identity)
{
  pascal_store_device got;
  int created = -1;
  CHECK_INT(pascal_store_device_create(f->s, d, now, &created, NULL), PASCAL_STORE_OK);
  CHECK_INT(created, want_created);
  CHECK_INT(pascal_store_device_get(f->s, d->name, &got, NULL), PASCAL_STORE_OK);
  CHECK(strcmp(got.cuda_name, want_identity ? "NVIDIA H100 80GB HBM3" : "") == 0);
  CHECK_INT(got.cc_major, want_identity ? 9 : 0);
  CHECK_INT(got.cc_minor, 0);
  CHECK_INT(got.l2_bytes, want_identity ? 52428800 : 0);
}

static void test_round_trip_and_fill_in(fixture *f)
{
  pascal_store_device d = h100(), got;
  register_and_expect(f, &d, 10, 1, 1);

  /* A registration that does not know the identity is the same device. */
  pascal_store_device bare = h100();
  bare.cuda_name[0] = '\0';
  bare.cc_major = bare.cc_minor = 0;
  bare.l2_bytes = 0;
  register_and_expect(f, &bare, 20, 0, 1);

  /* A device registered without it learns it from the first one who knows. */
  snprintf(bare.name, sizeof bare.name, "h100-b");
  register_and_expect(f, &bare, 30, 1, 0);
  pascal_store_device full = h100();
  snprintf(full.name, sizeof full.name, "h100-b");
  register_and_expect(f, &full, 40, 0, 1);
  CHECK_INT(pascal_store_device_get(f->s, "h100-b", &got, NULL), PASCAL_STORE_OK);
  CHECK_INT(got.created, 30);

  /* Known and different: refused, naming the field; nothing changes. */
  pascal_error err;
  pascal_store_device other = h100();
  snprintf(other.cuda_name, sizeof other.cuda_name, "NVIDIA H200");
  CHECK_INT(pascal_store_device_create(f->s, &other, 50, NULL, &err), PASCAL_STORE_CONFLICT);
  CHECK(strcmp(err.field, "cuda_name") == 0);
  other = h100();
  other.cc_minor = 1;
  CHECK_INT(pascal_store_device_create(f->s, &other, 50, NULL, &err), PASCAL_STORE_CONFLICT);
  CHECK(strcmp(err.field, "compute_capability") == 0);
  other = h100();
  other.l2_bytes = 1;
  CHECK_INT(pascal_store_device_create(f->s, &other, 50, NULL, &err), PASCAL_STORE_CONFLICT);
  CHECK(strcmp(err.field, "l2_bytes") == 0);
  CHECK_INT(pascal_store_device_get(f->s, "h100-a", &got, NULL), PASCAL_STORE_OK);
  CHECK(strcmp(got.cuda_name, "NVIDIA H100 80GB HBM3") == 0);
  CHECK_INT(got.cc_minor, 0);
}

static void test_refusals(fixture *f)
{
  static const char *const bad_names[] = {" NVIDIA H100", "NVIDIA H100 ", "NVIDIA\tH100",
                                          "NVIDIA \xc3\xa9"};
  pascal_error err;
  for (size_t i = 0; i < sizeof bad_names / sizeof *bad_names; i++) {
    pascal_store_device d = h100();
    snprintf(d.name, sizeof d.name, "bad%zu", i);
    snprintf(d.cuda_name, sizeof d.cuda_name, "%s", bad_names[i]);
    CHECK_INT(pascal_store_device_create(f->s, &d, 1, NULL, &err), PASCAL_STORE_INVALID);
    CHECK(strcmp(err.field, "device.cuda_name") == 0);
  }
  pascal_store_device d = h100();
  snprintf(d.name, sizeof d.name, "badcc");
  d.cc_major = 0;
  d.cc_minor = 5;
  CHECK_INT(pascal_store_device_create(f->s, &d, 1, NULL, &err), PASCAL_STORE_INVALID);
  CHECK(strcmp(err.field, "device.compute_capability") == 0);
  d.cc_major = 100;
  CHECK_INT(pascal_store_device_create(f->s, &d, 1, NULL, &err), PASCAL_STORE_INVALID);
  CHECK_INT(pascal_store_device_get(f->s, "badcc", &d, NULL), PASCAL_STORE_NOT_FOUND);
  /* The schema refuses what the code would: an empty CUDA name. */
  CHECK(fixture_sql(f, "UPDATE devices SET cuda_name = '' WHERE name = 'h100-a'") != SQLITE_OK);
}

/* A version-1 file with a device: migration 2 adds the columns, keeps it
 * (the later migrations' columns are dropped too, so that the file is a
 * true version 1). */
static void test_migration_from_1(void)
{
  fixture f;
  fixture_open(&f);
  pascal_store_device d = fixture_device();
  CHECK_INT(pascal_store_device_create(f.s, &d, 7, NULL, NULL), PASCAL_STORE_OK);
  CHECK_INT(
      fixture_sql_closed(
          &f, "ALTER TABLE jobs DROP COLUMN excluded; ALTER TABLE jobs DROP COLUMN lease_started; "
              "ALTER TABLE devices DROP COLUMN cuda_name; "
              "ALTER TABLE devices DROP COLUMN cc_major; "
              "ALTER TABLE devices DROP COLUMN cc_minor; "
              "ALTER TABLE devices DROP COLUMN l2_bytes; " FIXTURE_DROP_MIGRATION_10
              "ALTER TABLE jobs DROP COLUMN heldout; "
              "ALTER TABLE measurements DROP COLUMN heldout; "
              "ALTER TABLE jobs DROP COLUMN lease_holder; "
              "ALTER TABLE devices DROP COLUMN peak_dram_bytes_per_s; "
              "ALTER TABLE devices DROP COLUMN peak_l2_bytes_per_s; "
              "ALTER TABLE devices DROP COLUMN peak_tensor_flops; "
              "ALTER TABLE devices DROP COLUMN peak_sm_clock_hz; "
              "ALTER TABLE devices DROP COLUMN peak_launch_s; "
              "ALTER TABLE devices DROP COLUMN capacity_probe; "
              "ALTER TABLE devices DROP COLUMN static_experiment; "
              "PRAGMA user_version = 1"),
      SQLITE_OK);
  CHECK_INT(fixture_sql_int(&f, "SELECT count(*) FROM pragma_table_info('devices')"), 6);
  CHECK_INT(pascal_store_open(f.path, &f.s, NULL), PASCAL_STORE_OK);
  CHECK(fixture_sql_int(&f, "PRAGMA user_version") >= 2);
  CHECK_INT(fixture_sql_int(&f, "SELECT count(*) FROM pragma_table_info('devices') WHERE name IN "
                                "('cuda_name', 'cc_major', 'cc_minor', 'l2_bytes')"),
            4);
  pascal_store_device got;
  CHECK_INT(pascal_store_device_get(f.s, "gb10", &got, NULL), PASCAL_STORE_OK);
  CHECK_INT(got.created, 7);
  CHECK_INT(got.cuda_name[0], '\0');
  CHECK_INT(got.cc_major, 0);
  CHECK_INT(got.l2_bytes, 0);
  snprintf(d.cuda_name, sizeof d.cuda_name, "NVIDIA GB10");
  d.cc_major = 12;
  d.cc_minor = 1;
  CHECK_INT(pascal_store_device_create(f.s, &d, 8, NULL, NULL), PASCAL_STORE_OK);
  CHECK_INT(pascal_store_device_get(f.s, "gb10", &got, NULL), PASCAL_STORE_OK);
  CHECK(strcmp(got.cuda_name, "NVIDIA GB10") == 0);
  CHECK_INT(got.cc_minor, 1);
  fixture_done(&f);
}

int main(void)
{
  fixture f;
  fixture_open(&f);
  test_round_trip_and_fill_in(&f);
  test_refusals(&f);
  fixture_done(&f);
  test_migration_from_1();
  return check_summary();
}
