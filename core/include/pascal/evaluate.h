/*
 * pascal/evaluate.h - configuration-balanced MAPE (paper Eq.
 * dynamic_selection) and leave-one-key-out evaluation (section 4.4).
 *
 * A key is a scan configuration (o, path, d, m) or, for GEMM, a reference
 * grid (Mg, Ng) (its curve runs over Kg). A fold removes one key at every
 * size and horizon (every N and W, every Kg), refits the whole model from the
 * remaining runs and predicts each held-out run; every measured run (each
 * repeat) is scored against its own observed K. The same held-out runs are
 * scored with the baselines: aligned K = 1 (K_0 for GEMM, the uniform-advance
 * assumption of TileSight-style models), SDCM, PPT-GPU and Che, all from
 * pascal/baselines.h under the uniform-advance reuse profile, whole-run K
 * (cold first pass included); SDCM and PPT-GPU use the paper's hit rule of
 * 8 ways (C/8 sets; fully associative when C is not a multiple of 8). GEMM
 * baselines need square tiles (tile_m == tile_n), else they are NaN.
 *
 * A run the fold's model refuses (its class has no other reference, say) is
 * counted as refused and scored by no method, so all methods are compared on
 * the same runs. Keys with no scored run are left out of the balanced means.
 */
#ifndef PASCAL_EVALUATE_H
#define PASCAL_EVALUATE_H

#include <stddef.h>
#include <stdint.h>

#include "pascal/calibration.h"
#include "pascal/error.h"
#include "pascal/predict.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum pascal_method {
  PASCAL_METHOD_PASCAL = 0,  /* this model, out of fold                 */
  PASCAL_METHOD_ALIGNED = 1, /* K = 1 (scan) / K = K_0 (GEMM)           */
  PASCAL_METHOD_SDCM = 2,    /* stack-distance model, exact binomial     */
  PASCAL_METHOD_PPTGPU = 3,  /* PPT-GPU's normal approximation of SDCM,
                                as published                            */
  PASCAL_METHOD_CHE = 4,     /* Che's characteristic-time approximation  */
  PASCAL_METHOD_COUNT = 5
} pascal_method;

/* "pascal", "aligned", "sdcm", "ppt-gpu", "che". */
const char *pascal_method_name(pascal_method method);

/* Balanced MAPE in percent: (100/|Z|) sum_z (1/n_z) sum_j |pred/obs - 1| over
 * the keys z that have at least one run. key[i] < n_keys says which key run i
 * belongs to; obs[i] must be > 0 and finite, pred[i] finite (field
 * "obs[i]"/"pred[i]"/"key[i]"). PASCAL_EINVAL if no key has a run. */
pascal_status pascal_balanced_mape(const size_t *key, const double *pred,
                                   const double *obs, size_t n_runs,
                                   size_t n_keys, double *out_percent,
                                   pascal_error *err);

/* Per-key result of a leave-one-key-out evaluation. */
typedef struct pascal_key_report {
  pascal_scan_key key;    /* scan key                                       */
  uint32_t Mg, Ng;        /* GEMM grid key                                  */
  size_t n_runs;          /* held-out runs of the key                       */
  size_t n_scored;        /* runs predicted (the rest were refused)         */
  pascal_rule rule;       /* least direct rule of the fold's predictions    */
  double mape[PASCAL_METHOD_COUNT]; /* percent over the scored runs; NaN if
                                       none was scored or a baseline could
                                       not be computed                      */
  char refusal[PASCAL_ERROR_MESSAGE_MAX]; /* first refusal message, or ""    */
} pascal_key_report;

typedef struct pascal_loko_report {
  pascal_workload workload;
  size_t n_keys;            /* keys of the calibration                       */
  pascal_key_report *keys;  /* n_keys entries, owned; scan order (o, path, d,
                               m), GEMM order (Mg, Ng)                       */
  size_t n_runs;            /* all runs                                      */
  size_t n_scored;          /* runs scored by every method                   */
  size_t n_refused;         /* runs refused by the fold model                */
  size_t n_keys_scored;     /* keys with at least one scored run             */
  double balanced_mape[PASCAL_METHOD_COUNT]; /* percent, Eq.
                               dynamic_selection over the scored keys; NaN if
                               none or if the baseline is unavailable        */
} pascal_loko_report;

/* Run leave-one-key-out over every key of `cal` (at least two keys).
 * *out is filled and owns `keys`; release it with pascal_loko_report_free().
 * Errors: invalid calibration (named field), fewer than two keys, ENOMEM. */
pascal_status pascal_loko_run(const pascal_calibration *cal,
                              pascal_loko_report *out, pascal_error *err);
void pascal_loko_report_free(pascal_loko_report *report);

#ifdef __cplusplus
}
#endif
#endif
