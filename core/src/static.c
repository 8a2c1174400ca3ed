/*
 * static.c - the gap law: cyclic gaps, footprint U(t), K(t), the exact
 * waterline theta, T*, K_TTL, rho and the one-round LRU certificate
 * (paper §3.1-3.3: Lemma 1, Eq. waterfill, Theorems 1 and 2).
 *
 * Cost is O(M log M) (two sorts and a prefix scan) and never depends on N:
 * gaps, prefix sums and theta's numerator are all bounded by N, so uint64_t
 * arithmetic cannot overflow for N <= PASCAL_STATIC_N_MAX.
 */
#include "pascal/static.h"

#include <assert.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rational.h"
#include "sort_u64.h"
#include "static_check.h"

/* Sorted phases -> gaps in place (see pascal_gaps_from_phases); returns D. */
static size_t gaps_from_sorted(uint64_t n, uint64_t *y, size_t m)
{
  size_t d = 0;
  for (size_t i = 0; i < m; i++) /* unique in place */
    if (d == 0 || y[i] != y[d - 1])
      y[d++] = y[i];
  uint64_t first = y[0];
  for (size_t i = 0; i + 1 < d; i++) /* y[i + 1] is still a phase here */
    y[i] = y[i + 1] - y[i];
  y[d - 1] = first + n - y[d - 1]; /* wrap; D = 1 gives N */
  return d;
}

pascal_status pascal_gaps_from_phases(uint64_t n, const uint64_t *phases, size_t m, uint64_t *gaps,
                                      size_t *d_out, pascal_error *err)
{
  pascal_status st = pc_check_n(n, PASCAL_STATIC_N_MAX, err);
  if (st == PASCAL_OK)
    st = pc_check_phases(n, phases, m, err);
  if (st != PASCAL_OK)
    return st;
  if (!gaps || !d_out)
    return pascal_error_set(err, PASCAL_EINVAL, gaps ? "d_out" : "gaps", "output pointer is NULL");
  uint64_t *scratch = NULL;
  if (m > PASCAL_SORT_SMALL) {
    scratch = malloc(m * sizeof *scratch);
    if (!scratch)
      return pascal_error_set(err, PASCAL_ENOMEM, "M",
                              "cannot allocate sort scratch for %zu phases", m);
  }
  memmove(gaps, phases, m * sizeof *gaps);
  pc_sort_u64(gaps, m, scratch);
  free(scratch);
  *d_out = gaps_from_sorted(n, gaps, m);
  return PASCAL_OK;
}

/* Every gap >= 1 and their sum <= PASCAL_STATIC_N_MAX; *n_out = the sum. */
static pascal_status check_gaps(const uint64_t *gaps, size_t d, uint64_t *n_out, pascal_error *err)
{
  if (d == 0)
    return pascal_error_set(err, PASCAL_EINVAL, "D", "at least one gap is needed");
  if (!gaps)
    return pascal_error_set(err, PASCAL_EINVAL, "gaps", "gaps is NULL");
  uint64_t n = 0;
  for (size_t i = 0; i < d; i++) {
    char field[32];
    snprintf(field, sizeof field, "gaps[%zu]", i);
    if (gaps[i] < 1)
      return pascal_error_set(err, PASCAL_EINVAL, field, "gaps must be positive");
    if (gaps[i] > PASCAL_STATIC_N_MAX - n)
      return pascal_error_set(err, PASCAL_ERANGE, field, "gaps sum beyond %" PRIu64,
                              PASCAL_STATIC_N_MAX);
    n += gaps[i];
  }
  *n_out = n;
  return PASCAL_OK;
}

pascal_status pascal_footprint_eval(const uint64_t *gaps, size_t d, uint64_t t, uint64_t *u_out,
                                    pascal_error *err)
{
  uint64_t n;
  pascal_status st = check_gaps(gaps, d, &n, err);
  if (st != PASCAL_OK)
    return st;
  if (!u_out)
    return pascal_error_set(err, PASCAL_EINVAL, "u_out", "output pointer is NULL");
  uint64_t u = 0;
  for (size_t i = 0; i < d; i++)
    u += gaps[i] < t ? gaps[i] : t;
  *u_out = u;
  return PASCAL_OK;
}

pascal_status pascal_fill_count_eval(const uint64_t *gaps, size_t d, uint64_t t, size_t *k_out,
                                     pascal_error *err)
{
  uint64_t n;
  pascal_status st = check_gaps(gaps, d, &n, err);
  if (st != PASCAL_OK)
    return st;
  if (!k_out)
    return pascal_error_set(err, PASCAL_EINVAL, "k_out", "output pointer is NULL");
  size_t k = 0;
  for (size_t i = 0; i < d; i++)
    k += gaps[i] > t;
  *k_out = k;
  return PASCAL_OK;
}

/* K(t) on ascending gaps: D minus the number of gaps <= t (binary search). */
static size_t fills_above(const uint64_t *sorted, size_t d, uint64_t t)
{
  size_t lo = 0, hi = d; /* invariant: sorted[<lo] <= t < sorted[>=hi] */
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (sorted[mid] <= t)
      lo = mid + 1;
    else
      hi = mid;
  }
  return d - lo;
}

/* Eq. waterfill on ascending gaps summing to n > c >= 1. */
static void waterfill_sorted(uint64_t n, uint64_t c, const uint64_t *sorted, size_t d, size_t m,
                             pascal_static_result *out)
{
  /* Smallest j with U(g_(j+1)) = S_j + (D - j) g_(j+1) > C. Such j < D exists
   * because U(g_(D)) = N > C. (D - j) g_(j+1) <= sum of the D - j largest
   * gaps <= N, so nothing overflows. */
  uint64_t prefix = 0; /* S_j */
  size_t j = 0;
  while (prefix + (uint64_t)(d - j) * sorted[j] <= c) {
    prefix += sorted[j];
    j++;
  }
  uint64_t num = c - prefix, den = d - j; /* g_(j) <= theta < g_(j+1) */
  assert(j < d && num < den * sorted[j] && (j == 0 || num >= den * sorted[j - 1]));
  memset(out, 0, sizeof *out);
  out->n = n;
  out->c = c;
  out->m = m;
  out->d = d;
  out->theta = pc_rational_reduce(num, den);
  out->theta_value = (double)num / (double)den;
  out->t_star = num / den;
  /* gaps up to index j-1 are <= theta, hence <= floor(theta); the rest
   * exceed theta >= T*: K(T*) = D - j. */
  out->k_ttl = d - j;
  out->rho_ttl = (double)out->k_ttl / (double)m;
  out->lru.lower = fills_above(sorted, d, out->t_star + 1);
  out->lru.certified = d <= c;
  if (out->lru.certified) /* D <= C forces theta >= 1, so T* - 1 >= 0 */
    out->lru.upper = fills_above(sorted, d, out->t_star - 1);
  else
    out->lru.upper = m;
}

pascal_status pascal_static_from_gaps(uint64_t c, const uint64_t *gaps, size_t d, size_t m,
                                      pascal_static_result *out, pascal_error *err)
{
  uint64_t n;
  pascal_status st = check_gaps(gaps, d, &n, err);
  if (st == PASCAL_OK)
    st = pc_check_c(n, c, err);
  if (st != PASCAL_OK)
    return st;
  if (m < d)
    return pascal_error_set(err, PASCAL_EINVAL, "M", "M (%zu) is below the number of gaps (%zu)", m,
                            d);
  if (!out)
    return pascal_error_set(err, PASCAL_EINVAL, "out", "output pointer is NULL");
  uint64_t small[2 * PASCAL_SORT_SMALL];
  uint64_t *buf = small;
  if (d > PASCAL_SORT_SMALL) {
    buf = malloc(2 * d * sizeof *buf);
    if (!buf)
      return pascal_error_set(err, PASCAL_ENOMEM, "D", "cannot allocate %zu gaps", d);
  }
  memcpy(buf, gaps, d * sizeof *buf);
  pc_sort_u64(buf, d, buf + d);
  waterfill_sorted(n, c, buf, d, m, out);
  if (buf != small)
    free(buf);
  return PASCAL_OK;
}

pascal_status pascal_static_analyze(uint64_t n, uint64_t c, const uint64_t *phases, size_t m,
                                    pascal_static_result *out, pascal_error *err)
{
  pascal_status st = pc_check_model(n, c, phases, m, err);
  if (st != PASCAL_OK)
    return st;
  if (!out)
    return pascal_error_set(err, PASCAL_EINVAL, "out", "output pointer is NULL");
  uint64_t small[2 * PASCAL_SORT_SMALL];
  uint64_t *buf = small;
  if (m > PASCAL_SORT_SMALL) {
    buf = malloc(2 * m * sizeof *buf);
    if (!buf)
      return pascal_error_set(err, PASCAL_ENOMEM, "M", "cannot allocate %zu phases", m);
  }
  memcpy(buf, phases, m * sizeof *buf);
  pc_sort_u64(buf, m, buf + m);
  size_t d = gaps_from_sorted(n, buf, m);
  pc_sort_u64(buf, d, buf + m);
  waterfill_sorted(n, c, buf, d, m, out);
  if (buf != small)
    free(buf);
  return PASCAL_OK;
}
