/*
 * gemm_geometry.c - the static geometry of a GEMM shape (paper section 4.5,
 * App. C "GEMM instantiation"), needed by the fit (model.c), the
 * prediction (predict_gemm.c), the synthetic laws and the sim device
 * alike, and no model: tile counts n_r, n_c, n_k, the cold-input reference
 * B_0, the logical demand Q and K_0 = M B_0 / Q.
 *
 * With A tiles of tile_m x tile_k and B tiles of tile_k x tile_n elements:
 *   B_0 = n_k (n_r tile_m + n_c tile_n) tile_k elem_bytes,
 *   Q   = n_r n_c n_k (tile_m + tile_n) tile_k elem_bytes,
 * which for 128 x 128 x 64 FP16 are 16384 (n_r + n_c) n_k and
 * 32768 n_r n_c n_k, and K_0 = M (n_r + n_c) / (2 n_r n_c).
 */
#include <stdint.h>

#include "pascal/predict.h"

static pascal_status check_dim(uint32_t v, uint32_t tile, const char *name, const char *tile_name,
                               pascal_error *err)
{
  if (v == 0)
    return pascal_error_set(err, PASCAL_EINVAL, name, "%s must be at least 1", name);
  if (v % tile != 0)
    return pascal_error_set(err, PASCAL_EINVAL, name, "%s (%u) is not a multiple of %s (%u)", name,
                            v, tile_name, tile);
  return PASCAL_OK;
}

pascal_status pascal_gemm_geometry(const pascal_gemm_params *g, const pascal_gemm_shape *shape,
                                   pascal_gemm_prediction *out, pascal_error *err)
{
  pascal_status st;
  if (g->tile_m == 0 || g->tile_n == 0 || g->tile_k == 0)
    return pascal_error_set(err, PASCAL_EINVAL, "gemm.tile_m",
                            "GEMM tile sizes must be at least 1");
  if (g->elem_bytes == 0)
    return pascal_error_set(err, PASCAL_EINVAL, "gemm.elem_bytes", "elem_bytes must be at least 1");
  if (g->resident_ctas == 0)
    return pascal_error_set(err, PASCAL_EINVAL, "gemm.resident_ctas",
                            "resident_ctas (M) must be at least 1");
  if ((st = check_dim(shape->Mg, g->tile_m, "Mg", "tile_m", err)) ||
      (st = check_dim(shape->Ng, g->tile_n, "Ng", "tile_n", err)) ||
      (st = check_dim(shape->Kg, g->tile_k, "Kg", "tile_k", err)))
    return st;
  pascal_gemm_prediction p = {0};
  p.n_r = shape->Mg / g->tile_m;
  p.n_c = shape->Ng / g->tile_n;
  p.n_k = shape->Kg / g->tile_k;
  double step_bytes = (double)g->tile_k * g->elem_bytes;
  p.B0 = (double)p.n_k * ((double)p.n_r * g->tile_m + (double)p.n_c * g->tile_n) * step_bytes;
  p.Q = (double)p.n_r * p.n_c * p.n_k * ((double)g->tile_m + g->tile_n) * step_bytes;
  p.M = g->resident_ctas;
  p.K0 = p.M * p.B0 / p.Q;
  *out = p;
  return PASCAL_OK;
}
