/*
 * test_evaluate.c - configuration-balanced MAPE (paper Eq.
 * dynamic_selection) and leave-one-key-out folds on a hand-worked
 * calibration whose out-of-fold predictions follow from the rules by hand.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "pascal/evaluate.h"

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
  CHECK_NEAR(rep.keys[0].mape[PASCAL_METHOD_SDCM], 68.75, 1e-9);
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

static void method_names(void)
{
  CHECK(strcmp(pascal_method_name(PASCAL_METHOD_PASCAL), "pascal") == 0);
  CHECK(strcmp(pascal_method_name(PASCAL_METHOD_ALIGNED), "aligned") == 0);
  CHECK(strcmp(pascal_method_name(PASCAL_METHOD_PPTGPU), "ppt-gpu") == 0);
}

int main(void)
{
  balanced_mape();
  loko_hand_worked();
  baselines_when_everything_fits();
  method_names();
  return check_summary();
}
