/*
 * eval_summary.c - one row of the paper's comparison table (section 5.4)
 * from scored per-key results: the balanced MAPE of every method averaged
 * over workload/device groups, 95% key-bootstrap intervals for each method
 * and for each method's paired gap to PASCAL, the repeat-to-repeat floor and
 * the count of diverged runs (K > 1.05 x aligned K).
 */
#include "pascal/evaluate.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* Per-key values of one quantity over the scored keys of each report. */
typedef struct key_columns {
  double **v; /* v[g]: one value per scored key of report g */
  size_t *n;  /* scored keys of report g                    */
  size_t groups;
} key_columns;

static void columns_free(key_columns *c)
{
  for (size_t g = 0; c->v && g < c->groups; g++)
    free(c->v[g]);
  free(c->v);
  free(c->n);
  c->v = NULL;
  c->n = NULL;
}

static pascal_status columns_alloc(const pascal_loko_report *const *reports, size_t n,
                                   key_columns *c, pascal_error *err)
{
  c->groups = n;
  c->v = calloc(n, sizeof *c->v);
  c->n = calloc(n, sizeof *c->n);
  if (!c->v || !c->n)
    goto oom;
  for (size_t g = 0; g < n; g++) {
    c->v[g] = malloc((reports[g]->n_keys ? reports[g]->n_keys : 1) * sizeof **c->v);
    if (!c->v[g])
      goto oom;
  }
  return PASCAL_OK;
oom:
  columns_free(c);
  return pascal_error_set(err, PASCAL_ENOMEM, "keys", "out of memory");
}

/* Fill the columns with method m's per-key MAPE, minus PASCAL's when `gap`.
 * Returns false when a value is not finite (a baseline unavailable). */
static bool fill_method(const pascal_loko_report *const *reports, key_columns *c, int m, bool gap)
{
  for (size_t g = 0; g < c->groups; g++) {
    c->n[g] = 0;
    for (size_t k = 0; k < reports[g]->n_keys; k++) {
      const pascal_key_report *kr = &reports[g]->keys[k];
      if (kr->n_scored == 0)
        continue;
      double v = kr->mape[m] - (gap ? kr->mape[PASCAL_METHOD_PASCAL] : 0);
      if (!isfinite(v))
        return false;
      c->v[g][c->n[g]++] = v;
    }
  }
  return true;
}

static double balanced(const key_columns *c)
{
  double total = 0;
  for (size_t g = 0; g < c->groups; g++) {
    double sum = 0;
    for (size_t i = 0; i < c->n[g]; i++)
      sum += c->v[g][i];
    total += sum / (double)c->n[g];
  }
  return total / (double)c->groups;
}

/* Balanced value and bootstrap interval of the filled columns. */
static pascal_status estimate(const key_columns *c, double *value, pascal_interval *ci,
                              pascal_error *err)
{
  *value = balanced(c);
  return pascal_key_bootstrap((const double *const *)c->v, c->n, c->groups,
                              PASCAL_BOOTSTRAP_RESAMPLES, PASCAL_BOOTSTRAP_SEED,
                              PASCAL_BOOTSTRAP_LEVEL, ci, err);
}

/* Floor: balanced over keys with repeats within a report, then over reports
 * that have any. */
static double floor_of(const pascal_loko_report *const *reports, size_t n)
{
  double total = 0;
  size_t groups = 0;
  for (size_t g = 0; g < n; g++) {
    double sum = 0;
    size_t keys = 0;
    for (size_t k = 0; k < reports[g]->n_keys; k++)
      if (reports[g]->keys[k].n_floor_runs > 0) {
        sum += reports[g]->keys[k].floor_mape;
        keys++;
      }
    if (keys) {
      total += sum / (double)keys;
      groups++;
    }
  }
  return groups ? total / (double)groups : NAN;
}

pascal_status pascal_eval_summarize(const pascal_loko_report *const *reports, size_t n,
                                    pascal_eval_summary *out, pascal_error *err)
{
  if (n == 0 || !reports)
    return pascal_error_set(err, PASCAL_EINVAL, "reports", "at least one report is needed");
  pascal_eval_summary s = {0};
  for (size_t g = 0; g < n; g++) {
    if (reports[g]->n_keys_scored == 0) {
      char field[PASCAL_ERROR_FIELD_MAX];
      snprintf(field, sizeof field, "reports[%zu]", g);
      return pascal_error_set(err, PASCAL_EINVAL, field, "a report has no scored key");
    }
    s.n_runs += reports[g]->n_runs;
    s.n_scored += reports[g]->n_scored;
    for (size_t k = 0; k < reports[g]->n_keys; k++) {
      s.n_above += reports[g]->keys[k].n_above;
      s.n_floor_runs += reports[g]->keys[k].n_floor_runs;
    }
  }
  key_columns c;
  pascal_status st = columns_alloc(reports, n, &c, err);
  for (int m = 0; !st && m < PASCAL_METHOD_COUNT; m++) {
    s.balanced_mape[m] = s.gap[m] = NAN;
    s.ci[m] = s.gap_ci[m] = (pascal_interval){NAN, NAN};
    if (fill_method(reports, &c, m, false))
      st = estimate(&c, &s.balanced_mape[m], &s.ci[m], err);
    if (!st && fill_method(reports, &c, m, true))
      st = estimate(&c, &s.gap[m], &s.gap_ci[m], err);
  }
  columns_free(&c);
  if (st)
    return st;
  s.floor_mape = floor_of(reports, n);
  *out = s;
  return PASCAL_OK;
}
