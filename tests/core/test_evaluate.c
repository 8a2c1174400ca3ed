/*
 * test_evaluate.c - configuration-balanced MAPE (paper Eq.
 * dynamic_selection), leave-one-key-out folds and a held-out panel on a
 * hand-worked calibration whose predictions follow from the rules by hand,
 * the key bootstrap on cases small enough to enumerate plus its properties,
 * the table row (balanced over keys, paired gaps, floor) and the Origami
 * column's plumbing.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "pascal/evaluate.h"
#include "pascal/origami.h"
#include "pascal/predict.h"
#include "pascal/synth.h"
#include "pascal/time_model.h"
#include "pascal/validation.h"

static void balanced_mape(void)
{
  /* Key 0: |1.1/1 - 1| = 0.1, |0.8/1 - 1| = 0.2 -> 0.15; key 1: |3/2 - 1| =
   * 0.5; key 2 has no run and is left out: 100 (0.15 + 0.5)/2 = 32.5 (the
   * run-pooled MAPE would be 26.67). */
  const size_t key[] = {0, 0, 1};
  const double pred[] = {1.1, 0.8, 3}, obs[] = {1, 1, 2};
  double out = 0;
  pascal_error err;
  CHECK_INT(pascal_balanced_mape(key, pred, obs, 3, 3, &out, &err), PASCAL_OK);
  CHECK_NEAR(out, 32.5, 1e-12);
  const double bad_obs[] = {1, 0, 2};
  CHECK_INT(pascal_balanced_mape(key, pred, bad_obs, 3, 3, &out, &err), PASCAL_EINVAL);
  CHECK(strcmp(err.field, "obs[1]") == 0);
  const size_t bad_key[] = {0, 5, 1};
  CHECK_INT(pascal_balanced_mape(bad_key, pred, obs, 3, 3, &out, &err), PASCAL_EINVAL);
  CHECK(strcmp(err.field, "key[1]") == 0);
  const double nan_pred[] = {1, NAN, 2};
  CHECK_INT(pascal_balanced_mape(key, nan_pred, obs, 3, 3, &out, &err), PASCAL_EINVAL);
  CHECK(strcmp(err.field, "pred[1]") == 0);
  CHECK_INT(pascal_balanced_mape(key, pred, obs, 0, 3, &out, &err), PASCAL_EINVAL);
}

/* One class-0 family (1, tma, 1): m = 0, 4, 8 with K = 2, 3, 5 at W = 1
 * and 4 and at sizes N_lo..N_hi (doubling), capacity C. */
static pascal_calibration three_keys(uint32_t C, uint32_t N_lo, uint32_t N_hi)
{
  pascal_calibration cal;
  pascal_calibration_init(&cal, PASCAL_WORKLOAD_SCAN);
  snprintf(cal.device.name, sizeof cal.device.name, "hand");
  cal.device.sm_count = 48;
  cal.device.capacity_blocks = C;
  cal.device.block_bytes = 16384;
  const uint32_t ms[] = {0, 4, 8};
  const double ks[] = {2, 3, 5};
  for (int i = 0; i < 3; i++)
    for (uint32_t N = N_lo; N <= N_hi; N *= 2)
      for (uint32_t W = 1; W <= 4; W *= 4) {
        pascal_scan_run r = {.key = {1, PASCAL_PATH_TMA, 1, ms[i]}, .N = N, .W = W};
        r.fill_bytes = ks[i] * 16384.0 * W * N;
        CHECK_INT(pascal_calibration_append_scan(&cal, &r, NULL), PASCAL_OK);
      }
  return cal;
}

static void baselines_when_everything_fits(void)
{
  /* C = 1281 (not a multiple of 8: fully associative) >= N = 1024: the
   * leader's reuse distance N - 1 < C hits in SDCM and PPT-GPU, and Che's hit
   * rate is 1, so each baseline fills only the cold first pass: K = 1/W.
   * Key m = 0 has K = 2 at W = 1 and 4: |1/2 - 1| = 0.5, |1/8 - 1| = 0.875,
   * mean 68.75 %; aligned K = 1: 50 %. */
  pascal_calibration cal = three_keys(1281, 1024, 1024);
  pascal_loko_report rep;
  CHECK_INT(pascal_loko_run(&cal, &rep, NULL), PASCAL_OK);
  CHECK_NEAR(rep.keys[0].mape[PASCAL_METHOD_EXACT_SDCM], 68.75, 1e-9);
  CHECK_NEAR(rep.keys[0].mape[PASCAL_METHOD_PPTGPU], 68.75, 1e-9);
  CHECK_NEAR(rep.keys[0].mape[PASCAL_METHOD_CHE], 68.75, 1e-9);
  CHECK_NEAR(rep.keys[0].mape[PASCAL_METHOD_ALIGNED], 50, 1e-9);
  pascal_loko_report_free(&rep);
  pascal_calibration_free(&cal);
}

static void loko_hand_worked(void)
{
  /* The three keys at N = 2048 and 4096, C = 1280:
   *  - without m = 0: clamped to m = 4: K = 3 vs 2 -> 50 %;
   *  - without m = 4: 0 and 8 bracket it, two knots so p = a_lin and
   *    a = (log 1.01 + log 4.01)/2: K = 1 + sqrt(1.01 * 4.01) - 0.01;
   *  - without m = 8: clamped to m = 4: 3 vs 5 -> 40 %.
   * Aligned K = 1: 50 %, 66.67 %, 80 %. */
  pascal_calibration cal = three_keys(1280, 2048, 4096);
  pascal_loko_report rep;
  pascal_error err;
  CHECK_INT(pascal_loko_run(&cal, &rep, &err), PASCAL_OK);
  CHECK_INT(rep.n_keys, 3);
  CHECK_INT(rep.n_runs, 12);
  CHECK_INT(rep.n_scored, 12);
  CHECK_INT(rep.n_refused, 0);
  CHECK_INT(rep.keys[0].key.m, 0);
  CHECK_INT(rep.keys[1].n_runs, 4); /* the whole key: 2 sizes x 2 horizons */
  double mid = 1 + sqrt(1.01 * 4.01) - 0.01;
  CHECK_NEAR(rep.keys[0].mape[PASCAL_METHOD_PASCAL], 50, 1e-9);
  CHECK_NEAR(rep.keys[1].mape[PASCAL_METHOD_PASCAL], 100 * fabs(mid / 3 - 1), 1e-9);
  CHECK_NEAR(rep.keys[2].mape[PASCAL_METHOD_PASCAL], 40, 1e-9);
  CHECK_NEAR(rep.balanced_mape[PASCAL_METHOD_PASCAL], (50 + 100 * fabs(mid / 3 - 1) + 40) / 3,
             1e-9);
  CHECK_NEAR(rep.keys[1].mape[PASCAL_METHOD_ALIGNED], 100 * 2.0 / 3, 1e-9);
  CHECK_NEAR(rep.balanced_mape[PASCAL_METHOD_ALIGNED], (50 + 200.0 / 3 + 80) / 3, 1e-9);
  pascal_loko_report_free(&rep);

  /* A single key cannot be evaluated. */
  pascal_calibration one;
  pascal_calibration_init(&one, PASCAL_WORKLOAD_SCAN);
  one.device = cal.device;
  CHECK_INT(pascal_calibration_append_scan(&one, &cal.scan_runs[0], NULL), PASCAL_OK);
  CHECK_INT(pascal_loko_run(&one, &rep, &err), PASCAL_EINVAL);
  pascal_calibration_free(&one);
  pascal_calibration_free(&cal);
}

/* One group {10, 30}: a resample of two keys has mean 10, 20 or 30 with
 * probabilities 1/4, 1/2, 1/4, so of 2000 sorted resamples hundreds sit at
 * each end and the 2.5% / 97.5% quantiles are exactly 10 and 30. One key:
 * every resample is that key. Two groups {10} and {0, 40}: (10 + m)/2 with
 * m in {0, 20, 40} gives [5, 25]. */
static void bootstrap_tiny(void)
{
  pascal_interval ci;
  const double two[] = {10, 30}, one[] = {7}, a[] = {10}, b[] = {0, 40};
  const double *v1[] = {two};
  size_t n1[] = {2};
  CHECK_INT(pascal_key_bootstrap(v1, n1, 1, 2000, 12, 0.95, &ci, NULL), PASCAL_OK);
  CHECK(ci.lo == 10 && ci.hi == 30);
  const double *v2[] = {one};
  size_t n2[] = {1};
  CHECK_INT(pascal_key_bootstrap(v2, n2, 1, 2000, 12, 0.95, &ci, NULL), PASCAL_OK);
  CHECK(ci.lo == 7 && ci.hi == 7);
  const double *v3[] = {a, b};
  size_t n3[] = {1, 2};
  CHECK_INT(pascal_key_bootstrap(v3, n3, 2, 2000, 12, 0.95, &ci, NULL), PASCAL_OK);
  CHECK(ci.lo == 5 && ci.hi == 25);
}

static void bootstrap_properties(void)
{
  double v[40];
  uint64_t x = 1;
  double mean = 0;
  for (int i = 0; i < 40; i++) {
    x = x * 6364136223846793005u + 1442695040888963407u;
    v[i] = (double)(x >> 40) / (double)(1u << 24) * 100; /* 0..100 */
    mean += v[i] / 40;
  }
  const double *vs[] = {v};
  size_t n[] = {40};
  pascal_interval a, b, c, narrow;
  CHECK_INT(pascal_key_bootstrap(vs, n, 1, 2000, 12, 0.95, &a, NULL), PASCAL_OK);
  CHECK_INT(pascal_key_bootstrap(vs, n, 1, 2000, 12, 0.95, &b, NULL), PASCAL_OK);
  CHECK_INT(pascal_key_bootstrap(vs, n, 1, 2000, 99, 0.95, &c, NULL), PASCAL_OK);
  CHECK_INT(pascal_key_bootstrap(vs, n, 1, 2000, 12, 0.5, &narrow, NULL), PASCAL_OK);
  CHECK(a.lo < mean && mean < a.hi);             /* contains the point estimate */
  CHECK(a.lo == b.lo && a.hi == b.hi);           /* deterministic for a seed    */
  CHECK(a.lo != c.lo || a.hi != c.hi);           /* the seed matters            */
  CHECK(a.lo <= narrow.lo && narrow.hi <= a.hi); /* nested by level            */
  CHECK(a.hi - a.lo < 40);                       /* sd/sqrt(40) ~ 4.6: ~18 wide */
  pascal_error err;
  v[3] = NAN;
  CHECK_INT(pascal_key_bootstrap(vs, n, 1, 2000, 12, 0.95, &a, &err), PASCAL_EINVAL);
  CHECK(strcmp(err.field, "values[0][3]") == 0);
  n[0] = 0;
  CHECK_INT(pascal_key_bootstrap(vs, n, 1, 2000, 12, 0.95, &a, &err), PASCAL_EINVAL);
  CHECK(strcmp(err.field, "n[0]") == 0);
  n[0] = 2;
  CHECK_INT(pascal_key_bootstrap(vs, n, 1, 2000, 12, 1.0, &a, &err), PASCAL_EINVAL);
  CHECK(strcmp(err.field, "level") == 0);
  CHECK_INT(pascal_key_bootstrap(vs, n, 1, 0, 12, 0.95, &a, &err), PASCAL_EINVAL);
  CHECK(strcmp(err.field, "resamples") == 0);
}

/* A report with two scored keys: key 0 one run at PASCAL 10 %, TileSight
 * 40 %; key 1 nine runs at 30 % and 50 %, floor 4 %. Balanced over keys:
 * PASCAL 20 (the run-pooled mean would be 28), TileSight 45, gap 25 with
 * per-key gaps {30, 20} -> interval [20, 30] as in bootstrap_tiny. A third
 * key with no scored run is left out. With a second report of one key at
 * PASCAL 60 the balanced overall row is (20 + 60)/2 = 40. */
static void summary_rows(void)
{
  pascal_key_report keys[3], other_key;
  memset(keys, 0, sizeof keys);
  memset(&other_key, 0, sizeof other_key);
  for (int m = 0; m < PASCAL_METHOD_COUNT; m++) {
    keys[0].mape[m] = 10;
    keys[1].mape[m] = 30;
    keys[2].mape[m] = NAN;
    other_key.mape[m] = 60;
  }
  keys[0].mape[PASCAL_METHOD_TILESIGHT] = 40;
  keys[1].mape[PASCAL_METHOD_TILESIGHT] = 50;
  keys[0].n_runs = keys[0].n_scored = 1;
  keys[1].n_runs = keys[1].n_scored = 9;
  keys[2].n_runs = 2;
  keys[1].n_above = 3;
  keys[1].n_floor_runs = 9;
  keys[1].floor_mape = 4;
  keys[0].floor_mape = keys[2].floor_mape = NAN;
  other_key.n_runs = other_key.n_scored = 1;
  other_key.floor_mape = NAN;
  pascal_loko_report rep = {
      .n_keys = 3, .keys = keys, .n_runs = 12, .n_scored = 10, .n_keys_scored = 2};
  pascal_loko_report other = {
      .n_keys = 1, .keys = &other_key, .n_runs = 1, .n_scored = 1, .n_keys_scored = 1};
  const pascal_loko_report *one[] = {&rep}, *both[] = {&rep, &other};
  pascal_eval_summary s;
  CHECK_INT(pascal_eval_summarize(one, 1, &s, NULL), PASCAL_OK);
  CHECK_NEAR(s.balanced_mape[PASCAL_METHOD_PASCAL], 20, 1e-12);
  CHECK_NEAR(s.balanced_mape[PASCAL_METHOD_TILESIGHT], 45, 1e-12);
  CHECK_NEAR(s.gap[PASCAL_METHOD_TILESIGHT], 25, 1e-12);
  CHECK(s.gap_ci[PASCAL_METHOD_TILESIGHT].lo == 20 && s.gap_ci[PASCAL_METHOD_TILESIGHT].hi == 30);
  CHECK(s.ci[PASCAL_METHOD_PASCAL].lo == 10 && s.ci[PASCAL_METHOD_PASCAL].hi == 30);
  CHECK(s.gap[PASCAL_METHOD_PASCAL] == 0 && s.gap_ci[PASCAL_METHOD_PASCAL].hi == 0);
  CHECK_NEAR(s.floor_mape, 4, 1e-12);
  CHECK_INT(s.n_floor_runs, 9);
  CHECK_INT(s.n_above, 3);
  CHECK_INT(s.n_scored, 10);
  CHECK_INT(pascal_eval_summarize(both, 2, &s, NULL), PASCAL_OK);
  CHECK_NEAR(s.balanced_mape[PASCAL_METHOD_PASCAL], 40, 1e-12);
  CHECK_NEAR(s.floor_mape, 4, 1e-12); /* only the first report has repeats */
  CHECK_INT(s.n_runs, 13);
  other.n_keys_scored = 0;
  pascal_error err;
  CHECK_INT(pascal_eval_summarize(both, 2, &s, &err), PASCAL_EINVAL);
  CHECK(strcmp(err.field, "reports[1]") == 0);
}

/* Calibration keys m = 0 and 8 (K = 2 and 5), held-out key m = 4 at
 * N = 2048, W = 4, measured twice (K = 3 and 3.3). The model of all runs
 * predicts the bracketed m = 4 as in loko_hand_worked, mid = 1 +
 * sqrt(1.01 * 4.01) - 0.01, so PASCAL's panel MAPE is the mean of
 * |mid/3 - 1| and |mid/3.3 - 1|; the floor predicts each repeat by the other:
 * (|3.3/3 - 1| + |3/3.3 - 1|)/2; both runs have K > 1.05. */
static void heldout_panel(void)
{
  pascal_calibration full = three_keys(1280, 2048, 4096), cal;
  pascal_calibration_init(&cal, PASCAL_WORKLOAD_SCAN);
  cal.device = full.device;
  for (size_t i = 0; i < full.n_scan_runs; i++)
    if (full.scan_runs[i].key.m != 4)
      CHECK_INT(pascal_calibration_append_scan(&cal, &full.scan_runs[i], NULL), PASCAL_OK);
  pascal_scan_run r = {.key = {1, PASCAL_PATH_TMA, 1, 4}, .N = 2048, .W = 4, .has_repeat = true};
  const double ks[] = {3, 3.3};
  for (uint32_t rep = 0; rep < 2; rep++) {
    r.repeat = rep;
    r.fill_bytes = ks[rep] * 16384.0 * 4 * 2048;
    CHECK_INT(pascal_calibration_append_heldout_scan(&cal, &r, NULL), PASCAL_OK);
  }
  pascal_error err;
  CHECK_INT(pascal_calibration_append_heldout_scan(&cal, &r, &err), PASCAL_EINVAL);
  CHECK(strcmp(err.field, "heldout[2]") == 0); /* duplicate within the panel */
  r.repeat = 5;
  r.fill_bytes = -1;
  CHECK_INT(pascal_calibration_append_heldout_scan(&cal, &r, &err), PASCAL_EINVAL);
  CHECK(strcmp(err.field, "heldout[2].fill_bytes") == 0);
  CHECK_INT(pascal_calibration_heldout_count(&cal), 2);
  CHECK_INT(pascal_calibration_run_count(&cal), 8);

  double mid = 1 + sqrt(1.01 * 4.01) - 0.01;
  double want = 100 * (fabs(mid / 3 - 1) + fabs(mid / 3.3 - 1)) / 2;
  double floor = 100 * (fabs(3.3 / 3 - 1) + fabs(3 / 3.3 - 1)) / 2;
  pascal_loko_report rep;
  CHECK_INT(pascal_heldout_run(&cal, &rep, &err), PASCAL_OK);
  CHECK_INT(rep.n_keys, 1);
  CHECK_INT(rep.n_runs, 2);
  CHECK_NEAR(rep.balanced_mape[PASCAL_METHOD_PASCAL], want, 1e-9);
  CHECK_NEAR(rep.keys[0].floor_mape, floor, 1e-12);
  CHECK_NEAR(rep.summary.floor_mape, floor, 1e-12);
  CHECK_INT(rep.summary.n_above, 2);
  CHECK(rep.heldout == NULL);
  pascal_loko_report_free(&rep);

  /* LOKO over the two calibration keys carries the same panel report, and
   * its folds never see the panel (2 keys x 4 runs). */
  pascal_calibration copy;
  CHECK_INT(pascal_calibration_copy(&copy, &cal, NULL), PASCAL_OK);
  CHECK_INT(pascal_loko_run(&copy, &rep, &err), PASCAL_OK);
  CHECK_INT(rep.n_keys, 2);
  CHECK_INT(rep.n_runs, 8);
  CHECK(rep.heldout != NULL);
  if (rep.heldout)
    CHECK_NEAR(rep.heldout->balanced_mape[PASCAL_METHOD_PASCAL], want, 1e-9);

  /* The panel's key is validation evidence: an answer at m = 4 (bracketed
   * by m = 0 and 8, rule graph) takes its expected error from the panel,
   * which the lookup prefers to the folds. */
  pascal_model *md = NULL;
  pascal_validation v;
  CHECK_INT(pascal_model_fit(&copy, &md, NULL), PASCAL_OK);
  CHECK_INT(pascal_validation_build(&copy, md, &rep, &v, NULL), PASCAL_OK);
  size_t n_panel = 0;
  for (size_t i = 0; i < v.n; i++)
    if (v.keys[i].source == PASCAL_ERRSRC_HELD_OUT) {
      n_panel++;
      CHECK_INT(v.keys[i].key.m, 4);
      CHECK_NEAR(v.keys[i].error_pct, want, 1e-9);
    }
  CHECK_INT(n_panel, 1);
  pascal_scan_prediction p;
  CHECK_INT(pascal_model_predict_scan(md, &r.key, 2048, 4, &p, NULL), PASCAL_OK);
  /* With the intervals' residuals the answer (m interpolated) expects at
   * least their mean error, which here exceeds the panel's: */
  pascal_validation_expect_scan(&v, &r.key, &p);
  CHECK(p.expected.pct >= want);
  CHECK_INT(p.expected.source,
            p.expected.pct > want ? PASCAL_ERRSRC_INTERVAL : PASCAL_ERRSRC_HELD_OUT);
  /* without them, the lookup alone: */
  pascal_interval_free(&v.interval);
  pascal_validation_expect_scan(&v, &r.key, &p);
  CHECK_INT(p.expected.source, PASCAL_ERRSRC_HELD_OUT);
  CHECK_NEAR(p.expected.pct, want, 1e-9);
  pascal_validation_free(&v);
  pascal_model_free(md);
  pascal_loko_report_free(&rep);
  pascal_calibration_free(&copy);

  /* set_heldout: a panel calibration's runs replace the panel; a panel of
   * another device or without runs is refused and changes nothing. */
  pascal_calibration_free(&full);
  full = three_keys(1280, 2048, 4096);
  const pascal_calibration *whole[] = {&full};
  CHECK_INT(pascal_calibration_set_heldout(&cal, whole, 1, &err), PASCAL_OK);
  CHECK_INT(pascal_calibration_heldout_count(&cal), 12);
  CHECK(cal.heldout_scan_runs[5].fill_bytes == full.scan_runs[5].fill_bytes);
  /* A panel in two parts (split by size) is the same panel, in part order;
   * the same part twice is a duplicate run, refused. */
  pascal_calibration part[2];
  for (int h = 0; h < 2; h++) {
    pascal_calibration_init(&part[h], PASCAL_WORKLOAD_SCAN);
    part[h].device = full.device;
  }
  for (size_t i = 0; i < full.n_scan_runs; i++)
    CHECK_INT(pascal_calibration_append_scan(&part[full.scan_runs[i].N == 4096], &full.scan_runs[i],
                                             NULL),
              PASCAL_OK);
  const pascal_calibration *halves[] = {&part[0], &part[1]}, *twice[] = {&part[0], &part[0]};
  CHECK_INT(pascal_calibration_set_heldout(&cal, halves, 2, &err), PASCAL_OK);
  CHECK_INT(pascal_calibration_heldout_count(&cal), 12);
  CHECK_INT(part[0].n_scan_runs + part[1].n_scan_runs, 12);
  CHECK(part[0].n_scan_runs > 0 && part[1].n_scan_runs > 0);
  CHECK(cal.heldout_scan_runs[part[0].n_scan_runs].N == 4096);
  CHECK_INT(pascal_calibration_set_heldout(&cal, twice, 2, &err), PASCAL_EINVAL);
  CHECK_INT(pascal_calibration_heldout_count(&cal), 12);
  CHECK_INT(pascal_calibration_set_heldout(&cal, halves, 0, &err), PASCAL_EINVAL);
  CHECK(strcmp(err.field, "measurements") == 0);
  part[1].device.capacity_blocks = 1288;
  CHECK_INT(pascal_calibration_set_heldout(&cal, halves, 2, &err), PASCAL_EINVAL);
  CHECK(strcmp(err.field, "device.capacity_blocks") == 0 && strstr(err.message, "part 2"));
  for (int h = 0; h < 2; h++)
    pascal_calibration_free(&part[h]);
  full.device.capacity_blocks = 1288;
  CHECK_INT(pascal_calibration_set_heldout(&cal, whole, 1, &err), PASCAL_EINVAL);
  CHECK(strcmp(err.field, "device.capacity_blocks") == 0);
  pascal_calibration empty;
  pascal_calibration_init(&empty, PASCAL_WORKLOAD_SCAN);
  empty.device = cal.device;
  const pascal_calibration *none[] = {&empty};
  CHECK_INT(pascal_calibration_set_heldout(&cal, none, 1, &err), PASCAL_EINVAL);
  CHECK_INT(pascal_calibration_heldout_count(&cal), 12);
  CHECK_INT(pascal_heldout_run(&empty, &rep, &err), PASCAL_EINVAL);
  CHECK(strcmp(err.field, "heldout") == 0);
  pascal_calibration_free(&full);
  pascal_calibration_free(&cal);
}

/* The Origami column of a GEMM evaluation is Origami's K = M (1 - H) of
 * pascal/origami.h (checked on its own in test_origami) for the calibration
 * kernel's row-major raster, one CTA per SM and C = capacity_blocks x
 * block_bytes, scored against each run's observed K = M V / Q; a scan has
 * none. Verified to fail with group_m 2, or C in blocks instead of bytes. */
static void origami_column(void)
{
  pascal_synth_law law;
  pascal_synth_plan plan;
  pascal_calibration cal;
  pascal_loko_report rep;
  pascal_synth_law_default(PASCAL_WORKLOAD_GEMM, &law);
  pascal_synth_plan_default(PASCAL_WORKLOAD_GEMM, &plan);
  CHECK_INT(pascal_synth_calibration(&law, &plan, &cal, NULL), PASCAL_OK);
  /* peaks and kernel times: the latency table's Origami input is its DRAM
   * traffic through the pipeline on peaks, like the others' */
  cal.device.has_peaks = 1;
  cal.device.peaks = (pascal_peaks){.dram_bytes_per_s = 2.7e11,
                                    .l2_bytes_per_s = 2.3e12,
                                    .tensor_flops = 6.5e12,
                                    .sm_clock_hz = 1e9,
                                    .launch_s = 2e-6};
  for (size_t i = 0; i < cal.n_gemm_runs; i++) {
    cal.gemm_runs[i].has_kernel_ns = true;
    cal.gemm_runs[i].kernel_ns = 1e5 * (1 + i % 7);
  }
  pascal_model *all = NULL;
  CHECK_INT(pascal_model_fit(&cal, &all, NULL), PASCAL_OK);
  CHECK_INT(pascal_loko_run(&cal, &rep, NULL), PASCAL_OK);
  pascal_origami_device dev = {.sm_count = 48, .l2_bytes = 1280.0 * 16384};
  pascal_origami_config c = {128, 128, 64, 2, 1, 1};
  double balanced = 0;
  size_t keys = 0, differs = 0;
  for (size_t k = 0; k < rep.n_keys; k++) {
    double sum = 0, lat = 0;
    size_t n = 0;
    for (size_t i = 0; i < cal.n_gemm_runs; i++) {
      const pascal_gemm_run *r = &cal.gemm_runs[i];
      if (r->shape.Mg != rep.keys[k].Mg || r->shape.Ng != rep.keys[k].Ng)
        continue;
      pascal_origami_traffic t;
      CHECK_INT(pascal_origami_traffic_of(&dev, &r->shape, &c, &t, NULL), PASCAL_OK);
      double Q =
          2.0 * 128 * 128 * 2 * (r->shape.Mg / 128) * (r->shape.Ng / 128) * r->shape.Kg / 128;
      CHECK_NEAR(t.requested_bytes, Q, 0);
      double K = 48 * t.dram_bytes / Q, obs = 48 * r->fill_bytes / Q;
      sum += fabs(K / obs - 1);
      pascal_time tm;
      CHECK_INT(pascal_time_gemm_from(all, PASCAL_TIME_PEAKS, &r->shape, t.dram_bytes, &tm, NULL),
                PASCAL_OK);
      lat += fabs(tm.time_s / (1e-9 * r->kernel_ns) - 1);
      n++;
    }
    CHECK(n > 0);
    CHECK_NEAR(rep.keys[k].latency.mape[PASCAL_CACHE_ORIGAMI], 100 * lat / n, 1e-9);
    CHECK_NEAR(rep.keys[k].mape[PASCAL_METHOD_ORIGAMI], 100 * sum / n, 1e-9);
    differs += fabs(rep.keys[k].mape[PASCAL_METHOD_ORIGAMI] -
                    rep.keys[k].mape[PASCAL_METHOD_ALIGNED]) > 1e-6;
    balanced += 100 * sum / n;
    keys++;
  }
  CHECK(differs > 0); /* not aligned K_0 in disguise: grids beyond one timestep differ */
  CHECK_NEAR(rep.balanced_mape[PASCAL_METHOD_ORIGAMI], balanced / keys, 1e-9);
  CHECK(isfinite(rep.latency.all.mape[PASCAL_CACHE_ORIGAMI]));
  pascal_model_free(all);
  pascal_loko_report_free(&rep);
  pascal_calibration_free(&cal);
  pascal_calibration scan = three_keys(1280, 2048, 4096);
  CHECK_INT(pascal_loko_run(&scan, &rep, NULL), PASCAL_OK);
  CHECK(isnan(rep.keys[0].mape[PASCAL_METHOD_ORIGAMI]));
  CHECK(isnan(rep.balanced_mape[PASCAL_METHOD_ORIGAMI]));
  pascal_loko_report_free(&rep);
  pascal_calibration_free(&scan);
}

static void method_names(void)
{
  CHECK(strcmp(pascal_method_name(PASCAL_METHOD_EXACT_SDCM), "exact-sdcm") == 0);
  CHECK(strcmp(pascal_method_name(PASCAL_METHOD_TILESIGHT), "tilesight") == 0);
  CHECK(strcmp(pascal_method_name(PASCAL_METHOD_PASCAL), "pascal") == 0);
  CHECK(strcmp(pascal_method_name(PASCAL_METHOD_ALIGNED), "aligned") == 0);
  CHECK(strcmp(pascal_method_name(PASCAL_METHOD_PPTGPU), "ppt-gpu") == 0);
  CHECK(strcmp(pascal_method_name(PASCAL_METHOD_ORIGAMI), "origami") == 0);
  CHECK(strcmp(pascal_method_name(PASCAL_METHOD_COUNT), "unknown") == 0);
  CHECK(pascal_method_info_of(PASCAL_METHOD_COUNT) == NULL);
}

/* The table of methods (PASCAL_METHODS): every row complete, each key its
 * name in snake_case, the columns a permutation with PASCAL first, in the
 * paper's order, and pascal_method_at_column its inverse. A duplicated
 * column in a new row passes the table's _Static_asserts and fails here. */
static void method_table(void)
{
  static const char *const paper_order[] = {"pascal",  "tilesight", "ppt_gpu", "exact_sdcm",
                                            "aligned", "che",       "origami"};
  CHECK_INT(PASCAL_METHOD_COUNT, sizeof paper_order / sizeof *paper_order);
  int seen[PASCAL_METHOD_COUNT] = {0};
  for (int m = 0; m < PASCAL_METHOD_COUNT; m++) {
    const pascal_method_info *i = pascal_method_info_of((pascal_method)m);
    CHECK(i && i->name && i->key && i->title && i->label);
    char snake[32];
    snprintf(snake, sizeof snake, "%s", i->name);
    for (char *c = snake; *c; c++)
      *c = *c == '-' ? '_' : *c;
    CHECK(strcmp(snake, i->key) == 0);
    CHECK(strlen(i->title) <= 12); /* the CLI table's column width */
    CHECK(i->column < PASCAL_METHOD_COUNT && !seen[i->column]);
    seen[i->column % PASCAL_METHOD_COUNT] = 1;
    CHECK_INT(pascal_method_at_column(i->column), m);
  }
  for (unsigned c = 0; c < PASCAL_METHOD_COUNT; c++)
    CHECK(strcmp(pascal_method_info_of(pascal_method_at_column(c))->key, paper_order[c]) == 0);
  CHECK_INT(pascal_method_at_column(PASCAL_METHOD_COUNT), PASCAL_METHOD_COUNT);
}

int main(void)
{
  balanced_mape();
  loko_hand_worked();
  baselines_when_everything_fits();
  method_names();
  method_table();
  origami_column();
  bootstrap_tiny();
  bootstrap_properties();
  summary_rows();
  heldout_panel();
  return check_summary();
}
