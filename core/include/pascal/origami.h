/*
 * pascal/origami.h - Origami, the analytical GEMM selector inside tritonBLAS
 * ("tritonBLAS: Triton-based Analytical Approach for GEMM Kernel Parameter
 * Selection", Swann et al.), as a peer of PASCAL on NVIDIA GPUs. Its
 * arithmetic is reproduced in this project's own code from the public
 * sources (ROCm/rocm-libraries, shared/origami: gemm.cpp's workgroup mapping,
 * unique-tile counts, two-timestep cache hit rates, memory and tile
 * latencies; heuristics.hpp's constants; utils.cpp's selection), with
 * NVIDIA's hardware in place of AMD's; docs/origami.md lists every function
 * reproduced and every adaptation with its reason.
 *
 * The model (one GEMM, one configuration):
 *  - Mapping. CTA pid runs output tile (row, col) of Triton's grouped order
 *    (GROUP_SIZE_M = group_m): groups of group_m tile rows, each swept column
 *    by column with the row varying fastest; group_m = 1 is the row-major
 *    raster of the calibration kernels. (Origami's workgroup mapping WGM =
 *    -group_m, its "column-major" slabs.)
 *  - Timesteps. The CTAs run in timesteps of sm_count consecutive pids (one
 *    CTA per SM, whatever the occupancy: Origami's N_CU-wide timestep), all of
 *    a timestep advancing together: the aligned-wave premise.
 *  - Unique tiles. A timestep reads the A row panels of the distinct tile rows
 *    and the B column panels of the distinct tile columns its CTAs touch, a
 *    panel being the whole K extent (tile_m Kg or tile_n Kg elements). The
 *    counts are Origami's closed form over a contiguous pid range: exact,
 *    except within one group when the range touches exactly two columns,
 *    where it counts the whole group's rows.
 *  - Hit rate (the two-timestep estimate). Timestep 0 hits everything it
 *    requests beyond its unique panels (spatial reuse, no capacity check).
 *    Timestep 1 also reuses from timestep 0, when timestep 0's unique panels
 *    fit in 0.99 C: all rows when both timesteps touch every row, and the
 *    columns in the overlap of the two timesteps' column ranges from their
 *    first to their last CTA. Every later timestep is taken to behave as
 *    timestep 1: H = (hits_0 + (T - 1) hits_1) / (req_0 + (T - 1) req_1).
 *  - DRAM traffic. (1 - H) of the requested bytes Q = CTAs (tile_m + tile_n)
 *    Kg elem_bytes, with H replaced by Origami's floor 0.5 when it is exactly
 *    0; its fill-equivalent K is M (1 - H), M the resident CTAs.
 *  - Time (seconds; Origami's cycle constants at the SM clock). Per
 *    k-iteration of a CTA: compute 2 tile_m tile_n tile_k over the per-SM
 *    tensor rate; L2 the active SMs' loads over the L2 bandwidth scaled by
 *    active / sm_count; DRAM (1 - H) of those loads over the DRAM bandwidth
 *    scaled by min(1, active / sm_count), plus 200 cycles; memory the larger
 *    of the two. A CTA: max(compute, memory) / utilisation per iteration over
 *    max(ceil(Kg / tile_k) - 1, 1) iterations, plus 1.5 x a prologue of one
 *    memory latency, 2 x an epilogue (the active SMs' output stores at DRAM
 *    bandwidth plus one compute iteration), both decayed by 0.95^occupancy
 *    (occupancy capped at the timesteps), plus 500 cycles per iteration, 1
 *    cycle of setup and a K-padding penalty of 50000 (Kg mod tile_k) / Kg
 *    cycles. The GEMM: timesteps x a CTA.
 *  - Selection. Configurations are ranked by predicted time; those within 1 %
 *    of the fastest are re-ordered by the tile's arithmetic intensity
 *    2 tm tn tk / (tm tk + tn tk + tm tn), highest first (Origami's tie
 *    breaker, a stable sort: equal intensities stay in time order), the
 *    input order breaking what remains.
 *
 * Not modelled (Origami's, absent from the calibration kernels): split-K,
 * stream-K, batches, MALL, per-XCD L2 and the XCD remapping, non-temporal
 * loads, matrix-instruction shapes (the tensor rate stands for them).
 * Errors follow pascal/error.h and name the argument ("sm_count",
 * "config.tile_m", "shape.Mg", "configs[3].group_m", ...).
 */
#ifndef PASCAL_ORIGAMI_H
#define PASCAL_ORIGAMI_H

#include <stddef.h>
#include <stdint.h>

#include "pascal/calibration.h"
#include "pascal/error.h"
#include "pascal/latency.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The device as Origami sees it: SMs for compute units, one L2 of the
 * effective capacity the probe measures, no MALL, the measured peaks (used
 * by the time only; launch_s is not part of Origami's time). */
typedef struct pascal_origami_device {
  uint32_t sm_count; /* N_CU, >= 1                                   */
  double l2_bytes;   /* effective L2 capacity C in bytes, > 0         */
  pascal_peaks peaks;
} pascal_origami_device;

/* A configuration: the tile, the element size of A, B and the output, the
 * raster and the resident CTAs per SM. */
typedef struct pascal_origami_config {
  uint32_t tile_m, tile_n, tile_k; /* >= 1                                  */
  uint32_t elem_bytes;             /* >= 1                                  */
  uint32_t group_m;                /* Triton GROUP_SIZE_M, >= 1 (1: row-major) */
  uint32_t occupancy;              /* resident CTAs per SM, >= 1            */
} pascal_origami_config;

/* The most output tiles a grid may have. */
#define PASCAL_ORIGAMI_TILES_MAX (UINT64_C(1) << 40)

/* The device of a calibration: sm_count, C = capacity_blocks x block_bytes
 * and the peaks (zero when the device has none: the traffic is still
 * defined, the time is refused). */
void pascal_origami_device_of(const pascal_device *dev, pascal_origami_device *out);

/* Output tile (row, col) of CTA `pid` in the grouped order over a grid of
 * grid_m x grid_n tiles. Errors: a grid dimension or group_m of 0, more than
 * PASCAL_ORIGAMI_TILES_MAX tiles ("grid_m"), pid outside the grid ("pid"). */
pascal_status pascal_origami_tile_of(uint64_t grid_m, uint64_t grid_n, uint32_t group_m,
                                     uint64_t pid, uint64_t *row, uint64_t *col, pascal_error *err);

/* Origami's count of the distinct tile rows (A panels) and columns (B
 * panels) that the CTAs pid in [start, start + count) touch. count >= 1 and
 * start + count <= grid_m grid_n ("count"); other errors as above. */
pascal_status pascal_origami_unique_tiles(uint64_t grid_m, uint64_t grid_n, uint32_t group_m,
                                          uint64_t start, uint64_t count, uint64_t *rows,
                                          uint64_t *cols, pascal_error *err);

/* Origami's L2 model of one GEMM. */
typedef struct pascal_origami_traffic {
  uint64_t grid_m, grid_n; /* tile rows and columns: ceil(Mg / tile_m), ...  */
  uint64_t ctas;           /* grid_m grid_n                                  */
  uint64_t timesteps;      /* ceil(ctas / sm_count)                          */
  uint64_t active_sms;     /* min(ctas, sm_count)                            */
  uint64_t rows0, cols0;   /* unique tiles of timestep 0                     */
  uint64_t rows1, cols1;   /* of timestep 1 (0 when there is one timestep)   */
  uint64_t rows_reused;    /* rows timestep 1 reuses from timestep 0         */
  uint64_t cols_reused;    /* columns likewise                              */
  double a_panel, b_panel; /* bytes of one A row panel, one B column panel   */
  double requested_bytes;  /* Q: every CTA's A and B panels                  */
  double hit_rate;         /* the two-timestep estimate H, in [0, 1]         */
  double hit_rate_used;    /* H, or 0.5 where H is 0 (Origami's floor)        */
  double dram_bytes;       /* (1 - hit_rate_used) Q                          */
} pascal_origami_traffic;

/* The traffic of `shape` (Mg, Ng, Kg >= 1; need not be tile multiples: the
 * grid rounds up) under `config` on `dev` (sm_count and l2_bytes; the peaks
 * are not read). */
pascal_status pascal_origami_traffic_of(const pascal_origami_device *dev,
                                        const pascal_gemm_shape *shape,
                                        const pascal_origami_config *config,
                                        pascal_origami_traffic *out, pascal_error *err);

/* Origami's predicted time of one GEMM, in seconds. */
typedef struct pascal_origami_time {
  pascal_origami_traffic traffic;
  double utilization;      /* useful over launched volume, in (0, 1]          */
  double occupancy_factor; /* 0.95^min(occupancy, timesteps)                  */
  double compute_s;        /* one k-iteration's compute on one SM             */
  double l2_s;             /* its L2 time                                     */
  double dram_s;           /* its DRAM time (with the fixed load latency)     */
  double memory_s;         /* max(l2_s, dram_s)                               */
  double iteration_s;      /* max(compute_s, memory_s) / utilization          */
  uint64_t iterations;     /* max(ceil(Kg / tile_k) - 1, 1)                   */
  double prologue_s;       /* before the 1.5 weight                           */
  double epilogue_s;       /* before the 2.0 weight                           */
  double cta_s;            /* one CTA, K-complete                             */
  double time_s;           /* timesteps x cta_s                               */
} pascal_origami_time;

/* The predicted time; also checks the peaks (pascal_peaks_check, "peaks"). */
pascal_status pascal_origami_time_of(const pascal_origami_device *dev,
                                     const pascal_gemm_shape *shape,
                                     const pascal_origami_config *config, pascal_origami_time *out,
                                     pascal_error *err);

/* Origami's ranking of configs[0..n) for `shape`: order[0] is its
 * selection, order[n - 1] its last choice; time_s (optional, n entries)
 * receives each configuration's predicted time in the input order. Errors:
 * n == 0 ("n"), an invalid configuration ("configs[i].<field>"), ENOMEM. */
pascal_status pascal_origami_rank(const pascal_origami_device *dev, const pascal_gemm_shape *shape,
                                  const pascal_origami_config *configs, size_t n, size_t *order,
                                  double *time_s, pascal_error *err);

#ifdef __cplusplus
}
#endif
#endif
