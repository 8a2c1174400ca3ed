/*
 * test_simdev.c - the sim device's open scan (Algorithm 2 engine):
 * determinism, conservation (every request is a hit, a merge or a fill),
 * request counts W * M * N, hand-worked timing of single-worker runs,
 * request merging of aligned workers, phase snapshots, input validation.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "pascal/simdev.h"

/* A small device: 4 SMs, C = 32 blocks, so scans of ~100 blocks are cheap. */
static pascal_simdev_profile small_profile(void)
{
  pascal_simdev_profile p;
  pascal_simdev_profile_default(&p);
  p.sm_count = 4;
  p.capacity_blocks = 32;
  return p;
}

/* A profile with every random element switched off. */
static pascal_simdev_profile quiet_profile(uint32_t sms)
{
  pascal_simdev_profile p = small_profile();
  p.sm_count = sms;
  p.sm_read_spread = 0.0;
  p.sm_read_run_spread = 0.0;
  p.sm_clock_spread = 0.0;
  p.work_noise = 0.0;
  p.link_stall_prob = 0.0;
  p.dram_tail_prob = 0.0;
  p.service_jitter = 0.0;
  p.start_jitter_ns = 0.0;
  p.dispatch_ns = 0.0;
  return p;
}

static pascal_simdev *device(const pascal_simdev_profile *p)
{
  pascal_simdev *dev = NULL;
  pascal_error err;
  pascal_status st = pascal_simdev_new(p, &dev, &err);
  CHECK_INT(st, PASCAL_OK);
  return dev;
}

static int stats_equal(const pascal_simdev_stats *a, const pascal_simdev_stats *b)
{
  return a->requests == b->requests && a->hits == b->hits && a->merges == b->merges &&
         a->fills == b->fills && a->fill_bytes == b->fill_bytes && a->kernel_ns == b->kernel_ns &&
         a->K == b->K && a->M == b->M;
}

static void test_conservation(void)
{
  pascal_simdev_profile p = small_profile();
  pascal_simdev *dev = device(&p);
  if (!dev)
    return;
  static const struct {
    int tma;
    uint32_t d;
  } paths[] = {{0, 0}, {1, 1}, {1, 2}, {1, 3}, {1, 4}, {1, 6}};
  for (uint32_t priming = 0; priming < 2; priming++) {
    p.priming_extra = priming;
    pascal_simdev_free(dev);
    dev = device(&p);
    if (!dev)
      return;
    for (size_t k = 0; k < sizeof paths / sizeof paths[0]; k++)
      for (uint32_t o = 1; o <= 2; o++)
        for (uint32_t m = 0; m < 10; m += 3)
          for (uint64_t N = 1; N <= 121; N += 40)
            for (uint64_t W = 1; W <= 5; W += 2) {
              pascal_simdev_scan s = {o, paths[k].tma, paths[k].d, m, N, W, 7, 0};
              pascal_simdev_stats st;
              pascal_error err;
              if (pascal_simdev_run_scan(dev, &s, &st, NULL, &err) != PASCAL_OK) {
                CHECK(!"run_scan failed");
                continue;
              }
              uint64_t M = (uint64_t)p.sm_count * o;
              CHECK_INT(st.M, M);
              CHECK_INT(st.requests, W * M * N);
              CHECK_INT(st.hits + st.merges + st.fills, st.requests);
              /* every block is filled at least once; with N <= C never again */
              CHECK(st.fills >= N);
              if (N <= p.capacity_blocks)
                CHECK_INT(st.fills, N);
              CHECK(st.kernel_ns > 0.0 && isfinite(st.kernel_ns));
              CHECK_NEAR(st.fill_bytes, (double)st.fills * p.block_bytes, 0.0);
              CHECK_NEAR(st.K, (double)st.fills / (double)(W * N), 1e-12);
              if (check_failures())
                goto done;
            }
  }
done:
  pascal_simdev_free(dev);
}

static void test_determinism(void)
{
  pascal_simdev_profile p = small_profile();
  pascal_simdev *a = device(&p), *b = device(&p);
  if (!a || !b)
    goto done;
  pascal_simdev_scan s = {2, 1, 4, 3, 300, 6, 0, 0};
  pascal_simdev_stats s1, s2, s3, s4;
  pascal_error err;
  CHECK_INT(pascal_simdev_run_scan(a, &s, &s1, NULL, &err), PASCAL_OK);
  CHECK_INT(pascal_simdev_run_scan(b, &s, &s2, NULL, &err), PASCAL_OK);
  /* a second run on a used device: no state leaks between runs */
  pascal_simdev_scan other = {1, 0, 0, 0, 77, 2, 3, 0};
  CHECK_INT(pascal_simdev_run_scan(a, &other, &s3, NULL, &err), PASCAL_OK);
  CHECK_INT(pascal_simdev_run_scan(a, &s, &s3, NULL, &err), PASCAL_OK);
  CHECK(stats_equal(&s1, &s2));
  CHECK(stats_equal(&s1, &s3));
  /* another run seed (the job's repeat) changes the jitter, hence the time */
  s.seed = 1;
  CHECK_INT(pascal_simdev_run_scan(a, &s, &s4, NULL, &err), PASCAL_OK);
  CHECK(s4.kernel_ns != s1.kernel_ns);
  CHECK_INT(s4.requests, s1.requests);
  /* another profile seed is another chip: different time as well */
  pascal_simdev_profile q = p;
  q.seed = 99;
  pascal_simdev *c = device(&q);
  s.seed = 0;
  if (c) {
    CHECK_INT(pascal_simdev_run_scan(c, &s, &s4, NULL, &err), PASCAL_OK);
    CHECK(s4.kernel_ns != s1.kernel_ns);
  }
  pascal_simdev_free(c);
done:
  pascal_simdev_free(a);
  pascal_simdev_free(b);
}

/* One worker, no jitter: every block misses (N > C, one scan), and each
 * block costs exactly one exposed round trip plus the SM work. */
static void test_single_worker_timing(void)
{
  pascal_simdev_profile p = quiet_profile(1);
  pascal_simdev *dev = device(&p);
  if (!dev)
    return;
  const uint64_t N = 50;
  double tau = p.block_bytes / p.sm_read_gbps, dram = p.block_bytes / p.dram_gbps;
  double work = p.consume_ns + p.cta_sync_ns; /* m = 0: compute(0) = tail0 = 0 */
  pascal_simdev_scan sync = {1, 0, 0, 0, N, 1, 0, 0};
  pascal_simdev_stats st;
  pascal_error err;
  CHECK_INT(pascal_simdev_run_scan(dev, &sync, &st, NULL, &err), PASCAL_OK);
  CHECK_INT(st.fills, N);
  double per_block = p.hop_ns + dram + p.dram_latency_ns + tau + work;
  CHECK_NEAR(st.kernel_ns, p.launch_ns + (double)N * per_block, 1e-6 * st.kernel_ns);
  /* TMA d = 2 with priming d-1: the refill is issued only after consuming,
   * so the cadence is the same exposed round trip (P_2 = lambda + beta of
   * Eq. refill_cadence); the issue cost overlaps the wait */
  pascal_simdev_scan d2 = {1, 1, 2, 0, N, 1, 0, 0};
  CHECK_INT(pascal_simdev_run_scan(dev, &d2, &st, NULL, &err), PASCAL_OK);
  CHECK_NEAR(st.kernel_ns, p.launch_ns + (double)N * per_block, 1e-6 * st.kernel_ns);
  /* d = 3: two copies in flight halve the exposed cadence, while the link
   * (tau per block) is still faster */
  pascal_simdev_scan d3 = {1, 1, 3, 0, 400, 1, 0, 0};
  CHECK_INT(pascal_simdev_run_scan(dev, &d3, &st, NULL, &err), PASCAL_OK);
  CHECK(per_block / 2.0 > tau);
  CHECK_NEAR(st.kernel_ns / 400.0, per_block / 2.0, 0.02 * per_block);
  /* deep pipeline: the link is the bottleneck, tau per block (Eq. refill
   * cadence with the link as the slowest stage) */
  pascal_simdev_scan d8 = {1, 1, 8, 0, 400, 1, 0, 0};
  CHECK_INT(pascal_simdev_run_scan(dev, &d8, &st, NULL, &err), PASCAL_OK);
  CHECK_NEAR(st.kernel_ns / 400.0, tau, 0.02 * tau);
  /* compute cost and execution classes: m = 6 and m = 7 share a tail */
  pascal_simdev_scan c6 = {1, 0, 0, 6, N, 1, 0, 0}, c7 = c6, c5 = c6;
  c7.m = 7;
  c5.m = 5;
  pascal_simdev_stats t6, t7, t5;
  CHECK_INT(pascal_simdev_run_scan(dev, &c6, &t6, NULL, &err), PASCAL_OK);
  CHECK_INT(pascal_simdev_run_scan(dev, &c7, &t7, NULL, &err), PASCAL_OK);
  CHECK_INT(pascal_simdev_run_scan(dev, &c5, &t5, NULL, &err), PASCAL_OK);
  CHECK_NEAR(t6.kernel_ns, t7.kernel_ns, 1e-9);
  double c4 = 4.0 * p.compute_ns;
  CHECK_NEAR(t6.kernel_ns, p.launch_ns + N * (per_block + c4 + p.tail_ns[2]), 1e-6 * t6.kernel_ns);
  CHECK_NEAR(t5.kernel_ns, p.launch_ns + N * (per_block + c4 + p.tail_ns[1]), 1e-6 * t5.kernel_ns);
  pascal_simdev_free(dev);
}

/* Two aligned workers on separate SMs, no jitter: the second request of
 * every block finds the first one's fill in flight and merges. */
static void test_merging(void)
{
  pascal_simdev_profile p = quiet_profile(2);
  pascal_simdev *dev = device(&p);
  if (!dev)
    return;
  pascal_simdev_scan s = {1, 0, 0, 0, 100, 3, 0, 0};
  pascal_simdev_stats st;
  pascal_error err;
  CHECK_INT(pascal_simdev_run_scan(dev, &s, &st, NULL, &err), PASCAL_OK);
  CHECK_INT(st.fills, 300);
  CHECK_INT(st.merges, 300);
  CHECK_INT(st.hits, 0);
  pascal_simdev_free(dev);
}

static void test_snapshots(void)
{
  pascal_simdev_profile p = quiet_profile(4);
  pascal_simdev *dev = device(&p);
  if (!dev)
    return;
  pascal_simdev_snapshot items[16];
  pascal_simdev_snapshots sn = {items, 16, 5000.0, 99};
  pascal_simdev_scan s = {2, 1, 3, 0, 200, 2, 0, 0};
  pascal_simdev_stats st;
  pascal_error err;
  CHECK_INT(pascal_simdev_run_scan(dev, &s, &st, &sn, &err), PASCAL_OK);
  CHECK_INT(sn.count, 16); /* the run is longer than 16 * 5 us */
  for (size_t i = 0; i < sn.count; i++) {
    CHECK_NEAR(items[i].t_ns, 5000.0 * (double)(i + 1), 1e-9);
    CHECK(items[i].active <= 8);
    CHECK(items[i].active == 0 || items[i].clusters >= 1);
    CHECK(items[i].clusters <= items[i].active);
  }
  /* no jitter, no SM spread: the workers move in lockstep, one cluster */
  CHECK_INT(items[3].active, 8);
  CHECK_INT(items[3].clusters, 1);
  CHECK(items[3].spread_blocks <= 1);
  CHECK_NEAR(items[3].gap_law_K, 1.0, 0.0); /* one phase group: K_TTL = 1 */
  /* snapshots do not change the run */
  pascal_simdev_stats st2;
  CHECK_INT(pascal_simdev_run_scan(dev, &s, &st2, NULL, &err), PASCAL_OK);
  CHECK(stats_equal(&st, &st2));
  /* capacity 0 records nothing */
  pascal_simdev_snapshots none = {NULL, 0, 1000.0, 5};
  CHECK_INT(pascal_simdev_run_scan(dev, &s, &st2, &none, &err), PASCAL_OK);
  CHECK_INT(none.count, 0);
  pascal_simdev_snapshots bad = {items, 16, 0.0, 0};
  CHECK_INT(pascal_simdev_run_scan(dev, &s, &st2, &bad, &err), PASCAL_EINVAL);
  CHECK(strcmp(err.field, "snapshots") == 0);
  pascal_simdev_free(dev);
}

static void expect_scan_error(pascal_simdev *dev, pascal_simdev_scan s, pascal_status want,
                              const char *field)
{
  pascal_simdev_stats st;
  pascal_error err;
  pascal_status got = pascal_simdev_run_scan(dev, &s, &st, NULL, &err);
  CHECK_INT(got, want);
  if (got == want && strcmp(err.field, field) != 0) {
    fprintf(stderr, "field %s, want %s\n", err.field, field);
    CHECK(!"error field");
  }
}

static void test_validation(void)
{
  pascal_simdev_profile p = small_profile();
  pascal_simdev *dev = device(&p);
  if (!dev)
    return;
  pascal_simdev_scan ok = {1, 1, 2, 0, 10, 1, 0, 0};
/* `ok` with one member changed must fail with `want`, naming `field`. */
#define EXPECT_BAD_SCAN(member, value, want, field)                                                \
  do {                                                                                             \
    pascal_simdev_scan bad_ = ok;                                                                  \
    bad_.member = (value);                                                                         \
    expect_scan_error(dev, bad_, want, field);                                                     \
  } while (0)
  EXPECT_BAD_SCAN(o, 0, PASCAL_EINVAL, "o");
  EXPECT_BAD_SCAN(path_tma, 2, PASCAL_EINVAL, "path");
  EXPECT_BAD_SCAN(path_tma, 0, PASCAL_EINVAL, "d"); /* sync with d = 2 */
  EXPECT_BAD_SCAN(d, 0, PASCAL_EINVAL, "d");        /* TMA with d = 0 */
  EXPECT_BAD_SCAN(N, 0, PASCAL_EINVAL, "N");
  EXPECT_BAD_SCAN(W, 0, PASCAL_EINVAL, "W");
  EXPECT_BAD_SCAN(W, UINT64_MAX / 2, PASCAL_ERANGE, "W");
#undef EXPECT_BAD_SCAN
  pascal_simdev_stats st;
  CHECK_INT(pascal_simdev_run_scan(dev, NULL, &st, NULL, NULL), PASCAL_EINVAL);
  CHECK_INT(pascal_simdev_run_scan(NULL, &ok, &st, NULL, NULL), PASCAL_EINVAL);
  /* the device refuses an invalid profile */
  pascal_simdev *bad = NULL;
  pascal_error err;
  p.service_jitter = 1.0;
  CHECK_INT(pascal_simdev_new(&p, &bad, &err), PASCAL_EINVAL);
  CHECK(strcmp(err.field, "service_jitter") == 0);
  CHECK(bad == NULL);
  CHECK(pascal_simdev_profile_of(dev)->sm_count == 4);
  pascal_simdev_free(dev);
  pascal_simdev_free(NULL);
}

int main(void)
{
  test_conservation();
  test_determinism();
  test_single_worker_timing();
  test_merging();
  test_snapshots();
  test_validation();
  return check_summary();
}
