/*
 * plots.c - the charts of plots.h: which runs and which model answers each
 * kind draws (paper section 4.2 curves, 4.3 transfer rules, 4.4 evaluation:
 * the calibration's leave-one-key-out errors and the held-out panel's, on
 * charts of their own).
 * Measured K is computed as everywhere else: scan K = V / (b W N), GEMM
 * K = M V / Q (pascal/calibration.h, predict.h); model lines are the
 * fitted model's own answers (pascal_model_predict_*), so a plot shows what
 * a prediction would say.
 */
#include "plots.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pascal/evaluate.h"
#include "svg.h"

/* Samples of a model line along a continuous axis. */
#define LINE_SAMPLES 48

static const char *const kind_names[PASCAL_PLOT_KIND_COUNT] = {"curves",   "transfer", "evaluation",
                                                               "capacity", "static",   "heldout"};

/* "curves", "transfer", "evaluation", "capacity", "static", "heldout". */
static const char *kind_name(pascal_plot_kind kind)
{
  return kind < PASCAL_PLOT_KIND_COUNT ? kind_names[kind] : "unknown";
}

pascal_status pascal_plot_kind_parse(const char *name, pascal_plot_kind *out, pascal_error *err)
{
  for (int k = 0; k < PASCAL_PLOT_KIND_COUNT; k++)
    if (strcmp(name, kind_names[k]) == 0) {
      *out = (pascal_plot_kind)k;
      return PASCAL_OK;
    }
  return pascal_error_set(err, PASCAL_EINVAL, "kind",
                          "unknown plot kind '%.40s' (curves, transfer, evaluation, heldout, "
                          "capacity, static)",
                          name);
}

void pascal_plot_request_init(pascal_plot_request *req, pascal_plot_kind kind)
{
  memset(req, 0, sizeof *req);
  req->kind = kind;
}

/* A decimal number in [1, 2^32) that is all of text[0..len). */
static int parse_u32(const char *text, size_t len, uint32_t *out)
{
  if (len == 0 || len > 10)
    return -1;
  unsigned long long v = 0;
  for (size_t i = 0; i < len; i++) {
    if (text[i] < '0' || text[i] > '9')
      return -1;
    v = v * 10 + (unsigned)(text[i] - '0');
  }
  if (v > UINT32_MAX)
    return -1;
  *out = (uint32_t)v;
  return 0;
}

pascal_status pascal_plot_family_parse(const char *text, pascal_workload workload,
                                       pascal_plot_request *req, pascal_error *err)
{
  if (workload == PASCAL_WORKLOAD_GEMM) {
    if (parse_u32(text, strlen(text), &req->Mg) || req->Mg == 0)
      return pascal_error_set(err, PASCAL_EINVAL, "family",
                              "a GEMM family is a row Mg, a positive integer (got '%.40s')", text);
    req->has_family = 1;
    return PASCAL_OK;
  }
  const char *c1 = strchr(text, ','), *c2 = c1 ? strchr(c1 + 1, ',') : NULL;
  char path[8];
  size_t pl = c2 ? (size_t)(c2 - c1 - 1) : 0;
  if (!c2 || strchr(c2 + 1, ',') || pl >= sizeof path ||
      parse_u32(text, (size_t)(c1 - text), &req->o) || req->o == 0 ||
      parse_u32(c2 + 1, strlen(c2 + 1), &req->d))
    return pascal_error_set(err, PASCAL_EINVAL, "family",
                            "a scan family is o,path,d such as 1,sync,0 (got '%.40s')", text);
  memcpy(path, c1 + 1, pl);
  path[pl] = '\0';
  if (pascal_path_parse(path, "family", &req->path, err))
    return PASCAL_EINVAL;
  req->has_family = 1;
  return PASCAL_OK;
}

/* ---- measured values ------------------------------------------------------ */

static double scan_k(const pascal_calibration *cal, const pascal_scan_run *r)
{
  return pascal_calibration_scan_k(cal, r); /* attention: its query-adjusted K */
}

static double gemm_k(const pascal_calibration *cal, const pascal_gemm_run *r)
{
  pascal_gemm_prediction g;
  if (pascal_gemm_geometry(&cal->gemm, &r->shape, &g, NULL))
    return NAN; /* cannot happen: runs were validated against the tiling */
  return cal->gemm.resident_ctas * r->fill_bytes / g.Q;
}

static int family_of(const pascal_plot_request *q, const pascal_scan_key *k)
{
  return k->o == q->o && k->path == q->path && k->d == q->d;
}

static int cmp_u32(const void *a, const void *b)
{
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  return (x > y) - (x < y);
}

/* Sort v[0..*n) and drop repeats. */
static void sort_unique(uint32_t *v, size_t *n)
{
  qsort(v, *n, sizeof *v, cmp_u32);
  size_t w = 0;
  for (size_t i = 0; i < *n; i++)
    if (w == 0 || v[w - 1] != v[i])
      v[w++] = v[i];
  *n = w;
}

/* Scan family, N and W of a request, defaults filled from the runs; the
 * distinct m of the family at (N, W) (W 0: at N, any W) in *ms (malloc'd). */
typedef struct scan_selection {
  pascal_plot_request q;
  double w_min, w_max; /* horizons of the family at N */
  uint32_t *ms;
  size_t n_ms;
} scan_selection;

static pascal_status select_scan(const pascal_calibration *cal, const pascal_plot_request *req,
                                 int need_w, scan_selection *s, pascal_error *err)
{
  memset(s, 0, sizeof *s);
  s->q = *req;
  const pascal_scan_run *runs = cal->scan_runs;
  size_t n = cal->n_scan_runs;
  if (!s->q.has_family) {
    /* The family of the run with the largest K: where divergence shows. */
    double k_max = 0;
    for (size_t i = 0; i < n; i++)
      if (scan_k(cal, &runs[i]) > k_max) {
        k_max = scan_k(cal, &runs[i]);
        s->q.o = runs[i].key.o;
        s->q.path = runs[i].key.path;
        s->q.d = runs[i].key.d;
      }
  }
  uint32_t n_max = 0;
  int any = 0;
  for (size_t i = 0; i < n; i++)
    if (family_of(&s->q, &runs[i].key)) {
      any = 1;
      if (runs[i].N > n_max)
        n_max = runs[i].N;
    }
  if (!any)
    return pascal_error_set(err, PASCAL_ENOTFOUND, "family",
                            "the calibration has no runs of family o=%u path=%s d=%u", s->q.o,
                            pascal_path_name(s->q.path), s->q.d);
  if (!s->q.N)
    s->q.N = n_max;
  s->w_min = INFINITY;
  s->w_max = 0;
  for (size_t i = 0; i < n; i++)
    if (family_of(&s->q, &runs[i].key) && runs[i].N == s->q.N) {
      s->w_min = fmin(s->w_min, runs[i].W);
      s->w_max = fmax(s->w_max, runs[i].W);
    }
  if (s->w_max == 0)
    return pascal_error_set(err, PASCAL_ENOTFOUND, "N",
                            "family o=%u path=%s d=%u has no runs at N=%u", s->q.o,
                            pascal_path_name(s->q.path), s->q.d, s->q.N);
  if (need_w && s->q.W == 0)
    s->q.W = s->w_max;
  s->ms = malloc((n ? n : 1) * sizeof *s->ms);
  if (!s->ms)
    return pascal_error_set(err, PASCAL_ENOMEM, "", "out of memory");
  for (size_t i = 0; i < n; i++)
    if (family_of(&s->q, &runs[i].key) && runs[i].N == s->q.N && (!need_w || runs[i].W == s->q.W))
      s->ms[s->n_ms++] = runs[i].key.m;
  if (s->n_ms == 0)
    return pascal_error_set(err, PASCAL_ENOTFOUND, "W",
                            "family o=%u path=%s d=%u has no runs at N=%u, W=%g", s->q.o,
                            pascal_path_name(s->q.path), s->q.d, s->q.N, s->q.W);
  sort_unique(s->ms, &s->n_ms);
  return PASCAL_OK;
}

/* Geometric mean, least and largest K over the runs of `runs` at key
 * (family, m), size N and horizon W. Returns the number of runs. */
static size_t scan_stats(const pascal_calibration *cal, const pascal_scan_run *runs, size_t n,
                         const pascal_plot_request *q, uint32_t m, double *gmean, double *lo,
                         double *hi)
{
  size_t c = 0;
  double sum = 0;
  *lo = INFINITY;
  *hi = 0;
  for (size_t i = 0; i < n; i++) {
    const pascal_scan_run *r = &runs[i];
    if (!family_of(q, &r->key) || r->key.m != m || r->N != q->N || r->W != q->W)
      continue;
    double k = scan_k(cal, r);
    sum += log(k);
    *lo = fmin(*lo, k);
    *hi = fmax(*hi, k);
    c++;
  }
  *gmean = c ? exp(sum / (double)c) : NAN;
  if (c < 2)
    *lo = *hi = NAN; /* one run: no bar */
  return c;
}

static void family_text(const pascal_plot_request *q, char *out, size_t n)
{
  snprintf(out, n, "o=%u %s d=%u", q->o, pascal_path_name(q->path), q->d);
}

static pascal_status curves_scan(const pascal_calibration *cal, const pascal_model *model,
                                 const pascal_plot_request *req, pascal_chart *c, pascal_error *err)
{
  scan_selection s;
  pascal_status st = select_scan(cal, req, 0, &s, err);
  if (st)
    goto done;
  char fam[64];
  family_text(&s.q, fam, sizeof fam);
  snprintf(c->title, sizeof c->title, "%s: K against W, family %s, N=%u", cal->device.name, fam,
           s.q.N);
  snprintf(c->desc, sizeof c->desc,
           "Measured fill-equivalent count K of every run (each repeat a point) against the "
           "horizon W, both on log scales, for the %zu keys (values of m) of family %s at "
           "reference size N=%u on device %s; the line of each key is the fitted model's "
           "answer at that key.",
           s.n_ms, fam, s.q.N, cal->device.name);
  snprintf(c->x.label, sizeof c->x.label, "horizon W (scans per worker)");
  snprintf(c->y.label, sizeof c->y.label, "K (fill-equivalent count)");
  c->x.scale = c->y.scale = PASCAL_AXIS_LOG;
  for (size_t j = 0; j < s.n_ms && !st; j++) {
    char name[32];
    size_t si;
    snprintf(name, sizeof name, "m=%u", s.ms[j]);
    st = pascal_chart_add_series(c, name, &si, err);
    for (size_t i = 0; i < cal->n_scan_runs && !st; i++) {
      const pascal_scan_run *r = &cal->scan_runs[i];
      if (family_of(&s.q, &r->key) && r->key.m == s.ms[j] && r->N == s.q.N)
        st = pascal_chart_add_point(c, si, r->W, scan_k(cal, r), NAN, NAN, err);
    }
    pascal_scan_key key = {s.q.o, s.q.path, s.q.d, s.ms[j]};
    for (int t = 0; t < LINE_SAMPLES && !st; t++) {
      double W = s.w_min * pow(s.w_max / s.w_min, t / (double)(LINE_SAMPLES - 1));
      pascal_scan_prediction p;
      if (pascal_model_predict_scan(model, &key, s.q.N, W, &p, NULL) == PASCAL_OK)
        st = pascal_chart_add_vertex(c, si, W, p.K, err);
    }
  }
done:
  free(s.ms);
  return st;
}

/* One series of reference points at (N, W) from `runs`, one point per m of
 * `ms` (those without runs there are skipped). */
static pascal_status scan_reference_series(const pascal_calibration *cal,
                                           const pascal_scan_run *runs, size_t n,
                                           const scan_selection *s, const char *name,
                                           pascal_chart *c, pascal_error *err)
{
  size_t si;
  pascal_status st = pascal_chart_add_series(c, name, &si, err);
  for (size_t j = 0; j < s->n_ms && !st; j++) {
    double g, lo, hi;
    if (scan_stats(cal, runs, n, &s->q, s->ms[j], &g, &lo, &hi))
      st = pascal_chart_add_point(c, si, s->ms[j], g, lo, hi, err);
  }
  return st;
}

static pascal_status transfer_scan(const pascal_calibration *cal, const pascal_model *model,
                                   const pascal_plot_request *req, pascal_chart *c,
                                   pascal_error *err)
{
  scan_selection s;
  pascal_status st = select_scan(cal, req, 1, &s, err);
  if (st)
    goto done;
  char fam[64];
  family_text(&s.q, fam, sizeof fam);
  snprintf(c->title, sizeof c->title, "%s: K against m, family %s, N=%u, W=%g", cal->device.name,
           fam, s.q.N, s.q.W);
  snprintf(c->desc, sizeof c->desc,
           "Fill-equivalent count K (log scale) against the compute work m for family %s at "
           "N=%u, W=%g on device %s: the %zu reference keys (geometric mean of their repeats, "
           "bars from the least to the largest), the value the transfer rules give at every "
           "integer m, one line per execution class, and the held-out keys when the "
           "calibration has a held-out panel.",
           fam, s.q.N, s.q.W, cal->device.name, s.n_ms);
  snprintf(c->x.label, sizeof c->x.label, "compute work per block m");
  snprintf(c->y.label, sizeof c->y.label, "K (fill-equivalent count)");
  c->x.scale = PASCAL_AXIS_LINEAR;
  c->y.scale = PASCAL_AXIS_LOG;
  st = scan_reference_series(cal, cal->scan_runs, cal->n_scan_runs, &s, "reference keys", c, err);
  uint32_t m_max = s.ms[s.n_ms - 1];
  for (unsigned cls = 0; cls < 3 && !st; cls++) {
    size_t si = (size_t)-1;
    for (uint32_t m = 0; m <= m_max && !st; m++) {
      pascal_scan_key key = {s.q.o, s.q.path, s.q.d, m};
      pascal_scan_prediction p;
      if (pascal_calibration_class(cal, m) != cls ||
          pascal_model_predict_scan(model, &key, s.q.N, s.q.W, &p, NULL) != PASCAL_OK)
        continue;
      if (si == (size_t)-1) {
        char name[48];
        snprintf(name, sizeof name, "transfer rule, class %u", cls);
        st = pascal_chart_add_series(c, name, &si, err);
      }
      if (!st)
        st = pascal_chart_add_vertex(c, si, m, p.K, err);
    }
  }
  if (!st && cal->n_heldout_scan_runs) {
    /* The held-out keys of the family at (N, W): their own m values. */
    scan_selection h = s;
    h.ms = malloc(cal->n_heldout_scan_runs * sizeof *h.ms);
    h.n_ms = 0;
    if (!h.ms) {
      st = pascal_error_set(err, PASCAL_ENOMEM, "", "out of memory");
      goto done;
    }
    for (size_t i = 0; i < cal->n_heldout_scan_runs; i++) {
      const pascal_scan_run *r = &cal->heldout_scan_runs[i];
      if (family_of(&s.q, &r->key) && r->N == s.q.N && r->W == s.q.W)
        h.ms[h.n_ms++] = r->key.m;
    }
    sort_unique(h.ms, &h.n_ms);
    if (h.n_ms)
      st = scan_reference_series(cal, cal->heldout_scan_runs, cal->n_heldout_scan_runs, &h,
                                 "held-out keys", c, err);
    free(h.ms);
  }
done:
  free(s.ms);
  return st;
}

/* ---- GEMM ----------------------------------------------------------------- */

/* The row Mg (default: the lowest) and its distinct Ng (malloc'd). */
static pascal_status select_gemm(const pascal_calibration *cal, pascal_plot_request *q,
                                 uint32_t **ngs, size_t *n_ngs, pascal_error *err)
{
  const pascal_gemm_run *runs = cal->gemm_runs;
  size_t n = cal->n_gemm_runs;
  *ngs = NULL;
  *n_ngs = 0;
  if (!q->has_family)
    for (size_t i = 0; i < n; i++)
      if (i == 0 || runs[i].shape.Mg < q->Mg)
        q->Mg = runs[i].shape.Mg;
  uint32_t *v = malloc((n ? n : 1) * sizeof *v);
  if (!v)
    return pascal_error_set(err, PASCAL_ENOMEM, "", "out of memory");
  size_t k = 0;
  for (size_t i = 0; i < n; i++)
    if (runs[i].shape.Mg == q->Mg)
      v[k++] = runs[i].shape.Ng;
  if (!k) {
    free(v);
    return pascal_error_set(err, PASCAL_ENOTFOUND, "family",
                            "the calibration has no GEMM runs with Mg=%u", q->Mg);
  }
  sort_unique(v, &k);
  *ngs = v;
  *n_ngs = k;
  return PASCAL_OK;
}

static pascal_status curves_gemm(const pascal_calibration *cal, const pascal_model *model,
                                 const pascal_plot_request *req, pascal_chart *c, pascal_error *err)
{
  pascal_plot_request q = *req;
  uint32_t *ngs;
  size_t n_ngs;
  pascal_status st = select_gemm(cal, &q, &ngs, &n_ngs, err);
  if (st)
    return st;
  snprintf(c->title, sizeof c->title, "%s: GEMM K against Kg, Mg=%u", cal->device.name, q.Mg);
  snprintf(c->desc, sizeof c->desc,
           "Measured fill-equivalent count K of every GEMM run (each repeat a point) against "
           "the reduction size Kg, both on log scales, for the %zu grids (values of Ng) of row "
           "Mg=%u on device %s; the line of each grid is the fitted model's answer.",
           n_ngs, q.Mg, cal->device.name);
  snprintf(c->x.label, sizeof c->x.label, "reduction size Kg");
  snprintf(c->y.label, sizeof c->y.label, "K (fill-equivalent count)");
  c->x.scale = c->y.scale = PASCAL_AXIS_LOG;
  for (size_t j = 0; j < n_ngs && !st; j++) {
    char name[32];
    size_t si;
    uint32_t kmin = UINT32_MAX, kmax = 0;
    snprintf(name, sizeof name, "Ng=%u", ngs[j]);
    st = pascal_chart_add_series(c, name, &si, err);
    for (size_t i = 0; i < cal->n_gemm_runs && !st; i++) {
      const pascal_gemm_run *r = &cal->gemm_runs[i];
      if (r->shape.Mg != q.Mg || r->shape.Ng != ngs[j])
        continue;
      st = pascal_chart_add_point(c, si, r->shape.Kg, gemm_k(cal, r), NAN, NAN, err);
      kmin = r->shape.Kg < kmin ? r->shape.Kg : kmin;
      kmax = r->shape.Kg > kmax ? r->shape.Kg : kmax;
    }
    /* The model's answer at whole tiles n_k, spaced evenly in log n_k. */
    uint32_t tk = cal->gemm.tile_k, last = 0;
    for (int t = 0; t < LINE_SAMPLES && !st; t++) {
      double nk = (kmin / tk) * pow((double)kmax / kmin, t / (double)(LINE_SAMPLES - 1));
      uint32_t kg = (uint32_t)llround(nk) * tk;
      pascal_gemm_shape shape = {q.Mg, ngs[j], kg};
      pascal_gemm_prediction p;
      if (kg == last || pascal_model_predict_gemm(model, &shape, &p, NULL) != PASCAL_OK)
        continue;
      last = kg;
      st = pascal_chart_add_vertex(c, si, kg, p.K, err);
    }
  }
  free(ngs);
  return st;
}

/* Reference points of row q->Mg at q->Kg from `runs`, one per Ng. */
static pascal_status gemm_reference_series(const pascal_calibration *cal,
                                           const pascal_gemm_run *runs, size_t n,
                                           const pascal_plot_request *q, const char *name,
                                           pascal_chart *c, pascal_error *err)
{
  size_t si;
  int added = 0;
  pascal_status st = PASCAL_OK;
  for (size_t i = 0; i < n && !st; i++) {
    const pascal_gemm_run *r = &runs[i];
    if (r->shape.Mg != q->Mg || r->shape.Kg != q->Kg)
      continue;
    if (!added++)
      st = pascal_chart_add_series(c, name, &si, err);
    if (!st)
      st = pascal_chart_add_point(c, si, r->shape.Ng, gemm_k(cal, r), NAN, NAN, err);
  }
  return st;
}

static pascal_status transfer_gemm(const pascal_calibration *cal, const pascal_model *model,
                                   const pascal_plot_request *req, pascal_chart *c,
                                   pascal_error *err)
{
  pascal_plot_request q = *req;
  uint32_t *ngs;
  size_t n_ngs;
  pascal_status st = select_gemm(cal, &q, &ngs, &n_ngs, err);
  if (st)
    return st;
  uint32_t kmax = 0;
  int has_kg = 0;
  for (size_t i = 0; i < cal->n_gemm_runs; i++) {
    const pascal_gemm_run *r = &cal->gemm_runs[i];
    if (r->shape.Mg != q.Mg)
      continue;
    kmax = r->shape.Kg > kmax ? r->shape.Kg : kmax;
    has_kg |= r->shape.Kg == q.Kg;
  }
  if (!q.Kg)
    q.Kg = kmax;
  else if (!has_kg) {
    free(ngs);
    return pascal_error_set(err, PASCAL_ENOTFOUND, "Kg", "row Mg=%u has no runs at Kg=%u", q.Mg,
                            q.Kg);
  }
  snprintf(c->title, sizeof c->title, "%s: GEMM K against Ng, Mg=%u, Kg=%u", cal->device.name, q.Mg,
           q.Kg);
  snprintf(c->desc, sizeof c->desc,
           "Fill-equivalent count K against the column size Ng (both log scales) for row "
           "Mg=%u at Kg=%u on device %s: the measured reference grids, the value the transfer "
           "along log n_c gives at every whole tile count, and held-out shapes when present.",
           q.Mg, q.Kg, cal->device.name);
  snprintf(c->x.label, sizeof c->x.label, "column size Ng");
  snprintf(c->y.label, sizeof c->y.label, "K (fill-equivalent count)");
  c->x.scale = c->y.scale = PASCAL_AXIS_LOG;
  st = gemm_reference_series(cal, cal->gemm_runs, cal->n_gemm_runs, &q, "reference grids", c, err);
  size_t si;
  if (!st)
    st = pascal_chart_add_series(c, "transfer rule", &si, err);
  uint32_t tn = cal->gemm.tile_n, c0 = ngs[0] / tn, c1 = ngs[n_ngs - 1] / tn, last = 0;
  for (int t = 0; t < LINE_SAMPLES && !st; t++) {
    uint32_t nc = (uint32_t)llround(c0 * pow((double)c1 / c0, t / (double)(LINE_SAMPLES - 1)));
    pascal_gemm_shape shape = {q.Mg, nc * tn, q.Kg};
    pascal_gemm_prediction p;
    if (nc == last || pascal_model_predict_gemm(model, &shape, &p, NULL) != PASCAL_OK)
      continue;
    last = nc;
    st = pascal_chart_add_vertex(c, si, shape.Ng, p.K, err);
  }
  if (!st)
    st = gemm_reference_series(cal, cal->heldout_gemm_runs, cal->n_heldout_gemm_runs, &q,
                               "held-out shapes", c, err);
  free(ngs);
  return st;
}

/* ---- evaluation ------------------------------------------------------------- */

typedef struct ranked {
  double err; /* PASCAL's error of the key; NaN sorts last */
  size_t key;
} ranked;

static int cmp_ranked(const void *a, const void *b)
{
  const ranked *x = a, *y = b;
  if (isnan(x->err) || isnan(y->err))
    return isnan(x->err) - isnan(y->err);
  return (x->err > y->err) - (x->err < y->err);
}

/* Key indices of `r` sorted by PASCAL's error (unscored keys last). */
static size_t *sorted_keys(const pascal_loko_report *r)
{
  size_t n = r->n_keys ? r->n_keys : 1;
  ranked *rk = malloc(n * sizeof *rk);
  size_t *order = malloc(n * sizeof *order);
  if (rk && order) {
    for (size_t i = 0; i < r->n_keys; i++)
      rk[i] = (ranked){r->keys[i].mape[PASCAL_METHOD_PASCAL], i};
    qsort(rk, r->n_keys, sizeof *rk, cmp_ranked);
    for (size_t i = 0; i < r->n_keys; i++)
      order[i] = rk[i].key;
  } else {
    free(order);
    order = NULL;
  }
  free(rk);
  return order;
}

/* Markers of the methods sit side by side around their key's rank (x =
 * rank + DODGE x (method - middle)), so that methods with the same error on
 * a key (aligned K = 1 and exact SDCM often agree) all stay visible. */
#define DODGE 0.11

/* One series of `method` over `r`'s keys in `order` (none if no key has a
 * value), shifted by `shift` along the rank axis. */
static pascal_status method_series(const pascal_loko_report *r, const size_t *order,
                                   pascal_method method, const char *name, double shift,
                                   pascal_chart *c, pascal_error *err)
{
  size_t si = (size_t)-1;
  pascal_status st = PASCAL_OK;
  for (size_t i = 0; i < r->n_keys && !st; i++) {
    double v = r->keys[order[i]].mape[method];
    if (!isfinite(v))
      continue;
    if (si == (size_t)-1)
      st = pascal_chart_add_series(c, name, &si, err);
    if (!st)
      st = pascal_chart_add_point(c, si, (double)(i + 1) + shift, v, NAN, NAN, err);
  }
  return st;
}

/* The per-key errors of every method over one set of keys: the calibration's
 * (leave-one-key-out folds) or its held-out panel's, each on its own chart
 * with its own rank axis (two panels of one picture would put unrelated keys
 * on one axis). */
static pascal_status key_errors(const pascal_calibration *cal, int heldout, pascal_chart *c,
                                pascal_error *err)
{
  pascal_loko_report r;
  pascal_status st = pascal_loko_run(cal, &r, err);
  if (st)
    return st;
  const pascal_loko_report *set = heldout ? r.heldout : &r;
  size_t *order = NULL;
  if (!set) {
    st = pascal_error_set(err, PASCAL_ENOTFOUND, "heldout",
                          "the calibration carries no held-out panel; the heldout plot needs one");
    goto done;
  }
  if (!(order = sorted_keys(set))) {
    st = pascal_error_set(err, PASCAL_ENOMEM, "", "out of memory");
    goto done;
  }
  const char *what = heldout ? "held-out panel" : "calibration (leave-one-key-out)";
  snprintf(c->title, sizeof c->title, "%s: per-key error, %s (%s)", cal->device.name, what,
           pascal_workload_name(cal->workload));
  snprintf(c->desc, sizeof c->desc,
           "Mean absolute percentage error of each key (log scale) of the %s of device %s, "
           "keys sorted by PASCAL's error, for PASCAL and each baseline on the same scored runs "
           "(%zu keys, %zu of %zu runs scored); each method's marker sits at its own offset "
           "around the key's rank so that equal errors stay visible%s.",
           what, cal->device.name, set->n_keys, set->n_scored, set->n_runs,
           isfinite(set->summary.floor_mape) && set->summary.floor_mape > 0
               ? "; the horizontal line is the repeat-to-repeat noise floor"
               : "; no repeat-to-repeat floor (no run has a repeat)");
  snprintf(c->x.label, sizeof c->x.label, "%s key rank (sorted by PASCAL's error)",
           heldout ? "held-out" : "calibration");
  snprintf(c->y.label, sizeof c->y.label, "error of the key (%%, MAPE)");
  c->x.scale = PASCAL_AXIS_LINEAR;
  c->y.scale = PASCAL_AXIS_LOG;
  for (int m = 0; m < PASCAL_METHOD_COUNT && !st; m++) {
    const char *name = heldout && m == PASCAL_METHOD_PASCAL ? "PASCAL (held-out panel)"
                                                            : pascal_method_info_of(m)->label;
    st = method_series(set, order, (pascal_method)m, name,
                       DODGE * (m - (PASCAL_METHOD_COUNT - 1) / 2.0), c, err);
  }
  if (!st && isfinite(set->summary.floor_mape) && set->summary.floor_mape > 0) {
    size_t si;
    st = pascal_chart_add_series(c, "repeat-to-repeat floor", &si, err);
    if (!st)
      st = pascal_chart_add_vertex(c, si, 1, set->summary.floor_mape, err);
    if (!st)
      st = pascal_chart_add_vertex(c, si, (double)set->n_keys, set->summary.floor_mape, err);
  }
done:
  free(order);
  pascal_loko_report_free(&r);
  return st;
}

/* ---- capacity and static (the device's probe data) ------------------------ */

static double mib(uint64_t blocks, uint32_t block_bytes)
{
  return (double)blocks * block_bytes / (1024.0 * 1024.0);
}

static pascal_status capacity(const pascal_calibration *cal, pascal_chart *c, pascal_error *err)
{
  const pascal_device *dev = &cal->device;
  const pascal_capacity_probe *p = &dev->capacity_probe;
  if (!dev->has_capacity_probe)
    return pascal_error_set(err, PASCAL_ENOTFOUND, "device.capacity_probe",
                            "the bundle's device carries no capacity probe "
                            "(device.capacity_probe); the capacity plot needs one");
  double x_lo = mib(p->size_blocks[0], dev->block_bytes);
  double x_hi = mib(p->size_blocks[p->n - 1], dev->block_bytes);
  double c_mib = mib(dev->capacity_blocks, dev->block_bytes), y_hi = p->waves;
  for (size_t i = 0; i < p->n; i++)
    y_hi = fmax(y_hi, p->fill_ratio[i]);
  snprintf(c->title, sizeof c->title, "%s: capacity probe, fill over scanned bytes", dev->name);
  snprintf(c->desc, sizeof c->desc,
           "Fill bytes of a one-CTA-per-SM open scan of %u waves divided by the scanned bytes, "
           "against the scanned size in MiB, for the %zu sizes the probe measured on device %s; "
           "the ratio stays near one while the data fits and rises toward %u past the "
           "effective capacity. The vertical line is the chosen C = %u blocks (%.2f MiB), the "
           "horizontal one the probe's tolerance of 1.1.",
           p->waves, p->n, dev->name, p->waves, dev->capacity_blocks, c_mib);
  snprintf(c->x.label, sizeof c->x.label, "scanned size (MiB)");
  snprintf(c->y.label, sizeof c->y.label, "fill bytes / scanned bytes");
  c->x.scale = c->y.scale = PASCAL_AXIS_LINEAR;
  size_t s;
  pascal_status st = pascal_chart_add_series(c, "fill / scanned bytes", &s, err);
  for (size_t i = 0; i < p->n && !st; i++) {
    double x = mib(p->size_blocks[i], dev->block_bytes);
    st = pascal_chart_add_point(c, s, x, p->fill_ratio[i], NAN, NAN, err);
    if (!st)
      st = pascal_chart_add_vertex(c, s, x, p->fill_ratio[i], err);
  }
  char name[64];
  snprintf(name, sizeof name, "chosen C = %u blocks", dev->capacity_blocks);
  if (!st)
    st = pascal_chart_add_series(c, name, &s, err);
  if (!st)
    st = pascal_chart_add_vertex(c, s, c_mib, 0, err);
  if (!st)
    st = pascal_chart_add_vertex(c, s, c_mib, y_hi, err);
  if (!st)
    st = pascal_chart_add_series(c, "tolerance 1.1", &s, err);
  if (!st)
    st = pascal_chart_add_vertex(c, s, fmin(x_lo, c_mib), 1.1, err);
  if (!st)
    st = pascal_chart_add_vertex(c, s, fmax(x_hi, c_mib), 1.1, err);
  return st;
}

static pascal_status static_table(const pascal_calibration *cal, pascal_chart *c, pascal_error *err)
{
  static const char *const names[] = {"gap law (Theorem 1)", "exact SDCM", "Che"};
  const pascal_device *dev = &cal->device;
  const pascal_static_table *t = &dev->static_table;
  if (!dev->has_static_table)
    return pascal_error_set(err, PASCAL_ENOTFOUND, "device.static_experiment",
                            "the bundle's device carries no static cluster experiment "
                            "(device.static_experiment); the static plot needs one");
  snprintf(c->title, sizeof c->title,
           "%s: static cluster experiment, measured against "
           "predicted K",
           dev->name);
  snprintf(c->desc, sizeof c->desc,
           "Measured fills per round K of the static cluster experiment on device %s (M=%u "
           "workers, N=%u blocks, H=%llu rounds, %zu rows of block size and cluster count) "
           "against what the gap law, exact SDCM and Che predict for each row; points on the "
           "diagonal are predicted exactly.",
           dev->name, t->M, t->N, (unsigned long long)t->H, t->n_rows);
  snprintf(c->x.label, sizeof c->x.label, "predicted K (fills per round)");
  snprintf(c->y.label, sizeof c->y.label, "measured K (fills per round)");
  c->x.scale = c->y.scale = PASCAL_AXIS_LINEAR;
  double hi = 0;
  pascal_status st = PASCAL_OK;
  for (size_t m = 0; m < 3 && !st; m++) {
    size_t s;
    st = pascal_chart_add_series(c, names[m], &s, err);
    for (size_t i = 0; i < t->n_rows && !st; i++) {
      const pascal_static_row *r = &t->rows[i];
      double predicted = m == 0 ? r->gap_law : m == 1 ? r->sdcm : r->che;
      hi = fmax(hi, fmax(predicted, r->K));
      st = pascal_chart_add_point(c, s, predicted, r->K, NAN, NAN, err);
    }
  }
  size_t s;
  if (!st)
    st = pascal_chart_add_series(c, "measured = predicted", &s, err);
  if (!st)
    st = pascal_chart_add_vertex(c, s, 0, 0, err);
  if (!st)
    st = pascal_chart_add_vertex(c, s, hi, hi, err);
  return st;
}

pascal_status pascal_plot_render(const pascal_calibration *cal, const pascal_model *model,
                                 const pascal_plot_request *req, char **svg, size_t *len,
                                 pascal_error *err)
{
  int gemm = cal->workload == PASCAL_WORKLOAD_GEMM;
  if (gemm && (req->N || req->W))
    return pascal_error_set(err, PASCAL_EINVAL, req->N ? "N" : "W",
                            "N and W apply to scan calibrations; a GEMM transfer takes Kg");
  if (!gemm && req->Kg)
    return pascal_error_set(err, PASCAL_EINVAL, "Kg", "Kg applies to GEMM calibrations");
  if (req->kind >= PASCAL_PLOT_EVALUATION && (req->has_family || req->N || req->W || req->Kg))
    return pascal_error_set(
        err, PASCAL_EINVAL,
        req->has_family ? "family"
        : req->N        ? "N"
        : req->W        ? "W"
                        : "Kg",
        "the %s plot shows the whole %s; it takes no family, N, W or Kg", kind_name(req->kind),
        req->kind == PASCAL_PLOT_EVALUATION || req->kind == PASCAL_PLOT_HELDOUT ? "calibration"
                                                                                : "device");
  if (req->kind == PASCAL_PLOT_CURVES && (req->W || req->Kg))
    return pascal_error_set(err, PASCAL_EINVAL, req->W ? "W" : "Kg",
                            "the curves plot spans every horizon; it takes no %s",
                            req->W ? "W" : "Kg");
  pascal_chart c;
  pascal_chart_init(&c);
  pascal_status st;
  switch (req->kind) {
  case PASCAL_PLOT_CURVES:
    st = gemm ? curves_gemm(cal, model, req, &c, err) : curves_scan(cal, model, req, &c, err);
    break;
  case PASCAL_PLOT_TRANSFER:
    st = gemm ? transfer_gemm(cal, model, req, &c, err) : transfer_scan(cal, model, req, &c, err);
    break;
  case PASCAL_PLOT_EVALUATION: st = key_errors(cal, 0, &c, err); break;
  case PASCAL_PLOT_HELDOUT: st = key_errors(cal, 1, &c, err); break;
  case PASCAL_PLOT_CAPACITY: st = capacity(cal, &c, err); break;
  case PASCAL_PLOT_STATIC: st = static_table(cal, &c, err); break;
  default: st = pascal_error_set(err, PASCAL_EINVAL, "kind", "unknown plot kind");
  }
  if (!st)
    st = pascal_chart_svg(&c, svg, len, err);
  pascal_chart_free(&c);
  return st;
}
