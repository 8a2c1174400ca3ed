/*
 * loko_baselines.h - every method's prediction of one scored run of a
 * leave-one-key-out fold or a held-out panel (evaluate.c): the baselines of
 * pascal/baselines.h and Origami's (pascal/origami.h), computed here for a
 * run, and the per-method readers of
 * the PASCAL_METHODS table (pascal/evaluate.h) that turn them, with PASCAL's
 * own answer, into one prediction per method.
 */
#ifndef PASCAL_LOKO_BASELINES_H
#define PASCAL_LOKO_BASELINES_H

#include <stdint.h>

#include "pascal/baselines.h"
#include "pascal/calibration.h"
#include "pascal/error.h"
#include "pascal/evaluate.h"

/* Scan run: W passes of N blocks, M resident workers, capacity C blocks.
 * Whole-run K of each baseline; NaN where one is unavailable. */
pascal_status pc_loko_baselines_scan(uint64_t N, uint64_t W, uint64_t M, uint64_t C,
                                     pascal_baseline_k *out, pascal_error *err);

/* GEMM run with tile counts (n_r, n_c, n_k), M resident CTAs, capacity
 * c_bytes of L2, tile bytes (A and B tiles are each tile_bytes). */
pascal_status pc_loko_baselines_gemm(uint32_t n_r, uint32_t n_c, uint32_t n_k, uint64_t M,
                                     double c_bytes, double tile_bytes, pascal_baseline_k *out,
                                     pascal_error *err);

/* Origami's K of a GEMM run of `cal` (pascal/origami.h): M (1 - H) of its
 * predicted DRAM traffic, the calibration kernel's raster (row-major for the
 * own kernel), M resident CTAs, C the device's capacity in bytes; NaN where
 * the raster is not known (cuBLASLt) or the model cannot be evaluated. */
double pc_loko_origami_gemm(const pascal_calibration *cal, const pascal_gemm_shape *shape,
                            uint64_t M);

/* pred[m]: method m's K for a run PASCAL answered with pascal_K, whose
 * baselines are `base` and Origami's K origami_K (NaN: none), each method's
 * k reader of PASCAL_METHODS. */
void pc_loko_methods(double pascal_K, const pascal_baseline_k *base, double origami_K,
                     double pred[PASCAL_METHOD_COUNT]);

#endif
