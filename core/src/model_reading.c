/*
 * model_reading.c - the readings each calibration chooses at fit time on its
 * own runs (pascal_reading_choice, pascal/predict.h; docs/design.md 4.1 and
 * 4.5): between two calibrated knots, every interior knot of every curve
 * held out and read back by both candidates (a scan's horizons above one
 * pass: the onset law or the paper's curve S, the key's onset fitted again
 * without the knot; a GEMM's reduction lengths: S or the excess coordinate
 * linear in log n_k); and beyond the GEMM grid, the largest and smallest
 * Mg, Ng and Kg held out in turn and predicted by the model of the rest
 * with either carry of the static reference (the excess ratio or all of V
 * by V / V_s); and between two GEMM reduction lengths, each interior Kg
 * held out in turn and its runs predicted by the model of the rest with the
 * reading between knots or carried by the query's static reference
 * (pascal_gemm_carry); and with that carry, where the static reference
 * has nothing to carry, the same Kg folds and folds that hold out an
 * interior grid with an interior Kg, predicted with nothing carried or
 * with the lower level's kappa held; and a scan's m between two references
 * of its execution class (rule graph), every reference with same-class
 * references on both sides among the rest of its family held out and read
 * back at each of its knots by the paper's anchored interpolation or by the
 * pooled PCHIP alone. The alternative replaces the default only when its
 * mean error is lower.
 */
#include <assert.h>
#include <math.h>
#include <stdlib.h>

#include "curve_internal.h"
#include "model_internal.h"

/* The mean |predicted / measured - 1| of each candidate reading over the
 * held-out knots scored so far. */
typedef struct between_score {
  double sum[2];
  size_t points;
} between_score;

static void score_add(between_score *s, const double a[2], double k_measured)
{
  for (int c = 0; c < 2; c++)
    s->sum[c] += fabs(pascal_excess_decode(a[c], 1, INFINITY) / k_measured - 1);
  s->points++;
}

/* Whether knot j of a scan curve lies strictly between two knots above one
 * pass (the segment from W = 1 always reads the onset law). */
static bool scan_between_knot(const pascal_curve *c, size_t j)
{
  return j >= 1 && j + 1 < c->n && c->x[j - 1] > 0;
}

static bool has_knot(const pascal_curve *c, double lw)
{
  for (size_t j = 0; j < c->n; j++)
    if (c->x[j] == lw)
      return true;
  return false;
}

/* The curve of items[lo, hi) fitted without its runs at log level lw (the
 * knots' log is computed as the curve fit computes it, so == is exact), and
 * the geometric mean of those runs' values. */
static pascal_status fit_group_without(const pc_fit_item *items, size_t lo, size_t hi, double lw,
                                       double *hs, double *ks, pascal_curve *out, double *held,
                                       pascal_error *err)
{
  size_t k = 0, h = 0;
  double sum = 0;
  for (size_t i = lo; i < hi; i++)
    if (log(items[i].h) == lw) {
      sum += log(items[i].k);
      h++;
    } else {
      hs[k] = items[i].h;
      ks[k++] = items[i].k;
    }
  assert(h > 0 && k > 0);
  *held = exp(sum / (double)h);
  return pc_curve_fit_knots(hs, ks, k, out, "measurements", err);
}

/* Score the horizon lw of the key of scan reference r held out of every
 * size of the key: the key's onset fitted again without it, then each size
 * where lw lies between two knots above one pass read back from the rest
 * by the onset law (candidate 0) and by S (1). start[q] is the first item
 * of reference q; scratch holds 4 n doubles. */
static pascal_status score_scan_level(const pascal_model *m, const pc_fit_item *items,
                                      const size_t *start, size_t n, size_t r, double lw,
                                      double *scratch, between_score *s, pascal_error *err)
{
  double *hs = scratch, *ks = scratch + n, *x = scratch + 2 * n, *e = scratch + 3 * n, held;
  pascal_curve c;
  pascal_status st;
  size_t k = 0;
  for (size_t q = r; q < m->n_refs; q++) {
    const pascal_curve *cq = &m->refs[q].curve;
    if (!pc_model_same_key(m, &m->refs[r], &m->refs[q]))
      continue;
    if (has_knot(cq, lw) && cq->n == 1) /* nothing left of this size */
      continue;
    if (has_knot(cq, lw)) {
      if ((st = fit_group_without(items, start[q], start[q + 1], lw, hs, ks, &c, &held, err)))
        return st;
      cq = &c;
    }
    k += pc_curve_onset_points(cq, pc_model_ref_N(m, q), x + k, e + k);
  }
  double onset = pascal_onset_fit(x, e, k);
  for (size_t q = r; q < m->n_refs; q++) {
    const pascal_curve *cq = &m->refs[q].curve;
    size_t j = 0;
    while (j < cq->n && cq->x[j] != lw)
      j++;
    if (!pc_model_same_key(m, &m->refs[r], &m->refs[q]) || j == cq->n || !scan_between_knot(cq, j))
      continue;
    if ((st = fit_group_without(items, start[q], start[q + 1], lw, hs, ks, &c, &held, err)))
      return st;
    c.onset = onset / pc_model_ref_N(m, q);
    double a[2] = {pc_curve_excess_at(&c, lw, true), pc_curve_excess_at(&c, lw, false)};
    score_add(s, a, held);
  }
  return PASCAL_OK;
}

/* Whether the horizon lw lies between two knots above one pass of a
 * reference of r's key before r (which scored it for the whole key). */
static bool scored_before(const pascal_model *m, size_t r, double lw)
{
  for (size_t q = 0; q < r; q++) {
    const pascal_curve *cq = &m->refs[q].curve;
    if (!pc_model_same_key(m, &m->refs[q], &m->refs[r]))
      continue;
    for (size_t j = 0; j < cq->n; j++)
      if (cq->x[j] == lw && scan_between_knot(cq, j))
        return true;
  }
  return false;
}

/* Score each reduction length between two knots of grid g held out and
 * read back from the rest by S (candidate 0) and linearly (1). */
static pascal_status score_gemm_grid(const pascal_model *m, const pc_fit_item *items,
                                     const size_t *start, size_t n, size_t g, double *scratch,
                                     between_score *s, pascal_error *err)
{
  const pascal_curve *cg = &m->grids[g].curve;
  pascal_curve c;
  double held;
  for (size_t j = 1; j + 1 < cg->n; j++) {
    pascal_status st = fit_group_without(items, start[g], start[g + 1], cg->x[j], scratch,
                                         scratch + n, &c, &held, err);
    if (st)
      return st;
    double a[2] = {pascal_excess_encode(pc_curve_log_k_at(&c, cg->x[j])),
                   pc_curve_excess_linear(&c, cg->x[j])};
    score_add(s, a, held);
  }
  return PASCAL_OK;
}

/* Score a scan family's references held out in m (rule graph) at each of
 * their knots, read back from the rest of the family as the predictor
 * reads a query between them (predict_scan.c's family_read): by the paper's
 * anchored interpolation (candidate 0) and by the pooled PCHIP over every m
 * alone (1), against the held-out curve's own value there. scratch holds
 * 3 f->n_refs doubles. */
static void score_graph_family(const pascal_model *m, const model_family *f, bool law_between,
                               double *scratch, between_score *s)
{
  const model_ref *refs = m->refs + f->first_ref;
  const double *xm = m->ref_m + f->first_ref;
  size_t n = f->n_refs;
  double *x = scratch, *y = scratch + n, *d = scratch + 2 * n;
  for (size_t t = 0; t < n; t++) {
    size_t left = t, right = t; /* same-class neighbours; t = none */
    for (size_t k = t; k > 0 && left == t; k--)
      if (refs[k - 1].cls == refs[t].cls)
        left = k - 1;
    for (size_t k = t + 1; k < n && right == t; k++)
      if (refs[k].cls == refs[t].cls)
        right = k;
    if (left == t || right == t) /* the rule would not be graph */
      continue;
    const pascal_curve *ct = &refs[t].curve;
    for (size_t j = 0; j < ct->n; j++) {
      size_t r = 0;
      for (size_t k = 0; k < n; k++)
        if (k != t) {
          x[r] = xm[k];
          y[r++] = pc_curve_excess_at(&refs[k].curve, ct->x[j], law_between);
        }
      pascal_pchip_slopes(x, y, r, d);
      double p = pascal_pchip_eval(x, y, d, r, xm[t]);
      double hl = xm[t] - xm[left], hr = xm[right] - xm[t];
      double a_lin = (hr * y[left] + hl * y[right - 1]) / (hl + hr); /* rest: right shifts */
      double c0 = 1 / (xm[t] - xm[t - 1]) + 1 / (xm[t + 1] - xm[t]);
      double w = pc_graph_weight(PASCAL_GRAPH_GAMMA, hl, hr, c0);
      double a[2] = {(1 - w) * p + w * a_lin, p};
      score_add(s, a, exp(ct->y[j] - ct->x[j]));
    }
  }
}

/* b's rule from the folds' sums: the alternative only where it is lower. */
static void choose_by_sums(pascal_reading_choice *b, const double sum[2], size_t points)
{
  b->points = points;
  for (int k = 0; k < 2; k++)
    b->fold_pct[k] = points ? 100 * sum[k] / (double)points : NAN;
  b->rule = b->candidate[points && sum[1] < sum[0]];
}

/* Choose m's reading between knots on its own runs (pascal_reading_choice):
 * items[0, n) the sorted runs it was fitted to, scratch 4 n doubles. */
static pascal_status choose_between(pascal_model *m, const pc_fit_item *items, size_t n,
                                    double *scratch, pascal_error *err)
{
  bool scan = pascal_workload_scans(m->workload);
  size_t n_curves = scan ? m->n_refs : m->n_grids, g = 0;
  size_t *start = malloc((n_curves + 1) * sizeof *start);
  between_score s = {{0, 0}, 0};
  pascal_status st = PASCAL_OK;
  if (!start)
    return pascal_error_set(err, PASCAL_ENOMEM, "model", "out of memory fitting a model");
  for (size_t lo = 0, hi; lo < n; lo = hi, g++) { /* the curves are the groups, in order */
    for (hi = lo + 1; hi < n && pc_fit_same_prefix(&items[lo], &items[hi], scan ? 5 : 2); hi++)
      ;
    start[g] = lo;
  }
  assert(g == n_curves);
  start[g] = n;
  for (g = 0; !st && g < n_curves; g++) {
    if (!scan) {
      st = score_gemm_grid(m, items, start, n, g, scratch, &s, err);
      continue;
    }
    const pascal_curve *c = &m->refs[g].curve;
    for (size_t j = 0; !st && j < c->n; j++)
      if (scan_between_knot(c, j) && !scored_before(m, g, c->x[j]))
        st = score_scan_level(m, items, start, n, g, c->x[j], scratch, &s, err);
  }
  free(start);
  pascal_reading_choice *b = &m->between;
  b->candidate[0] = scan ? PASCAL_READ_LAW : PASCAL_READ_CURVE;
  b->candidate[1] = scan ? PASCAL_READ_CURVE : PASCAL_READ_LINEAR;
  choose_by_sums(b, s.sum, s.points);
  return st;
}

/* Choose the model's reading in m between same-class references on its own
 * references (score_graph_family over every family of every size; a GEMM
 * and a calibration with no such reference keep the paper's). scratch
 * holds 3 n_refs doubles. */
static void choose_graph(pascal_model *m, double *scratch)
{
  between_score s = {{0, 0}, 0};
  bool law_between = m->between.rule == PASCAL_READ_LAW;
  for (size_t f = 0; pascal_workload_scans(m->workload) && f < m->n_families; f++)
    score_graph_family(m, &m->families[f], law_between, scratch, &s);
  m->graph.candidate[0] = PASCAL_READ_ANCHORED;
  m->graph.candidate[1] = PASCAL_READ_POOLED;
  choose_by_sums(&m->graph, s.sum, s.points);
}

/* The smallest and the largest level of a GEMM dimension among the runs
 * (dim 0: Mg, 1: Ng, 2: Kg). */
static void gemm_level_range(const pascal_calibration *cal, int dim, uint32_t *lo, uint32_t *hi)
{
  *lo = UINT32_MAX;
  *hi = 0;
  for (size_t i = 0; i < cal->n_gemm_runs; i++) {
    const pascal_gemm_shape *s = &cal->gemm_runs[i].shape;
    uint32_t v = dim == 0 ? s->Mg : dim == 1 ? s->Ng : s->Kg;
    *lo = v < *lo ? v : *lo;
    *hi = v > *hi ? v : *hi;
  }
}

/* The two fills a fold compares for one held-out run. */
typedef pascal_status (*fold_fills_fn)(const pascal_model *fold, const pascal_gemm_shape *shape,
                                       const pascal_reading_choice *b, double fills[2],
                                       pascal_error *err);

static pascal_status fills_beyond(const pascal_model *fold, const pascal_gemm_shape *shape,
                                  const pascal_reading_choice *b, double fills[2],
                                  pascal_error *err)
{
  return pc_gemm_fills_by_carry(fold, shape, b->candidate, fills, err);
}

static pascal_status fills_between(const pascal_model *fold, const pascal_gemm_shape *shape,
                                   const pascal_reading_choice *b, double fills[2],
                                   pascal_error *err)
{
  return pc_gemm_fills_between(fold, shape, b->candidate, fills, err);
}

/* Whether a fold scores run r: every run it leaves out, except that a fold
 * leaving out a grid and a reduction length scores only the grid's runs at
 * that length (the others are left out so that those are read from other
 * grids and lengths). */
static bool fold_scores(const model_exclusion *ex, const pascal_gemm_run *r)
{
  if (ex->kind == PC_EXCLUDE_GRID_KG)
    return ex->Mg == r->shape.Mg && ex->Ng == r->shape.Ng && ex->level == r->shape.Kg;
  return pc_excludes_gemm(ex, r);
}

/* Add to sum[k] |fills_k / measured - 1| of every run the fold ex scores
 * (fold_scores), predicted by the model of the rest of cal (m's readings)
 * with fills(). */
static pascal_status score_gemm_fold(const pascal_calibration *cal, const pascal_model *m,
                                     const model_exclusion *ex, fold_fills_fn fills,
                                     const pascal_reading_choice *b, double sum[2], size_t *points,
                                     pascal_error *err)
{
  pascal_model *fold = NULL;
  pascal_status st = pc_model_fit_excluding(cal, ex, m, &fold, err);
  for (size_t i = 0; !st && i < cal->n_gemm_runs; i++) {
    const pascal_gemm_run *r = &cal->gemm_runs[i];
    double f[2];
    if (!fold_scores(ex, r))
      continue;
    if ((st = fills(fold, &r->shape, b, f, err)))
      break;
    for (int k = 0; k < 2; k++)
      sum[k] += fabs(f[k] / r->fill_bytes - 1);
    (*points)++;
  }
  pascal_model_free(fold);
  return st;
}

/* Choose the GEMM model m's carry beyond the grid on its own runs
 * (pascal_reading_choice): the largest and the smallest Mg row, Ng column
 * and Kg of the calibration held out in turn (a dimension with one level
 * has no fold), each held-out run predicted by the model of the rest with
 * either carry; the mean |V / V_measured - 1| over all of them decides. */
static pascal_status choose_beyond(pascal_model *m, const pascal_calibration *cal,
                                   pascal_error *err)
{
  static const model_exclusion_kind kinds[3] = {PC_EXCLUDE_MG, PC_EXCLUDE_NG, PC_EXCLUDE_KG};
  double sum[2] = {0, 0};
  size_t points = 0;
  pascal_status st = PASCAL_OK;
  for (int dim = 0; !st && dim < 3; dim++) {
    uint32_t level[2];
    gemm_level_range(cal, dim, &level[0], &level[1]);
    for (int end = 0; !st && end < 2 && level[0] < level[1]; end++) {
      model_exclusion ex = {.kind = kinds[dim], .level = level[end], .untimed = true};
      st = score_gemm_fold(cal, m, &ex, fills_beyond, &m->beyond, sum, &points, err);
    }
  }
  choose_by_sums(&m->beyond, sum, points);
  return st;
}

/* Whether v lies strictly between the smallest and the largest level of
 * GEMM dimension dim (gemm_level_range). */
static bool gemm_interior(const pascal_calibration *cal, int dim, uint32_t v)
{
  uint32_t lo, hi;
  gemm_level_range(cal, dim, &lo, &hi);
  return lo < v && v < hi;
}

/* Score b's candidates between two reduction lengths (fills_between) on
 * the folds that hold out every Kg of the calibration strictly between
 * its smallest and its largest in turn, adding to sum and points. */
static pascal_status score_kg_folds(const pascal_calibration *cal, const pascal_model *m,
                                    const pascal_reading_choice *b, double sum[2], size_t *points,
                                    pascal_error *err)
{
  pascal_status st = PASCAL_OK;
  for (size_t i = 0; !st && i < cal->n_gemm_runs; i++) {
    uint32_t kg = cal->gemm_runs[i].shape.Kg;
    size_t j = 0;
    while (j < i && cal->gemm_runs[j].shape.Kg != kg)
      j++;
    if (!gemm_interior(cal, 2, kg) || j < i) /* an end, or a level already held out */
      continue;
    model_exclusion ex = {.kind = PC_EXCLUDE_KG, .level = kg, .untimed = true};
    st = score_gemm_fold(cal, m, &ex, fills_between, b, sum, points, err);
  }
  return st;
}

/* Score b's candidates (fills_between) on folds that hold out each
 * interior grid (Mg and Ng strictly inside the calibrated ones) together
 * with each interior Kg, its runs at that Kg then read from the other grids
 * and lengths as a query between grids and lengths is. */
static pascal_status score_grid_kg_folds(const pascal_calibration *cal, const pascal_model *m,
                                         const pascal_reading_choice *b, double sum[2],
                                         size_t *points, pascal_error *err)
{
  pascal_status st = PASCAL_OK;
  for (size_t i = 0; !st && i < cal->n_gemm_runs; i++) {
    const pascal_gemm_shape *s = &cal->gemm_runs[i].shape;
    size_t j = 0;
    while (j < i && !(cal->gemm_runs[j].shape.Mg == s->Mg && cal->gemm_runs[j].shape.Ng == s->Ng &&
                      cal->gemm_runs[j].shape.Kg == s->Kg))
      j++;
    if (j < i || !gemm_interior(cal, 0, s->Mg) || !gemm_interior(cal, 1, s->Ng) ||
        !gemm_interior(cal, 2, s->Kg)) /* a repeat, or not between calibrated levels */
      continue;
    model_exclusion ex = {
        .kind = PC_EXCLUDE_GRID_KG, .Mg = s->Mg, .Ng = s->Ng, .level = s->Kg, .untimed = true};
    st = score_gemm_fold(cal, m, &ex, fills_between, b, sum, points, err);
  }
  return st;
}

/* Choose a GEMM reading between two reduction lengths (b, one of m's) on
 * the Kg folds, and on the grid-and-Kg folds too when grid_folds; the mean
 * |V / V_measured - 1| over them decides. */
static pascal_status choose_between_on_folds(pascal_model *m, const pascal_calibration *cal,
                                             pascal_reading_choice *b, bool grid_folds,
                                             pascal_error *err)
{
  double sum[2] = {0, 0};
  size_t points = 0;
  pascal_status st = score_kg_folds(cal, m, b, sum, &points, err);
  if (!st && grid_folds)
    st = score_grid_kg_folds(cal, m, b, sum, &points, err);
  choose_by_sums(b, sum, points);
  return st;
}

pascal_status pc_model_choose_readings(pascal_model *m, const pascal_calibration *cal,
                                       const pc_fit_item *items, size_t n, double *scratch,
                                       pascal_error *err)
{
  m->beyond = (pascal_reading_choice){
      PASCAL_READ_EXCESS_RATIO, {PASCAL_READ_EXCESS_RATIO, PASCAL_READ_RATIO}, {NAN, NAN}, 0};
  pascal_status st = choose_between(m, items, n, scratch, err);
  if (!st)
    choose_graph(m, scratch);
  /* on top of the reading between knots: the carry's default is that
     reading (a scan's stays so, with no point) */
  m->between_static = (pascal_reading_choice){
      m->between.rule, {m->between.rule, PASCAL_READ_STATIC_EXCESS}, {NAN, NAN}, 0};
  /* the carry by the static reference, on the Kg folds: each held-out run
     predicted by the model of the rest with the reading between knots or
     carried */
  if (!st && !pascal_workload_scans(m->workload))
    st = choose_between_on_folds(m, cal, &m->between_static, false, err);
  /* on top of the carry, where V_s says nothing: nothing carried or the
     lower level's kappa held, scored where the two can differ, the Kg folds
     and the grid-and-Kg folds (without the carry its default, with no
     point: nothing is carried anyway) */
  m->between_silent = (pascal_reading_choice){PASCAL_READ_STATIC_EXCESS,
                                              {PASCAL_READ_STATIC_EXCESS, PASCAL_READ_LOWER_LEVEL},
                                              {NAN, NAN},
                                              0};
  if (!st && m->between_static.rule == PASCAL_READ_STATIC_EXCESS)
    st = choose_between_on_folds(m, cal, &m->between_silent, true, err);
  if (!st && !pascal_workload_scans(m->workload))
    st = choose_beyond(m, cal, err);
  return st;
}

void pascal_model_between(const pascal_model *model, pascal_reading_choice *out)
{
  *out = model->between;
}

void pascal_model_beyond(const pascal_model *model, pascal_reading_choice *out)
{
  *out = model->beyond;
}

void pascal_model_between_static(const pascal_model *model, pascal_reading_choice *out)
{
  *out = model->between_static;
}

void pascal_model_between_silent(const pascal_model *model, pascal_reading_choice *out)
{
  *out = model->between_silent;
}

void pascal_model_graph(const pascal_model *model, pascal_reading_choice *out)
{
  *out = model->graph;
}

const char *pascal_reading_name(pascal_reading rule)
{
  switch (rule) {
  case PASCAL_READ_LAW: return "law";
  case PASCAL_READ_CURVE: return "curve";
  case PASCAL_READ_LINEAR: return "linear";
  case PASCAL_READ_EXCESS_RATIO: return "excess-ratio";
  case PASCAL_READ_RATIO: return "ratio";
  case PASCAL_READ_STATIC_EXCESS: return "static-excess";
  case PASCAL_READ_LOWER_LEVEL: return "lower-level";
  case PASCAL_READ_ANCHORED: return "anchored";
  case PASCAL_READ_POOLED: return "pooled";
  }
  return "?";
}
