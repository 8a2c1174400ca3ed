/*
 * pascal/curve.h - the numerical pieces of the traffic-curve fit (paper
 * section 4.2, App. C Eq. trafficcurve) and of the excess encoding
 * (Eq. excess_coordinate, dynamic_decode).
 *
 *  - isotonic regression: least-squares nondecreasing projection with equal
 *    weights (pool-adjacent-violators);
 *  - PCHIP: Fritsch-Carlson monotone cubic Hermite interpolation with SciPy
 *    PchipInterpolator's interior derivatives (weighted harmonic mean of the
 *    adjacent secants, 0 where they change sign or one is 0) and end-point
 *    rule (non-centred three-point estimate, 0 if its sign differs from the
 *    first secant, 3 x secant if the secants change sign and it exceeds that);
 *    2 knots give the straight line, 1 knot a constant. Evaluation is clamped:
 *    outside [x_0, x_{n-1}] the end value is returned (no extrapolation);
 *  - the fitted cumulative curve S over log W and L(W) = S(log W) - log W,
 *    with K held at the end horizons outside [W_min, W_max].
 *
 * All functions are pure, allocate nothing and are safe to call concurrently.
 */
#ifndef PASCAL_CURVE_H
#define PASCAL_CURVE_H

#include <stddef.h>

#include "pascal/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* epsilon of the excess coordinate (Eq. excess_coordinate). */
#define PASCAL_EXCESS_EPS 0.01

/* Least-squares nondecreasing fit of y[0..n) with equal weights, written to
 * out[0..n) (out may equal y). Each output value is the mean of the inputs
 * of its pooled block. n == 0 does nothing. */
void pascal_isotonic_fit(const double *y, size_t n, double *out);

/* SciPy PchipInterpolator derivatives at the knots: x strictly increasing,
 * n >= 1, slopes written to d[0..n). */
void pascal_pchip_slopes(const double *x, const double *y, size_t n, double *d);

/* Value at t of the Hermite cubic through (x, y) with knot slopes d; t is
 * clamped to [x_0, x_{n-1}]. n >= 1. */
double pascal_pchip_eval(const double *x, const double *y, const double *d, size_t n, double t);

/* Maximum number of horizons (knots) of one fitted curve. */
#define PASCAL_CURVE_MAX_KNOTS 16

/* A fitted cumulative-traffic curve: knots x_j = log W_j (distinct horizons,
 * increasing), y_j = isotonic projection of log W_j + log K~_j where K~_j is
 * the geometric mean of the positive measured K at W_j, the PCHIP knot
 * slopes, and the onset W_0 of the scan's excess (docs/design.md 4.1).
 * A value type: copy freely. */
typedef struct pascal_curve {
  size_t n;                         /* 1 .. PASCAL_CURVE_MAX_KNOTS */
  double x[PASCAL_CURVE_MAX_KNOTS]; /* log W_j                     */
  double y[PASCAL_CURVE_MAX_KNOTS]; /* isotonic Y_j                */
  double d[PASCAL_CURVE_MAX_KNOTS]; /* PCHIP slopes at the knots   */
  double onset;                     /* W_0 >= 0: the excess starts  */
} pascal_curve;

/* Fit a curve from n_obs observations (W_i > 0, K_i > 0 and finite), in any
 * order, with repeats at a horizon allowed. The onset is fitted on the
 * curve's own knots above W = 1 (pascal_onset_fit with x = W; the scan model
 * replaces it by the fit over all sizes of the key). The logs of repeats are summed in
 * input order, so reordering repeats can change the last bits (the model fit
 * passes them sorted by value). `field` names the input in errors.
 * PASCAL_EINVAL for a non-positive or non-finite value or n_obs == 0,
 * PASCAL_ERANGE for more than PASCAL_CURVE_MAX_KNOTS distinct horizons. */
pascal_status pascal_curve_fit(const double *W, const double *K, size_t n_obs, pascal_curve *out,
                               const char *field, pascal_error *err);

/* L(W) = S(log W) - log W, an estimate of log K at horizon W > 0, with W
 * clamped to the calibrated range (K held at the ends). */
double pascal_curve_log_k(const pascal_curve *curve, double W);

/* a = log([exp L - 1]_+ + eps) (Eq. excess_coordinate). */
double pascal_excess_encode(double log_k);

/* The excess coordinate a of a scan curve at horizon W > 0 as the scan
 * predictor reads it (docs/design.md 4.1): on a segment [W_a, W_b] between
 * two knots, and past the last knot along the last segment, the excess
 * e = K - 1 is linear in h(W) = -1 / max(W, W_0) (W_0 the curve's onset):
 * no excess added before the onset, then a constant excess per pass. An
 * onset at or past W_b holds W_a's excess up to W_b on a segment between
 * knots and is ignored past the last knot. Below the first knot the first knot's
 * value is held; a curve of one knot is constant. Equal to encode(L) at
 * every knot. */
double pascal_curve_excess(const pascal_curve *curve, double W);

/* The onset c >= 0 of the excess law e = A max(0, 1 - c / x) fitted to n
 * points (x_i > 0, e_i >= 0): for a candidate c the amplitude A >= 0 is the
 * least-squares fit of e, and the c kept is the first whose fit has the
 * smallest squared error in the excess coordinate, log(A g_i + eps) -
 * log(e_i + eps). Candidates: c = 0, then x_max 2^(-k/32) for every eighth
 * k in 0..384, then the k within 7 of the best of those. 0 when n == 0. For
 * a scan x = W N (blocks per slot) and the onset horizon is W_0 = c / N. */
double pascal_onset_fit(const double *x, const double *e, size_t n);

/* K = min(M, k0 * (1 + [exp a - eps]_+)) (Eq. dynamic_decode; k0 = 1 for a
 * scan, K_0 for GEMM). The result lies in [k0, M] when k0 <= M. */
double pascal_excess_decode(double a, double k0, double M);

#ifdef __cplusplus
}
#endif
#endif
