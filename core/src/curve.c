/*
 * curve.c - isotonic regression, PCHIP and the cumulative traffic curve of
 * paper section 4.2 / App. C Eq. trafficcurve, and the excess coordinate of
 * Eq. excess_coordinate / dynamic_decode, with the scan's onset law read
 * between the knots and past the last, and its fit (docs/design.md 4.1).
 *
 * PCHIP follows SciPy's PchipInterpolator (_find_derivatives, _edge_case)
 * so that fitted values match SciPy:
 *   interior knot k with secants m_l (left), m_r (right), spacings h_l, h_r:
 *     d_k = 0 if m_l, m_r differ in sign or either is 0, else
 *     1/d_k = (w1/m_l + w2/m_r)/(w1 + w2), w1 = 2 h_r + h_l, w2 = h_r + 2 h_l;
 *   end knot with first spacings h0, h1 and secants m0, m1 (from that end):
 *     d = ((2 h0 + h1) m0 - h0 m1)/(h0 + h1);
 *     d = 0 if sign(d) != sign(m0); else d = 3 m0 if sign(m0) != sign(m1)
 *     and |d| > 3|m0|;
 *   two knots: both slopes are the secant (a straight line); one: 0.
 */
#include "pascal/curve.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>

#include "curve_internal.h"

void pascal_isotonic_fit(const double *y, size_t n, double *out)
{
  /* Invariant after step i: out[0..i] is nondecreasing and piecewise
   * constant, each maximal run of equal values being the mean of y over a
   * union of pooled blocks (merging adjacent blocks with equal means is
   * harmless: the mean of the union is the same value). */
  for (size_t i = 0; i < n; i++) {
    out[i] = y[i];
    size_t start = i;
    while (start > 0 && out[start - 1] > out[start]) {
      size_t prev = start - 1;
      double v = out[prev];
      while (prev > 0 && out[prev - 1] == v)
        prev--;
      double sum = 0;
      for (size_t k = prev; k <= i; k++)
        sum += y[k];
      double mean = sum / (double)(i - prev + 1);
      for (size_t k = prev; k <= i; k++)
        out[k] = mean;
      start = prev;
    }
  }
  for (size_t i = 1; i < n; i++)
    assert(!(out[i - 1] > out[i])); /* nondecreasing (NaN input passes) */
}

static int sign_of(double v)
{
  return (v > 0) - (v < 0);
}

static double slope_interior(double hl, double hr, double ml, double mr)
{
  if (sign_of(ml) != sign_of(mr) || ml == 0 || mr == 0)
    return 0;
  double w1 = 2 * hr + hl, w2 = hr + 2 * hl;
  return (w1 + w2) / (w1 / ml + w2 / mr);
}

static double slope_edge(double h0, double h1, double m0, double m1)
{
  double d = ((2 * h0 + h1) * m0 - h0 * m1) / (h0 + h1);
  if (sign_of(d) != sign_of(m0))
    return 0;
  if (sign_of(m0) != sign_of(m1) && fabs(d) > 3 * fabs(m0))
    return 3 * m0;
  return d;
}

/* Slope at knot k of an n-knot PCHIP; reads y[j - off] for the knots j it
 * needs (k-1..k+1 inside, three from the end at an end). */
static double knot_slope(const double *x, const double *y, size_t off, size_t n, size_t k)
{
  if (n < 2)
    return 0;
  if (n == 2)
    return (y[1 - off] - y[0 - off]) / (x[1] - x[0]);
  if (k == 0) {
    double h0 = x[1] - x[0], h1 = x[2] - x[1];
    return slope_edge(h0, h1, (y[1 - off] - y[0 - off]) / h0, (y[2 - off] - y[1 - off]) / h1);
  }
  if (k == n - 1) {
    double h0 = x[k] - x[k - 1], h1 = x[k - 1] - x[k - 2];
    return slope_edge(h0, h1, (y[k - off] - y[k - 1 - off]) / h0,
                      (y[k - 1 - off] - y[k - 2 - off]) / h1);
  }
  double hl = x[k] - x[k - 1], hr = x[k + 1] - x[k];
  return slope_interior(hl, hr, (y[k - off] - y[k - 1 - off]) / hl,
                        (y[k + 1 - off] - y[k - off]) / hr);
}

void pascal_pchip_slopes(const double *x, const double *y, size_t n, double *d)
{
  for (size_t k = 0; k < n; k++)
    d[k] = knot_slope(x, y, 0, n, k);
}

/* Cubic Hermite on [x0, x1] with values y0, y1 and slopes d0, d1. */
static double hermite(double x0, double x1, double y0, double y1, double d0, double d1, double t)
{
  double h = x1 - x0;
  double s = (t - x0) / h;
  double u = 1 - s;
  return y0 * (1 + 2 * s) * u * u + d0 * h * s * u * u + y1 * s * s * (3 - 2 * s) -
         d1 * h * s * s * u;
}

size_t pc_pchip_interval(const double *x, size_t n, double t)
{
  size_t lo = 0, hi = n - 1; /* invariant: x[lo] <= t, and lo < hi */
  while (hi - lo > 1) {
    size_t mid = lo + (hi - lo) / 2;
    if (x[mid] <= t)
      lo = mid;
    else
      hi = mid;
  }
  return lo;
}

static double clamp(double t, double lo, double hi)
{
  return t < lo ? lo : t > hi ? hi : t;
}

double pascal_pchip_eval(const double *x, const double *y, const double *d, size_t n, double t)
{
  if (n == 1)
    return y[0];
  t = clamp(t, x[0], x[n - 1]);
  size_t i = pc_pchip_interval(x, n, t);
  return hermite(x[i], x[i + 1], y[i], y[i + 1], d[i], d[i + 1], t);
}

void pc_pchip_window(size_t n, size_t i, size_t *lo, size_t *hi)
{
  *lo = i > 0 ? i - 1 : 0;
  *hi = i + 2 < n ? i + 2 : n - 1;
}

double pc_pchip_eval_window(const double *x, size_t n, size_t i, const double *yw, size_t lo,
                            double t)
{
  double d0 = knot_slope(x, yw, lo, n, i);
  double d1 = knot_slope(x, yw, lo, n, i + 1);
  return hermite(x[i], x[i + 1], yw[i - lo], yw[i + 1 - lo], d0, d1, t);
}

pascal_status pc_curve_fit_knots(const double *W, const double *K, size_t n_obs, pascal_curve *out,
                                 const char *field, pascal_error *err)
{
  pascal_curve c = {0};
  double sum[PASCAL_CURVE_MAX_KNOTS];
  size_t count[PASCAL_CURVE_MAX_KNOTS];
  if (n_obs == 0)
    return pascal_error_set(err, PASCAL_EINVAL, field, "no measurement to fit a curve to");
  for (size_t i = 0; i < n_obs; i++) {
    if (!isfinite(W[i]) || W[i] <= 0 || !isfinite(K[i]) || K[i] <= 0)
      return pascal_error_set(err, PASCAL_EINVAL, field,
                              "horizon and traffic must be positive and finite (W=%g, K=%g)", W[i],
                              K[i]);
    double lw = log(W[i]);
    size_t j = 0;
    while (j < c.n && c.x[j] < lw)
      j++;
    if (j == c.n || c.x[j] != lw) {
      if (c.n == PASCAL_CURVE_MAX_KNOTS)
        return pascal_error_set(err, PASCAL_ERANGE, field, "more than %d distinct horizons",
                                PASCAL_CURVE_MAX_KNOTS);
      for (size_t k = c.n; k > j; k--) {
        c.x[k] = c.x[k - 1];
        sum[k] = sum[k - 1];
        count[k] = count[k - 1];
      }
      c.x[j] = lw;
      sum[j] = 0;
      count[j] = 0;
      c.n++;
    }
    sum[j] += log(K[i]);
    count[j]++;
  }
  /* Y_j = log W_j + log of the geometric mean of K at W_j. */
  for (size_t j = 0; j < c.n; j++)
    c.y[j] = c.x[j] + sum[j] / (double)count[j];
  pascal_isotonic_fit(c.y, c.n, c.y);
  pascal_pchip_slopes(c.x, c.y, c.n, c.d);
  /* Knots strictly increasing, and PCHIP keeps the monotone data monotone:
   * every knot slope is >= 0, so log(W K(W)) never decreases in log W. */
  for (size_t j = 0; j < c.n; j++)
    assert(c.d[j] >= 0 && (j == 0 || c.x[j - 1] < c.x[j]));
  *out = c;
  return PASCAL_OK;
}

pascal_status pascal_curve_fit(const double *W, const double *K, size_t n_obs, pascal_curve *out,
                               const char *field, pascal_error *err)
{
  double xs[PASCAL_CURVE_MAX_KNOTS], es[PASCAL_CURVE_MAX_KNOTS];
  pascal_status st = pc_curve_fit_knots(W, K, n_obs, out, field, err);
  if (!st)
    out->onset = pascal_onset_fit(xs, es, pc_curve_onset_points(out, 1, xs, es));
  return st;
}

double pc_curve_log_k_at(const pascal_curve *curve, double lw)
{
  lw = clamp(lw, curve->x[0], curve->x[curve->n - 1]);
  return pascal_pchip_eval(curve->x, curve->y, curve->d, curve->n, lw) - lw;
}

double pascal_curve_log_k(const pascal_curve *curve, double W)
{
  return pc_curve_log_k_at(curve, log(W));
}

/* The W = 1 knot's segment: its transfer is an interval group of its own
 * (docs/expected-error.md). */
bool pc_curve_one_pass_segment(const pascal_curve *curve, double lw)
{
  return curve->n >= 2 && curve->x[0] == 0 && lw > 0 && lw < curve->x[1];
}

static double knot_excess(const pascal_curve *curve, size_t j)
{
  double e = expm1(curve->y[j] - curve->x[j]);
  return e > 0 ? e : 0;
}

size_t pc_curve_onset_points(const pascal_curve *curve, double N, double *x, double *e)
{
  size_t k = 0;
  for (size_t j = 0; j < curve->n; j++)
    if (curve->x[j] > 0) {
      x[k] = N * exp(curve->x[j]);
      e[k++] = knot_excess(curve, j);
    }
  return k;
}

/* Between two knots, and past the last knot, the excess e = K - 1 is read
 * off the law e = A max(0, 1 - W_0 / W) that a drift between workers
 * makes: blocks are refilled only once the leading workers are a cache's
 * worth ahead of the trailing ones, after W_0 passes, and from then on each
 * pass adds the same excess (the fills of the excess are W (K - 1) =
 * A (W - W_0) blocks per block). On a segment [W_a, W_b] that is e linear
 * in h(W) = -1 / max(W, W_0) through the two knots; an onset at or past W_b
 * (the key's fit puts it there, W_b's knot measured an excess anyway) keeps
 * W_a's excess up to W_b, the law's limit as W_0 reaches W_b from below.
 * Past the last knot the last segment's line goes on, towards its
 * amplitude A, W_0 ignored when not below that knot. The paper's curve S,
 * which joins log(W K) smoothly, spread the first horizon's excess back to
 * one pass (e = 0 at W = 1: no divergence), bent the later segments away
 * from the law, and held its
 * last value past the last knot; it is read at the knots themselves
 * (encode(L)), and below the first knot its value is held. The rules were
 * chosen on calibration folds (docs/design.md 4.1); between two knots above
 * one pass each calibration chooses on its own folds (model.c), and with
 * law_between false S is read there. */
double pc_curve_excess_at(const pascal_curve *curve, double lw, bool law_between)
{
  size_t n = curve->n, b;
  if (n == 1 || lw <= curve->x[0])
    return pascal_excess_encode(curve->y[0] - curve->x[0]);
  if (lw > curve->x[n - 1]) {
    b = n - 1;
  } else {
    size_t i = pc_pchip_interval(curve->x, n, lw);
    if (curve->x[i] == lw || (!law_between && curve->x[i] > 0)) /* a knot, or S */
      return pascal_excess_encode(pc_curve_log_k_at(curve, lw));
    b = i + 1;
  }
  double wa = exp(curve->x[b - 1]), wb = exp(curve->x[b]), w = exp(lw);
  double ea = knot_excess(curve, b - 1), eb = knot_excess(curve, b);
  if (curve->onset >= wb && w < wb) /* the law's limit as W_0 reaches W_b */
    return log(ea + PASCAL_EXCESS_EPS);
  double w0 = curve->onset < wb ? curve->onset : 0;
  double ha = -1 / fmax(wa, w0), hb = -1 / fmax(wb, w0), h = -1 / fmax(w, w0);
  double e = ea + (eb - ea) * (h - ha) / (hb - ha);
  return log((e > 0 ? e : 0) + PASCAL_EXCESS_EPS);
}

double pc_curve_excess_linear(const pascal_curve *curve, double lw)
{
  size_t n = curve->n;
  lw = clamp(lw, curve->x[0], curve->x[n - 1]);
  size_t i = n == 1 ? 0 : pc_pchip_interval(curve->x, n, lw);
  double a0 = pascal_excess_encode(pc_curve_log_k_at(curve, curve->x[i]));
  if (curve->x[i] == lw)
    return a0;
  double a1 = pascal_excess_encode(pc_curve_log_k_at(curve, curve->x[i + 1]));
  return a0 + (a1 - a0) * (lw - curve->x[i]) / (curve->x[i + 1] - curve->x[i]);
}

double pascal_curve_excess(const pascal_curve *curve, double W)
{
  return pc_curve_excess_at(curve, log(W), true);
}

/* Points whose log(e + eps) a fit computes once (a key's sizes times its
 * horizons); past them each candidate computes its own. */
#define ONSET_LOGS_KEPT 64

/* The squared error in the excess coordinate of the best amplitude for
 * onset c (INFINITY when no point is past c), given le_i = log(e_i + eps)
 * for i < ONSET_LOGS_KEPT;
 * it stops adding once the sum reaches `bound` (the sum only grows, so such
 * a c cannot beat the best so far), returning what it has. */
static double onset_error(const double *x, const double *e, const double *le, size_t n, double c,
                          double bound)
{
  double gg = 0, ge = 0, s = 0;
  for (size_t i = 0; i < n; i++) {
    double g = fmax(0, 1 - c / x[i]);
    gg += g * g;
    ge += g * e[i];
  }
  if (gg == 0)
    return INFINITY;
  double A = fmax(0, ge / gg), log_eps = log(PASCAL_EXCESS_EPS);
  for (size_t i = 0; i < n && s < bound; i++) {
    double g = fmax(0, 1 - c / x[i]);
    double r = (g > 0 ? log(A * g + PASCAL_EXCESS_EPS) : log_eps) -
               (i < ONSET_LOGS_KEPT ? le[i] : log(e[i] + PASCAL_EXCESS_EPS));
    s += r * r;
  }
  return s;
}

/* The onsets a fit tries: c = 0 (k = -1), then x_max 2^(-k/32). */
static double onset_candidate(double x_max, int k)
{
  return k < 0 ? 0 : x_max * exp2(-k / 32.0);
}

/* c = 0, then the grid x_max 2^(-k/32), k = 0..384, searched coarse to fine:
 * every eighth k, then the k within 7 of the best of those. Each candidate's
 * error against the best so far (onset_error's bound): the same c as the
 * full sums give, for a fraction of the logarithms. */
double pascal_onset_fit(const double *x, const double *e, size_t n)
{
  double le[ONSET_LOGS_KEPT], x_max = 0;
  for (size_t i = 0; i < n; i++) {
    x_max = fmax(x_max, x[i]);
    if (i < ONSET_LOGS_KEPT)
      le[i] = log(e[i] + PASCAL_EXCESS_EPS);
  }
  int best_k = -1;
  double best_s = onset_error(x, e, le, n, 0, INFINITY);
  for (int k = 0; k <= 384; k += 8) {
    double s = onset_error(x, e, le, n, onset_candidate(x_max, k), best_s);
    if (s < best_s) {
      best_s = s;
      best_k = k;
    }
  }
  int coarse = best_k;
  for (int k = coarse - 7; coarse >= 0 && k <= coarse + 7; k++) {
    if (k < 0 || k > 384 || k == coarse)
      continue;
    double s = onset_error(x, e, le, n, onset_candidate(x_max, k), best_s);
    if (s < best_s) {
      best_s = s;
      best_k = k;
    }
  }
  return onset_candidate(x_max, best_k);
}

double pascal_excess_encode(double log_k)
{
  double e = expm1(log_k);
  return log((e > 0 ? e : 0) + PASCAL_EXCESS_EPS);
}

double pascal_excess_decode(double a, double k0, double M)
{
  double e = exp(a) - PASCAL_EXCESS_EPS;
  double k = k0 * (1 + (e > 0 ? e : 0));
  return k < M ? k : M;
}
