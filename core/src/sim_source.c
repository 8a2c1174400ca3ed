/* sim_source.c - validation and set-up of the simulators' request streams
 * (see sim_source.h; paper Eq. trace, docs/design.md §3.7 steady state). */
#include "sim_source.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "pascal/simulate.h"
#include "static_check.h"

pascal_status pc_sim_source_phases(pascal_sim_source *s, uint64_t n, uint64_t c,
                                   const uint64_t *phases, size_t m, uint64_t rounds,
                                   pascal_error *err)
{
  pascal_status st = pc_check_n(n, PASCAL_SIM_UNIVERSE_MAX, err);
  if (st == PASCAL_OK)
    st = pc_check_c(n, c, err);
  if (st == PASCAL_OK)
    st = pc_check_phases(n, phases, m, err);
  uint64_t requests;
  if (st == PASCAL_OK)
    st = pc_check_mul(rounds, m, PASCAL_SIM_REQUESTS_MAX, "rounds", &requests, err);
  if (st != PASCAL_OK)
    return st;
  memset(s, 0, sizeof *s);
  s->phases = phases;
  s->universe = n;
  s->slot_len = m;
  s->slots = rounds;
  return PASCAL_OK;
}

pascal_status pc_sim_source_trace(pascal_sim_source *s, const uint64_t *trace, size_t len,
                                  uint64_t universe, size_t slot_len, uint64_t c, pascal_error *err)
{
  if (universe < 1 || universe > PASCAL_SIM_UNIVERSE_MAX)
    return pascal_error_set(err, PASCAL_ERANGE, "universe", "universe must be in [1, %" PRIu64 "]",
                            PASCAL_SIM_UNIVERSE_MAX);
  if (c < 1)
    return pascal_error_set(err, PASCAL_EINVAL, "C", "C must be at least 1");
  if (slot_len < 1)
    return pascal_error_set(err, PASCAL_EINVAL, "slot_len", "slot_len must be at least 1");
  if (len > PASCAL_SIM_REQUESTS_MAX)
    return pascal_error_set(err, PASCAL_ERANGE, "len", "trace longer than %" PRIu64,
                            PASCAL_SIM_REQUESTS_MAX);
  if (len > 0 && !trace)
    return pascal_error_set(err, PASCAL_EINVAL, "trace", "trace is NULL");
  for (size_t i = 0; i < len; i++) {
    if (trace[i] >= universe) {
      char field[40];
      snprintf(field, sizeof field, "trace[%zu]", i);
      return pascal_error_set(err, PASCAL_EINVAL, field,
                              "address %" PRIu64 " is not below universe %" PRIu64, trace[i],
                              universe);
    }
  }
  memset(s, 0, sizeof *s);
  s->trace = trace;
  s->len = len;
  s->universe = universe;
  s->slot_len = slot_len;
  s->slots = (len + slot_len - 1) / slot_len;
  return PASCAL_OK;
}

pascal_status pc_sim_source_steady(pascal_sim_source *s, uint64_t n, uint64_t c,
                                   const uint64_t *phases, size_t m, uint64_t periods,
                                   const void *out, pascal_error *err)
{
  uint64_t rounds;
  if (periods < 1)
    return pascal_error_set(err, PASCAL_EINVAL, "periods", "periods must be at least 1");
  if (periods > PASCAL_SIM_REQUESTS_MAX)
    return pascal_error_set(err, PASCAL_ERANGE, "periods", "periods is too large");
  pascal_status st = pc_check_mul(periods + PASCAL_SIM_WARMUP_PERIODS, n, PASCAL_SIM_REQUESTS_MAX,
                                  "periods", &rounds, err);
  if (st == PASCAL_OK)
    st = pc_sim_source_phases(s, n, c, phases, m, rounds, err);
  if (st == PASCAL_OK && !out)
    st = pascal_error_set(err, PASCAL_EINVAL, "out", "output pointer is NULL");
  return st;
}
