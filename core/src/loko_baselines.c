/*
 * loko_baselines.c - baseline predictions for leave-one-key-out scoring
 * (evaluate.c): aligned K = 1 (scan) and K = K_0 (GEMM). SDCM, PPT-GPU and
 * Che come from pascal/baselines.h once it is merged (NaN until then).
 */
#include "loko_baselines.h"

#include <math.h>

pascal_status loko_baselines_scan(uint64_t N, uint64_t W, uint64_t M, uint64_t C,
                                  loko_baseline_k *out, pascal_error *err)
{
  (void)N, (void)W, (void)M, (void)C, (void)err;
  *out = (loko_baseline_k){.aligned = 1, .sdcm = NAN, .pptgpu = NAN, .che = NAN};
  return PASCAL_OK;
}

pascal_status loko_baselines_gemm(uint32_t n_r, uint32_t n_c, uint32_t n_k, uint64_t M,
                                  double c_bytes, double tile_bytes, loko_baseline_k *out,
                                  pascal_error *err)
{
  (void)n_k, (void)c_bytes, (void)tile_bytes, (void)err;
  double k0 = (double)M * (n_r + n_c) / (2.0 * n_r * n_c);
  *out = (loko_baseline_k){.aligned = k0, .sdcm = NAN, .pptgpu = NAN, .che = NAN};
  return PASCAL_OK;
}
