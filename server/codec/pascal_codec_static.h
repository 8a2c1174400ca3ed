/*
 * pascal_codec_static.h - static questions (paper section 3) answered as JSON:
 * the codec computes them with libpascal and encodes the result, so that
 * pascald's /v1/bounds and `pascal bounds` give the same document
 * (keys in docs/cli.md). Included by pascal_codec.h; a file that needs only
 * the static answers may include this header alone.
 *
 * Every function validates its query (errors name "N", "C", "phases[3]",
 * "ways", "sets", "rounds", "sigma", "M", "E", "alpha", "beta", "d",
 * "lambda_hit", "lambda_miss"), returns a pascal_status and, on success, a
 * new JSON object the caller owns (json_decref). No NaN or Inf is emitted.
 */
#ifndef PASCAL_CODEC_STATIC_H
#define PASCAL_CODEC_STATIC_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "json_text.h"
#include "pascal/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Above this many workers the O(M^2) exact LRU reuse distances (lru.exact,
 * sdcm, tilesight, ppt_gpu) are skipped and written as null. */
#define PASCAL_CODEC_EXACT_RD_MAX_M 4096u

typedef struct pascal_codec_bounds_query {
  uint64_t n;             /* N: blocks per scan, >= 1                    */
  uint64_t c;             /* C: capacity in blocks, 1 <= C < N           */
  const uint64_t *phases; /* M phases, each < N (borrowed)               */
  size_t m;               /* M >= 1                                      */
  uint64_t ways, sets;    /* SDCM geometry; both 0 = fully associative,
                             else ways * sets == C                       */
} pascal_codec_bounds_query;

/* {"N","C","M","gaps","D","theta":{"num","den","exact","decimal"},"T_star",
 *  "K_ttl","rho_ttl","lru":{"lower","upper","certified","exact"},
 *  "policy_lower_bound":{"value","exact","whole","frac_num","frac_den","phi"},
 *  "che":{"hit_rate","K"},"sdcm":{"ways","sets","K"},"tilesight":{"K"},
 *  "ppt_gpu":{"published","corrected"}} (tilesight: TileSight's SDCM
 *  arithmetic, PASCAL_HIT_TILESIGHT, with the geometry of "sdcm") */
pascal_status pascal_codec_bounds(const pascal_codec_bounds_query *q, json_t **out,
                                  pascal_error *err);
/* The same document streamed as text into `w` (pascald's fast path): one
 * complete object, written only once every value is computed, so a failure
 * leaves `w` as it was (the writer's own failures excepted, see
 * pascal_jtext_status). */
pascal_status pascal_codec_bounds_write(pascal_jtext *w, const pascal_codec_bounds_query *q,
                                        pascal_error *err);

typedef enum pascal_codec_policy {
  PASCAL_CODEC_POLICY_TTL = 0,
  PASCAL_CODEC_POLICY_LRU = 1,
  PASCAL_CODEC_POLICY_BELADY = 2, /* forced allocation */
  PASCAL_CODEC_POLICY_BELADY_BYPASS = 3
} pascal_codec_policy;

/* "ttl", "lru", "belady", "belady-bypass" -> policy; PASCAL_EINVAL naming
 * "policy" otherwise. */
pascal_status pascal_codec_policy_parse(const char *name, pascal_codec_policy *out,
                                        pascal_error *err);

typedef struct pascal_codec_simulate_query {
  pascal_codec_policy policy;
  uint64_t n, c;
  const uint64_t *phases;
  size_t m;
  uint64_t rounds; /* 0 = default: TTL/LRU count N rounds after
                      the warm-up, Belady runs 16 N rounds from cold;
                      TTL/LRU round it up to whole periods of N    */
} pascal_codec_simulate_query;

/* {"policy","N","C","M","rounds","requests","misses","misses_per_round",
 *  + TTL: "window","occupancy"; + Belady: "horizon_correction" (N / H)} */
pascal_status pascal_codec_simulate(const pascal_codec_simulate_query *q, json_t **out,
                                    pascal_error *err);

/* {"sigma","C","M","E","min_capacity","preserves","miss_bound","rate_bound"} */
pascal_status pascal_codec_coherence(uint64_t sigma, uint64_t c, uint64_t m, uint64_t e,
                                     json_t **out, pascal_error *err);

/* {"alpha","beta","d","lambda_hit","lambda_miss","cadence_hit",
 *  "cadence_miss","overlap","gain"} */
pascal_status pascal_codec_feedback(double alpha, double beta, uint32_t d, double lambda_hit,
                                    double lambda_miss, json_t **out, pascal_error *err);

#ifdef __cplusplus
}
#endif
#endif
