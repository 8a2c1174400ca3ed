/*
 * pascal/latency.h - from fill bytes to kernel time: the pipeline and wave
 * model of TileSight, as the paper "PASCAL: A Progress Divergence-Aware
 * Shared-Cache Model" uses it (section "End-to-end latency with TileSight"),
 * with the DRAM -> L2 fill traffic as its cache input.
 *
 * A kernel is a grid of CTAs ("tiles"), `tiles_per_sm` resident per SM; each
 * CTA runs `iterations` main-loop steps, each moving some bytes from DRAM and
 * from L2 and issuing some matrix FLOPs, over a software pipeline of `stages`
 * stages; a CTA ends with an epilogue store. The device is described by its
 * measured peaks (pascal_peaks). DRAM and L2 bandwidth are shared by the SMs
 * active at the time; MMA throughput is per SM. Memory levels overlap each
 * other (max), and memory overlaps compute once the pipeline is full. Waves of
 * sm_count x tiles_per_sm CTAs follow each other; the first pays a head
 * penalty of 10% of its prologue share, a partial last wave has its own
 * (less contended) timing. Nothing is fitted: every utilisation factor is 1.
 *
 * pascal_latency_gemm and pascal_latency_scan build the kernel of a PASCAL
 * GEMM or scan run; pascal_latency_time evaluates any kernel. Errors follow
 * pascal/error.h and name the argument ("dram_bytes_per_s", "stages", ...).
 */
#ifndef PASCAL_LATENCY_H
#define PASCAL_LATENCY_H

#include <stdint.h>

#include "pascal/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The calibration kernels as the pipeline sees them: a scan block's matrix
 * instruction is one 16x16x16 half-precision wmma (2 x 16^3 FLOPs,
 * kernels/device_common.cuh); the GEMM kernel (kernels/gemm.cu) keeps one
 * A and one B tile in shared memory: one stage, no load/compute overlap. */
#define PASCAL_SCAN_MMA_FLOPS     8192.0
#define PASCAL_GEMM_KERNEL_STAGES 1u

/* A device's measured peaks (whole chip). */
typedef struct pascal_peaks {
  double dram_bytes_per_s; /* DRAM -> L2 bandwidth                              */
  double l2_bytes_per_s;   /* L2 -> SM bandwidth                                 */
  double tensor_flops;     /* matrix (MMA) throughput for the kernels' data type */
  double sm_clock_hz;      /* SM clock, recorded with the peaks it was measured at */
  double launch_s;         /* kernel launch overhead, added once per kernel     */
} pascal_peaks;

/* One kernel as the pipeline sees it. Per-iteration quantities are per CTA. */
typedef struct pascal_pipeline_kernel {
  uint32_t sm_count;
  uint32_t tiles_per_sm;      /* resident CTAs per SM (occupancy), >= 1      */
  uint64_t tiles;             /* CTAs in the grid, >= 1                        */
  uint64_t iterations;        /* main-loop steps per CTA, >= 1                 */
  uint32_t stages;            /* software pipeline stages, >= 1 (1: no overlap) */
  double dram_bytes_per_iter; /* DRAM -> L2 fills                              */
  double l2_bytes_per_iter;   /* L2 -> SM reads                                */
  double flops_per_iter;      /* matrix FLOPs                                  */
  double store_bytes;         /* epilogue store, written through L2 to DRAM    */
} pascal_pipeline_kernel;

/* What dominates the predicted time. */
typedef enum pascal_bound {
  PASCAL_BOUND_DRAM = 0,
  PASCAL_BOUND_L2,
  PASCAL_BOUND_COMPUTE,
  PASCAL_BOUND_LATENCY /* pipeline fill/drain or the launch outweigh the steady state */
} pascal_bound;

typedef struct pascal_latency {
  double time_s;         /* launch_s + waves_s                                   */
  double waves_s;        /* all waves                                            */
  double sm_latency_s;   /* one full wave on one SM                              */
  double dram_iter_s;    /* one iteration's DRAM time on one SM in a full wave   */
  double l2_iter_s;      /* the same for L2                                      */
  double compute_iter_s; /* the same for the MMA pipe                            */
  double prologue_s;     /* pipeline fill of a full wave                         */
  double head_penalty;   /* factor on the first wave, >= 1                       */
  uint64_t full_waves;
  uint64_t tail_tiles; /* CTAs of the partial last wave (0: none)             */
  pascal_bound bound;
} pascal_latency;

/* Stable name of a bound: "dram", "l2", "compute", "latency". */
const char *pascal_bound_name(pascal_bound bound);

/* Check peaks: every field finite, launch_s >= 0, the others > 0. */
pascal_status pascal_peaks_check(const pascal_peaks *peaks, pascal_error *err);

/* The kernel's predicted time and its dominating bound. */
pascal_status pascal_latency_time(const pascal_peaks *peaks, const pascal_pipeline_kernel *k,
                                  pascal_latency *out, pascal_error *err);

/* A GEMM run (Mg x Ng x Kg, multiples of the tile) with `fill_bytes` of DRAM
 * fills in all: one CTA per output tile, Kg / tile_k iterations each reading
 * an A and a B tile slice (tile_k (tile_m + tile_n) elem_bytes from L2) and
 * issuing 2 tile_m tile_n tile_k FLOPs; the fills spread evenly over the
 * iterations; the epilogue stores tile_m tile_n elements of elem_bytes. */
pascal_status pascal_latency_gemm(uint64_t Mg, uint64_t Ng, uint64_t Kg, uint32_t tile_m,
                                  uint32_t tile_n, uint32_t tile_k, uint32_t elem_bytes,
                                  uint32_t sm_count, uint32_t tiles_per_sm, uint32_t stages,
                                  double fill_bytes, pascal_pipeline_kernel *out,
                                  pascal_error *err);

/* A scan run (o CTAs per SM, path depth d, m matrix instructions of
 * flops_per_mma FLOPs per block, N blocks of block_bytes, horizon W) with
 * `fill_bytes` of DRAM fills: W x sm_count x o CTAs, each one block load and
 * m matrix instructions per iteration over N iterations and max(d, 1) stages;
 * no epilogue store. */
pascal_status pascal_latency_scan(uint32_t sm_count, uint32_t o, uint32_t d, uint32_t m, uint64_t N,
                                  uint64_t W, uint64_t block_bytes, double flops_per_mma,
                                  double fill_bytes, pascal_pipeline_kernel *out,
                                  pascal_error *err);

#ifdef __cplusplus
}
#endif
#endif
