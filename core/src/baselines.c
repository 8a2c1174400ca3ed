/*
 * baselines.c - the hit rules of the comparison models (paper §2.1, §5.4):
 * SDCM's exact binomial hit probability for a reuse distance, PPT-GPU's
 * normal approximation (as published and corrected), TileSight's mixed
 * exact/normal SDCM arithmetic, and Che's
 * characteristic-time approximation for general rates and for a scan.
 * What each assumes is documented in pascal/baselines.h.
 */
#include "pascal/baselines.h"

#include <assert.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "pascal/simulate.h"

#define CHE_TOLERANCE 1e-12

static pascal_status check_geometry(const pascal_cache_geometry *g, pascal_error *err)
{
  if (!g)
    return pascal_error_set(err, PASCAL_EINVAL, "geometry", "geometry is NULL");
  if (g->ways < 1)
    return pascal_error_set(err, PASCAL_EINVAL, "ways", "ways must be at least 1");
  if (g->sets < 1)
    return pascal_error_set(err, PASCAL_EINVAL, "sets", "sets must be at least 1");
  if (g->ways > UINT64_MAX / g->sets)
    return pascal_error_set(err, PASCAL_ERANGE, "sets", "ways x sets overflows");
  if (g->sets > 1 && g->ways > PASCAL_SDCM_WAYS_MAX)
    return pascal_error_set(err, PASCAL_ERANGE, "ways",
                            "ways must be at most %" PRIu64 " with several sets",
                            PASCAL_SDCM_WAYS_MAX);
  return PASCAL_OK;
}

static double normal_cdf(double x)
{
  return 0.5 * erfc(-x / sqrt(2.0));
}

/* P(X < A), X ~ Binomial(r, 1/S), S > 1, r >= A: terms summed from logs
 * (lt_i = log binom(r, i) p^i (1-p)^(r-i)) so no term overflows. */
static double binomial_below(uint64_t r, uint64_t a, uint64_t s)
{
  double p = 1.0 / (double)s, rr = (double)r;
  double log_ratio = log(p) - log1p(-p);
  double lt = rr * log1p(-p), sum = 0.0;
  for (uint64_t i = 0; i < a; i++) {
    sum += exp(lt);
    lt += log(rr - (double)i) - log((double)i + 1.0) + log_ratio;
  }
  return sum < 1.0 ? sum : 1.0;
}

/* Standard normal CDF by the Zelen-Severo polynomial (Abramowitz & Stegun
 * 26.2.16, three coefficients), the approximation TileSight evaluates. */
static double zelen_severo_cdf(double x)
{
  double t = 1.0 / (1.0 + 0.33267 * fabs(x));
  double density = 0.39894228040143268 * exp(-0.5 * x * x); /* 1/sqrt(2 pi) */
  double tail = density * t * (0.4361836 + t * (-0.1201676 + t * 0.9372980));
  return x >= 0.0 ? 1.0 - tail : tail;
}

/* TileSight's SDCM, ported from tile-ai/TileSight, tilesight/util/sdcm.py
 * (function sdcm(D, A, B) with B = A S lines, p = A / B), read to reproduce
 * its arithmetic: D <= A - 1 hits; D >= 1e8 misses; D <= 8 takes the exact
 * binomial; larger D the continuity-corrected normal through the
 * Zelen-Severo CDF. S = 1 (sigma = 0, a division by zero there) is taken at
 * its limit, hit iff D < A. */
static double tilesight_hit(uint64_t d, uint64_t a, uint64_t s)
{
  if (d + 1 <= a)
    return 1.0;
  if (s == 1 || d >= 100000000u)
    return 0.0;
  if (d <= 8)
    return binomial_below(d, a, s);
  double p = 1.0 / (double)s, mu = (double)d * p;
  double sigma = sqrt((double)d * p * (1.0 - p));
  return zelen_severo_cdf(((double)a - 1.0 + 0.5 - mu) / sigma);
}

/* Hit probability for checked inputs. */
static double hit_probability(pascal_hit_model model, uint64_t rd, const pascal_cache_geometry *g)
{
  if (rd == PASCAL_RD_COLD)
    return 0.0;
  if (rd == 0)
    return 1.0;
  uint64_t a = g->ways, s = g->sets;
  if (model == PASCAL_HIT_TILESIGHT)
    return tilesight_hit(rd, a, s);
  if (model == PASCAL_HIT_SDCM) {
    if (rd < a)
      return 1.0; /* fewer than A lines can conflict */
    return s == 1 ? 0.0 : binomial_below(rd, a, s);
  }
  if (s == 1) /* sigma = 0: the limits of the two normal forms */
    return model == PASCAL_HIT_PPT_PUBLISHED ? 1.0 : (rd < a ? 1.0 : 0.0);
  double mu = (double)rd / (double)s;
  double sigma = sqrt(mu * (1.0 - 1.0 / (double)s));
  if (model == PASCAL_HIT_PPT_PUBLISHED)
    return normal_cdf(fabs((double)a - 1.0 - mu) / sigma);
  return normal_cdf(((double)a - 0.5 - mu) / sigma);
}

static pascal_status check_model(pascal_hit_model model, pascal_error *err)
{
  if (model != PASCAL_HIT_SDCM && model != PASCAL_HIT_PPT_PUBLISHED &&
      model != PASCAL_HIT_PPT_CORRECTED && model != PASCAL_HIT_TILESIGHT)
    return pascal_error_set(err, PASCAL_EINVAL, "model", "unknown hit model %d", (int)model);
  return PASCAL_OK;
}

pascal_status pascal_hit_probability(pascal_hit_model model, uint64_t rd,
                                     const pascal_cache_geometry *geometry, double *p_hit,
                                     pascal_error *err)
{
  pascal_status st = check_model(model, err);
  if (st == PASCAL_OK)
    st = check_geometry(geometry, err);
  if (st == PASCAL_OK && !p_hit)
    st = pascal_error_set(err, PASCAL_EINVAL, "p_hit", "output pointer is NULL");
  if (st == PASCAL_OK)
    *p_hit = hit_probability(model, rd, geometry);
  return st;
}

pascal_status pascal_expected_misses(pascal_hit_model model, const uint64_t *rd, size_t count,
                                     const pascal_cache_geometry *geometry, double *misses,
                                     pascal_error *err)
{
  pascal_status st = check_model(model, err);
  if (st == PASCAL_OK)
    st = check_geometry(geometry, err);
  if (st == PASCAL_OK && count > 0 && !rd)
    st = pascal_error_set(err, PASCAL_EINVAL, "rd", "rd is NULL");
  if (st == PASCAL_OK && !misses)
    st = pascal_error_set(err, PASCAL_EINVAL, "misses", "output pointer is NULL");
  if (st != PASCAL_OK)
    return st;
  double sum = 0.0;
  for (size_t i = 0; i < count; i++)
    sum += 1.0 - hit_probability(model, rd[i], geometry);
  *misses = sum;
  return PASCAL_OK;
}

/* The rates as runs of equal values: che_run[i] holds `count` items of
 * normalised rate q. A GEMM's rates take two values (A tiles, B tiles), so
 * the bisection below evaluates two exponentials per step, not one per
 * tile. */
typedef struct che_run {
  double q;
  double count;
} che_run;

/* sum_i (1 - exp(-q_i t)) over the runs. Items whose normalised rate is 0
 * (a zero rate, or one that underflows next to a huge one) hold no space;
 * skipping them keeps 0 * inf out of the sum when t has grown to infinity. */
static double che_occupancy(const che_run *runs, size_t n, double t)
{
  double sum = 0.0;
  for (size_t i = 0; i < n; i++)
    if (runs[i].q > 0.0)
      sum += runs[i].count * -expm1(-runs[i].q * t);
  return sum;
}

pascal_status pascal_che_characteristic_time(const double *rates, size_t n, double c, double *t_c,
                                             double *hit_rate, pascal_error *err)
{
  if (n == 0 || !rates)
    return pascal_error_set(err, PASCAL_EINVAL, "rates", "at least one rate is needed");
  if (!isfinite(c) || !(c > 0.0))
    return pascal_error_set(err, PASCAL_EINVAL, "C", "C must be finite and positive");
  if (!t_c || !hit_rate)
    return pascal_error_set(err, PASCAL_EINVAL, t_c ? "hit_rate" : "t_c", "output pointer is NULL");
  double total = 0.0;
  size_t positive = 0, n_runs = 0;
  for (size_t i = 0; i < n; i++) {
    if (!isfinite(rates[i]) || rates[i] < 0.0) {
      char field[40];
      snprintf(field, sizeof field, "rates[%zu]", i);
      return pascal_error_set(err, PASCAL_EINVAL, field, "rates must be finite and >= 0");
    }
    total += rates[i];
    positive += rates[i] > 0.0;
    n_runs += i == 0 || rates[i] != rates[i - 1];
  }
  if (positive == 0 || !isfinite(total))
    return pascal_error_set(err, PASCAL_EINVAL, "rates", "rates must have a finite positive sum");
  if (c >= (double)positive) { /* every requested item fits */
    *t_c = INFINITY;
    *hit_rate = 1.0;
    return PASCAL_OK;
  }
  che_run *runs = malloc(n_runs * sizeof *runs);
  if (!runs)
    return pascal_error_set(err, PASCAL_ENOMEM, "rates", "cannot allocate the rate runs");
  size_t r = 0;
  for (size_t i = 0; i < n; i++) {
    if (i > 0 && rates[i] == rates[i - 1]) {
      runs[r - 1].count += 1.0;
      continue;
    }
    runs[r++] = (che_run){.q = rates[i] / total, .count = 1.0};
  }
  assert(r == n_runs);
  /* occupancy rises from 0 to `positive` > c: bracket, then bisect. With
   * rates spanning more than the double range T_C is not representable: hi
   * stops at infinity, the bisection ends at once and the hit rate is that of
   * t = infinity (every item with a representable rate hits). */
  double lo = 0.0, hi = 1.0;
  while (che_occupancy(runs, n_runs, hi) < c && isfinite(hi))
    hi *= 2.0;
  while (hi - lo > CHE_TOLERANCE * hi) {
    double mid = 0.5 * (lo + hi);
    if (che_occupancy(runs, n_runs, mid) < c)
      lo = mid;
    else
      hi = mid;
  }
  double t = 0.5 * (lo + hi), hits = 0.0;
  for (size_t i = 0; i < n_runs; i++)
    if (runs[i].q > 0.0)
      hits += runs[i].count * runs[i].q * -expm1(-runs[i].q * t);
  free(runs);
  *t_c = t;
  *hit_rate = hits;
  return PASCAL_OK;
}

pascal_status pascal_che_scan(uint64_t n, uint64_t c, double *hit_rate, pascal_error *err)
{
  if (n < 1)
    return pascal_error_set(err, PASCAL_EINVAL, "N", "N must be at least 1");
  if (c < 1)
    return pascal_error_set(err, PASCAL_EINVAL, "C", "C must be at least 1");
  if (!hit_rate)
    return pascal_error_set(err, PASCAL_EINVAL, "hit_rate", "output pointer is NULL");
  /* uniform rates 1/N: N (1 - exp(-T/N)) = C gives h = 1 - exp(-T/N) = C/N */
  *hit_rate = c >= n ? 1.0 : (double)c / (double)n;
  return PASCAL_OK;
}
