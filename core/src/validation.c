/*
 * validation.c - expected error per answer (pascal/validation.h): the
 * calibration's own per-key validation (paper section 4.4, leave-one-key-out;
 * in-sample errors for exact answers) and the nearest-key lookup that turns
 * it into an answer's expected_error_pct. The keys are grouped by (source,
 * o, path) in an index kept as they are added, so that a lookup reads one
 * group rather than every key.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "evaluate_internal.h"
#include "pascal/evaluate.h"
#include "pascal/grow.h"
#include "pascal/validation.h"

/* Sign of k's group (source, then o and path unless `any_family`) against
 * (source, fam->o, fam->path). */
static int group_cmp(const pascal_validated_key *k, pascal_error_source source,
                     const pascal_scan_key *fam, bool any_family)
{
  if (k->source != source)
    return k->source < source ? -1 : 1;
  if (any_family)
    return 0;
  if (k->key.o != fam->o)
    return k->key.o < fam->o ? -1 : 1;
  if (k->key.path != fam->path)
    return k->key.path < fam->path ? -1 : 1;
  return 0;
}

/* First position in v->order whose key's group is above (`after`) or at
 * least (!`after`) the given one. */
static size_t group_bound(const pascal_validation *v, pascal_error_source source,
                          const pascal_scan_key *fam, bool any_family, bool after)
{
  size_t lo = 0, hi = v->n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    int c = group_cmp(&v->keys[v->order[mid]], source, fam, any_family);
    if (c < 0 || (after && c == 0))
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/* The keys of one group, in the order they were added. */
typedef struct group {
  const pascal_validation *v;
  size_t i, end;
} group;

static group group_of(const pascal_validation *v, pascal_error_source source,
                      const pascal_scan_key *fam)
{
  bool any = fam == NULL;
  return (group){v, group_bound(v, source, fam, any, false),
                 group_bound(v, source, fam, any, true)};
}

static const pascal_validated_key *group_next(group *g)
{
  return g->i < g->end ? &g->v->keys[g->v->order[g->i++]] : NULL;
}

pascal_status pascal_validation_add(pascal_validation *v, const pascal_validated_key *k,
                                    pascal_error *err)
{
  if (!isfinite(k->error_pct) || k->error_pct < 0)
    return pascal_error_set(err, PASCAL_EINVAL, "error_pct",
                            "a validated error must be a finite percentage >= 0");
  if (k->source != PASCAL_ERRSRC_LOKO && k->source != PASCAL_ERRSRC_IN_SAMPLE &&
      k->source != PASCAL_ERRSRC_HELD_OUT)
    return pascal_error_set(err, PASCAL_EINVAL, "source", "unknown validation source");
  if (v->n >= UINT32_MAX || pascal_grow((void **)&v->keys, &v->cap, v->n + 1, sizeof *v->keys) ||
      pascal_grow((void **)&v->order, &v->order_cap, v->n + 1, sizeof *v->order))
    return pascal_error_set(err, PASCAL_ENOMEM, "validation", "out of memory");
  /* after the last key of its group: a group keeps the order of addition */
  size_t at = group_bound(v, k->source, &k->key, false, true);
  memmove(v->order + at + 1, v->order + at, (v->n - at) * sizeof *v->order);
  v->order[at] = (uint32_t)v->n;
  v->keys[v->n++] = *k;
  return PASCAL_OK;
}

void pascal_validation_free(pascal_validation *v)
{
  free(v->keys);
  free(v->order);
  free(v->losses);
  pascal_interval_free(&v->interval);
  memset(v, 0, sizeof *v);
}

static bool same_family(const pascal_scan_key *a, const pascal_scan_key *b)
{
  return a->o == b->o && a->path == b->path && a->d == b->d;
}

pascal_status pascal_family_losses(const pascal_loko_report *loko, pascal_family_loss **out,
                                   size_t *n, pascal_error *err)
{
  bool scan = pascal_workload_scans(loko->workload);
  *out = NULL;
  *n = 0;
  size_t cap = 0;
  for (size_t i = 0; i < loko->n_keys; i++) { /* i: the family's first key */
    const pascal_key_report *first = &loko->keys[i];
    bool seen = false;
    for (size_t j = 0; j < i && !seen; j++)
      seen = !scan || same_family(&loko->keys[j].key, &first->key);
    if (seen)
      continue;
    pascal_family_loss f = {.family = {0}};
    if (scan)
      f.family = (pascal_scan_key){.o = first->key.o, .path = first->key.path, .d = first->key.d};
    for (size_t j = i; j < loko->n_keys; j++) {
      const pascal_key_report *k = &loko->keys[j];
      double p = k->mape[PASCAL_METHOD_PASCAL], a = k->mape[PASCAL_METHOD_ALIGNED];
      if ((scan && !same_family(&k->key, &first->key)) || !k->n_scored || !isfinite(p) ||
          !isfinite(a))
        continue;
      f.pascal_pct += p;
      f.aligned_pct += a;
      f.n_keys++;
    }
    if (!f.n_keys)
      continue;
    f.pascal_pct /= (double)f.n_keys;
    f.aligned_pct /= (double)f.n_keys;
    if (!(f.pascal_pct > f.aligned_pct))
      continue;
    if (pascal_grow((void **)out, &cap, *n + 1, sizeof **out)) {
      free(*out);
      *out = NULL;
      *n = 0;
      return pascal_error_set(err, PASCAL_ENOMEM, "validation", "out of memory");
    }
    (*out)[(*n)++] = f;
  }
  return PASCAL_OK;
}

void pascal_family_loss_describe(const pascal_family_loss *f, pascal_workload workload, char *buf,
                                 size_t len)
{
  char family[64];
  if (pascal_workload_scans(workload))
    snprintf(family, sizeof family, "family o=%u %s d=%u", f->family.o,
             pascal_path_name(f->family.path), f->family.d);
  else
    snprintf(family, sizeof family, "the GEMM grids");
  snprintf(buf, len,
           "%s: PASCAL's leave-one-key-out error %.2f %% exceeds aligned %s's %.2f %% over its "
           "%zu keys",
           family, f->pascal_pct, pascal_workload_scans(workload) ? "K = 1" : "K_0", f->aligned_pct,
           f->n_keys);
}

const pascal_family_loss *pascal_family_loss_find(const pascal_family_loss *losses, size_t n,
                                                  const pascal_scan_key *key)
{
  for (size_t i = 0; i < n; i++)
    if (!key || same_family(&losses[i].family, key))
      return &losses[i];
  return NULL;
}

static bool same_scan_key(const pascal_scan_key *a, const pascal_scan_key *b)
{
  return a->o == b->o && a->path == b->path && a->d == b->d && a->m == b->m;
}

/* Mean |pred/obs - 1| (percent) of `model` on each key's own runs. */
static pascal_status add_in_sample(const pascal_calibration *cal, const pascal_model *model,
                                   pascal_validation *v, pascal_error *err)
{
  size_t n_runs = pascal_calibration_run_count(cal);
  pascal_status st = PASCAL_OK;
  bool *done = calloc(n_runs ? n_runs : 1, sizeof *done);
  if (!done)
    return pascal_error_set(err, PASCAL_ENOMEM, "validation", "out of memory");
  bool scan = pascal_workload_scans(cal->workload);
  for (size_t i = 0; i < n_runs && st == PASCAL_OK; i++) {
    if (done[i])
      continue;
    pascal_validated_key k = {.source = PASCAL_ERRSRC_IN_SAMPLE, .rule = PASCAL_RULE_EXACT};
    double sum = 0;
    size_t n = 0;
    for (size_t j = i; j < n_runs; j++) { /* the runs of run i's key */
      double pred, obs;
      pascal_rule rule;
      if (scan) {
        const pascal_scan_run *r = &cal->scan_runs[j], *a = &cal->scan_runs[i];
        if (!same_scan_key(&r->key, &a->key))
          continue;
        pascal_scan_prediction p;
        done[j] = true;
        if (pascal_model_predict_scan(model, &r->key, r->N, r->W, &p, NULL) != PASCAL_OK)
          continue;
        pred = p.K;
        rule = p.why.rule;
        obs = pascal_calibration_scan_k(cal, r);
        k.key = r->key;
      } else {
        const pascal_gemm_run *r = &cal->gemm_runs[j], *a = &cal->gemm_runs[i];
        if (r->shape.Mg != a->shape.Mg || r->shape.Ng != a->shape.Ng)
          continue;
        pascal_gemm_prediction p;
        done[j] = true;
        if (pascal_model_predict_gemm(model, &r->shape, &p, NULL) != PASCAL_OK)
          continue;
        pred = p.K;
        rule = p.why.rule;
        obs = p.M * r->fill_bytes / p.Q;
        k.Mg = r->shape.Mg;
        k.Ng = r->shape.Ng;
      }
      if (!(obs > 0) || rule != PASCAL_RULE_EXACT) /* N <= C runs answer by closed form */
        continue;
      sum += fabs(pred / obs - 1);
      n++;
    }
    if (n) {
      k.error_pct = 100 * sum / (double)n;
      st = pascal_validation_add(v, &k, err);
    }
  }
  free(done);
  return st;
}

/* Every scored key of `rep` as a validated key of `source`. */
static pascal_status add_report(const pascal_loko_report *rep, pascal_error_source source,
                                pascal_validation *out, pascal_error *err)
{
  pascal_status st = PASCAL_OK;
  for (size_t i = 0; i < rep->n_keys && st == PASCAL_OK; i++) {
    const pascal_key_report *kr = &rep->keys[i];
    if (!kr->n_scored)
      continue;
    pascal_validated_key k = {.key = kr->key,
                              .Mg = kr->Mg,
                              .Ng = kr->Ng,
                              .source = source,
                              .rule = kr->rule,
                              .error_pct = kr->mape[PASCAL_METHOD_PASCAL]};
    st = pascal_validation_add(out, &k, err);
  }
  return st;
}

pascal_status pascal_validation_build(const pascal_calibration *cal, const pascal_model *model,
                                      const pascal_loko_report *loko, pascal_validation *out,
                                      pascal_error *err)
{
  memset(out, 0, sizeof *out);
  out->workload = cal->workload;
  pascal_status st = add_in_sample(cal, model, out, err);
  if (st || (st = pascal_interval_build(cal, &out->interval, err)))
    return st;
  pascal_loko_report own;
  if (!loko) {
    pascal_error lerr;
    pascal_error_clear(&lerr);
    if (pc_loko_run_validation(cal, &own, &lerr) != PASCAL_OK)
      return lerr.status == PASCAL_ENOMEM
                 ? pascal_error_set(err, PASCAL_ENOMEM, "validation", "out of memory")
                 : PASCAL_OK; /* fewer than two keys: no folds */
  }
  const pascal_loko_report *rep = loko ? loko : &own;
  st = add_report(rep, PASCAL_ERRSRC_LOKO, out, err);
  if (st == PASCAL_OK && rep->heldout)
    st = add_report(rep->heldout, PASCAL_ERRSRC_HELD_OUT, out, err);
  if (st == PASCAL_OK)
    st = pascal_family_losses(rep, &out->losses, &out->n_losses, err);
  if (!loko)
    pascal_loko_report_free(&own);
  return st;
}

/* ---- the lookup ------------------------------------------------------------ */

/* Candidate filter of one search level. */
typedef struct scan_filter {
  pascal_error_source source;
  const pascal_scan_key *key;
  bool any_depth, any_rule;
  pascal_rule rule;
} scan_filter;

/* Within the group (f->source, o, path) of f->key. */
static bool scan_match(const pascal_validated_key *k, const scan_filter *f, uint32_t d)
{
  return (f->any_depth ? k->key.d == d : k->key.d == f->key->d) &&
         (f->any_rule || k->rule == f->rule);
}

static void use_key(pascal_expected_error *x, const pascal_validated_key *k)
{
  x->key[x->n_keys] = k->key;
  x->Mg[x->n_keys] = k->Mg;
  x->Ng[x->n_keys] = k->Ng;
  x->key_pct[x->n_keys] = k->error_pct;
  x->n_keys++;
}

/* The nearest matching key at or below m and at or above m (one key if they
 * coincide), at depth d. */
static size_t scan_nearest(const pascal_validation *v, const scan_filter *f, uint32_t d,
                           pascal_expected_error *x)
{
  const pascal_validated_key *lo = NULL, *hi = NULL;
  uint32_t m = f->key->m;
  group g = group_of(v, f->source, f->key);
  for (const pascal_validated_key *k; (k = group_next(&g));) {
    if (!scan_match(k, f, d))
      continue;
    if (k->key.m <= m && (!lo || k->key.m > lo->key.m))
      lo = k;
    if (k->key.m >= m && (!hi || k->key.m < hi->key.m))
      hi = k;
  }
  x->n_keys = 0;
  if (lo)
    use_key(x, lo);
  if (hi && hi != lo)
    use_key(x, hi);
  return x->n_keys;
}

/* The depth of (o, path) nearest to key->d that has a matching key (the
 * lower one on a tie); false if none. */
static bool nearest_depth(const pascal_validation *v, const scan_filter *f, uint32_t *d)
{
  bool found = false;
  uint32_t best = 0, dist = 0;
  group g = group_of(v, f->source, f->key);
  for (const pascal_validated_key *k; (k = group_next(&g));) {
    if (!scan_match(k, f, k->key.d))
      continue;
    uint32_t dd = k->key.d > f->key->d ? k->key.d - f->key->d : f->key->d - k->key.d;
    if (!found || dd < dist || (dd == dist && k->key.d < best)) {
      best = k->key.d;
      dist = dd;
      found = true;
    }
  }
  *d = best;
  return found;
}

static void finish(pascal_expected_error *x, pascal_error_source source, pascal_rule rule,
                   unsigned widened)
{
  double sum = 0;
  for (size_t i = 0; i < x->n_keys; i++)
    sum += x->key_pct[i];
  x->pct = sum / (double)x->n_keys;
  x->source = source;
  x->rule = rule;
  x->widened = widened;
}

/* The exact answer's own in-sample error, if validated. */
static const pascal_validated_key *in_sample(const pascal_validation *v, const pascal_scan_key *key,
                                             uint32_t Mg, uint32_t Ng)
{
  group g = group_of(v, PASCAL_ERRSRC_IN_SAMPLE, key);
  for (const pascal_validated_key *k; (k = group_next(&g));) {
    if (key ? same_scan_key(&k->key, key) : k->Mg == Mg && k->Ng == Ng)
      return k;
  }
  return NULL;
}

static void lookup_scan(const pascal_validation *v, const pascal_scan_key *key,
                        pascal_scan_prediction *p)
{
  static const pascal_error_source sources[] = {PASCAL_ERRSRC_HELD_OUT, PASCAL_ERRSRC_LOKO};
  pascal_expected_error *x = &p->expected;
  pascal_rule rule = p->why.rule;
  *x = (pascal_expected_error){.pct = NAN, .rule = rule};
  if (!v || rule == PASCAL_RULE_RESIDENT)
    return;
  if (rule == PASCAL_RULE_EXACT) {
    const pascal_validated_key *k = in_sample(v, key, 0, 0);
    if (k) {
      use_key(x, k);
      finish(x, PASCAL_ERRSRC_IN_SAMPLE, rule, 0);
    }
    return;
  }
  /* widened 0: same family and rule; 1: nearest depth, same rule; 2: nearest
   * depth, any rule. Each level tries the held-out panel, then the folds. */
  for (unsigned level = 0; level < 3; level++)
    for (size_t s = 0; s < 2; s++) {
      scan_filter f = {sources[s], key, level > 0, level == 2, rule};
      uint32_t d = key->d;
      if (level > 0 && !nearest_depth(v, &f, &d))
        continue;
      if (scan_nearest(v, &f, d, x)) {
        finish(x, sources[s], rule, level);
        return;
      }
    }
}

static void lookup_gemm(const pascal_validation *v, const pascal_gemm_shape *shape,
                        pascal_gemm_prediction *p)
{
  static const pascal_error_source sources[] = {PASCAL_ERRSRC_HELD_OUT, PASCAL_ERRSRC_LOKO};
  pascal_expected_error *x = &p->expected;
  pascal_rule rule = p->why.rule;
  *x = (pascal_expected_error){.pct = NAN, .rule = rule};
  if (!v)
    return;
  if (rule == PASCAL_RULE_EXACT) {
    const pascal_validated_key *k = in_sample(v, NULL, shape->Mg, shape->Ng);
    if (k) {
      use_key(x, k);
      finish(x, PASCAL_ERRSRC_IN_SAMPLE, rule, 0);
    }
    return;
  }
  double lm = log((double)shape->Mg), ln = log((double)shape->Ng);
  for (unsigned level = 0; level < 3; level += 2) /* 0: same rule; 2: any rule */
    for (size_t s = 0; s < 2; s++) {
      const pascal_validated_key *best[PASCAL_EXPECTED_KEYS_MAX] = {NULL, NULL};
      double dist[PASCAL_EXPECTED_KEYS_MAX] = {INFINITY, INFINITY};
      group g = group_of(v, sources[s], NULL);
      for (const pascal_validated_key *k; (k = group_next(&g));) {
        if (level == 0 && k->rule != rule)
          continue;
        double a = log((double)k->Mg) - lm, b = log((double)k->Ng) - ln, e = a * a + b * b;
        if (e < dist[0]) {
          best[1] = best[0];
          dist[1] = dist[0];
          best[0] = k;
          dist[0] = e;
        } else if (e < dist[1]) {
          best[1] = k;
          dist[1] = e;
        }
      }
      x->n_keys = 0;
      for (size_t i = 0; i < PASCAL_EXPECTED_KEYS_MAX && best[i]; i++)
        use_key(x, best[i]);
      if (x->n_keys) {
        finish(x, sources[s], rule, level);
        return;
      }
    }
}

/* x raised to pct from `source` where pct is larger (a NaN x always). */
static void at_least(pascal_expected_error *x, double pct, pascal_error_source source)
{
  if (x->pct >= pct)
    return;
  x->pct = pct;
  x->source = source;
  x->widened = 0;
  x->n_keys = 0;
}

/* An answer off its references expects at least the mean error of its
 * interval's groups (never less than the interval's floor). */
static void at_least_interval(const pascal_validation *v, const pascal_transfers *t,
                              pascal_expected_error *x)
{
  pascal_interval_bounds b;
  if (!v || !t->n)
    return;
  pascal_interval_bounds_of(&v->interval, t, &b);
  if (b.known[PASCAL_INTERVAL_K])
    at_least(x, 100 * expm1(fmax(b.mean_abs, PASCAL_INTERVAL_FLOOR)), PASCAL_ERRSRC_INTERVAL);
}

/* An answer that read the capacity probe expects at least the mean error
 * of the bracket's two ends, K_low and K_high, against its K. */
static void at_least_residency(const pascal_scan_residency *res, double K, pascal_expected_error *x)
{
  if (res->read)
    at_least(x, 100 * expm1((log(K / res->K_low) + log(res->K_high / K)) / 2),
             PASCAL_ERRSRC_RESIDENCY);
}

void pascal_validation_expect_scan(const pascal_validation *v, const pascal_scan_key *key,
                                   pascal_scan_prediction *p)
{
  lookup_scan(v, key, p);
  at_least_interval(v, &p->transfers, &p->expected);
  at_least_residency(&p->why.residency, p->K, &p->expected);
}

void pascal_validation_expect_gemm(const pascal_validation *v, const pascal_gemm_shape *shape,
                                   pascal_gemm_prediction *p)
{
  lookup_gemm(v, shape, p);
  at_least_interval(v, &p->transfers, &p->expected);
}
