/*
 * baselines_runs.c - each baseline's predicted K for one configuration:
 * fixed phases (`pascal bounds`, paper §5.2: SDCM-FA on the exact symbolic
 * reuse profile, Che at hit rate C/N), and the runs the dynamic evaluator
 * scores (paper §5.4): a scan of N blocks by M workers and a 128x128x64 GEMM,
 * both under the uniform-advance (aligned) reuse profile that
 * TileSight-style models assume. GEMM units follow appendix C (b = 32768,
 * H = n_r n_c n_k / M).
 *
 * In every model the first reference to a block is a cold miss; every other
 * request misses with the model's probability (SDCM/PPT from its reuse
 * distance, Che from the IRM hit rate).
 */
#include "pascal/baselines.h"

#include <stdlib.h>

#include "gemm_distances.h"

#include "pascal/simulate.h"
#include "pascal/static.h"

/* Geometry of a run: both 0 -> fully associative {C, 1}, else both >= 1. */
static pascal_status run_geometry(uint64_t c, uint64_t ways, uint64_t sets,
                                  pascal_cache_geometry *g, pascal_error *err)
{
  if (c < 1)
    return pascal_error_set(err, PASCAL_EINVAL, "C", "C must be at least 1");
  if (ways == 0 && sets == 0) {
    g->ways = c;
    g->sets = 1;
    return PASCAL_OK;
  }
  if (ways == 0 || sets == 0)
    return pascal_error_set(err, PASCAL_EINVAL, ways == 0 ? "ways" : "sets",
                            "give both ways and sets, or neither");
  g->ways = ways; /* the hit-probability calls validate the geometry */
  g->sets = sets;
  return PASCAL_OK;
}

/* SDCM, PPT-GPU as published, PPT-GPU corrected, TileSight: the order of
 * leader_miss[] and fills[] below. */
#define REUSE_MODELS 4
static const pascal_hit_model reuse_models[REUSE_MODELS] = {
    PASCAL_HIT_SDCM, PASCAL_HIT_PPT_PUBLISHED, PASCAL_HIT_PPT_CORRECTED, PASCAL_HIT_TILESIGHT};

pascal_status pascal_baseline_static_k(uint64_t n, uint64_t c, const uint64_t *phases, size_t m,
                                       uint64_t ways, uint64_t sets, pascal_baseline_k *out,
                                       pascal_error *err)
{
  if (n < 1)
    return pascal_error_set(err, PASCAL_EINVAL, "N", "N must be at least 1");
  pascal_cache_geometry g;
  pascal_status st = run_geometry(c, ways, sets, &g, err);
  if (st != PASCAL_OK)
    return st;
  if (c >= n)
    return pascal_error_set(err, PASCAL_EINVAL, "C", "C must be below N (%llu)",
                            (unsigned long long)n);
  if (!out)
    return pascal_error_set(err, PASCAL_EINVAL, "out", "output pointer is NULL");
  if (m == 0)
    return pascal_error_set(err, PASCAL_EINVAL, "M", "at least one worker phase is needed");
  uint64_t *rd = malloc(m * sizeof *rd);
  if (!rd)
    return pascal_error_set(err, PASCAL_ENOMEM, "M", "cannot allocate %zu reuse distances", m);
  double misses[REUSE_MODELS], h_che = 0.0;
  st = pascal_reuse_distance_compute(n, phases, m, rd, err);
  for (int i = 0; i < REUSE_MODELS && st == PASCAL_OK; i++)
    st = pascal_expected_misses(reuse_models[i], rd, m, &g, &misses[i], err);
  if (st == PASCAL_OK)
    st = pascal_che_scan(n, c, &h_che, err);
  free(rd);
  if (st != PASCAL_OK)
    return st;
  out->aligned = 1.0;
  out->che = (double)m * (1.0 - h_che);
  out->sdcm = misses[0];
  out->ppt_published = misses[1];
  out->ppt_corrected = misses[2];
  out->tilesight = misses[3];
  return PASCAL_OK;
}

pascal_status pascal_baseline_scan_k(const pascal_baseline_scan *run, pascal_baseline_k *steady,
                                     pascal_baseline_k *whole_run, pascal_error *err)
{
  if (!run)
    return pascal_error_set(err, PASCAL_EINVAL, "run", "run is NULL");
  if (run->n < 1)
    return pascal_error_set(err, PASCAL_EINVAL, "N", "N must be at least 1");
  if (run->w < 1)
    return pascal_error_set(err, PASCAL_EINVAL, "W", "W must be at least 1");
  if (run->m < 1)
    return pascal_error_set(err, PASCAL_EINVAL, "M", "M must be at least 1");
  pascal_cache_geometry g;
  pascal_status st = run_geometry(run->c, run->ways, run->sets, &g, err);
  if (st != PASCAL_OK)
    return st;
  double h_che;
  st = pascal_che_scan(run->n, run->c, &h_che, err);
  if (st != PASCAL_OK)
    return st;
  double m = (double)run->m, w = (double)run->w;
  /* per round: one request at distance N - 1, M - 1 at distance 0 (hit) */
  double leader_miss[REUSE_MODELS];
  for (int i = 0; i < REUSE_MODELS; i++) {
    double p;
    st = pascal_hit_probability(reuse_models[i], run->n - 1, &g, &p, err);
    if (st != PASCAL_OK)
      return st;
    leader_miss[i] = 1.0 - p;
  }
  if (steady) {
    steady->aligned = 1.0;
    steady->che = m * (1.0 - h_che);
    steady->sdcm = leader_miss[0];
    steady->ppt_published = leader_miss[1];
    steady->ppt_corrected = leader_miss[2];
    steady->tilesight = leader_miss[3];
  }
  if (whole_run) { /* fills / (W N): a cold first pass, then W - 1 passes */
    whole_run->aligned = 1.0;
    whole_run->che = 1.0 / w + (m - 1.0 / w) * (1.0 - h_che);
    whole_run->sdcm = (1.0 + (w - 1.0) * leader_miss[0]) / w;
    whole_run->ppt_published = (1.0 + (w - 1.0) * leader_miss[1]) / w;
    whole_run->ppt_corrected = (1.0 + (w - 1.0) * leader_miss[2]) / w;
    whole_run->tilesight = (1.0 + (w - 1.0) * leader_miss[3]) / w;
  }
  return PASCAL_OK;
}

static pascal_status check_gemm(const pascal_baseline_gemm *run, uint64_t *requests,
                                pascal_error *err)
{
  if (!run)
    return pascal_error_set(err, PASCAL_EINVAL, "run", "run is NULL");
  if (run->n_r < 1 || run->n_c < 1 || run->n_k < 1)
    return pascal_error_set(err, PASCAL_EINVAL,
                            run->n_r < 1   ? "n_r"
                            : run->n_c < 1 ? "n_c"
                                           : "n_k",
                            "tile counts must be at least 1");
  if (run->m < 1)
    return pascal_error_set(err, PASCAL_EINVAL, "M", "M must be at least 1");
  uint64_t limit = PASCAL_GEMM_REQUESTS_MAX / 2;
  if (run->n_r > limit || run->n_c > limit / run->n_r || run->n_k > limit / (run->n_r * run->n_c))
    return pascal_error_set(err, PASCAL_ERANGE, "n_k", "2 n_r n_c n_k exceeds %llu requests",
                            (unsigned long long)PASCAL_GEMM_REQUESTS_MAX);
  *requests = 2 * run->n_r * run->n_c * run->n_k;
  return PASCAL_OK;
}

/* Che on the GEMM's request rates (A tiles n_c each, B tiles n_r each). */
static pascal_status gemm_che_hit(const pascal_baseline_gemm *run, uint64_t tiles, double *hit,
                                  pascal_error *err)
{
  double *rates = malloc(tiles * sizeof *rates);
  if (!rates)
    return pascal_error_set(err, PASCAL_ENOMEM, "n_k", "cannot allocate rates");
  uint64_t a_tiles = run->n_r * run->n_k;
  for (uint64_t i = 0; i < tiles; i++)
    rates[i] = (double)(i < a_tiles ? run->n_c : run->n_r);
  double t_c;
  pascal_status st = pascal_che_characteristic_time(rates, tiles, (double)run->c, &t_c, hit, err);
  free(rates);
  return st;
}

/* The expected misses of each reuse model (fills[], in reuse_models order)
 * from the count of references per reuse distance (count[universe]: the
 * cold ones), every distinct distance evaluated once, in increasing order
 * with the cold references last: a GEMM trace has up to millions of reuses
 * but few distinct distances, and each hit probability costs a binomial
 * sum. */
static pascal_status misses_of_counts(const uint64_t *count, uint64_t universe,
                                      const pascal_cache_geometry *g, double fills[REUSE_MODELS],
                                      pascal_error *err)
{
  for (int k = 0; k < REUSE_MODELS; k++)
    fills[k] = 0.0;
  pascal_status st = PASCAL_OK;
  for (uint64_t d = 0; d <= universe && st == PASCAL_OK; d++) {
    if (count[d] == 0)
      continue;
    for (int k = 0; k < REUSE_MODELS && st == PASCAL_OK; k++) {
      double p_hit;
      st = pascal_hit_probability(reuse_models[k], d == universe ? PASCAL_RD_COLD : d, g, &p_hit,
                                  err);
      fills[k] += (double)count[d] * (1.0 - p_hit);
    }
  }
  return st;
}

pascal_status pascal_baseline_gemm_k(const pascal_baseline_gemm *run, pascal_baseline_k *out,
                                     double *k0, pascal_error *err)
{
  uint64_t requests = 0;
  pascal_status st = check_gemm(run, &requests, err);
  pascal_cache_geometry g;
  if (st == PASCAL_OK)
    st = run_geometry(run->c, run->ways, run->sets, &g, err);
  if (st == PASCAL_OK && !out)
    st = pascal_error_set(err, PASCAL_EINVAL, "out", "output pointer is NULL");
  if (st != PASCAL_OK)
    return st;
  uint64_t tiles = (run->n_r + run->n_c) * run->n_k;
  uint64_t *count = calloc(tiles + 1, sizeof *count); /* [tiles]: the cold ones */
  if (!count)
    return pascal_error_set(err, PASCAL_ENOMEM, "n_k", "cannot allocate the distance counts");
  st = pc_gemm_distance_counts(run, count, NULL, err);
  double fills[REUSE_MODELS], h_che;
  if (st == PASCAL_OK)
    st = misses_of_counts(count, tiles, &g, fills, err);
  if (st == PASCAL_OK)
    st = gemm_che_hit(run, tiles, &h_che, err);
  if (st != PASCAL_OK)
    goto done;
  /* K = fills * 16384 / (32768 H), H = n_r n_c n_k / M */
  double scale = (double)run->m / (double)requests;
  out->aligned = (double)tiles * scale;
  out->che = ((double)tiles + (double)(requests - tiles) * (1.0 - h_che)) * scale;
  out->sdcm = fills[0] * scale;
  out->ppt_published = fills[1] * scale;
  out->ppt_corrected = fills[2] * scale;
  out->tilesight = fills[3] * scale;
  if (k0)
    *k0 = out->aligned;
done:
  free(count);
  return st;
}
