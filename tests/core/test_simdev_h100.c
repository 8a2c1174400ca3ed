/*
 * test_simdev_h100.c - the shipped h100-like sim profile against what the
 * NVIDIA H100 measured in the calibration runs of its run 3, which the
 * profile is fitted to (deploy/calibrations/h100-scan.json, `measurements`:
 * o = 2, 264 CTAs, C = 1371, 16 KiB blocks; the held-out panel is not used
 * here or in the profile):
 *   - it loads, with the probe's geometry;
 *   - the time per CTA and block at W = 1 (kernel_ns / (W N), N = 3290,
 *     repeat 0): sync m = 0 1772 ns, d = 1 m = 5 1347, d = 2 m = 5 1269,
 *     d = 4 m = 0 704, m = 5 950 and m = 12 1167 (the SM's work), each
 *     within 8 % (docs/sim-device.md gives the residuals), and K within 1 %
 *     of 1 at W = 1;
 *   - the divergence the deep pipelines show and the others do not, at
 *     N = 6581, W = 16: d = 4, m = 5 measured K = 1.705 (asserted within
 *     0.1); d = 1, m = 13 measured 1.001 (asserted <= 1.05: the group ahead
 *     pays the DRAM latency, which pulls it back against the chip's skew;
 *     with run 1's DRAM latency of 160 ns the sim gave 1.28 here).
 * The two long runs (~28 M requests each) run in the normal build only;
 * the sanitizer build runs the first-wave checks.
 */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "pascal/simdev.h"

static int load(pascal_simdev_profile *p)
{
  const char *me = __FILE__, *cut = strstr(me, "tests/core/");
  char path[4096];
  CHECK(cut != NULL);
  if (!cut)
    return 0;
  snprintf(path, sizeof path, "%.*sdeploy/profiles/h100-like.profile", (int)(cut - me), me);
  pascal_error err;
  pascal_status st = pascal_simdev_profile_load(path, p, &err);
  if (st != PASCAL_OK)
    fprintf(stderr, "%s: %s\n", path, err.message);
  CHECK_INT(st, PASCAL_OK);
  return st == PASCAL_OK;
}

static pascal_simdev_stats run(pascal_simdev *dev, int tma, uint32_t d, uint32_t m, uint64_t N,
                               uint64_t W)
{
  pascal_simdev_scan s = {2, tma, d, m, N, W, 0, 0};
  pascal_simdev_stats st = {0};
  pascal_error err;
  CHECK_INT(pascal_simdev_run_scan(dev, &s, &st, NULL, &err), PASCAL_OK);
  printf("%s d=%u m=%u N=%llu W=%llu: K %.3f, %.0f ns per block\n", tma ? "tma" : "sync", d, m,
         (unsigned long long)N, (unsigned long long)W, st.K, st.kernel_ns / (double)(N * W));
  return st;
}

int main(void)
{
  pascal_simdev_profile p;
  if (!load(&p))
    return check_summary();
  CHECK_INT(p.sm_count, 132);
  CHECK_INT(p.capacity_blocks, 1371);
  CHECK_INT(p.l2_partitions, 2);
  pascal_simdev *dev = NULL;
  pascal_error err;
  CHECK_INT(pascal_simdev_new(&p, &dev, &err), PASCAL_OK);
  if (!dev)
    return check_summary();
  static const struct {
    int tma;
    uint32_t d, m;
    double ns; /* measured, kernel_ns / (W N) at W = 1, N = 3290 */
  } first[] = {{0, 0, 0, 1772.0}, {1, 1, 5, 1347.0}, {1, 2, 5, 1269.0},
               {1, 4, 0, 704.0},  {1, 4, 5, 950.0},  {1, 4, 12, 1167.0}};
  for (size_t i = 0; i < sizeof first / sizeof first[0]; i++) {
    pascal_simdev_stats st = run(dev, first[i].tma, first[i].d, first[i].m, 3290, 1);
    CHECK_NEAR(st.kernel_ns / 3290.0, first[i].ns, 0.08 * first[i].ns);
    CHECK_NEAR(st.K, 1.0, 0.01);
  }
  if (SANITIZED) {
    printf("sanitizer build: the long runs run in the normal build only\n");
  } else {
    pascal_simdev_stats deep = run(dev, 1, 4, 5, 6581, 16);
    CHECK_NEAR(deep.K, 1.705, 0.1);
    pascal_simdev_stats exposed = run(dev, 1, 1, 13, 6581, 16);
    CHECK(exposed.K <= 1.05);
  }
  pascal_simdev_free(dev);
  return check_summary();
}
