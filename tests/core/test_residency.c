/*
 * test_residency.c - the capacity probe's share refetched between C and a
 * calibration's smallest size (residency.c; pascal_scan_residency in
 * pascal/predict.h; docs/design.md 4.4): worked examples by hand on a
 * small device, where it does not apply, random probes against the
 * definition written plainly here, and the answer's interval, expected
 * error and time carried through the bracket, the same in a panel's
 * coverage as in the answers.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "pascal/answer.h"
#include "pascal/evaluate.h"
#include "pascal/predict.h"
#include "pascal/validation.h"

enum { C = 100, N_MIN = 200 };

static void add_scan(pascal_calibration *cal, uint32_t m, uint32_t N, double W, double K)
{
  pascal_scan_run r = {.key = {1, PASCAL_PATH_SYNC, 0, m}, .N = N, .W = W};
  r.fill_bytes = K * cal->device.block_bytes * W * N;
  r.kernel_ns = 1e3 * W * N * (1 + 0.1 * m);
  r.has_kernel_ns = true;
  pascal_error err;
  if (pascal_calibration_append_scan(cal, &r, &err))
    printf("append failed: %s %s\n", err.field, err.message);
}

/* C = 100 blocks, 4 SMs; the probe (4 waves) at 80 (stays), 110 (r = 0.2),
 * 140 (r = 0.8), 170 (r = 1) and 250 (r = 1/3, past N_min: never read);
 * family (1, sync, 0) at m = 0 aligned (K = 1) and m = 4 diverging (K = 2
 * at W = 16, 1.5 at W = 4), the same at both sizes 200 and 400. */
static void probe_cal(pascal_calibration *cal, bool with_probe)
{
  pascal_calibration_init(cal, PASCAL_WORKLOAD_SCAN);
  snprintf(cal->device.name, sizeof cal->device.name, "residency");
  cal->device.sm_count = 4;
  cal->device.capacity_blocks = C;
  cal->device.block_bytes = 16384;
  cal->device.has_peaks = 1; /* sim-gb10's: a time for every answer */
  cal->device.peaks = (pascal_peaks){2.73e11, 2.304e12, 1.25e14, 1e9, 2e-6};
  if (with_probe) {
    static const uint64_t sizes[] = {80, 110, 140, 170, 250};
    static const double ratios[] = {1, 1.6, 3.4, 4, 2};
    cal->device.has_capacity_probe = 1;
    cal->device.capacity_probe.waves = 4;
    cal->device.capacity_probe.n = 5;
    memcpy(cal->device.capacity_probe.size_blocks, sizes, sizeof sizes);
    memcpy(cal->device.capacity_probe.fill_ratio, ratios, sizeof ratios);
  }
  for (uint32_t N = N_MIN; N <= 2 * N_MIN; N += N_MIN)
    for (uint32_t m = 0; m <= 8; m += 4) {
      add_scan(cal, m, N, 1, 1);
      add_scan(cal, m, N, 4, m == 4 ? 1.5 : 1);
      add_scan(cal, m, N, 16, m == 4 ? 2 : 1);
    }
}

static pascal_model *fit(const pascal_calibration *cal)
{
  pascal_model *md = NULL;
  CHECK_INT(pascal_model_fit(cal, &md, NULL), PASCAL_OK);
  return md;
}

static pascal_scan_prediction predict(const pascal_model *md, uint32_t m, uint32_t N, double W)
{
  pascal_scan_key key = {1, PASCAL_PATH_SYNC, 0, m};
  pascal_scan_prediction p = {0};
  CHECK_INT(pascal_model_predict_scan(md, &key, N, W, &p, NULL), PASCAL_OK);
  return p;
}

/* K = 1/W + r (K_refetching - 1/W), r linear in N through (C, 0), the
 * probe's points between C and N_min, and (N_min, 1); numbers by hand. */
static void worked_examples(const pascal_model *md)
{
  /* N = 105 between (100, 0) and (110, 0.2): r = 0.1; aligned, so the
   * curves answer 1 and K = 1/16 + 0.1 * 15/16 */
  pascal_scan_prediction p = predict(md, 0, 105, 16);
  const pascal_scan_residency *r = &p.why.residency;
  CHECK(r->read);
  CHECK_NEAR(r->refetch, 0.1, 1e-12);
  CHECK_NEAR(r->refetch_low, 0, 0);
  CHECK_NEAR(r->refetch_high, 0.2, 1e-12);
  CHECK_INT(r->N_low, 100);
  CHECK_INT(r->N_high, 110);
  CHECK_NEAR(r->K_refetching, 1, 1e-12);
  CHECK_NEAR(p.K, 0.15625, 1e-12);
  CHECK_NEAR(r->K_low, 0.0625, 1e-12);
  CHECK_NEAR(r->K_high, 0.25, 1e-12);
  CHECK_NEAR(p.fill_bytes, 0.15625 * 16384 * 16 * 105, 1e-3);
  CHECK_NEAR(p.rho, p.K / p.M, 1e-15);
  /* N = 125 between (110, 0.2) and (140, 0.8): r = 0.5; diverging m = 4,
   * the curves' K = 2: K = 1/16 + 0.5 (2 - 1/16) */
  p = predict(md, 4, 125, 16);
  CHECK(r->read);
  CHECK_NEAR(r->refetch, 0.5, 1e-12);
  CHECK_NEAR(r->K_refetching, 2, 1e-9);
  CHECK_NEAR(p.K, 0.0625 + 0.5 * 1.9375, 1e-9);
  CHECK_NEAR(r->K_low, 0.0625 + 0.2 * 1.9375, 1e-9);
  CHECK_NEAR(r->K_high, 0.0625 + 0.8 * 1.9375, 1e-9);
  /* at a probe size the bracket is that point: r = 0.2 at 110, W = 4 */
  p = predict(md, 0, 110, 4);
  CHECK(r->read && r->N_low == 110 && r->N_high == 110);
  CHECK_NEAR(p.K, 0.25 + 0.2 * 0.75, 1e-12);
  CHECK_NEAR(r->K_low, p.K, 1e-15);
  CHECK_NEAR(r->K_high, p.K, 1e-15);
  /* between (140, 0.8) and (170, 1) */
  p = predict(md, 0, 150, 16);
  CHECK(r->read);
  CHECK_NEAR(r->refetch, 0.8 + 0.2 / 3, 1e-12);
}

/* Where the curves answer alone: the probe's points from 170 on refetch
 * everything (250's 1/3 lies past N_min and is not read), at or past N_min,
 * one pass or less, at or below C (rule resident), no probe, a probe of one
 * wave. */
static void where_it_does_not_apply(const pascal_model *md, const pascal_model *bare)
{
  static const struct {
    uint32_t N;
    double W;
  } cases[] = {{170, 16}, {185, 16}, {199, 4}, {200, 16}, {300, 16}, {120, 1}, {120, 0.5}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    pascal_scan_prediction p = predict(md, 4, cases[i].N, cases[i].W);
    pascal_scan_prediction q = predict(bare, 4, cases[i].N, cases[i].W);
    CHECK(!p.why.residency.read);
    CHECK(p.K == q.K && p.fill_bytes == q.fill_bytes);
  }
  pascal_scan_prediction p = predict(md, 0, C, 16);
  CHECK(p.why.rule == PASCAL_RULE_RESIDENT && !p.why.residency.read);
  CHECK_NEAR(p.K, 1.0 / 16, 0);
  p = predict(bare, 0, 125, 16);
  CHECK(!p.why.residency.read);
  CHECK_NEAR(p.K, 1, 1e-12);
  /* just above C the answer starts from the resident one */
  p = predict(md, 0, C + 1, 16);
  CHECK(p.why.residency.read && p.K > 1.0 / 16 && p.K < 1.0 / 16 + 0.02);
}

/* The definition, written plainly: the points (C, 0), the probe's sizes
 * strictly between C and N_min with r = clamp((f - 1) / (waves - 1)), and
 * (N_min, 1); r linear between the two around N; read when the smaller of
 * their r is below 1. Random probes (sizes, ratios, waves), random N and W,
 * against the model's answer at the curves' own K. */
static void random_probes(void)
{
  uint64_t lcg = 2026;
  for (int trial = 0; trial < 60; trial++) {
    pascal_calibration cal;
    probe_cal(&cal, true);
    pascal_capacity_probe *pr = &cal.device.capacity_probe;
    lcg = lcg * 6364136223846793005u + 1442695040888963407u;
    pr->waves = 2 + (uint32_t)(lcg >> 61);
    pr->n = 2 + (size_t)((lcg >> 20) % 8);
    uint64_t s = 60 + (lcg >> 40) % 30;
    for (size_t i = 0; i < pr->n; i++) {
      lcg = lcg * 6364136223846793005u + 1442695040888963407u;
      s += 1 + (lcg >> 33) % 30;
      pr->size_blocks[i] = s;
      pr->fill_ratio[i] = (double)(lcg >> 11) / 0x1p53 * (pr->waves + 1);
    }
    pascal_model *md = fit(&cal);
    pascal_calibration_free(&cal);
    if (!md)
      return;
    for (uint32_t N = C + 1; N < N_MIN; N += 7) {
      lcg = lcg * 6364136223846793005u + 1442695040888963407u;
      double W = 1.5 + (double)(lcg >> 11) / 0x1p53 * 30;
      double xs[PASCAL_CAPACITY_PROBE_MAX + 2], rs[PASCAL_CAPACITY_PROBE_MAX + 2];
      size_t k = 0;
      xs[k] = C, rs[k++] = 0;
      for (size_t i = 0; i < pr->n; i++)
        if (pr->size_blocks[i] > C && pr->size_blocks[i] < N_MIN) {
          double r = (pr->fill_ratio[i] - 1) / (pr->waves - 1);
          xs[k] = (double)pr->size_blocks[i], rs[k++] = r < 0 ? 0 : r > 1 ? 1 : r;
        }
      xs[k] = N_MIN, rs[k++] = 1;
      size_t j = 0;
      while (xs[j + 1] < N)
        j++;
      double r_a = rs[j], r_b = rs[j + 1], x_a = xs[j], x_b = xs[j + 1];
      if (x_b == N) /* at a point: its own r alone */
        r_a = r_b, x_a = x_b;
      double r = x_b > x_a ? r_a + (r_b - r_a) * (N - x_a) / (x_b - x_a) : r_a;
      bool read = (r_a < r_b ? r_a : r_b) < 1;
      pascal_scan_prediction p = predict(md, 4, N, W);
      const pascal_scan_residency *res = &p.why.residency;
      CHECK(res->read == read);
      double K_curves = read ? res->K_refetching : p.K;
      double want = read ? 1 / W + r * (K_curves - 1 / W) : K_curves;
      CHECK_NEAR(p.K, want, 1e-12 * want);
      if (read) {
        CHECK(res->K_low <= p.K * (1 + 1e-12) && p.K <= res->K_high * (1 + 1e-12));
        CHECK(res->K_low >= 1 / W * (1 - 1e-12) && res->K_high <= K_curves * (1 + 1e-12));
      }
    }
    pascal_model_free(md);
  }
}

/* The answer: its interval holds the bracket's two K (the residuals' spread
 * around the curves' K carried through the shares), its expected error is at
 * least the mean error at the bracket's ends, and its time interval reaches
 * the times of the fills' bounds. The panel's coverage of runs in the range
 * counts the same intervals as the answers give. */
static void answers_and_coverage(void)
{
  pascal_calibration cal, panel;
  probe_cal(&cal, true);
  pascal_calibration_init(&panel, PASCAL_WORKLOAD_SCAN);
  panel.device = cal.device;
  static const uint32_t sizes[] = {105, 125, 150};
  static const double measured[] = {0.07, 0.6, 0.2}; /* two inside, one below K_low */
  for (size_t i = 0; i < 3; i++)
    add_scan(&panel, 0, sizes[i], 16, measured[i]);
  const pascal_calibration *parts[] = {&panel};
  CHECK_INT(pascal_calibration_set_panel(&cal, PASCAL_RUNS_OFFGRID, parts, 1, NULL), PASCAL_OK);
  pascal_loko_report rep;
  pascal_model *md = fit(&cal);
  pascal_validation v;
  CHECK_INT(pascal_loko_run(&cal, &rep, NULL), PASCAL_OK);
  CHECK_INT(pascal_validation_build(&cal, md, &rep, &v, NULL), PASCAL_OK);
  size_t covered = 0;
  for (size_t i = 0; i < 3; i++) {
    pascal_scan_key key = {1, PASCAL_PATH_SYNC, 0, 0};
    pascal_query q = pascal_query_scan(&key, sizes[i], 16);
    pascal_answer a;
    CHECK_INT(pascal_answer_query(md, &v, &q, &a, NULL), PASCAL_OK);
    const pascal_scan_residency *r = &a.scan.why.residency;
    const pascal_answer_interval *iv = &a.interval;
    CHECK(r->read && iv->known);
    CHECK(iv->K_low <= r->K_low * (1 + 1e-12) && iv->K_high >= r->K_high * (1 - 1e-12));
    CHECK(iv->K_low >= 1.0 / 16 * (1 - 1e-12));
    CHECK_NEAR(iv->fill_bytes_low / a.scan.fill_bytes, iv->K_low / a.scan.K, 1e-12);
    double pct = 100 * expm1((log(a.scan.K / r->K_low) + log(r->K_high / a.scan.K)) / 2);
    CHECK(a.scan.expected.pct >= pct * (1 - 1e-12));
    CHECK(a.timed);
    pascal_time lo, hi;
    CHECK_INT(pascal_time_scan(md, &key, sizes[i], 16, iv->fill_bytes_low, &lo, NULL), PASCAL_OK);
    CHECK_INT(pascal_time_scan(md, &key, sizes[i], 16, iv->fill_bytes_high, &hi, NULL), PASCAL_OK);
    CHECK(iv->time_s_low <= lo.time_s && iv->time_s_high >= hi.time_s);
    CHECK(iv->time_s_low <= a.time.time_s && a.time.time_s <= iv->time_s_high);
    covered += measured[i] >= iv->K_low && measured[i] <= iv->K_high;
  }
  CHECK_INT(covered, 2);
  CHECK(rep.offgrid != NULL);
  if (rep.offgrid) {
    CHECK_INT(rep.offgrid->coverage.all.n_runs, 3);
    CHECK_INT(rep.offgrid->coverage.all.n_covered, covered);
  }
  pascal_validation_free(&v);
  pascal_model_free(md);
  pascal_loko_report_free(&rep);
  pascal_calibration_free(&panel);
  pascal_calibration_free(&cal);
}

int main(void)
{
  pascal_calibration cal, bare_cal;
  probe_cal(&cal, true);
  probe_cal(&bare_cal, false);
  pascal_model *md = fit(&cal), *bare = fit(&bare_cal);
  if (md && bare) {
    worked_examples(md);
    where_it_does_not_apply(md, bare);
  }
  pascal_model_free(md);
  pascal_model_free(bare);
  pascal_calibration_free(&cal);
  pascal_calibration_free(&bare_cal);
  random_probes();
  answers_and_coverage();
  return check_summary();
}
