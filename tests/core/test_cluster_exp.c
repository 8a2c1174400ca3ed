/*
 * test_cluster_exp.c - the static cluster experiment's pure parts
 * (pascal/cluster_exp.h): the 11 cluster counts (hand-computed for M = 48,
 * properties for M = 132, all counts for small M), the equally spaced phases,
 * and the expectations: c clusters with gaps N/c above C/c miss c blocks per
 * round under the gap law and exact LRU (SDCM-FA), while Che, blind to phases,
 * says M (1 - C/N); the paper's worked example (N = 8, C = 2, phases 0, 4).
 */
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "pascal/cluster_exp.h"

static void test_counts(void)
{
  uint32_t c[PASCAL_CLUSTER_COUNTS];
  size_t n = 0;
  /* round(48^(i/10)) = 1 1 2 3 5 7 10 15 22 33 48, duplicates bumped */
  static const uint32_t want48[] = {1, 2, 3, 4, 5, 7, 10, 15, 22, 33, 48};
  CHECK_INT(pascal_cluster_counts(48, c, &n, NULL), PASCAL_OK);
  CHECK_INT(n, 11);
  for (size_t i = 0; i < n; i++)
    CHECK_INT(c[i], want48[i]);
  for (uint32_t m = 12; m <= 1000; m++) {
    CHECK_INT(pascal_cluster_counts(m, c, &n, NULL), PASCAL_OK);
    CHECK_INT(n, 11);
    CHECK(c[0] == 1 && c[10] == m);
    for (size_t i = 1; i < n; i++)
      CHECK(c[i] > c[i - 1]);
  }
  CHECK_INT(pascal_cluster_counts(4, c, &n, NULL), PASCAL_OK);
  CHECK_INT(n, 4);
  CHECK(c[0] == 1 && c[3] == 4);
  pascal_error err;
  CHECK_INT(pascal_cluster_counts(0, c, &n, &err), PASCAL_EINVAL);
  CHECK(strcmp(err.field, "M") == 0);
}

static void test_phases_and_expectations(void)
{
  enum { M = 48 };
  uint64_t ph[M];
  CHECK_INT(pascal_cluster_phases(8192, M, 3, ph, NULL), PASCAL_OK);
  CHECK(ph[0] == 0 && ph[1] == 2730 && ph[2] == 5460 && ph[3] == 0 && ph[47] == 5460);
  pascal_cluster_expect e;
  const uint32_t counts[] = {1, 2, 5, 22, 48};
  for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++) {
    CHECK_INT(pascal_cluster_phases(8192, M, counts[i], ph, NULL), PASCAL_OK);
    CHECK_INT(pascal_cluster_expectations(8192, 1280, ph, M, &e, NULL), PASCAL_OK);
    CHECK_NEAR(e.gap_law, counts[i], 0);
    CHECK_NEAR(e.sdcm, counts[i], 1e-9);
    CHECK_NEAR(e.che, M * (1.0 - 1280.0 / 8192.0), 1e-9);
  }
  const uint64_t ex[] = {0, 4};
  CHECK_INT(pascal_cluster_expectations(8, 2, ex, 2, &e, NULL), PASCAL_OK);
  CHECK_NEAR(e.gap_law, 2, 0);
  pascal_error err;
  CHECK_INT(pascal_cluster_phases(8192, M, 49, ph, &err), PASCAL_EINVAL);
  CHECK(strcmp(err.field, "c") == 0);
  CHECK_INT(pascal_cluster_phases(2, M, 3, ph, &err), PASCAL_EINVAL);
  CHECK(strcmp(err.field, "N") == 0);
  CHECK_INT(pascal_cluster_expectations(8192, 8192, ph, M, &e, &err), PASCAL_EINVAL);
  CHECK(strcmp(err.field, "C") == 0);
}

int main(void)
{
  test_counts();
  test_phases_and_expectations();
  return check_summary();
}
