/*
 * sim_ttl.c - slotted TTL (working-set) reference simulator of paper §3.2
 * (Theorem 1): at the start of a round the cache remembers the blocks of the
 * preceding `window` complete rounds; a request hits when its block was
 * requested in the current round or in that window; current-round duplicates
 * share one fill. Over the phase trace the window is not taken from the gap
 * law: it is the largest window whose measured steady boundary occupancy is
 * at most C, found by binary search (occupancy grows with the window).
 *
 * Occupancy is kept incrementally: last[b] is the slot of b's latest request,
 * ring[t mod (window + 1)] the number of blocks whose latest request is slot
 * t, and `occ` the number of blocks whose latest request lies in
 * [k - window, k] during slot k; at the start of slot k it is exactly the
 * boundary occupancy.
 */
#include "pascal/simulate.h"

#include <stdlib.h>

#include "sim_source.h"

#define TTL_NEVER UINT64_MAX

typedef struct ttl_run {
  uint64_t misses, requests, occupancy;
} ttl_run;

static pascal_status ttl_simulate(const pascal_sim_source *s, uint64_t window, uint64_t count_from,
                                  uint8_t *hits, ttl_run *out, pascal_error *err)
{
  uint64_t *last = malloc(s->universe * sizeof *last);
  uint64_t *ring = calloc(window + 1, sizeof *ring);
  if (!last || !ring) {
    free(last);
    free(ring);
    return pascal_error_set(err, PASCAL_ENOMEM, "N", "cannot allocate the TTL state");
  }
  for (uint64_t b = 0; b < s->universe; b++)
    last[b] = TTL_NEVER;
  uint64_t occ = 0, base = 0, index = 0, slots_w = window + 1;
  ttl_run run = {0, 0, 0};
  for (uint64_t k = 0; k < s->slots; k++) {
    int counted = k >= count_from;
    if (counted && occ > run.occupancy)
      run.occupancy = occ;
    size_t size = pc_sim_slot_size(s, k);
    for (size_t pos = 0; pos < size; pos++, index++) {
      uint64_t b = pc_sim_block(s, k, base, pos), l = last[b];
      int hit = l != TTL_NEVER && l + window >= k;
      if (l != k) {
        if (hit)
          ring[l % slots_w]--;
        else
          occ++;
        ring[k % slots_w]++;
        last[b] = k;
      }
      if (hits)
        hits[index] = (uint8_t)hit;
      if (counted) {
        run.requests++;
        run.misses += !hit;
      }
    }
    /* slot k + 1 begins: blocks last requested in slot k - window leave */
    uint64_t leaving = (k + 1) % slots_w;
    occ -= ring[leaving];
    ring[leaving] = 0;
    if (!s->trace && ++base == s->universe)
      base = 0;
  }
  free(last);
  free(ring);
  *out = run;
  return PASCAL_OK;
}

static void ttl_result(const ttl_run *run, uint64_t window, uint64_t rounds,
                       pascal_sim_ttl_result *out)
{
  out->window = window;
  out->occupancy = run->occupancy;
  out->sim.requests = run->requests;
  out->sim.misses = run->misses;
  out->sim.rounds = rounds;
  out->sim.misses_per_round = rounds ? (double)run->misses / (double)rounds : 0.0;
}

pascal_status pascal_sim_ttl_phases(uint64_t n, uint64_t c, const uint64_t *phases, size_t m,
                                    uint64_t periods, pascal_sim_ttl_result *out, pascal_error *err)
{
  pascal_sim_source src;
  pascal_status st = pc_sim_source_steady(&src, n, c, phases, m, periods, out, err);
  if (st != PASCAL_OK)
    return st;
  uint64_t count_from = PASCAL_SIM_WARMUP_PERIODS * n;
  /* invariant: window lo fits (occupancy <= C; lo = 0 holds nothing), window
   * hi does not (a window of N rounds holds all N > C blocks) */
  uint64_t lo = 0, hi = n;
  ttl_run run = {0, 0, 0};
  while (hi - lo > 1) {
    uint64_t mid = lo + (hi - lo) / 2;
    st = ttl_simulate(&src, mid, count_from, NULL, &run, err);
    if (st != PASCAL_OK)
      return st;
    if (run.occupancy <= c)
      lo = mid;
    else
      hi = mid;
  }
  st = ttl_simulate(&src, lo, count_from, NULL, &run, err);
  if (st != PASCAL_OK)
    return st;
  ttl_result(&run, lo, periods * n, out);
  return PASCAL_OK;
}

pascal_status pascal_sim_ttl_trace(const uint64_t *trace, size_t len, uint64_t universe,
                                   size_t slot_len, uint64_t window, uint8_t *hits,
                                   pascal_sim_ttl_result *out, pascal_error *err)
{
  pascal_sim_source src;
  pascal_status st = pc_sim_source_trace(&src, trace, len, universe, slot_len, 1, err);
  if (st != PASCAL_OK)
    return st;
  if (!out)
    return pascal_error_set(err, PASCAL_EINVAL, "out", "output pointer is NULL");
  /* no slot is older than `slots`, so a longer window behaves like this one */
  uint64_t effective = window < src.slots ? window : src.slots;
  ttl_run run = {0, 0, 0};
  st = ttl_simulate(&src, effective, 0, hits, &run, err);
  if (st != PASCAL_OK)
    return st;
  ttl_result(&run, window, src.slots, out);
  return PASCAL_OK;
}
