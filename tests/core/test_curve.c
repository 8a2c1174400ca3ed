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

/* The excess the scan predictor reads (pascal_curve_excess): between any
 * two knots and past the last one, the onset law e = A max(0, 1 - W_0 / W)
 * through the knots (e linear in -1 / max(W, W_0)); at a knot encode(L).
 * Exhaustive over a small grid of curves whose knots follow the law (first
 * horizon W1 in {2, 4, 8}, onset W_0 from one pass to just below W1,
 * amplitude A), against the law's closed form; the onset the fit finds on
 * the curve's own knots lies within one step of its grid (2^(1/32)) of
 * W_0. Verified to fail with the previous readings (the excess coordinate
 * linear in log W on the first segment, L held past the last knot; L
 * between the later knots). */
static void excess_onset_law(void)
{
  static const double W1s[] = {2, 4, 8}, W0s[] = {1, 1.5, 1.9}, As[] = {0.3, 4, 19};
  for (size_t w = 0; w < sizeof W1s / sizeof *W1s; w++)
    for (size_t o = 0; o < sizeof W0s / sizeof *W0s; o++)
      for (size_t i = 0; i < sizeof As / sizeof *As; i++) {
        double W1 = W1s[w], W0 = W0s[o] * W1 / 2, A = As[i];
        const double W[] = {1, W1, 4 * W1, 16 * W1};
        double K[4];
        for (size_t k = 0; k < 4; k++)
          K[k] = 1 + A * fmax(0, 1 - W0 / W[k]);
        pascal_curve c;
        CHECK_INT(pascal_curve_fit(W, K, 4, &c, "x", NULL), PASCAL_OK);
        CHECK(fabs(log(c.onset / W0)) <= log(2) / 32 + 1e-12);
        c.onset = W0;
        for (size_t k = 0; k < 4; k++) /* the knots: both readings agree */
          CHECK_NEAR(pascal_curve_excess(&c, W[k]),
                     pascal_excess_encode(pascal_curve_log_k(&c, W[k])), 1e-12);
        for (int s = 1; s < 16; s++) { /* first segment, and past the last knot */
          double x = pow(W1, s / 16.0), y = 16 * W1 * (1 + s / 4.0);
          double want = A * fmax(0, 1 - W0 / x), want_y = A * (1 - W0 / y);
          CHECK_NEAR(pascal_curve_excess(&c, x), log(want + PASCAL_EXCESS_EPS), 1e-9);
          CHECK_NEAR(pascal_curve_excess(&c, y), log(want_y + PASCAL_EXCESS_EPS), 1e-9);
        }
        /* between the later knots the law as well; held below W = 1 */
        for (double x = W1 * 1.5; x < 16 * W1; x *= 1.7)
          CHECK_NEAR(pascal_curve_excess(&c, x), log(A * (1 - W0 / x) + PASCAL_EXCESS_EPS), 1e-9);
        CHECK_NEAR(pascal_curve_excess(&c, 0.5), pascal_excess_encode(log(K[0])), 1e-12);
      }
  /* a curve without a knot at W = 1, not on a law, with no onset: encode(L)
   * at its knots and held below the first, the excess linear in 1 / W
   * between two knots (3.0 and 5.0 here) */
  const double W[] = {2, 8, 32}, K[] = {1.5, 4, 6};
  pascal_curve c;
  CHECK_INT(pascal_curve_fit(W, K, 3, &c, "x", NULL), PASCAL_OK);
  c.onset = 0;
  for (size_t k = 0; k < 3; k++)
    CHECK_NEAR(pascal_curve_excess(&c, W[k]), pascal_excess_encode(pascal_curve_log_k(&c, W[k])),
               1e-12);
  CHECK_NEAR(pascal_curve_excess(&c, 1), pascal_excess_encode(log(1.5)), 1e-12);
  for (double x = 8.5; x < 32; x *= 1.3) {
    double e = 3 + (5 - 3) * (1 / 8.0 - 1 / x) / (1 / 8.0 - 1 / 32.0);
    CHECK_NEAR(pascal_curve_excess(&c, x), log(e + PASCAL_EXCESS_EPS), 1e-9);
  }
}

/* An onset at or past a segment's upper knot W_b (the key's fit put it
 * there though W_b's knot measured an excess): between the knots W_a's
 * excess is held up to W_b (the law's limit as W_0 reaches W_b), past the
 * last knot the onset is ignored. Checked against those closed forms, and
 * against the law itself with W_0 just below W_b, which the held value must
 * approach. Verified to fail with the onset ignored between the knots. */
static void excess_late_onset(void)
{
  const double W[] = {1, 4, 16, 64}, K[] = {1, 1.02, 1.5, 3};
  pascal_curve c;
  CHECK_INT(pascal_curve_fit(W, K, 4, &c, "x", NULL), PASCAL_OK);
  const double e[] = {0, 0.02, 0.5, 2};
  for (size_t b = 1; b < 3; b++) {
    c.onset = W[b] * (1 + 0.5 * (double)b); /* at or past W_b */
    for (double x = W[b - 1] * 1.1; x < W[b]; x *= 1.2)
      CHECK_NEAR(pascal_curve_excess(&c, x), log(e[b - 1] + PASCAL_EXCESS_EPS), 1e-12);
    CHECK_NEAR(pascal_curve_excess(&c, W[b]), pascal_excess_encode(log(K[b])), 1e-12);
    c.onset = W[b] * (1 - 1e-9); /* the law just below W_b: the same values */
    for (double x = W[b - 1] * 1.1; x < W[b] * (1 - 1e-6); x *= 1.2)
      CHECK_NEAR(pascal_curve_excess(&c, x), log(e[b - 1] + PASCAL_EXCESS_EPS), 1e-6);
  }
  c.onset = 100; /* past the last knot: e linear in -1 / W through 16 and 64 */
  for (double y = 70; y < 1000; y *= 1.5) {
    double want = e[2] + (e[3] - e[2]) * (1 / 16.0 - 1 / y) / (1 / 16.0 - 1 / 64.0);
    CHECK_NEAR(pascal_curve_excess(&c, y), log(want + PASCAL_EXCESS_EPS), 1e-9);
  }
}

/* The onset fit on points of the law itself: c within a grid step, and 0
 * when every excess is 0 or none is given. */
static void onset_fit_recovers_law(void)
{
  static const double cs[] = {500, 3000, 20000};
  for (size_t i = 0; i < sizeof cs / sizeof *cs; i++) {
    double x[6], e[6];
    for (size_t k = 0; k < 6; k++) {
      x[k] = 1000 * pow(3, (double)k);
      e[k] = 7 * fmax(0, 1 - cs[i] / x[k]);
    }
    CHECK(fabs(log(pascal_onset_fit(x, e, 6) / cs[i])) <= log(2) / 32 + 1e-12);
  }
  double x[] = {10, 20}, zero[] = {0, 0};
  CHECK(pascal_onset_fit(x, zero, 2) == 0);
  CHECK(pascal_onset_fit(NULL, NULL, 0) == 0);
}

/* The onset fit against its definition, written plainly here: every
 * candidate's whole sum of squared log errors, the first smallest kept
 * (c = 0, then x_max 2^(-k/32) for every eighth k, then the 14 around the
 * best). Random point sets, noisy law, all-zero and mixed excesses, 1 to
 * 80 points (past the 64 whose logarithms the fit keeps): the same c, to the
 * bit, as the fit's early-stopped sums give. */
static double onset_sum(const double *x, const double *e, size_t n, double c)
{
  double gg = 0, ge = 0, s = 0;
  for (size_t i = 0; i < n; i++) {
    double g = fmax(0, 1 - c / x[i]);
    gg += g * g;
    ge += g * e[i];
  }
  if (gg == 0)
    return INFINITY;
  double A = fmax(0, ge / gg);
  for (size_t i = 0; i < n; i++) {
    double r = log(A * fmax(0, 1 - c / x[i]) + PASCAL_EXCESS_EPS) - log(e[i] + PASCAL_EXCESS_EPS);
    s += r * r;
  }
  return s;
}

static void onset_fit_is_its_definition(void)
{
  uint64_t seed = 12345;
  for (int t = 0; t < 3000; t++) {
    size_t n = 1 + (size_t)(t % 80);
    double x[80], e[80], c_true = 0, A = 0;
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    c_true = (double)(seed >> 40) / (1 << 14), A = (double)(seed >> 58) / 4;
    for (size_t i = 0; i < n; i++) {
      seed = seed * 6364136223846793005ull + 1442695040888963407ull;
      x[i] = 1 + (double)(seed >> 36);
      double noise = (double)((seed >> 8) & 0xffff) / 65536.0 - 0.5;
      e[i] = t % 7 == 0 ? 0 : fmax(0, A * fmax(0, 1 - c_true / x[i]) * (1 + noise));
    }
    double x_max = 0;
    for (size_t i = 0; i < n; i++)
      x_max = fmax(x_max, x[i]);
    double best_s = onset_sum(x, e, n, 0), best_c = 0;
    int best_k = -1;
    for (int k = 0; k <= 384; k += 8) {
      double c = x_max * exp2(-k / 32.0), s = onset_sum(x, e, n, c);
      if (s < best_s)
        best_s = s, best_c = c, best_k = k;
    }
    for (int k = best_k - 7; best_k >= 0 && k <= best_k + 7; k++) {
      double c = x_max * exp2(-k / 32.0), s;
      if (k >= 0 && k <= 384 && k != best_k && (s = onset_sum(x, e, n, c)) < best_s)
        best_s = s, best_c = c;
    }
    CHECK(pascal_onset_fit(x, e, n) == best_c);
  }
}

int main(void)
{
  fit_geometric_mean_and_hold();
  fit_isotonic_projection();
  fit_single_horizon_and_errors();
  encode_decode();
  excess_bound_randomised();
  excess_onset_law();
  excess_late_onset();
  onset_fit_recovers_law();
  onset_fit_is_its_definition();
  return check_summary();
}
