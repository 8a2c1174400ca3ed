/*
 * test_device_data.c - a device's probe data (pascal/device_data.h): the
 * capacity scan's sizes worked by hand for a 24 MiB L2 of 16 KiB blocks, the
 * checks accepting what is documented and naming each violation.
 */
#include <math.h>
#include <string.h>

#include "check.h"
#include "pascal/device_data.h"

static void test_scan_sizes(void)
{
  /* l2 = 1536 blocks: 1536/4 = 384, step floor(1920 * i / 14) */
  uint64_t s[PASCAL_CAPACITY_SCAN_SIZES];
  CHECK_INT(pascal_capacity_scan_sizes(1536, s, NULL), PASCAL_OK);
  static const uint64_t want[PASCAL_CAPACITY_SCAN_SIZES] = {
      384, 521, 658, 795, 932, 1069, 1206, 1344, 1481, 1618, 1755, 1892, 2029, 2166, 2304};
  for (size_t i = 0; i < PASCAL_CAPACITY_SCAN_SIZES; i++)
    CHECK(s[i] == want[i]);
  pascal_error err;
  CHECK_INT(pascal_capacity_scan_sizes(7, s, &err), PASCAL_EINVAL);
  CHECK(strcmp(err.field, "l2_bytes") == 0);
}

/* `check` refuses `obj` with EINVAL naming the field `want`. */
#define EXPECT_REFUSED(check, obj, want)                                                           \
  do {                                                                                             \
    pascal_error err_;                                                                             \
    CHECK_INT(check(obj, &err_), PASCAL_EINVAL);                                                   \
    CHECK(strcmp(err_.field, want) == 0);                                                          \
  } while (0)
#define expect_probe(p, want) EXPECT_REFUSED(pascal_capacity_probe_check, p, want)
#define expect_table(t, want) EXPECT_REFUSED(pascal_static_table_check, t, want)

static void test_probe_check(void)
{
  pascal_capacity_probe p = {
      .waves = 4, .n = 3, .size_blocks = {10, 20, 30}, .fill_ratio = {1.0, 0.0, 4.0}};
  CHECK_INT(pascal_capacity_probe_check(&p, NULL), PASCAL_OK);
  pascal_capacity_probe b = p;
  b.waves = 0;
  expect_probe(&b, "waves");
  b = p;
  b.n = 1;
  expect_probe(&b, "size_blocks");
  b.n = PASCAL_CAPACITY_PROBE_MAX + 1;
  expect_probe(&b, "size_blocks");
  b = p;
  b.size_blocks[2] = 20; /* not increasing */
  expect_probe(&b, "size_blocks[2]");
  b = p;
  b.size_blocks[0] = 0;
  expect_probe(&b, "size_blocks[0]");
  b = p;
  b.fill_ratio[1] = -1e-9;
  expect_probe(&b, "fill_ratio[1]");
  b.fill_ratio[1] = NAN;
  expect_probe(&b, "fill_ratio[1]");
  b.fill_ratio[1] = INFINITY;
  expect_probe(&b, "fill_ratio[1]");
}

static void test_table_check(void)
{
  pascal_static_table t = {
      .M = 4,
      .N = 100,
      .H = 5,
      .n_rows = 2,
      .rows = {{4096, 99, 4, 0.0, 0.0, 0.0, 0.0}, {8192, 1, 1, 2.5, 3.0, 2.0, 1.0}}};
  CHECK_INT(pascal_static_table_check(&t, NULL), PASCAL_OK);
  pascal_static_table b = t;
  b.M = 0;
  expect_table(&b, "M");
  b = t;
  b.N = 1;
  expect_table(&b, "N");
  b = t;
  b.H = 0;
  expect_table(&b, "H");
  b = t;
  b.n_rows = 0;
  expect_table(&b, "rows");
  b = t;
  b.rows[1].block_bytes = 0;
  expect_table(&b, "rows[1].block_bytes");
  b = t;
  b.rows[0].C = 100; /* C must be below N */
  expect_table(&b, "rows[0].C");
  b = t;
  b.rows[1].clusters = 5; /* more than M */
  expect_table(&b, "rows[1].clusters");
  b = t;
  b.rows[1].che = -1;
  expect_table(&b, "rows[1].che");
  b = t;
  b.rows[0].K = NAN;
  expect_table(&b, "rows[0].K");
}

int main(void)
{
  test_scan_sizes();
  test_probe_check();
  test_table_check();
  return check_summary();
}
