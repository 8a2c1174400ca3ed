/*
 * test_between.c - each calibration's reading between two calibrated knots
 * (pascal_reading_choice, core/src/model.c; docs/design.md 4.1 and 4.5),
 * chosen at fit time on its own runs.
 *
 * Each case builds runs from a closed form that one candidate reproduces
 * exactly when the interior knot is held out and read back from the rest,
 * and checks that the fit chooses it (its fold error 0 to rounding, the
 * other's not), and that the model then answers between the knots with the
 * closed form itself:
 *   scan, the onset law: K = 1 + A max(0, 1 - c / (W N)) with c on the
 *     onset fit's grid (so the fold's fit finds it), horizons 1, 4, 16, 64;
 *     between two horizons above one pass the excess is linear in -1 / W;
 *   scan, the paper's curve: K = W^s, log(W K) linear in log W, which PCHIP
 *     reproduces;
 *   GEMM, linear: the excess coordinate a = log(kappa - 1 + eps) linear in
 *     log n_k over n_k = 16, 32, 64;
 *   GEMM, the curve: kappa = n_k^s.
 * Without an interior knot (horizons 1, 4, 64 above one pass: only 4 is
 * between, and its left neighbour is one pass) there is nothing to score
 * and the default stands.
 *
 * Beyond the GEMM grid (the edge folds: the largest and smallest Mg, Ng and
 * Kg held out in turn), fills built from the static reference V_s of each
 * shape on a 256 KiB cache, where every shape refetches:
 *   V = 0.9 V_s, which all of V carried by V_s reproduces (ratio);
 *   V = B_0 + 0.5 (V_s - B_0), which the excess carried by V_s's excess
 *     reproduces (excess-ratio).
 * Between two reduction lengths, the same runs V = B_0 + 0.5 (V_s - B_0) on
 * the test device's 1280 blocks, where V_s refetches at Kg = 4096 only
 * (its capacity threshold falls between 2048 and 4096 on every grid that
 * refetches at all): held out and read from 1024 and 4096, Kg = 2048 has
 * no excess, which the carry by V_s reproduces (the share 0.5 at 4096
 * times V_s's excess at 2048, none) and no reading between knots does; the
 * answer at Kg = 3072 on a grid is the closed form, with V_s silent at 2048
 * (no share) and 0.5 at 4096; at Kg = 1536, V_s silent at both levels, the
 * reading between knots stands. Where V_s is silent at both levels, the
 * lower level's kappa held (model.between_silent) is chosen where a grid
 * read from its neighbours would inherit a neighbour's excess
 * (gemm_silent_cases).
 */
#include <math.h>
#include <stdio.h>

#include "check.h"
#include "pascal/gemm_config.h"
#include "pascal/predict.h"
#include "test_device.h"

static const uint32_t SIZES[3] = {2000, 3000, 4000};

typedef double (*scan_k_fn)(double W, double N);

/* c = 1000 blocks per slot = x_max 2^-8 of the fold that holds W = 16 out
 * (x_max = 64 x 4000): on the onset fit's coarse grid. */
static double law_k(double W, double N)
{
  return 1 + 0.8 * fmax(0, 1 - 1000 / (W * N));
}

static double power_k(double W, double N)
{
  (void)N;
  return pow(W, 0.2);
}

static pascal_model *fit_scan(scan_k_fn k_of, const double *horizons, size_t n_h)
{
  pascal_calibration cal;
  pascal_model *md = NULL;
  pascal_error err;
  test_device_calibration(&cal, PASCAL_WORKLOAD_SCAN, "between-test");
  for (size_t s = 0; s < 3; s++)
    for (size_t h = 0; h < n_h; h++) {
      double W = horizons[h], N = SIZES[s];
      pascal_scan_run r = {.key = {2, PASCAL_PATH_TMA, 3, 4},
                           .N = SIZES[s],
                           .W = horizons[h],
                           .fill_bytes = k_of(W, N) * 16384.0 * W * N};
      CHECK_INT(pascal_calibration_append_scan(&cal, &r, &err), PASCAL_OK);
    }
  CHECK_INT(pascal_model_fit(&cal, &md, &err), PASCAL_OK);
  pascal_calibration_free(&cal);
  return md;
}

static void check_choice(const pascal_model *md, pascal_reading rule, pascal_reading other,
                         size_t points)
{
  pascal_reading_choice b;
  pascal_model_between(md, &b);
  int k = b.candidate[1] == rule;
  CHECK_INT(b.rule, rule);
  CHECK_INT(b.candidate[k], rule);
  CHECK_INT(b.candidate[!k], other);
  CHECK_INT(b.points, points);
  CHECK(b.fold_pct[k] < 1e-9);
  CHECK(b.fold_pct[!k] > 0.1);
}

/* The scan answer at the calibrated key and size N = 3000 for W strictly
 * between two horizons above one pass equals the closed form. */
static void check_scan_answers(const pascal_model *md, scan_k_fn k_of)
{
  const double Ws[] = {5, 8, 12, 20, 32, 48};
  pascal_scan_key key = {2, PASCAL_PATH_TMA, 3, 4};
  for (size_t i = 0; i < sizeof Ws / sizeof *Ws; i++) {
    pascal_scan_prediction p;
    pascal_error err;
    CHECK_INT(pascal_model_predict_scan(md, &key, 3000, Ws[i], &p, &err), PASCAL_OK);
    CHECK_NEAR(p.K, k_of(Ws[i], 3000), 1e-9);
  }
}

static void scan_cases(void)
{
  const double four[] = {1, 4, 16, 64}, three[] = {1, 4, 64};
  pascal_model *md = fit_scan(law_k, four, 4);
  /* one key, three sizes, one interior horizon (16) */
  check_choice(md, PASCAL_READ_LAW, PASCAL_READ_CURVE, 3);
  check_scan_answers(md, law_k);
  pascal_model_free(md);

  md = fit_scan(power_k, four, 4);
  check_choice(md, PASCAL_READ_CURVE, PASCAL_READ_LAW, 3);
  check_scan_answers(md, power_k);
  pascal_model_free(md);

  /* a size of the key measured at the interior horizon alone: nothing of
   * it is left to fit the key's onset when 16 is held out, and it scores
   * nothing; the other three sizes are scored as before */
  pascal_calibration cal;
  pascal_error err;
  test_device_calibration(&cal, PASCAL_WORKLOAD_SCAN, "between-test");
  for (size_t s = 0; s < 4; s++)
    for (size_t h = 0; h < 4; h++) {
      double N = s < 3 ? SIZES[s] : 5000, W = four[h];
      pascal_scan_run r = {.key = {2, PASCAL_PATH_TMA, 3, 4},
                           .N = (uint32_t)N,
                           .W = W,
                           .fill_bytes = law_k(W, N) * 16384.0 * W * N};
      if (s < 3 || W == 16)
        CHECK_INT(pascal_calibration_append_scan(&cal, &r, &err), PASCAL_OK);
    }
  CHECK_INT(pascal_model_fit(&cal, &md, &err), PASCAL_OK);
  pascal_calibration_free(&cal);
  check_choice(md, PASCAL_READ_LAW, PASCAL_READ_CURVE, 3);
  pascal_model_free(md);

  /* nothing between two horizons above one pass: the law stands */
  md = fit_scan(power_k, three, 3);
  pascal_reading_choice b;
  pascal_model_between(md, &b);
  CHECK_INT(b.rule, PASCAL_READ_LAW);
  CHECK_INT(b.points, 0);
  CHECK(isnan(b.fold_pct[0]) && isnan(b.fold_pct[1]));
  pascal_model_free(md);
}

typedef double (*gemm_kappa_fn)(double n_k);

static double linear_a_kappa(double n_k)
{
  double a = -1.0 + 0.9 * log(n_k / 16); /* the excess coordinate */
  return 1 + exp(a) - PASCAL_EXCESS_EPS;
}

static double power_kappa(double n_k)
{
  return pow(n_k, 0.25);
}

/* One 8 x 8 grid at n_k = 16, 32, 64 (kappa <= 2 n_r n_c / (n_r + n_c) = 8,
 * the most M = 48 resident CTAs allow). */
static pascal_model *fit_gemm(gemm_kappa_fn kappa_of)
{
  pascal_calibration cal;
  pascal_model *md = NULL;
  pascal_error err;
  test_device_calibration(&cal, PASCAL_WORKLOAD_GEMM, "between-test");
  cal.gemm.resident_ctas = 48;
  for (uint32_t n_k = 16; n_k <= 64; n_k *= 2) {
    pascal_gemm_run r = {.shape = {1024, 1024, 64 * n_k}};
    r.fill_bytes = kappa_of(n_k) * 16384.0 * 16 * n_k; /* kappa B_0 */
    CHECK_INT(pascal_calibration_append_gemm(&cal, &r, &err), PASCAL_OK);
  }
  CHECK_INT(pascal_model_fit(&cal, &md, &err), PASCAL_OK);
  pascal_calibration_free(&cal);
  return md;
}

static void check_gemm_answers(const pascal_model *md, gemm_kappa_fn kappa_of)
{
  const uint32_t n_ks[] = {20, 24, 40, 56};
  for (size_t i = 0; i < sizeof n_ks / sizeof *n_ks; i++) {
    pascal_gemm_shape s = {1024, 1024, 64 * n_ks[i]};
    pascal_gemm_prediction p;
    pascal_error err;
    CHECK_INT(pascal_model_predict_gemm(md, &s, &p, &err), PASCAL_OK);
    CHECK_NEAR(p.kappa, kappa_of(n_ks[i]), 1e-9);
  }
}

static void gemm_cases(void)
{
  pascal_model *md = fit_gemm(linear_a_kappa);
  check_choice(md, PASCAL_READ_LINEAR, PASCAL_READ_CURVE, 1);
  check_gemm_answers(md, linear_a_kappa);
  pascal_model_free(md);

  md = fit_gemm(power_kappa);
  check_choice(md, PASCAL_READ_CURVE, PASCAL_READ_LINEAR, 1);
  check_gemm_answers(md, power_kappa);
  pascal_model_free(md);
}

typedef double (*gemm_fills_fn)(double B0, double Vs);

static double fills_ratio(double B0, double Vs)
{
  (void)B0;
  return 0.9 * Vs;
}

static double fills_excess(double B0, double Vs)
{
  return B0 + 0.5 * (Vs - B0);
}

/* B_0 and V_s of a shape on cal's device (the prediction's own inputs). */
static void static_of(const pascal_calibration *cal, const pascal_gemm_shape *s, double *B0,
                      double *Vs)
{
  pascal_gemm_prediction g;
  pascal_gemm_config c;
  pascal_error err;
  CHECK_INT(pascal_gemm_geometry(&cal->gemm, s, &g, &err), PASCAL_OK);
  pascal_gemm_config_of(&cal->gemm, &c);
  double capacity = (double)cal->device.capacity_blocks * cal->device.block_bytes;
  CHECK_INT(pascal_gemm_static_fills(s, &c, g.M, capacity, Vs, &err), PASCAL_OK);
  *B0 = g.B0;
}

static const uint32_t CUBE[3] = {1024, 2048, 4096};

/* Mg in CUBE x Ng in ng x Kg in kg on capacity_blocks of cache;
 * fills_of(B_0, V_s) per run, V_s at least min_refetch B_0 at each. */
static void gemm_grid_cal(pascal_calibration *cal, gemm_fills_fn fills_of, uint32_t capacity_blocks,
                          double min_refetch, const uint32_t ng[3], const uint32_t kg[3])
{
  pascal_error err;
  test_device_calibration(cal, PASCAL_WORKLOAD_GEMM, "cube-test");
  cal->device.capacity_blocks = capacity_blocks;
  cal->gemm.resident_ctas = 48;
  for (size_t i = 0; i < 3; i++)
    for (size_t j = 0; j < 3; j++)
      for (size_t k = 0; k < 3; k++) {
        pascal_gemm_run r = {.shape = {CUBE[i], ng[j], kg[k]}};
        double B0, Vs;
        static_of(cal, &r.shape, &B0, &Vs);
        CHECK(Vs >= min_refetch * B0);
        r.fill_bytes = fills_of(B0, Vs);
        CHECK_INT(pascal_calibration_append_gemm(cal, &r, &err), PASCAL_OK);
      }
}

/* gemm_grid_cal's calibration fitted: its model, or NULL (the failure
 * checked, the calibration freed). */
static pascal_model *gemm_grid_fit(pascal_calibration *cal, gemm_fills_fn fills_of,
                                   uint32_t capacity_blocks, double min_refetch,
                                   const uint32_t ng[3], const uint32_t kg[3])
{
  pascal_model *md = NULL;
  pascal_error err;
  gemm_grid_cal(cal, fills_of, capacity_blocks, min_refetch, ng, kg);
  CHECK_INT(pascal_model_fit(cal, &md, &err), PASCAL_OK);
  if (!md)
    pascal_calibration_free(cal);
  return md;
}

static void gemm_beyond_cases(void)
{
  const gemm_fills_fn forms[2] = {fills_ratio, fills_excess};
  const pascal_reading rules[2] = {PASCAL_READ_RATIO, PASCAL_READ_EXCESS_RATIO};
  for (int k = 0; k < 2; k++) {
    pascal_calibration cal;
    pascal_error err;
    pascal_reading_choice b;
    /* on 16 blocks every grid (more than one wave of 48 CTAs) refetches:
     * the excess ratio's guard passes at every reference, and 0.9 V_s
     * stays above B_0, so both closed forms are inside [B_0, Q] */
    pascal_model *md = gemm_grid_fit(&cal, forms[k], 16, 1.2, CUBE, CUBE);
    if (!md)
      continue;
    pascal_model_beyond(md, &b);
    CHECK_INT(b.candidate[0], PASCAL_READ_EXCESS_RATIO);
    CHECK_INT(b.candidate[1], PASCAL_READ_RATIO);
    CHECK_INT(b.rule, rules[k]);
    CHECK_INT(b.points, 6 * 9); /* six edge folds of nine runs each */
    int won = b.candidate[1] == rules[k];
    CHECK(b.fold_pct[won] < 1e-9);
    CHECK(b.fold_pct[!won] > 0.1);
    /* beyond the grid in each dimension the answer is the closed form */
    const pascal_gemm_shape beyond[] = {
        {8192, 2048, 2048}, {2048, 8192, 2048}, {2048, 2048, 8192}, {8192, 8192, 8192}};
    for (size_t i = 0; i < sizeof beyond / sizeof *beyond; i++) {
      pascal_gemm_prediction p;
      double B0, Vs;
      static_of(&cal, &beyond[i], &B0, &Vs);
      CHECK_INT(pascal_model_predict_gemm(md, &beyond[i], &p, &err), PASCAL_OK);
      CHECK_NEAR(p.fill_bytes / forms[k](B0, Vs), 1, 1e-9);
    }
    pascal_model_free(md);
    pascal_calibration_free(&cal);
  }
}

/* The carry between reduction lengths (pascal_gemm_carry) on the cube of
 * gemm_cube_cal at the test device's capacity. */
static void gemm_carry_cases(void)
{
  pascal_calibration cal;
  pascal_error err;
  pascal_reading_choice b, between;
  pascal_model *md = gemm_grid_fit(&cal, fills_excess, 1280, 1.0, CUBE, CUBE);
  if (!md)
    return;
  pascal_model_between_static(md, &b);
  pascal_model_between(md, &between);
  CHECK_INT(b.candidate[0], between.rule);
  CHECK_INT(b.candidate[1], PASCAL_READ_STATIC_EXCESS);
  CHECK_INT(b.rule, PASCAL_READ_STATIC_EXCESS);
  CHECK_INT(b.points, 9); /* the nine grids at Kg = 2048 */
  CHECK(b.fold_pct[1] < 1e-9);
  CHECK(b.fold_pct[0] > 1);
  const pascal_gemm_shape carried[] = {{2048, 2048, 3072}, {1024, 4096, 3072}};
  for (size_t i = 0; i < sizeof carried / sizeof *carried; i++) {
    pascal_gemm_prediction p;
    double B0, Vs;
    static_of(&cal, &carried[i], &B0, &Vs);
    CHECK_INT(pascal_model_predict_gemm(md, &carried[i], &p, &err), PASCAL_OK);
    CHECK_NEAR(p.fill_bytes / fills_excess(B0, Vs), 1, 1e-9);
    const pascal_gemm_carry *c = &p.why.carry;
    CHECK(c->carried);
    CHECK_INT(c->n_k[0], 32); /* Kg 2048 and 4096 in tiles of 64 */
    CHECK_INT(c->n_k[1], 64);
    CHECK(isnan(c->share[0]));
    CHECK_NEAR(c->share[1], 0.5, 1e-9);
    CHECK_NEAR(c->kappa_s, Vs / B0, 1e-12);
  }
  /* beyond the grid in Mg the fills are the reference's (Mg 4096) carried
   * by V_s, and so is the explanation's carry: the reference's */
  pascal_gemm_prediction beyond, ref;
  const pascal_gemm_shape far = {8192, 2048, 3072}, near = {4096, 2048, 3072};
  CHECK_INT(pascal_model_predict_gemm(md, &far, &beyond, &err), PASCAL_OK);
  CHECK_INT(pascal_model_predict_gemm(md, &near, &ref, &err), PASCAL_OK);
  CHECK(beyond.extrapolated.n == 1 && ref.why.carry.carried && beyond.why.carry.carried);
  CHECK_NEAR(beyond.why.carry.kappa_s, ref.why.carry.kappa_s, 0);
  CHECK_NEAR(beyond.why.carry.share[1], ref.why.carry.share[1], 0);
  /* where V_s is silent the two readings agree on every fold (the grids
   * that refetch do so at Kg = 4096 only): the default stands */
  pascal_model_between_silent(md, &b);
  CHECK_INT(b.rule, PASCAL_READ_STATIC_EXCESS);
  CHECK_INT(b.points, 9 + 1); /* the Kg folds, and grid 2048^2 with Kg 2048 */
  const pascal_gemm_shape not_carried[] = {{2048, 2048, 1536}, {2048, 2048, 2048}};
  for (size_t i = 0; i < sizeof not_carried / sizeof *not_carried; i++) {
    pascal_gemm_prediction p;
    CHECK_INT(pascal_model_predict_gemm(md, &not_carried[i], &p, &err), PASCAL_OK);
    CHECK(!p.why.carry.carried);
  }
  pascal_model_free(md);
  pascal_calibration_free(&cal);
}

/* Where V_s is silent at both reduction lengths around a query
 * (model.between_silent): the same fills B_0 + 0.5 (V_s - B_0) on Ng in
 * {1024, 2048, 3072} x Kg in {1024, 2048, 3072}, where only the Ng = 3072
 * grids refetch (at Kg = 3072). Holding out grid 2048^2 with Kg = 2048,
 * the grid is read at Kg = 3072 from its neighbours, one of which
 * refetches, while its own V_s says nothing: the lower level's kappa (1)
 * is exact and the reading between knots is not; on the Kg folds the two
 * agree (exact). Between grids and lengths, at (3072, 2304, 2560), V_s is
 * silent at Kg = 2048 and 3072 and the answer is the closed form (B_0),
 * the lower level's. */
static void gemm_silent_cases(void)
{
  static const uint32_t ng[3] = {1024, 2048, 3072};
  pascal_calibration cal;
  pascal_error err;
  pascal_reading_choice b;
  pascal_model *md = gemm_grid_fit(&cal, fills_excess, 1280, 1.0, ng, ng);
  if (!md)
    return;
  pascal_model_between_static(md, &b);
  CHECK_INT(b.rule, PASCAL_READ_STATIC_EXCESS);
  pascal_model_between_silent(md, &b);
  CHECK_INT(b.candidate[0], PASCAL_READ_STATIC_EXCESS);
  CHECK_INT(b.candidate[1], PASCAL_READ_LOWER_LEVEL);
  CHECK_INT(b.rule, PASCAL_READ_LOWER_LEVEL);
  CHECK_INT(b.points, 9 + 1);
  CHECK(b.fold_pct[1] < 1e-9);
  CHECK(b.fold_pct[0] > 0.5); /* 7.4 % on the grid fold's point */
  const pascal_gemm_shape q = {3072, 2304, 2560}, lower = {3072, 2304, 2048};
  pascal_gemm_prediction p, at_lower;
  double B0, Vs;
  static_of(&cal, &q, &B0, &Vs);
  CHECK_NEAR(Vs / B0, 1, 1e-12);
  CHECK_INT(pascal_model_predict_gemm(md, &q, &p, &err), PASCAL_OK);
  CHECK_INT(pascal_model_predict_gemm(md, &lower, &at_lower, &err), PASCAL_OK);
  CHECK_NEAR(p.fill_bytes / fills_excess(B0, Vs), 1, 1e-9);
  CHECK_NEAR(p.kappa, at_lower.kappa, 0);
  const pascal_gemm_carry *c = &p.why.carry;
  CHECK(c->carried);
  CHECK_INT(c->reading, PASCAL_READ_LOWER_LEVEL);
  CHECK_INT(c->n_k[0], 32); /* Kg 2048 and 3072 in tiles of 64 */
  CHECK_INT(c->n_k[1], 48);
  CHECK(isnan(c->share[0]) && isnan(c->share[1]));
  CHECK(isnan(c->kappa_s)); /* not walked at the query */
  /* where V_s refetches the carry by V_s's excess answers as before */
  const pascal_gemm_shape refetching = {2048, 3072, 2560};
  CHECK_INT(pascal_model_predict_gemm(md, &refetching, &p, &err), PASCAL_OK);
  CHECK(p.why.carry.carried);
  CHECK_INT(p.why.carry.reading, PASCAL_READ_STATIC_EXCESS);
  pascal_model_free(md);
  pascal_calibration_free(&cal);
}

int main(void)
{
  scan_cases();
  gemm_cases();
  gemm_beyond_cases();
  gemm_carry_cases();
  gemm_silent_cases();
  return check_summary();
}
