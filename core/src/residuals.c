/*
 * residuals.c - the out-of-sample residuals of a calibration, from which
 * its answers' intervals follow (pascal/interval.h; docs/expected-error.md):
 *
 *   - the leave-one-key-out folds of the paper's section 4.4 (a scan key,
 *     a GEMM grid): each run of the key predicted by the model fitted
 *     without it, so across m (scan) or the tile counts (GEMM);
 *   - the level folds: every run at one calibrated horizon W, size N
 *     (scan) or reduction length Kg (GEMM) predicted by the model fitted
 *     without that level, so between or past the remaining levels;
 *   - the repeats: two runs of one configuration (calibration or held-out
 *     panel) give the run-to-run spread.
 *
 * The off-grid panel never enters; the held-out panel only through its
 * repeats, so that both panels score the intervals out of sample.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model_internal.h"
#include "pascal/interval.h"
#include "pascal/time_model.h"

/* The residual of one run predicted by `md`; a run the model refuses or
 * whose K is not positive gives none. */
static pascal_status add_run(const pascal_calibration *cal, const pascal_model *md, size_t run,
                             const pascal_scan_run *s, const pascal_gemm_run *g,
                             pascal_interval_calibration *out, pascal_error *err)
{
  pascal_residual r = {.run = run, .log_ratio = {NAN, NAN}};
  pascal_time t;
  double pred, obs, kernel_ns = NAN;
  bool timed;
  if (s) {
    pascal_scan_prediction p;
    if (pascal_model_predict_scan(md, &s->key, s->N, s->W, &p, NULL) != PASCAL_OK)
      return PASCAL_OK;
    pred = p.K;
    obs = pascal_calibration_scan_k(cal, s);
    r.transfers = p.transfers;
    /* an attention run's time is the launch's, with its query tiles: the
     * scan's time of the K/V fills is not its prediction, so no residual */
    timed = cal->workload == PASCAL_WORKLOAD_SCAN && s->has_kernel_ns &&
            pascal_time_scan(md, &s->key, s->N, s->W, p.fill_bytes, &t, NULL) == PASCAL_OK;
    kernel_ns = s->kernel_ns;
  } else {
    pascal_gemm_prediction p;
    if (pascal_model_predict_gemm(md, &g->shape, &p, NULL) != PASCAL_OK)
      return PASCAL_OK;
    pred = p.K;
    obs = p.M * g->fill_bytes / p.Q;
    r.transfers = p.transfers;
    timed =
        g->has_kernel_ns && pascal_time_gemm(md, &g->shape, p.fill_bytes, &t, NULL) == PASCAL_OK;
    kernel_ns = g->kernel_ns;
  }
  if (!(pred > 0) || !(obs > 0))
    return PASCAL_OK;
  r.log_ratio[PASCAL_INTERVAL_K] = log(obs / pred);
  r.log_ratio[PASCAL_INTERVAL_TIME] =
      timed && kernel_ns > 0 && t.time_s > 0 ? log(kernel_ns * 1e-9 / t.time_s) : NAN;
  return pascal_interval_add(out, &r, err);
}

/* One fold: refit without the runs `ex` matches (a key fold takes the
 * other keys' onsets from `all`, the model of every run, or NULL) and
 * predict each of them. A fold the model cannot be fitted without (a class
 * or curve left with too few references) gives no residual. */
static pascal_status run_fold(const pascal_calibration *cal, const model_exclusion *ex,
                              const pascal_model *all, pascal_interval_calibration *out,
                              pascal_error *err)
{
  pascal_model *md = NULL;
  pascal_error ferr;
  pascal_error_clear(&ferr);
  pascal_status st = pc_model_fit_excluding(cal, ex, all, &md, &ferr);
  if (st)
    return st == PASCAL_ENOMEM ? pascal_error_set(err, st, "interval", "out of memory") : PASCAL_OK;
  size_t n = pascal_calibration_run_count(cal);
  for (size_t i = 0; i < n && st == PASCAL_OK; i++) {
    const pascal_scan_run *s = pascal_workload_scans(cal->workload) ? &cal->scan_runs[i] : NULL;
    const pascal_gemm_run *g = s ? NULL : &cal->gemm_runs[i];
    if (s ? pc_excludes_scan(ex, s) : pc_excludes_gemm(ex, g))
      st = add_run(cal, md, i, s, g, out, err);
  }
  pascal_model_free(md);
  return st;
}

/* Whether an earlier run of the calibration already gave fold `ex`. */
static bool seen(const pascal_calibration *cal, size_t i, const model_exclusion *ex)
{
  for (size_t j = 0; j < i; j++)
    if (pascal_workload_scans(cal->workload) ? pc_excludes_scan(ex, &cal->scan_runs[j])
                                             : pc_excludes_gemm(ex, &cal->gemm_runs[j]))
      return true;
  return false;
}

/* Every fold of the calibration, each once: the key of run i, and its level
 * of each calibrated coordinate. */
static pascal_status all_folds(const pascal_calibration *cal, pascal_interval_calibration *out,
                               pascal_error *err)
{
  pascal_status st = PASCAL_OK;
  size_t n = pascal_calibration_run_count(cal);
  pascal_model *all = NULL; /* the folds' shared onsets and readings; none if it cannot be
                               fitted */
  if (pc_model_fit_excluding(cal, &pc_fit_base_only, NULL, &all, NULL) == PASCAL_ENOMEM)
    return pascal_error_set(err, PASCAL_ENOMEM, "interval", "out of memory");
  for (size_t i = 0; i < n && st == PASCAL_OK; i++) {
    model_exclusion ex[3];
    size_t n_ex;
    if (pascal_workload_scans(cal->workload)) {
      const pascal_scan_run *r = &cal->scan_runs[i];
      ex[0] = (model_exclusion){.kind = PC_EXCLUDE_KEY, .key = r->key};
      ex[1] = (model_exclusion){.kind = PC_EXCLUDE_W, .level = r->W};
      ex[2] = (model_exclusion){.kind = PC_EXCLUDE_N, .level = r->N};
      n_ex = 3;
    } else {
      const pascal_gemm_run *r = &cal->gemm_runs[i];
      ex[0] = (model_exclusion){.kind = PC_EXCLUDE_KEY, .Mg = r->shape.Mg, .Ng = r->shape.Ng};
      ex[1] = (model_exclusion){.kind = PC_EXCLUDE_KG, .level = r->shape.Kg};
      n_ex = 2;
    }
    for (size_t k = 0; k < n_ex && st == PASCAL_OK; k++)
      if (!seen(cal, i, &ex[k]))
        st = run_fold(cal, &ex[k], all, out, err);
  }
  pascal_model_free(all);
  return st;
}

/* log(a / b) of K and time for two repeats of one configuration (fills
 * compare like K: the normalisation is the same). */
static void pair_ratio(double fa, double fb, bool ta, double ka, bool tb, double kb,
                       double ratio[PASCAL_INTERVAL_QUANTITIES])
{
  ratio[PASCAL_INTERVAL_K] = log(fa / fb);
  ratio[PASCAL_INTERVAL_TIME] = ta && tb && ka > 0 && kb > 0 ? log(ka / kb) : NAN;
}

/* The repeats of one run set: each pair of runs of one configuration. */
static pascal_status add_repeats(const pascal_calibration *cal, pascal_run_set set,
                                 pascal_interval_calibration *out, pascal_error *err)
{
  const pascal_scan_run *s;
  const pascal_gemm_run *g;
  size_t n = pascal_calibration_runs_of(cal, set, &s, &g);
  pascal_status st = PASCAL_OK;
  for (size_t i = 0; i < n && st == PASCAL_OK; i++)
    for (size_t j = i + 1; j < n && st == PASCAL_OK; j++) {
      double ratio[PASCAL_INTERVAL_QUANTITIES];
      if (pascal_workload_scans(cal->workload)) {
        const pascal_scan_run *a = &s[i], *b = &s[j];
        if (a->key.o != b->key.o || a->key.path != b->key.path || a->key.d != b->key.d ||
            a->key.m != b->key.m || a->N != b->N || a->W != b->W)
          continue;
        pair_ratio(a->fill_bytes, b->fill_bytes, a->has_kernel_ns, a->kernel_ns, b->has_kernel_ns,
                   b->kernel_ns, ratio);
      } else {
        const pascal_gemm_run *a = &g[i], *b = &g[j];
        if (a->shape.Mg != b->shape.Mg || a->shape.Ng != b->shape.Ng || a->shape.Kg != b->shape.Kg)
          continue;
        pair_ratio(a->fill_bytes, b->fill_bytes, a->has_kernel_ns, a->kernel_ns, b->has_kernel_ns,
                   b->kernel_ns, ratio);
      }
      st = pascal_interval_add_noise(out, ratio, err);
    }
  return st;
}

pascal_status pascal_interval_build(const pascal_calibration *cal, pascal_interval_calibration *out,
                                    pascal_error *err)
{
  pascal_status st;
  memset(out, 0, sizeof *out);
  if ((st = pascal_calibration_check(cal, err)) || (st = pascal_calibration_check_runs(cal, err)))
    return st;
  if ((st = all_folds(cal, out, err)) || (st = add_repeats(cal, PASCAL_RUNS_FIT, out, err)) ||
      (st = add_repeats(cal, PASCAL_RUNS_HELDOUT, out, err)) ||
      (st = pascal_interval_finish(out, err))) {
    pascal_interval_free(out);
    return st;
  }
  return PASCAL_OK;
}
