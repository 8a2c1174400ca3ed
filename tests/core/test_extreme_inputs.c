/*
 * test_extreme_inputs.c - the core at the edges of its documented domain
 * (run under ASan+UBSan in CI, which turns any overflow into a failure):
 *
 *  - the static theory at N = PASCAL_STATIC_N_MAX = 2^62 (gap law, exact
 *    reuse distances, policy bound), with values worked by hand below;
 *  - Theorem 4's check where (M - 1) sigma + E is just representable;
 *  - feedback times at their documented maximum (no result overflows) and
 *    just above it (refused, naming the field);
 *  - the baselines with reuse distances near 2^64 and Che with rates that
 *    span more than the double range (regression: NaN hit rate);
 *  - predictions for extreme but valid queries (W near 0 and near DBL_MAX,
 *    N and m at UINT32_MAX, the largest GEMM shape) and the fit of a run
 *    whose K underflows (regression: the error named another run).
 */
#include <float.h>
#include <math.h>
#include <string.h>

#include "check.h"
#include "pascal/baselines.h"
#include "pascal/coherence.h"
#include "pascal/feedback.h"
#include "pascal/predict.h"
#include "pascal/static.h"
#include "test_synth_model.h"

#define N62 PASCAL_STATIC_N_MAX
#define P61 (UINT64_C(1) << 61)
#define P60 (UINT64_C(1) << 60)

static void static_at_n_max(void)
{
  pascal_static_result r;
  pascal_error err;
  /* phases 0, 2^61, 2^62 - 1: gaps 2^61, 2^61 - 1, 1; with C = 2^62 - 1,
   * U(theta) = 1 + 2 theta = C at theta = 2^61 - 1 (an integer): T* = theta,
   * K(T*) = 1 (only the gap 2^61), K(T*+1) = 0, K(T*-1) = 2. */
  const uint64_t three[] = {0, P61, N62 - 1};
  CHECK_INT(pascal_static_analyze(N62, N62 - 1, three, 3, &r, &err), PASCAL_OK);
  CHECK(r.d == 3 && r.theta.num == P61 - 1 && r.theta.den == 1);
  CHECK(r.t_star == P61 - 1);
  CHECK_INT(r.k_ttl, 1);
  CHECK(r.lru.certified && r.lru.lower == 0 && r.lru.upper == 2);

  /* phases 0, 2^61: two gaps 2^61, theta = (2^62 - 1)/2, T* = 2^61 - 1,
   * K(T*) = 2. Worker 0's previous request to its block is worker 1's,
   * 2^61 rounds earlier; in between both sweep 2^61 - 1 blocks each, no
   * overlap: rd = N - 2. Worker 1 follows worker 0 by 2^61 rounds and sees
   * one round more of each minus their shared block: rd = N - 1. Exact LRU
   * at C = N - 1 misses once per round, inside the certificate [0, 2]. */
  const uint64_t two[] = {0, P61};
  CHECK_INT(pascal_static_analyze(N62, N62 - 1, two, 2, &r, &err), PASCAL_OK);
  CHECK(r.theta.num == N62 - 1 && r.theta.den == 2);
  CHECK(r.t_star == P61 - 1);
  CHECK_INT(r.k_ttl, 2);
  uint64_t rd[2];
  size_t misses;
  CHECK_INT(pascal_reuse_distance_compute(N62, two, 2, rd, &err), PASCAL_OK);
  CHECK(rd[0] == N62 - 2 && rd[1] == N62 - 1);
  CHECK_INT(pascal_lru_misses_exact(N62, N62 - 1, two, 2, &misses, &err), PASCAL_OK);
  CHECK_INT(misses, 1);
  CHECK(r.lru.lower <= misses && misses <= r.lru.upper);

  /* Policy bound at N M = 2^62 (N = 2^61, phases 0, 2^60, C = N - 1):
   * tau_0 = 2^60 - 1/2, tau_1 = 2^60 + 1/2, in units of 1/2 round
   * (2^61 - 1, 2^61 + 1). Budget C M = 2^62 - 2 units: item 0 whole, then
   * (2^61 - 1)/(2^61 + 1) of item 1, so M - Phi = 2 / (2^61 + 1). */
  const uint64_t half[] = {0, P60};
  uint64_t tau[2];
  pascal_policy_bound pb;
  CHECK_INT(pascal_reuse_time_compute(P61, half, 2, tau, &err), PASCAL_OK);
  CHECK(tau[0] == P61 - 1 && tau[1] == P61 + 1);
  CHECK_INT(pascal_policy_bound_compute(P61, P61 - 1, half, 2, &pb, &err), PASCAL_OK);
  CHECK(pb.whole == 0 && pb.frac.num == 2 && pb.frac.den == P61 + 1);

  /* Footprint with t beyond every gap is N; one more block is refused. */
  const uint64_t gaps[] = {P61, P61 - 1, 1};
  uint64_t u;
  CHECK_INT(pascal_footprint_eval(gaps, 3, UINT64_MAX, &u, &err), PASCAL_OK);
  CHECK(u == N62);
  const uint64_t too_many[] = {P61, P61, 1};
  CHECK_INT(pascal_footprint_eval(too_many, 3, 1, &u, &err), PASCAL_ERANGE);
  CHECK(strcmp(err.field, "gaps[2]") == 0);
}

static void coherence_at_the_limit(void)
{
  pascal_coherence_result res;
  pascal_error err;
  /* (M - 1) sigma + E = 2^62 + 2^63 fits; max_w n_w(E) <= 3 * 2^61. */
  const uint64_t sigma = UINT64_C(1) << 62, e = UINT64_C(1) << 63;
  CHECK_INT(pascal_coherence_check(sigma, e - 1, 2, e, &res, &err), PASCAL_OK);
  CHECK(res.min_capacity == e - 1 && res.preserves);
  CHECK(res.miss_bound == 3 * P61);
  CHECK_INT(pascal_coherence_check(sigma, e - 2, 2, e, &res, &err), PASCAL_OK);
  CHECK(!res.preserves);
  /* sigma = E = 2^63: (M - 1) sigma + E = 2^64 does not fit. */
  CHECK_INT(pascal_coherence_check(e, e, 2, e, &res, &err), PASCAL_ERANGE);
  CHECK(strcmp(err.field, "sigma") == 0);
}

static void feedback_at_the_limit(void)
{
  const double t = PASCAL_FEEDBACK_TIME_MAX;
  pascal_feedback_params p = {t, t, 1u << 20};
  pascal_feedback_summary s;
  pascal_error err;
  double phi;
  CHECK_INT(pascal_feedback_summarize(&p, t, t, &s, &err), PASCAL_OK);
  CHECK(isfinite(s.cadence_hit) && isfinite(s.cadence_miss) && isfinite(s.overlap));
  CHECK(s.gain == 0); /* lambda_miss = t <= Theta = (d - 1) 2t - t */
  CHECK_INT(pascal_feedback_divergence(&p, t, &p, 0, &phi, &err), PASCAL_OK);
  CHECK(isfinite(phi));
  p.beta = 2 * t;
  CHECK_INT(pascal_feedback_summarize(&p, 0, 1, &s, &err), PASCAL_ERANGE);
  CHECK(strcmp(err.field, "beta") == 0);
  p.beta = 1;
  CHECK_INT(pascal_feedback_summarize(&p, 0, DBL_MAX, &s, &err), PASCAL_ERANGE);
  CHECK(strcmp(err.field, "lambda_miss") == 0);
}

static void baselines_at_the_limit(void)
{
  double p;
  pascal_error err;
  /* 8 ways x 2 sets: a reuse over ~2^64 lines never hits under SDCM or the
   * corrected normal form; the published form keeps its >= 1/2 defect. */
  const pascal_cache_geometry sa = {8, 2};
  CHECK_INT(pascal_hit_probability(PASCAL_HIT_SDCM, UINT64_MAX - 1, &sa, &p, &err), PASCAL_OK);
  CHECK(p == 0);
  CHECK_INT(pascal_hit_probability(PASCAL_HIT_PPT_CORRECTED, UINT64_MAX - 1, &sa, &p, &err),
            PASCAL_OK);
  CHECK(p >= 0 && p < 1e-12);
  CHECK_INT(pascal_hit_probability(PASCAL_HIT_PPT_PUBLISHED, UINT64_MAX - 1, &sa, &p, &err),
            PASCAL_OK);
  CHECK(p >= 0.5 && p <= 1);
  /* Fully associative 2^62 lines: hit iff rd < 2^62. */
  const pascal_cache_geometry fa = {N62, 1};
  CHECK_INT(pascal_hit_probability(PASCAL_HIT_SDCM, N62 - 1, &fa, &p, &err), PASCAL_OK);
  CHECK(p == 1);
  CHECK_INT(pascal_hit_probability(PASCAL_HIT_SDCM, N62, &fa, &p, &err), PASCAL_OK);
  CHECK(p == 0);

  /* Che with a rate below 2^-1074 of the total (or a zero rate next to a
   * denormal one): T_C is not representable and every other item fits, so
   * the hit rate is 1, not NaN. */
  double t, h;
  const double zero_and_tiny[] = {1, 0, 1e-320};
  CHECK_INT(pascal_che_characteristic_time(zero_and_tiny, 3, 1.5, &t, &h, &err), PASCAL_OK);
  CHECK(h == 1);
  const double spread[] = {1e300, 1e-30};
  CHECK_INT(pascal_che_characteristic_time(spread, 2, 1.5, &t, &h, &err), PASCAL_OK);
  CHECK(h == 1);
  const double huge[] = {DBL_MAX, DBL_MAX};
  CHECK_INT(pascal_che_characteristic_time(huge, 2, 1, &t, &h, &err), PASCAL_EINVAL);
  CHECK(strcmp(err.field, "rates") == 0);
}

static void scan_queries_at_the_limit(const pascal_model *md)
{
  pascal_scan_prediction p;
  pascal_error err;
  pascal_scan_key key = {1, PASCAL_PATH_TMA, 2, 5};
  /* W near 0 or huge is clamped to the calibrated horizons ... */
  const double tiny_w[] = {5e-324, 1e-300, 1e300};
  for (size_t i = 0; i < 3; i++) {
    CHECK_INT(pascal_model_predict_scan(md, &key, 4096, tiny_w[i], &p, &err), PASCAL_OK);
    CHECK(p.K >= 1 && p.K <= p.M && isfinite(p.fill_bytes));
  }
  /* ... but fill bytes K b W N beyond DBL_MAX are refused, naming W. */
  CHECK_INT(pascal_model_predict_scan(md, &key, 4096, DBL_MAX, &p, &err), PASCAL_ERANGE);
  CHECK(strcmp(err.field, "W") == 0);
  /* N and m at UINT32_MAX: clamped to the largest size, class 2 (clamp). */
  CHECK_INT(pascal_model_predict_scan(md, &key, UINT32_MAX, 16, &p, &err), PASCAL_OK);
  CHECK(p.why.n_sizes == 1 && p.why.size[0].N == 5120);
  key.m = UINT32_MAX;
  CHECK_INT(pascal_model_predict_scan(md, &key, 4096, 16, &p, &err), PASCAL_OK);
  CHECK_INT(p.why.class_id, 2);
  CHECK(p.K >= 1 && p.K <= p.M);
  key.d = UINT32_MAX; /* deeper than any calibrated depth: nearest depth */
  CHECK_INT(pascal_model_predict_scan(md, &key, 4096, 16, &p, &err), PASCAL_OK);
  CHECK_INT(p.why.rule, PASCAL_RULE_DEPTH_FALLBACK);
  key.o = UINT32_MAX; /* M = 48 o does not fit */
  CHECK_INT(pascal_model_predict_scan(md, &key, 4096, 16, &p, &err), PASCAL_EINVAL);
  CHECK(strcmp(err.field, "o") == 0);
  key = (pascal_scan_key){1, (pascal_path)7, 0, 0};
  CHECK_INT(pascal_model_predict_scan(md, &key, 4096, 16, &p, &err), PASCAL_EINVAL);
  CHECK(strcmp(err.field, "path") == 0);
}

static void gemm_queries_at_the_limit(const pascal_model *md)
{
  pascal_gemm_prediction p;
  pascal_error err;
  const pascal_gemm_shape largest = {UINT32_MAX - 127, UINT32_MAX - 127, UINT32_MAX - 63};
  CHECK_INT(pascal_model_predict_gemm(md, &largest, &p, &err), PASCAL_OK);
  CHECK(p.n_r == (UINT32_C(1) << 25) - 1 && p.n_k == (UINT32_C(1) << 26) - 1);
  CHECK(p.K >= p.K0 && p.K <= p.M && isfinite(p.fill_bytes) && p.fill_bytes > 0);
  const pascal_gemm_shape smallest = {128, 128, 64};
  CHECK_INT(pascal_model_predict_gemm(md, &smallest, &p, &err), PASCAL_OK);
  CHECK(p.K0 == p.M && p.K == p.M); /* one tile: K_0 = M (n_r + n_c)/(2 n_r n_c) = M */
  const pascal_gemm_shape ragged = {UINT32_MAX, 128, 64};
  CHECK_INT(pascal_model_predict_gemm(md, &ragged, &p, &err), PASCAL_EINVAL);
  CHECK(strcmp(err.field, "Mg") == 0);
}

/* A run whose K = V / (b W N) underflows to 0 is named itself, not the
 * first run of its curve. */
static void underflowing_run_is_named(void)
{
  pascal_calibration cal;
  pascal_model *md = NULL;
  pascal_error err;
  pascal_calibration_init(&cal, PASCAL_WORKLOAD_SCAN);
  strcpy(cal.device.name, "edge");
  cal.device.sm_count = 1;
  cal.device.capacity_blocks = 1;
  cal.device.block_bytes = UINT32_MAX;
  pascal_scan_run run = {
      .key = {1, PASCAL_PATH_SYNC, 0, 0}, .N = UINT32_MAX, .W = 1, .fill_bytes = 1e30};
  CHECK_INT(pascal_calibration_append_scan(&cal, &run, &err), PASCAL_OK);
  run.W = UINT32_MAX;
  run.fill_bytes = 5e-324;
  CHECK_INT(pascal_calibration_append_scan(&cal, &run, &err), PASCAL_OK);
  CHECK_INT(pascal_model_fit(&cal, &md, &err), PASCAL_ERANGE);
  CHECK(strcmp(err.field, "measurements[1].fill_bytes") == 0);
  CHECK(md == NULL);
  pascal_calibration_free(&cal);
}

int main(void)
{
  static_at_n_max();
  coherence_at_the_limit();
  feedback_at_the_limit();
  baselines_at_the_limit();
  pascal_model *md = test_synth_model(PASCAL_WORKLOAD_SCAN);
  if (md)
    scan_queries_at_the_limit(md);
  pascal_model_free(md);
  md = test_synth_model(PASCAL_WORKLOAD_GEMM);
  if (md)
    gemm_queries_at_the_limit(md);
  pascal_model_free(md);
  underflowing_run_is_named();
  return check_summary();
}
