/*
 * time_fit.c - fitting the time model of pascal/time_model.h to a
 * calibration's own kernel times (docs/time-model.md):
 *
 *   scan reference (N_j, z)   T = fixed + W N cost over its horizons W;
 *   GEMM                      T = fixed + n_k (full t(c_max) + t(c_tail)),
 *                             t(c) = max(L, c s), with the resident CTAs
 *                             per SM c_max identified from the waves.
 *
 * Every fit minimises sum (T_model / T - 1)^2 with all parameters >= 0: an
 * exact non-negative least squares that solves the normal equations of
 * every subset of the (at most three) columns and keeps the best solution
 * with no negative coefficient. The GEMM model is linear once it is known
 * which CTA counts are throughput-bound (c >= k): each breakpoint k gives a
 * candidate, and every candidate is scored with the true max() model.
 */
#include <math.h>
#include <string.h>

#include "model_internal.h"

#define COLS_MAX 3

/* Solve the k x k system a x = b of unit-norm columns (Gaussian
 * elimination, partial pivoting); false when it is singular: a pivot below
 * 1e-12 (columns proportional to each other, such as the fixed cost and the
 * cost of a reference timed at one horizon only). a and b are overwritten. */
static bool solve(double a[COLS_MAX][COLS_MAX], double b[COLS_MAX], size_t k, double x[COLS_MAX])
{
  for (size_t c = 0; c < k; c++) {
    size_t p = c;
    for (size_t r = c + 1; r < k; r++)
      if (fabs(a[r][c]) > fabs(a[p][c]))
        p = r;
    if (!(fabs(a[p][c]) > 1e-12))
      return false;
    if (p != c) {
      for (size_t j = 0; j < k; j++) {
        double t = a[c][j];
        a[c][j] = a[p][j];
        a[p][j] = t;
      }
      double t = b[c];
      b[c] = b[p];
      b[p] = t;
    }
    for (size_t r = c + 1; r < k; r++) {
      double f = a[r][c] / a[c][c];
      for (size_t j = c; j < k; j++)
        a[r][j] -= f * a[c][j];
      b[r] -= f * b[c];
    }
  }
  for (size_t c = k; c-- > 0;) {
    double s = b[c];
    for (size_t j = c + 1; j < k; j++)
      s -= a[c][j] * x[j];
    x[c] = s / a[c][c];
  }
  return true;
}

/* min |X x - 1|^2 over x >= 0 for the n x k matrix X (row-major, k <=
 * COLS_MAX): every non-empty column subset solved unconstrained (columns
 * scaled to unit norm, so that seconds and counts of very different sizes
 * condition alike), the best one without a negative coefficient kept
 * (columns outside it are 0); a later subset must lower the error by more
 * than rounding (1e-15 per run), so that a column that explains nothing (a
 * kernel time flat in W) is not kept at a vanishing value. Columns that are all zero get 0. False
 * when no subset gives a solution. */
static bool nnls(const double *X, size_t n, size_t k, double x[COLS_MAX])
{
  double norm[COLS_MAX] = {0}, best = INFINITY;
  bool found = false;
  for (size_t j = 0; j < k; j++) {
    for (size_t r = 0; r < n; r++)
      norm[j] += X[r * k + j] * X[r * k + j];
    norm[j] = sqrt(norm[j]);
  }
  /* the subsets of up to three columns, fewest columns first and the
     fixed cost (column 0) last among equals: one horizon per reference
     is explained by its cost alone */
  static const unsigned subsets[] = {2, 4, 1, 6, 3, 5, 7};
  for (size_t s = 0; s < sizeof subsets / sizeof *subsets; s++) {
    unsigned mask = subsets[s];
    if (mask >= (1u << k))
      continue;
    size_t idx[COLS_MAX], m = 0;
    bool usable = true;
    for (size_t j = 0; j < k; j++)
      if (mask & (1u << j)) {
        usable = usable && norm[j] > 0;
        idx[m++] = j;
      }
    if (!usable)
      continue;
    double a[COLS_MAX][COLS_MAX] = {{0}}, b[COLS_MAX] = {0}, y[COLS_MAX];
    for (size_t r = 0; r < n; r++)
      for (size_t p = 0; p < m; p++) {
        double xp = X[r * k + idx[p]] / norm[idx[p]];
        b[p] += xp;
        for (size_t q = 0; q < m; q++)
          a[p][q] += xp * X[r * k + idx[q]] / norm[idx[q]];
      }
    if (!solve(a, b, m, y))
      continue;
    for (size_t p = 0; p < m; p++)
      y[p] /= norm[idx[p]];
    bool ok = true;
    for (size_t p = 0; p < m; p++)
      ok = ok && isfinite(y[p]) && y[p] >= 0;
    if (!ok)
      continue;
    double sse = 0;
    for (size_t r = 0; r < n; r++) {
      double v = -1;
      for (size_t p = 0; p < m; p++)
        v += X[r * k + idx[p]] * y[p];
      sse += v * v;
    }
    if (sse < best - 1e-15 * (double)n) {
      best = sse;
      found = true;
      for (size_t j = 0; j < k; j++)
        x[j] = 0;
      for (size_t p = 0; p < m; p++)
        x[idx[p]] = y[p];
    }
  }
  return found;
}

bool pc_time_fit_scan_ref(const double *W, const double *T, size_t n, uint32_t N, double *X,
                          double *log_cost, double *fixed)
{
  double x[COLS_MAX];
  for (size_t i = 0; i < n; i++) {
    X[2 * i] = 1 / T[i];
    X[2 * i + 1] = W[i] * (double)N / T[i];
  }
  if (!nnls(X, n, 2, x) || !(x[1] > 0))
    return false;
  *fixed = x[0];
  *log_cost = log(x[1]);
  return true;
}

void pc_gemm_waves(uint64_t tiles, uint32_t sm_count, uint32_t c_max, uint64_t *full,
                   uint64_t *tail, uint32_t *c_tail)
{
  uint64_t slots = (uint64_t)sm_count * c_max;
  *full = tiles / slots;
  *tail = tiles % slots;
  *c_tail = (uint32_t)((*tail + sm_count - 1) / sm_count);
}

static double iteration_time(const pascal_gemm_time_fit *f, uint32_t c)
{
  return fmax(f->iteration_s, c * f->sm_iteration_s);
}

/* The model's time of a run under `f`. */
static double gemm_model(const pascal_gemm_time_fit *f, const pc_gemm_timed_run *r,
                         uint32_t sm_count)
{
  uint64_t full, tail;
  uint32_t c_tail;
  pc_gemm_waves(r->tiles, sm_count, f->ctas_per_sm, &full, &tail, &c_tail);
  double iters =
      (double)full * iteration_time(f, f->ctas_per_sm) + (tail ? iteration_time(f, c_tail) : 0);
  return f->fixed_s + r->n_k * iters;
}

static double gemm_sse(const pascal_gemm_time_fit *f, const pc_gemm_timed_run *runs, size_t n,
                       uint32_t sm_count)
{
  double sse = 0;
  for (size_t i = 0; i < n; i++) {
    double e = gemm_model(f, &runs[i], sm_count) / runs[i].T - 1;
    sse += e * e;
  }
  return sse;
}

/* The best fit at c_max CTAs per SM over the breakpoints k = 1 .. c_max + 1
 * (CTA counts c >= k throughput-bound); its error in *sse. */
static bool fit_at(const pc_gemm_timed_run *runs, size_t n, uint32_t sm_count, uint32_t c_max,
                   double *X, pascal_gemm_time_fit *out, double *sse)
{
  bool found = false;
  *sse = INFINITY;
  for (uint32_t k = 1; k <= c_max + 1; k++) {
    for (size_t i = 0; i < n; i++) {
      uint64_t full, tail;
      uint32_t c_tail;
      pc_gemm_waves(runs[i].tiles, sm_count, c_max, &full, &tail, &c_tail);
      double lat = 0, thr = 0; /* sum over waves of 1 (c < k) or c (c >= k) */
      if (c_max < k)
        lat += (double)full;
      else
        thr += (double)full * c_max;
      if (tail && c_tail < k)
        lat += 1;
      else if (tail)
        thr += c_tail;
      double *row = X + i * 3;
      row[0] = 1 / runs[i].T;
      row[1] = runs[i].n_k * lat / runs[i].T;
      row[2] = runs[i].n_k * thr / runs[i].T;
    }
    double x[COLS_MAX];
    if (!nnls(X, n, 3, x))
      continue;
    pascal_gemm_time_fit f = {
        .ctas_per_sm = c_max, .fixed_s = x[0], .iteration_s = x[1], .sm_iteration_s = x[2]};
    if (!(f.iteration_s > 0)) /* every count throughput-bound: L is the count-1 time */
      f.iteration_s = f.sm_iteration_s;
    if (!(f.iteration_s > 0))
      continue;
    double e = gemm_sse(&f, runs, n, sm_count);
    if (e < *sse) {
      *sse = e;
      *out = f;
      found = true;
    }
  }
  return found;
}

bool pc_time_fit_gemm(const pc_gemm_timed_run *runs, size_t n, uint32_t sm_count,
                      pascal_gemm_time_fit *out, double *scratch)
{
  if (n < 3)
    return false;
  pascal_gemm_time_fit fits[PASCAL_TIME_CTAS_MAX];
  double sse[PASCAL_TIME_CTAS_MAX], best = INFINITY;
  bool ok[PASCAL_TIME_CTAS_MAX];
  for (uint32_t c = 1; c <= PASCAL_TIME_CTAS_MAX; c++) {
    ok[c - 1] = fit_at(runs, n, sm_count, c, scratch, &fits[c - 1], &sse[c - 1]);
    if (ok[c - 1] && sse[c - 1] < best)
      best = sse[c - 1];
  }
  /* the fewest CTAs per SM that explain the timings about as well as the
     best count: counts the waves of the calibration cannot tell apart
     (2 and 4 on grids of 2^k tiles) resolve to the smaller */
  double limit = sqrt(best) * (1 + PASCAL_TIME_CTAS_TOLERANCE);
  for (uint32_t c = 1; c <= PASCAL_TIME_CTAS_MAX; c++)
    if (ok[c - 1] && sqrt(sse[c - 1]) <= limit) {
      *out = fits[c - 1];
      return true;
    }
  return false;
}
