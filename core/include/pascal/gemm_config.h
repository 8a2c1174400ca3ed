/*
 * pascal/gemm_config.h - a GEMM across what a matmul autotuner varies: the
 * tile, the element size, the pipeline stages and the raster (Triton's
 * BLOCK_M x BLOCK_N x BLOCK_K, dtype, num_stages, GROUP_SIZE_M), beyond the
 * one configuration a calibration measured (paper section 4.5 and App. C
 * "GEMM instantiation" measure one tiling; the rest is this project's,
 * docs/autotuning.md "Configurations").
 *
 * Resources (gemm_config.c). A CTA holds `stages` k-steps of an A and a B
 * tile in shared memory, stages (tile_m + tile_n) tile_k elem_bytes bytes
 * (the rule of Triton's own early_config_prune), and an FP32 accumulator
 * tile in registers. Resident CTAs per SM: as many as shared memory holds,
 * at most as many accumulators as half of a 64 Ki-register file holds,
 * at most PASCAL_GEMM_CTAS_PER_SM_MAX; none fits: the device cannot run the
 * configuration (PASCAL_EREFUSED naming the field). Shared memory per SM is
 * the device's `smem_per_sm` when the bundle states it, else its compute
 * capability's (arch "sm_80", "sm_90", ...), else unknown: nothing is
 * refused and the calibration's own CTAs per SM are assumed.
 *
 * Raster (gemm_raster.c). CTA pid runs output tile (i, j) of Triton's
 * grouped order: groups of group_m tile rows, each swept column by column
 * (group_m = 1: row-major, the direct raster). Its static reference V_s is
 * the fills of the raster's waves of M CTAs in lock step under LRU: every
 * CTA of a wave reads its A row panel and B column panel (Kg tile_m
 * elem_bytes and Kg tile_n elem_bytes bytes) and, when it ends, writes its
 * output tile (tile_m tile_n PASCAL_GEMM_OUT_ELEM_BYTES bytes) into the
 * cache; a panel a wave reads again is a hit when the distinct panels read
 * and the output tiles written since its last wave fit in the capacity,
 * else it is read again. Stages do not enter V_s.
 *
 * Transfer (predict_config.c). A query is answered at its anchor: its shape
 * rounded to whole calibration tiles (at least one). Fills: the calibrated
 * prediction at the anchor, scaled by the static references of the query's
 * configuration over the calibration's at the anchor, within [B_0, Q] of
 * the query. Time: the calibrated time at the anchor (pascal_time_gemm),
 * scaled by the rounds model of the query's configuration over the
 * calibration's at the anchor. A query whose configuration is the
 * calibration's and whose shape is whole calibration tiles is the measured
 * answer, unchanged.
 *
 * Time (the rounds model). The c CTAs an SM holds at once start and end
 * together, so a grid of T CTAs runs ceil(ceil(T / c) / sm_count) rounds
 * of c CTAs on the busiest SM (a tail of fewer than sm_count c CTAs is
 * packed c to an SM, not spread), each round n_k k-iterations of
 *   max(c work, c L2 reads, c DRAM fills, (work + latency) / stages)
 * on the device's peaks: work = compute + o, compute = 2 tile_m tile_n
 * tile_k / (tensor FLOP/s / sm_count), o the step overhead; L2 reads
 * (tile_m + tile_n) tile_k elem_bytes / (L2 B/s / sm_count), fills the
 * predicted fills of one CTA's k-iteration / (DRAM B/s / sm_count);
 * latency is what a CTA alone waits per k-iteration beyond its work: the
 * calibrated iteration_s of pascal_gemm_time_fit minus the calibration's
 * compute and o (0 without calibrated times), which `stages` buffers
 * overlap. The step overhead o (pascal_gemm_time_fit.step_overhead_s) is
 * what a k-iteration costs beyond its matrix work on the SM's pipes,
 * whatever the tile: fitted on the calibration's runs of other
 * configurations (gemm_config_fit.c), 0 without them. Ignored: warps, the
 * epilogue, a CTA's launch and prologue, L2 contention between rounds.
 */
#ifndef PASCAL_GEMM_CONFIG_H
#define PASCAL_GEMM_CONFIG_H

#include <stdbool.h>
#include <stdint.h>

#include "pascal/calibration.h"
#include "pascal/error.h"
#include "pascal/predict.h"
#include "pascal/query.h"
#include "pascal/time_model.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The most resident CTAs per SM a configuration gets. */
#define PASCAL_GEMM_CTAS_PER_SM_MAX  8u
/* Register bytes of an SM the accumulators may take: half of 64 Ki 4-byte registers. */
#define PASCAL_GEMM_ACC_BYTES_PER_SM (128u * 1024u)

/* What the answer transferred from the calibration (bits of
 * pascal_gemm_config_answer.transferred). */
enum {
  PASCAL_GEMM_TRANSFER_TILE = 1u << 0,
  PASCAL_GEMM_TRANSFER_ELEM_BYTES = 1u << 1,
  PASCAL_GEMM_TRANSFER_STAGES = 1u << 2,
  PASCAL_GEMM_TRANSFER_GROUP_M = 1u << 3,
  PASCAL_GEMM_TRANSFER_SHAPE = 1u << 4 /* the shape is not whole calibration tiles */
};
#define PASCAL_GEMM_TRANSFER_COUNT 5
/* "tile", "elem_bytes", "stages", "group_m", "shape" (bit i of the enum), NULL past the end. */
const char *pascal_gemm_transfer_name(unsigned bit_index);

/* How CTAs per SM were found. */
typedef enum pascal_gemm_occupancy_source {
  PASCAL_OCCUPANCY_MEASURED = 0, /* the calibration's resident_ctas / sm_count  */
  PASCAL_OCCUPANCY_RESOURCES,    /* shared memory and accumulators (this header) */
  PASCAL_OCCUPANCY_ASSUMED       /* shared memory unknown: the calibration's    */
} pascal_gemm_occupancy_source;
/* "measured", "resources", "assumed". */
const char *pascal_gemm_occupancy_source_name(pascal_gemm_occupancy_source source);

/* How an answer reached a configuration (part of pascal_answer). */
typedef struct pascal_gemm_config_answer {
  pascal_gemm_config config;     /* the query's, the calibration's where not given   */
  pascal_gemm_config calibrated; /* the calibration's                                 */
  unsigned transferred;          /* PASCAL_GEMM_TRANSFER_* bits; 0: the measured answer */
  uint32_t ctas_per_sm;          /* resident CTAs per SM of `config`                 */
  pascal_gemm_occupancy_source occupancy;
  uint64_t smem_per_sm;       /* the device's, 0 when unknown                     */
  pascal_gemm_shape anchor;   /* the shape the calibration answered               */
  double anchor_fills;        /* its prediction there                             */
  double static_fills;        /* V_s of the query (transferred answers, else NaN) */
  double anchor_static_fills; /* V_s of the calibration at the anchor (ditto)     */
} pascal_gemm_config_answer;

/* The configuration of a query (fields 0: the calibration's `cal`). */
void pascal_gemm_config_resolve(const pascal_gemm_params *cal, const pascal_gemm_config *given,
                                pascal_gemm_config *out);
/* The configuration a calibration measured. */
void pascal_gemm_config_of(const pascal_gemm_params *cal, pascal_gemm_config *out);
/* The own kernel's tiling of configuration `c` with resident_ctas CTAs
 * resident at once (what pascal_gemm_geometry and the sim take). */
pascal_gemm_params pascal_gemm_params_of(const pascal_gemm_config *c, uint32_t resident_ctas);

/* Shared memory per SM of compute capability `arch` ("sm_90", "sm_121";
 * the table of gemm_config.c), 0 for one the table does not list. */
uint64_t pascal_gemm_smem_of_arch(const char *arch);

/* Shared memory per SM of `dev` in bytes (the header's rule), 0 when unknown. */
uint64_t pascal_gemm_smem_per_sm(const pascal_device *dev);

/* Shared memory one CTA of `c` holds: stages (tile_m + tile_n) tile_k elem_bytes. */
uint64_t pascal_gemm_smem_per_cta(const pascal_gemm_config *c);

/* Resident CTAs per SM of `c` on an SM with smem_per_sm bytes of shared
 * memory (0: unknown, *out = `assumed`). PASCAL_EREFUSED when not one CTA
 * fits, naming "stages" (shared memory; "tile_k" when one stage does not
 * fit either) or "tile_m" (the accumulator), with the bytes in the message. */
pascal_status pascal_gemm_ctas_per_sm(uint64_t smem_per_sm, const pascal_gemm_config *c,
                                      uint32_t assumed, uint32_t *out, pascal_error *err);

/* Output tile (*i, *j) of CTA `pid` in the grouped raster of group_m rows
 * over n_r x n_c tiles (pid < n_r n_c; group_m >= 1). */
void pascal_gemm_raster_tile(uint32_t n_r, uint32_t n_c, uint32_t group_m, uint64_t pid,
                             uint32_t *i, uint32_t *j);

/* Bytes per output element a CTA writes: the FP32 accumulators, as the
 * calibration kernel (kernels/gemm.cu) and the sim's GEMM write them. */
#define PASCAL_GEMM_OUT_ELEM_BYTES 4u

/* The most output tiles the static reference walks: 4 Mi, a 32768 x 32768
 * output of 16 x 16 tiles or 262144 x 262144 of 128 x 128. The walk took
 * at most about 30 ns a tile on the 2-core development machine (small
 * tiles, a raster whose columns come back within a few waves), so one
 * answer costs at most about 0.15 s of CPU; 128 x 128 tiles about 7 ns. */
#define PASCAL_GEMM_STATIC_TILES_MAX (UINT64_C(1) << 22)

/* The raster's static reference V_s in bytes (the header's rule) of a
 * Mg x Ng x Kg GEMM of configuration `c` (the shape whole tiles of it), M
 * CTAs resident at once, a cache of capacity_bytes. PASCAL_EINVAL naming
 * "Mg", "Ng", "Kg" for a shape off the tile grid, "M" for M = 0;
 * PASCAL_ERANGE naming "Mg" for more than PASCAL_GEMM_STATIC_TILES_MAX
 * output tiles; PASCAL_ENOMEM. */
pascal_status pascal_gemm_static_fills(const pascal_gemm_shape *shape, const pascal_gemm_config *c,
                                       uint32_t M, double capacity_bytes, double *out,
                                       pascal_error *err);

/* The time of query `q` answered as `ca` says (pascal_answer_query fills
 * `ca`) with fills of fill_bytes, its anchor's with anchor_fill_bytes: the
 * anchor's time (pascal_time_gemm) times the pipeline's ratio (the header's
 * "Transfer"), or the anchor's own when nothing was transferred. The
 * answer's time is this with the predicted fills; other fills (B_0 of
 * both: the aligned reference) time the same configuration otherwise.
 * Errors of pascal_time_gemm and pascal_latency_gemm (ENOTFOUND "peaks"). */
pascal_status pascal_gemm_time_config(const pascal_model *model, const pascal_gemm_query *q,
                                      const pascal_gemm_config_answer *ca, double fill_bytes,
                                      double anchor_fill_bytes, pascal_time *out,
                                      pascal_error *err);

/* One configuration's place in a ranking (pascal_gemm_rank). */
typedef struct pascal_gemm_ranked {
  size_t index;            /* of the configuration in the caller's list         */
  pascal_status status;    /* PASCAL_OK, or why it has no time (PASCAL_EREFUSED:
                              the device cannot run it; PASCAL_ENOTFOUND: the
                              device has no peaks, nothing is timed)          */
  double time_s;           /* the answer's time_s; INFINITY without a time      */
  pascal_gemm_shape shape; /* what was answered: the problem in whole tiles    */
} pascal_gemm_ranked;

/* Rank configs[0..n-1] for an Mg x Ng x Kg problem by predicted time, as an
 * autotuner asks: each configuration (its 0 members the calibration's, as
 * in a query) is answered by pascal_answer_query on the problem padded up
 * to whole tiles of its own tile (a masked kernel's grid). out[0..n-1]
 * lists them fastest first, equal times in the caller's order, those
 * without a time last (in the caller's order). PASCAL_EINVAL naming "Mg",
 * "Ng" or "Kg" for a dimension of 0 (out untouched); otherwise PASCAL_OK,
 * whatever each configuration's status. */
pascal_status pascal_gemm_rank(const pascal_model *model, const pascal_gemm_shape *problem,
                               const pascal_gemm_config *configs, size_t n, pascal_gemm_ranked *out,
                               pascal_error *err);

#ifdef __cplusplus
}
#endif
#endif
