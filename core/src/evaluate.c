/*
 * evaluate.c - configuration-balanced MAPE (paper Eq. dynamic_selection),
 * leave-one-key-out evaluation (section 4.4) and the held-out panel
 * (section 5.4): each fold removes one key at every size and horizon, refits
 * every curve and transfer from the other runs, predicts the held-out runs
 * and scores them, with the baselines of loko_baselines.h, on the same runs;
 * a panel is scored by the model of all calibration runs. Per key it also
 * counts diverged runs and the repeat-to-repeat floor, and times the runs
 * that carry a kernel time with each cache input, by the pipeline on peaks
 * and by the calibrated time of the same (fold) model (eval_latency.c);
 * eval_summary.c turns the keys into the table row.
 */
#include "pascal/evaluate.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "eval_latency.h"
#include "loko_baselines.h"
#include "model_internal.h"

pascal_status pascal_balanced_mape(const size_t *key, const double *pred, const double *obs,
                                   size_t n_runs, size_t n_keys, double *out_percent,
                                   pascal_error *err)
{
  char field[PASCAL_ERROR_FIELD_MAX];
  for (size_t i = 0; i < n_runs; i++) {
    if (key[i] >= n_keys) {
      snprintf(field, sizeof field, "key[%zu]", i);
      return pascal_error_set(err, PASCAL_EINVAL, field, "key %zu is not below n_keys (%zu)",
                              key[i], n_keys);
    }
    if (!isfinite(obs[i]) || obs[i] <= 0) {
      snprintf(field, sizeof field, "obs[%zu]", i);
      return pascal_error_set(err, PASCAL_EINVAL, field,
                              "observed values must be positive and finite");
    }
    if (!isfinite(pred[i])) {
      snprintf(field, sizeof field, "pred[%zu]", i);
      return pascal_error_set(err, PASCAL_EINVAL, field, "predicted values must be finite");
    }
  }
  double *sum = calloc(n_keys ? n_keys : 1, sizeof *sum);
  size_t *count = calloc(n_keys ? n_keys : 1, sizeof *count);
  if (!sum || !count) {
    free(sum);
    free(count);
    return pascal_error_set(err, PASCAL_ENOMEM, "key", "out of memory");
  }
  for (size_t i = 0; i < n_runs; i++) {
    sum[key[i]] += fabs(pred[i] / obs[i] - 1);
    count[key[i]]++;
  }
  double total = 0;
  size_t keys = 0;
  for (size_t k = 0; k < n_keys; k++)
    if (count[k]) {
      total += sum[k] / (double)count[k];
      keys++;
    }
  free(sum);
  free(count);
  if (keys == 0)
    return pascal_error_set(err, PASCAL_EINVAL, "key", "no key has a run to score");
  *out_percent = 100 * total / (double)keys;
  return PASCAL_OK;
}

/* The runs one evaluation scores: the calibration's or its held-out panel. */
typedef struct run_list {
  const pascal_scan_run *scan;
  const pascal_gemm_run *gemm;
  size_t n;
} run_list;

static run_list runs_of(const pascal_calibration *cal, bool heldout)
{
  if (heldout)
    return (run_list){cal->heldout_scan_runs, cal->heldout_gemm_runs,
                      pascal_calibration_heldout_count(cal)};
  return (run_list){cal->scan_runs, cal->gemm_runs, pascal_calibration_run_count(cal)};
}

/* Run indices sorted by key, so that each key's runs are contiguous. */
typedef struct loko_item {
  pascal_scan_key key; /* scan */
  uint32_t Mg, Ng;     /* gemm */
  size_t index;
} loko_item;

static int cmp_u32(uint32_t a, uint32_t b)
{
  return (a > b) - (a < b);
}

static int cmp_loko(const void *pa, const void *pb)
{
  const loko_item *a = pa, *b = pb;
  int c;
  if ((c = cmp_u32(a->key.o, b->key.o)) ||
      (c = cmp_u32((uint32_t)a->key.path, (uint32_t)b->key.path)) ||
      (c = cmp_u32(a->key.d, b->key.d)) || (c = cmp_u32(a->key.m, b->key.m)) ||
      (c = cmp_u32(a->Mg, b->Mg)) || (c = cmp_u32(a->Ng, b->Ng)))
    return c;
  return (a->index > b->index) - (a->index < b->index);
}

static bool same_key(const loko_item *a, const loko_item *b)
{
  return a->key.o == b->key.o && a->key.path == b->key.path && a->key.d == b->key.d &&
         a->key.m == b->key.m && a->Mg == b->Mg && a->Ng == b->Ng;
}

/* Observed K, the model's K and rule (or a refusal) and the baselines for
 * run `index` of `runs`. Returns PASCAL_EREFUSED (with err filled) for a
 * refusal. */
static pascal_status score_run(const pascal_calibration *cal, const run_list *runs,
                               const pascal_model *model, size_t index, double *obs,
                               double pred[PASCAL_METHOD_COUNT], pascal_rule *rule,
                               pascal_error *err)
{
  pascal_status st;
  pascal_baseline_k base;
  double K;
  if (cal->workload == PASCAL_WORKLOAD_SCAN) {
    const pascal_scan_run *r = &runs->scan[index];
    pascal_scan_prediction p;
    if ((st = pascal_model_predict_scan(model, &r->key, r->N, r->W, &p, err)))
      return st;
    *obs = r->fill_bytes / ((double)cal->device.block_bytes * r->W * (double)r->N);
    K = p.K;
    *rule = p.why.rule;
    if ((st = pc_loko_baselines_scan(r->N, r->W, p.M, cal->device.capacity_blocks, &base, err)))
      return st;
  } else {
    const pascal_gemm_run *r = &runs->gemm[index];
    pascal_gemm_prediction p;
    if ((st = pascal_model_predict_gemm(model, &r->shape, &p, err)))
      return st;
    *obs = p.M * r->fill_bytes / p.Q;
    K = p.K;
    *rule = p.why.rule;
    double tile_bytes = (double)cal->gemm.tile_m * cal->gemm.tile_k * cal->gemm.elem_bytes;
    if (cal->gemm.tile_m != cal->gemm.tile_n)
      tile_bytes = NAN; /* the baselines model square A/B tiles only */
    if ((st = pc_loko_baselines_gemm(p.n_r, p.n_c, p.n_k, p.M,
                                     (double)cal->device.capacity_blocks * cal->device.block_bytes,
                                     tile_bytes, &base, err)))
      return st;
  }
  pc_loko_methods(K, &base, pred);
  return PASCAL_OK;
}

/* Same configuration (scan: N and W; GEMM: Kg; the key is already equal),
 * whatever the repeat. */
static bool same_configuration(const pascal_calibration *cal, const run_list *runs, size_t a,
                               size_t b)
{
  if (cal->workload == PASCAL_WORKLOAD_SCAN)
    return runs->scan[a].N == runs->scan[b].N && runs->scan[a].W == runs->scan[b].W;
  return runs->gemm[a].shape.Kg == runs->gemm[b].shape.Kg;
}

static double fill_of(const pascal_calibration *cal, const run_list *runs, size_t i)
{
  return cal->workload == PASCAL_WORKLOAD_SCAN ? runs->scan[i].fill_bytes
                                               : runs->gemm[i].fill_bytes;
}

/* Repeat-to-repeat floor of one key: every run that has other repeats of its
 * configuration is predicted by their mean fill (the normalisation of K is
 * the same for all of them, so fills compare like K). */
static void key_floor(const pascal_calibration *cal, const run_list *runs, const loko_item *items,
                      size_t lo, size_t hi, pascal_key_report *kr)
{
  double sum = 0;
  for (size_t i = lo; i < hi; i++) {
    double others = 0;
    size_t n = 0;
    for (size_t j = lo; j < hi; j++)
      if (j != i && same_configuration(cal, runs, items[i].index, items[j].index)) {
        others += fill_of(cal, runs, items[j].index);
        n++;
      }
    if (n == 0)
      continue;
    sum += fabs(others / (double)n / fill_of(cal, runs, items[i].index) - 1);
    kr->n_floor_runs++;
  }
  kr->floor_mape = kr->n_floor_runs ? 100 * sum / (double)kr->n_floor_runs : NAN;
}

/* The run's fills with each cache input of the latency pipeline: K scales
 * with the fills (obs and the predictions share the normalisation). */
static void cache_fills(const pascal_calibration *cal, const run_list *runs, size_t index,
                        double obs, const double pred[PASCAL_METHOD_COUNT],
                        double fills[PASCAL_CACHE_COUNT])
{
  double fill = fill_of(cal, runs, index);
  fills[PASCAL_CACHE_TILESIGHT] = pred[PASCAL_METHOD_TILESIGHT] / obs * fill;
  fills[PASCAL_CACHE_PASCAL] = pred[PASCAL_METHOD_PASCAL] / obs * fill;
  fills[PASCAL_CACHE_MEASURED] = fill;
}

/* Score the runs items[lo, hi) of one key with `model`. */
static pascal_status score_key(const pascal_calibration *cal, const run_list *runs,
                               const pascal_model *model, const loko_item *items, size_t lo,
                               size_t hi, pascal_key_report *kr, pascal_error *err)
{
  double sum[PASCAL_METHOD_COUNT] = {0};
  eval_latency_acc lat = {0}, lat_cal = {0};
  kr->key = items[lo].key;
  kr->Mg = items[lo].Mg;
  kr->Ng = items[lo].Ng;
  kr->n_runs = hi - lo;
  for (size_t i = lo; i < hi; i++) {
    double obs, pred[PASCAL_METHOD_COUNT];
    pascal_rule rule = PASCAL_RULE_EXACT;
    pascal_error run_err;
    pascal_error_clear(&run_err);
    pascal_status st = score_run(cal, runs, model, items[i].index, &obs, pred, &rule, &run_err);
    if (st == PASCAL_EREFUSED) {
      if (kr->refusal[0] == '\0')
        snprintf(kr->refusal, sizeof kr->refusal, "%s", run_err.message);
      continue;
    }
    if (st) {
      if (err)
        *err = run_err;
      return st;
    }
    kr->n_scored++;
    kr->n_above += obs > 1.05 * pred[PASCAL_METHOD_ALIGNED];
    if (rule > kr->rule)
      kr->rule = rule;
    for (int m = 0; m < PASCAL_METHOD_COUNT; m++)
      sum[m] += fabs(pred[m] / obs - 1);
    double fills[PASCAL_CACHE_COUNT];
    size_t r = items[i].index;
    cache_fills(cal, runs, r, obs, pred, fills);
    const pascal_scan_run *scan = cal->workload == PASCAL_WORKLOAD_SCAN ? &runs->scan[r] : NULL;
    const pascal_gemm_run *gemm = scan ? NULL : &runs->gemm[r];
    if ((st = pc_eval_latency_add(model, PASCAL_TIME_PEAKS, scan, gemm, fills, &lat, err)) ||
        (st = pc_eval_latency_add(model, PASCAL_TIME_CALIBRATED, scan, gemm, fills, &lat_cal, err)))
      return st;
  }
  pc_eval_latency_key(&lat, &kr->latency);
  pc_eval_latency_key(&lat_cal, &kr->latency_calibrated);
  for (int m = 0; m < PASCAL_METHOD_COUNT; m++)
    kr->mape[m] = kr->n_scored ? 100 * sum[m] / (double)kr->n_scored : NAN;
  key_floor(cal, runs, items, lo, hi, kr);
  return PASCAL_OK;
}

/* One fold: refit without the key of items[lo, hi) and score its runs. */
static pascal_status run_fold(const pascal_calibration *cal, const run_list *runs,
                              const loko_item *items, size_t lo, size_t hi, pascal_key_report *kr,
                              pascal_error *err)
{
  pascal_model *model = NULL;
  model_exclusion ex = {
      .active = true, .key = items[lo].key, .Mg = items[lo].Mg, .Ng = items[lo].Ng};
  pascal_status st = pc_model_fit_excluding(cal, &ex, &model, err);
  if (st)
    return st;
  st = score_key(cal, runs, model, items, lo, hi, kr, err);
  pascal_model_free(model);
  return st;
}

static pascal_status collect_keys(const pascal_calibration *cal, const run_list *runs,
                                  loko_item **out, size_t *n_keys, pascal_error *err)
{
  loko_item *items = calloc(runs->n ? runs->n : 1, sizeof *items);
  if (!items)
    return pascal_error_set(err, PASCAL_ENOMEM, "measurements", "out of memory");
  for (size_t i = 0; i < runs->n; i++) {
    items[i].index = i;
    if (cal->workload == PASCAL_WORKLOAD_SCAN) {
      items[i].key = runs->scan[i].key;
    } else {
      items[i].Mg = runs->gemm[i].shape.Mg;
      items[i].Ng = runs->gemm[i].shape.Ng;
    }
  }
  qsort(items, runs->n, sizeof *items, cmp_loko);
  *n_keys = 0;
  for (size_t i = 0; i < runs->n; i++)
    if (i == 0 || !same_key(&items[i - 1], &items[i]))
      (*n_keys)++;
  *out = items;
  return PASCAL_OK;
}

/* The evaluation both reports share: group the runs by key, score each key
 * with the model `fixed` or, when it is NULL, with its leave-one-key-out
 * fold, then total and summarise. */
static pascal_status evaluate_runs(const pascal_calibration *cal, const run_list *runs,
                                   size_t min_keys, const pascal_model *fixed,
                                   pascal_loko_report *out, pascal_error *err)
{
  pascal_status st;
  loko_item *items = NULL;
  size_t n_keys = 0;
  pascal_loko_report rep = {.workload = cal->workload};
  if ((st = collect_keys(cal, runs, &items, &n_keys, err)))
    return st;
  if (n_keys < min_keys) {
    st = pascal_error_set(err, PASCAL_EINVAL, "measurements",
                          "leave-one-key-out needs at least two keys (found %zu)", n_keys);
    goto fail;
  }
  rep.keys = calloc(n_keys, sizeof *rep.keys);
  if (!rep.keys) {
    st = pascal_error_set(err, PASCAL_ENOMEM, "measurements", "out of memory");
    goto fail;
  }
  rep.n_keys = n_keys;
  rep.n_runs = runs->n;
  double sum[PASCAL_METHOD_COUNT] = {0};
  size_t k = 0;
  for (size_t lo = 0, hi; lo < runs->n; lo = hi, k++) {
    for (hi = lo + 1; hi < runs->n && same_key(&items[lo], &items[hi]); hi++)
      ;
    pascal_key_report *kr = &rep.keys[k];
    st = fixed ? score_key(cal, runs, fixed, items, lo, hi, kr, err)
               : run_fold(cal, runs, items, lo, hi, kr, err);
    if (st)
      goto fail;
    rep.n_scored += kr->n_scored;
    rep.n_refused += kr->n_runs - kr->n_scored;
    if (kr->n_scored == 0)
      continue;
    rep.n_keys_scored++;
    for (int m = 0; m < PASCAL_METHOD_COUNT; m++)
      sum[m] += kr->mape[m];
  }
  for (int m = 0; m < PASCAL_METHOD_COUNT; m++)
    rep.balanced_mape[m] = rep.n_keys_scored ? sum[m] / (double)rep.n_keys_scored : NAN;
  const pascal_loko_report *self = &rep;
  if (rep.n_keys_scored && (st = pascal_eval_summarize(&self, 1, &rep.summary, err)))
    goto fail;
  if ((st = pc_eval_latency_rows(rep.keys, rep.n_keys, PASCAL_TIME_PEAKS, &rep.latency, err)) ||
      (st = pc_eval_latency_rows(rep.keys, rep.n_keys, PASCAL_TIME_CALIBRATED,
                                 &rep.latency_calibrated, err)))
    goto fail;
  if (!rep.n_keys_scored) { /* nothing scored: the row is undefined */
    for (int m = 0; m < PASCAL_METHOD_COUNT; m++) {
      rep.summary.balanced_mape[m] = rep.summary.gap[m] = NAN;
      rep.summary.ci[m] = rep.summary.gap_ci[m] = (pascal_interval){NAN, NAN};
    }
    rep.summary.floor_mape = NAN;
    rep.summary.n_runs = rep.n_runs;
  }
  free(items);
  *out = rep;
  return PASCAL_OK;
fail:
  free(items);
  pascal_loko_report_free(&rep);
  return st;
}

pascal_status pascal_heldout_run(const pascal_calibration *cal, pascal_loko_report *out,
                                 pascal_error *err)
{
  pascal_status st;
  pascal_model *model = NULL;
  run_list runs = runs_of(cal, true);
  if ((st = pascal_calibration_check(cal, err)) || (st = pascal_calibration_check_runs(cal, err)))
    return st;
  if (runs.n == 0)
    return pascal_error_set(err, PASCAL_EINVAL, "heldout", "the held-out panel has no run");
  if ((st = pascal_model_fit(cal, &model, err)))
    return st;
  st = evaluate_runs(cal, &runs, 1, model, out, err);
  pascal_model_free(model);
  return st;
}

pascal_status pascal_loko_run(const pascal_calibration *cal, pascal_loko_report *out,
                              pascal_error *err)
{
  pascal_status st;
  run_list runs = runs_of(cal, false);
  pascal_loko_report rep;
  if ((st = pascal_calibration_check(cal, err)) || (st = pascal_calibration_check_runs(cal, err)))
    return st;
  if ((st = evaluate_runs(cal, &runs, 2, NULL, &rep, err)))
    return st;
  if (pascal_calibration_heldout_count(cal) > 0) {
    rep.heldout = calloc(1, sizeof *rep.heldout);
    if (!rep.heldout)
      st = pascal_error_set(err, PASCAL_ENOMEM, "heldout", "out of memory");
    else if ((st = pascal_heldout_run(cal, rep.heldout, err))) {
      free(rep.heldout);
      rep.heldout = NULL;
    }
    if (st) {
      pascal_loko_report_free(&rep);
      return st;
    }
  }
  *out = rep;
  return PASCAL_OK;
}

void pascal_loko_report_free(pascal_loko_report *report)
{
  if (!report)
    return;
  if (report->heldout) {
    pascal_loko_report_free(report->heldout);
    free(report->heldout);
    report->heldout = NULL;
  }
  free(report->keys);
  report->keys = NULL;
  report->n_keys = 0;
}
