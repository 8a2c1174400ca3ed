/*
 * loko_baselines.c - each method's prediction of a scored run of a
 * leave-one-key-out fold or a held-out panel (evaluate.c, paper section
 * 5.4): the baselines from pascal/baselines.h under the
 * uniform-advance reuse profile: aligned K = 1 (scan) / K_0 (GEMM), exact
 * SDCM, TileSight's SDCM arithmetic and PPT-GPU (as published) with the
 * paper's shared hit rule of 8 ways
 * (C / 8 sets; fully associative when C is not a multiple of 8), and Che;
 * for GEMM also Origami's predicted DRAM traffic (pascal/origami.h).
 * Whole-run K (cold first pass included), the quantity a measured run gives.
 * A baseline that cannot be computed for a run (a GEMM trace too long for
 * the exact reuse-distance profile, non-square tiles) is NaN, not an error.
 * The k readers below are the last column of PASCAL_METHODS.
 */
#include "loko_baselines.h"

#include <math.h>

#include "pascal/origami.h"

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

/* The baselines' K with only the aligned one known. */
static pascal_baseline_k only_aligned(double aligned)
{
  return (pascal_baseline_k){.aligned = aligned,
                             .che = NAN,
                             .sdcm = NAN,
                             .ppt_published = NAN,
                             .ppt_corrected = NAN,
                             .tilesight = NAN};
}

pascal_status pc_loko_baselines_scan(uint64_t N, uint64_t W, uint64_t M, uint64_t C,
                                     pascal_baseline_k *out, pascal_error *err)
{
  pascal_baseline_scan run = {.n = N, .w = W, .m = (size_t)M, .c = C};
  pascal_baseline_k whole;
  set_geometry(C, &run.ways, &run.sets);
  *out = only_aligned(1);
  if (pascal_baseline_scan_k(&run, NULL, &whole, err) == PASCAL_OK)
    *out = whole;
  return PASCAL_OK;
}

pascal_status pc_loko_baselines_gemm(uint32_t n_r, uint32_t n_c, uint32_t n_k, uint64_t M,
                                     double c_bytes, double tile_bytes, pascal_baseline_k *out,
                                     pascal_error *err)
{
  double k0 = (double)M * (n_r + n_c) / (2.0 * n_r * n_c);
  *out = only_aligned(k0);
  if (!(tile_bytes > 0) || c_bytes / tile_bytes < 1)
    return PASCAL_OK;
  pascal_baseline_gemm run = {
      .n_r = n_r, .n_c = n_c, .n_k = n_k, .m = (size_t)M, .c = (uint64_t)(c_bytes / tile_bytes)};
  pascal_baseline_k k;
  set_geometry(run.c, &run.ways, &run.sets);
  if (pascal_baseline_gemm_k(&run, &k, NULL, err) == PASCAL_OK)
    *out = k;
  return PASCAL_OK;
}

double pc_loko_origami_gemm(const pascal_calibration *cal, const pascal_gemm_shape *shape,
                            uint64_t M)
{
  const pascal_gemm_params *g = &cal->gemm;
  if (g->impl != PASCAL_GEMM_IMPL_OWN || cal->device.sm_count == 0 || M == 0)
    return NAN;
  pascal_origami_device dev;
  pascal_origami_device_of(&cal->device, &dev);
  uint64_t occupancy = (M + dev.sm_count - 1) / dev.sm_count;
  pascal_origami_config c = {.tile_m = g->tile_m,
                             .tile_n = g->tile_n,
                             .tile_k = g->tile_k,
                             .elem_bytes = g->elem_bytes,
                             .group_m = 1, /* the own kernel's row-major raster */
                             .occupancy =
                                 occupancy > UINT32_MAX ? UINT32_MAX : (uint32_t)occupancy};
  pascal_origami_traffic t;
  if (pascal_origami_traffic_of(&dev, shape, &c, &t, NULL) != PASCAL_OK)
    return NAN;
  return (double)M * t.dram_bytes / t.requested_bytes;
}

/* ---- the k readers of PASCAL_METHODS -------------------------------------- */

typedef struct scored {
  double pascal;                 /* PASCAL's answer for the run */
  const pascal_baseline_k *base; /* the baselines' */
  double origami;                /* Origami's K, NaN when none */
} scored;

static double k_pascal(const scored *s)
{
  return s->pascal;
}
static double k_aligned(const scored *s)
{
  return s->base->aligned;
}
static double k_exact_sdcm(const scored *s)
{
  return s->base->sdcm;
}
static double k_ppt_gpu(const scored *s)
{
  return s->base->ppt_published;
}
static double k_che(const scored *s)
{
  return s->base->che;
}
static double k_tilesight(const scored *s)
{
  return s->base->tilesight;
}
static double k_origami(const scored *s)
{
  return s->origami;
}

static double (*const method_k[])(const scored *) = {
#define PC_METHOD_K(id, name, key, title, label, column, k) [PASCAL_METHOD_##id] = k,
    PASCAL_METHODS(PC_METHOD_K)
#undef PC_METHOD_K
};
_Static_assert(sizeof method_k / sizeof *method_k == PASCAL_METHOD_COUNT,
               "every method has its k reader");

void pc_loko_methods(double pascal_K, const pascal_baseline_k *base, double origami_K,
                     double pred[PASCAL_METHOD_COUNT])
{
  scored s = {pascal_K, base, origami_K};
  for (int m = 0; m < PASCAL_METHOD_COUNT; m++)
    pred[m] = method_k[m](&s);
}
