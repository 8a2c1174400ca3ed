/*
 * pascal/evaluate.h - configuration-balanced MAPE (paper Eq.
 * dynamic_selection), leave-one-key-out evaluation (section 4.4), the
 * held-out panel (section 5.4) and the summary of the paper's comparison
 * table: 95% paired key-bootstrap intervals, the repeat-to-repeat floor and
 * the share of diverged runs.
 *
 * A key is a scan configuration (o, path, d, m) or, for GEMM, a reference
 * grid (Mg, Ng) (its curve runs over Kg). A fold removes one key at every
 * size and horizon (every N and W, every Kg), refits the whole model from the
 * remaining runs and predicts each held-out run; every measured run (each
 * repeat) is scored against its own observed K. A panel (held-out or
 * off-grid) is scored the same way by the model fitted to all calibration
 * runs, and for coverage by the intervals its answers carry
 * (pascal/interval.h): its runs never enter any fit or interval. The same runs are scored with the
 * baselines: aligned K = 1 (K_0 for GEMM, the uniform-advance assumption of TileSight-style
 * models), exact SDCM, TileSight's SDCM arithmetic, PPT-GPU as published and Che, all from
 * pascal/baselines.h under the uniform-advance reuse profile, whole-run K (cold first pass
 * included); the SDCM-based columns use the paper's hit rule of 8 ways (C/8 sets; fully associative
 * when C is not a multiple of 8). GEMM baselines need square tiles (tile_m == tile_n), else they
 * are NaN. GEMM runs are also scored with Origami, the analytical selector of tritonBLAS
 * (pascal/origami.h): its predicted DRAM traffic under the kernel's raster (the own kernel's
 * row-major; NaN for cuBLASLt, whose raster is not known), K = M (1 - H); NaN for scans and
 * attention.
 *
 * When the device has peaks, the scored runs that carry a kernel time are
 * also timed with four cache inputs (the TileSight column's fills,
 * Origami's, PASCAL's and the measured ones; paper section "End-to-end
 * latency with TileSight", Table e2e) by two time sources (pascal/time_model.h): the
 * pipeline on peaks, the paper's protocol (`latency`), and the time
 * calibrated on the fold's own calibration runs (`latency_calibrated`; a
 * fold's key never enters its own time fit, a panel never enters any).
 *
 * A run the model refuses (its class has no other reference, say) is
 * counted as refused and scored by no method, so all methods are compared on
 * the same runs. Keys with no scored run are left out of the balanced means.
 */
#ifndef PASCAL_EVALUATE_H
#define PASCAL_EVALUATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pascal/calibration.h"
#include "pascal/error.h"
#include "pascal/interval.h"
#include "pascal/predict.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The evaluation methods: one row each, in the order of pascal_method,
 *   X(ID, name, key, title, label, column, k)
 * ID      PASCAL_METHOD_<ID>;
 * name    stable name (pascal_method_name);
 * key     its member in reports and tables ("exact_sdcm"; reports written
 *         before the TileSight column existed call exact SDCM "sdcm");
 * title   its column heading in tables (the CLI's, the dashboard's);
 * label   its legend in plots;
 * column  its place in the paper's comparison table (0: PASCAL);
 * k       the function of loko_baselines.c that reads its prediction of a
 *         scored run (PASCAL's own answer, or one of pascal_baseline_k).
 * Everything that lists methods (the evaluation, the report and table codec,
 * the CLI's tables, the plots, the dashboard through GET /v1/schema) reads
 * this table, so adding a method is one row here and its k function. */
#define PASCAL_METHODS(X)                                                                          \
  /* this model, out of fold */                                                                    \
  X(PASCAL, "pascal", "pascal", "PASCAL", "PASCAL (LOKO folds)", 0, k_pascal)                      \
  /* K = 1 (scan) / K = K_0 (GEMM): uniform advance */                                             \
  X(ALIGNED, "aligned", "aligned", "aligned K=1", "aligned (K=1)", 4, k_aligned)                   \
  /* stack-distance model, exact binomial */                                                       \
  X(EXACT_SDCM, "exact-sdcm", "exact_sdcm", "exact SDCM", "exact SDCM", 3, k_exact_sdcm)           \
  /* PPT-GPU's normal approximation of SDCM, as published */                                       \
  X(PPTGPU, "ppt-gpu", "ppt_gpu", "PPT-GPU", "PPT-GPU", 2, k_ppt_gpu)                              \
  /* Che's characteristic-time approximation */                                                    \
  X(CHE, "che", "che", "Che", "Che", 5, k_che)                                                     \
  /* SDCM as TileSight's code computes it */                                                       \
  X(TILESIGHT, "tilesight", "tilesight", "TileSight", "TileSight SDCM", 1, k_tilesight)            \
  /* tritonBLAS's analytical selector: unique tiles per timestep (GEMM only) */                    \
  X(ORIGAMI, "origami", "origami", "Origami", "Origami (tritonBLAS)", 6, k_origami)

typedef enum pascal_method {
#define PASCAL_METHOD_ENUM(id, name, key, title, label, column, k) PASCAL_METHOD_##id,
  PASCAL_METHODS(PASCAL_METHOD_ENUM)
#undef PASCAL_METHOD_ENUM
      PASCAL_METHOD_COUNT
} pascal_method;

/* The former name of the exact-binomial column, kept so that code written
 * before the TileSight column existed still compiles. */
#define PASCAL_METHOD_SDCM PASCAL_METHOD_EXACT_SDCM

/* A method's row of PASCAL_METHODS. */
typedef struct pascal_method_info {
  const char *name, *key, *title, *label;
  unsigned column;
} pascal_method_info;

/* The row of `method`; NULL for a value that is not a method. */
const pascal_method_info *pascal_method_info_of(pascal_method method);
/* The method in column `column` (< PASCAL_METHOD_COUNT) of the comparison
 * table. */
pascal_method pascal_method_at_column(unsigned column);
/* Its stable name ("pascal", "aligned", "exact-sdcm", "ppt-gpu", "che",
 * "tilesight", "origami"), "unknown" for a value that is not a method. */
const char *pascal_method_name(pascal_method method);

/* Balanced MAPE in percent: (100/|Z|) sum_z (1/n_z) sum_j |pred/obs - 1| over
 * the keys z that have at least one run. key[i] < n_keys says which key run i
 * belongs to; obs[i] must be > 0 and finite, pred[i] finite (field
 * "obs[i]"/"pred[i]"/"key[i]"). PASCAL_EINVAL if no key has a run. */
pascal_status pascal_balanced_mape(const size_t *key, const double *pred, const double *obs,
                                   size_t n_runs, size_t n_keys, double *out_percent,
                                   pascal_error *err);

/* A two-sided interval; both NaN when it cannot be computed. */
typedef struct pascal_interval {
  double lo, hi;
} pascal_interval;

/* The paper's intervals: 2000 resamples, seed 12 (the issue the table
 * belongs to; any fixed seed would do), 95%. */
#define PASCAL_BOOTSTRAP_RESAMPLES 2000u
#define PASCAL_BOOTSTRAP_SEED      UINT64_C(12)
#define PASCAL_BOOTSTRAP_LEVEL     0.95

/* Percentile key-bootstrap interval of a balanced mean over groups (one group
 * per workload and device). The statistic is (1/G) sum_g mean of values[g]
 * over n[g] keys drawn with replacement from group g; it is computed for
 * `resamples` draws and the interval is its (1 - level)/2 and (1 + level)/2
 * quantiles, each interpolated linearly between order statistics at
 * position q (resamples - 1) (Hyndman-Fan type 7). Paired comparisons pass
 * per-key differences (baseline minus PASCAL): the mean is linear, so that is
 * the difference of the two balanced MAPEs over the same resampled keys.
 * Draws come from splitmix64 seeded with `seed` (an index is floor(u n) with
 * u the top 53 bits / 2^53), so a seed gives the same interval everywhere.
 * Errors: no group, a group without keys ("n[g]"), a non-finite value
 * ("values[g][i]"), resamples < 1, level outside (0, 1); ENOMEM. */
pascal_status pascal_key_bootstrap(const double *const *values, const size_t *n, size_t n_groups,
                                   size_t resamples, uint64_t seed, double level,
                                   pascal_interval *out, pascal_error *err);

/* The cache inputs of the latency pipeline (pascal/latency.h) compared by
 * the paper's Table e2e (section "End-to-end latency with TileSight"). */
typedef enum pascal_cache_input {
  PASCAL_CACHE_TILESIGHT = 0, /* fills of the TILESIGHT method (its SDCM)   */
  PASCAL_CACHE_ORIGAMI = 1,   /* fills of the ORIGAMI method (GEMM only)    */
  PASCAL_CACHE_PASCAL = 2,    /* PASCAL's predicted fills (out of fold)     */
  PASCAL_CACHE_MEASURED = 3,  /* the run's measured fills: the pipeline's
                                 error floor                                */
  PASCAL_CACHE_COUNT = 4
} pascal_cache_input;

/* "tilesight", "origami", "pascal", "measured". */
const char *pascal_cache_input_name(pascal_cache_input input);
/* Its column heading: "TileSight", "Origami", "PASCAL", "Measured". */
const char *pascal_cache_input_title(pascal_cache_input input);

/* A run is DRAM-bound when its measured fills raise the predicted time by
 * more than this share over zero DRAM traffic. */
#define PASCAL_DRAM_BOUND_RISE 0.02

/* Latency of one key: the scored runs that carry a kernel time, each timed
 * by the pipeline with each cache input on the device's peaks. */
typedef struct pascal_key_latency {
  size_t n_timed;                       /* scored runs with kernel_ns      */
  size_t n_dram;                        /* of those, DRAM-bound            */
  double mape[PASCAL_CACHE_COUNT];      /* percent |t/kernel - 1|; NaN if
                                           no run or the input is missing  */
  double dram_mape[PASCAL_CACHE_COUNT]; /* the same over the DRAM-bound runs */
} pascal_key_latency;

/* One row of Table e2e: key-balanced latency MAPE per cache input with its
 * key-bootstrap interval, and each input's gap to PASCAL's (input minus
 * PASCAL, paired), as pascal_eval_summary does for fills. */
typedef struct pascal_latency_row {
  size_t n_keys, n_runs;           /* keys with a timed run, runs   */
  double mape[PASCAL_CACHE_COUNT]; /* NaN where undefined           */
  pascal_interval ci[PASCAL_CACHE_COUNT];
  double gap[PASCAL_CACHE_COUNT]; /* 0 for PASCAL itself           */
  pascal_interval gap_ci[PASCAL_CACHE_COUNT];
} pascal_latency_row;

typedef struct pascal_latency_eval {
  bool evaluated;          /* the device has peaks and a scored run has a
                              kernel time; else the rows are empty         */
  pascal_latency_row all;  /* every timed run                              */
  pascal_latency_row dram; /* the DRAM-bound runs (n_keys 0: none)         */
} pascal_latency_eval;

/* Per-key result of a leave-one-key-out evaluation or a held-out panel. */
typedef struct pascal_key_report {
  pascal_scan_key key;                    /* scan key                                       */
  uint32_t Mg, Ng;                        /* GEMM grid key                                  */
  size_t n_runs;                          /* held-out runs of the key                       */
  size_t n_scored;                        /* runs predicted (the rest were refused)         */
  pascal_rule rule;                       /* least direct rule of the fold's predictions    */
  double mape[PASCAL_METHOD_COUNT];       /* percent over the scored runs; NaN if
                                             none was scored or a baseline could
                                             not be computed                      */
  char refusal[PASCAL_ERROR_MESSAGE_MAX]; /* first refusal message, or ""    */
  size_t n_above;                         /* scored runs with observed K > 1.05 x aligned K */
  size_t n_floor_runs;                    /* runs with another repeat of their configuration */
  double floor_mape;                      /* percent: each of those runs predicted by the mean
                                             fill of its other repeats; NaN if none         */
  pascal_key_latency latency;             /* the pipeline on peaks; zero when the
                                             device has no peaks                    */
  pascal_key_latency latency_calibrated;  /* the calibrated time; zero without peaks
                                             or a calibrated time                   */
} pascal_key_report;

/* The row of the paper's comparison table for a set of scored keys. */
typedef struct pascal_eval_summary {
  double balanced_mape[PASCAL_METHOD_COUNT];   /* NaN where undefined          */
  pascal_interval ci[PASCAL_METHOD_COUNT];     /* key-bootstrap interval of each */
  double gap[PASCAL_METHOD_COUNT];             /* balanced_mape[m] minus PASCAL's:
                                                  positive when PASCAL is better;
                                                  0 for PASCAL itself          */
  pascal_interval gap_ci[PASCAL_METHOD_COUNT]; /* paired key-bootstrap        */
  double floor_mape;                           /* repeat-to-repeat floor, balanced over the keys
                                                  that have repeats; NaN if none                 */
  size_t n_runs, n_scored, n_above, n_floor_runs;
} pascal_eval_summary;

typedef struct pascal_loko_report {
  pascal_workload workload;
  size_t n_keys;                             /* keys of the calibration (of the panel)        */
  pascal_key_report *keys;                   /* n_keys entries, owned; scan order (o, path, d,
                                                m), GEMM order (Mg, Ng)                       */
  size_t n_runs;                             /* all runs                                      */
  size_t n_scored;                           /* runs scored by every method                   */
  size_t n_refused;                          /* runs refused by the fold model                */
  size_t n_keys_scored;                      /* keys with at least one scored run             */
  double balanced_mape[PASCAL_METHOD_COUNT]; /* percent, Eq.
                               dynamic_selection over the scored keys; NaN if
                               none or if the baseline is unavailable        */
  pascal_eval_summary summary;               /* intervals, gaps, floor, diverged runs      */
  pascal_latency_eval latency;               /* Table e2e rows of these runs: the
                                                pipeline on peaks (paper protocol)     */
  pascal_latency_eval latency_calibrated;    /* the same rows with the calibrated time  */
  struct pascal_loko_report *heldout;        /* owned: the held-out panel scored by
                                      the model of all calibration runs, when the
                                      calibration carries one; else NULL            */
  struct pascal_loko_report *offgrid;        /* owned: the off-grid panel, likewise        */
  pascal_coverage coverage;                  /* a panel's: how its runs fall in their
                                                answers' intervals (pascal/interval.h);
                                                level 0 for the folds                  */
} pascal_loko_report;

/* Summarise reports as one table row: balanced MAPE, intervals and the floor
 * averaged over the reports (the paper's "balanced overall" row for several;
 * the report's own row for one), intervals from the stratified paired key
 * bootstrap of pascal_key_bootstrap with the PASCAL_BOOTSTRAP_* settings.
 * Only scored keys count. Errors: no report, a report without scored keys. */
pascal_status pascal_eval_summarize(const pascal_loko_report *const *reports, size_t n,
                                    pascal_eval_summary *out, pascal_error *err);

/* Run leave-one-key-out over every key of `cal` (at least two keys), with the
 * summary; score each panel `cal` carries (`heldout`, `offgrid`).
 * *out is filled and owns `keys` and the panels; release it with
 * pascal_loko_report_free().
 * Errors: invalid calibration (named field), fewer than two keys, ENOMEM. */
pascal_status pascal_loko_run(const pascal_calibration *cal, pascal_loko_report *out,
                              pascal_error *err);

/* Score the panel `set` (PASCAL_RUNS_HELDOUT or PASCAL_RUNS_OFFGRID, at
 * least one run) of `cal` with the model fitted to all its calibration
 * runs, and its coverage by that model's intervals (built from the
 * calibration's folds, pascal_interval_build); same layout as a LOKO report
 * (no panels of its own). Errors: invalid calibration, another set ("set"),
 * empty panel ("heldout", "offgrid"), a fit that fails. */
pascal_status pascal_panel_run(const pascal_calibration *cal, pascal_run_set set,
                               pascal_loko_report *out, pascal_error *err);
/* pascal_panel_run of the held-out panel. */
pascal_status pascal_heldout_run(const pascal_calibration *cal, pascal_loko_report *out,
                                 pascal_error *err);
void pascal_loko_report_free(pascal_loko_report *report);

#ifdef __cplusplus
}
#endif
#endif
