/*
 * pascal/gemm_raster.h - the grouped CTA raster of a tiled GEMM, Triton's
 * order (pascal/gemm_config.h): one inline function that the C core
 * (gemm_raster.c: the static reference, the sim device) and the CUDA GEMM
 * kernel (kernels/gemm.cu) both compile, so that the order the model
 * assumes, the sim runs and the GPU launches is one.
 *
 * CTA pid of an n_r x n_c grid of output tiles runs tile (i, j): pids come
 * in groups of group_m x n_c; group g covers tile rows g group_m ..
 * (the last group may be shorter) and is swept column by column. group_m =
 * 1 is row-major (the direct raster); group_m >= n_r column-major. The
 * arithmetic of the tutorial matmul of triton-lang/triton (read, not
 * copied).
 */
#ifndef PASCAL_GEMM_RASTER_H
#define PASCAL_GEMM_RASTER_H

#include <stdint.h>

#if defined(__CUDACC__)
#define PASCAL_RASTER_FN __host__ __device__ static inline
#else
#define PASCAL_RASTER_FN static inline
#endif

PASCAL_RASTER_FN void pascal_gemm_raster_ij(uint32_t n_r, uint32_t n_c, uint32_t group_m,
                                            uint64_t pid, uint32_t *i, uint32_t *j)
{
  uint64_t in_group = (uint64_t)group_m * n_c;
  uint64_t first = pid / in_group * group_m;
  uint64_t rows = n_r - first < group_m ? n_r - first : group_m;
  uint64_t at = pid % in_group;
  *i = (uint32_t)(first + at % rows);
  *j = (uint32_t)(at / rows);
}

#endif
