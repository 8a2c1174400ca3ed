/*
 * predict_scan.c - scan prediction from a fitted model: paper Algorithm
 * predict, the six ordered transfer rules of docs/design.md §4.3 with the
 * anchored interpolation of Eq. graph (gamma = 4, or the pooled trend alone
 * where the calibration's folds chose it: model_reading.c), linear interpolation in
 * eta = C/N between adjacent reference sizes (App. C, after Proposition
 * graph), and the decode of Eq. dynamic_decode; the closed form for N <= C
 * (rule resident), the capacity probe's share refetched between C and the
 * smallest size (residency.c) and the per-coordinate extrapolation flags. The same
 * transfer reads the time fit's values of the references (pc_scan_transfer,
 * used by time_model.c), so an answer's time and K follow one rule; each
 * transfer first picks the references its rules read, then reads each
 * value asked of them (the time fit's two in one walk).
 *
 * Hot path: no allocation, no mutable state; only the curves of the few
 * references a rule reads are evaluated (the pooled PCHIP needs at most four
 * knots around the query, see curve_internal.h).
 */
#include <math.h>
#include <stdint.h>

#include "curve_internal.h"
#include "model_internal.h"
#include "residency.h"

/* What a transfer reads from each reference: K's encoded value at log W,
 * or one of the time fit's values (time_model.c). A scan_span
 * (model_internal.h) is the part of (m, log W, d) inside the range of every
 * reference read so far (an intersection: outside it at least one reference
 * used extrapolates). */
typedef struct ref_query {
  pc_ref_value value;
  double lw;
  bool law_between; /* the calibration's reading between knots (model.c) */
} ref_query;

static double ref_a(const model_ref *r, const ref_query *q, scan_span *sp)
{
  switch (q->value) {
  case PC_VALUE_LOG_COST: return r->log_cost;
  case PC_VALUE_FIXED: return r->fixed;
  case PC_VALUE_K: break;
  }
  pc_span_narrow(&sp->lw_lo, &sp->lw_hi, r->curve.x[0], r->curve.x[r->curve.n - 1]);
  sp->lw_dist = fmax(sp->lw_dist, pc_knot_distance(r->curve.x, r->curve.n, q->lw));
  sp->lw_one_pass = sp->lw_one_pass || pc_curve_one_pass_segment(&r->curve, q->lw);
  return pc_curve_excess_at(&r->curve, q->lw, q->law_between);
}

static void family_step_reset(pascal_family_step *s, uint32_t d)
{
  *s = (pascal_family_step){.d = d,
                            .a = NAN,
                            .p = NAN,
                            .a_lin = NAN,
                            .omega = NAN,
                            .c0 = NAN,
                            .a_left = NAN,
                            .a_right = NAN};
}

/* First index in refs[0, n) whose m is >= m. */
static size_t lower_bound_m(const model_ref *refs, size_t n, uint32_t m)
{
  size_t lo = 0, hi = n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (refs[mid].m < m)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/* Where one family's step reads (rules 1, 3 and 4), found before any value
 * is read: the time fit's two values follow the references K's would. */
typedef struct family_pick {
  const model_family *f;
  pascal_rule rule;
  size_t pos, left, right; /* exact and clamp: the reference pos; graph: pos
                              above m, left and right the same-class ones */
} family_pick;

/* What one size's step reads (rules 5 and 6 choose the depths). */
typedef struct size_pick {
  const model_size *sz;
  size_t n_depths; /* 1: the query's depth or the one nearest; 2: rule 5 */
  bool exact_depth;
  family_pick depth[2];
} size_pick;

/* Rules 1, 3 and 4 inside one family whose references include class cls:
 * which references are read. */
static void family_pick_refs(const pascal_model *md, const model_family *f, uint32_t m,
                             unsigned cls, scan_span *sp, family_pick *fp)
{
  const model_ref *refs = md->refs + f->first_ref;
  const double *xm = md->ref_m + f->first_ref;
  size_t n = f->n_refs;
  pc_span_narrow(&sp->m_lo, &sp->m_hi, xm[0], xm[n - 1]);
  size_t pos = lower_bound_m(refs, n, m);
  fp->f = f;
  fp->pos = pos;
  if (pos < n && refs[pos].m == m) { /* rule 1 */
    fp->rule = PASCAL_RULE_EXACT;
    return;
  }
  size_t left = pos, right = pos; /* same-class neighbours; n = none */
  bool has_left = false, has_right = false;
  for (size_t k = pos; k > 0; k--)
    if (refs[k - 1].cls == cls) {
      left = k - 1;
      has_left = true;
      break;
    }
  for (size_t k = pos; k < n; k++)
    if (refs[k].cls == cls) {
      right = k;
      has_right = true;
      break;
    }
  if (!(has_left && has_right)) { /* rule 4: the class is present on one side */
    fp->rule = PASCAL_RULE_CLAMP;
    fp->pos = has_left ? left : right;
    return;
  }
  fp->rule = PASCAL_RULE_GRAPH;
  fp->left = left;
  fp->right = right;
}

double pc_graph_weight(double gamma, double hl, double hr, double c0)
{
  double g = gamma * (1 / hl + 1 / hr);
  return g / (c0 + g);
}

/* One family's step from the references picked: the value q reads. */
static void family_read(const pascal_model *md, const family_pick *fp, uint32_t m,
                        const ref_query *q, scan_span *sp, pascal_family_step *s)
{
  const model_family *f = fp->f;
  const model_ref *refs = md->refs + f->first_ref;
  const double *xm = md->ref_m + f->first_ref;
  size_t n = f->n_refs;
  family_step_reset(s, f->d);
  s->rule = fp->rule;
  if (fp->rule != PASCAL_RULE_GRAPH) { /* rules 1 and 4 */
    s->m_left = s->m_right = fp->rule == PASCAL_RULE_EXACT ? m : refs[fp->pos].m;
    s->a = s->a_left = s->a_right = ref_a(&refs[fp->pos], q, sp);
    return;
  }
  /* rule 3: refs[pos - 1].m < m < refs[pos].m, and the pooled PCHIP (rule 2)
   * over all n >= 2 references needs only the window around that interval. */
  size_t i = fp->pos - 1, lo, hi, left = fp->left, right = fp->right;
  double yw[4];
  pc_pchip_window(n, i, &lo, &hi);
  for (size_t k = lo; k <= hi; k++)
    yw[k - lo] = ref_a(&refs[k], q, sp);
  double t = m;
  s->p = pc_pchip_eval_window(xm, n, i, yw, lo, t);
  s->a_left = left >= lo ? yw[left - lo] : ref_a(&refs[left], q, sp);
  s->a_right = right <= hi ? yw[right - lo] : ref_a(&refs[right], q, sp);
  s->m_left = refs[left].m;
  s->m_right = refs[right].m;
  s->m_minus = refs[i].m;
  s->m_plus = refs[i + 1].m;
  double hl = t - xm[left], hr = xm[right] - t;
  s->a_lin = (hr * s->a_left + hl * s->a_right) / (hl + hr);
  s->c0 = 1 / (t - xm[i]) + 1 / (xm[i + 1] - t);
  double gamma = md->graph.rule == PASCAL_READ_POOLED ? 0 : PASCAL_GRAPH_GAMMA;
  s->omega = pc_graph_weight(gamma, hl, hr, s->c0);
  s->a = (1 - s->omega) * s->p + s->omega * s->a_lin;
}

/* Families of one size with the query's (o, path): [*b, *e). */
static void family_range(const pascal_model *md, const model_size *sz, uint32_t o, pascal_path path,
                         size_t *b, size_t *e)
{
  size_t k = sz->first_family, end = sz->first_family + sz->n_families;
  while (k < end &&
         (md->families[k].o < o || (md->families[k].o == o && md->families[k].path < path)))
    k++;
  *b = k;
  while (k < end && md->families[k].o == o && md->families[k].path == path)
    k++;
  *e = k;
}

/* Rules 1-6 at one reference size: which references are read. */
static pascal_status size_pick_refs(const pascal_model *md, const model_size *sz,
                                    const pascal_scan_key *key, unsigned cls, scan_span *sp,
                                    size_pick *p, pascal_error *err)
{
  size_t b, e;
  unsigned bit = 1u << cls;
  family_range(md, sz, key->o, key->path, &b, &e);
  p->sz = sz;
  if (b == e)
    return pascal_error_set(err, PASCAL_EREFUSED, "N",
                            "family (o=%u, path=%s) has no reference at calibrated size N=%u; "
                            "it is not extrapolated from other sizes",
                            key->o, pascal_path_name(key->path), sz->N);
  size_t lower = e, upper = e; /* nearest depths below / above with the class */
  double d_lo = INFINITY, d_hi = -INFINITY;
  for (size_t k = b; k < e; k++)
    if (md->families[k].class_mask & bit) {
      d_lo = fmin(d_lo, md->families[k].d);
      d_hi = fmax(d_hi, md->families[k].d);
    }
  pc_span_narrow(&sp->d_lo, &sp->d_hi, d_lo, d_hi);
  for (size_t k = b; k < e; k++) {
    const model_family *f = &md->families[k];
    if (!(f->class_mask & bit))
      continue;
    if (f->d == key->d) {
      p->n_depths = 1;
      p->exact_depth = true;
      family_pick_refs(md, f, key->m, cls, sp, &p->depth[0]);
      return PASCAL_OK;
    }
    if (f->d < key->d)
      lower = k;
    else if (upper == e)
      upper = k;
  }
  if (lower == e && upper == e) /* rule 6 */
    return pascal_error_set(err, PASCAL_EREFUSED, "m",
                            "execution class %u of m=%u has no reference at any depth of family "
                            "(o=%u, path=%s) at N=%u: the class is unidentifiable (App. C, "
                            "unsampled-class obstruction)",
                            cls, key->m, key->o, pascal_path_name(key->path), sz->N);
  /* rule 5: linear in d between the nearest depths, clamped at the ends. */
  p->exact_depth = false;
  if (lower != e && upper != e) {
    p->n_depths = 2;
    family_pick_refs(md, &md->families[lower], key->m, cls, sp, &p->depth[0]);
    family_pick_refs(md, &md->families[upper], key->m, cls, sp, &p->depth[1]);
  } else {
    p->n_depths = 1;
    family_pick_refs(md, &md->families[lower != e ? lower : upper], key->m, cls, sp, &p->depth[0]);
  }
  return PASCAL_OK;
}

/* One size's step from the references picked: the value q reads. */
static void size_read(const pascal_model *md, const size_pick *p, const pascal_scan_key *key,
                      const ref_query *q, scan_span *sp, pascal_size_step *s)
{
  s->N = p->sz->N;
  s->eta = p->sz->eta;
  s->n_depths = p->n_depths;
  if (p->exact_depth) {
    s->depth_weight[0] = 1;
    family_read(md, &p->depth[0], key->m, q, sp, &s->depth[0]);
    s->rule = s->depth[0].rule;
    s->a = s->depth[0].a;
    return;
  }
  s->rule = PASCAL_RULE_DEPTH_FALLBACK;
  if (p->n_depths == 2) {
    const model_family *fl = p->depth[0].f, *fu = p->depth[1].f;
    s->depth_weight[1] = (double)(key->d - fl->d) / (double)(fu->d - fl->d);
    s->depth_weight[0] = 1 - s->depth_weight[1];
    family_read(md, &p->depth[0], key->m, q, sp, &s->depth[0]);
    family_read(md, &p->depth[1], key->m, q, sp, &s->depth[1]);
    s->a = s->depth_weight[0] * s->depth[0].a + s->depth_weight[1] * s->depth[1].a;
  } else {
    s->depth_weight[0] = 1;
    family_read(md, &p->depth[0], key->m, q, sp, &s->depth[0]);
    s->a = s->depth[0].a;
  }
}

pascal_status pc_scan_query_check(const pascal_model *md, const pascal_scan_key *key, uint32_t N,
                                  double W, pascal_error *err)
{
  if (!pascal_workload_scans(md->workload)) /* an attention model predicts its K/V scan */
    return pascal_error_set(err, PASCAL_EINVAL, "workload",
                            "this calibration is for GEMM, not a scan");
  if (key->o == 0)
    return pascal_error_set(err, PASCAL_EINVAL, "o", "o (resident CTAs per SM) must be at least 1");
  if (key->path != PASCAL_PATH_SYNC && key->path != PASCAL_PATH_TMA)
    return pascal_error_set(err, PASCAL_EINVAL, "path", "path must be sync or tma");
  if (key->path == PASCAL_PATH_SYNC && key->d != 0)
    return pascal_error_set(err, PASCAL_EINVAL, "d", "a sync scan has prefetch depth d = 0");
  if (key->path == PASCAL_PATH_TMA && key->d == 0)
    return pascal_error_set(err, PASCAL_EINVAL, "d",
                            "a tma scan needs its prefetch depth d >= 1 (d = 0 is the sync path)");
  if (N == 0)
    return pascal_error_set(err, PASCAL_EINVAL, "N",
                            "N (scan length in blocks) must be at least 1");
  if (!isfinite(W) || W <= 0)
    return pascal_error_set(err, PASCAL_EINVAL, "W", "W must be a positive finite number");
  if ((uint64_t)md->device.sm_count * key->o > UINT32_MAX)
    return pascal_error_set(err, PASCAL_EINVAL, "o", "o is too large for this device");
  for (size_t k = 0; k < md->n_families; k++)
    if (md->families[k].o == key->o && md->families[k].path == key->path)
      return PASCAL_OK;
  return pascal_error_set(err, PASCAL_EREFUSED, "path",
                          "no calibrated family with o=%u, path=%s: unmeasured occupancy/path "
                          "families are refused, never extrapolated",
                          key->o, pascal_path_name(key->path));
}

/* N <= C: the whole operand stays resident in the (LRU) cache, so the fills
 * are the N cold misses of the first pass: A = N, K = A / H = 1/W (at most M,
 * the count of a lone pass over fewer than M workers). No curve is read. */
static void predict_resident(const pascal_model *md, const pascal_scan_key *key, uint32_t N,
                             double W, pascal_scan_prediction *p)
{
  pascal_scan_explanation *why = &p->why;
  why->rule = PASCAL_RULE_RESIDENT;
  why->a = NAN;
  p->M = md->device.sm_count * key->o;
  p->K = fmin(1 / W, p->M);
  p->rho = p->K / p->M;
  p->fill_bytes = p->K * (double)md->device.block_bytes * W * (double)N;
}

/* Rounds a knot read back through exp(log W) to the integer it was. */
static double knot_value(double x)
{
  double v = exp(x), r = nearbyint(v);
  return fabs(v - r) <= 1e-9 * fmax(1, r) ? r : v;
}

/* The query's horizon that reads the knot at log W = x: the knot's own,
 * or above the largest size (read at the same blocks per slot) the knot
 * times N_max / N. */
static double query_horizon(const pascal_model *md, uint32_t N, const scan_span *sp, double x)
{
  double h = knot_value(x);
  return sp->lw_shift > 0 ? h * md->sizes[md->n_sizes - 1].N / N : h;
}

/* The coordinates of the query outside the span of what was read; `lw` is
 * the log W read (pc_scan_transfer). */
static void scan_extrapolations(const pascal_model *md, const pascal_scan_key *key, uint32_t N,
                                double W, double lw, const scan_span *sp, pascal_extrapolations *ex)
{
  ex->n = 0;
  pc_extrapolation_flag(ex, PASCAL_COORD_N, N, md->sizes[0].N, md->sizes[md->n_sizes - 1].N,
                        N < md->sizes[0].N && md->n_sizes >= 2 ? PASCAL_EXTRAP_LINEAR
                        : sp->lw_shift > 0                     ? PASCAL_EXTRAP_SAME_SLOT
                                                               : PASCAL_EXTRAP_CLAMPED);
  /* Past the last horizon every curve read (each of two knots or more when
   * the span is not one point) carries its last segment's onset law on. */
  if (lw < sp->lw_lo || lw > sp->lw_hi)
    pc_extrapolation_flag(ex, PASCAL_COORD_W, W, query_horizon(md, N, sp, sp->lw_lo),
                          query_horizon(md, N, sp, sp->lw_hi),
                          lw > sp->lw_hi && sp->lw_lo < sp->lw_hi ? PASCAL_EXTRAP_LINEAR
                                                                  : PASCAL_EXTRAP_HELD);
  pc_extrapolation_flag(ex, PASCAL_COORD_M, key->m, sp->m_lo, sp->m_hi, PASCAL_EXTRAP_CLAMPED);
  pc_extrapolation_flag(ex, PASCAL_COORD_D, key->d, sp->d_lo, sp->d_hi, PASCAL_EXTRAP_CLAMPED);
}

/* The transfers of one family step along m: graph interpolates between
 * same-class references, clamp takes the nearest one. */
static void family_transfers(const pascal_family_step *f, uint32_t m, pascal_transfers *t)
{
  double dl = fabs((double)m - f->m_left), dr = fabs((double)f->m_right - m);
  if (f->rule == PASCAL_RULE_GRAPH)
    pc_transfer_add(t, PASCAL_COORD_M, PASCAL_TRANSFER_INTERP, fmin(dl, dr));
  else if (f->rule == PASCAL_RULE_CLAMP)
    pc_transfer_add(t, PASCAL_COORD_M, PASCAL_TRANSFER_EXTRAP, dl);
}

/* How far the answer is from the references it read, per coordinate. */
static void scan_transfers(const pascal_scan_key *key, uint32_t N, double lw,
                           const pascal_scan_explanation *why, const scan_span *sp,
                           pascal_transfers *t)
{
  t->n = 0;
  for (size_t k = 0; k < why->n_sizes; k++) {
    const pascal_size_step *s = &why->size[k];
    double dd = INFINITY;
    for (size_t j = 0; j < s->n_depths; j++) {
      family_transfers(&s->depth[j], key->m, t);
      dd = fmin(dd, fabs((double)key->d - s->depth[j].d));
    }
    if (s->rule == PASCAL_RULE_DEPTH_FALLBACK)
      pc_transfer_add(t, PASCAL_COORD_D,
                      s->n_depths == 2 ? PASCAL_TRANSFER_INTERP : PASCAL_TRANSFER_EXTRAP, dd);
  }
  pc_transfer_add(t, PASCAL_COORD_W,
                  lw < sp->lw_lo || lw > sp->lw_hi ? PASCAL_TRANSFER_EXTRAP
                  : sp->lw_one_pass                ? PASCAL_TRANSFER_ONE_PASS
                                                   : PASCAL_TRANSFER_INTERP,
                  sp->lw_dist);
  double dn = INFINITY, ln = log((double)N);
  for (size_t k = 0; k < why->n_sizes; k++)
    dn = fmin(dn, fabs(ln - log((double)why->size[k].N)));
  bool between = why->n_sizes == 2 && N > why->size[0].N && N < why->size[1].N;
  pc_transfer_add(t, PASCAL_COORD_N, between ? PASCAL_TRANSFER_INTERP : PASCAL_TRANSFER_EXTRAP, dn);
}

pascal_status pc_scan_transfer(const pascal_model *md, const pascal_scan_key *key, uint32_t N,
                               double lw, const pc_ref_value *values, size_t n_values,
                               pascal_scan_explanation *why, scan_span *sp_out, pascal_error *err)
{
  pascal_status st;
  /* The sizes adjacent to N (sorted by N, so by decreasing eta); above the
   * largest size the largest alone (the excess saturates as the cache
   * becomes a small part of the operand); below the smallest the two
   * smallest, whose excess is carried on linearly in eta toward N = C (the
   * reach of the cache grows smoothly there), for K only: the time fit's
   * values take the smallest size's (docs/design.md 4.1). Above the
   * largest size K is read off its curve at the same blocks per slot W N,
   * the horizon W N / N_max (the onset law's variable); one pass or less
   * (W <= 1) is read as it is. The values asked together are all K's or
   * all the time fit's, which pick the same references. */
  pc_ref_value value = values[0];
  size_t j = 0;
  while (j < md->n_sizes && md->sizes[j].N < N)
    j++;
  size_t first, count = 1;
  if (j == md->n_sizes)
    first = md->n_sizes - 1;
  else if (md->sizes[j].N == N || (j == 0 && (value != PC_VALUE_K || md->n_sizes < 2)))
    first = j;
  else {
    first = j ? j - 1 : 0;
    count = 2;
  }
  double shift =
      j == md->n_sizes && value == PC_VALUE_K && lw > 0 ? log((double)N / md->sizes[first].N) : 0;
  scan_span sp = {-INFINITY, INFINITY, -INFINITY, INFINITY, -INFINITY, INFINITY, 0, shift, false};
  unsigned class_id = pascal_class_rule_apply(md->class_rule, key->m);
  size_pick pick[2];
  for (size_t k = 0; k < count; k++)
    if ((st = size_pick_refs(md, &md->sizes[first + k], key, class_id, &sp, &pick[k], err)))
      return st;
  for (size_t v = 0; v < n_values; v++) {
    pascal_scan_explanation *w = &why[v];
    ref_query q = {values[v], lw + shift, md->between.rule == PASCAL_READ_LAW};
    w->o = key->o;
    w->path = key->path;
    w->d = key->d;
    w->class_id = class_id;
    w->eta = (double)md->device.capacity_blocks / N;
    w->n_sizes = count;
    w->rule = PASCAL_RULE_EXACT;
    for (size_t k = 0; k < count; k++) {
      pascal_size_step *s = &w->size[k];
      size_read(md, &pick[k], key, &q, &sp, s);
      if (s->rule > w->rule)
        w->rule = s->rule;
    }
    if (count == 2) {
      const pascal_size_step *s0 = &w->size[0], *s1 = &w->size[1];
      w->size[1].weight = (w->eta - s0->eta) / (s1->eta - s0->eta);
      w->size[0].weight = 1 - w->size[1].weight;
      w->a = w->size[0].weight * s0->a + w->size[1].weight * s1->a;
    } else {
      w->size[0].weight = 1;
      w->a = w->size[0].a;
    }
  }
  if (sp_out)
    *sp_out = sp;
  return PASCAL_OK;
}

pascal_status pascal_model_predict_scan(const pascal_model *md, const pascal_scan_key *key,
                                        uint32_t N, double W, pascal_scan_prediction *out,
                                        pascal_error *err)
{
  pascal_status st;
  if ((st = pc_scan_query_check(md, key, N, W, err)))
    return st;
  pascal_scan_prediction p = {0};
  pascal_scan_explanation *why = &p.why;
  p.expected = (pascal_expected_error){.pct = NAN};
  if (N <= md->device.capacity_blocks) {
    why->o = key->o;
    why->path = key->path;
    why->d = key->d;
    why->class_id = pascal_class_rule_apply(md->class_rule, key->m);
    why->eta = (double)md->device.capacity_blocks / N;
    predict_resident(md, key, N, W, &p);
    *out = p;
    return PASCAL_OK;
  }
  scan_span sp;
  double lw = log(W); /* once per answer: the transfer, the flags and the distances read it */
  static const pc_ref_value k_value = PC_VALUE_K;
  if ((st = pc_scan_transfer(md, key, N, lw, &k_value, 1, why, &sp, err)))
    return st;
  p.M = md->device.sm_count * key->o;
  p.K = pascal_excess_decode(why->a, 1, p.M);
  if (N < md->sizes[0].N && md->device.has_capacity_probe) /* else not read: why is zeroed */
    pc_scan_residency(&md->device, md->sizes[0].N, N, W, p.K, &why->residency);
  if (why->residency.read)
    p.K = pc_residency_K(why->residency.refetch, p.K, W);
  p.rho = p.K / p.M;
  p.fill_bytes = p.K * (double)md->device.block_bytes * W * (double)N;
  if (!isfinite(p.fill_bytes)) /* W finite but near DBL_MAX */
    return pascal_error_set(err, PASCAL_ERANGE, "W",
                            "W = %g gives fill bytes beyond the range of a double", W);
  lw += sp.lw_shift; /* the horizon read */
  scan_extrapolations(md, key, N, W, lw, &sp, &p.extrapolated);
  scan_transfers(key, N, lw, why, &sp, &p.transfers);
  pc_transfers_mark_actions(&p.transfers, &p.extrapolated);
  p.transfers.aligned = pc_excess_none(why->a);
  pc_scan_advise(&md->device, key, N, W, &p, &p.advice);
  *out = p;
  return PASCAL_OK;
}
