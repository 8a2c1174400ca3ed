/*
 * gemm_distances.h - the reuse-distance counts of the uniform-advance GEMM
 * trace (baselines_runs.c, paper §5.4 and App. C), shared with its test.
 */
#ifndef PASCAL_GEMM_DISTANCES_H
#define PASCAL_GEMM_DISTANCES_H

#include <stdbool.h>
#include <stdint.h>

#include "pascal/baselines.h"

/* The trace: waves of M CTAs in raster order, lockstep over k, A(i, k) then
 * B(k, j) per CTA; A tiles are 0 .. n_r n_k - 1, B tiles follow. `trace`
 * holds 2 n_r n_c n_k entries. */
void pc_gemm_trace(const pascal_baseline_gemm *run, uint64_t *trace);

/* count[d] = the references at reuse distance d (d < (n_r + n_c) n_k, the
 * tiles) and count[tiles] = the cold ones; `count` holds tiles + 1 zeros on
 * entry. The run was checked by the caller. *whole (if not NULL) says
 * whether the whole trace was walked (n_k <= 3, or the affine form failed). */
pascal_status pc_gemm_distance_counts(const pascal_baseline_gemm *run, uint64_t *count, bool *whole,
                                      pascal_error *err);

#endif
