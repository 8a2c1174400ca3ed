/*
 * gemm_distances.c - reuse-distance counts of the uniform-advance GEMM trace
 * that the trace baselines (exact SDCM, PPT-GPU, TileSight's arithmetic;
 * baselines_runs.c, paper §5.4 and App. C) evaluate, without walking the
 * whole trace through the distance tree.
 *
 * The waves run in lockstep over k and step k touches only the k-th A and
 * B tiles. So a reference's previous use of its tile is at the same step,
 * in its own wave or an earlier one (w'), and the distinct tiles between
 * are: the rest of that step, the steps after k of waves w' .. w-1 and the
 * steps before k of waves w'+1 .. w, each step of a set of waves holding the
 * same number of distinct tiles whatever its k. A reference's distance at
 * step k of n_k is therefore affine, c0 + c1 n_k + c2 k, with coefficients
 * that depend only on its wave and its place in the step (cold references
 * are cold at every k). The coefficients are read off the exact distances
 * of the same trace with n_k = 2 and 3 (pascal_trace_reuse_distance_compute,
 * the Fenwick pass), the two other references of n_k = 3 check the form,
 * and the counts follow for every k: 5 steps of tree work instead of n_k.
 * A shape where the check fails (none is known; test_baselines compares
 * both ways exhaustively over small shapes) takes the whole trace.
 */
#include "gemm_distances.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "pascal/simulate.h"

void pc_gemm_trace(const pascal_baseline_gemm *run, uint64_t *trace)
{
  uint64_t ctas = run->n_r * run->n_c, b_base = run->n_r * run->n_k, t = 0;
  for (uint64_t start = 0; start < ctas; start += run->m) {
    uint64_t end = ctas - start > run->m ? start + run->m : ctas;
    for (uint64_t k = 0; k < run->n_k; k++) {
      for (uint64_t id = start; id < end; id++) {
        uint64_t i = id / run->n_c, j = id % run->n_c;
        trace[t++] = i * run->n_k + k;
        trace[t++] = b_base + k * run->n_c + j;
      }
    }
  }
}

/* The exact distances of `run`'s whole trace into rd (2 n_r n_c n_k). */
static pascal_status trace_distances(const pascal_baseline_gemm *run, uint64_t *rd,
                                     pascal_error *err)
{
  uint64_t len = 2 * run->n_r * run->n_c * run->n_k;
  uint64_t *trace = malloc((len ? len : 1) * sizeof *trace);
  if (!trace)
    return pascal_error_set(err, PASCAL_ENOMEM, "n_k", "cannot allocate the trace");
  pc_gemm_trace(run, trace);
  pascal_status st =
      pascal_trace_reuse_distance_compute(trace, len, (run->n_r + run->n_c) * run->n_k, rd, err);
  free(trace);
  return st;
}

/* The whole trace, counted. */
static pascal_status count_whole(const pascal_baseline_gemm *run, uint64_t *count,
                                 pascal_error *err)
{
  uint64_t len = 2 * run->n_r * run->n_c * run->n_k, tiles = (run->n_r + run->n_c) * run->n_k;
  uint64_t *rd = malloc((len ? len : 1) * sizeof *rd);
  if (!rd)
    return pascal_error_set(err, PASCAL_ENOMEM, "n_k", "cannot allocate the distances");
  pascal_status st = trace_distances(run, rd, err);
  for (uint64_t i = 0; st == PASCAL_OK && i < len; i++) {
    assert(rd[i] == PASCAL_RD_COLD || rd[i] < tiles); /* distances stay below the universe */
    count[rd[i] == PASCAL_RD_COLD ? tiles : rd[i]]++;
  }
  free(rd);
  return st;
}

/* The affine form of every reference from the n_k = 2 and 3 traces (rd2,
 * rd3), counted into `count`; -1 as soon as one reference breaks it (the
 * caller then zeroes count and walks the whole trace). */
static int count_affine(const pascal_baseline_gemm *run, const uint64_t *rd2, const uint64_t *rd3,
                        uint64_t *count)
{
  const uint64_t ctas = run->n_r * run->n_c, n_k = run->n_k;
  const uint64_t tiles = (run->n_r + run->n_c) * n_k;
  for (uint64_t start = 0; start < ctas; start += run->m) {
    uint64_t step = 2 * ((ctas - start > run->m ? start + run->m : ctas) - start);
    const uint64_t *a2 = rd2 + 2 * start * 2, *a3 = rd3 + 2 * start * 3;
    for (uint64_t q = 0; q < step; q++) {
      uint64_t d20 = a2[q], d21 = a2[step + q];
      uint64_t d30 = a3[q], d31 = a3[step + q], d32 = a3[2 * step + q];
      int cold = d20 == PASCAL_RD_COLD;
      if (cold != (d21 == PASCAL_RD_COLD) || cold != (d30 == PASCAL_RD_COLD) ||
          cold != (d31 == PASCAL_RD_COLD) || cold != (d32 == PASCAL_RD_COLD))
        return -1;
      if (cold) {
        count[tiles] += n_k;
        continue;
      }
      int64_t c2 = (int64_t)d21 - (int64_t)d20, c1 = (int64_t)d30 - (int64_t)d20;
      int64_t c0 = (int64_t)d20 - 2 * c1;
      if ((int64_t)d31 != c0 + 3 * c1 + c2 || (int64_t)d32 != c0 + 3 * c1 + 2 * c2)
        return -1;
      int64_t first = c0 + c1 * (int64_t)n_k, last = first + c2 * (int64_t)(n_k - 1);
      if (first < 0 || last < 0 || (uint64_t)first >= tiles || (uint64_t)last >= tiles)
        return -1; /* affine in k: the ends bound every value */
      for (uint64_t k = 0; k < n_k; k++)
        count[first + c2 * (int64_t)k]++;
    }
  }
  return 0;
}

pascal_status pc_gemm_distance_counts(const pascal_baseline_gemm *run, uint64_t *count, bool *whole,
                                      pascal_error *err)
{
  if (whole)
    *whole = run->n_k <= 3;
  if (run->n_k <= 3)
    return count_whole(run, count, err);
  pascal_baseline_gemm r2 = *run, r3 = *run;
  r2.n_k = 2;
  r3.n_k = 3;
  uint64_t ctas = run->n_r * run->n_c;
  uint64_t *rd2 = malloc(4 * ctas * sizeof *rd2), *rd3 = malloc(6 * ctas * sizeof *rd3);
  pascal_status st = PASCAL_OK;
  if (!rd2 || !rd3)
    st = pascal_error_set(err, PASCAL_ENOMEM, "n_k", "cannot allocate the distances");
  if (st == PASCAL_OK)
    st = trace_distances(&r2, rd2, err);
  if (st == PASCAL_OK)
    st = trace_distances(&r3, rd3, err);
  if (st == PASCAL_OK && count_affine(run, rd2, rd3, count) != 0) {
    if (whole)
      *whole = true;
    memset(count, 0, ((run->n_r + run->n_c) * run->n_k + 1) * sizeof *count);
    st = count_whole(run, count, err);
  }
  free(rd2);
  free(rd3);
  return st;
}
