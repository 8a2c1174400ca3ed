/*
 * pascal/static.h - the static (fixed-phase) theory of a shared cyclic scan,
 * paper section 3.1-3.4 and appendix B.
 *
 * Model (paper Eq. trace): N blocks 0..N-1, M workers, worker w has phase
 * s_w in [0, N) and in round k requests block (k + s_w) mod N. Within a round
 * the workers request in index order 0..M-1 (the array order of `phases`).
 * Capacity C is in blocks, 1 <= C < N.
 *
 *  - gaps: distinct phases y_1 < .. < y_D, g_i = y_{i+1} - y_i, g_D wraps
 *    (g_D = y_1 + N - y_D); one distinct phase gives g_1 = N. Sum g_i = N.
 *  - footprint U(t) = sum_i min(g_i, t), K(t) = #{i : g_i > t} (Lemma 1).
 *  - waterline theta: U(theta) = C, exact rational (Eq. waterfill);
 *    T* = floor(theta); K_TTL = K(T*); rho = K_TTL / M (Theorem 1).
 *  - LRU certificate K(T*+1) <= K_LRU <= K(T*-1), valid when D <= C
 *    (Theorem 2).
 *  - exact per-worker LRU reuse distance (distinct blocks strictly between a
 *    request and the previous request to the same block, in steady state) by
 *    merging cyclic intervals; exact fully associative LRU misses per round.
 *  - reuse times tau_w and the policy-independent bound M - Phi(C) (§3.4,
 *    Theorem 3).
 *
 * Limits: 1 <= N <= PASCAL_STATIC_N_MAX, M >= 1, every phase < N. Functions
 * that also take C require 1 <= C < N. Nothing here depends on N's size for
 * its running time, only on M. All functions follow pascal/error.h: they
 * return a pascal_status, write results through out-parameters (untouched on
 * failure) and name the bad argument in the optional `err` ("N", "C", "M",
 * "phases[3]", "gaps[0]").
 */
#ifndef PASCAL_STATIC_H
#define PASCAL_STATIC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pascal/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Largest N accepted anywhere in the static theory and the simulators'
 * arithmetic (keeps N + 1, 2N and round/lag sums free of overflow). */
#define PASCAL_STATIC_N_MAX (UINT64_C(1) << 62)

/* A non-negative rational, always reduced (gcd(num, den) = 1) with den >= 1. */
typedef struct pascal_rational {
  uint64_t num;
  uint64_t den;
} pascal_rational;

/* Theorem 2's one-round certificate for fully associative LRU misses per
 * round. `lower` = K(T*+1) always holds. `upper` = K(T*-1) holds when
 * `certified` (D <= C); otherwise `upper` is the trivial bound M (same-round
 * duplicates may then miss too). */
typedef struct pascal_lru_certificate {
  size_t lower;
  size_t upper;
  bool certified;
} pascal_lru_certificate;

/* The closed-form static answer for one (N, C, phases) triple. */
typedef struct pascal_static_result {
  uint64_t n;            /* blocks per scan (= sum of gaps)                  */
  uint64_t c;            /* capacity in blocks                               */
  size_t m;              /* workers                                          */
  size_t d;              /* distinct phases D                                */
  pascal_rational theta; /* waterline, exact: U(theta) = C                   */
  double theta_value;    /* the same as a double                             */
  uint64_t t_star;       /* T* = floor(theta); U(T*) <= C < U(T*+1)          */
  size_t k_ttl;          /* K(T*) = misses per round of the T*-window TTL   */
  double rho_ttl;        /* K_TTL / M, misses per request                    */
  pascal_lru_certificate lru;
} pascal_static_result;

/* Cyclic gaps of the distinct phases, in ascending phase order starting at the
 * smallest phase: gaps[i] = y_{i+2} - y_{i+1} (0-based i), the last one wraps.
 * `gaps` must hold at least m entries; *d_out receives D (1 <= D <= m).
 * O(M log M); allocates O(M) sort scratch only when M > 64. */
pascal_status pascal_gaps_from_phases(uint64_t n, const uint64_t *phases, size_t m, uint64_t *gaps,
                                      size_t *d_out, pascal_error *err);

/* U(t) = sum_i min(gaps[i], t) for any order of gaps. Every gap must be >= 1
 * and their sum at most PASCAL_STATIC_N_MAX. O(D). */
pascal_status pascal_footprint_eval(const uint64_t *gaps, size_t d, uint64_t t, uint64_t *u_out,
                                    pascal_error *err);

/* K(t) = #{i : gaps[i] > t}; same validation as pascal_footprint_eval. */
pascal_status pascal_fill_count_eval(const uint64_t *gaps, size_t d, uint64_t t, size_t *k_out,
                                     pascal_error *err);

/* The gap law from gaps (any order; N = their sum): theta, T*, K_TTL, rho and
 * the LRU certificate. `m` is the number of workers (m >= d) used for rho and
 * the trivial upper bound. Requires 1 <= C < N. O(D log D); allocates only
 * when D > 64 (PASCAL_ENOMEM if that fails). */
pascal_status pascal_static_from_gaps(uint64_t c, const uint64_t *gaps, size_t d, size_t m,
                                      pascal_static_result *out, pascal_error *err);

/* The gap law from phases: pascal_gaps_from_phases + pascal_static_from_gaps.
 * O(M log M), independent of N. Allocates only when M > 64. */
pascal_status pascal_static_analyze(uint64_t n, uint64_t c, const uint64_t *phases, size_t m,
                                    pascal_static_result *out, pascal_error *err);

/* Exact steady-state LRU reuse distance of every worker's request: rd[w] is
 * the number of distinct blocks requested strictly between worker w's request
 * in a round and the previous request to the same block (by any worker), in
 * the global trace. Computed by merging the at-most-M cyclic address intervals
 * the other workers sweep in between (no trace). `rd` holds m entries.
 * O(M^2) time after one O(M log M) sort; allocates O(M). */
pascal_status pascal_reuse_distance_compute(uint64_t n, const uint64_t *phases, size_t m,
                                            uint64_t *rd, pascal_error *err);

/* Exact fully associative LRU misses per round in steady state:
 * #{w : rd[w] >= C} (Mattson's stack criterion). Requires 1 <= C < N. */
pascal_status pascal_lru_misses_exact(uint64_t n, uint64_t c, const uint64_t *phases, size_t m,
                                      size_t *misses_per_round, pascal_error *err);

/* The same count from reuse distances already computed (rd, m entries, as
 * pascal_reuse_distance_compute gives them): #{w : rd[w] >= C}. For a
 * caller that needs the distances as well, so that they are computed once. */
size_t pascal_lru_misses_of_distances(const uint64_t *rd, size_t m, uint64_t c);

/* Reuse times of §3.4 in units of 1/M round: tau_units[w] = M * tau_w where
 * tau_w = min_{w'} [g_{w'w} + (w - w')/M], g_{w'w} = (s_{w'} - s_w) mod N and
 * a zero lag counts as N when w' >= w. Sum over w of tau_units = N * M.
 * Requires N * M <= PASCAL_STATIC_N_MAX (PASCAL_ERANGE naming "M" otherwise).
 * Two aligned workers give (2N - 1, 1), i.e. tau = (N - 1/2, 1/2).
 * O(M log M); allocates O(M). */
pascal_status pascal_reuse_time_compute(uint64_t n, const uint64_t *phases, size_t m,
                                        uint64_t *tau_units, pascal_error *err);

/* Theorem 3: for every capacity-C demand-paging policy (Belady included) the
 * long-run misses per round are at least M - Phi(C), Phi the fractional
 * knapsack max sum x_w s.t. 0 <= x_w <= 1, sum tau_w x_w <= C. Over a finite
 * H-round trace from any initial cache, misses / H >= bound - N / H.
 * The bound is exact: bound = whole + frac (0 <= frac < 1). */
typedef struct pascal_policy_bound {
  double phi;           /* Phi(C)                                   */
  double bound;         /* M - Phi(C) as a double                   */
  uint64_t whole;       /* integer part of M - Phi(C)               */
  pascal_rational frac; /* fractional part, exact, reduced          */
} pascal_policy_bound;

/* Requires 1 <= C < N and N * M <= PASCAL_STATIC_N_MAX. O(M log M). */
pascal_status pascal_policy_bound_compute(uint64_t n, uint64_t c, const uint64_t *phases, size_t m,
                                          pascal_policy_bound *out, pascal_error *err);

#ifdef __cplusplus
}
#endif
#endif
