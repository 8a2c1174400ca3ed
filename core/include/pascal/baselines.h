/*
 * pascal/baselines.h - the cache models PASCAL is compared with (paper §2.1,
 * §5.2-5.4): Che's approximation (IRM), SDCM with ways and sets, PPT-GPU's
 * normal approximation of SDCM, and the aligned K = 1 reference.
 *
 * What each baseline assumes:
 *  - Aligned (uniform advance, TileSight-style): all resident workers advance
 *    in lockstep, so every distinct block is filled once per pass: K = 1 for a
 *    scan, K = K_0 (kappa = 1) for GEMM. Ignores capacity and divergence.
 *  - Che (IRM): requests are independent draws with fixed per-item rates q_i;
 *    an item stays cached for the characteristic time T_C solving
 *    sum_i (1 - exp(-q_i T_C)) = C, so h_i = 1 - exp(-q_i T_C). It sees only
 *    frequencies, never order: for a scan (uniform rates over N blocks) the
 *    hit rate is C/N and every worker's request misses independently, so
 *    K = M (1 - C/N) per round.
 *  - SDCM (Brehob & Enbody): a reuse with LRU stack distance r hits when fewer
 *    than A of the r intervening distinct lines map to its set, each line
 *    landing in one of S sets uniformly and independently:
 *    P(hit | r) = sum_{i<A} binom(r, i) (1/S)^i (1 - 1/S)^(r - i), evaluated
 *    exactly (no approximation). With S = 1 (A = C) it is exact fully
 *    associative LRU: hit iff r < C ("SDCM-FA").
 *  - PPT-GPU: the same binomial replaced by a normal with mean mu = r/S and
 *    variance mu (1 - 1/S). As published: P(hit | r) = Phi(|A - 1 - mu| /
 *    sigma), which is >= 1/2 for every r, so very long reuses are still
 *    predicted to hit at least half the time (the large-distance defect).
 *    Corrected: P(hit | r) = Phi((A - 1/2 - mu) / sigma) (no absolute value,
 *    continuity correction), which tends to 0 as r grows. Both give 1 for
 *    r = 0. With S = 1 (sigma = 0) the published form's limit is 1 and the
 *    corrected form's limit is the exact rule r < A.
 *  - TileSight: the SDCM arithmetic of TileSight's own code, which mixes the
 *    two: with p = 1/S, P(hit | r) = 1 for r <= A - 1; the exact binomial
 *    P(X <= A - 1), X ~ Binomial(r, p), for r <= 8; 0 for r >= 10^8; and
 *    otherwise the normal approximation with continuity correction
 *    Phi((A - 1/2 - r p) / sqrt(r p (1 - p))), where Phi is evaluated with
 *    the Zelen-Severo polynomial (Abramowitz & Stegun 26.2.16, |error| <
 *    1e-5) as TileSight does. With S = 1 (sigma = 0) it is the limit r < A.
 *  Cold (first) references miss in every model (PASCAL_RD_COLD).
 *
 * Callers: `pascal bounds` (SDCM-FA or SDCM with ways/sets on the exact
 * symbolic reuse distances of pascal_reuse_distance_compute; Che for a
 * uniform-rate scan) and the dynamic evaluator (pascal_baseline_scan_k,
 * pascal_baseline_gemm_k on held-out runs). Errors follow pascal/error.h and
 * name the argument ("ways", "sets", "rates[2]", "N", "W", "M", "n_r", ...).
 */
#ifndef PASCAL_BASELINES_H
#define PASCAL_BASELINES_H

#include <stddef.h>
#include <stdint.h>

#include "pascal/error.h"
#include "pascal/simulate.h" /* PASCAL_RD_COLD */

#ifdef __cplusplus
extern "C" {
#endif

typedef enum pascal_hit_model {
  PASCAL_HIT_SDCM = 0,          /* exact binomial                           */
  PASCAL_HIT_PPT_PUBLISHED = 1, /* PPT-GPU normal approximation, as published */
  PASCAL_HIT_PPT_CORRECTED = 2, /* same, large-distance defect corrected     */
  PASCAL_HIT_TILESIGHT = 3      /* TileSight's mixed exact/normal arithmetic  */
} pascal_hit_model;

/* Set-associative geometry: ways A >= 1, sets S >= 1, capacity A * S lines
 * (A * S must not overflow; A <= PASCAL_SDCM_WAYS_MAX when S > 1, which
 * bounds the binomial sum). Fully associative capacity C is {C, 1}. */
#define PASCAL_SDCM_WAYS_MAX (UINT64_C(1) << 24)
typedef struct pascal_cache_geometry {
  uint64_t ways;
  uint64_t sets;
} pascal_cache_geometry;

/* P(hit | reuse distance rd) under `model`; rd == PASCAL_RD_COLD gives 0. */
pascal_status pascal_hit_probability(pascal_hit_model model, uint64_t rd,
                                     const pascal_cache_geometry *geometry, double *p_hit,
                                     pascal_error *err);

/* Expected misses over a reuse-distance profile: sum_i (1 - P(hit | rd[i])).
 * With rd = pascal_reuse_distance_compute's per-worker distances this is the
 * model's misses per round (SDCM-FA: exact LRU). */
pascal_status pascal_expected_misses(pascal_hit_model model, const uint64_t *rd, size_t count,
                                     const pascal_cache_geometry *geometry, double *misses,
                                     pascal_error *err);

/* Che's approximation for general rates (rates[i] >= 0, finite, at least one
 * positive; only their ratios matter) and capacity c > 0 (a real number of
 * items). t_c: the characteristic time in units of 1 / sum(rates); it is
 * +infinity and the hit rate 1 when c >= the number of positive rates.
 * hit_rate = sum_i q_i (1 - exp(-q_i T_C)) / sum_i q_i. Solved by bisection
 * to relative 1e-12 (the left side is increasing in T_C). O(n) per step. */
pascal_status pascal_che_characteristic_time(const double *rates, size_t n, double c, double *t_c,
                                             double *hit_rate, pascal_error *err);

/* Che for a cyclic scan of N blocks (uniform rates): hit rate min(C, N) / N.
 * N >= 1, C >= 1 (C >= N allowed: everything fits). */
pascal_status pascal_che_scan(uint64_t n, uint64_t c, double *hit_rate, pascal_error *err);

/* Each baseline's predicted fill-equivalent K (fills per round, or per
 * GEMM normalised round: see pascal_baseline_gemm_k). */
typedef struct pascal_baseline_k {
  double aligned;
  double che;
  double sdcm;
  double ppt_published;
  double ppt_corrected;
  double tilesight; /* TileSight's SDCM arithmetic (PASCAL_HIT_TILESIGHT) */
} pascal_baseline_k;

/* Baselines for fixed phases (`pascal bounds`), misses per round in steady
 * state: aligned 1; Che M (1 - C/N) (uniform scan rates, hit rate C/N);
 * SDCM, TileSight and both PPT-GPU forms on the exact symbolic reuse distances of
 * pascal_reuse_distance_compute, with geometry ways x sets, or fully
 * associative {C, 1} when both are 0 (then SDCM is exact LRU: SDCM-FA).
 * Same domain as pascal/static.h (1 <= C < N). O(M^2); allocates O(M). */
pascal_status pascal_baseline_static_k(uint64_t n, uint64_t c, const uint64_t *phases, size_t m,
                                       uint64_t ways, uint64_t sets, pascal_baseline_k *out,
                                       pascal_error *err);

/* A scan run: W >= 1 passes of N >= 1 blocks by M >= 1 workers, capacity
 * C >= 1 blocks (C >= N allowed), optional geometry ways x sets (both 0:
 * fully associative {C, 1}; else both >= 1 and SDCM/PPT use them). */
typedef struct pascal_baseline_scan {
  uint64_t n;
  uint64_t w;
  size_t m;
  uint64_t c;
  uint64_t ways;
  uint64_t sets;
} pascal_baseline_scan;

/* Baselines for a scan under the uniform-advance (aligned) reuse profile:
 * per round, worker 0's request has reuse distance N - 1 and the other M - 1
 * requests distance 0; the first pass is cold (one fill per block).
 * `steady` (optional): misses per round in steady state;
 * `whole_run` (optional): fills over the W passes / (W N), the fill-equivalent
 * K a measured run reports (first pass included). */
pascal_status pascal_baseline_scan_k(const pascal_baseline_scan *run, pascal_baseline_k *steady,
                                     pascal_baseline_k *whole_run, pascal_error *err);

/* A GEMM run with 128x128x64 tiles: tile counts n_r, n_c, n_k >= 1, M >= 1
 * resident CTAs, capacity C >= 1 in 16 KiB tiles, optional ways x sets as for
 * scans. 2 n_r n_c n_k must not exceed PASCAL_GEMM_REQUESTS_MAX. */
#define PASCAL_GEMM_REQUESTS_MAX (UINT64_C(1) << 24)
typedef struct pascal_baseline_gemm {
  uint64_t n_r;
  uint64_t n_c;
  uint64_t n_k;
  size_t m;
  uint64_t c;
  uint64_t ways;
  uint64_t sets;
} pascal_baseline_gemm;

/* Baselines for a GEMM under uniform advance: CTAs (i, j) are launched in
 * row-major raster order (id = i n_c + j) in waves of M; the CTAs of a wave
 * advance in lockstep over k and, at step k, each requests A(i, k) then
 * B(k, j) in id order. Reuse distances of this trace are exact (stack
 * distances); Che uses its request rates (A tiles n_c, B tiles n_r requests).
 * K is in the paper's GEMM units (App. C): K = fills * 16384 / (32768 H) with
 * H = n_r n_c n_k / M, so that `aligned` = K_0 = M (n_r + n_c) / (2 n_r n_c).
 * *k0 (optional) receives K_0. Allocates O(n_r n_c n_k). */
pascal_status pascal_baseline_gemm_k(const pascal_baseline_gemm *run, pascal_baseline_k *out,
                                     double *k0, pascal_error *err);

#ifdef __cplusplus
}
#endif
#endif
