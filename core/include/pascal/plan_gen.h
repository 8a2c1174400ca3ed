/*
 * pascal/plan_gen.h - the paper's calibration and held-out plans for a given
 * device (paper "PASCAL: A Progress Divergence-Aware Shared-Cache Model",
 * sections 4.4 and 5: 63 scan calibration keys at three sizes and four
 * horizons, 42 held-out scan keys at five (N, W) pairs with two repeats,
 * 120 GEMM calibration shapes, 60 held-out GEMM shapes).
 *
 * What depends on the device:
 *   - sizes: N = C / eta for the paper's eta values, which are those of GB10
 *     (C = 1280, N = 3072, 4096, 6144 -> eta = 5/12, 5/16, 5/24), so every
 *     size is above C whatever C is; the held-out sizes follow the same rule
 *     (GB10: 4096 and 5120, eta = 5/16 and 1/4);
 *   - occupancies: a TMA family (o, tma, d) is feasible when o CTAs, each with
 *     d buffers of block_bytes plus its barriers and the per-CTA reservation,
 *     fit into the shared memory of one SM. The seven families are one per
 *     depth, the synchronous path (d = 0) and TMA d = 1..6, each at the
 *     highest feasible occupancy, at most `max_occupancy` (default 2, a cost
 *     bound: simulated time grows with o). GB10 (100 KiB per SM) gives
 *     exactly the shipped deploy/plans/scan-paper.json (o = 2 up to d = 3,
 *     o = 1 from d = 4). A device on which d = 6 does not fit once is refused
 *     with the family named, never given a smaller plan silently.
 * GEMM shapes are device-independent (they are the paper's grids).
 *
 * Beside the paper's plans, two kinds put where the fills decide the time
 * on a device like the H100 (docs/plans.md, "Where fills decide the time";
 * chosen from the 2026-11-26 H100 runs, docs/results-h100.md):
 *   - scan-dram: the seven families at m = 0 and 6 at the capacity edge,
 *     N = C x {21, 22, 24, 26, 28} / 20 (1.05 C to 1.4 C), W = 4 and 16: the
 *     fills per round move between 1/W (the ring stays resident) and 1 (every
 *     round refills), which cost the H100's synchronous path 59 % more time
 *     per block in the probe's capacity scan; every size stays above C;
 *   - gemm-dram: skinny direct-raster grids, one tile row (or column) by 264
 *     or 528 tiles, Kg = 8192 and 16384, and one row of 132 tiles with
 *     Kg = 32768: every B (A) tile is read by one CTA only, so at least half
 *     of the bytes read are fills (K_0 / M >= 1/2), above the share (DRAM
 *     over L2 peak, 0.44 on the H100, plus 10 %) at which an L2-bound kernel
 *     becomes DRAM-bound.
 *
 * The attention plans (docs/attention.md; the paper's exploratory
 * FlashAttention-2 protocol: 96 reference and 24 held-out runs at disjoint
 * sequence lengths over depths 1-3, and 15 further held-out (N, W, d) cells
 * with two repeats each) measure the default tiling (pascal/attention.h),
 * one key per depth d = 1..3 at the occupancy its shared memory allows
 * (pascal_attention_occupancy, capped like the scan's), N in K/V steps:
 *   - attention: N = C x {30, 40, 60, 80} / 20 (1.5 C to 4 C), W in
 *     {1, 3, 8, 24}, two repeats: 3 x 4 x 4 x 2 = 96 runs;
 *   - attention-heldout: N = C x {50, 70} / 20 (between the reference
 *     sizes), the same horizons, once: 24 runs;
 *   - attention-cells: parts 1..5, one (N, W) cell each off both grids
 *     (N = C x {35, 45, 55, 65, 75} / 20 with W = 2, 12, 5, 20, 16), the
 *     three depths, two repeats: 15 cells, 30 runs.
 * The off-grid panel puts runs where users ask but neither the calibration
 * nor the held-out panel measures (docs/expected-error.md, "The off-grid
 * panel"); it is measured like a held-out panel, never fitted and never
 * used to set an answer's interval, only to score it:
 *   - scan-offgrid, the seven families, two repeats, four parts: (1) N =
 *     16C/5 at W = 2, 32 (between the horizons) and 96 (beyond), m = 1 and
 *     12; (2) N = 2C and 12C (below and far beyond the sizes) at W = 16,
 *     m = 2 and 13; (3) m = 16, 17, 18 (beyond the compute values, one per
 *     class) at N = 16C/5, W = 16; (4) m = 9, N = 8C, W = 8 (all three off
 *     their grids): 84 + 56 + 42 + 14 = 196 runs;
 *   - gemm-offgrid, 22 shapes, two repeats: Kg = 512, 3072 and 16384 on
 *     three calibrated grids, grids with Mg or Ng of 128 (below) or 16384 /
 *     8192 (beyond), and grids and Kg between the calibrated ones.
 *
 * Configuration runs (docs/autotuning.md "Configurations", measured on the
 * GPU host by measure.sh's configs phase):
 *   - gemm-configs: three shapes, each configuration of the device's list
 *     that fits its shared memory (pascal_gemm_ctas_per_sm), once: timed
 *     runs of tiles, stages and rasters other than the calibration's own,
 *     which a bundle keeps as its "configurations" and the step overhead is
 *     fitted on (gemm_config_fit.c). A device that states no shared memory
 *     per SM (smem_per_sm 0: how the shipped sim bundles' configurations
 *     were measured, tools/measure-configs.py) gets nine configurations over
 *     32 x 64 x 32 to 128 x 128 x 64 tiles, stages 2 to 4, G = 1 and 8, one
 *     at 1 byte, on three of the GEMM calibration's grids (27 runs); a
 *     device that states it (a GPU host, or a sim profile that states one)
 *     the eight configurations the project's own staged kernel runs as
 *     stated (the 128 x 128 x 64 FP16 tile at 1 to 4 stages, G = 1 and 8)
 *     that fit, on 4096^3, 2048 x 2048 x 8192 and 8192 x 1024 x 4096 (all
 *     eight, 24 runs, on an H100's 228 KiB; stages 1 to 3, 18 runs, on
 *     100 KiB).
 *
 * The held-out scan panel is not one cross product of sizes and horizons,
 * so it is emitted as PASCAL_PLAN_SCAN_HELDOUT_PARTS ordinary plans (parts
 * 1..n), one per held-out size; together they hold 42 keys x 5 (N, W) pairs
 * x 2 repeats = 420 runs.
 */
#ifndef PASCAL_PLAN_GEN_H
#define PASCAL_PLAN_GEN_H

#include <stddef.h>
#include <stdint.h>

#include "pascal/error.h"
#include "pascal/plan.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum pascal_plan_kind {
  PASCAL_PLAN_KIND_SCAN = 0,              /* 63 keys x 3 sizes x 4 horizons = 756 runs */
  PASCAL_PLAN_KIND_SCAN_HELDOUT = 1,      /* 42 keys, parts 1..2, 420 runs in all       */
  PASCAL_PLAN_KIND_GEMM = 2,              /* 120 shapes                                 */
  PASCAL_PLAN_KIND_GEMM_HELDOUT = 3,      /* 60 shapes                                  */
  PASCAL_PLAN_KIND_SCAN_DRAM = 4,         /* 14 keys x 5 sizes x 2 horizons = 140 runs  */
  PASCAL_PLAN_KIND_GEMM_DRAM = 5,         /* 10 shapes                                  */
  PASCAL_PLAN_KIND_SCAN_OFFGRID = 6,      /* parts 1..4, 196 runs in all                */
  PASCAL_PLAN_KIND_GEMM_OFFGRID = 7,      /* 22 shapes x 2 repeats = 44 runs            */
  PASCAL_PLAN_KIND_ATTENTION = 8,         /* 3 keys x 4 sizes x 4 horizons x 2 = 96     */
  PASCAL_PLAN_KIND_ATTENTION_HELDOUT = 9, /* 3 keys x 2 sizes x 4 horizons = 24         */
  PASCAL_PLAN_KIND_ATTENTION_CELLS = 10,  /* parts 1..5: 3 keys x 1 cell x 2 = 6        */
  PASCAL_PLAN_KIND_GEMM_CONFIGS = 11      /* 3 shapes x the configurations that fit     */
} pascal_plan_kind;

#define PASCAL_PLAN_SCAN_HELDOUT_PARTS    2u
#define PASCAL_PLAN_SCAN_OFFGRID_PARTS    4u
#define PASCAL_PLAN_ATTENTION_CELL_PARTS  5u
/* The most parts any kind is written as. */
#define PASCAL_PLAN_PARTS_MAX             PASCAL_PLAN_ATTENTION_CELL_PARTS
/* Bytes of shared memory the driver reserves per resident CTA (sm_80 on). */
#define PASCAL_PLAN_SMEM_RESERVED_PER_CTA 1024u

/* What the generator needs to know about the device (from its probe). */
typedef struct pascal_plan_device {
  uint64_t capacity_blocks; /* effective L2 capacity C in blocks, >= 1     */
  uint32_t block_bytes;     /* bytes per block (16384), multiple of 16     */
  uint64_t smem_per_sm;     /* shared memory per SM in bytes; 0: no limit
                               (the CPU sim device)                        */
  uint32_t max_occupancy;   /* cap on every family's occupancy; 0: 2       */
} pascal_plan_device;

/* "scan", "scan-heldout", "gemm", "gemm-heldout", "scan-dram", "gemm-dram",
 * "scan-offgrid", "gemm-offgrid", "attention", "attention-heldout",
 * "attention-cells", "gemm-configs"; NULL for an invalid kind. */
const char *pascal_plan_kind_name(pascal_plan_kind kind);
/* Whether the kind is a scan-shaped plan, scan or attention (it then
 * depends on the device). */
int pascal_plan_kind_is_scan(pascal_plan_kind kind);
/* Parse the names above; PASCAL_EINVAL (field "kind") otherwise. */
pascal_status pascal_plan_kind_parse(const char *text, pascal_plan_kind *out, pascal_error *err);
/* Number of plan files the kind is emitted as (scan-heldout: 2,
 * scan-offgrid: 4, attention-cells: 5, else 1). */
unsigned pascal_plan_kind_parts(pascal_plan_kind kind);

/* Highest occupancy o at which o CTAs with d TMA buffers of block_bytes fit
 * into smem_per_sm (the kernel's layout: 8-byte barriers padded to 128 bytes,
 * then the buffers, plus the per-CTA reservation); 0 if not even one fits.
 * d = 0 (synchronous path) needs no buffers: the result is then UINT32_MAX,
 * as it is whenever smem_per_sm is 0 (no limit). */
uint32_t pascal_plan_max_occupancy(uint64_t smem_per_sm, uint32_t d, uint32_t block_bytes);

/* Build plan `part` (1-based; 1 for kinds with one part) of `kind` for the
 * device into *out (initialised with pascal_plan_init; the caller frees it
 * with pascal_plan_free). The result is validated. Errors name the field:
 * "capacity_blocks", "block_bytes", "smem_per_sm" (with the family that does
 * not fit), "max_occupancy", "part". */
pascal_status pascal_plan_generate(const pascal_plan_device *dev, pascal_plan_kind kind,
                                   unsigned part, pascal_plan *out, pascal_error *err);

/* Refuse a scan plan with a size N not above the device's capacity C
 * (the gap law and the transfer in eta = C/N need C < N): PASCAL_EINVAL,
 * field "sizes[i]", message naming N and C. GEMM plans always pass. */
pascal_status pascal_plan_check_capacity(const pascal_plan *plan, uint64_t capacity_blocks,
                                         pascal_error *err);

#ifdef __cplusplus
}
#endif
#endif
