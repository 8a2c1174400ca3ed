/*
 * pascal/calibration.h - the calibration data model of the dynamic predictor
 * (paper section 4.1-4.2, Eq. dynamic_target; docs/design.md §4).
 *
 * A calibration is plain data: the device constants, the workload (scan,
 * GEMM or attention), the execution-class rule of the measured binary, the
 * GEMM tiling or the attention kernel's tiling, and the measured runs. Runs
 * enter only through the append functions, which validate each run and name
 * it in the error ("measurements[12].fill_bytes"), so every calibration
 * that exists in memory holds only positive, finite measurements of
 * well-formed configurations.
 *
 * Units: C = capacity_blocks (blocks of block_bytes bytes); a scan run of W
 * scans of N blocks that filled V bytes has K = V / (b W N); M = sm_count * o.
 * A GEMM run has K = M V / Q with M = gemm.resident_ctas (see predict.h).
 * An attention run is a scan run of its shared K/V blocks (pascal/attention.h:
 * N K/V steps of b bytes, W * M CTAs of one query tile each) whose fills
 * also hold the W M query tiles: K = (V - W M q) / (b W N), q the bytes of
 * one query tile (the query-adjusted shared K/V traffic).
 *
 * Ownership: pascal_calibration_init() leaves the struct owning no memory;
 * the append functions grow arrays owned by the struct; pascal_calibration_free()
 * releases them. Fields other than the run arrays may be assigned directly.
 */
#ifndef PASCAL_CALIBRATION_H
#define PASCAL_CALIBRATION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pascal/device_data.h"
#include "pascal/error.h"
#include "pascal/gemm_impl.h"
#include "pascal/latency.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum pascal_workload {
  PASCAL_WORKLOAD_SCAN = 0,     /* shared cyclic scan (Algorithm dynamic-kernel) */
  PASCAL_WORKLOAD_GEMM = 1,     /* tiled GEMM with shared operands (section 4.5)  */
  PASCAL_WORKLOAD_ATTENTION = 2 /* attention forward: a scan of shared K/V blocks
                                   (pascal/attention.h)                         */
} pascal_workload;

/* Whether a workload's runs are scan runs (scan_runs / heldout_scan_runs):
 * the scan and attention, whose runs are scans of the shared K/V blocks. */
static inline bool pascal_workload_scans(pascal_workload workload)
{
  return workload == PASCAL_WORKLOAD_SCAN || workload == PASCAL_WORKLOAD_ATTENTION;
}

typedef enum pascal_path {
  PASCAL_PATH_SYNC = 0, /* synchronous loads; the depth d is always 0 */
  PASCAL_PATH_TMA = 1   /* TMA bulk copies into d buffers              */
} pascal_path;

/* The execution-class rule of the measured binary (section 4.3, App. C
 * obstruction). It is a property of the calibration, never hard-wired. */
typedef enum pascal_class_rule {
  PASCAL_CLASS_MOD4_MIN2 = 0 /* "mod4-min2": chi(m) = min(m mod 4, 2) */
} pascal_class_rule;

#define PASCAL_DEVICE_NAME_MAX 64
#define PASCAL_DEVICE_ARCH_MAX 32

typedef struct pascal_device {
  char name[PASCAL_DEVICE_NAME_MAX];    /* NUL-terminated, non-empty            */
  char arch[PASCAL_DEVICE_ARCH_MAX];    /* NUL-terminated ("sm_121", "sim", ..) */
  uint32_t sm_count;                    /* streaming multiprocessors, >= 1      */
  uint32_t capacity_blocks;             /* effective L2 capacity C, >= 1        */
  uint32_t block_bytes;                 /* bytes per logical block b, >= 1      */
  int has_peaks;                        /* 1: `peaks` holds measured peaks      */
  pascal_peaks peaks;                   /* for the latency pipeline (latency.h) */
  int has_capacity_probe;               /* 1: the probe's capacity scan below   */
  pascal_capacity_probe capacity_probe; /* device_data.h; C = capacity_blocks */
  int has_static_table;                 /* 1: the static cluster experiment     */
  pascal_static_table static_table;     /* device_data.h                        */
  uint64_t smem_per_sm;                 /* shared memory per SM in bytes; 0:
                                           unknown (pascal_gemm_smem_per_sm) */
} pascal_device;

/* GEMM tiling (App. C "GEMM instantiation"); defaults 128 x 128 x 64, FP16,
 * the project's own kernel, stages and raster not stated. The fields after
 * resident_ctas are optional in a bundle (absent: 0, the own kernel), so a
 * bundle without them keeps its content hash; pascal/gemm_impl.h says which
 * each implementation states.
 *
 * `stages` and `group_m` are what a Triton matmul calls num_stages and
 * GROUP_SIZE_M: k-steps of A and B tiles a CTA keeps buffered, and the
 * raster's group of tile rows (1: row-major CTAs; G: Triton's grouped order,
 * G rows swept column by column, core/src/gemm_raster.c). 0 states neither:
 * the own kernel and the sim's calibration kernel then buffer
 * PASCAL_GEMM_KERNEL_STAGES (one) step (cuBLASLt chooses: AUTO) and run the
 * direct raster (cuBLASLt: its cta_swizzling); pascal_gemm_stages() and
 * pascal_gemm_group_m() give the values a kernel runs. */
typedef struct pascal_gemm_params {
  uint32_t tile_m;           /* output rows per CTA tile                        */
  uint32_t tile_n;           /* output columns per CTA tile                     */
  uint32_t tile_k;           /* reduction step per tile                         */
  uint32_t elem_bytes;       /* bytes per input element                         */
  uint32_t resident_ctas;    /* M: CTAs resident at once; must be set (>= 1)    */
  uint32_t stages;           /* buffered k-steps; 0: not stated (cuBLASLt: AUTO) */
  uint32_t group_m;          /* raster group of tile rows; 0: not stated (1)   */
  pascal_gemm_impl impl;     /* which GEMM was measured (bundle "impl")         */
  uint32_t algo;             /* cuBLASLt: the algo id; own kernel: 0            */
  uint32_t cta_swizzling;    /* cuBLASLt: 0 or 1; own kernel: 0                 */
  uint32_t split_k;          /* cuBLASLt: >= 1; own kernel: 0                   */
  uint32_t custom_option;    /* cuBLASLt: the algo's custom option; else 0  */
  uint32_t inner_shape_id;   /* cuBLASLt: inner shape id, 0 undefined; else 0 */
  uint32_t cluster_shape_id; /* cuBLASLt: cluster shape id, 0 auto; else 0 */
} pascal_gemm_params;

#define PASCAL_GEMM_STAGES_MAX 16u

/* The k-steps a kernel of tiling `g` buffers: g->stages, or for 0 (not
 * stated) PASCAL_GEMM_KERNEL_STAGES. */
static inline uint32_t pascal_gemm_stages(const pascal_gemm_params *g)
{
  return g->stages ? g->stages : PASCAL_GEMM_KERNEL_STAGES;
}

/* The raster group of tiling `g`: g->group_m, or 1 (direct) for 0. */
static inline uint32_t pascal_gemm_group_m(const pascal_gemm_params *g)
{
  return g->group_m ? g->group_m : 1;
}

/* What a matmul autotuner varies (Triton: BLOCK_M x BLOCK_N x BLOCK_K, the
 * dtype's size, num_stages, GROUP_SIZE_M; pascal/gemm_config.h). In a
 * query, 0 is a field not given: the calibration's value. */
typedef struct pascal_gemm_config {
  uint32_t tile_m, tile_n, tile_k;
  uint32_t elem_bytes; /* 1, 2, 4 or 8 */
  uint32_t stages;     /* 1..PASCAL_GEMM_STAGES_MAX */
  uint32_t group_m;    /* >= 1; 1 is the direct raster */
} pascal_gemm_config;

/* The tiling of a FlashAttention-2 forward kernel (pascal/attention.h): a
 * CTA holds one query tile of block_q rows and streams the shared K and V
 * in steps of block_kv rows; head_dim columns of elem_bytes bytes each.
 * Defaults 64, 64, 64, 2 (FP16): a K/V step is 16 KiB. */
typedef struct pascal_attention_params {
  uint32_t block_q;    /* query rows per CTA (its query tile)        */
  uint32_t block_kv;   /* K/V rows per pipeline step                 */
  uint32_t head_dim;   /* columns of Q, K, V and O                   */
  uint32_t elem_bytes; /* bytes per element of Q, K, V              */
} pascal_attention_params;

/* A scan configuration key z = (o, path, d, m); its family is (o, path, d). */
typedef struct pascal_scan_key {
  uint32_t o;       /* resident CTAs per SM, >= 1          */
  pascal_path path; /* sync or tma                          */
  uint32_t d;       /* prefetch depth; 0 for sync          */
  uint32_t m;       /* compute work per block               */
} pascal_scan_key;

typedef struct pascal_gemm_shape {
  uint32_t Mg, Ng, Kg; /* problem shape; multiples of tile_m, tile_n, tile_k */
} pascal_gemm_shape;

/* Optional fields: has_repeat / has_kernel_ns say whether they were given.
 * Two runs of one configuration are duplicates when their repeat indices are
 * equal (an absent repeat counts as repeat 0). */
typedef struct pascal_scan_run {
  pascal_scan_key key;
  uint32_t N;        /* scan length in blocks, >= 1           */
  uint32_t W;        /* scans per resident worker, >= 1       */
  double fill_bytes; /* measured DRAM->L2 fill bytes V, > 0   */
  bool has_repeat;
  uint32_t repeat;
  bool has_kernel_ns;
  double kernel_ns; /* finite, >= 0 when present */
} pascal_scan_run;

typedef struct pascal_gemm_run {
  pascal_gemm_shape shape;
  double fill_bytes; /* measured fill bytes V, > 0 */
  bool has_repeat;
  uint32_t repeat;
  bool has_kernel_ns;
  double kernel_ns;
} pascal_gemm_run;

/* A timed run of a GEMM configuration other than the calibration's own
 * (bundle "configurations"): fitted only for what a configuration's time
 * has beyond the calibrated one's, the per-k-iteration overhead
 * (pascal/gemm_config.h "Time"); never a fill curve, panel or interval. */
typedef struct pascal_gemm_config_run {
  pascal_gemm_config config; /* every member set                        */
  pascal_gemm_run run;       /* shape in whole tiles of `config`; fill_bytes
                                and kernel_ns required                     */
} pascal_gemm_config_run;

typedef struct pascal_calibration {
  pascal_device device;
  pascal_workload workload;
  pascal_class_rule class_rule;
  pascal_gemm_params gemm;           /* used when workload == PASCAL_WORKLOAD_GEMM */
  pascal_attention_params attention; /* used when workload == ATTENTION  */
  /* Runs in append order; read freely, grow only with the append functions.
   * Exactly one of the two arrays is used, according to workload (scan runs
   * for scan and attention, pascal_workload_scans). */
  pascal_scan_run *scan_runs;
  size_t n_scan_runs;
  pascal_gemm_run *gemm_runs;
  size_t n_gemm_runs;
  size_t capacity; /* allocated slots of the array in use (internal) */
  /* The held-out panel: runs measured like the ones above whose keys and
   * shapes never enter the fit; they are only predicted and scored
   * (pascal_heldout_run in pascal/evaluate.h). Same rules as the runs above;
   * grow only with pascal_calibration_append_heldout_*; may be empty. */
  pascal_scan_run *heldout_scan_runs;
  size_t n_heldout_scan_runs;
  pascal_gemm_run *heldout_gemm_runs;
  size_t n_heldout_gemm_runs;
  size_t heldout_capacity; /* internal */
  /* The off-grid panel: runs measured like the ones above where users ask
   * but neither the calibration nor the held-out panel measures (m, W, N
   * off their grids; GEMM grids and Kg outside or between the calibrated
   * ones). Never fitted and never used to set an answer's interval: only
   * predicted and scored (pascal_offgrid_run in pascal/evaluate.h). Same
   * rules as the held-out panel; may be empty. */
  pascal_scan_run *offgrid_scan_runs;
  size_t n_offgrid_scan_runs;
  pascal_gemm_run *offgrid_gemm_runs;
  size_t n_offgrid_gemm_runs;
  size_t offgrid_capacity; /* internal */
  /* GEMM only: timed runs of other configurations (may be empty); grow only
   * with pascal_calibration_append_config_run. */
  pascal_gemm_config_run *config_runs;
  size_t n_config_runs;
  size_t config_capacity; /* internal */
} pascal_calibration;

/* The three sets of runs a calibration holds. */
typedef enum pascal_run_set {
  PASCAL_RUNS_FIT = 0,     /* the calibration runs, the only ones fitted     */
  PASCAL_RUNS_HELDOUT = 1, /* the held-out panel ("heldout")                 */
  PASCAL_RUNS_OFFGRID = 2  /* the off-grid panel ("offgrid")                 */
} pascal_run_set;
#define PASCAL_RUN_SETS 3

/* The name of a set in bundles, plans and errors: "measurements",
 * "heldout", "offgrid"; NULL for a value that is not a set. */
const char *pascal_run_set_name(pascal_run_set set);

/* Empty calibration of `workload` with class rule mod4-min2, GEMM tiling
 * 128x128x64 with 2-byte elements, stages and raster not stated,
 * resident_ctas 0 (unset), attention tiling 64x64, head_dim 64, 2-byte
 * elements, and a zeroed device that the caller fills in. Owns no memory yet. */
void pascal_calibration_init(pascal_calibration *cal, pascal_workload workload);

/* Release the run arrays and reset to an empty calibration of the same
 * workload. Safe on an initialised or already-freed calibration. */
void pascal_calibration_free(pascal_calibration *cal);

/* Deep copy of `src` into `dst` (dst is overwritten, not freed first). */
pascal_status pascal_calibration_copy(pascal_calibration *dst, const pascal_calibration *src,
                                      pascal_error *err);

/* Check the device constants (field "device.sm_count", ...) and, for GEMM,
 * the tiling ("gemm.tile_m", ..., "gemm.resident_ctas", "gemm.stages",
 * "gemm.group_m"); for attention the kernel's tiling ("attention.block_q",
 * ...: each >= 1, block_q, block_kv and head_dim multiples of 16, one K/V
 * step 2 block_kv head_dim elem_bytes bytes equal to device.block_bytes). */
pascal_status pascal_calibration_check(const pascal_calibration *cal, pascal_error *err);

/* Validate `run` and append a copy. Errors name the run by the index it would
 * get, e.g. field "measurements[12].fill_bytes": wrong workload, o == 0,
 * unknown path, sync with d != 0, N or W == 0, fill_bytes not finite or
 * <= 0, kernel_ns not finite or < 0, a GEMM dimension that is 0 or not a
 * multiple of its tile ("measurements[3].Kg": "Kg (1000) is not a multiple of
 * tile_k (64)"), an attention run that is not on the tma path, whose m is
 * not its tiling's or whose fills do not exceed its query tiles' bytes, or a
 * duplicate of an earlier run (PASCAL_EINVAL), or PASCAL_ENOMEM. GEMM runs are checked against
 * cal->gemm, so set the tiling before appending. On failure the calibration is unchanged. */
pascal_status pascal_calibration_append_scan(pascal_calibration *cal, const pascal_scan_run *run,
                                             pascal_error *err);
pascal_status pascal_calibration_append_gemm(pascal_calibration *cal, const pascal_gemm_run *run,
                                             pascal_error *err);

/* The same for the held-out panel: errors name "heldout[3].fill_bytes";
 * duplicates are checked within the panel only. */
pascal_status pascal_calibration_append_heldout_scan(pascal_calibration *cal,
                                                     const pascal_scan_run *run, pascal_error *err);
pascal_status pascal_calibration_append_heldout_gemm(pascal_calibration *cal,
                                                     const pascal_gemm_run *run, pascal_error *err);

/* Append `run` to the run set `set` of `cal`, as the functions above do
 * (errors name "measurements[i]", "heldout[i]" or "offgrid[i]"; duplicates
 * are checked within the set). */
pascal_status pascal_calibration_append_scan_to(pascal_calibration *cal, pascal_run_set set,
                                                const pascal_scan_run *run, pascal_error *err);
pascal_status pascal_calibration_append_gemm_to(pascal_calibration *cal, pascal_run_set set,
                                                const pascal_gemm_run *run, pascal_error *err);

/* Validate a timed run of another configuration and append a copy (GEMM
 * only). Errors name "configurations[i].field": a configuration member out
 * of a query's range (pascal/query.h), one the device cannot run
 * (pascal_gemm_ctas_per_sm's field and reason), a dimension that is 0 or
 * not a multiple of the run's own tile, fill_bytes as above, kernel_ns
 * absent or not > 0, a duplicate (same configuration, shape and repeat);
 * PASCAL_ENOMEM. On failure the calibration is unchanged. */
pascal_status pascal_calibration_append_config_run(pascal_calibration *cal,
                                                   const pascal_gemm_config_run *run,
                                                   pascal_error *err);

/* The runs of set `set` (*scan or *gemm, the one of the calibration's
 * workload; either pointer may be NULL) and their number. */
size_t pascal_calibration_runs_of(const pascal_calibration *cal, pascal_run_set set,
                                  const pascal_scan_run **scan, const pascal_gemm_run **gemm);

/* Make the measurements of the `n_parts` calibrations `parts` together the
 * panel `set` (HELDOUT or OFFGRID) of `cal`, as pascal_calibration_set_heldout
 * does for the held-out panel (errors say "the off-grid panel" for OFFGRID). */
pascal_status pascal_calibration_set_panel(pascal_calibration *cal, pascal_run_set set,
                                           const pascal_calibration *const *parts, size_t n_parts,
                                           pascal_error *err);

/* Make the measurements of the `n_parts` calibrations `parts` together the
 * held-out panel of `cal`, replacing any panel `cal` had (`pascal evaluate
 * --heldout`; a panel measured in parts, e.g. one per size, is joined here).
 * Each part must be of the same workload, with the same device constants
 * (sm_count, capacity_blocks, block_bytes) and, for GEMM, the same tiling:
 * errors name "workload", "device.capacity_blocks", "gemm.tile_k", ..., and
 * "measurements" for a part without runs (or no part at all); the runs are
 * validated like any held-out run, duplicates across parts included. On
 * failure `cal` is unchanged. */
pascal_status pascal_calibration_set_heldout(pascal_calibration *cal,
                                             const pascal_calibration *const *parts, size_t n_parts,
                                             pascal_error *err);

/* Check every run (both panels included) as the append functions do
 * (duplicates excepted), for callers that filled the run arrays by other
 * means; errors name the run. */
pascal_status pascal_calibration_check_runs(const pascal_calibration *cal, pascal_error *err);

/* Number of runs of the calibration's workload (held-out panel excluded). */
size_t pascal_calibration_run_count(const pascal_calibration *cal);
/* Number of held-out panel runs of the calibration's workload. */
size_t pascal_calibration_heldout_count(const pascal_calibration *cal);

/* Execution class of compute m under the calibration's class rule
 * (mod4-min2: 0, 1 or 2). */
unsigned pascal_calibration_class(const pascal_calibration *cal, uint32_t m);
unsigned pascal_class_rule_apply(pascal_class_rule rule, uint32_t m);

/* Measured K of scan run `run` of `cal` (scan or attention, section 4.2's
 * target): V / (b W N), for attention (V - W M q) / (b W N) (see above). */
double pascal_calibration_scan_k(const pascal_calibration *cal, const pascal_scan_run *run);

/* Stable names and their parsers, for codecs and CLIs: "scan"/"gemm"/"attention",
 * "sync"/"tma", "mod4-min2". Parsers return PASCAL_EINVAL with `field` set to
 * the given field name for unknown names. */
const char *pascal_workload_name(pascal_workload workload);
const char *pascal_path_name(pascal_path path);
const char *pascal_class_rule_name(pascal_class_rule rule);
pascal_status pascal_workload_parse(const char *name, const char *field, pascal_workload *out,
                                    pascal_error *err);
pascal_status pascal_path_parse(const char *name, const char *field, pascal_path *out,
                                pascal_error *err);
pascal_status pascal_class_rule_parse(const char *name, const char *field, pascal_class_rule *out,
                                      pascal_error *err);

#ifdef __cplusplus
}
#endif
#endif
