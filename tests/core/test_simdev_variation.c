/*
 * test_simdev_variation.c - each source of run-to-run and SM-to-SM variation
 * of the sim device (docs/sim-device.md, "Variation between runs") shown by
 * its effect on a small quiet device (every other random source off), with
 * expectations worked from the model's definition:
 *   - per-run link factor: a link-bound run's time per block lies in
 *     l (1 +- s) and differs between repeats; without it every repeat is equal;
 *   - per-run SM clock factor: the same for a compute-bound run and w;
 *   - AR(1) work noise: the mean work is unchanged, while the progress spread
 *     between SMs grows with the correlation length (random walk ~ sqrt(tau));
 *   - link stalls and the DRAM latency tail add prob x mean per exposed
 *     block on the sync path;
 *   - the dispatcher staggers a wave by dispatch_ns per CTA, and its random
 *     first-wave order changes which SM starts last;
 *   - a within-wave checkpoint bounds the within-wave lead and so keeps
 *     K = 1 where the same run without it diverges (Theorem coherence);
 *   - determinism: same seed, bit-identical; another repeat, another draw.
 * Runs are small (<= ~0.3 M requests) so the sanitizer build runs them all.
 */
#include <math.h>
#include <stdio.h>

#include "check.h"
#include "pascal/simdev.h"

static pascal_simdev_profile quiet(uint32_t sms)
{
  pascal_simdev_profile p;
  pascal_simdev_profile_default(&p);
  p.sm_count = sms;
  p.capacity_blocks = 128;
  p.sm_read_spread = p.sm_read_run_spread = p.sm_clock_spread = 0.0;
  p.work_noise = p.link_stall_prob = p.dram_tail_prob = 0.0;
  p.service_jitter = p.start_jitter_ns = p.dispatch_ns = 0.0;
  return p;
}

typedef struct result {
  pascal_simdev_stats st;
  uint64_t max_spread, max_wave_lead;
} result;

static result run(const pascal_simdev_profile *p, pascal_simdev_scan s)
{
  static pascal_simdev_snapshot items[2048];
  result r;
  r.max_spread = r.max_wave_lead = 0;
  r.st.kernel_ns = -1.0;
  r.st.K = -1.0;
  pascal_simdev *dev = NULL;
  pascal_error err;
  if (pascal_simdev_new(p, &dev, &err) != PASCAL_OK) {
    CHECK(!"pascal_simdev_new");
    return r;
  }
  pascal_simdev_snapshots sn = {items, 2048, 2000.0, 0};
  if (pascal_simdev_run_scan(dev, &s, &r.st, &sn, &err) != PASCAL_OK) {
    fprintf(stderr, "run_scan: %s\n", err.message);
    CHECK(!"pascal_simdev_run_scan");
  }
  for (size_t i = 0; i < sn.count; i++) {
    if (items[i].spread_blocks > r.max_spread)
      r.max_spread = items[i].spread_blocks;
    if (items[i].wave_lead_blocks > r.max_wave_lead)
      r.max_wave_lead = items[i].wave_lead_blocks;
  }
  pascal_simdev_free(dev);
  return r;
}

#define REPEATS 6

/* Time per block of a one-wave run (launch removed), for seeds 0..REPEATS-1. */
static void per_block(const pascal_simdev_profile *p, pascal_simdev_scan s, double *out)
{
  for (int k = 0; k < REPEATS; k++) {
    s.seed = (uint64_t)k;
    result r = run(p, s);
    out[k] = (r.st.kernel_ns - p->launch_ns) / (double)s.N;
  }
}

static void spread_of(const double *v, double *lo, double *hi)
{
  *lo = *hi = v[0];
  for (int k = 1; k < REPEATS; k++) {
    if (v[k] < *lo)
      *lo = v[k];
    if (v[k] > *hi)
      *hi = v[k];
  }
}

/* A deep pipeline (d = 8) with no compute is bound by the slowest SM's link:
 * time per block = max over SMs of this run's link time. */
static void test_link_run_spread(void)
{
  pascal_simdev_profile p = quiet(4);
  double l = p.block_bytes / p.sm_read_gbps, t[REPEATS], lo, hi;
  pascal_simdev_scan s = {1, 1, 8, 0, 400, 1, 0, 0};
  per_block(&p, s, t);
  spread_of(t, &lo, &hi);
  CHECK_NEAR(lo, l, 0.01 * l);
  CHECK_NEAR(hi, l, 0.01 * l); /* no per-run factor: every repeat the same */
  p.sm_read_run_spread = 0.1;
  per_block(&p, s, t);
  spread_of(t, &lo, &hi);
  printf("link run spread 0.1: per block %.1f..%.1f ns (l = %.1f)\n", lo, hi, l);
  CHECK(lo > 0.9 * l * 0.99 && hi < 1.1 * l * 1.01);
  CHECK(hi - lo > 0.01 * l); /* repeats differ */
}

/* A compute-bound run (work far above the link time) is bound by the
 * slowest SM's clock: time per block = w times the largest factor. */
static void test_clock_spread(void)
{
  pascal_simdev_profile p = quiet(4);
  const uint32_t m = 40;
  double w = p.consume_ns + p.compute_ns * m + p.cta_sync_ns, t[REPEATS], lo, hi;
  pascal_simdev_scan s = {1, 1, 8, m, 300, 1, 0, 0};
  per_block(&p, s, t);
  spread_of(t, &lo, &hi);
  CHECK_NEAR(lo, w, 0.01 * w);
  CHECK_NEAR(hi, w, 0.01 * w);
  p.sm_clock_spread = 0.05;
  per_block(&p, s, t);
  spread_of(t, &lo, &hi);
  printf("clock spread 0.05: per block %.1f..%.1f ns (w = %.1f)\n", lo, hi, w);
  CHECK(lo > 0.95 * w * 0.99 && hi < 1.05 * w * 1.01);
  CHECK(hi - lo > 0.005 * w);
}

/* AR(1) work noise of sd 0.2: the mean per-block work stays w (one SM,
 * 16000 blocks: the mean's sd is ~1.6 % at tau = 50); the spread between
 * SMs (a random walk of the summed deviations) grows roughly with the
 * square root of the correlation length. */
static void test_work_noise(void)
{
  pascal_simdev_profile p = quiet(8);
  const uint32_t m = 40;
  double w = p.consume_ns + p.compute_ns * m + p.cta_sync_ns;
  pascal_simdev_scan s = {1, 1, 8, m, 2000, 1, 0, 0};
  p.work_noise = 0.2;
  p.work_noise_blocks = 1.0;
  result short_tau = run(&p, s);
  p.work_noise_blocks = 50.0;
  result long_tau = run(&p, s);
  printf("work noise: spread %llu blocks at tau = 1, %llu at tau = 50\n",
         (unsigned long long)short_tau.max_spread, (unsigned long long)long_tau.max_spread);
  CHECK(long_tau.max_spread > 3 * short_tau.max_spread);
  pascal_simdev_profile one = p;
  one.sm_count = 1;
  pascal_simdev_scan lone = {1, 1, 8, m, 2000, 8, 0, 0};
  result r = run(&one, lone);
  double mean = (r.st.kernel_ns - 8.0 * one.launch_ns) / 16000.0;
  printf("work noise: mean work per block %.1f ns (w = %.1f)\n", mean, w);
  CHECK_NEAR(mean, w, 0.05 * w);
}

/* Sync path, one SM, N > C: every block is an exposed miss, so a tail of
 * probability q and mean T adds q T per block on average. */
static void test_tails(void)
{
  pascal_simdev_profile p = quiet(1);
  const uint64_t N = 3000;
  pascal_simdev_scan s = {1, 0, 0, 0, N, 1, 0, 0};
  double base = run(&p, s).st.kernel_ns;
  /* sd of the mean added delay: sqrt(q (2 - q)) T / sqrt(N) ~ 3.2 ns */
  p.link_stall_prob = 0.5;
  p.link_stall_ns = 200.0;
  double stalls = (run(&p, s).st.kernel_ns - base) / (double)N;
  p.link_stall_prob = 0.0;
  p.dram_tail_prob = 0.5;
  p.dram_tail_ns = 200.0;
  double tail = (run(&p, s).st.kernel_ns - base) / (double)N;
  printf("link stalls add %.1f ns per block, DRAM tail %.1f (expected 100 each)\n", stalls, tail);
  CHECK_NEAR(stalls, 100.0, 15.0);
  CHECK_NEAR(tail, 100.0, 15.0);
}

/* One dispatcher: the four CTAs of the first wave, all launched at
 * launch_ns, start dispatch_ns apart (snapshots every 500 ns count them);
 * with a fixed per-SM speed difference the random first-wave order decides
 * which SM starts last, so repeats differ by that order alone. */
static void test_dispatch(void)
{
  pascal_simdev_profile p = quiet(4);
  pascal_simdev_scan s = {1, 0, 0, 0, 50, 1, 0, 0};
  pascal_simdev_snapshot items[16];
  pascal_simdev_stats st;
  pascal_error err;
  for (int on = 0; on < 2; on++) {
    p.dispatch_ns = on ? 1000.0 : 0.0;
    pascal_simdev *dev = NULL;
    CHECK_INT(pascal_simdev_new(&p, &dev, &err), PASCAL_OK);
    if (!dev)
      return;
    pascal_simdev_snapshots sn = {items, 16, 500.0, 0};
    CHECK_INT(pascal_simdev_run_scan(dev, &s, &st, &sn, &err), PASCAL_OK);
    CHECK_INT(sn.count, 16);
    /* t = 2500, 3500, 4500, 5500 ns; launch_ns = 2000 */
    for (uint32_t k = 0; k < 4; k++)
      CHECK_INT(items[4 + 2 * k].active, on ? k + 1 : 4);
    pascal_simdev_free(dev);
  }
  p.sm_read_spread = 0.2;
  double t[REPEATS], lo, hi;
  pascal_simdev_scan d8 = {1, 1, 8, 0, 50, 1, 0, 0};
  per_block(&p, d8, t);
  spread_of(t, &lo, &hi);
  CHECK(hi > lo); /* only the order differs between these repeats */
  p.dispatch_ns = 0.0;
  per_block(&p, d8, t);
  spread_of(t, &lo, &hi);
  CHECK_NEAR(hi, lo, 1e-9 * hi);
}

/* Eight SMs with a strong per-run link imbalance diverge at d = 8 over
 * eight waves of N = 512 > C = 128; a checkpoint every 32 blocks keeps the
 * within-wave lead near 32 < C / 2, so every later request hits. */
static void test_checkpoint(void)
{
  pascal_simdev_profile p = quiet(8);
  p.sm_read_run_spread = 0.2;
  pascal_simdev_scan s = {1, 1, 8, 0, 512, 8, 3, 0};
  result plain = run(&p, s);
  s.checkpoint_blocks = 32;
  result cp = run(&p, s);
  printf("checkpoint: K %.3f -> %.3f, within-wave lead %llu -> %llu blocks\n", plain.st.K, cp.st.K,
         (unsigned long long)plain.max_wave_lead, (unsigned long long)cp.max_wave_lead);
  CHECK(plain.st.K > 1.3);
  CHECK(plain.max_wave_lead > 64);
  CHECK_NEAR(cp.st.K, 1.0, 1e-12);
  CHECK(cp.max_wave_lead <= 32 + 8);
  CHECK(cp.st.kernel_ns > plain.st.kernel_ns * 0.5);
  s.checkpoint_blocks = (1u << 31) + 1;
  pascal_simdev *dev = NULL;
  pascal_error err;
  pascal_simdev_stats st;
  CHECK_INT(pascal_simdev_new(&p, &dev, &err), PASCAL_OK);
  CHECK_INT(pascal_simdev_run_scan(dev, &s, &st, NULL, &err), PASCAL_EINVAL);
  pascal_simdev_free(dev);
}

/* The default profile with every mechanism on: same seed, same bits; each
 * repeat another draw of the per-run factors, so a divergent key's K differs
 * between repeats. */
static void test_repeats(void)
{
  pascal_simdev_profile p;
  pascal_simdev_profile_default(&p);
  p.sm_count = 8;
  p.capacity_blocks = 128;
  pascal_simdev_scan s = {1, 1, 4, 0, 512, 16, 0, 0};
  result a = run(&p, s), b = run(&p, s);
  CHECK(a.st.fills == b.st.fills && a.st.kernel_ns == b.st.kernel_ns && a.st.merges == b.st.merges);
  int distinct = 0;
  for (uint64_t k = 1; k < 4; k++) {
    s.seed = k;
    result c = run(&p, s);
    distinct += c.st.fills != a.st.fills;
  }
  CHECK(distinct >= 2);
}

int main(void)
{
  test_link_run_spread();
  test_clock_spread();
  test_work_noise();
  test_tails();
  test_dispatch();
  test_checkpoint();
  test_repeats();
  return check_summary();
}
