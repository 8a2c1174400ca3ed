/*
 * test_simdev_paths.c - the sim device's costs that the H100 measurements
 * called for (docs/sim-device.md, "The sim against the H100"), each by
 * exact arithmetic on a quiet device (no jitter, no spread, no noise, no
 * stalls or tails; one SM unless stated), against the same run with the key
 * at its default:
 *   - sync_rounds R: the sync path's exposed round trip pays the hop and the
 *     DRAM latency R times: kernel(R = 4) - kernel(R = 1) = 3 (hop + latency);
 *   - mma_setup_ns: charged once per block when m >= 1, never at m = 0:
 *     kernel(m = 1) - kernel(m = 0) = N (setup + tail1 - tail0) at d = 1;
 *   - exec_shared: with 1 two compute-bound CTAs on one SM take turns for
 *     its pipes (about twice the time per block of one), with 0 they overlap;
 *   - l2_gbps: the L2's own data rate, shared by every SM, bounds an
 *     L2-bound scan at M N block_bytes / l2_gbps, which the SMs' links alone
 *     do not;
 *   - clock_skew with clock_skew_groups: the chip's fixed work factors,
 *     1 - skew and 1 + skew for two groups, in every run;
 *   - clock_skew_consume: the skew scales the compute loop whole and this
 *     share of the rest of the work;
 *   - skew_shared: the skew scales only blocks whose line the other group
 *     filled: a group that fills its own lines runs at its nominal speed;
 *   - tma_latency_ns: exposed once per block at d = 1, not on the sync path.
 * Each check fails with the key's effect removed (its default value), which
 * is how each was checked: the default-run comparisons are in the test.
 */
#include <stdio.h>

#include "check.h"
#include "pascal/simdev.h"

static pascal_simdev_profile quiet(uint32_t sm_count)
{
  pascal_simdev_profile p;
  pascal_simdev_profile_default(&p);
  p.sm_count = sm_count;
  p.sm_read_spread = p.sm_read_run_spread = p.sm_clock_spread = 0.0;
  p.service_jitter = p.work_noise = p.link_stall_prob = p.dram_tail_prob = 0.0;
  p.start_jitter_ns = 0.0;
  p.dispatch_ns = 0.0;
  return p;
}

static pascal_simdev_stats scan(const pascal_simdev_profile *p, uint32_t o, int tma, uint32_t d,
                                uint32_t m, uint64_t N)
{
  pascal_simdev_stats st = {0};
  pascal_simdev *dev = NULL;
  pascal_error err;
  CHECK_INT(pascal_simdev_new(p, &dev, &err), PASCAL_OK);
  if (!dev)
    return st;
  pascal_simdev_scan s = {o, tma, d, m, N, 1, 0, 0};
  CHECK_INT(pascal_simdev_run_scan(dev, &s, &st, NULL, &err), PASCAL_OK);
  pascal_simdev_free(dev);
  return st;
}

static void test_sync_rounds(void)
{
  pascal_simdev_profile p = quiet(1);
  double one = scan(&p, 1, 0, 0, 0, 1).kernel_ns;
  p.sync_rounds = 4;
  double four = scan(&p, 1, 0, 0, 0, 1).kernel_ns;
  printf("sync_rounds: one block %.1f ns with 1 round, %.1f with 4\n", one, four);
  CHECK_NEAR(four - one, 3.0 * (p.hop_ns + p.dram_latency_ns), 1e-6);
  /* the TMA path is not affected */
  p.sync_rounds = 1;
  double tma1 = scan(&p, 1, 1, 1, 0, 1).kernel_ns;
  p.sync_rounds = 4;
  CHECK_NEAR(scan(&p, 1, 1, 1, 0, 1).kernel_ns, tma1, 1e-6);
}

static void test_mma_setup(void)
{
  pascal_simdev_profile p = quiet(1);
  p.mma_setup_ns = 123.0;
  const uint64_t N = 5;
  double m0 = scan(&p, 1, 1, 1, 0, N).kernel_ns, m1 = scan(&p, 1, 1, 1, 1, N).kernel_ns;
  CHECK_NEAR(m1 - m0, N * (p.mma_setup_ns + p.tail_ns[1] - p.tail_ns[0]), 1e-6);
  p.mma_setup_ns = 0.0;
  double plain0 = scan(&p, 1, 1, 1, 0, N).kernel_ns;
  CHECK_NEAR(plain0, m0, 1e-6); /* m = 0 never pays it */
}

/* Two CTAs on one SM, latency hidden (d = 4), compute far above the link. */
static void test_exec_shared(void)
{
  pascal_simdev_profile p = quiet(1);
  p.sm_read_gbps = 1e6;
  const uint64_t N = 200;
  const uint32_t m = 40; /* compute 40 x 60 = 2400 ns */
  double work = p.consume_ns + p.compute_ns * m + p.cta_sync_ns;
  double shared = scan(&p, 2, 1, 4, m, N).kernel_ns / N;
  p.exec_shared = 0.0;
  double overlap = scan(&p, 2, 1, 4, m, N).kernel_ns / N;
  printf("exec_shared: per block %.1f ns shared, %.1f overlapped (work %.1f)\n", shared, overlap,
         work);
  CHECK(shared > 1.9 * work && shared < 2.05 * work);
  CHECK(overlap > 0.99 * work && overlap < 1.05 * work);
}

/* Eight SMs, latency hidden, no compute, links 100 x faster than the L2. */
static void test_l2_rate(void)
{
  pascal_simdev_profile p = quiet(8);
  p.consume_ns = 1.0;
  p.cta_sync_ns = 0.0;
  p.sm_read_gbps = 10000.0;
  const uint64_t N = 400;
  double free_ns = scan(&p, 1, 1, 4, 0, N).kernel_ns;
  p.l2_gbps = 100.0; /* 163.84 ns per 16 KiB block, shared by the 8 SMs */
  double bound = 8.0 * N * p.block_bytes / p.l2_gbps;
  double l2 = scan(&p, 1, 1, 4, 0, N).kernel_ns;
  printf("l2_gbps: %.0f ns with an L2 rate of 100 GB/s (bound %.0f), %.0f without\n", l2, bound,
         free_ns);
  CHECK(l2 >= bound && l2 < 1.03 * bound);
  CHECK(free_ns < 0.5 * bound);
}

/* Two SMs in two skew groups (0.1), one CTA each, compute-bound (m = 40,
 * latency hidden at d = 4): SM 0 works at 1 - skew, SM 1 at 1 + skew, and
 * the kernel ends with the slower SM. skew_ratio: its time over the same
 * run without the skew. */
#define SKEW_N 300
#define SKEW_M 40

static pascal_simdev_profile skewed_pair(void)
{
  pascal_simdev_profile p = quiet(2);
  p.sm_read_gbps = 1e6;
  p.clock_skew = 0.1;
  p.clock_skew_groups = 2;
  return p;
}

static double skew_ratio(const pascal_simdev_profile *p)
{
  pascal_simdev_profile plain = *p;
  plain.clock_skew = 0.0;
  return scan(p, 1, 1, 4, SKEW_M, SKEW_N).kernel_ns /
         scan(&plain, 1, 1, 4, SKEW_M, SKEW_N).kernel_ns;
}

static void test_clock_skew(void)
{
  pascal_simdev_profile p = skewed_pair();
  double ratio = skew_ratio(&p);
  printf("clock_skew: ratio %.4f with skew 0.1\n", ratio);
  CHECK_NEAR(ratio, 1.1, 0.01);
  p.clock_skew_groups = 1; /* one group: no skew */
  CHECK_NEAR(skew_ratio(&p), 1.0, 1e-9);
}

/* With a dearer consume, the skew on the loop alone (40 x 60 of 4415 ns). */
static void test_skew_consume(void)
{
  pascal_simdev_profile p = skewed_pair();
  p.consume_ns = 2000.0;
  p.clock_skew_consume = 0.0;
  double loop = p.compute_ns * SKEW_M, work = p.consume_ns + loop + p.cta_sync_ns;
  double ratio = skew_ratio(&p);
  printf("clock_skew_consume: ratio %.4f with the loop skewed alone (expected %.4f)\n", ratio,
         1.0 + 0.1 * loop / work);
  CHECK_NEAR(ratio, 1.0 + 0.1 * loop / work, 0.005);
  p.clock_skew_consume = 1.0; /* the whole work */
  CHECK_NEAR(skew_ratio(&p), 1.1, 0.01);
}

/* Both SMs read the same lines. With an L2 that holds them all the follower
 * reads the leader's and runs slow; with an L2 of one line it finds none of
 * them and fills its own, so with skew_shared it runs at its nominal speed
 * (without skew_shared at 1 + skew). */
static void test_skew_shared(void)
{
  pascal_simdev_profile p = skewed_pair();
  p.skew_shared = 1;
  double held = skew_ratio(&p);
  p.capacity_blocks = 1;
  double own = skew_ratio(&p);
  double K = scan(&p, 1, 1, 4, SKEW_M, SKEW_N).K;
  p.skew_shared = 0;
  double always = skew_ratio(&p);
  printf("skew_shared: ratio %.4f sharing, %.4f filling its own (%.4f unshared), K %.3f\n", held,
         own, always, K);
  CHECK_NEAR(held, 1.1, 0.01);
  CHECK_NEAR(own, 1.0, 0.01);
  CHECK_NEAR(always, 1.1, 0.01);
  CHECK(K > 1.9);
}

static void test_tma_latency(void)
{
  pascal_simdev_profile p = quiet(1);
  const uint64_t N = 5;
  double tma0 = scan(&p, 1, 1, 1, 0, N).kernel_ns, sync0 = scan(&p, 1, 0, 0, 0, N).kernel_ns;
  p.tma_latency_ns = 77.0;
  CHECK_NEAR(scan(&p, 1, 1, 1, 0, N).kernel_ns - tma0, N * 77.0, 1e-6);
  CHECK_NEAR(scan(&p, 1, 0, 0, 0, N).kernel_ns, sync0, 1e-6);
}

int main(void)
{
  test_sync_rounds();
  test_mma_setup();
  test_exec_shared();
  test_l2_rate();
  test_clock_skew();
  test_skew_consume();
  test_skew_shared();
  test_tma_latency();
  return check_summary();
}
