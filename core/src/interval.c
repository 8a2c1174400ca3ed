/*
 * interval.c - prediction intervals from out-of-sample residuals
 * (pascal/interval.h; docs/expected-error.md): residuals grouped by the one
 * transfer their prediction made, as rates per unit distance (signed
 * quantiles for extrapolated transfers, also per extrapolation action,
 * symmetric ones of |rate| for interpolated), and the residuals of scan
 * predictions that read no excess apart, as log-ratios (the aligned
 * group); an answer's interval takes, per side, the widest of its
 * transfers' group bounds scaled by its own distances (an aligned answer
 * the aligned group's), with the run-to-run spread as the floor; a scan
 * that read the capacity probe carries them through its bracket
 * (residency.c).
 */
#include "pascal/interval.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pascal/grow.h"
#include "quantile.h"
#include "residency.h"

pascal_status pascal_interval_add(pascal_interval_calibration *c, const pascal_residual *r,
                                  pascal_error *err)
{
  if (!isfinite(r->log_ratio[PASCAL_INTERVAL_K]))
    return pascal_error_set(err, PASCAL_EINVAL, "log_ratio", "a residual of K must be finite");
  if (pascal_grow((void **)&c->items, &c->cap, c->n + 1, sizeof *c->items))
    return pascal_error_set(err, PASCAL_ENOMEM, "interval", "out of memory");
  c->items[c->n++] = *r;
  return PASCAL_OK;
}

pascal_status pascal_interval_add_noise(pascal_interval_calibration *c,
                                        const double log_ratio[PASCAL_INTERVAL_QUANTITIES],
                                        pascal_error *err)
{
  if (!isfinite(log_ratio[PASCAL_INTERVAL_K]))
    return pascal_error_set(err, PASCAL_EINVAL, "log_ratio", "a residual of K must be finite");
  if (pascal_grow((void **)&c->noise, &c->cap_noise, c->n_noise + 2, sizeof *c->noise))
    return pascal_error_set(err, PASCAL_ENOMEM, "interval", "out of memory");
  for (int q = 0; q < PASCAL_INTERVAL_QUANTITIES; q++) {
    c->noise[c->n_noise][q] = log_ratio[q] / sqrt(2.0);
    c->noise[c->n_noise + 1][q] = -log_ratio[q] / sqrt(2.0);
  }
  c->n_noise += 2;
  return PASCAL_OK;
}

void pascal_interval_free(pascal_interval_calibration *c)
{
  free(c->items);
  free(c->noise);
  memset(c, 0, sizeof *c);
}

/* Quantiles and mean |v| of the finite values of v[0..n) (sorted in place:
 * the non-finite ones are dropped first) as quantity q of g: the
 * (1 -+ level)/2 quantiles of v, or when `symmetric` -+ the level quantile
 * of |v|. */
static void summarise(double *v, size_t n, int q, bool symmetric, pascal_interval_group *g)
{
  size_t k = 0;
  double sum = 0;
  for (size_t i = 0; i < n; i++)
    if (isfinite(v[i])) {
      sum += fabs(v[i]);
      v[k++] = symmetric ? fabs(v[i]) : v[i];
    }
  g->n[q] = k;
  if (k == 0) {
    g->lo[q] = g->hi[q] = g->mean_abs[q] = NAN;
    return;
  }
  pc_sort_doubles(v, k);
  if (symmetric) {
    g->hi[q] = pc_quantile_sorted(v, k, PASCAL_INTERVAL_LEVEL);
    g->lo[q] = -g->hi[q];
  } else {
    g->lo[q] = pc_quantile_sorted(v, k, (1 - PASCAL_INTERVAL_LEVEL) / 2);
    g->hi[q] = pc_quantile_sorted(v, k, (1 + PASCAL_INTERVAL_LEVEL) / 2);
  }
  g->mean_abs[q] = sum / (double)k;
}

/* Whether item i of t is entailed by another: the W read of a scan whose N
 * above the largest size is read at the same blocks per slot (the horizon
 * W N / N_max moved by the N transfer's distance). */
static bool entailed(const pascal_transfers *t, size_t i)
{
  if (t->item[i].coordinate != PASCAL_COORD_W)
    return false;
  for (size_t j = 0; j < t->n; j++)
    if (t->item[j].coordinate == PASCAL_COORD_N && t->item[j].kind == PASCAL_TRANSFER_EXTRAP &&
        t->item[j].action == PASCAL_EXTRAP_SAME_SLOT)
      return true;
  return false;
}

const pascal_transfer *pascal_residual_evidence(const pascal_residual *r)
{
  const pascal_transfer *sole = NULL;
  if (r->transfers.aligned)
    return NULL;
  for (size_t i = 0; i < r->transfers.n; i++)
    if (!entailed(&r->transfers, i)) {
      if (sole)
        return NULL;
      sole = &r->transfers.item[i];
    }
  return sole;
}

/* The rates of quantity q of the residuals whose sole transfer is along
 * coord of kind (and, for action >= 0, that action) into v; their count. */
static size_t rates_of(const pascal_interval_calibration *c, int q, int coord, int kind, int action,
                       double *v)
{
  size_t k = 0;
  for (size_t i = 0; i < c->n; i++) {
    const pascal_transfer *t = pascal_residual_evidence(&c->items[i]);
    if (t && (int)t->coordinate == coord && (int)t->kind == kind &&
        (action < 0 || (int)t->action == action))
      v[k++] = c->items[i].log_ratio[q] / t->distance;
  }
  return k;
}

pascal_status pascal_interval_finish(pascal_interval_calibration *c, pascal_error *err)
{
  size_t n_scratch = c->n > c->n_noise ? c->n : c->n_noise;
  double *v = malloc((n_scratch ? n_scratch : 1) * sizeof *v);
  if (!v)
    return pascal_error_set(err, PASCAL_ENOMEM, "interval", "out of memory");
  for (int q = 0; q < PASCAL_INTERVAL_QUANTITIES; q++) {
    for (int coord = 0; coord < PASCAL_COORDINATES; coord++) {
      for (int kind = 0; kind < PASCAL_TRANSFER_KINDS; kind++)
        summarise(v, rates_of(c, q, coord, kind, -1, v), q, kind != PASCAL_TRANSFER_EXTRAP,
                  &c->group[coord][kind]);
      for (int a = 0; a < PASCAL_EXTRAP_ACTIONS; a++)
        summarise(v, rates_of(c, q, coord, PASCAL_TRANSFER_EXTRAP, a, v), q, false,
                  &c->action[coord][a]);
    }
    for (size_t i = 0; i < c->n; i++)
      v[i] = c->items[i].log_ratio[q];
    summarise(v, c->n, q, false, &c->pooled);
    size_t k = 0;
    for (size_t i = 0; i < c->n; i++)
      if (c->items[i].transfers.aligned)
        v[k++] = c->items[i].log_ratio[q];
    summarise(v, k, q, false, &c->aligned);
    for (size_t i = 0; i < c->n_noise; i++)
      v[i] = c->noise[i][q];
    summarise(v, c->n_noise, q, false, &c->noise_group);
    /* the widest populated group, for a transfer without evidence */
    double best = -1;
    c->widest.n[q] = 0;
    c->widest.lo[q] = c->widest.hi[q] = c->widest.mean_abs[q] = NAN;
    for (int coord = 0; coord < PASCAL_COORDINATES; coord++)
      for (int kind = 0; kind < PASCAL_TRANSFER_KINDS; kind++) {
        const pascal_interval_group *g = &c->group[coord][kind];
        if (g->n[q] >= PASCAL_INTERVAL_MIN_RESIDUALS && g->hi[q] - g->lo[q] > best) {
          best = g->hi[q] - g->lo[q];
          c->widest.n[q] = g->n[q];
          c->widest.lo[q] = g->lo[q];
          c->widest.hi[q] = g->hi[q];
          c->widest.mean_abs[q] = g->mean_abs[q];
        }
      }
  }
  free(v);
  return PASCAL_OK;
}

const pascal_interval_group *pascal_interval_group_of(const pascal_interval_calibration *c,
                                                      pascal_coordinate coordinate,
                                                      pascal_transfer_kind kind)
{
  if ((unsigned)coordinate >= PASCAL_COORDINATES || (unsigned)kind >= PASCAL_TRANSFER_KINDS)
    return NULL;
  return &c->group[coordinate][kind];
}

/* The group a transfer of quantity q reads: an extrapolated one its
 * action's (*own_action set then), else its own, else the nearest other
 * kind of its coordinate (interpolated and extrapolated borrow from each
 * other, from one pass from interpolated), else the widest (*borrowed set
 * then). */
static const pascal_interval_group *group_for(const pascal_interval_calibration *c,
                                              const pascal_transfer *t, int q, bool *own_action,
                                              bool *borrowed)
{
  static const pascal_transfer_kind lender[PASCAL_TRANSFER_KINDS] = {
      [PASCAL_TRANSFER_INTERP] = PASCAL_TRANSFER_EXTRAP,
      [PASCAL_TRANSFER_EXTRAP] = PASCAL_TRANSFER_INTERP,
      [PASCAL_TRANSFER_ONE_PASS] = PASCAL_TRANSFER_INTERP};
  const pascal_interval_group *own = &c->group[t->coordinate][t->kind];
  const pascal_interval_group *other = &c->group[t->coordinate][lender[t->kind]];
  *borrowed = false;
  *own_action = false;
  if (t->kind == PASCAL_TRANSFER_EXTRAP && (unsigned)t->action < PASCAL_EXTRAP_ACTIONS &&
      c->action[t->coordinate][t->action].n[q] >= PASCAL_INTERVAL_MIN_RESIDUALS) {
    *own_action = true;
    return &c->action[t->coordinate][t->action];
  }
  if (own->n[q] >= PASCAL_INTERVAL_MIN_RESIDUALS)
    return own;
  *borrowed = true;
  if (other->n[q] >= PASCAL_INTERVAL_MIN_RESIDUALS)
    return other;
  return c->widest.n[q] ? &c->widest : NULL;
}

/* Whether the transfer that entails item i of t reads its action's group,
 * which holds the entailed transfer's error with its own. */
static bool entailed_held(const pascal_interval_calibration *c, const pascal_transfers *t, size_t i,
                          int q)
{
  if (!entailed(t, i))
    return false;
  for (size_t j = 0; j < t->n; j++)
    if (t->item[j].coordinate == PASCAL_COORD_N) {
      bool own_action, borrowed;
      return group_for(c, &t->item[j], q, &own_action, &borrowed) && own_action;
    }
  return false;
}

/* K: the widest of the transfers' groups, each scaled by its distance, per
 * side (the key-and-level folds, docs/expected-error.md: two transfers err
 * together, not independently); an answer that read no excess the aligned
 * group. */
static bool transfers_bounds(const pascal_interval_calibration *c, const pascal_transfers *t,
                             double *lo, double *hi, pascal_interval_bounds *out)
{
  int q = PASCAL_INTERVAL_K;
  bool known = false;
  const pascal_interval_group *al = &c->aligned;
  *lo = *hi = out->mean_abs = 0;
  if (t->aligned && t->n > 0 && al->n[q] >= PASCAL_INTERVAL_MIN_RESIDUALS) {
    *lo = fmin(0, al->lo[q]);
    *hi = fmax(0, al->hi[q]);
    out->n_residuals = al->n[q];
    out->mean_abs = al->mean_abs[q];
    return true;
  }
  for (size_t i = 0; i < t->n; i++) {
    bool own_action, borrowed;
    if (entailed_held(c, t, i, q))
      continue;
    const pascal_interval_group *g = group_for(c, &t->item[i], q, &own_action, &borrowed);
    if (!g)
      continue;
    known = true;
    double dist = t->item[i].distance;
    *lo = fmin(*lo, g->lo[q] * dist);
    *hi = fmax(*hi, g->hi[q] * dist);
    out->mean_abs = fmax(out->mean_abs, g->mean_abs[q] * dist);
    out->n_residuals += g->n[q];
    out->borrowed += borrowed;
  }
  return known;
}

void pascal_interval_bounds_of(const pascal_interval_calibration *c, const pascal_transfers *t,
                               pascal_interval_bounds *out)
{
  memset(out, 0, sizeof *out);
  out->level = PASCAL_INTERVAL_LEVEL;
  for (int q = 0; q < PASCAL_INTERVAL_QUANTITIES; q++) {
    double lo = 0, hi = 0;
    bool known;
    if (q == PASCAL_INTERVAL_K) {
      known = transfers_bounds(c, t, &lo, &hi, out);
    } else { /* time: every fold's residual, whatever it transferred */
      known = c->pooled.n[q] > 0;
      if (known) {
        lo = fmin(0, c->pooled.lo[q]);
        hi = fmax(0, c->pooled.hi[q]);
      }
    }
    const pascal_interval_group *noise = &c->noise_group;
    if (noise->n[q] > 0) { /* a new run varies this much at any answer */
      known = true;
      lo = fmin(lo, fmin(0, noise->lo[q]));
      hi = fmax(hi, fmax(0, noise->hi[q]));
    }
    if (t->n > 0 && known) {
      lo = fmin(lo, -PASCAL_INTERVAL_FLOOR);
      hi = fmax(hi, PASCAL_INTERVAL_FLOOR);
    }
    if (q == PASCAL_INTERVAL_K && t->n == 0 && !known) /* at its references, no repeats: exact */
      known = c->n > 0;
    out->known[q] = known;
    out->lo[q] = known ? lo : NAN;
    out->hi[q] = known ? hi : NAN;
  }
}

/* Whether t carries the answer across keys (what a leave-one-key-out fold
 * scores). */
static bool across_keys(const pascal_transfers *t)
{
  for (size_t i = 0; i < t->n; i++)
    switch (t->item[i].coordinate) {
    case PASCAL_COORD_M:
    case PASCAL_COORD_D:
    case PASCAL_COORD_N_R:
    case PASCAL_COORD_N_C: return true;
    default: break;
    }
  return false;
}

bool pascal_interval_clip_k(pascal_interval_bounds *b, double K, double K_min, double K_max)
{
  int q = PASCAL_INTERVAL_K;
  if (!b->known[q] || !(K > 0) || !(K_min <= K && K <= K_max))
    return false;
  double lo = log(K_min / K), hi = log(K_max / K);
  bool narrowed = b->lo[q] < lo || b->hi[q] > hi;
  b->lo[q] = fmax(b->lo[q], lo);
  b->hi[q] = fmin(b->hi[q], hi);
  assert(b->lo[q] <= 0 && b->hi[q] >= 0); /* K itself stays inside */
  return narrowed;
}

bool pascal_interval_answer_bounds(const pascal_interval_calibration *c, const pascal_transfers *t,
                                   double K, double K_aligned, bool loses, const double k_range[2],
                                   const pascal_scan_residency *res, double W,
                                   pascal_interval_bounds *out)
{
  bool probe = res && res->read;
  double K_curves = probe ? res->K_refetching : K; /* what the residuals measured */
  pascal_interval_bounds_of(c, t, out);
  bool widened = loses && K_curves > 0 && K_aligned > 0 &&
                 pascal_interval_widen_k(out, t, log(K_aligned / K_curves));
  pascal_interval_clip_k(out, K_curves, k_range[0], k_range[1]);
  if (probe && out->known[PASCAL_INTERVAL_K])
    pc_residency_bounds(res, W, K, &out->lo[PASCAL_INTERVAL_K], &out->hi[PASCAL_INTERVAL_K]);
  return widened;
}

void pascal_interval_k_range(pascal_workload w, double W, double M, double K0, double range[2])
{
  range[0] = w == PASCAL_WORKLOAD_SCAN ? 1.0 / fmax(W, 1.0) : w == PASCAL_WORKLOAD_GEMM ? K0 : NAN;
  range[1] = w == PASCAL_WORKLOAD_ATTENTION ? NAN : M;
}

bool pascal_interval_widen_k(pascal_interval_bounds *b, const pascal_transfers *t, double to)
{
  int q = PASCAL_INTERVAL_K;
  if (!b->known[q] || !isfinite(to) || (to >= b->lo[q] && to <= b->hi[q]) || !across_keys(t))
    return false;
  b->lo[q] = fmin(b->lo[q], to);
  b->hi[q] = fmax(b->hi[q], to);
  return true;
}
