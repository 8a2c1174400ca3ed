/*
 * model.c - freezing a calibration into a pascal_model (paper section 4.2,
 * App. C Eq. trafficcurve; GEMM: App. C "GEMM instantiation"): one
 * cumulative traffic curve per (size N_j, key z) over log W, or per grid
 * (n_r, n_c) over log n_k, grouped for the transfer of predict_scan.c and
 * predict_gemm.c, and the time fit of the same runs' kernel times
 * (time_fit.c, pascal/time_model.h) and, for GEMM, the step overhead of
 * its configurations (gemm_config_fit.c), and the readings chosen on the
 * calibration's own folds (model_reading.c); plus the read-only accessors
 * used to serialise the model.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "curve_internal.h"
#include "model_internal.h"
#include "quantile.h"

static int cmp_u32(uint32_t x, uint32_t y)
{
  return (x > y) - (x < y);
}

static int cmp_item(const void *pa, const void *pb)
{
  const pc_fit_item *a = pa, *b = pb;
  int c;
  if ((c = cmp_u32(a->a, b->a)) || (c = cmp_u32(a->b, b->b)) || (c = cmp_u32(a->c, b->c)) ||
      (c = cmp_u32(a->e, b->e)) || (c = cmp_u32(a->f, b->f)))
    return c;
  if (a->h != b->h)
    return a->h < b->h ? -1 : 1;
  /* Repeats at one horizon are ordered by value, not by run index, so that
   * the geometric mean (a floating-point sum of logs) and with it every
   * curve and prediction are bit-identical whatever order the runs came in. */
  if (a->k != b->k)
    return a->k < b->k ? -1 : 1;
  return (a->index > b->index) - (a->index < b->index);
}

bool pc_excludes_scan(const model_exclusion *ex, const pascal_scan_run *r)
{
  if (!ex)
    return false;
  switch (ex->kind) {
  case PC_EXCLUDE_KEY:
    return ex->key.o == r->key.o && ex->key.path == r->key.path && ex->key.d == r->key.d &&
           ex->key.m == r->key.m;
  case PC_EXCLUDE_W: return r->W == ex->level;
  case PC_EXCLUDE_N: return r->N == ex->level;
  default: return false;
  }
}

bool pc_excludes_gemm(const model_exclusion *ex, const pascal_gemm_run *r)
{
  if (!ex)
    return false;
  switch (ex->kind) {
  case PC_EXCLUDE_KEY: return ex->Mg == r->shape.Mg && ex->Ng == r->shape.Ng;
  case PC_EXCLUDE_KG: return r->shape.Kg == ex->level;
  case PC_EXCLUDE_MG: return r->shape.Mg == ex->level;
  case PC_EXCLUDE_NG: return r->shape.Ng == ex->level;
  case PC_EXCLUDE_GRID_KG:
    return (ex->Mg == r->shape.Mg && ex->Ng == r->shape.Ng) || r->shape.Kg == ex->level;
  default: return false;
  }
}

/* Collect the included runs as sorted fit items. */
static pascal_status collect_items(const pascal_calibration *cal, const model_exclusion *ex,
                                   pc_fit_item **out, size_t *n_out, pascal_error *err)
{
  size_t n_all = pascal_calibration_run_count(cal), n = 0;
  pc_fit_item *items = malloc((n_all ? n_all : 1) * sizeof *items);
  if (!items)
    return pascal_error_set(err, PASCAL_ENOMEM, "measurements", "out of memory fitting a model");
  for (size_t i = 0; i < n_all; i++) {
    pc_fit_item it = {0};
    it.index = i;
    if (pascal_workload_scans(cal->workload)) {
      const pascal_scan_run *r = &cal->scan_runs[i];
      if (pc_excludes_scan(ex, r))
        continue;
      it.a = r->N;
      it.b = r->key.o;
      it.c = (uint32_t)r->key.path;
      it.e = r->key.d;
      it.f = r->key.m;
      it.h = r->W;
      it.k = pascal_calibration_scan_k(cal, r);
      it.t = r->has_kernel_ns ? 1e-9 * r->kernel_ns : 0;
    } else {
      const pascal_gemm_run *r = &cal->gemm_runs[i];
      pascal_gemm_prediction g;
      if (pc_excludes_gemm(ex, r))
        continue;
      pascal_status st = pascal_gemm_geometry(&cal->gemm, &r->shape, &g, err);
      if (st) {
        free(items);
        return st;
      }
      it.a = g.n_r;
      it.b = g.n_c;
      it.h = g.n_k;
      it.k = r->fill_bytes / g.B0;
      it.t = r->has_kernel_ns ? 1e-9 * r->kernel_ns : 0;
    }
    if (!(it.k > 0)) { /* V > 0 was checked at append, but V / (b W N) can underflow */
      char field[PASCAL_ERROR_FIELD_MAX];
      snprintf(field, sizeof field, "measurements[%zu].fill_bytes", i);
      free(items);
      return pascal_error_set(err, PASCAL_ERANGE, field,
                              "fill_bytes is too small for its run: K underflows to 0");
    }
    items[n++] = it;
  }
  if (n == 0) {
    free(items);
    return pascal_error_set(err, PASCAL_EINVAL, "measurements", "no measurement to fit a model to");
  }
  qsort(items, n, sizeof *items, cmp_item);
  *out = items;
  *n_out = n;
  return PASCAL_OK;
}

/* Fit the curve of the group items[lo, hi) (one key at one size, or one
 * grid), using the caller's scratch arrays of at least hi - lo entries. */
static pascal_status fit_group(const pc_fit_item *items, size_t lo, size_t hi, double *hs,
                               double *ks, pascal_curve *out, pascal_error *err)
{
  char field[PASCAL_ERROR_FIELD_MAX];
  for (size_t i = lo; i < hi; i++) {
    hs[i - lo] = items[i].h;
    ks[i - lo] = items[i].k;
  }
  snprintf(field, sizeof field, "measurements[%zu]", items[lo].index);
  return pc_curve_fit_knots(hs, ks, hi - lo, out, field, err);
}

static pascal_status alloc_array(void **p, size_t n, size_t size, pascal_error *err)
{
  *p = calloc(n ? n : 1, size);
  if (!*p)
    return pascal_error_set(err, PASCAL_ENOMEM, "model", "out of memory fitting a model");
  return PASCAL_OK;
}

static size_t count_groups(const pc_fit_item *items, size_t n, int depth)
{
  size_t g = 0;
  for (size_t i = 0; i < n; i++)
    if (i == 0 || !pc_fit_same_prefix(&items[i - 1], &items[i], depth))
      g++;
  return g;
}

/* The time fit of the reference items[lo, hi): false when none of its runs
 * is timed or no positive cost fits (the model then has no calibrated time). */
static bool fit_ref_time(const pc_fit_item *items, size_t lo, size_t hi, double *scratch,
                         model_ref *ref)
{
  double *W = scratch, *T = scratch + (hi - lo), *X = scratch + 2 * (hi - lo);
  size_t n = 0;
  for (size_t i = lo; i < hi; i++)
    if (items[i].t > 0) {
      W[n] = items[i].h;
      T[n++] = items[i].t;
    }
  return n > 0 && pc_time_fit_scan_ref(W, T, n, items[lo].a, X, &ref->log_cost, &ref->fixed);
}

static pascal_status build_scan(pascal_model *m, const pc_fit_item *items, size_t n, double *hs,
                                double *ks, double *scratch, bool timed, pascal_error *err)
{
  pascal_status st;
  m->n_sizes = count_groups(items, n, 1);
  m->n_families = count_groups(items, n, 4);
  m->n_refs = count_groups(items, n, 5);
  if ((st = alloc_array((void **)&m->sizes, m->n_sizes, sizeof *m->sizes, err)) ||
      (st = alloc_array((void **)&m->families, m->n_families, sizeof *m->families, err)) ||
      (st = alloc_array((void **)&m->refs, m->n_refs, sizeof *m->refs, err)) ||
      (st = alloc_array((void **)&m->ref_m, m->n_refs, sizeof *m->ref_m, err)))
    return st;
  size_t s = 0, f = 0, r = 0;
  m->timed = timed;
  for (size_t lo = 0, hi; lo < n; lo = hi) {
    for (hi = lo + 1; hi < n && pc_fit_same_prefix(&items[lo], &items[hi], 5); hi++)
      ;
    const pc_fit_item *it = &items[lo];
    if (lo == 0 || !pc_fit_same_prefix(&items[lo - 1], it, 1)) {
      m->sizes[s] = (model_size){
          .N = it->a, .eta = (double)m->device.capacity_blocks / it->a, .first_family = f};
      s++;
    }
    if (lo == 0 || !pc_fit_same_prefix(&items[lo - 1], it, 4)) {
      m->families[f] = (model_family){
          .o = it->b, .path = (pascal_path)it->c, .d = it->e, .size = s - 1, .first_ref = r};
      m->sizes[s - 1].n_families++;
      f++;
    }
    model_family *fam = &m->families[f - 1];
    model_ref *ref = &m->refs[r];
    ref->m = it->f;
    ref->cls = pascal_class_rule_apply(m->class_rule, it->f);
    ref->family = f - 1;
    m->ref_m[r] = it->f;
    fam->class_mask |= 1u << ref->cls;
    fam->n_refs++;
    if ((st = fit_group(items, lo, hi, hs, ks, &ref->curve, err)))
      return st;
    m->timed = m->timed && fit_ref_time(items, lo, hi, scratch, ref);
    r++;
  }
  return PASCAL_OK;
}

/* Whether reference r is of `key`. */
static bool ref_is_key(const pascal_model *m, size_t r, const pascal_scan_key *key)
{
  const model_family *f = &m->families[m->refs[r].family];
  return m->refs[r].m == key->m && f->o == key->o && f->path == key->path && f->d == key->d;
}

/* Copy into every reference of the key of reference r the onset of the
 * same key and size in `base`; false when base lacks one of them. */
static bool onsets_from(pascal_model *m, size_t r, const pascal_model *base)
{
  for (size_t q = r; q < m->n_refs; q++) {
    if (!pc_model_same_key(m, &m->refs[r], &m->refs[q]))
      continue;
    const model_family *f = &m->families[m->refs[q].family];
    pascal_scan_key key = {.o = f->o, .path = f->path, .d = f->d, .m = m->refs[q].m};
    size_t b = 0;
    while (b < base->n_refs &&
           !(ref_is_key(base, b, &key) && pc_model_ref_N(base, b) == pc_model_ref_N(m, q)))
      b++;
    if (b == base->n_refs)
      return false;
    m->refs[q].curve.onset = base->refs[b].curve.onset;
  }
  return true;
}

/* Each reference's onset W_0 = c / N, c fitted on the knots above one pass
 * of every size of its key in blocks per slot x = W N (docs/design.md 4.1):
 * the drift that starts the excess is counted in blocks, so the sizes of a
 * key share it, and a key's onset reads its own curves only. So a fit that
 * leaves one key out (`ex`) takes the other keys' onsets from the model of
 * all runs (`base`, or NULL) rather than fitting them again. x and e hold
 * at least as many entries as the model has knots in all. */
static void fit_scan_onsets(pascal_model *m, double *x, double *e, const pascal_model *base,
                            const model_exclusion *ex)
{
  bool reuse = base && ex && ex->kind == PC_EXCLUDE_KEY;
  for (size_t r = 0; r < m->n_refs; r++) {
    size_t k = 0, q;
    for (q = 0; q < r && !pc_model_same_key(m, &m->refs[q], &m->refs[r]); q++)
      ;
    if (q < r) /* the key's first reference fitted it for all */
      continue;
    if (reuse && !ref_is_key(m, r, &ex->key) && onsets_from(m, r, base))
      continue;
    for (q = r; q < m->n_refs; q++)
      if (pc_model_same_key(m, &m->refs[r], &m->refs[q]))
        k += pc_curve_onset_points(&m->refs[q].curve, pc_model_ref_N(m, q), x + k, e + k);
    double c = pascal_onset_fit(x, e, k);
    for (q = r; q < m->n_refs; q++)
      if (pc_model_same_key(m, &m->refs[r], &m->refs[q]))
        m->refs[q].curve.onset = c / pc_model_ref_N(m, q);
  }
}

/* The GEMM time fit over the timed runs among items[0, n). */
static void fit_gemm_time(pascal_model *m, const pc_fit_item *items, size_t n, double *scratch)
{
  pc_gemm_timed_run *runs = (pc_gemm_timed_run *)(void *)scratch;
  size_t k = 0;
  for (size_t i = 0; i < n; i++)
    if (items[i].t > 0)
      runs[k++] =
          (pc_gemm_timed_run){(uint64_t)items[i].a * items[i].b, (uint32_t)items[i].h, items[i].t};
  m->timed = pc_time_fit_gemm(runs, k, m->device.sm_count, &m->gemm_time, scratch + 3 * n);
}

/* m->lnk_levels: the knots of all grids, each once, increasing (the
 * reduction lengths an answer between two of them reads at). */
static pascal_status gemm_levels(pascal_model *m, pascal_error *err)
{
  size_t total = 0, k = 0;
  for (size_t g = 0; g < m->n_grids; g++)
    total += m->grids[g].curve.n;
  pascal_status st = alloc_array((void **)&m->lnk_levels, total, sizeof *m->lnk_levels, err);
  if (st)
    return st;
  for (size_t g = 0; g < m->n_grids; g++)
    for (size_t j = 0; j < m->grids[g].curve.n; j++)
      m->lnk_levels[k++] = m->grids[g].curve.x[j];
  pc_sort_doubles(m->lnk_levels, total);
  m->n_lnk_levels = 0;
  for (size_t i = 0; i < total; i++)
    if (!m->n_lnk_levels || m->lnk_levels[i] != m->lnk_levels[m->n_lnk_levels - 1])
      m->lnk_levels[m->n_lnk_levels++] = m->lnk_levels[i];
  return PASCAL_OK;
}

static pascal_status build_gemm(pascal_model *m, const pc_fit_item *items, size_t n, double *hs,
                                double *ks, double *scratch, bool timed, pascal_error *err)
{
  pascal_status st;
  m->n_rows = count_groups(items, n, 1);
  m->n_grids = count_groups(items, n, 2);
  if ((st = alloc_array((void **)&m->rows, m->n_rows, sizeof *m->rows, err)) ||
      (st = alloc_array((void **)&m->row_lnr, m->n_rows, sizeof *m->row_lnr, err)) ||
      (st = alloc_array((void **)&m->grids, m->n_grids, sizeof *m->grids, err)) ||
      (st = alloc_array((void **)&m->grid_lnc, m->n_grids, sizeof *m->grid_lnc, err)))
    return st;
  size_t row = 0, g = 0;
  for (size_t lo = 0, hi; lo < n; lo = hi) {
    for (hi = lo + 1; hi < n && pc_fit_same_prefix(&items[lo], &items[hi], 2); hi++)
      ;
    const pc_fit_item *it = &items[lo];
    if (lo == 0 || !pc_fit_same_prefix(&items[lo - 1], it, 1)) {
      m->rows[row] = (model_row){.n_r = it->a, .first_grid = g};
      m->row_lnr[row] = log((double)it->a);
      row++;
    }
    m->rows[row - 1].n_grids++;
    m->grids[g].n_r = it->a;
    m->grids[g].n_c = it->b;
    m->grid_lnc[g] = log((double)it->b);
    if ((st = fit_group(items, lo, hi, hs, ks, &m->grids[g].curve, err)))
      return st;
    g++;
  }
  if (timed)
    fit_gemm_time(m, items, n, scratch);
  return gemm_levels(m, err);
}

pascal_status pc_model_fit_excluding(const pascal_calibration *cal, const model_exclusion *ex,
                                     const pascal_model *base, pascal_model **out,
                                     pascal_error *err)
{
  pascal_status st;
  pc_fit_item *items = NULL;
  double *scratch = NULL;
  size_t n = 0;
  pascal_model *m = NULL;
  if ((st = pascal_calibration_check(cal, err)) || (st = pascal_calibration_check_runs(cal, err)))
    return st;
  if ((st = collect_items(cal, ex, &items, &n, err)))
    return st;
  if ((st = alloc_array((void **)&m, 1, sizeof *m, err)) ||
      (st = alloc_array((void **)&scratch, 8 * n, sizeof *scratch, err)))
    goto fail;
  m->workload = cal->workload;
  m->device = cal->device;
  m->class_rule = cal->class_rule;
  m->gemm = cal->gemm;
  m->attention = cal->attention;
  if (pascal_workload_scans(cal->workload)) {
    if (!(st = build_scan(m, items, n, scratch, scratch + n, scratch + 2 * n, !(ex && ex->untimed),
                          err)))
      fit_scan_onsets(m, scratch, scratch + n, base, ex);
  } else
    st = build_gemm(m, items, n, scratch, scratch + n, scratch + 2 * n, !(ex && ex->untimed), err);
  if (!st && base) {
    m->between = base->between;
    m->beyond = base->beyond;
    m->between_static = base->between_static;
    m->between_silent = base->between_silent;
    m->graph = base->graph;
  } else if (!st) {
    st = pc_model_choose_readings(m, cal, items, n, scratch, err);
  }
  if (st)
    goto fail;
  free(items);
  free(scratch);
  *out = m;
  return PASCAL_OK;
fail:
  free(items);
  free(scratch);
  pascal_model_free(m);
  return st;
}

pascal_status pascal_model_fit(const pascal_calibration *cal, pascal_model **out, pascal_error *err)
{
  pascal_model *m;
  pascal_status st = pc_model_fit_excluding(cal, NULL, NULL, &m, err);
  if (!st && (st = pc_gemm_fit_step_overhead(m, cal, err))) {
    pascal_model_free(m);
    return st;
  }
  if (!st)
    *out = m;
  return st;
}

void pascal_model_free(pascal_model *model)
{
  if (!model)
    return;
  free(model->sizes);
  free(model->families);
  free(model->refs);
  free(model->ref_m);
  free(model->rows);
  free(model->row_lnr);
  free(model->grids);
  free(model->grid_lnc);
  free(model->lnk_levels);
  free(model);
}

const pascal_device *pascal_model_device(const pascal_model *model)
{
  return &model->device;
}

pascal_workload pascal_model_workload(const pascal_model *model)
{
  return model->workload;
}

const pascal_gemm_params *pascal_model_gemm(const pascal_model *model)
{
  return &model->gemm;
}

size_t pascal_model_curve_count(const pascal_model *model)
{
  return pascal_workload_scans(model->workload) ? model->n_refs : model->n_grids;
}

pascal_status pascal_model_curve(const pascal_model *model, size_t index, pascal_curve_view *out,
                                 pascal_error *err)
{
  pascal_curve_view v = {0};
  if (index >= pascal_model_curve_count(model))
    return pascal_error_set(err, PASCAL_ENOTFOUND, "index", "curve %zu does not exist (%zu curves)",
                            index, pascal_model_curve_count(model));
  if (pascal_workload_scans(model->workload)) {
    const model_ref *r = &model->refs[index];
    const model_family *f = &model->families[r->family];
    v.key = (pascal_scan_key){.o = f->o, .path = f->path, .d = f->d, .m = r->m};
    v.N = model->sizes[f->size].N;
    v.curve = &r->curve;
  } else {
    const model_grid *g = &model->grids[index];
    v.n_r = g->n_r;
    v.n_c = g->n_c;
    v.curve = &g->curve;
  }
  *out = v;
  return PASCAL_OK;
}
