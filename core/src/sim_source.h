/*
 * sim_source.h - internal: the request stream the reference simulators run
 * on, either the cyclic phase trace of paper Eq. trace (slot k, position w ->
 * block (k + s_w) mod N) or a caller's address trace cut into slots. Also the
 * validation the simulators share.
 */
#ifndef PASCAL_SIM_SOURCE_H
#define PASCAL_SIM_SOURCE_H

#include <stddef.h>
#include <stdint.h>

#include "pascal/error.h"

typedef struct pascal_sim_source {
  const uint64_t *trace;  /* address trace, or NULL for the phase trace     */
  size_t len;             /* trace length                                   */
  const uint64_t *phases; /* phase trace: M phases                          */
  uint64_t universe;      /* N for phases; addresses are below it           */
  size_t slot_len;        /* requests per slot (M for phases)               */
  uint64_t slots;         /* slots to run                                   */
} pascal_sim_source;

/* Number of requests in slot k (the last trace slot may be short). */
static inline size_t pc_sim_slot_size(const pascal_sim_source *s, uint64_t k)
{
  if (!s->trace)
    return s->slot_len;
  uint64_t first = k * s->slot_len;
  uint64_t left = s->len - first;
  return left < s->slot_len ? (size_t)left : s->slot_len;
}

/* Block of request `pos` of slot k; `base` = k mod N for the phase trace. */
static inline uint64_t pc_sim_block(const pascal_sim_source *s, uint64_t k, uint64_t base,
                                    size_t pos)
{
  if (s->trace)
    return s->trace[k * s->slot_len + pos];
  uint64_t b = base + s->phases[pos];
  return b >= s->universe ? b - s->universe : b;
}

/* Phase-trace source of `rounds` rounds after validating N (<= universe
 * limit), C (1 <= C < N), the phases and rounds * M (<= request limit). */
pascal_status pc_sim_source_phases(pascal_sim_source *s, uint64_t n, uint64_t c,
                                   const uint64_t *phases, size_t m, uint64_t rounds,
                                   pascal_error *err);

/* Address-trace source after validating the trace (addresses < universe,
 * universe within the limit), slot_len >= 1 and C >= 1 (pass c = 1 when the
 * policy has no capacity). */
pascal_status pc_sim_source_trace(pascal_sim_source *s, const uint64_t *trace, size_t len,
                                  uint64_t universe, size_t slot_len, uint64_t c,
                                  pascal_error *err);

/* The phase-trace source of the steady-state simulators (docs/design.md §3.7):
 * PASCAL_SIM_WARMUP_PERIODS warm-up periods plus `periods` >= 1 counted
 * periods of N rounds, i.e. (PASCAL_SIM_WARMUP_PERIODS + periods) N slots,
 * validated as pc_sim_source_phases does ("periods" when too long), then
 * the simulator's result pointer `out` ("out" when NULL). */
pascal_status pc_sim_source_steady(pascal_sim_source *s, uint64_t n, uint64_t c,
                                   const uint64_t *phases, size_t m, uint64_t periods,
                                   const void *out, pascal_error *err);

#endif
