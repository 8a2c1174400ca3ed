/*
 * test_curve.c - the cumulative traffic curve (paper section 4.2, App. C
 * Eq. trafficcurve) and the excess coordinate (Eq. excess_coordinate,
 * dynamic_decode), including the relative-error bound of App. C
 * Eq. excessbound on randomised cases.
 */
#include <math.h>
#include <string.h>

#include "check.h"
#include "pascal/curve.h"

static void fit_geometric_mean_and_hold(void)
{
  /* Two repeats at W = 1 (K = 2 and 8: geometric mean 4), one each at 4, 16,
   * 64 with K = 4, 4, 4: Y = log W + log 4 is increasing, so no pooling, and
   * L(W) = log 4 at every calibrated W and held outside. */
  const double W[] = {1, 1, 4, 16, 64}, K[] = {2, 8, 4, 4, 4};
  pascal_curve c;
  CHECK_INT(pascal_curve_fit(W, K, 5, &c, "x", NULL), PASCAL_OK);
  CHECK_INT(c.n, 4);
  CHECK_NEAR(c.x[0], 0, 0);
  CHECK_NEAR(c.x[3], log(64), 1e-15);
  CHECK_NEAR(c.y[0], log(4), 1e-15);
  for (double w = 0.25; w <= 512; w *= 2)
    CHECK_NEAR(pascal_curve_log_k(&c, w), log(4), 1e-12);
}

static void fit_isotonic_projection(void)
{
  /* K = 8 at W = 1 but K = 1 at W = 4: cumulative traffic W K would drop
   * from 8 to 4. Y = (log 8, log 4): pooled to their mean log(32)/2 =
   * log(sqrt 32) at both knots (2 knots: straight line, here flat).
   * Hence L(1) = log sqrt(32), L(4) = log sqrt(32) - log 4 = log(sqrt(2)). */
  const double W[] = {4, 1}, K[] = {1, 8};
  pascal_curve c;
  CHECK_INT(pascal_curve_fit(W, K, 2, &c, "x", NULL), PASCAL_OK);
  CHECK_NEAR(c.y[0], 0.5 * log(32), 1e-14);
  CHECK_NEAR(c.y[1], 0.5 * log(32), 1e-14);
  CHECK_NEAR(pascal_curve_log_k(&c, 1), 0.5 * log(32), 1e-14);
  CHECK_NEAR(pascal_curve_log_k(&c, 4), 0.5 * log(2), 1e-14);
  /* Held at the ends: K(W >= 4) = K(4), not cumulative traffic. */
  CHECK_NEAR(pascal_curve_log_k(&c, 100), 0.5 * log(2), 1e-14);
  /* Between knots: line in log W from Y: S = const, L = const - log W. */
  CHECK_NEAR(pascal_curve_log_k(&c, 2), 0.5 * log(32) - log(2), 1e-14);
}

static void fit_single_horizon_and_errors(void)
{
  pascal_curve c;
  pascal_error err;
  CHECK_INT(pascal_curve_fit((double[]){16}, (double[]){3}, 1, &c, "x", NULL), PASCAL_OK);
  CHECK_NEAR(pascal_curve_log_k(&c, 1), log(3), 1e-14);
  CHECK_NEAR(pascal_curve_log_k(&c, 1000), log(3), 1e-14);
  CHECK_INT(pascal_curve_fit((double[]){1}, (double[]){0}, 1, &c, "measurements[4]", &err),
            PASCAL_EINVAL);
  CHECK(strcmp(err.field, "measurements[4]") == 0);
  CHECK_INT(pascal_curve_fit((double[]){1}, (double[]){NAN}, 1, &c, "f", &err), PASCAL_EINVAL);
  CHECK_INT(pascal_curve_fit((double[]){-1}, (double[]){1}, 1, &c, "f", &err), PASCAL_EINVAL);
  CHECK_INT(pascal_curve_fit(NULL, NULL, 0, &c, "f", &err), PASCAL_EINVAL);
  double W[PASCAL_CURVE_MAX_KNOTS + 1], K[PASCAL_CURVE_MAX_KNOTS + 1];
  for (int i = 0; i <= PASCAL_CURVE_MAX_KNOTS; i++) {
    W[i] = i + 1;
    K[i] = 1;
  }
  CHECK_INT(pascal_curve_fit(W, K, PASCAL_CURVE_MAX_KNOTS + 1, &c, "f", &err), PASCAL_ERANGE);
}

static void encode_decode(void)
{
  /* a = log([K - 1]_+ + eps): K = 3 -> log 2.01; K <= 1 -> log eps. */
  CHECK_NEAR(pascal_excess_encode(log(3)), log(2.01), 1e-14);
  CHECK_NEAR(pascal_excess_encode(log(0.5)), log(PASCAL_EXCESS_EPS), 1e-14);
  CHECK_NEAR(pascal_excess_decode(log(2.01), 1, 48), 3, 1e-13);
  /* Round trip for K in [1, M]. */
  for (double k = 1; k <= 48; k += 0.37)
    CHECK_NEAR(pascal_excess_decode(pascal_excess_encode(log(k)), 1, 48), k, 1e-12 * k);
  /* Clipping: far below gives k0, far above gives M. */
  CHECK(pascal_excess_decode(-50, 1, 48) == 1);
  CHECK(pascal_excess_decode(50, 1, 48) == 48);
  CHECK(pascal_excess_decode(-50, 2.5, 48) == 2.5);
  CHECK(pascal_excess_decode(50, 2.5, 48) == 48);
}

static void excess_bound_randomised(void)
{
  /* App. C Eq. excessbound: K = 1 + e in [1, M], a = log(e + eps),
   * |ahat - a| <= delta  =>  |Khat - K|/K <= (e + eps)/(1 + e) (exp(delta) - 1). */
  unsigned seed = 99;
  for (int trial = 0; trial < 20000 && check_failures() == 0; trial++) {
    seed = seed * 1664525u + 1013904223u;
    double M = 1 + (seed >> 24);
    seed = seed * 1664525u + 1013904223u;
    double u = (seed >> 8) / 16777216.0;
    double e = (trial % 5 == 0) ? 0 : (M - 1) * u * u * u;
    seed = seed * 1664525u + 1013904223u;
    double delta = 3.0 * (seed >> 8) / 16777216.0;
    seed = seed * 1664525u + 1013904223u;
    double frac = 2.0 * (seed >> 8) / 16777216.0 - 1;
    double a = pascal_excess_encode(log1p(e));
    double khat = pascal_excess_decode(a + frac * delta, 1, M);
    double K = 1 + e;
    double bound = (e + PASCAL_EXCESS_EPS) / (1 + e) * expm1(delta);
    CHECK(fabs(khat - K) / K <= bound * (1 + 1e-12) + 1e-14);
  }
}

/* The excess the scan predictor reads (pascal_curve_excess): from one pass
 * (W = 1) to the first horizon above it, linear in log W in the excess
 * coordinate; elsewhere encode(L). Exhaustive over a small grid of curves
 * (K at W = 1 and at the first horizon W1 in {2, 4, 8}, two later horizons),
 * against the closed form: at W = sqrt(W1) the excess is the geometric mean
 * of the two knots' shifted excesses, K = 1 + sqrt((e0 + eps)(e1 + eps)) -
 * eps. Verified to fail with pascal_curve_excess returning encode(L)
 * everywhere (the first-segment checks). */
static void excess_from_one_pass(void)
{
  static const double K1[] = {1, 1.1}, KW1[] = {1, 1.3, 4.65, 20}, W1s[] = {2, 4, 8};
  for (size_t i = 0; i < sizeof K1 / sizeof *K1; i++)
    for (size_t j = 0; j < sizeof KW1 / sizeof *KW1; j++)
      for (size_t w = 0; w < sizeof W1s / sizeof *W1s; w++) {
        double W1 = W1s[w];
        const double W[] = {1, W1, 4 * W1, 16 * W1};
        const double K[] = {K1[i], KW1[j], KW1[j] + 2, KW1[j] + 3};
        pascal_curve c;
        CHECK_INT(pascal_curve_fit(W, K, 4, &c, "x", NULL), PASCAL_OK);
        for (size_t k = 0; k < 4; k++) /* the knots: both readings agree */
          CHECK_NEAR(pascal_curve_excess(&c, W[k]),
                     pascal_excess_encode(pascal_curve_log_k(&c, W[k])), 1e-12);
        double e0 = K[0] - 1, e1 = K[1] - 1, eps = PASCAL_EXCESS_EPS;
        double want = 1 + sqrt((e0 + eps) * (e1 + eps)) - eps;
        double got = pascal_excess_decode(pascal_curve_excess(&c, sqrt(W1)), 1, 1e9);
        CHECK_NEAR(got, want, 1e-12 * want);
        /* monotone on the segment, from one knot's value to the other's */
        double a0 = pascal_curve_excess(&c, 1), a1 = pascal_curve_excess(&c, W1), prev = a0;
        for (int s = 1; s <= 16; s++) {
          double a = pascal_curve_excess(&c, pow(W1, s / 16.0));
          CHECK((a - prev) * (a1 - a0) >= -1e-12);
          CHECK(a >= fmin(a0, a1) - 1e-12 && a <= fmax(a0, a1) + 1e-12);
          prev = a;
        }
        /* past the first horizon, and held below W = 1: encode(L) */
        for (double x = W1 * 1.5; x < 20 * W1; x *= 1.7)
          CHECK_NEAR(pascal_curve_excess(&c, x), pascal_excess_encode(pascal_curve_log_k(&c, x)),
                     1e-12);
        CHECK_NEAR(pascal_curve_excess(&c, 0.5), pascal_excess_encode(log(K[0])), 1e-12);
      }
  /* a curve without a knot at W = 1 reads encode(L) everywhere */
  const double W[] = {2, 8, 32}, K[] = {1.5, 4, 6};
  pascal_curve c;
  CHECK_INT(pascal_curve_fit(W, K, 3, &c, "x", NULL), PASCAL_OK);
  for (double x = 1; x < 64; x *= 1.3)
    CHECK_NEAR(pascal_curve_excess(&c, x), pascal_excess_encode(pascal_curve_log_k(&c, x)), 1e-12);
}

int main(void)
{
  fit_geometric_mean_and_hold();
  fit_isotonic_projection();
  fit_single_horizon_and_errors();
  encode_decode();
  excess_bound_randomised();
  excess_from_one_pass();
  return check_summary();
}
