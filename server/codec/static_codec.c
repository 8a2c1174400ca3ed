/*
 * static_codec.c - the static answers of paper section 3 as JSON: gap law
 * (Eq. waterfill, Theorem 1), LRU certificate and exact LRU (Theorem 2),
 * policy bound (Theorem 3, Eq. policy), Che, exact SDCM, TileSight's SDCM
 * arithmetic and PPT-GPU baselines,
 * reference simulators, coherence (Theorem 4) and feedback (Theorem 5).
 * Computation is libpascal's; this file validates what the core does not
 * (geometry, simulation size) and encodes.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_util.h"
#include "pascal/baselines.h"
#include "pascal/coherence.h"
#include "pascal/feedback.h"
#include "pascal/simulate.h"
#include "pascal/static.h"
#include "pascal_codec_static.h"

/* Most requests a simulation may run (warm-up included), so that one query
 * stays within seconds. */
#define SIM_REQUESTS_MAX (UINT64_C(1) << 30)

/* The decimal integers v[0..n) joined by seps[0..n-1) ("a/b", "a+b/c"),
 * NUL-terminated: at most 21 bytes per integer, without printf. */
static void join_decimals(char *out, const uint64_t *v, const char *seps, size_t n)
{
  for (size_t i = 0; i < n; i++) {
    out += pascal_json_uint_digits(v[i], out);
    if (i + 1 < n)
      *out++ = seps[i];
  }
  *out = '\0';
}

/* "num/den" for a reduced rational. */
static void put_rational(pascal_jtext *w, const char *key, uint64_t num, uint64_t den)
{
  char buf[64];
  join_decimals(buf, (const uint64_t[]){num, den}, "/", 2);
  pascal_jtext_string(w, key, buf);
}

static void put_theta(pascal_jtext *w, const pascal_static_result *r)
{
  PASCAL_JTEXT_OBJECT(w, "theta");
  PASCAL_JTEXT_UINT(w, "num", r->theta.num);
  PASCAL_JTEXT_UINT(w, "den", r->theta.den);
  put_rational(w, "exact", r->theta.num, r->theta.den);
  PASCAL_JTEXT_REAL(w, "decimal", r->theta_value);
  pascal_jtext_object_end(w);
}

static void put_policy_bound(pascal_jtext *w, const pascal_policy_bound *b)
{
  uint64_t whole_num;
  char exact[96];
  /* exact = (whole * den + num) / den, or "whole+num/den" if that overflows */
  if (!__builtin_mul_overflow(b->whole, b->frac.den, &whole_num) &&
      !__builtin_add_overflow(whole_num, b->frac.num, &whole_num))
    join_decimals(exact, (const uint64_t[]){whole_num, b->frac.den}, "/", 2);
  else
    join_decimals(exact, (const uint64_t[]){b->whole, b->frac.num, b->frac.den}, "+/", 3);
  PASCAL_JTEXT_OBJECT(w, "policy_lower_bound");
  PASCAL_JTEXT_REAL(w, "value", b->bound);
  PASCAL_JTEXT_STRING(w, "exact", exact);
  PASCAL_JTEXT_UINT(w, "whole", b->whole);
  PASCAL_JTEXT_UINT(w, "frac_num", b->frac.num);
  PASCAL_JTEXT_UINT(w, "frac_den", b->frac.den);
  PASCAL_JTEXT_REAL(w, "phi", b->phi);
  pascal_jtext_object_end(w);
}

/* Exact LRU, SDCM, TileSight and PPT-GPU all rest on the exact reuse
 * distances; all skipped (written as null) above PASCAL_CODEC_EXACT_RD_MAX_M
 * workers. */
typedef struct reuse_models {
  int known;
  size_t lru_exact;
  double sdcm_k, tilesight_k, ppt_published, ppt_corrected;
} reuse_models;

static pascal_status reuse_models_compute(const pascal_codec_bounds_query *q,
                                          const pascal_cache_geometry *geo, reuse_models *out,
                                          pascal_error *err)
{
  out->known = q->m <= PASCAL_CODEC_EXACT_RD_MAX_M;
  if (!out->known)
    return PASCAL_OK;
  uint64_t *rd = malloc(q->m * sizeof *rd);
  if (!rd)
    return pascal_error_set(err, PASCAL_ENOMEM, "phases", "out of memory");
  /* the distances once, for exact LRU and the three models (the model's
   * domain is checked already, by pascal_static_analyze) */
  pascal_status st = pascal_reuse_distance_compute(q->n, q->phases, q->m, rd, err);
  if (st)
    goto done;
  out->lru_exact = pascal_lru_misses_of_distances(rd, q->m, q->c);
  if (!(st = pascal_expected_misses(PASCAL_HIT_SDCM, rd, q->m, geo, &out->sdcm_k, err)) &&
      !(st = pascal_expected_misses(PASCAL_HIT_TILESIGHT, rd, q->m, geo, &out->tilesight_k, err)) &&
      !(st = pascal_expected_misses(PASCAL_HIT_PPT_PUBLISHED, rd, q->m, geo, &out->ppt_published,
                                    err)))
    st = pascal_expected_misses(PASCAL_HIT_PPT_CORRECTED, rd, q->m, geo, &out->ppt_corrected, err);
done:
  free(rd);
  return st;
}

static void put_lru(pascal_jtext *w, const pascal_static_result *r, const reuse_models *rm)
{
  PASCAL_JTEXT_OBJECT(w, "lru");
  PASCAL_JTEXT_UINT(w, "lower", r->lru.lower);
  PASCAL_JTEXT_UINT(w, "upper", r->lru.upper);
  PASCAL_JTEXT_BOOL(w, "certified", r->lru.certified);
  if (rm->known)
    PASCAL_JTEXT_UINT(w, "exact", rm->lru_exact);
  else
    PASCAL_JTEXT_NULL(w, "exact");
  pascal_jtext_object_end(w);
}

static void put_reuse_models(pascal_jtext *w, const pascal_cache_geometry *geo,
                             const reuse_models *rm)
{
  PASCAL_JTEXT_OBJECT(w, "sdcm");
  PASCAL_JTEXT_UINT(w, "ways", geo->ways);
  PASCAL_JTEXT_UINT(w, "sets", geo->sets);
  if (rm->known)
    PASCAL_JTEXT_REAL(w, "K", rm->sdcm_k);
  else
    PASCAL_JTEXT_NULL(w, "K");
  pascal_jtext_object_end(w);
  PASCAL_JTEXT_OBJECT(w, "tilesight"); /* same geometry as "sdcm" */
  if (rm->known)
    PASCAL_JTEXT_REAL(w, "K", rm->tilesight_k);
  else
    PASCAL_JTEXT_NULL(w, "K");
  pascal_jtext_object_end(w);
  PASCAL_JTEXT_OBJECT(w, "ppt_gpu");
  if (rm->known) {
    PASCAL_JTEXT_REAL(w, "published", rm->ppt_published);
    PASCAL_JTEXT_REAL(w, "corrected", rm->ppt_corrected);
  } else {
    PASCAL_JTEXT_NULL(w, "published");
    PASCAL_JTEXT_NULL(w, "corrected");
  }
  pascal_jtext_object_end(w);
}

static pascal_status check_geometry(const pascal_codec_bounds_query *q, pascal_error *err)
{
  if (!q->ways && !q->sets)
    return PASCAL_OK;
  if (!q->ways || !q->sets)
    return pascal_error_set(err, PASCAL_EINVAL, q->ways ? "sets" : "ways",
                            "give both ways and sets (each >= 1), or neither");
  uint64_t lines;
  if (__builtin_mul_overflow(q->ways, q->sets, &lines) || lines != q->c)
    return pascal_error_set(err, PASCAL_EINVAL, "ways",
                            "ways x sets must equal the capacity C = %" PRIu64, q->c);
  return PASCAL_OK;
}

pascal_status pascal_codec_bounds_write(pascal_jtext *w, const pascal_codec_bounds_query *q,
                                        pascal_error *err)
{
  pascal_static_result r;
  pascal_policy_bound pb;
  reuse_models rm;
  double che_hit;
  pascal_status st;
  if (q->m == 0)
    return pascal_error_set(err, PASCAL_EINVAL, "phases", "at least one phase is needed");
  pascal_cache_geometry geo = {q->ways ? q->ways : q->c, q->sets ? q->sets : 1};
  if ((st = check_geometry(q, err)) ||
      (st = pascal_static_analyze(q->n, q->c, q->phases, q->m, &r, err)) ||
      (st = pascal_policy_bound_compute(q->n, q->c, q->phases, q->m, &pb, err)) ||
      (st = pascal_che_scan(q->n, q->c, &che_hit, err)) ||
      (st = reuse_models_compute(q, &geo, &rm, err)))
    return st;
  uint64_t *gaps = malloc(q->m * sizeof *gaps);
  if (!gaps)
    return pascal_error_set(err, PASCAL_ENOMEM, "phases", "out of memory");
  size_t d;
  if ((st = pascal_gaps_from_phases(q->n, q->phases, q->m, gaps, &d, err)))
    goto done;
  pascal_jtext_object_begin(w, NULL);
  PASCAL_JTEXT_UINT(w, "N", q->n);
  PASCAL_JTEXT_UINT(w, "C", q->c);
  PASCAL_JTEXT_UINT(w, "M", q->m);
  PASCAL_JTEXT_ARRAY(w, "gaps");
  for (size_t i = 0; i < d; i++)
    pascal_jtext_uint(w, NULL, gaps[i]);
  pascal_jtext_array_end(w);
  PASCAL_JTEXT_UINT(w, "D", r.d);
  put_theta(w, &r);
  PASCAL_JTEXT_UINT(w, "T_star", r.t_star);
  PASCAL_JTEXT_UINT(w, "K_ttl", r.k_ttl);
  PASCAL_JTEXT_REAL(w, "rho_ttl", r.rho_ttl);
  put_lru(w, &r, &rm);
  put_policy_bound(w, &pb);
  PASCAL_JTEXT_OBJECT(w, "che");
  PASCAL_JTEXT_REAL(w, "hit_rate", che_hit);
  PASCAL_JTEXT_REAL(w, "K", (double)q->m * (1.0 - che_hit));
  pascal_jtext_object_end(w);
  put_reuse_models(w, &geo, &rm);
  pascal_jtext_object_end(w);
  st = pascal_jtext_status(w, err);
done:
  free(gaps);
  return st;
}

pascal_status pascal_codec_bounds(const pascal_codec_bounds_query *q, json_t **out,
                                  pascal_error *err)
{
  pascal_jtext w;
  pascal_jtext_init(&w, 1024);
  pascal_status st = pascal_codec_bounds_write(&w, q, err);
  if (st == PASCAL_OK)
    st = codec_text_to_tree(&w, out, err);
  pascal_jtext_free(&w);
  return st;
}

static const char *const policy_names[] = {"ttl", "lru", "belady", "belady-bypass"};

pascal_status pascal_codec_policy_parse(const char *name, pascal_codec_policy *out,
                                        pascal_error *err)
{
  for (size_t i = 0; i < sizeof policy_names / sizeof *policy_names; i++)
    if (name && strcmp(name, policy_names[i]) == 0) {
      *out = (pascal_codec_policy)i;
      return PASCAL_OK;
    }
  return pascal_error_set(err, PASCAL_EINVAL, "policy",
                          "policy must be ttl, lru, belady or belady-bypass");
}

/* Rounds to simulate and how much work that is, refused above
 * SIM_REQUESTS_MAX. TTL's window search repeats the simulation about
 * log2(N) times; that factor is included. */
static pascal_status sim_plan(const pascal_codec_simulate_query *q, uint64_t *periods,
                              uint64_t *rounds, pascal_error *err)
{
  int belady = q->policy >= PASCAL_CODEC_POLICY_BELADY;
  uint64_t h = q->rounds;
  if (!h && __builtin_mul_overflow(q->n, belady ? 16 : 1, &h))
    return pascal_error_set(err, PASCAL_EINVAL, "N", "N is too large to simulate");
  uint64_t p = h / q->n + (h % q->n != 0), total;
  uint64_t run = belady ? h : (p + PASCAL_SIM_WARMUP_PERIODS) * q->n;
  unsigned repeats = 1;
  if (q->policy == PASCAL_CODEC_POLICY_TTL)
    for (uint64_t x = q->n; x; x >>= 1)
      repeats++;
  if (__builtin_mul_overflow(run, (uint64_t)q->m, &total) ||
      __builtin_mul_overflow(total, (uint64_t)repeats, &total) || total > SIM_REQUESTS_MAX)
    return pascal_error_set(err, PASCAL_EINVAL, q->rounds ? "rounds" : "N",
                            "the simulation would exceed %" PRIu64 " requests", SIM_REQUESTS_MAX);
  *periods = p;
  *rounds = h;
  return PASCAL_OK;
}

static pascal_status run_simulation(const pascal_codec_simulate_query *q, uint64_t periods,
                                    uint64_t rounds, pascal_sim_ttl_result *out, pascal_error *err)
{
  memset(out, 0, sizeof *out);
  switch (q->policy) {
  case PASCAL_CODEC_POLICY_TTL:
    return pascal_sim_ttl_phases(q->n, q->c, q->phases, q->m, periods, out, err);
  case PASCAL_CODEC_POLICY_LRU:
    return pascal_sim_lru_phases(q->n, q->c, q->phases, q->m, periods, &out->sim, err);
  case PASCAL_CODEC_POLICY_BELADY:
  case PASCAL_CODEC_POLICY_BELADY_BYPASS: break;
  }
  pascal_belady_variant v =
      q->policy == PASCAL_CODEC_POLICY_BELADY ? PASCAL_BELADY_FORCED : PASCAL_BELADY_BYPASS;
  return pascal_sim_belady_phases(q->n, q->c, q->phases, q->m, v, rounds, &out->sim, err);
}

pascal_status pascal_codec_simulate(const pascal_codec_simulate_query *q, json_t **out,
                                    pascal_error *err)
{
  pascal_sim_ttl_result r;
  uint64_t periods = 0, rounds = 0;
  pascal_status st;
  if (q->m == 0)
    return pascal_error_set(err, PASCAL_EINVAL, "phases", "at least one phase is needed");
  if ((unsigned)q->policy > PASCAL_CODEC_POLICY_BELADY_BYPASS)
    return pascal_error_set(err, PASCAL_EINVAL, "policy", "unknown policy");
  if (q->n < 1)
    return pascal_error_set(err, PASCAL_EINVAL, "N", "N must be at least 1");
  if ((st = sim_plan(q, &periods, &rounds, err)) ||
      (st = run_simulation(q, periods, rounds, &r, err)))
    return st;
  json_t *obj = json_object();
  if ((st = codec_set(obj, "policy", json_string(policy_names[q->policy]), err)) ||
      (st = codec_set(obj, "N", codec_uint(q->n), err)) ||
      (st = codec_set(obj, "C", codec_uint(q->c), err)) ||
      (st = codec_set(obj, "M", codec_uint(q->m), err)) ||
      (st = codec_set(obj, "rounds", codec_uint(r.sim.rounds), err)) ||
      (st = codec_set(obj, "requests", codec_uint(r.sim.requests), err)) ||
      (st = codec_set(obj, "misses", codec_uint(r.sim.misses), err)) ||
      (st = codec_set(obj, "misses_per_round", codec_real(r.sim.misses_per_round), err)))
    goto fail;
  if (q->policy == PASCAL_CODEC_POLICY_TTL &&
      ((st = codec_set(obj, "window", codec_uint(r.window), err)) ||
       (st = codec_set(obj, "occupancy", codec_uint(r.occupancy), err))))
    goto fail;
  if (q->policy >= PASCAL_CODEC_POLICY_BELADY &&
      (st = codec_set(obj, "horizon_correction", codec_real((double)q->n / (double)r.sim.rounds),
                      err)))
    goto fail;
  *out = obj;
  return PASCAL_OK;
fail:
  json_decref(obj);
  return st;
}

pascal_status pascal_codec_coherence(uint64_t sigma, uint64_t c, uint64_t m, uint64_t e,
                                     json_t **out, pascal_error *err)
{
  pascal_coherence_result r;
  pascal_status st;
  if (m > SIZE_MAX)
    return pascal_error_set(err, PASCAL_EINVAL, "M", "M is too large");
  if ((st = pascal_coherence_check(sigma, c, (size_t)m, e, &r, err)))
    return st;
  json_t *obj = json_object();
  if ((st = codec_set(obj, "sigma", codec_uint(r.sigma), err)) ||
      (st = codec_set(obj, "C", codec_uint(c), err)) ||
      (st = codec_set(obj, "M", codec_uint(m), err)) ||
      (st = codec_set(obj, "E", codec_uint(e), err)) ||
      (st = codec_set(obj, "min_capacity", codec_uint(r.min_capacity), err)) ||
      (st = codec_set(obj, "preserves", json_boolean(r.preserves), err)) ||
      (st = codec_set(obj, "miss_bound", codec_uint(r.miss_bound), err)) ||
      (st = codec_set(obj, "rate_bound", codec_real(r.rate_bound), err))) {
    json_decref(obj);
    return st;
  }
  *out = obj;
  return PASCAL_OK;
}

pascal_status pascal_codec_feedback(double alpha, double beta, uint32_t d, double lambda_hit,
                                    double lambda_miss, json_t **out, pascal_error *err)
{
  pascal_feedback_params p = {alpha, beta, d};
  pascal_feedback_summary s;
  pascal_status st = pascal_feedback_summarize(&p, lambda_hit, lambda_miss, &s, err);
  if (st)
    return st;
  json_t *obj = json_object();
  if ((st = codec_set(obj, "alpha", codec_real(alpha), err)) ||
      (st = codec_set(obj, "beta", codec_real(beta), err)) ||
      (st = codec_set(obj, "d", codec_uint(d), err)) ||
      (st = codec_set(obj, "lambda_hit", codec_real(lambda_hit), err)) ||
      (st = codec_set(obj, "lambda_miss", codec_real(lambda_miss), err)) ||
      (st = codec_set(obj, "cadence_hit", codec_real(s.cadence_hit), err)) ||
      (st = codec_set(obj, "cadence_miss", codec_real(s.cadence_miss), err)) ||
      (st = codec_set(obj, "overlap", codec_real(s.overlap), err)) ||
      (st = codec_set(obj, "gain", codec_real(s.gain), err))) {
    json_decref(obj);
    return st;
  }
  *out = obj;
  return PASCAL_OK;
}
