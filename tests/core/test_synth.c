/*
 * test_synth.c - the synthetic response laws of pascal/synth.h: values
 * worked by hand from the documented formulas, clipping at M, seeded
 * determinism and noise level, the default plans, and input validation.
 */
#include <math.h>
#include <string.h>

#include "check.h"
#include "pascal/plausible.h"
#include "pascal/predict.h"
#include "pascal/synth.h"

static void scan_law_values(void)
{
  pascal_synth_law law;
  double K;
  pascal_synth_law_default(PASCAL_WORKLOAD_SCAN, &law);
  /* (1, tma, 2, m = 0), C/N = 1280/2560 = 1/2, W = 8: W/(W + 8) = 1/2,
   * e = 1.5 * 1 * (1 + 0.5 * 2) * 1 * 1.0 * 1 * 0.5 * 0.5 = 0.75. */
  pascal_scan_key k = {1, PASCAL_PATH_TMA, 2, 0};
  CHECK_INT(pascal_synth_scan_k(&law, &k, 2560, 8, &K, NULL), PASCAL_OK);
  CHECK_NEAR(K, 1.75, 1e-14);
  /* (2, sync, 0, m = 12): class 0, C/N = 1, W = 8:
   * e = 1.5 * 0.2 * 1 * 2 * 1.0 * exp(-1) * 1 * 0.5 = 0.3 / e. */
  k = (pascal_scan_key){2, PASCAL_PATH_SYNC, 0, 12};
  CHECK_INT(pascal_synth_scan_k(&law, &k, 1280, 8, &K, NULL), PASCAL_OK);
  CHECK_NEAR(K, 1 + 0.3 * exp(-1), 1e-14);
  /* m = 13 is class 1 (gain 0.4), otherwise the same law. */
  k.m = 13;
  CHECK_INT(pascal_synth_scan_k(&law, &k, 1280, 8, &K, NULL), PASCAL_OK);
  CHECK_NEAR(K, 1 + 0.3 * 0.4 * exp(-13.0 / 12), 1e-14);
  /* Clipped at M = 48 o. */
  law.amp = 1e6;
  CHECK_INT(pascal_synth_scan_k(&law, &k, 1280, 8, &K, NULL), PASCAL_OK);
  CHECK(K == 96);
}

static void gemm_law_values(void)
{
  pascal_synth_law law;
  double K;
  pascal_synth_law_default(PASCAL_WORKLOAD_GEMM, &law);
  /* 1280 x 1280 x 2560: n_k = 40, n_r n_c = 100, K_0 = 4.8;
   * kappa = 1 + 40/72 * 100/164. */
  pascal_gemm_shape s = {1280, 1280, 2560};
  CHECK_INT(pascal_synth_gemm_k(&law, &s, &K, NULL), PASCAL_OK);
  CHECK_NEAR(K, 4.8 * (1 + 40.0 / 72 * 100.0 / 164), 1e-13);
  law.gemm_amp = 1e6;
  CHECK_INT(pascal_synth_gemm_k(&law, &s, &K, NULL), PASCAL_OK);
  CHECK(K == 48);
  s.Kg = 100;
  pascal_error err;
  CHECK_INT(pascal_synth_gemm_k(&law, &s, &K, &err), PASCAL_EINVAL);
  CHECK(strcmp(err.field, "Kg") == 0);
}

static void determinism_and_noise(void)
{
  pascal_synth_law law;
  pascal_synth_plan plan;
  pascal_calibration a, b, c;
  pascal_synth_law_default(PASCAL_WORKLOAD_SCAN, &law);
  pascal_synth_plan_default(PASCAL_WORKLOAD_SCAN, &plan);
  law.noise = 0.1;
  CHECK_INT(pascal_synth_calibration(&law, &plan, &a, NULL), PASCAL_OK);
  CHECK_INT(pascal_synth_calibration(&law, &plan, &b, NULL), PASCAL_OK);
  law.seed = 2;
  CHECK_INT(pascal_synth_calibration(&law, &plan, &c, NULL), PASCAL_OK);
  CHECK_INT(a.n_scan_runs, 756);
  size_t same = 0, identical = 0, free_runs = 0, clamped = 0;
  double sum = 0, sum2 = 0;
  for (size_t i = 0; i < a.n_scan_runs; i++) {
    const pascal_scan_run *r = &a.scan_runs[i];
    identical += r->fill_bytes == b.scan_runs[i].fill_bytes && r->N == b.scan_runs[i].N &&
                 r->W == b.scan_runs[i].W && r->key.m == b.scan_runs[i].key.m;
    double K, cold, most;
    CHECK_INT(pascal_synth_scan_k(&law, &r->key, r->N, r->W, &K, NULL), PASCAL_OK);
    CHECK_INT(pascal_plausible_scan_fills(&law.device, &r->key, r->N, r->W, &cold, &most, NULL),
              PASCAL_OK);
    /* every run lies in its physical range; one at a bound was clamped there */
    CHECK(r->fill_bytes >= cold && r->fill_bytes <= most);
    clamped += r->fill_bytes == cold || r->fill_bytes == most;
    double law_fill = K * 16384.0 * r->W * r->N;
    if (law_fill < 1.5 * cold || law_fill > most / 1.5)
      continue; /* within 4 sd of a bound: its noise may be clamped */
    free_runs++;
    same += r->fill_bytes == c.scan_runs[i].fill_bytes;
    double z = log(r->fill_bytes / law_fill);
    sum += z;
    sum2 += z * z;
  }
  CHECK_INT(identical, 756); /* same seed: the same calibration */
  CHECK_INT(same, 0);        /* another seed: other noise everywhere */
  /* the law's K = 1 rows at W = 1 fill N b before noise: about half clamp */
  CHECK(clamped > 0 && free_runs > 500);
  /* log-noise has mean ~0 and standard deviation ~0.1 (500+ samples:
   * standard errors ~0.005 and ~0.004). */
  double mean = sum / (double)free_runs, sd = sqrt(sum2 / (double)free_runs - mean * mean);
  CHECK(fabs(mean) < 0.02);
  CHECK(fabs(sd - 0.1) < 0.015);
  pascal_calibration_free(&a);
  pascal_calibration_free(&b);
  pascal_calibration_free(&c);
}

static void default_plans(void)
{
  pascal_synth_plan plan;
  pascal_synth_plan_default(PASCAL_WORKLOAD_SCAN, &plan);
  CHECK_INT(plan.n_keys * plan.n_sizes * plan.n_horizons * plan.repeats, 756);
  unsigned per_class[3] = {0, 0, 0};
  for (size_t i = 0; i < plan.n_keys; i++)
    per_class[pascal_class_rule_apply(PASCAL_CLASS_MOD4_MIN2, plan.keys[i].m)]++;
  CHECK_INT(per_class[0], 21);
  CHECK_INT(per_class[1], 21);
  CHECK_INT(per_class[2], 21);
  pascal_synth_plan_default(PASCAL_WORKLOAD_GEMM, &plan);
  CHECK_INT(plan.n_shapes, 120);
  pascal_synth_law law;
  pascal_calibration cal;
  pascal_synth_law_default(PASCAL_WORKLOAD_GEMM, &law);
  law.noise = 0;
  CHECK_INT(pascal_synth_calibration(&law, &plan, &cal, NULL), PASCAL_OK);
  CHECK_INT(cal.n_gemm_runs, 120);
  CHECK(cal.gemm_runs[0].has_repeat && cal.gemm_runs[0].repeat == 0);
  /* Noise-free fill bytes decode back to the law: V = K Q / M. */
  double K;
  pascal_gemm_prediction g;
  CHECK_INT(pascal_synth_gemm_k(&law, &cal.gemm_runs[7].shape, &K, NULL), PASCAL_OK);
  CHECK_INT(pascal_gemm_geometry(&cal.gemm, &cal.gemm_runs[7].shape, &g, NULL), PASCAL_OK);
  CHECK_NEAR(cal.gemm_runs[7].fill_bytes, K * g.Q / 48, 1e-6);
  pascal_calibration_free(&cal);
}

static void validation(void)
{
  pascal_synth_law law;
  pascal_synth_plan plan;
  pascal_calibration cal;
  pascal_error err;
  pascal_synth_law_default(PASCAL_WORKLOAD_SCAN, &law);
  CHECK_INT(pascal_synth_law_set(&law, "amp", 2.5, &err), PASCAL_OK);
  CHECK(law.amp == 2.5);
  CHECK_INT(pascal_synth_law_set(&law, "class1", 0.9, &err), PASCAL_OK);
  CHECK(law.class_gain[1] == 0.9);
  CHECK_INT(pascal_synth_law_set(&law, "seed", 77, &err), PASCAL_OK);
  CHECK(law.seed == 77);
  CHECK_INT(pascal_synth_law_set(&law, "seed", 1.5, &err), PASCAL_EINVAL);
  CHECK_INT(pascal_synth_law_set(&law, "noise", -0.1, &err), PASCAL_EINVAL);
  CHECK(strcmp(err.field, "noise") == 0);
  CHECK_INT(pascal_synth_law_set(&law, "m_scale", 0, &err), PASCAL_EINVAL);
  CHECK_INT(pascal_synth_law_set(&law, "w_half", INFINITY, &err), PASCAL_EINVAL);
  CHECK_INT(pascal_synth_law_set(&law, "bogus", 1, &err), PASCAL_EINVAL);
  CHECK(strcmp(err.field, "bogus") == 0);

  static const pascal_scan_key bad_keys[] = {{1, PASCAL_PATH_TMA, 1, 0},
                                             {1, PASCAL_PATH_SYNC, 2, 0}};
  static const uint32_t sizes[] = {2048, 0}, horizons[] = {1};
  plan = (pascal_synth_plan){.keys = bad_keys,
                             .n_keys = 2,
                             .sizes = sizes,
                             .n_sizes = 1,
                             .horizons = horizons,
                             .n_horizons = 1,
                             .repeats = 1};
  CHECK_INT(pascal_synth_calibration(&law, &plan, &cal, &err), PASCAL_EINVAL);
  CHECK(strcmp(err.field, "keys[1].d") == 0);
  pascal_calibration_free(&cal);
  plan.n_keys = 1;
  plan.n_sizes = 2;
  CHECK_INT(pascal_synth_calibration(&law, &plan, &cal, &err), PASCAL_EINVAL);
  CHECK(strcmp(err.field, "sizes[1]") == 0);
  pascal_calibration_free(&cal);
  plan.n_sizes = 1;
  plan.repeats = 0;
  CHECK_INT(pascal_synth_calibration(&law, &plan, &cal, &err), PASCAL_EINVAL);
  CHECK(strcmp(err.field, "repeats") == 0);
  pascal_calibration_free(&cal);
  plan.repeats = 2;
  law.device.capacity_blocks = 0;
  CHECK_INT(pascal_synth_calibration(&law, &plan, &cal, &err), PASCAL_EINVAL);
  CHECK(strcmp(err.field, "device.capacity_blocks") == 0);
  pascal_calibration_free(&cal);
}

int main(void)
{
  scan_law_values();
  gemm_law_values();
  determinism_and_noise();
  default_plans();
  validation();
  return check_summary();
}
