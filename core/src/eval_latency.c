/*
 * eval_latency.c - the latency columns of an evaluation, in the layout of
 * the paper's Table e2e (section "End-to-end latency with TileSight"): each
 * scored run that carries a kernel time is timed with four cache inputs
 * (the TileSight and Origami columns' fills, PASCAL's out-of-fold fills,
 * the measured fills) by one time source of pascal/time_model.h (the pipeline on the
 * device's peaks, the paper's protocol; or the time calibrated on the
 * calibration's own timings) and compared with its kernel time; a run is
 * DRAM-bound when its measured fills raise that source's time by more than
 * PASCAL_DRAM_BOUND_RISE over zero DRAM traffic. Rows are key-balanced like
 * the fill columns, with key-bootstrap intervals from pascal_key_bootstrap
 * (one group, the PASCAL_BOOTSTRAP_* settings) and paired gaps to PASCAL.
 */
#include "eval_latency.h"

#include <math.h>
#include <stdlib.h>

#include "pascal/time_model.h"

static const struct {
  const char *name, *title;
} cache_inputs[] = {
    [PASCAL_CACHE_TILESIGHT] = {"tilesight", "TileSight"},
    [PASCAL_CACHE_ORIGAMI] = {"origami", "Origami"},
    [PASCAL_CACHE_PASCAL] = {"pascal", "PASCAL"},
    [PASCAL_CACHE_MEASURED] = {"measured", "Measured"},
};
_Static_assert(sizeof cache_inputs / sizeof *cache_inputs == PASCAL_CACHE_COUNT,
               "every cache input has its name");

const char *pascal_cache_input_name(pascal_cache_input input)
{
  return (unsigned)input < PASCAL_CACHE_COUNT ? cache_inputs[input].name : "unknown";
}

const char *pascal_cache_input_title(pascal_cache_input input)
{
  return (unsigned)input < PASCAL_CACHE_COUNT ? cache_inputs[input].title : "unknown";
}

/* The source's time of the run with `fill_bytes` of DRAM fills. */
static pascal_status run_time(const pascal_model *model, pascal_time_source source,
                              const pascal_scan_run *scan, const pascal_gemm_run *gemm,
                              double fill_bytes, double *out, pascal_error *err)
{
  pascal_time t;
  pascal_status st =
      scan ? pascal_time_scan_from(model, source, &scan->key, scan->N, scan->W, fill_bytes, &t, err)
           : pascal_time_gemm_from(model, source, &gemm->shape, fill_bytes, &t, err);
  if (!st)
    *out = t.time_s;
  return st;
}

pascal_status pc_eval_latency_add(const pascal_model *model, pascal_time_source source,
                                  const pascal_scan_run *scan, const pascal_gemm_run *gemm,
                                  const double fills[PASCAL_CACHE_COUNT], eval_latency_acc *acc,
                                  pascal_error *err)
{
  bool timed = scan ? scan->has_kernel_ns && scan->kernel_ns > 0
                    : gemm->has_kernel_ns && gemm->kernel_ns > 0;
  if (!timed || !pascal_model_device(model)->has_peaks ||
      (source == PASCAL_TIME_CALIBRATED && !pascal_model_time_calibrated(model)))
    return PASCAL_OK;
  double kernel_s = 1e-9 * (scan ? scan->kernel_ns : gemm->kernel_ns);
  double t[PASCAL_CACHE_COUNT], t0;
  pascal_status st = run_time(model, source, scan, gemm, 0, &t0, err);
  for (int c = 0; !st && c < PASCAL_CACHE_COUNT; c++) {
    t[c] = NAN;
    if (isfinite(fills[c]) && fills[c] >= 0)
      st = run_time(model, source, scan, gemm, fills[c], &t[c], err);
  }
  if (st)
    return st;
  bool dram = t[PASCAL_CACHE_MEASURED] > (1 + PASCAL_DRAM_BOUND_RISE) * t0;
  acc->n_timed++;
  acc->n_dram += dram;
  for (int c = 0; c < PASCAL_CACHE_COUNT; c++) {
    double ape = fabs(t[c] / kernel_s - 1);
    acc->sum[c] += ape;
    if (dram)
      acc->dram_sum[c] += ape;
  }
  return PASCAL_OK;
}

void pc_eval_latency_key(const eval_latency_acc *acc, pascal_key_latency *out)
{
  out->n_timed = acc->n_timed;
  out->n_dram = acc->n_dram;
  for (int c = 0; c < PASCAL_CACHE_COUNT; c++) {
    out->mape[c] = acc->n_timed ? 100 * acc->sum[c] / (double)acc->n_timed : NAN;
    out->dram_mape[c] = acc->n_dram ? 100 * acc->dram_sum[c] / (double)acc->n_dram : NAN;
  }
}

/* The key's latency under `source`. */
static const pascal_key_latency *key_latency(const pascal_key_report *key,
                                             pascal_time_source source)
{
  return source == PASCAL_TIME_PEAKS ? &key->latency : &key->latency_calibrated;
}

/* Per-key value of input c (minus PASCAL's when `gap`) over the keys that
 * have runs in the row; false when one is not finite. */
static bool key_values(const pascal_key_report *keys, size_t n_keys, pascal_time_source source,
                       bool dram, int c, bool gap, double *v, size_t *n)
{
  *n = 0;
  for (size_t k = 0; k < n_keys; k++) {
    const pascal_key_latency *l = key_latency(&keys[k], source);
    if ((dram ? l->n_dram : l->n_timed) == 0)
      continue;
    const double *mape = dram ? l->dram_mape : l->mape;
    double x = mape[c] - (gap ? mape[PASCAL_CACHE_PASCAL] : 0);
    if (!isfinite(x))
      return false;
    v[(*n)++] = x;
  }
  return true;
}

/* Mean and bootstrap interval of v[0..n) (n >= 1). */
static pascal_status estimate(const double *v, size_t n, double *mean, pascal_interval *ci,
                              pascal_error *err)
{
  double sum = 0;
  for (size_t i = 0; i < n; i++)
    sum += v[i];
  *mean = sum / (double)n;
  return pascal_key_bootstrap(&v, &n, 1, PASCAL_BOOTSTRAP_RESAMPLES, PASCAL_BOOTSTRAP_SEED,
                              PASCAL_BOOTSTRAP_LEVEL, ci, err);
}

static pascal_status fill_row(const pascal_key_report *keys, size_t n_keys,
                              pascal_time_source source, bool dram, double *v,
                              pascal_latency_row *row, pascal_error *err)
{
  pascal_status st = PASCAL_OK;
  *row = (pascal_latency_row){0};
  for (size_t k = 0; k < n_keys; k++) {
    const pascal_key_latency *l = key_latency(&keys[k], source);
    size_t runs = dram ? l->n_dram : l->n_timed;
    row->n_runs += runs;
    row->n_keys += runs > 0;
  }
  for (int c = 0; c < PASCAL_CACHE_COUNT; c++) {
    row->mape[c] = row->gap[c] = NAN;
    row->ci[c] = row->gap_ci[c] = (pascal_interval){NAN, NAN};
  }
  for (int c = 0; !st && row->n_keys && c < PASCAL_CACHE_COUNT; c++) {
    size_t n;
    if (key_values(keys, n_keys, source, dram, c, false, v, &n))
      st = estimate(v, n, &row->mape[c], &row->ci[c], err);
    if (!st && key_values(keys, n_keys, source, dram, c, true, v, &n))
      st = estimate(v, n, &row->gap[c], &row->gap_ci[c], err);
  }
  return st;
}

pascal_status pc_eval_latency_rows(const pascal_key_report *keys, size_t n_keys,
                                   pascal_time_source source, pascal_latency_eval *out,
                                   pascal_error *err)
{
  *out = (pascal_latency_eval){0};
  double *v = malloc((n_keys ? n_keys : 1) * sizeof *v);
  if (!v)
    return pascal_error_set(err, PASCAL_ENOMEM, "keys", "out of memory");
  pascal_status st = fill_row(keys, n_keys, source, false, v, &out->all, err);
  if (!st)
    st = fill_row(keys, n_keys, source, true, v, &out->dram, err);
  out->evaluated = !st && out->all.n_keys > 0;
  free(v);
  return st;
}
