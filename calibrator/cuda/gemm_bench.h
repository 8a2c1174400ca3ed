/*
 * gemm_bench.h - the probe's GEMM speed: achieved TFLOP/s of an FP16 GEMM
 * of 4096 x 4096 x 4096 with FP32 accumulate, each figure the median of
 * warm repeats timed with CUDA events (no L2 flush, no CUPTI), for the
 * project's wmma kernel and, when the host's toolkit has cuBLASLt, for
 * cuBLASLt's heuristic algo and the best of a few explicit configurations
 * of that algo (its full configuration, the tile varied where it lists one).
 * Every figure's result is checked against exact host dot products first.
 * Internal to the cuda backend (C++); docs/gpu.md reads the lines.
 */
#ifndef PASCAL_CUDA_GEMM_BENCH_H
#define PASCAL_CUDA_GEMM_BENCH_H

#include <stdint.h>
#include <stdio.h>

#include <string>
#include <vector>

#include "cublaslt_gemm.h"
#include "cublaslt_lib.h"
#include "pascal/error.h"
#include "pascal/gemm_impl.h"

/* One measured configuration (or one cuBLASLt rejected). */
struct pcu_gemm_figure {
  bool cublaslt = false;
  pascal_cublaslt_config config{}; /* cuBLASLt only */
  double tflops = 0;               /* 0 when not measured */
  std::string error;               /* why not measured: cuBLASLt's rejection, a failed check */
  bool skipped = false;            /* not tried: the algo does not list its tile (error says) */
};

struct pcu_gemm_bench {
  uint32_t m = 4096, n = 4096, k = 4096;
  unsigned repeats = 9;
  pcu_gemm_figure own;
  bool have_cublaslt = false;
  pcu_gemm_figure heuristic;
  std::vector<pcu_gemm_figure> explicit_configs; /* in the order tried */
};

/* The explicit configurations for the heuristic's algo, not yet measured:
 * first the heuristic's full configuration (stages, swizzle, split-K,
 * custom option, inner and cluster shape) set explicitly, then the same
 * with each of tiles 128x256, 256x128, 128x128 that is not the heuristic's;
 * a tile `cap` does not list comes back skipped, its error saying why. */
std::vector<pcu_gemm_figure> pcu_gemm_candidates(const pcu_lt_caps &cap,
                                                 const pascal_cublaslt_config &heuristic);

/* Load cuBLASLt for the probe (`env`: PASCAL_CUBLASLT's value) and say so
 * in exactly one line: where it loaded from and its version, or why it did
 * not and that the project's own kernel gives the GEMM figures. NULL when
 * it did not load; the caller deletes what it returns. */
pcu_cublaslt *pcu_gemm_cublaslt_line(FILE *out, const char *env);

/* Measure the figures on the current device (`lib` may be NULL: own kernel
 * only). Fails only when the own kernel cannot be measured; a cuBLASLt
 * failure is kept in its figure. */
pascal_status pcu_gemm_bench_run(const pcu_cublaslt *lib, pcu_gemm_bench *out, pascal_error *err);

/* The "GEMM TFLOP/s" lines and the "gemm json:" line of the probe. */
void pcu_gemm_bench_print(FILE *out, const pcu_gemm_bench &b);

/* The best measured explicit configuration; NULL when none was measured. */
const pcu_gemm_figure *pcu_gemm_best_explicit(const pcu_gemm_bench &b);

#endif
