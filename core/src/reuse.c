/*
 * reuse.c - exact per-worker LRU reuse distances and reuse times tau_w of the
 * cyclic phase trace, without a trace (paper §3.3 "exact RD by merging the
 * at-most-M cyclic address intervals", §3.4 tau_w, appendix B).
 *
 * Reuse distance of worker w (steady state). Let v* be the worker whose
 * request to the same block b precedes w's, L rounds earlier (phase_order.h).
 * Strictly between the two requests every worker u requests the contiguous
 * run of blocks of rounds k - L + [u <= v*] .. k - [u >= w], so the union is
 * a union of at most M cyclic intervals. In coordinates relative to b - L
 * (block b itself never occurs in between, so no interval wraps), worker u's
 * interval is [base + [u <= v*], base + L + 1 - [u >= w]) with base the
 * offset of u's phase from v*'s. Members of one phase group share `base`, and
 * all their non-empty intervals start in {base, base + 1} and end in
 * {base + L, base + L + 1} > start, so a group's union is one interval; taking
 * groups in ascending base (a rotation of the phase order) gives
 * non-decreasing starts and a one-pass merge. O(M) per worker, O(M^2) total.
 */
#include "pascal/static.h"

#include <stdlib.h>

#include "phase_order.h"
#include "static_check.h"

/* Distinct blocks strictly between w's request and its predecessor. */
static uint64_t reuse_distance_of(const pascal_phase_order *po, size_t w)
{
  pascal_phase_link prev = pc_phase_order_prev(po, w);
  size_t vstar = prev.worker, gv = po->group_of[vstar];
  uint64_t lag = prev.lag, n = po->n;
  uint64_t covered = 0, cur_end = 0;
  for (size_t step = 0; step < po->d; step++) {
    size_t h = (gv + step) % po->d;
    uint64_t ph = po->group_phase[h], pv = po->group_phase[gv];
    uint64_t base = ph >= pv ? ph - pv : ph + n - pv;
    uint64_t start = UINT64_MAX, end = 0; /* union of the group's intervals */
    for (size_t i = po->group_start[h]; i < po->group_start[h + 1]; i++) {
      size_t u = po->by_phase[i];
      uint64_t s = base + (u <= vstar);
      uint64_t e = base + lag + 1 - (u >= w);
      if (e <= s)
        continue; /* u makes no request in between */
      if (s < start)
        start = s;
      if (e > end)
        end = e;
    }
    if (start >= end)
      continue;
    if (start < cur_end)
      start = cur_end;
    if (end > start)
      covered += end - start;
    if (end > cur_end)
      cur_end = end;
  }
  return covered;
}

pascal_status pascal_reuse_distance_compute(uint64_t n, const uint64_t *phases, size_t m,
                                            uint64_t *rd, pascal_error *err)
{
  pascal_status st = pc_check_n(n, PASCAL_STATIC_N_MAX, err);
  if (st == PASCAL_OK)
    st = pc_check_phases(n, phases, m, err);
  if (st != PASCAL_OK)
    return st;
  if (!rd)
    return pascal_error_set(err, PASCAL_EINVAL, "rd", "output pointer is NULL");
  pascal_phase_order po;
  st = pc_phase_order_init(&po, n, phases, m, err);
  if (st != PASCAL_OK)
    return st;
  for (size_t w = 0; w < m; w++)
    rd[w] = reuse_distance_of(&po, w);
  pc_phase_order_free(&po);
  return PASCAL_OK;
}

pascal_status pascal_lru_misses_exact(uint64_t n, uint64_t c, const uint64_t *phases, size_t m,
                                      size_t *misses_per_round, pascal_error *err)
{
  pascal_status st = pc_check_model(n, c, phases, m, err);
  if (st != PASCAL_OK)
    return st;
  if (!misses_per_round)
    return pascal_error_set(err, PASCAL_EINVAL, "misses_per_round", "output pointer is NULL");
  uint64_t *rd = malloc(m * sizeof *rd);
  if (!rd)
    return pascal_error_set(err, PASCAL_ENOMEM, "M", "cannot allocate %zu reuse distances", m);
  st = pascal_reuse_distance_compute(n, phases, m, rd, err);
  if (st == PASCAL_OK)
    *misses_per_round = pascal_lru_misses_of_distances(rd, m, c);
  free(rd);
  return st;
}

size_t pascal_lru_misses_of_distances(const uint64_t *rd, size_t m, uint64_t c)
{
  size_t misses = 0;
  for (size_t w = 0; w < m; w++) /* Mattson: LRU hits iff RD < C */
    misses += rd[w] >= c;
  return misses;
}

pascal_status pascal_reuse_time_compute(uint64_t n, const uint64_t *phases, size_t m,
                                        uint64_t *tau_units, pascal_error *err)
{
  pascal_status st = pc_check_n(n, PASCAL_STATIC_N_MAX, err);
  if (st == PASCAL_OK)
    st = pc_check_phases(n, phases, m, err);
  uint64_t nm;
  if (st == PASCAL_OK)
    st = pc_check_mul(n, m, PASCAL_STATIC_N_MAX, "M", &nm, err);
  if (st != PASCAL_OK)
    return st;
  if (!tau_units)
    return pascal_error_set(err, PASCAL_EINVAL, "tau_units", "output pointer is NULL");
  pascal_phase_order po;
  st = pc_phase_order_init(&po, n, phases, m, err);
  if (st != PASCAL_OK)
    return st;
  for (size_t w = 0; w < m; w++) {
    /* request (k, w) sits at time kM + w; its predecessor at
     * (k - lag) M + v, so tau_w M = lag M + w - v >= 1 (lag >= 1 when v >= w) */
    pascal_phase_link prev = pc_phase_order_prev(&po, w);
    tau_units[w] = prev.lag * m + w - prev.worker;
  }
  pc_phase_order_free(&po);
  return PASCAL_OK;
}
