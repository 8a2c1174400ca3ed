/*
 * test_fsync.c - every acknowledged write has reached the disk: the test
 * interposes fsync()/fdatasync() (SQLite's shared library calls them through
 * the dynamic linker, so this executable's definitions are the ones used),
 * counts them, and checks that each write the daemon acknowledges (device
 * create, calibration create, claim, heartbeat, result, fail, import,
 * token create) synced at least once before returning, as synchronous=FULL in WAL
 * mode does and synchronous=NORMAL would not. This is the power-loss half
 * of the durability argument in docs/store.md; test_durable.c is the kill -9
 * half. Reads must not sync.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "fixture.h"

static long syncs; /* test-only counter, read and reset by main's thread */

int fsync(int fd)
{
  static int (*real)(int);
  if (!real)
    real = (int (*)(int))dlsym(RTLD_NEXT, "fsync");
  syncs++;
  return real(fd);
}

int fdatasync(int fd)
{
  static int (*real)(int);
  if (!real)
    real = (int (*)(int))dlsym(RTLD_NEXT, "fdatasync");
  syncs++;
  return real(fd);
}

#define SYNCED(call)                                                                               \
  do {                                                                                             \
    syncs = 0;                                                                                     \
    CHECK_INT((call), PASCAL_STORE_OK);                                                            \
    CHECK(syncs >= 1);                                                                             \
  } while (0)

#define NOT_SYNCED(call)                                                                           \
  do {                                                                                             \
    syncs = 0;                                                                                     \
    CHECK_INT((call), PASCAL_STORE_OK);                                                            \
    CHECK_INT(syncs, 0);                                                                           \
  } while (0)

int main(void)
{
  fixture f;
  fixture_open(&f);
  pascal_store_device d = fixture_device();
  SYNCED(pascal_store_device_create(f.s, &d, 1, NULL, NULL));
  pascal_store_run runs[2] = {fixture_scan_run(0), fixture_scan_run(1)};
  int64_t cal = 0, tid = 0, expires = 0;
  SYNCED(pascal_store_calibration_create(f.s, "gb10", PASCAL_STORE_SCAN, "{}", runs, 2, 0, 2, &cal,
                                         NULL));
  char ta[33], tb[33];
  pascal_store_job j;
  int claimed = 0;
  SYNCED(pascal_store_job_claim(f.s, "gb10", "a", fixture_token(ta, 'a'), HOLDER, 3, 60, &j,
                                &claimed, NULL, NULL));
  SYNCED(pascal_store_job_heartbeat(f.s, j.id, ta, HOLDER, 4, 60, &expires, NULL));
  SYNCED(pascal_store_job_result(f.s, j.id, ta, HOLDER, 1e9, 1e6, 5, NULL, NULL));
  SYNCED(pascal_store_job_claim(f.s, "gb10", "a", fixture_token(tb, 'b'), HOLDER, 6, 60, &j,
                                &claimed, NULL, NULL));
  SYNCED(pascal_store_job_fail(f.s, j.id, tb, HOLDER, "x", 7, NULL, NULL));
  SYNCED(pascal_store_token_create(
      f.s, "t", PASCAL_STORE_ROLE_ADMIN,
      "eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee", 8, &tid, NULL));
  pascal_store_measurement m = {.run = runs[0], .fill_bytes = 1.0};
  int64_t imported = 0;
  SYNCED(pascal_store_calibration_import(
      f.s, &d, PASCAL_STORE_SCAN, NULL, &m, 1, "{}", "{}",
      "ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff", 9, &imported, NULL,
      NULL));
  pascal_store_calibration c;
  NOT_SYNCED(pascal_store_calibration_get(f.s, cal, &c, NULL));
  pascal_store_calibration_clear(&c);
  int64_t done = 0, total = 0;
  NOT_SYNCED(pascal_store_device_progress(f.s, "gb10", &done, &total, NULL));
  fixture_done(&f);
  return check_summary();
}
