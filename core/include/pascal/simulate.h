/*
 * pascal/simulate.h - reference cache simulators that check the static
 * theory (paper §3, §5.2 "Static accuracy and replacement bounds").
 *
 * Policies: slotted TTL (the working-set cache of Theorem 1), request-level
 * fully associative LRU, Belady MIN with forced allocation and with bypass.
 * Each runs over the cyclic phase trace of Eq. trace (round k, worker w in
 * index order requests (k + s_w) mod N) and over an arbitrary address trace.
 *
 * Steady state (docs/design.md §3.7): the phase simulators of TTL and LRU start from
 * an empty cache, discard PASCAL_SIM_WARMUP_PERIODS * N rounds, then count
 * misses over `periods` * N rounds (the trace has period N) and divide by the
 * rounds counted. Belady counts every miss over H rounds from cold; Theorem 3
 * then holds up to + N / H.
 *
 * Address traces: addresses are integers below `universe` (memory O(universe)).
 * `hits`, when not NULL, receives one byte per request: 1 hit, 0 miss.
 *
 * Limits: N and universe <= PASCAL_SIM_UNIVERSE_MAX; simulated requests
 * (rounds * M) <= PASCAL_SIM_REQUESTS_MAX (PASCAL_ERANGE otherwise). Capacity
 * 1 <= C < N for phase traces, C >= 1 for address traces. Errors follow
 * pascal/error.h and name the argument ("C", "periods", "trace[17]").
 */
#ifndef PASCAL_SIMULATE_H
#define PASCAL_SIMULATE_H

#include <stddef.h>
#include <stdint.h>

#include "pascal/error.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PASCAL_SIM_WARMUP_PERIODS 4
#define PASCAL_SIM_UNIVERSE_MAX   (UINT64_C(1) << 26)
#define PASCAL_SIM_REQUESTS_MAX   (UINT64_C(1) << 40)

typedef struct pascal_sim_result {
  uint64_t requests;       /* requests counted                               */
  uint64_t misses;         /* misses (fills) among them                      */
  uint64_t rounds;         /* rounds (slots) counted; 0 for an LRU/Belady
                              address trace, which has no rounds            */
  double misses_per_round; /* misses / rounds, 0 when rounds == 0           */
} pascal_sim_result;

/* Slotted TTL result: the window the cache ran with and its largest measured
 * boundary occupancy (distinct blocks of the preceding `window` complete
 * rounds, at a round boundary) over the counted rounds. */
typedef struct pascal_sim_ttl_result {
  pascal_sim_result sim;
  uint64_t window;
  uint64_t occupancy;
} pascal_sim_ttl_result;

typedef enum pascal_belady_variant {
  PASCAL_BELADY_FORCED = 0, /* every miss is inserted; evict the cached block
                               whose next use is farthest                    */
  PASCAL_BELADY_BYPASS = 1  /* a miss whose next use is farther than every
                               cached block's is not inserted                */
} pascal_belady_variant;

/* Slotted TTL over the phase trace. The window is found by simulation, not by
 * the gap law: the largest T whose measured steady boundary occupancy is at
 * most C (binary search over T, occupancy being monotone in T). A request hits
 * when its block was requested in the current round or in one of the T
 * preceding complete rounds; current-round duplicates share one fill.
 * periods >= 1. */
pascal_status pascal_sim_ttl_phases(uint64_t n, uint64_t c, const uint64_t *phases, size_t m,
                                    uint64_t periods, pascal_sim_ttl_result *out,
                                    pascal_error *err);

/* Slotted TTL over an address trace cut into slots of `slot_len` requests
 * (the last slot may be shorter), with an explicit window (>= 0). Counts
 * every slot from cold; rounds = number of slots. */
pascal_status pascal_sim_ttl_trace(const uint64_t *trace, size_t len, uint64_t universe,
                                   size_t slot_len, uint64_t window, uint8_t *hits,
                                   pascal_sim_ttl_result *out, pascal_error *err);

/* Request-level fully associative LRU of capacity C over the phase trace,
 * steady state as above. periods >= 1. */
pascal_status pascal_sim_lru_phases(uint64_t n, uint64_t c, const uint64_t *phases, size_t m,
                                    uint64_t periods, pascal_sim_result *out, pascal_error *err);

/* Fully associative LRU of capacity C >= 1 over an address trace, from an
 * empty cache; every request is counted. */
pascal_status pascal_sim_lru_trace(const uint64_t *trace, size_t len, uint64_t universe, uint64_t c,
                                   uint8_t *hits, pascal_sim_result *out, pascal_error *err);

/* Belady MIN of capacity C over H = `rounds` >= 1 rounds of the phase trace,
 * from an empty cache, counting every miss (rounds = H). Next uses come from
 * the trace's shift invariance (no trace is stored): memory O(N + M). */
pascal_status pascal_sim_belady_phases(uint64_t n, uint64_t c, const uint64_t *phases, size_t m,
                                       pascal_belady_variant variant, uint64_t rounds,
                                       pascal_sim_result *out, pascal_error *err);

/* Belady MIN of capacity C >= 1 over an address trace, from an empty cache,
 * counting every request. Memory O(len + universe). */
pascal_status pascal_sim_belady_trace(const uint64_t *trace, size_t len, uint64_t universe,
                                      uint64_t c, pascal_belady_variant variant, uint8_t *hits,
                                      pascal_sim_result *out, pascal_error *err);

/* LRU stack (reuse) distance of every request of an address trace: rd[i] =
 * number of distinct addresses strictly between request i and the previous
 * request to the same address, or PASCAL_RD_COLD for a first reference.
 * O(len log universe) (a Fenwick tree over 2 universe slots, compacted when
 * full); memory O(universe) besides rd. */
#define PASCAL_RD_COLD UINT64_MAX
pascal_status pascal_trace_reuse_distance_compute(const uint64_t *trace, size_t len,
                                                  uint64_t universe, uint64_t *rd,
                                                  pascal_error *err);

#ifdef __cplusplus
}
#endif
#endif
