/*
 * pascal/coherence.h - how much lead the cache tolerates (paper §3.5,
 * Theorem 4, Eqs. progress_spread and coherent_traffic).
 *
 * M >= 2 workers each read blocks 0, 1, .., N-1 repeatedly at their own pace
 * into one initially empty fully associative LRU cache of capacity C. An
 * event sequence interleaves their requests; n_w(u) counts worker w's requests
 * among the first u events and sigma_E = max_{u <= E} (max_w n_w(u) -
 * min_w n_w(u)). If C >= 2 sigma_E - 1 every request to an index k after its
 * first request hits, so the misses A_E satisfy
 *     A_E <= max_w n_w(E)  and  M A_E / E <= 1 + (M - 1) sigma_E / E.
 * At C = 2 sigma - 2 a two-worker schedule with sigma_E = sigma loses sharing
 * (the threshold is sharp).
 *
 * Errors follow pascal/error.h and name the argument ("sigma", "C", "M", "E",
 * "events[4]").
 */
#ifndef PASCAL_COHERENCE_H
#define PASCAL_COHERENCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pascal/error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pascal_coherence_result {
  uint64_t sigma;        /* sigma_E (given, or computed from the events)     */
  uint64_t min_capacity; /* 2 sigma - 1: the least C the theorem certifies    */
  bool preserves;        /* C >= 2 sigma - 1: sharing is preserved; the two
                            bounds below are guaranteed only when true        */
  uint64_t miss_bound;   /* bound on A_E: max_w n_w(E) when the events are
                            known, else floor((E + (M - 1) sigma) / M), the
                            largest max_w n_w(E) that E and sigma allow       */
  double rate_bound;     /* bound on M A_E / E: 1 + (M - 1) sigma / E         */
} pascal_coherence_result;

/* From a known spread: requires sigma >= 1, sigma <= E, C >= 1, M >= 2,
 * E >= 1, and (M - 1) * sigma + E without overflow. */
pascal_status pascal_coherence_check(uint64_t sigma, uint64_t c, size_t m, uint64_t e,
                                     pascal_coherence_result *out, pascal_error *err);

/* From a recorded event sequence: events[u] (0 <= u < E) is the worker (in
 * [0, M)) that made request u + 1. Computes sigma_E (Eq. progress_spread) and
 * max_w n_w(E) in O(E + M); allocates O(M). Requires E >= 1, M >= 2, C >= 1. */
pascal_status pascal_coherence_from_events(const size_t *events, size_t e, size_t m, uint64_t c,
                                           pascal_coherence_result *out, pascal_error *err);

/* Length of the sharp schedule for sigma: 3 sigma - 1 events. */
#define PASCAL_COHERENCE_SHARP_LEN(sigma) (3 * (sigma)-1)

/* The sharp two-worker schedule of Theorem 4's proof for sigma >= 2, with
 * N = 2 sigma: worker 0 requests 0..sigma-1, worker 1 requests 0..sigma-2,
 * worker 0 requests sigma..2sigma-2, worker 1 requests sigma-1. workers[u]
 * and blocks[u] (both of capacity `cap` >= 3 sigma - 1) receive each event's
 * worker and block; *len_out = 3 sigma - 1 and *n_out = 2 sigma. Its spread
 * is sigma, and under LRU the last request misses at C = 2 sigma - 2 while
 * every repeated index hits at C = 2 sigma - 1. */
pascal_status pascal_coherence_sharp_schedule(uint64_t sigma, size_t *workers, uint64_t *blocks,
                                              size_t cap, size_t *len_out, uint64_t *n_out,
                                              pascal_error *err);

#ifdef __cplusplus
}
#endif
#endif
