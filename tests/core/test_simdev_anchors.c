/*
 * test_simdev_anchors.c - the default (gb10-like) sim profile against the
 * measurements the paper reports for its GB10 (Zhou et al., "PASCAL: A
 * Progress Divergence-Aware Shared-Cache Model", §3.6 "When hits cannot pull
 * a slow worker back": N = 4096, M = 48, C = 1280, 16 KiB blocks, no
 * compute unless stated):
 *   - first-wave time per normalized round 841 / 465 / 424 ns at
 *     d = 2 / 3 / 4 (asserted within 15 %);
 *   - over 32 waves K = 1.00 for d <= 3 (within 5 %), K = 5.58 at d = 4
 *     (asserted in [4.5, 6.5]);
 *   - eight WMMA operations per block (m = 8) at d = 4 keep K within 5 % of 1;
 *   - the marker diagnostic: within-wave lead below ~110 blocks in every
 *     d = 3 wave, while at d = 4 most waves cross the 640-block scale of
 *     Theorem coherence (C/2; the paper: 94 of 96);
 *   - a within-wave checkpoint every 512 blocks brings d = 4, W = 32 back to
 *     K within 5 % of 1 at a small time cost (paper: 5.40 -> 1.00, +2.9 %);
 *   - divergence fades along the compute grid of the shipped paper plan:
 *     at N = 4096, W = 16, in the families that diverge there, no adjacent
 *     pair of m falls from K >= 2 to K <= 1.05: met by (o = 2, d = 3) and
 *     d = 4, not by d = 5 and 6 (a known gap, checked strictly: see fade()).
 * and the bound the m = 8 anchor puts on the per-run SM clock spread, seen
 * from the other side: the spread the profile uses (the largest that keeps
 * m = 8 at K = 1.00 over 32 waves) makes the same compute-bound key drift
 * apart over 64 waves (K > 1.05), which it does not without the spread.
 *
 * The 32-wave runs are ~6 M simulated requests each: about half a second in
 * the normal build, but ~30x that in the Debug + ASan/UBSan build, so there
 * only the first-wave anchors and the checkpoint's exact accounting run
 * (those exercise the same code paths); the normal build runs everything.
 */
#include <stdio.h>
#include <stdlib.h>

#include "check.h"
#include "pascal/plan_gen.h"
#include "pascal/simdev.h"

#define N_BLOCKS  4096u
#define MAX_WAVES 64u
#define SNAPS     8192u

typedef struct outcome {
  double K, ns_per_round;
  uint64_t wave_lead[MAX_WAVES]; /* largest sampled within-wave lead per wave */
  uint32_t waves_seen;
} outcome;

/* One scan on the default profile; the within-wave lead is sampled about
 * 100 times per wave. */
static outcome run(pascal_simdev *dev, uint32_t d, uint32_t m, uint64_t W, uint32_t cp)
{
  static pascal_simdev_snapshot items[SNAPS];
  outcome o = {-1.0, -1.0, {0}, 0};
  pascal_simdev_scan s = {1, 1, d, m, N_BLOCKS, W, 0, cp};
  pascal_simdev_snapshots sn = {items, SNAPS, 0.0, 0};
  sn.interval_ns = N_BLOCKS * 400.0 / 100.0;
  pascal_simdev_stats st;
  pascal_error err;
  if (pascal_simdev_run_scan(dev, &s, &st, &sn, &err) != PASCAL_OK) {
    fprintf(stderr, "run_scan: %s\n", err.message);
    CHECK(!"pascal_simdev_run_scan");
    return o;
  }
  o.K = st.K;
  o.ns_per_round = st.kernel_ns / (double)(W * N_BLOCKS);
  for (size_t i = 0; i < sn.count; i++) {
    uint64_t w = items[i].wave;
    if (!items[i].active || w >= MAX_WAVES)
      continue;
    if (items[i].wave_lead_blocks > o.wave_lead[w])
      o.wave_lead[w] = items[i].wave_lead_blocks;
    if (w + 1 > o.waves_seen)
      o.waves_seen = (uint32_t)w + 1;
  }
  printf("d=%u m=%u W=%llu cp=%u: K=%.3f ns/round=%.1f (%zu snapshots)\n", d, m,
         (unsigned long long)W, cp, o.K, o.ns_per_round, sn.count);
  return o;
}

static uint64_t max_lead(const outcome *o)
{
  uint64_t mx = 0;
  for (uint32_t w = 0; w < o->waves_seen; w++)
    if (o->wave_lead[w] > mx)
      mx = o->wave_lead[w];
  return mx;
}

static uint32_t waves_over(const outcome *o, uint64_t blocks)
{
  uint32_t n = 0;
  for (uint32_t w = 0; w < o->waves_seen; w++)
    n += o->wave_lead[w] > blocks;
  return n;
}

static void first_wave(pascal_simdev *dev)
{
  static const double paper_ns[] = {841.0, 465.0, 424.0}; /* d = 2, 3, 4 */
  for (uint32_t d = 2; d <= 4; d++) {
    outcome o = run(dev, d, 0, 1, 0);
    CHECK_NEAR(o.ns_per_round, paper_ns[d - 2], 0.15 * paper_ns[d - 2]);
    CHECK_NEAR(o.K, 1.0, 0.05);
  }
}

/* The checkpoint's cost is exact on a quiet single-SM device: every
 * checkpoint adds one grid barrier to a one-CTA wave. */
static void checkpoint_accounting(void)
{
  pascal_simdev_profile p;
  pascal_simdev_profile_default(&p);
  p.sm_count = 1;
  p.sm_read_spread = p.sm_read_run_spread = p.sm_clock_spread = 0.0;
  p.service_jitter = p.work_noise = p.link_stall_prob = p.dram_tail_prob = 0.0;
  p.start_jitter_ns = 0.0;
  pascal_simdev *dev = NULL;
  pascal_error err;
  CHECK_INT(pascal_simdev_new(&p, &dev, &err), PASCAL_OK);
  if (!dev)
    return;
  /* sync path: nothing is in flight across a checkpoint, so each costs the
   * whole barrier */
  pascal_simdev_scan plain = {1, 0, 0, 0, 1000, 2, 0, 0}, cp = plain;
  cp.checkpoint_blocks = 300; /* blocks 300, 600, 900: three per CTA */
  pascal_simdev_stats a, b;
  CHECK_INT(pascal_simdev_run_scan(dev, &plain, &a, NULL, &err), PASCAL_OK);
  CHECK_INT(pascal_simdev_run_scan(dev, &cp, &b, NULL, &err), PASCAL_OK);
  CHECK_NEAR(b.kernel_ns - a.kernel_ns, 2.0 * 3.0 * p.grid_barrier_ns, 1e-6 * b.kernel_ns);
  CHECK_INT(b.fills, a.fills);
  pascal_simdev_free(dev);
}

static void long_runs(pascal_simdev *dev)
{
  outcome d2 = run(dev, 2, 0, 32, 0), d3 = run(dev, 3, 0, 32, 0), d4 = run(dev, 4, 0, 32, 0);
  CHECK_NEAR(d2.K, 1.0, 0.05);
  CHECK_NEAR(d3.K, 1.0, 0.05);
  CHECK(d4.K >= 4.5 && d4.K <= 6.5);
  /* the timing does not move while the traffic multiplies */
  CHECK_NEAR(d4.ns_per_round, 424.0, 0.15 * 424.0);

  /* marker diagnostic (Theorem coherence's 2 sigma - 1 scale: C/2 = 640) */
  printf("d=3 largest within-wave lead %llu blocks; d=4: %u of %u waves cross 640\n",
         (unsigned long long)max_lead(&d3), waves_over(&d4, 640), d4.waves_seen);
  CHECK(d3.waves_seen >= 30 && d4.waves_seen >= 30);
  CHECK(max_lead(&d3) < 110);
  CHECK(waves_over(&d4, 640) * 4 >= d4.waves_seen * 3);

  /* compute per block restores coherence */
  outcome m8 = run(dev, 4, 8, 32, 0);
  CHECK_NEAR(m8.K, 1.0, 0.05);

  /* a within-wave checkpoint every 512 blocks bounds the lead below C/2 */
  outcome cp = run(dev, 4, 0, 32, 512);
  CHECK_NEAR(cp.K, 1.0, 0.05);
  CHECK(waves_over(&cp, 640) == 0);
  CHECK(cp.ns_per_round > d4.ns_per_round);
  CHECK(cp.ns_per_round < 1.10 * d4.ns_per_round);
}

/* d = 4, m = 8 (compute-bound, latency hidden): over 64 waves the per-run
 * SM clock factors build a lead past the pull-back of the leader's exposed
 * DRAM tails, so K > 1.05; with sm_clock_spread = 0 the same run stays
 * within 5 % of K = 1 (docs/sim-device.md, "Per-run SM clock"). */
static void clock_drift(pascal_simdev *dev)
{
  outcome spread = run(dev, 4, 8, 64, 0);
  CHECK(spread.K > 1.05);
  pascal_simdev_profile p = *pascal_simdev_profile_of(dev);
  p.sm_clock_spread = 0.0;
  pascal_simdev *still = NULL;
  pascal_error err;
  CHECK_INT(pascal_simdev_new(&p, &still, &err), PASCAL_OK);
  if (!still)
    return;
  outcome none = run(still, 4, 8, 64, 0);
  CHECK_NEAR(none.K, 1.0, 0.05);
  pascal_simdev_free(still);
}

/* A family whose one-step drop at the fade row is known and not yet fixed:
 * the deep pipelines d = 5, 6 at one CTA per SM hide the miss latency
 * completely, so the whole chip turns from link-bound (m = 5, 335 ns of work
 * per block against links of 324-358 ns) to SM-bound (m = 6, 405 ns) in one
 * grid step, and the SMs' sustained speeds differ by less than that step
 * (docs/sim-device.md, "The fade along the plan's grid"). Checked strictly:
 * when the drop goes away, this test fails until the family is asserted. */
static int known_drop(const pascal_plan_key *f)
{
  return f->path == PASCAL_PLAN_TMA && f->o == 1 && (f->d == 5 || f->d == 6);
}

/* Along the plan's compute grid, at the plan's N = 4096, W = 16 row: in
 * every family of the paper plan for this profile's device (`pascal plan`,
 * core/src/plan_gen.c) that diverges there (K >= 2 at some m), K must not
 * fall from >= 2 to <= 1.05 in one step of m, must pass through at least two
 * grid points part-way down, and must be back at <= 1.05 by the grid's end.
 * (o = 2, d = 3) and d = 4 diverge at this row and fade; d = 5 and 6 diverge
 * and drop in one step (known_drop); sync, d = 1, 2 at o = 2 stay coherent.
 * (bench_simdev_panel's `fade` mode runs all twelve (N, W) rows of the
 * plan; docs/sim-device.md lists the rows where a one-step drop remains.) */
static void fade(pascal_simdev *dev)
{
  static const uint32_t grid[] = {0, 1, 2, 4, 5, 6, 12, 13, 14};
  enum { N_GRID = sizeof grid / sizeof grid[0] };
  const pascal_simdev_profile *p = pascal_simdev_profile_of(dev);
  const pascal_plan_device pd = {p->capacity_blocks, p->block_bytes, p->smem_per_sm, 0};
  pascal_plan plan;
  pascal_error err;
  pascal_plan_init(&plan);
  CHECK_INT(pascal_plan_generate(&pd, PASCAL_PLAN_KIND_SCAN, 1, &plan, &err), PASCAL_OK);
  int fading = 0, dropping = 0;
  for (size_t k = 0; k < plan.n_keys; k += N_GRID) { /* one family per N_GRID keys */
    const pascal_plan_key *f = &plan.keys[k];
    const int tma = f->path == PASCAL_PLAN_TMA;
    double K[N_GRID];
    int diverges = 0, drops = 0;
    size_t partial = 0;
    for (size_t i = 0; i < N_GRID; i++) {
      CHECK_INT(plan.keys[k + i].m, grid[i]); /* the plan's grid, in order */
      pascal_simdev_scan s = {f->o, tma, f->d, grid[i], N_BLOCKS, 16, 0, 0};
      pascal_simdev_stats st;
      CHECK_INT(pascal_simdev_run_scan(dev, &s, &st, NULL, &err), PASCAL_OK);
      K[i] = st.K;
      diverges |= K[i] >= 2.0;
    }
    printf("fade o=%u %s d=%u W=16 K along m:", f->o, tma ? "tma" : "sync", f->d);
    for (size_t i = 0; i < N_GRID; i++)
      printf(" %u:%.3f", grid[i], K[i]);
    printf("\n");
    if (!diverges)
      continue;
    for (size_t i = 0; i + 1 < N_GRID; i++)
      drops += K[i] >= 2.0 && K[i + 1] <= 1.05;
    if (known_drop(f)) {
      if (!drops)
        printf("fade: the d=%u drop is gone; assert this family's fade (known_drop)\n", f->d);
      CHECK(drops > 0);
      dropping++;
      continue;
    }
    for (size_t i = 0; i < N_GRID; i++)
      partial += K[i] > 1.05 && K[i] < 0.9 * K[0];
    CHECK_INT(drops, 0);
    CHECK(K[0] >= 2.0 && K[N_GRID - 1] <= 1.05);
    CHECK(partial >= 2); /* at least two grid points part-way down */
    fading++;
  }
  CHECK_INT(plan.n_keys, 7 * N_GRID);
  CHECK_INT(fading, 2); /* (2, tma, 3) and (1, tma, 4): not vacuous */
  CHECK_INT(dropping, 2);
  pascal_plan_free(&plan);
}

int main(void)
{
  pascal_simdev_profile p;
  pascal_simdev_profile_default(&p);
  pascal_simdev *dev = NULL;
  pascal_error err;
  CHECK_INT(pascal_simdev_new(&p, &dev, &err), PASCAL_OK);
  if (!dev)
    return check_summary();
  first_wave(dev);
  checkpoint_accounting();
  if (SANITIZED) {
    printf("sanitizer build: the 32-wave anchors and the fade run in the normal build only\n");
  } else {
    long_runs(dev);
    clock_drift(dev);
    fade(dev);
  }
  pascal_simdev_free(dev);
  return check_summary();
}
