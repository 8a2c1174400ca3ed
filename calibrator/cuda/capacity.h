/*
 * capacity.h - the capacity scan (paper Figure `capacity`, Section 5.1):
 * fill volume of a synchronous one-CTA-per-SM open scan (W = 4 waves)
 * normalized by the scanned bytes, over 15 sizes from L2/4 to 3 L2/2. While
 * the scanned data fits, later waves hit and the ratio stays ~1; past the
 * effective capacity it rises toward the number of waves. The proposed C is
 * the largest size (in blocks) such that it and every smaller size stay
 * within 10 % of one. Internal to the cuda backend (C++).
 */
#ifndef PASCAL_CUDA_CAPACITY_H
#define PASCAL_CUDA_CAPACITY_H

#include <stdint.h>

#include <vector>

#include "cuda_rig.h"

#define PCU_CAPACITY_SIZES     15u
#define PCU_CAPACITY_WAVES     4u
#define PCU_CAPACITY_TOLERANCE 0.10

struct pcu_capacity_row {
  uint64_t n_blocks;
  double ratio;     /* median fill bytes / (n_blocks x block_bytes) */
  double kernel_ns; /* median kernel time */
};

/* The largest C as above from rows sorted by size; 0 if the smallest size
 * already exceeds the tolerance. Pure function, tested without a GPU. */
uint64_t pcu_capacity_propose(const std::vector<pcu_capacity_row> &rows);

/* Run the scan on `rig` (repeats >= 1 runs per size, medians kept). */
pascal_status pcu_capacity_scan(pcu_rig *rig, uint32_t block_bytes, uint32_t repeats,
                                std::vector<pcu_capacity_row> *rows, pascal_error *err);

#endif
