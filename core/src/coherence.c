/*
 * coherence.c - the sharp capacity condition for preserving sharing (paper
 * §3.5, Theorem 4, Eqs. progress_spread and coherent_traffic) and the
 * two-worker schedule of its sharpness proof (appendix B).
 */
#include "pascal/coherence.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

/* Fill *out from sigma, the miss bound and E (inputs already checked). */
static void coherence_fill(uint64_t sigma, uint64_t c, size_t m, uint64_t e, uint64_t miss_bound,
                           pascal_coherence_result *out)
{
  out->sigma = sigma;
  out->min_capacity = 2 * sigma - 1;
  out->preserves = c >= out->min_capacity;
  out->miss_bound = miss_bound;
  out->rate_bound = 1.0 + (double)(m - 1) * (double)sigma / (double)e;
}

static pascal_status check_common(uint64_t c, size_t m, uint64_t e,
                                  const pascal_coherence_result *out, pascal_error *err)
{
  if (m < 2)
    return pascal_error_set(err, PASCAL_EINVAL, "M", "the theorem needs at least two workers");
  if (c < 1)
    return pascal_error_set(err, PASCAL_EINVAL, "C", "C must be at least 1");
  if (e < 1)
    return pascal_error_set(err, PASCAL_EINVAL, "E", "E must be at least 1");
  if (!out)
    return pascal_error_set(err, PASCAL_EINVAL, "out", "output pointer is NULL");
  return PASCAL_OK;
}

pascal_status pascal_coherence_check(uint64_t sigma, uint64_t c, size_t m, uint64_t e,
                                     pascal_coherence_result *out, pascal_error *err)
{
  pascal_status st = check_common(c, m, e, out, err);
  if (st != PASCAL_OK)
    return st;
  if (sigma < 1)
    return pascal_error_set(err, PASCAL_EINVAL, "sigma", "sigma must be at least 1");
  if (sigma > e)
    return pascal_error_set(err, PASCAL_EINVAL, "sigma",
                            "sigma (%" PRIu64 ") cannot exceed E (%" PRIu64 ")", sigma, e);
  /* E = sum_w n_w(E) >= M max - (M - 1) sigma bounds max_w n_w(E) */
  if (sigma > (UINT64_MAX - e) / (uint64_t)(m - 1))
    return pascal_error_set(err, PASCAL_ERANGE, "sigma", "(M - 1) sigma + E overflows");
  uint64_t bound = (e + (uint64_t)(m - 1) * sigma) / (uint64_t)m;
  coherence_fill(sigma, c, m, e, bound, out);
  return PASCAL_OK;
}

pascal_status pascal_coherence_from_events(const size_t *events, size_t e, size_t m, uint64_t c,
                                           pascal_coherence_result *out, pascal_error *err)
{
  pascal_status st = check_common(c, m, e, out, err);
  if (st != PASCAL_OK)
    return st;
  if (!events)
    return pascal_error_set(err, PASCAL_EINVAL, "events", "events is NULL");
  uint64_t *count = calloc(m, sizeof *count);
  if (!count)
    return pascal_error_set(err, PASCAL_ENOMEM, "M", "cannot allocate %zu counters", m);
  /* min_count is the smallest n_w(u); at_min counts the workers holding it.
   * Counts only grow by one, so when the last worker at the minimum moves up
   * the new minimum is min_count + 1. */
  uint64_t max_count = 0, min_count = 0, sigma = 0;
  size_t at_min = m;
  for (size_t u = 0; u < e; u++) {
    size_t w = events[u];
    if (w >= m) {
      char field[40];
      snprintf(field, sizeof field, "events[%zu]", u);
      free(count);
      return pascal_error_set(err, PASCAL_EINVAL, field, "worker %zu is not below M = %zu", w, m);
    }
    if (count[w]++ == min_count && --at_min == 0) {
      min_count++;
      at_min = 0;
      for (size_t v = 0; v < m; v++) /* amortised: each raise is O(M) once */
        at_min += count[v] == min_count;
    }
    if (count[w] > max_count)
      max_count = count[w];
    if (max_count - min_count > sigma)
      sigma = max_count - min_count;
  }
  free(count);
  coherence_fill(sigma, c, m, e, max_count, out);
  return PASCAL_OK;
}

pascal_status pascal_coherence_sharp_schedule(uint64_t sigma, size_t *workers, uint64_t *blocks,
                                              size_t cap, size_t *len_out, uint64_t *n_out,
                                              pascal_error *err)
{
  if (sigma < 2)
    return pascal_error_set(err, PASCAL_EINVAL, "sigma", "the sharp schedule needs sigma >= 2");
  if (sigma > SIZE_MAX / 4)
    return pascal_error_set(err, PASCAL_ERANGE, "sigma", "sigma is too large");
  size_t len = (size_t)PASCAL_COHERENCE_SHARP_LEN(sigma);
  if (cap < len)
    return pascal_error_set(err, PASCAL_EINVAL, "cap", "the schedule needs %zu entries, cap is %zu",
                            len, cap);
  if (!workers || !blocks || !len_out || !n_out)
    return pascal_error_set(err, PASCAL_EINVAL, "workers", "output pointer is NULL");
  size_t u = 0;
  for (uint64_t k = 0; k < sigma; k++, u++) { /* worker 0: 0 .. sigma-1 */
    workers[u] = 0;
    blocks[u] = k;
  }
  for (uint64_t k = 0; k + 1 < sigma; k++, u++) { /* worker 1: 0 .. sigma-2 */
    workers[u] = 1;
    blocks[u] = k;
  }
  for (uint64_t k = sigma; k + 1 < 2 * sigma; k++, u++) { /* 0: sigma .. 2sigma-2 */
    workers[u] = 0;
    blocks[u] = k;
  }
  workers[u] = 1; /* worker 1 returns to sigma - 1 */
  blocks[u] = sigma - 1;
  *len_out = len;
  *n_out = 2 * sigma;
  return PASCAL_OK;
}
