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
#include "evaluate_internal.h"
#include "loko_baselines.h"
#include "model_internal.h"
#include "pascal/attention.h"
#include "pascal/interval.h"
#include "pascal/time_model.h"
#include "pascal/validation.h"
#include "residency.h"

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

/* The runs one evaluation scores (the calibration's or a panel's) and with
 * which methods: every one for a report, or only PASCAL and aligned K = 1,
 * all that an answer's validation reads, without the GEMM trace baselines and
 * the bootstrap that cost nearly all of a report. */
typedef struct run_list {
  const pascal_scan_run *scan;
  const pascal_gemm_run *gemm;
  size_t n;
  bool every_method;
} run_list;

static run_list runs_of(const pascal_calibration *cal, pascal_run_set set, bool every_method)
{
  run_list r = {.every_method = every_method};
  r.n = pascal_calibration_runs_of(cal, set, &r.scan, &r.gemm);
  return r;
}

/* What a panel's scoring adds: the intervals of the model of all runs, the
 * families whose folds favour aligned K = 1 (their intervals hold it, as an
 * answer's do: pascal/answer.h) and one covered run per scored run
 * (pascal/interval.h). */
typedef struct panel_cover {
  const pascal_interval_calibration *ic;
  const pascal_family_loss *losses;
  size_t n_losses;
  pascal_covered_run *runs;
  size_t n;
} panel_cover;

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

/* What a run's interval reads of its answer besides K: the rule, the
 * transfers, the K a run can measure, and a scan's residency (unread for a
 * GEMM) at the horizon W it was read at. */
typedef struct run_answer {
  pascal_rule rule;
  pascal_transfers transfers;
  double k_range[2];
  pascal_scan_residency residency;
  double W;
} run_answer;

/* Observed K, the model's K and the rest of its answer the interval reads
 * (*ra), or a refusal, and the baselines for run `index` of `runs`. Returns
 * PASCAL_EREFUSED (with err filled) for a refusal. */
static pascal_status score_run(const pascal_calibration *cal, const run_list *runs,
                               const pascal_model *model, size_t index, double *obs,
                               double pred[PASCAL_METHOD_COUNT], run_answer *ra, pascal_error *err)
{
  pascal_status st;
  pascal_baseline_k base;
  double K, origami = NAN;
  if (pascal_workload_scans(cal->workload)) {
    const pascal_scan_run *r = &runs->scan[index];
    pascal_scan_prediction p;
    if ((st = pascal_model_predict_scan(model, &r->key, r->N, r->W, &p, err)))
      return st;
    *obs = pascal_calibration_scan_k(cal, r);
    K = p.K;
    ra->rule = p.why.rule;
    ra->transfers = p.transfers;
    ra->residency = p.why.residency;
    ra->W = r->W;
    pascal_interval_k_range(cal->workload, r->W, p.M, NAN, ra->k_range);
    if ((st = pc_loko_baselines_scan(r->N, r->W, p.M, cal->device.capacity_blocks, &base, err)))
      return st;
  } else {
    const pascal_gemm_run *r = &runs->gemm[index];
    pascal_gemm_prediction p;
    if ((st = pascal_model_predict_gemm(model, &r->shape, &p, err)))
      return st;
    *obs = p.M * r->fill_bytes / p.Q;
    K = p.K;
    ra->rule = p.why.rule;
    ra->transfers = p.transfers;
    ra->residency = (pascal_scan_residency){.read = false};
    ra->W = NAN;
    pascal_interval_k_range(cal->workload, NAN, p.M, p.K0, ra->k_range);
    double tile_bytes = (double)cal->gemm.tile_m * cal->gemm.tile_k * cal->gemm.elem_bytes;
    if (cal->gemm.tile_m != cal->gemm.tile_n || !runs->every_method)
      tile_bytes = NAN; /* square A/B tiles only; without it, only K_0 */
    if ((st = pc_loko_baselines_gemm(p.n_r, p.n_c, p.n_k, p.M,
                                     (double)cal->device.capacity_blocks * cal->device.block_bytes,
                                     tile_bytes, &base, err)))
      return st;
    if (runs->every_method)
      origami = pc_loko_origami_gemm(cal, &r->shape, p.M);
  }
  pc_loko_methods(K, &base, origami, pred);
  return PASCAL_OK;
}

/* Same configuration (scan: N and W; GEMM: Kg; the key is already equal),
 * whatever the repeat. */
static bool same_configuration(const pascal_calibration *cal, const run_list *runs, size_t a,
                               size_t b)
{
  if (pascal_workload_scans(cal->workload))
    return runs->scan[a].N == runs->scan[b].N && runs->scan[a].W == runs->scan[b].W;
  return runs->gemm[a].shape.Kg == runs->gemm[b].shape.Kg;
}

/* The measured K of run i up to a factor its repeats share (a GEMM's fills;
 * a scan's or attention's K, whose query tiles are no part of it). */
static double k_of(const pascal_calibration *cal, const run_list *runs, size_t i)
{
  return pascal_workload_scans(cal->workload) ? pascal_calibration_scan_k(cal, &runs->scan[i])
                                              : runs->gemm[i].fill_bytes;
}

/* Repeat-to-repeat floor of one key: every run that has other repeats of its
 * configuration is predicted by their mean K (up to the factor they share). */
static void key_floor(const pascal_calibration *cal, const run_list *runs, const loko_item *items,
                      size_t lo, size_t hi, pascal_key_report *kr)
{
  double sum = 0;
  for (size_t i = lo; i < hi; i++) {
    double others = 0;
    size_t n = 0;
    for (size_t j = lo; j < hi; j++)
      if (j != i && same_configuration(cal, runs, items[i].index, items[j].index)) {
        others += k_of(cal, runs, items[j].index);
        n++;
      }
    if (n == 0)
      continue;
    sum += fabs(others / (double)n / k_of(cal, runs, items[i].index) - 1);
    kr->n_floor_runs++;
  }
  kr->floor_mape = kr->n_floor_runs ? 100 * sum / (double)kr->n_floor_runs : NAN;
}

/* The run's fills with each cache input of the latency pipeline: the part
 * of the fills K describes scales with K (obs and the predictions share the
 * normalisation); an attention run's query tiles are read once whatever K. */
static void cache_fills(const pascal_calibration *cal, const run_list *runs, size_t index,
                        double obs, const double pred[PASCAL_METHOD_COUNT],
                        double fills[PASCAL_CACHE_COUNT])
{
  double fill, fixed = 0;
  if (pascal_workload_scans(cal->workload)) {
    const pascal_scan_run *r = &runs->scan[index];
    fill = r->fill_bytes;
    if (cal->workload == PASCAL_WORKLOAD_ATTENTION)
      fixed = pascal_attention_run_q_bytes(&cal->attention, cal->device.sm_count, r);
  } else {
    fill = runs->gemm[index].fill_bytes;
  }
  fills[PASCAL_CACHE_TILESIGHT] = fixed + pred[PASCAL_METHOD_TILESIGHT] / obs * (fill - fixed);
  fills[PASCAL_CACHE_ORIGAMI] = fixed + pred[PASCAL_METHOD_ORIGAMI] / obs * (fill - fixed);
  fills[PASCAL_CACHE_PASCAL] = fixed + pred[PASCAL_METHOD_PASCAL] / obs * (fill - fixed);
  fills[PASCAL_CACHE_MEASURED] = fill;
}

/* A scored panel run with its answer's intervals of K and time. */
static void cover_run(const pascal_model *model, const pascal_scan_run *scan,
                      const pascal_gemm_run *gemm, double obs,
                      const double pred[PASCAL_METHOD_COUNT], double fill, const run_answer *ra,
                      panel_cover *pc)
{
  pascal_interval_bounds b;
  const pascal_transfers *tr = &ra->transfers;
  double K = pred[PASCAL_METHOD_PASCAL];
  bool loses = pascal_family_loss_find(pc->losses, pc->n_losses, scan ? &scan->key : NULL);
  pascal_interval_answer_bounds(pc->ic, tr, K, pred[PASCAL_METHOD_ALIGNED], loses, ra->k_range,
                                &ra->residency, ra->W, &b);
  double lo = b.known[PASCAL_INTERVAL_K] ? b.lo[0] : 0,
         hi = b.known[PASCAL_INTERVAL_K] ? b.hi[0] : 0;
  pascal_covered_run *c = &pc->runs[pc->n++];
  *c = (pascal_covered_run){.signature = pascal_transfer_signature(tr),
                            .K_obs = obs,
                            .K = K,
                            .K_low = K * exp(lo),
                            .K_high = K * exp(hi),
                            .K_aligned = pred[PASCAL_METHOD_ALIGNED],
                            .t_obs = NAN,
                            .t_low = NAN,
                            .t_high = NAN};
  pascal_time t;
  double fills = K / obs * fill, kernel_ns = scan ? scan->kernel_ns : gemm->kernel_ns;
  bool timed = (scan ? scan->has_kernel_ns : gemm->has_kernel_ns) &&
               b.known[PASCAL_INTERVAL_TIME] &&
               (scan ? pascal_time_scan(model, &scan->key, scan->N, scan->W, fills, &t, NULL)
                     : pascal_time_gemm(model, &gemm->shape, fills, &t, NULL)) == PASCAL_OK;
  if (timed) {
    c->t_obs = kernel_ns * 1e-9;
    c->t_low = t.time_s * exp(b.lo[PASCAL_INTERVAL_TIME]);
    c->t_high = t.time_s * exp(b.hi[PASCAL_INTERVAL_TIME]);
    if (ra->residency.read)
      pc_residency_time_bounds(model, &scan->key, scan->N, scan->W, t.time_s, fills * exp(lo),
                               fills * exp(hi), &c->t_low, &c->t_high);
  }
}

/* Score the runs items[lo, hi) of one key with `model` (a panel's also for
 * coverage: `pc`, else NULL). */
static pascal_status score_key(const pascal_calibration *cal, const run_list *runs,
                               const pascal_model *model, const loko_item *items, size_t lo,
                               size_t hi, panel_cover *pc, pascal_key_report *kr, pascal_error *err)
{
  double sum[PASCAL_METHOD_COUNT] = {0};
  eval_latency_acc lat = {0}, lat_cal = {0};
  kr->key = items[lo].key;
  kr->Mg = items[lo].Mg;
  kr->Ng = items[lo].Ng;
  kr->n_runs = hi - lo;
  for (size_t i = lo; i < hi; i++) {
    double obs, pred[PASCAL_METHOD_COUNT];
    run_answer ra = {.rule = PASCAL_RULE_EXACT};
    pascal_error run_err;
    pascal_error_clear(&run_err);
    pascal_status st = score_run(cal, runs, model, items[i].index, &obs, pred, &ra, &run_err);
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
    if (ra.rule > kr->rule)
      kr->rule = ra.rule;
    for (int m = 0; m < PASCAL_METHOD_COUNT; m++)
      sum[m] += fabs(pred[m] / obs - 1);
    double fills[PASCAL_CACHE_COUNT];
    size_t r = items[i].index;
    cache_fills(cal, runs, r, obs, pred, fills);
    const pascal_scan_run *scan = pascal_workload_scans(cal->workload) ? &runs->scan[r] : NULL;
    const pascal_gemm_run *gemm = scan ? NULL : &runs->gemm[r];
    if (runs->every_method &&
        ((st = pc_eval_latency_add(model, PASCAL_TIME_PEAKS, scan, gemm, fills, &lat, err)) ||
         (st = pc_eval_latency_add(model, PASCAL_TIME_CALIBRATED, scan, gemm, fills, &lat_cal,
                                   err))))
      return st;
    if (pc)
      cover_run(model, scan, gemm, obs, pred, fills[PASCAL_CACHE_MEASURED], &ra, pc);
  }
  pc_eval_latency_key(&lat, &kr->latency);
  pc_eval_latency_key(&lat_cal, &kr->latency_calibrated);
  for (int m = 0; m < PASCAL_METHOD_COUNT; m++)
    kr->mape[m] = kr->n_scored ? 100 * sum[m] / (double)kr->n_scored : NAN;
  key_floor(cal, runs, items, lo, hi, kr);
  return PASCAL_OK;
}

/* One fold: refit without the key of items[lo, hi) (the other keys'
 * onsets from `all`, the model of every run, or NULL) and score its runs. */
static pascal_status run_fold(const pascal_calibration *cal, const run_list *runs,
                              const loko_item *items, size_t lo, size_t hi, const pascal_model *all,
                              pascal_key_report *kr, pascal_error *err)
{
  pascal_model *model = NULL;
  model_exclusion ex = {
      .kind = PC_EXCLUDE_KEY, .key = items[lo].key, .Mg = items[lo].Mg, .Ng = items[lo].Ng};
  pascal_status st = pc_model_fit_excluding(cal, &ex, all, &model, err);
  if (st)
    return st;
  st = score_key(cal, runs, model, items, lo, hi, NULL, kr, err);
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
    if (pascal_workload_scans(cal->workload)) {
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
 * with the model `fixed` (a panel, also scored for coverage by `pc`) or,
 * when it is NULL, with its leave-one-key-out fold, then total and
 * summarise. */
static pascal_status evaluate_runs(const pascal_calibration *cal, const run_list *runs,
                                   size_t min_keys, const pascal_model *fixed, panel_cover *pc,
                                   pascal_loko_report *out, pascal_error *err)
{
  pascal_status st;
  loko_item *items = NULL;
  pascal_model *all = NULL; /* the folds' shared onsets and readings; none if it cannot be
                               fitted */
  size_t n_keys = 0;
  pascal_loko_report rep = {.workload = cal->workload};
  if ((st = collect_keys(cal, runs, &items, &n_keys, err)))
    return st;
  if (!fixed && pc_model_fit_excluding(cal, &pc_fit_base_only, NULL, &all, NULL) == PASCAL_ENOMEM) {
    st = pascal_error_set(err, PASCAL_ENOMEM, "measurements", "out of memory");
    goto fail;
  }
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
    st = fixed ? score_key(cal, runs, fixed, items, lo, hi, pc, kr, err)
               : run_fold(cal, runs, items, lo, hi, all, kr, err);
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
  if (rep.n_keys_scored && runs->every_method &&
      (st = pascal_eval_summarize(&self, 1, &rep.summary, err)))
    goto fail;
  if (runs->every_method &&
      ((st = pc_eval_latency_rows(rep.keys, rep.n_keys, PASCAL_TIME_PEAKS, &rep.latency, err)) ||
       (st = pc_eval_latency_rows(rep.keys, rep.n_keys, PASCAL_TIME_CALIBRATED,
                                  &rep.latency_calibrated, err)) ||
       (pc && (st = pascal_coverage_of(pc->runs, pc->n, &rep.coverage, err)))))
    goto fail;
  if (!rep.n_keys_scored || !runs->every_method) { /* no row: nothing scored, or not asked */
    for (int m = 0; m < PASCAL_METHOD_COUNT; m++) {
      rep.summary.balanced_mape[m] = rep.summary.gap[m] = NAN;
      rep.summary.ci[m] = rep.summary.gap_ci[m] = (pascal_interval){NAN, NAN};
    }
    rep.summary.floor_mape = NAN;
    rep.summary.n_runs = rep.n_runs;
  }
  free(items);
  pascal_model_free(all);
  *out = rep;
  return PASCAL_OK;
fail:
  free(items);
  pascal_model_free(all);
  pascal_loko_report_free(&rep);
  return st;
}

/* pascal_panel_run with the family losses of the calibration's folds. */
static pascal_status panel_run(const pascal_calibration *cal, pascal_run_set set, bool every_method,
                               const pascal_family_loss *losses, size_t n_losses,
                               pascal_loko_report *out, pascal_error *err)
{
  pascal_status st;
  pascal_model *model = NULL;
  pascal_interval_calibration ic = {0};
  const char *name = pascal_run_set_name(set);
  if (set != PASCAL_RUNS_HELDOUT && set != PASCAL_RUNS_OFFGRID)
    return pascal_error_set(err, PASCAL_EINVAL, "set", "only a panel (heldout, offgrid) is scored");
  run_list runs = runs_of(cal, set, every_method);
  if ((st = pascal_calibration_check(cal, err)) || (st = pascal_calibration_check_runs(cal, err)))
    return st;
  if (runs.n == 0)
    return pascal_error_set(err, PASCAL_EINVAL, name, "the %s panel has no run",
                            set == PASCAL_RUNS_OFFGRID ? "off-grid" : "held-out");
  panel_cover pc = {
      .ic = &ic, .losses = losses, .n_losses = n_losses, .runs = calloc(runs.n, sizeof *pc.runs)};
  if (!pc.runs)
    return pascal_error_set(err, PASCAL_ENOMEM, name, "out of memory");
  if ((st = pascal_model_fit(cal, &model, err)) ||
      (every_method && (st = pascal_interval_build(cal, &ic, err))))
    goto done;
  st = evaluate_runs(cal, &runs, 1, model, every_method ? &pc : NULL, out, err);
done:
  pascal_interval_free(&ic);
  pascal_model_free(model);
  free(pc.runs);
  return st;
}

/* The leave-one-key-out report of the calibration runs and its family
 * losses. */
static pascal_status folds(const pascal_calibration *cal, bool every_method,
                           pascal_loko_report *rep, pascal_family_loss **losses, size_t *n_losses,
                           pascal_error *err)
{
  run_list runs = runs_of(cal, PASCAL_RUNS_FIT, every_method);
  pascal_status st;
  if ((st = pascal_calibration_check(cal, err)) || (st = pascal_calibration_check_runs(cal, err)) ||
      (st = evaluate_runs(cal, &runs, 2, NULL, NULL, rep, err)))
    return st;
  if ((st = pascal_family_losses(rep, losses, n_losses, err)))
    pascal_loko_report_free(rep);
  return st;
}

pascal_status pascal_panel_run(const pascal_calibration *cal, pascal_run_set set,
                               pascal_loko_report *out, pascal_error *err)
{
  pascal_loko_report rep;
  pascal_family_loss *losses = NULL;
  size_t n_losses = 0;
  pascal_error ferr;
  pascal_error_clear(&ferr);
  pascal_status st = folds(cal, true, &rep, &losses, &n_losses, &ferr);
  if (st == PASCAL_ENOMEM)
    return pascal_error_set(err, st, "measurements", "out of memory");
  if (st == PASCAL_OK) /* else fewer than two keys: no folds, no losses */
    pascal_loko_report_free(&rep);
  st = panel_run(cal, set, true, losses, n_losses, out, err);
  free(losses);
  return st;
}

pascal_status pascal_heldout_run(const pascal_calibration *cal, pascal_loko_report *out,
                                 pascal_error *err)
{
  return pascal_panel_run(cal, PASCAL_RUNS_HELDOUT, out, err);
}

/* The panel `set` of `cal`, scored into *out when it has runs. */
static pascal_status attach_panel(const pascal_calibration *cal, pascal_run_set set,
                                  bool every_method, const pascal_family_loss *losses,
                                  size_t n_losses, pascal_loko_report **out, pascal_error *err)
{
  if (pascal_calibration_runs_of(cal, set, NULL, NULL) == 0)
    return PASCAL_OK;
  pascal_status st;
  *out = calloc(1, sizeof **out);
  if (!*out)
    return pascal_error_set(err, PASCAL_ENOMEM, pascal_run_set_name(set), "out of memory");
  if ((st = panel_run(cal, set, every_method, losses, n_losses, *out, err))) {
    free(*out);
    *out = NULL;
  }
  return st;
}

/* The folds and the panels (the off-grid one only for a whole report),
 * with every method or with only those validation reads. */
static pascal_status loko_run(const pascal_calibration *cal, bool every_method,
                              pascal_loko_report *out, pascal_error *err)
{
  pascal_loko_report rep;
  pascal_family_loss *losses = NULL;
  size_t n_losses = 0;
  pascal_status st = folds(cal, every_method, &rep, &losses, &n_losses, err);
  if (st)
    return st;
  if ((st = attach_panel(cal, PASCAL_RUNS_HELDOUT, every_method, losses, n_losses, &rep.heldout,
                         err)) ||
      (every_method && (st = attach_panel(cal, PASCAL_RUNS_OFFGRID, every_method, losses, n_losses,
                                          &rep.offgrid, err))))
    pascal_loko_report_free(&rep);
  else
    *out = rep;
  free(losses);
  return st;
}

pascal_status pascal_loko_run(const pascal_calibration *cal, pascal_loko_report *out,
                              pascal_error *err)
{
  return loko_run(cal, true, out, err);
}

pascal_status pc_loko_run_validation(const pascal_calibration *cal, pascal_loko_report *out,
                                     pascal_error *err)
{
  return loko_run(cal, false, out, err);
}

void pascal_loko_report_free(pascal_loko_report *report)
{
  if (!report)
    return;
  pascal_loko_report **panels[] = {&report->heldout, &report->offgrid};
  for (size_t i = 0; i < sizeof panels / sizeof *panels; i++)
    if (*panels[i]) {
      pascal_loko_report_free(*panels[i]);
      free(*panels[i]);
      *panels[i] = NULL;
    }
  free(report->keys);
  report->keys = NULL;
  report->n_keys = 0;
}
