/*
 * evaluate.c - configuration-balanced MAPE (paper Eq. dynamic_selection)
 * and leave-one-key-out evaluation (section 4.4): each fold removes one key
 * at every size and horizon, refits every curve and transfer from the other
 * runs, predicts the held-out runs and scores them, with the baselines of
 * loko_baselines.h, on the same runs.
 */
#include "pascal/evaluate.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loko_baselines.h"
#include "model_internal.h"

const char *pascal_method_name(pascal_method method)
{
  switch (method) {
  case PASCAL_METHOD_PASCAL: return "pascal";
  case PASCAL_METHOD_ALIGNED: return "aligned";
  case PASCAL_METHOD_SDCM: return "sdcm";
  case PASCAL_METHOD_PPTGPU: return "ppt-gpu";
  case PASCAL_METHOD_CHE: return "che";
  case PASCAL_METHOD_COUNT: break;
  }
  return "unknown";
}

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
      return pascal_error_set(err, PASCAL_EINVAL, field, "observed values must be positive and finite");
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

/* Observed K, PASCAL's out-of-fold K (or a refusal) and the baselines for
 * run `index`. Returns PASCAL_EREFUSED (with err filled) for a refusal. */
static pascal_status score_run(const pascal_calibration *cal, const pascal_model *model,
                               size_t index, double *obs, double pred[PASCAL_METHOD_COUNT],
                               pascal_rule *rule, pascal_error *err)
{
  pascal_status st;
  loko_baseline_k base;
  if (cal->workload == PASCAL_WORKLOAD_SCAN) {
    const pascal_scan_run *r = &cal->scan_runs[index];
    pascal_scan_prediction p;
    if ((st = pascal_model_predict_scan(model, &r->key, r->N, r->W, &p, err)))
      return st;
    *obs = r->fill_bytes / ((double)cal->device.block_bytes * r->W * (double)r->N);
    pred[PASCAL_METHOD_PASCAL] = p.K;
    *rule = p.why.rule;
    if ((st = loko_baselines_scan(r->N, r->W, p.M, cal->device.capacity_blocks, &base, err)))
      return st;
  } else {
    const pascal_gemm_run *r = &cal->gemm_runs[index];
    pascal_gemm_prediction p;
    if ((st = pascal_model_predict_gemm(model, &r->shape, &p, err)))
      return st;
    *obs = p.M * r->fill_bytes / p.Q;
    pred[PASCAL_METHOD_PASCAL] = p.K;
    *rule = p.why.rule;
    double tile_bytes = (double)cal->gemm.tile_m * cal->gemm.tile_k * cal->gemm.elem_bytes;
    if (cal->gemm.tile_m != cal->gemm.tile_n)
      tile_bytes = NAN; /* the baselines model square A/B tiles only */
    if ((st = loko_baselines_gemm(p.n_r, p.n_c, p.n_k, p.M,
                                  (double)cal->device.capacity_blocks * cal->device.block_bytes,
                                  tile_bytes, &base, err)))
      return st;
  }
  pred[PASCAL_METHOD_ALIGNED] = base.aligned;
  pred[PASCAL_METHOD_SDCM] = base.sdcm;
  pred[PASCAL_METHOD_PPTGPU] = base.pptgpu;
  pred[PASCAL_METHOD_CHE] = base.che;
  return PASCAL_OK;
}

/* One fold: refit without the key of items[lo, hi) and score its runs. */
static pascal_status run_fold(const pascal_calibration *cal, const loko_item *items, size_t lo,
                              size_t hi, pascal_key_report *kr, pascal_error *err)
{
  pascal_status st;
  pascal_model *model = NULL;
  model_exclusion ex = {.active = true, .key = items[lo].key, .Mg = items[lo].Mg,
                        .Ng = items[lo].Ng};
  double sum[PASCAL_METHOD_COUNT] = {0};
  if ((st = pascal_model_fit_excluding(cal, &ex, &model, err)))
    return st;
  kr->key = items[lo].key;
  kr->Mg = items[lo].Mg;
  kr->Ng = items[lo].Ng;
  kr->n_runs = hi - lo;
  for (size_t i = lo; i < hi; i++) {
    double obs, pred[PASCAL_METHOD_COUNT];
    pascal_rule rule = PASCAL_RULE_EXACT;
    pascal_error run_err;
    pascal_error_clear(&run_err);
    st = score_run(cal, model, items[i].index, &obs, pred, &rule, &run_err);
    if (st == PASCAL_EREFUSED) {
      if (kr->refusal[0] == '\0')
        snprintf(kr->refusal, sizeof kr->refusal, "%s", run_err.message);
      continue;
    }
    if (st) {
      pascal_model_free(model);
      if (err)
        *err = run_err;
      return st;
    }
    kr->n_scored++;
    if (rule > kr->rule)
      kr->rule = rule;
    for (int m = 0; m < PASCAL_METHOD_COUNT; m++)
      sum[m] += fabs(pred[m] / obs - 1);
  }
  pascal_model_free(model);
  for (int m = 0; m < PASCAL_METHOD_COUNT; m++)
    kr->mape[m] = kr->n_scored ? 100 * sum[m] / (double)kr->n_scored : NAN;
  return PASCAL_OK;
}

static pascal_status collect_keys(const pascal_calibration *cal, loko_item **out, size_t *n_out,
                                  pascal_error *err)
{
  size_t n = pascal_calibration_run_count(cal);
  loko_item *items = calloc(n ? n : 1, sizeof *items);
  if (!items)
    return pascal_error_set(err, PASCAL_ENOMEM, "measurements", "out of memory");
  for (size_t i = 0; i < n; i++) {
    items[i].index = i;
    if (cal->workload == PASCAL_WORKLOAD_SCAN) {
      items[i].key = cal->scan_runs[i].key;
    } else {
      items[i].Mg = cal->gemm_runs[i].shape.Mg;
      items[i].Ng = cal->gemm_runs[i].shape.Ng;
    }
  }
  qsort(items, n, sizeof *items, cmp_loko);
  *out = items;
  *n_out = n;
  return PASCAL_OK;
}

pascal_status pascal_loko_run(const pascal_calibration *cal, pascal_loko_report *out,
                              pascal_error *err)
{
  pascal_status st;
  loko_item *items = NULL;
  size_t n = 0, n_keys = 0;
  pascal_loko_report rep = {.workload = cal->workload};
  if ((st = pascal_calibration_check(cal, err)) || (st = pascal_calibration_check_runs(cal, err)))
    return st;
  if ((st = collect_keys(cal, &items, &n, err)))
    return st;
  for (size_t i = 0; i < n; i++)
    if (i == 0 || !same_key(&items[i - 1], &items[i]))
      n_keys++;
  if (n_keys < 2) {
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
  rep.n_runs = n;
  double sum[PASCAL_METHOD_COUNT] = {0};
  size_t k = 0;
  for (size_t lo = 0, hi; lo < n; lo = hi, k++) {
    for (hi = lo + 1; hi < n && same_key(&items[lo], &items[hi]); hi++)
      ;
    pascal_key_report *kr = &rep.keys[k];
    if ((st = run_fold(cal, items, lo, hi, kr, err)))
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
  free(items);
  *out = rep;
  return PASCAL_OK;
fail:
  free(items);
  pascal_loko_report_free(&rep);
  return st;
}

void pascal_loko_report_free(pascal_loko_report *report)
{
  if (!report)
    return;
  free(report->keys);
  report->keys = NULL;
  report->n_keys = 0;
}
