/*
 * eval_latency.h - the latency columns of an evaluation (paper section
 * "End-to-end latency with TileSight", Table e2e), shared by evaluate.c:
 * one scored run timed by one time source (pascal/time_model.h) with each
 * cache input, the per-key totals, and the key-balanced rows with their
 * paired key-bootstrap intervals.
 */
#ifndef PASCAL_EVAL_LATENCY_H
#define PASCAL_EVAL_LATENCY_H

#include "pascal/evaluate.h"
#include "pascal/time_model.h"

/* Running totals of one key's timed runs. */
typedef struct eval_latency_acc {
  size_t n_timed, n_dram;
  double sum[PASCAL_CACHE_COUNT];
  double dram_sum[PASCAL_CACHE_COUNT];
} eval_latency_acc;

/* Time one scored run (exactly one of `scan`, `gemm` is set) by `source`
 * with each cache input and add its errors to `acc`: fills[c] are the
 * input's fill bytes for the whole run (NaN when the input is unavailable:
 * its error is then NaN). A run without a kernel time, a device without
 * peaks, or the calibrated source of a model without a calibrated time add
 * nothing. */
pascal_status pc_eval_latency_add(const pascal_model *model, pascal_time_source source,
                                  const pascal_scan_run *scan, const pascal_gemm_run *gemm,
                                  const double fills[PASCAL_CACHE_COUNT], eval_latency_acc *acc,
                                  pascal_error *err);

/* The key's MAPEs in percent (NaN where it has no run). */
void pc_eval_latency_key(const eval_latency_acc *acc, pascal_key_latency *out);

/* The rows of a report from its keys' latency under `source` (only keys
 * with scored runs count); `evaluated` false when no key has a timed run. */
pascal_status pc_eval_latency_rows(const pascal_key_report *keys, size_t n_keys,
                                   pascal_time_source source, pascal_latency_eval *out,
                                   pascal_error *err);

#endif
