/*
 * test_predict_properties.c - properties of the dynamic predictor (paper
 * section 4, Algorithm predict, Eq. excess_coordinate / dynamic_decode) that
 * must hold for any calibration, checked on noisy synthetic ones:
 *
 *  - at a reference configuration the exact rule fires and the prediction
 *    is the fitted curve itself: K = min(M, max(1, exp L(W))) for a scan,
 *    K = min(M, K_0 max(1, exp L(n_k))) for GEMM (L read back from the
 *    model's curve views, independently of the transfer code), and between
 *    W = 1 and the first horizon the curve read in the excess coordinate
 *    (pascal_curve_excess, docs/design.md 4.1; verified to fail with the
 *    paper's curve read there);
 *  - the excess coordinate round-trips: decode(encode(log K)) = K for K in
 *    [k0, M] to 1e-12 relative, and K below k0 decodes to k0;
 *  - the fit does not depend on the order of the measurements: the same runs
 *    appended in a shuffled order give bit-identical curves and predictions
 *    (repeats included, whose geometric mean must not depend on the order).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "pascal/predict.h"
#include "test_static_rng.h"
#include "test_synth_model.h"

#define REPEATS 3

/* The same calibration with its runs appended in a seeded random order. */
static void shuffled_copy(const pascal_calibration *src, uint64_t seed, pascal_calibration *dst)
{
  size_t n = pascal_calibration_run_count(src);
  size_t *order = malloc(n * sizeof *order);
  CHECK(order != NULL);
  if (!order)
    return;
  for (size_t i = 0; i < n; i++)
    order[i] = i;
  for (size_t i = n; i > 1; i--) { /* Fisher-Yates */
    size_t j = (size_t)(test_rng_next(&seed) % i);
    size_t t = order[i - 1];
    order[i - 1] = order[j];
    order[j] = t;
  }
  pascal_calibration_init(dst, src->workload);
  dst->device = src->device;
  dst->class_rule = src->class_rule;
  dst->gemm = src->gemm;
  for (size_t i = 0; i < n; i++) {
    pascal_status st = src->workload == PASCAL_WORKLOAD_SCAN
                           ? pascal_calibration_append_scan(dst, &src->scan_runs[order[i]], NULL)
                           : pascal_calibration_append_gemm(dst, &src->gemm_runs[order[i]], NULL);
    CHECK_INT(st, PASCAL_OK);
  }
  free(order);
}

static pascal_model *fit(const pascal_calibration *cal)
{
  pascal_model *md = NULL;
  pascal_error err;
  CHECK_INT(pascal_model_fit(cal, &md, &err), PASCAL_OK);
  return md;
}

static bool same_key(const pascal_scan_key *a, const pascal_scan_key *b)
{
  return a->o == b->o && a->path == b->path && a->d == b->d && a->m == b->m;
}

/* The fitted curve of (key, N) or of grid (n_r, n_c), from the model's
 * public views. */
static const pascal_curve *find_curve(const pascal_model *md, const pascal_scan_key *key,
                                      uint32_t N, uint32_t n_r, uint32_t n_c)
{
  for (size_t i = 0; i < pascal_model_curve_count(md); i++) {
    pascal_curve_view v;
    if (pascal_model_curve(md, i, &v, NULL) != PASCAL_OK)
      return NULL;
    if (key ? same_key(&v.key, key) && v.N == N : v.n_r == n_r && v.n_c == n_c)
      return v.curve;
  }
  return NULL;
}

static void scan_exact_rule_is_the_curve(const pascal_calibration *cal, const pascal_model *md)
{
  size_t checked = 0;
  for (size_t i = 0; i < cal->n_scan_runs && check_failures() == 0; i++) {
    const pascal_scan_run *r = &cal->scan_runs[i];
    pascal_scan_prediction p;
    CHECK_INT(pascal_model_predict_scan(md, &r->key, r->N, r->W, &p, NULL), PASCAL_OK);
    const pascal_curve *c = find_curve(md, &r->key, r->N, 0, 0);
    CHECK(c != NULL);
    if (!c)
      return;
    double want = fmin(p.M, fmax(1, exp(pascal_curve_log_k(c, r->W))));
    CHECK_INT(p.why.rule, PASCAL_RULE_EXACT);
    CHECK_INT(p.why.n_sizes, 1);
    CHECK_INT(p.why.size[0].N, r->N);
    CHECK_NEAR(p.K, want, 1e-12 * want);
    CHECK_NEAR(p.fill_bytes, p.K * cal->device.block_bytes * (double)r->W * r->N,
               1e-12 * p.fill_bytes);
    checked++;
  }
  CHECK_INT(checked, 756 * REPEATS);
}

/* Between one pass (W = 1) and the first horizon (4) a reference key is
 * read off its curve in the excess coordinate (pascal_curve_excess), and
 * the answer's W transfer says so; at W = 4 and past it, as at the knots.
 * Fails with predict_scan.c reading encode(L) on that segment (K differs)
 * or labelling the transfer "interpolated". */
static void scan_one_pass_segment(const pascal_calibration *cal, const pascal_model *md)
{
  size_t checked = 0;
  for (size_t i = 0; i < cal->n_scan_runs && check_failures() == 0; i++) {
    const pascal_scan_run *r = &cal->scan_runs[i];
    if (r->W != 1)
      continue;
    const pascal_curve *c = find_curve(md, &r->key, r->N, 0, 0);
    CHECK(c != NULL && c->n == 4 && c->x[0] == 0 && fabs(c->x[1] - log(4)) < 1e-15);
    if (!c)
      return;
    static const double Ws[] = {1.5, 2, 3, 3.9};
    for (size_t k = 0; k < sizeof Ws / sizeof *Ws; k++) {
      pascal_scan_prediction p;
      CHECK_INT(pascal_model_predict_scan(md, &r->key, r->N, Ws[k], &p, NULL), PASCAL_OK);
      double want = pascal_excess_decode(pascal_curve_excess(c, Ws[k]), 1, p.M);
      CHECK_INT(p.why.rule, PASCAL_RULE_EXACT);
      CHECK_NEAR(p.K, want, 1e-12 * want);
      CHECK_INT(p.transfers.n, 1);
      CHECK_INT(p.transfers.item[0].coordinate, PASCAL_COORD_W);
      CHECK_INT(p.transfers.item[0].kind, PASCAL_TRANSFER_ONE_PASS);
      CHECK_NEAR(p.transfers.item[0].distance, fmin(log(Ws[k]), log(4 / Ws[k])), 1e-12);
      checked++;
    }
    pascal_scan_prediction p; /* the next segment: the paper's curve */
    CHECK_INT(pascal_model_predict_scan(md, &r->key, r->N, 8, &p, NULL), PASCAL_OK);
    CHECK_INT(p.transfers.item[0].kind, PASCAL_TRANSFER_INTERP);
  }
  CHECK_INT(checked, 63 * 3 * REPEATS * 4);
}

static void gemm_exact_rule_is_the_curve(const pascal_calibration *cal, const pascal_model *md)
{
  size_t checked = 0;
  for (size_t i = 0; i < cal->n_gemm_runs && check_failures() == 0; i++) {
    const pascal_gemm_run *r = &cal->gemm_runs[i];
    pascal_gemm_prediction p;
    CHECK_INT(pascal_model_predict_gemm(md, &r->shape, &p, NULL), PASCAL_OK);
    const pascal_curve *c = find_curve(md, NULL, 0, p.n_r, p.n_c);
    CHECK(c != NULL);
    if (!c)
      return;
    double want = fmin(p.M, p.K0 * fmax(1, exp(pascal_curve_log_k(c, p.n_k))));
    CHECK_INT(p.why.rule, PASCAL_RULE_EXACT);
    CHECK_NEAR(p.K, want, 1e-12 * want);
    checked++;
  }
  CHECK_INT(checked, 120 * REPEATS);
}

static void excess_round_trip(void)
{
  uint64_t seed = 0x5eed0dd5;
  const double Ms[] = {1, 2, 48, 96, 1e6};
  for (size_t mi = 0; mi < sizeof Ms / sizeof Ms[0]; mi++) {
    double M = Ms[mi];
    for (int trial = 0; trial < 2000; trial++) {
      double k0 = trial % 2 ? 1 : 1 + (M - 1) * test_rng_unit(&seed) * 0.5;
      double u = test_rng_unit(&seed);
      /* K - k0 spread over many decades, plus the ends k0 and M exactly */
      double K = trial == 0   ? k0
                 : trial == 1 ? M
                              : k0 + (M - k0) * pow(u, 1 + 30 * test_rng_unit(&seed));
      double a = pascal_excess_encode(log(K / k0));
      double back = pascal_excess_decode(a, k0, M);
      CHECK_NEAR(back, K, 1e-12 * K);
      CHECK(back >= k0 && back <= M);
      /* below k0 the excess is 0: a = log eps, decoded to k0 exactly */
      double below = pascal_excess_encode(log(u * 0.999));
      CHECK(below == log(PASCAL_EXCESS_EPS));
      CHECK(pascal_excess_decode(below, k0, M) == k0);
    }
  }
}

static bool same_curve(const pascal_curve *a, const pascal_curve *b)
{
  return a->n == b->n && memcmp(a->x, b->x, a->n * sizeof a->x[0]) == 0 &&
         memcmp(a->y, b->y, a->n * sizeof a->y[0]) == 0 &&
         memcmp(a->d, b->d, a->n * sizeof a->d[0]) == 0;
}

static void same_curves(const pascal_model *a, const pascal_model *b)
{
  size_t n = pascal_model_curve_count(a);
  CHECK_INT(pascal_model_curve_count(b), n);
  for (size_t i = 0; i < n && i < pascal_model_curve_count(b); i++) {
    pascal_curve_view va, vb;
    CHECK_INT(pascal_model_curve(a, i, &va, NULL), PASCAL_OK);
    CHECK_INT(pascal_model_curve(b, i, &vb, NULL), PASCAL_OK);
    CHECK(same_key(&va.key, &vb.key) && va.N == vb.N && va.n_r == vb.n_r && va.n_c == vb.n_c);
    CHECK(same_curve(va.curve, vb.curve));
  }
}

/* Predictions over references, unmeasured m and depths, sizes between and
 * outside the references, horizons between and outside: bit-identical. */
static void scan_order_invariance(const pascal_calibration *cal)
{
  pascal_model *a = fit(cal);
  for (uint64_t seed = 1; seed <= 3; seed++) {
    pascal_calibration shuffled;
    shuffled_copy(cal, seed * 0x9e3779b97f4a7c15u, &shuffled);
    pascal_model *b = fit(&shuffled);
    if (a && b) {
      same_curves(a, b);
      static const pascal_scan_key keys[] = {
          {1, PASCAL_PATH_SYNC, 0, 0}, {1, PASCAL_PATH_TMA, 2, 5},  {1, PASCAL_PATH_TMA, 3, 6},
          {2, PASCAL_PATH_TMA, 4, 7},  {2, PASCAL_PATH_TMA, 3, 11}, {1, PASCAL_PATH_TMA, 1, 20}};
      static const uint32_t sizes[] = {1000, 2048, 2500, 3072, 4000, 5120, 9000};
      static const double horizons[] = {0.5, 1, 3, 16, 40, 64, 100};
      size_t identical = 0, total = 0;
      for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++)
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
          for (size_t h = 0; h < sizeof horizons / sizeof horizons[0]; h++) {
            pascal_scan_prediction pa, pb;
            pascal_status sa =
                pascal_model_predict_scan(a, &keys[k], sizes[s], horizons[h], &pa, NULL);
            pascal_status sb =
                pascal_model_predict_scan(b, &keys[k], sizes[s], horizons[h], &pb, NULL);
            CHECK_INT(sa, PASCAL_OK);
            CHECK_INT(sb, PASCAL_OK);
            total++;
            identical += sa == PASCAL_OK && sb == PASCAL_OK && pa.K == pb.K &&
                         (pa.why.a == pb.why.a || (isnan(pa.why.a) && isnan(pb.why.a))) &&
                         pa.why.rule == pb.why.rule;
          }
      CHECK_INT(identical, total);
    }
    pascal_model_free(b);
    pascal_calibration_free(&shuffled);
  }
  pascal_model_free(a);
}

static void gemm_order_invariance(const pascal_calibration *cal)
{
  pascal_model *a = fit(cal);
  pascal_calibration shuffled;
  shuffled_copy(cal, 0x0123456789abcdefu, &shuffled);
  pascal_model *b = fit(&shuffled);
  if (a && b) {
    same_curves(a, b);
    size_t identical = 0, total = 0;
    for (uint32_t mg = 256; mg <= 8192; mg += 768)
      for (uint32_t ng = 128; ng <= 6144; ng += 640)
        for (uint32_t kg = 64; kg <= 16384; kg += 2048) {
          pascal_gemm_shape s = {mg, ng, kg};
          pascal_gemm_prediction pa, pb;
          CHECK_INT(pascal_model_predict_gemm(a, &s, &pa, NULL), PASCAL_OK);
          CHECK_INT(pascal_model_predict_gemm(b, &s, &pb, NULL), PASCAL_OK);
          total++;
          identical += pa.K == pb.K && pa.why.a == pb.why.a && pa.fill_bytes == pb.fill_bytes;
        }
    CHECK_INT(identical, total);
  }
  pascal_model_free(b);
  pascal_calibration_free(&shuffled);
  pascal_model_free(a);
}

int main(void)
{
  pascal_calibration scan, gemm;
  test_synth_calibration(PASCAL_WORKLOAD_SCAN, REPEATS, &scan);
  test_synth_calibration(PASCAL_WORKLOAD_GEMM, REPEATS, &gemm);
  pascal_model *md = fit(&scan);
  if (md) {
    scan_exact_rule_is_the_curve(&scan, md);
    scan_one_pass_segment(&scan, md);
  }
  pascal_model_free(md);
  md = fit(&gemm);
  if (md)
    gemm_exact_rule_is_the_curve(&gemm, md);
  pascal_model_free(md);
  excess_round_trip();
  scan_order_invariance(&scan);
  gemm_order_invariance(&gemm);
  pascal_calibration_free(&scan);
  pascal_calibration_free(&gemm);
  return check_summary();
}
