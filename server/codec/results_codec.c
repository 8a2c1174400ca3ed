/*
 * results_codec.c - JSON form of evaluation reports: leave-one-key-out folds
 * and held-out panels (paper Eq. dynamic_selection, section 5.4), their
 * summaries (intervals, gaps, floor, diverged runs), their latency rows
 * (Table e2e: the pipeline's time with each cache input), a panel's
 * coverage by the prediction intervals (pascal/interval.h), the families
 * where the folds favour aligned K = 1, and the comparison table in the
 * paper's layout. Keys are documented in docs/cli.md; unavailable
 * values (NaN) are written as null. Predictions: prediction_codec.c.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "json_util.h"
#include "pascal/validation.h"
#include "pascal_codec.h"

/* A new object stored under `key` of `parent` (or appended when key is NULL). */
static pascal_status child(json_t *parent, const char *key, json_t **out, pascal_error *err)
{
  json_t *obj = json_object();
  *out = obj;
  return key ? codec_set(parent, key, obj, err) : codec_append(parent, obj, "keys", err);
}

/* [lo,hi] of a finite interval, else null. */
static json_t *interval_or_null(pascal_interval i)
{
  return isfinite(i.lo) && isfinite(i.hi) ? json_pack("[o,o]", codec_real(i.lo), codec_real(i.hi))
                                          : json_null();
}

/* {"pascal":..,"aligned":..,...}: one value per method under its key
 * (PASCAL_METHODS), the number (or null) of `v`, or where `v` is NULL the
 * interval [lo,hi] (or null) of `ci`. */
static pascal_status encode_methods(json_t *parent, const char *key, const double *v,
                                    const pascal_interval *ci, pascal_error *err)
{
  json_t *o;
  pascal_status st = child(parent, key, &o, err);
  for (int m = 0; !st && m < PASCAL_METHOD_COUNT; m++)
    st = codec_set(o, pascal_method_info_of((pascal_method)m)->key,
                   v ? codec_real_or_null(v[m]) : interval_or_null(ci[m]), err);
  return st;
}

/* {"tilesight":..,"pascal":..,"measured":..}: one number (or null) per
 * cache input of the latency pipeline. */
static pascal_status encode_inputs(json_t *parent, const char *key, const double *v,
                                   pascal_error *err)
{
  json_t *o;
  pascal_status st = child(parent, key, &o, err);
  for (int c = 0; !st && c < PASCAL_CACHE_COUNT; c++)
    st =
        codec_set(o, pascal_cache_input_name((pascal_cache_input)c), codec_real_or_null(v[c]), err);
  return st;
}

/* The same with one interval (or null) per cache input. */
static pascal_status encode_input_intervals(json_t *parent, const char *key,
                                            const pascal_interval *v, pascal_error *err)
{
  json_t *o;
  pascal_status st = child(parent, key, &o, err);
  for (int c = 0; !st && c < PASCAL_CACHE_COUNT; c++) {
    json_t *pair = isfinite(v[c].lo) && isfinite(v[c].hi)
                       ? json_pack("[o,o]", codec_real(v[c].lo), codec_real(v[c].hi))
                       : json_null();
    st = codec_set(o, pascal_cache_input_name((pascal_cache_input)c), pair, err);
  }
  return st;
}

/* One row of the latency table (docs/cli.md, "latency"). */
static pascal_status encode_latency_row(json_t *parent, const char *key,
                                        const pascal_latency_row *r, pascal_error *err)
{
  json_t *o;
  pascal_status st;
  if ((st = child(parent, key, &o, err)) ||
      (st = codec_set(o, "n_keys", codec_uint(r->n_keys), err)) ||
      (st = codec_set(o, "n_runs", codec_uint(r->n_runs), err)) ||
      (st = encode_inputs(o, "mape", r->mape, err)) ||
      (st = encode_input_intervals(o, "ci", r->ci, err)) ||
      (st = encode_inputs(o, "gap", r->gap, err)) ||
      (st = encode_input_intervals(o, "gap_ci", r->gap_ci, err)))
    return st;
  return PASCAL_OK;
}

/* "latency" (the pipeline on peaks) or "latency_calibrated" of a report,
 * present when its runs were timed by that source. */
static pascal_status encode_latency(json_t *parent, const char *name, const pascal_latency_eval *l,
                                    pascal_error *err)
{
  json_t *o;
  pascal_status st;
  if (!l->evaluated)
    return PASCAL_OK;
  if ((st = child(parent, name, &o, err)) ||
      (st = codec_set(o, "dram_bound_rise", codec_real(PASCAL_DRAM_BOUND_RISE), err)) ||
      (st = encode_latency_row(o, "all", &l->all, err)) ||
      (st = encode_latency_row(o, "dram_bound", &l->dram, err)))
    return st;
  return PASCAL_OK;
}

/* "latency" or "latency_calibrated" of a key, present when it has timed
 * runs. */
static pascal_status encode_key_latency(json_t *parent, const char *name,
                                        const pascal_key_latency *l, pascal_error *err)
{
  json_t *o;
  pascal_status st;
  if (l->n_timed == 0)
    return PASCAL_OK;
  if ((st = child(parent, name, &o, err)) ||
      (st = codec_set(o, "n_timed", codec_uint(l->n_timed), err)) ||
      (st = codec_set(o, "n_dram_bound", codec_uint(l->n_dram), err)) ||
      (st = encode_inputs(o, "mape", l->mape, err)) ||
      (st = encode_inputs(o, "dram_bound_mape", l->dram_mape, err)))
    return st;
  return PASCAL_OK;
}

/* The members of a summary row into `o` (docs/cli.md, "summary"). */
static pascal_status encode_summary_members(json_t *o, const pascal_eval_summary *s,
                                            pascal_error *err)
{
  pascal_status st;
  double share = s->n_scored ? (double)s->n_above / (double)s->n_scored : NAN;
  if ((st = encode_methods(o, "mape", s->balanced_mape, NULL, err)) ||
      (st = encode_methods(o, "ci", NULL, s->ci, err)) ||
      (st = encode_methods(o, "gap", s->gap, NULL, err)) ||
      (st = encode_methods(o, "gap_ci", NULL, s->gap_ci, err)) ||
      (st = codec_set(o, "floor_mape", codec_real_or_null(s->floor_mape), err)) ||
      (st = codec_set(o, "n_floor_runs", codec_uint(s->n_floor_runs), err)) ||
      (st = codec_set(o, "n_runs", codec_uint(s->n_runs), err)) ||
      (st = codec_set(o, "n_scored", codec_uint(s->n_scored), err)) ||
      (st = codec_set(o, "n_above", codec_uint(s->n_above), err)) ||
      (st = codec_set(o, "share_above", codec_real_or_null(share), err)))
    return st;
  return PASCAL_OK;
}

static pascal_status encode_key_report(json_t *arr, pascal_workload wl, const pascal_key_report *k,
                                       pascal_error *err)
{
  json_t *o;
  pascal_status st = child(arr, NULL, &o, err);
  if (st)
    return st;
  if (wl != PASCAL_WORKLOAD_GEMM)
    st = codec_set_scan_key(o, &k->key, err);
  else if (!(st = codec_set(o, "Mg", codec_uint(k->Mg), err)))
    st = codec_set(o, "Ng", codec_uint(k->Ng), err);
  if (st || (st = codec_set(o, "n_runs", codec_uint(k->n_runs), err)) ||
      (st = codec_set(o, "n_scored", codec_uint(k->n_scored), err)) ||
      (st = encode_methods(o, "mape", k->mape, NULL, err)) ||
      (st = codec_set(o, "refusal", k->refusal[0] ? json_string(k->refusal) : json_null(), err)) ||
      (st = codec_set(o, "n_above", codec_uint(k->n_above), err)) ||
      (st = codec_set(o, "n_floor_runs", codec_uint(k->n_floor_runs), err)) ||
      (st = codec_set(o, "floor_mape", codec_real_or_null(k->floor_mape), err)) ||
      (st = encode_key_latency(o, "latency", &k->latency, err)) ||
      (st = encode_key_latency(o, "latency_calibrated", &k->latency_calibrated, err)))
    return st;
  return PASCAL_OK;
}

static double share_pct(size_t part, size_t whole)
{
  return whole ? 100.0 * (double)part / (double)whole : NAN;
}

/* One group of a panel's coverage (the whole panel: `transfers` NULL). */
static pascal_status encode_coverage_group(json_t *parent, const char *key,
                                           const pascal_coverage_group *g, pascal_error *err)
{
  json_t *o;
  pascal_status st;
  char name[160];
  pascal_signature_name(g->signature, name, sizeof name);
  if ((st = child(parent, key, &o, err)) ||
      (!key && (st = codec_set(o, "transfers", json_string(name), err))) ||
      (st = codec_set(o, "n_runs", codec_uint(g->n_runs), err)) ||
      (st = codec_set(o, "n_covered", codec_uint(g->n_covered), err)) ||
      (st = codec_set(o, "coverage_pct", codec_real_or_null(share_pct(g->n_covered, g->n_runs)),
                      err)) ||
      (st = codec_set(o, "median_K_high_over_low", codec_real_or_null(g->median_ratio), err)) ||
      (st = codec_set(o, "pascal_pct", codec_real_or_null(g->mape_pascal), err)) ||
      (st = codec_set(o, "aligned_pct", codec_real_or_null(g->mape_aligned), err)) ||
      (st = codec_set(o, "n_timed", codec_uint(g->n_timed), err)) ||
      (st = codec_set(o, "time_coverage_pct",
                      codec_real_or_null(share_pct(g->n_time_covered, g->n_timed)), err)))
    return st;
  return PASCAL_OK;
}

/* "coverage" of a panel: level, the whole panel, the groups. */
static pascal_status encode_coverage(json_t *parent, const pascal_coverage *c, pascal_error *err)
{
  json_t *o, *groups;
  pascal_status st;
  if ((st = child(parent, "coverage", &o, err)) ||
      (st = codec_set(o, "level", codec_real(c->level), err)) ||
      (st = encode_coverage_group(o, "all", &c->all, err)) ||
      (st = codec_set(o, "groups", groups = json_array(), err)))
    return st;
  for (size_t i = 0; i < c->n_groups; i++)
    if ((st = encode_coverage_group(groups, NULL, &c->group[i], err)))
      return st;
  return PASCAL_OK;
}

/* "losing_families": where PASCAL's balanced fold error exceeds aligned
 * K = 1's (scan: per (o, path, d); GEMM: the calibration). */
static pascal_status encode_losses(json_t *parent, const pascal_loko_report *r, pascal_error *err)
{
  pascal_family_loss *loss = NULL;
  size_t n = 0;
  json_t *arr, *o;
  pascal_status st;
  if ((st = pascal_family_losses(r, &loss, &n, err)) ||
      (st = codec_set(parent, "losing_families", arr = json_array(), err)))
    goto done;
  for (size_t i = 0; i < n && st == PASCAL_OK; i++) {
    const pascal_family_loss *f = &loss[i];
    if ((st = child(arr, NULL, &o, err)))
      break;
    if (pascal_workload_scans(r->workload) &&
        ((st = codec_set(o, "o", codec_uint(f->family.o), err)) ||
         (st = codec_set(o, "path", json_string(pascal_path_name(f->family.path)), err)) ||
         (st = codec_set(o, "d", codec_uint(f->family.d), err))))
      break;
    if ((st = codec_set(o, "n_keys", codec_uint(f->n_keys), err)) ||
        (st = codec_set(o, "pascal_pct", codec_real(f->pascal_pct), err)) ||
        (st = codec_set(o, "aligned_pct", codec_real(f->aligned_pct), err)))
      break;
  }
done:
  free(loss);
  return st;
}

pascal_status pascal_codec_loko_encode(const pascal_loko_report *r, json_t **out, pascal_error *err)
{
  json_t *o = json_object(), *keys, *summary, *heldout, *offgrid;
  pascal_status st;
  if ((st = codec_set(o, "workload", json_string(pascal_workload_name(r->workload)), err)) ||
      (st = codec_set(o, "n_keys", codec_uint(r->n_keys), err)) ||
      (st = codec_set(o, "n_runs", codec_uint(r->n_runs), err)) ||
      (st = codec_set(o, "n_scored", codec_uint(r->n_scored), err)) ||
      (st = codec_set(o, "n_refused", codec_uint(r->n_refused), err)) ||
      (st = codec_set(o, "n_keys_scored", codec_uint(r->n_keys_scored), err)) ||
      (st = encode_methods(o, "balanced_mape", r->balanced_mape, NULL, err)) ||
      (st = codec_set(o, "keys", keys = json_array(), err)))
    goto fail;
  for (size_t i = 0; i < r->n_keys; i++)
    if ((st = encode_key_report(keys, r->workload, &r->keys[i], err)))
      goto fail;
  if ((st = child(o, "summary", &summary, err)) ||
      (st = encode_summary_members(summary, &r->summary, err)) ||
      (st = encode_latency(o, "latency", &r->latency, err)) ||
      (st = encode_latency(o, "latency_calibrated", &r->latency_calibrated, err)))
    goto fail;
  if ((r->coverage.level > 0 ? (st = encode_coverage(o, &r->coverage, err))
                             : (st = encode_losses(o, r, err))) ||
      (r->heldout && ((st = pascal_codec_loko_encode(r->heldout, &heldout, err)) ||
                      (st = codec_set(o, "heldout", heldout, err)))) ||
      (r->offgrid && ((st = pascal_codec_loko_encode(r->offgrid, &offgrid, err)) ||
                      (st = codec_set(o, "offgrid", offgrid, err)))))
    goto fail;
  *out = o;
  return PASCAL_OK;
fail:
  json_decref(o);
  return st;
}

/* The report a table row reads: the held-out panel when there is one. */
static const pascal_loko_report *row_report(const pascal_loko_report *r)
{
  return r->heldout ? r->heldout : r;
}

static pascal_status encode_row(json_t *rows, const char *device, const pascal_loko_report *r,
                                pascal_error *err)
{
  json_t *o;
  const pascal_loko_report *used = row_report(r);
  pascal_status st;
  if ((st = child(rows, NULL, &o, err)) ||
      (st = codec_set(o, "workload", json_string(pascal_workload_name(r->workload)), err)) ||
      (st = codec_set(o, "device", json_string(device), err)) ||
      (st = codec_set(o, "validation", json_string(r->heldout ? "heldout" : "loko"), err)) ||
      (st = codec_set(o, "n_keys", codec_uint(used->n_keys_scored), err)) ||
      (st = encode_summary_members(o, &used->summary, err)))
    return st;
  return PASCAL_OK;
}

pascal_status pascal_codec_table_encode(const pascal_loko_report *const *reports,
                                        const char *const *devices, size_t n, json_t **out,
                                        pascal_error *err)
{
  json_t *o = json_object(), *columns, *rows, *boot, *overall;
  const pascal_loko_report **used = calloc(n ? n : 1, sizeof *used);
  pascal_eval_summary total;
  pascal_status st;
  if (!used) {
    json_decref(o);
    return pascal_error_set(err, PASCAL_ENOMEM, "table", "out of memory");
  }
  for (size_t i = 0; i < n; i++)
    used[i] = row_report(reports[i]);
  if ((st = pascal_eval_summarize(used, n, &total, err)) ||
      (st = codec_set(o, "columns", columns = json_array(), err)))
    goto fail;
  for (unsigned c = 0; c < PASCAL_METHOD_COUNT; c++) {
    const char *name = pascal_method_info_of(pascal_method_at_column(c))->key;
    if ((st = codec_append(columns, json_string(name), "table.columns", err)))
      goto fail;
  }
  if ((st = child(o, "bootstrap", &boot, err)) ||
      (st = codec_set(boot, "resamples", codec_uint(PASCAL_BOOTSTRAP_RESAMPLES), err)) ||
      (st = codec_set(boot, "seed", codec_uint(PASCAL_BOOTSTRAP_SEED), err)) ||
      (st = codec_set(boot, "level", codec_real(PASCAL_BOOTSTRAP_LEVEL), err)) ||
      (st = codec_set(o, "rows", rows = json_array(), err)))
    goto fail;
  for (size_t i = 0; i < n; i++)
    if ((st = encode_row(rows, devices[i], reports[i], err)))
      goto fail;
  if ((st = child(o, "overall", &overall, err)) ||
      (st = encode_summary_members(overall, &total, err)))
    goto fail;
  free(used);
  *out = o;
  return PASCAL_OK;
fail:
  free(used);
  json_decref(o);
  return st;
}

pascal_status pascal_codec_report_encode(const pascal_calibration *cal,
                                         const pascal_loko_report *report, json_t **out,
                                         pascal_error *err)
{
  json_t *doc = NULL, *table = NULL;
  const char *device = cal->device.name;
  pascal_status st = pascal_codec_loko_encode(report, &doc, err);
  if (st)
    return st;
  if (row_report(report)->n_keys_scored > 0) {
    if ((st = pascal_codec_table_encode(&report, &device, 1, &table, err)) ||
        (st = codec_set(doc, "table", table, err))) {
      json_decref(doc);
      return st;
    }
  }
  *out = doc;
  return PASCAL_OK;
}
