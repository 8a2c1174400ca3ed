/*
 * loko_baselines.h - the baseline predictions scored beside PASCAL on each
 * held-out run of a leave-one-key-out fold (evaluate.c). Plain numbers only,
 * so that the one file that talks to pascal/baselines.h stays small and
 * independent of the calibration types.
 */
#ifndef PASCAL_LOKO_BASELINES_H
#define PASCAL_LOKO_BASELINES_H

#include <stdint.h>

#include "pascal/error.h"

/* Predicted whole-run K of each baseline; NaN where one is unavailable. */
typedef struct loko_baseline_k {
  double aligned, sdcm, pptgpu, che, tilesight;
} loko_baseline_k;

/* Scan run: W passes of N blocks, M resident workers, capacity C blocks. */
pascal_status pc_loko_baselines_scan(uint64_t N, uint64_t W, uint64_t M, uint64_t C,
                                     loko_baseline_k *out, pascal_error *err);

/* GEMM run with tile counts (n_r, n_c, n_k), M resident CTAs, capacity
 * c_bytes of L2, tile bytes (A and B tiles are each tile_bytes). */
pascal_status pc_loko_baselines_gemm(uint32_t n_r, uint32_t n_c, uint32_t n_k, uint64_t M,
                                     double c_bytes, double tile_bytes, loko_baseline_k *out,
                                     pascal_error *err);

#endif
