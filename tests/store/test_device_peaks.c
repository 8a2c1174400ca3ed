/*
 * test_device_peaks.c - a device's measured peaks (migration 5): stored and
 * read back bit for bit; unknown peaks filled in by a later registration,
 * different ones refused naming "peaks"; out-of-range peaks refused naming
 * the peak; the schema refuses what the store would.
 */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "fixture.h"

static const pascal_peaks PEAKS = {273e9, 1e12 / 3.0, 6.5536e12, 1e9, 2e-6};

static void test_peaks(fixture *f)
{
  pascal_store_device d = fixture_device(), got;
  pascal_error err;
  int created = -1;
  CHECK_INT(pascal_store_device_create(f->s, &d, 1, &created, NULL), PASCAL_STORE_OK);
  CHECK_INT(pascal_store_device_get(f->s, d.name, &got, NULL), PASCAL_STORE_OK);
  CHECK(!got.has_peaks);
  /* a later registration that knows them fills them in */
  d.has_peaks = 1;
  d.peaks = PEAKS;
  CHECK_INT(pascal_store_device_create(f->s, &d, 2, &created, NULL), PASCAL_STORE_OK);
  CHECK_INT(created, 0);
  CHECK_INT(pascal_store_device_get(f->s, d.name, &got, NULL), PASCAL_STORE_OK);
  CHECK(got.has_peaks && memcmp(&got.peaks, &PEAKS, sizeof PEAKS) == 0);
  /* one that does not know them changes nothing; one that differs is refused */
  d.has_peaks = 0;
  CHECK_INT(pascal_store_device_create(f->s, &d, 3, &created, NULL), PASCAL_STORE_OK);
  CHECK_INT(pascal_store_device_get(f->s, d.name, &got, NULL), PASCAL_STORE_OK);
  CHECK(got.has_peaks && got.peaks.l2_bytes_per_s == PEAKS.l2_bytes_per_s);
  d.has_peaks = 1;
  d.peaks.tensor_flops *= 2;
  CHECK_INT(pascal_store_device_create(f->s, &d, 4, &created, &err), PASCAL_STORE_CONFLICT);
  CHECK(strcmp(err.field, "peaks") == 0);
  /* out of range: refused naming the peak, nothing written */
  pascal_store_device bad = fixture_device();
  snprintf(bad.name, sizeof bad.name, "badpeaks");
  bad.has_peaks = 1;
  bad.peaks = PEAKS;
  bad.peaks.launch_s = -1;
  CHECK_INT(pascal_store_device_create(f->s, &bad, 1, NULL, &err), PASCAL_STORE_INVALID);
  CHECK(strcmp(err.field, "device.peaks.launch_s") == 0);
  bad.peaks = PEAKS;
  bad.peaks.dram_bytes_per_s = 0;
  CHECK_INT(pascal_store_device_create(f->s, &bad, 1, NULL, &err), PASCAL_STORE_INVALID);
  CHECK(strcmp(err.field, "device.peaks.dram_bytes_per_s") == 0);
  CHECK_INT(pascal_store_device_get(f->s, "badpeaks", &got, NULL), PASCAL_STORE_NOT_FOUND);
  /* the schema refuses a non-positive bandwidth too */
  CHECK(fixture_sql(f, "UPDATE devices SET peak_l2_bytes_per_s = 0") != SQLITE_OK);
}

int main(void)
{
  fixture f;
  fixture_open(&f);
  test_peaks(&f);
  fixture_done(&f);
  return check_summary();
}
