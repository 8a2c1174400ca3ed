/*
 * loko_baselines.c - baseline predictions for leave-one-key-out scoring
 * (evaluate.c, paper section 5.4), from pascal/baselines.h under the
 * uniform-advance reuse profile: aligned K = 1 (scan) / K_0 (GEMM), exact
 * SDCM, TileSight's SDCM arithmetic and PPT-GPU (as published) with the
 * paper's shared hit rule of 8 ways
 * (C / 8 sets; fully associative when C is not a multiple of 8), and Che.
 * Whole-run K (cold first pass included), the quantity a measured run gives.
 * A baseline that cannot be computed for a run (a GEMM trace too long for
 * the exact reuse-distance profile, non-square tiles) is NaN, not an error.
 */
#include "loko_baselines.h"

#include <math.h>

#include "pascal/baselines.h"

#define LOKO_WAYS 8

static void set_geometry(uint64_t c, uint64_t *ways, uint64_t *sets)
{
  if (c >= LOKO_WAYS && c % LOKO_WAYS == 0) {
    *ways = LOKO_WAYS;
    *sets = c / LOKO_WAYS;
  } else {
    *ways = 0; /* fully associative {C, 1} */
    *sets = 0;
  }
}

static void from_baseline(const pascal_baseline_k *k, loko_baseline_k *out)
{
  out->aligned = k->aligned;
  out->sdcm = k->sdcm;
  out->pptgpu = k->ppt_published;
  out->che = k->che;
  out->tilesight = k->tilesight;
}

pascal_status pc_loko_baselines_scan(uint64_t N, uint64_t W, uint64_t M, uint64_t C,
                                     loko_baseline_k *out, pascal_error *err)
{
  pascal_baseline_scan run = {.n = N, .w = W, .m = (size_t)M, .c = C};
  pascal_baseline_k whole;
  set_geometry(C, &run.ways, &run.sets);
  *out = (loko_baseline_k){.aligned = 1, .sdcm = NAN, .pptgpu = NAN, .che = NAN, .tilesight = NAN};
  if (pascal_baseline_scan_k(&run, NULL, &whole, err) == PASCAL_OK)
    from_baseline(&whole, out);
  return PASCAL_OK;
}

pascal_status pc_loko_baselines_gemm(uint32_t n_r, uint32_t n_c, uint32_t n_k, uint64_t M,
                                     double c_bytes, double tile_bytes, loko_baseline_k *out,
                                     pascal_error *err)
{
  double k0 = (double)M * (n_r + n_c) / (2.0 * n_r * n_c);
  *out = (loko_baseline_k){.aligned = k0, .sdcm = NAN, .pptgpu = NAN, .che = NAN, .tilesight = NAN};
  if (!(tile_bytes > 0) || c_bytes / tile_bytes < 1)
    return PASCAL_OK;
  pascal_baseline_gemm run = {
      .n_r = n_r, .n_c = n_c, .n_k = n_k, .m = (size_t)M, .c = (uint64_t)(c_bytes / tile_bytes)};
  pascal_baseline_k k;
  set_geometry(run.c, &run.ways, &run.sets);
  if (pascal_baseline_gemm_k(&run, &k, NULL, err) == PASCAL_OK)
    from_baseline(&k, out);
  return PASCAL_OK;
}
