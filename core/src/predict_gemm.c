/*
 * predict_gemm.c - GEMM prediction (paper section 4.5, App. C "GEMM
 * instantiation"): from the geometry of a shape (gemm_geometry.c: tile
 * counts, B_0, Q, K_0), the encoded kappa = V / B_0 read from each
 * reference grid's curve over n_k (the paper's S, or linear in log n_k
 * between two reduction lengths where the calibration's own folds chose
 * that: pascal_reading_choice, model.c), transferred along log n_c within each
 * reference row and then along log n_r; in a single execution class Eq.
 * graph with gamma = 4 is (p + 4 a_lin) / 5 inside a bracket. Decoded
 * with Eq. dynamic_decode scaled by K_0.
 *
 * Beyond the grid (n_r, n_c or n_k outside the references read) the answer
 * is the nearest reference's: the query with those tile counts moved to the
 * edge. Its excess fills over B_0 are carried by the raster's static
 * reference V_s (gemm_raster.c): V - B_0 = (V_ref - B_0,ref) (V_s(query) -
 * B_0) / (V_s(ref) - B_0,ref), in [B_0, Q] (action "static-ratio"), so
 * that past the grid the refetches grow as the static model says the cache
 * stops holding the panels; the paper holds kappa = V / B_0, which counts
 * each input tile once however large the shape. Beyond the paper, chosen
 * on folds that hold out each calibration's largest and smallest n_r, n_c
 * and n_k, the H100's included (docs/autotuning.md); each calibration may
 * instead carry all of V by V_s where its own such folds say so
 * (pascal_reading_choice, model.c). Where V_s cannot be
 * walked (more output tiles than it takes) or refetches too little at the
 * reference to carry anything, the reference's kappa is held (actions
 * "clamped", "held-at-end").
 *
 * Between two reduction lengths of the calibration, where its own Kg folds
 * chose it (model.between_static), the excess is carried by the query's
 * static reference instead (pascal_gemm_carry, pascal/predict.h): the
 * answer at the two levels around n_k, each a share of V_s's excess there,
 * the share linear in log n_k, times V_s's excess at the query; so a
 * capacity threshold V_s places between two levels is where the answer
 * puts it (docs/design.md 4.5). Where V_s refetches too little at both
 * levels to carry anything and the calibration's folds chose it
 * (model.between_silent), the lower level's kappa is held.
 */
#include <assert.h>
#include <math.h>
#include <stdint.h>

#include "curve_internal.h"
#include "model_internal.h"
#include "pascal/gemm_config.h"

typedef double (*axis_value_fn)(const void *ctx, size_t k);

/* One transfer step along an axis with knots x[0..n) (log tile counts,
 * increasing) at t: exact at a knot, (p + gamma a_lin)/(1 + gamma) inside a
 * bracket, clamped outside. left and right receive the knot indices used. */
static void axis_transfer(const double *x, size_t n, double t, axis_value_fn val, const void *ctx,
                          pascal_gemm_step *s, size_t *left, size_t *right)
{
  *s = (pascal_gemm_step){.p = NAN, .a_lin = NAN};
  size_t k = SIZE_MAX;
  if (n == 1 || t <= x[0])
    k = 0;
  else if (t >= x[n - 1])
    k = n - 1;
  if (k != SIZE_MAX) {
    s->rule = x[k] == t ? PASCAL_RULE_EXACT : PASCAL_RULE_CLAMP;
    s->a = s->a_left = s->a_right = val(ctx, k);
    *left = *right = k;
    return;
  }
  size_t i = pc_pchip_interval(x, n, t);
  if (x[i] == t) {
    s->rule = PASCAL_RULE_EXACT;
    s->a = s->a_left = s->a_right = val(ctx, i);
    *left = *right = i;
    return;
  }
  size_t lo, hi;
  double yw[4];
  pc_pchip_window(n, i, &lo, &hi);
  for (size_t j = lo; j <= hi; j++)
    yw[j - lo] = val(ctx, j);
  s->rule = PASCAL_RULE_GRAPH;
  s->p = pc_pchip_eval_window(x, n, i, yw, lo, t);
  s->a_left = yw[i - lo];
  s->a_right = yw[i + 1 - lo];
  double hl = t - x[i], hr = x[i + 1] - t;
  s->a_lin = (hr * s->a_left + hl * s->a_right) / (hl + hr);
  s->a = (s->p + PASCAL_GRAPH_GAMMA * s->a_lin) / (1 + PASCAL_GRAPH_GAMMA);
  *left = i;
  *right = i + 1;
}

/* The part of (log n_c, log n_k) inside the range of every row and grid
 * read (an intersection, as for the scan). */
typedef struct gemm_span {
  double lnc_lo, lnc_hi, lnk_lo, lnk_hi;
  double lnk_dist; /* the largest distance of log n_k from the nearest knot
                      of a curve read */
} gemm_span;

typedef struct gemm_ctx {
  const pascal_model *md;
  const model_row *row; /* the row of a column transfer */
  double lnk, lnc;
  gemm_span *span;
} gemm_ctx;

/* Encoded value of grid k of ctx->row at n_k. */
static double grid_value(const void *p, size_t k)
{
  const gemm_ctx *c = p;
  const model_grid *g = &c->md->grids[c->row->first_grid + k];
  pc_span_narrow(&c->span->lnk_lo, &c->span->lnk_hi, g->curve.x[0], g->curve.x[g->curve.n - 1]);
  c->span->lnk_dist = fmax(c->span->lnk_dist, pc_knot_distance(g->curve.x, g->curve.n, c->lnk));
  if (c->md->between.rule == PASCAL_READ_LINEAR)
    return pc_curve_excess_linear(&g->curve, c->lnk);
  return pascal_excess_encode(pc_curve_log_k_at(&g->curve, c->lnk));
}

static void column_step(const gemm_ctx *base, size_t row, pascal_gemm_step *s)
{
  gemm_ctx c = *base;
  size_t l, r;
  c.row = &c.md->rows[row];
  pc_span_narrow(&c.span->lnc_lo, &c.span->lnc_hi, c.md->grid_lnc[c.row->first_grid],
                 c.md->grid_lnc[c.row->first_grid + c.row->n_grids - 1]);
  axis_transfer(c.md->grid_lnc + c.row->first_grid, c.row->n_grids, c.lnc, grid_value, &c, s, &l,
                &r);
  s->left = c.md->grids[c.row->first_grid + l].n_c;
  s->right = c.md->grids[c.row->first_grid + r].n_c;
}

/* Value of row k: its column transfer at n_c. */
static double row_value(const void *p, size_t k)
{
  pascal_gemm_step s;
  column_step(p, k, &s);
  return s.a;
}

/* A tile count read back through exp(log n) is the integer it was. */
static double tile_count(double x)
{
  return nearbyint(exp(x));
}

/* The tile counts outside the span of the rows and grids read: n_r and n_c
 * take the nearest reference's value, n_k holds the curves at their ends;
 * static: the excess was then carried by V_s (all three "static-ratio"). */
static void gemm_extrapolations(const pascal_model *md, const pascal_gemm_prediction *p,
                                const gemm_span *sp, bool statik, pascal_extrapolations *ex)
{
  ex->n = 0;
  pc_extrapolation_flag(ex, PASCAL_COORD_N_R, p->n_r, md->rows[0].n_r, md->rows[md->n_rows - 1].n_r,
                        statik ? PASCAL_EXTRAP_STATIC_RATIO : PASCAL_EXTRAP_CLAMPED);
  pc_extrapolation_flag(ex, PASCAL_COORD_N_C, p->n_c, tile_count(sp->lnc_lo),
                        tile_count(sp->lnc_hi),
                        statik ? PASCAL_EXTRAP_STATIC_RATIO : PASCAL_EXTRAP_CLAMPED);
  pc_extrapolation_flag(ex, PASCAL_COORD_N_K, p->n_k, tile_count(sp->lnk_lo),
                        tile_count(sp->lnk_hi),
                        statik ? PASCAL_EXTRAP_STATIC_RATIO : PASCAL_EXTRAP_HELD);
}

static uint32_t clamp_count(uint32_t v, double lo, double hi)
{
  return v < lo ? (uint32_t)lo : v > hi ? (uint32_t)hi : v;
}

/* The transfer of one step along log tile count t (GRAPH: between left and
 * right, CLAMP: from left). */
static void step_transfer(const pascal_gemm_step *s, pascal_coordinate c, double t,
                          pascal_transfers *out)
{
  double dl = fabs(t - log((double)s->left)), dr = fabs(log((double)s->right) - t);
  if (s->rule == PASCAL_RULE_GRAPH)
    pc_transfer_add(out, c, PASCAL_TRANSFER_INTERP, fmin(dl, dr));
  else if (s->rule == PASCAL_RULE_CLAMP)
    pc_transfer_add(out, c, PASCAL_TRANSFER_EXTRAP, dl);
}

/* How far the answer is from the grids and knots it read. */
static void gemm_transfers(const pascal_gemm_prediction *p, const gemm_span *sp,
                           pascal_transfers *t)
{
  t->n = 0;
  step_transfer(&p->why.row, PASCAL_COORD_N_R, log((double)p->n_r), t);
  for (size_t k = 0; k < p->why.n_rows; k++)
    step_transfer(&p->why.col[k], PASCAL_COORD_N_C, log((double)p->n_c), t);
  double lnk = log((double)p->n_k);
  pc_transfer_add(t, PASCAL_COORD_N_K,
                  lnk < sp->lnk_lo || lnk > sp->lnk_hi ? PASCAL_TRANSFER_EXTRAP
                                                       : PASCAL_TRANSFER_INTERP,
                  sp->lnk_dist);
}

/* The least excess of the static reference over B_0, as a share of B_0,
 * that carries an answer: below it the ratio of two static excesses, one
 * of them near zero, says nothing (it could multiply an excess by any
 * factor up to Q / B_0). Beyond the grid the reference's kappa is then
 * held; the edge folds (docs/autotuning.md) score the same for any share
 * up to 0.15 and worse from 0.2; 0.1 is below that. Between reduction
 * lengths a level where V_s refetches less has no share. */
#define GEMM_STATIC_EXCESS_MIN 0.1

/* The prediction with every tile count outside the references read held at
 * the nearest reference's value; sp receives the span read. */
static pascal_status predict_held(const pascal_model *md, const pascal_gemm_shape *shape,
                                  pascal_gemm_prediction *out, gemm_span *sp, pascal_error *err)
{
  pascal_status st;
  pascal_gemm_prediction p;
  if ((st = pascal_gemm_geometry(&md->gemm, shape, &p, err)))
    return st;
  *sp = (gemm_span){-INFINITY, INFINITY, -INFINITY, INFINITY, 0};
  gemm_ctx c = {.md = md, .lnk = log((double)p.n_k), .lnc = log((double)p.n_c), .span = sp};
  p.expected = (pascal_expected_error){.pct = NAN};
  pascal_gemm_explanation *why = &p.why;
  size_t l, r;
  axis_transfer(md->row_lnr, md->n_rows, log((double)p.n_r), row_value, &c, &why->row, &l, &r);
  why->row.left = md->rows[l].n_r;
  why->row.right = md->rows[r].n_r;
  why->n_rows = l == r ? 1 : 2;
  why->rule = why->row.rule;
  for (size_t k = 0; k < why->n_rows; k++) {
    why->row_n_r[k] = md->rows[k == 0 ? l : r].n_r;
    column_step(&c, k == 0 ? l : r, &why->col[k]);
    if (why->col[k].rule > why->rule)
      why->rule = why->col[k].rule;
  }
  why->a = why->row.a;
  why->carry = (pascal_gemm_carry){
      .reading = PASCAL_READ_STATIC_EXCESS, .share = {NAN, NAN}, .kappa_s = NAN};
  p.K = pascal_excess_decode(why->a, p.K0, p.M);
  p.kappa = p.K / p.K0;
  p.rho = p.K / p.M;
  p.fill_bytes = p.kappa * p.B0;
  *out = p;
  return PASCAL_OK;
}

/* V_s in bytes of n_r x n_c output tiles at n_k reduction tiles with M
 * CTAs resident (gemm_raster.c). */
static pascal_status static_fills(const pascal_model *md, uint32_t n_r, uint32_t n_c, uint32_t n_k,
                                  uint32_t M, double *out, pascal_error *err)
{
  const pascal_gemm_params *g = &md->gemm;
  pascal_gemm_shape s = {n_r * g->tile_m, n_c * g->tile_n, n_k * g->tile_k};
  pascal_gemm_config c;
  double capacity = (double)md->device.capacity_blocks * md->device.block_bytes;
  pascal_gemm_config_of(g, &c);
  return pascal_gemm_static_fills(&s, &c, M, capacity, out, err);
}

/* The index i of the reduction levels with level i < lnk < level i + 1;
 * false where lnk is a level or outside them. */
static bool level_bracket(const pascal_model *md, double lnk, size_t *i)
{
  const double *x = md->lnk_levels;
  size_t n = md->n_lnk_levels;
  if (n < 2 || lnk <= x[0] || lnk >= x[n - 1])
    return false;
  size_t k = 0;
  while (x[k + 1] < lnk)
    k++;
  assert(x[k] < lnk && lnk <= x[k + 1]);
  *i = k;
  return x[k + 1] != lnk;
}

/* p answers with kappa (within [1, Q / B_0]), carried. */
static void answer_carried(pascal_gemm_prediction *p, double kappa)
{
  p->kappa = fmin(fmax(kappa, 1), p->Q / p->B0);
  p->K = p->K0 * p->kappa;
  p->rho = p->K / p->M;
  p->fill_bytes = p->kappa * p->B0;
  p->why.a = pascal_excess_encode(log(p->kappa));
  p->why.carry.carried = true;
}

/* p (predict_held's answer, its carry empty) carried between the two
 * reduction levels around its n_k by V_s (pascal_gemm_carry); p->why.carry
 * says whether it was. Where V_s refetches too little at both levels to
 * say anything, the lower level's kappa is held when hold_silent, else
 * nothing is carried. Not carried at a level or outside them, or where V_s
 * cannot be walked (more output tiles than it takes: the reading between
 * knots stands). */
static pascal_status carry_between(const pascal_model *md, pascal_gemm_prediction *p,
                                   bool hold_silent, pascal_error *err)
{
  pascal_gemm_carry *c = &p->why.carry;
  double lnk = log((double)p->n_k);
  size_t i;
  if (!level_bracket(md, lnk, &i))
    return PASCAL_OK;
  const pascal_gemm_params *g = &md->gemm;
  pascal_gemm_shape at[2];
  double xs[2], vq; /* V_s's excess over B_0 at each level, as a share of B_0 */
  pascal_status st = PASCAL_OK;
  bool said = false;
  for (int k = 0; k < 2; k++) {
    c->n_k[k] = (uint32_t)tile_count(md->lnk_levels[i + k]);
    at[k] = (pascal_gemm_shape){p->n_r * g->tile_m, p->n_c * g->tile_n, c->n_k[k] * g->tile_k};
  }
  /* V_s first, the upper level first: V_s / B_0 never falls as n_k grows
     (a longer panel only turns hits into misses; test_gemm_config checks
     it), so where the upper level is silent the lower one is too, and one
     walk settles that V_s has nothing to carry */
  for (int k = 1; !st && k >= 0 && (k == 1 || said); k--) {
    pascal_gemm_prediction geo;
    double vs;
    if (!(st = pascal_gemm_geometry(g, &at[k], &geo, err)) &&
        !(st = static_fills(md, p->n_r, p->n_c, c->n_k[k], p->M, &vs, err))) {
      xs[k] = vs / geo.B0 - 1;
      said = said || xs[k] >= GEMM_STATIC_EXCESS_MIN;
    }
  }
  if (!st && said && !(st = static_fills(md, p->n_r, p->n_c, p->n_k, p->M, &vq, err)))
    c->kappa_s = vq / p->B0;
  if (st == PASCAL_ERANGE) { /* too many tiles to walk: the reading stands */
    pascal_error_clear(err);
    return PASCAL_OK;
  }
  /* the tiles the longer panel adds stay in the cache: V_s is silent at the
     query as at the upper level, and is not walked there (kappa_s NAN) */
  if (!st && !said && hold_silent) {
    pascal_gemm_prediction q;
    gemm_span sp;
    if (!(st = predict_held(md, &at[0], &q, &sp, err))) {
      c->reading = PASCAL_READ_LOWER_LEVEL;
      answer_carried(p, q.kappa);
    }
    return st;
  }
  for (int k = 0; !st && said && k < 2; k++) {
    pascal_gemm_prediction q;
    gemm_span sp;
    if (xs[k] >= GEMM_STATIC_EXCESS_MIN && !(st = predict_held(md, &at[k], &q, &sp, err)))
      c->share[k] = (q.kappa - 1) / xs[k];
  }
  if (st || !said)
    return st;
  double t = (lnk - md->lnk_levels[i]) / (md->lnk_levels[i + 1] - md->lnk_levels[i]);
  double share = isnan(c->share[0])   ? c->share[1]
                 : isnan(c->share[1]) ? c->share[0]
                                      : c->share[0] + t * (c->share[1] - c->share[0]);
  answer_carried(p, 1 + share * (c->kappa_s - 1));
  return PASCAL_OK;
}

/* The answer inside the span (held beyond it), carried between reduction
 * levels where the calibration chose that. */
static pascal_status predict_within(const pascal_model *md, const pascal_gemm_shape *shape,
                                    pascal_gemm_prediction *out, gemm_span *sp, pascal_error *err)
{
  pascal_status st = predict_held(md, shape, out, sp, err);
  if (!st && md->between_static.rule == PASCAL_READ_STATIC_EXCESS)
    st = carry_between(md, out, md->between_silent.rule == PASCAL_READ_LOWER_LEVEL, err);
  return st;
}

pascal_status pc_gemm_fills_between(const pascal_model *md, const pascal_gemm_shape *shape,
                                    const pascal_reading rules[2], double fills[2],
                                    pascal_error *err)
{
  pascal_gemm_prediction held;
  gemm_span sp;
  pascal_status st = predict_held(md, shape, &held, &sp, err);
  for (int k = 0; !st && k < 2; k++) {
    pascal_gemm_prediction p = held;
    if (rules[k] == PASCAL_READ_STATIC_EXCESS || rules[k] == PASCAL_READ_LOWER_LEVEL)
      st = carry_between(md, &p, rules[k] == PASCAL_READ_LOWER_LEVEL, err);
    fills[k] = p.fill_bytes;
  }
  return st;
}

/* Beyond the grid, what a carry reads: the reference ref (the query moved
 * into the span sp) as the model answers it, and the static reference V_s
 * at the query and at ref; walked false where V_s cannot be walked (more
 * output tiles than it takes). */
typedef struct static_carry {
  pascal_gemm_prediction ref;
  double vq, vr;
  bool walked;
} static_carry;

static pascal_status static_walks(const pascal_model *md, const gemm_span *sp,
                                  const pascal_gemm_prediction *p, static_carry *sc,
                                  pascal_error *err)
{
  pascal_status st;
  const pascal_gemm_params *g = &md->gemm;
  pascal_gemm_shape ref = {
      clamp_count(p->n_r, md->rows[0].n_r, md->rows[md->n_rows - 1].n_r) * g->tile_m,
      clamp_count(p->n_c, tile_count(sp->lnc_lo), tile_count(sp->lnc_hi)) * g->tile_n,
      clamp_count(p->n_k, tile_count(sp->lnk_lo), tile_count(sp->lnk_hi)) * g->tile_k};
  const pascal_gemm_prediction *r = &sc->ref;
  gemm_span rsp;
  sc->walked = false;
  if ((st = predict_within(md, &ref, &sc->ref, &rsp, err)))
    return st;
  st = static_fills(md, p->n_r, p->n_c, p->n_k, p->M, &sc->vq, err);
  if (!st)
    st = static_fills(md, r->n_r, r->n_c, r->n_k, r->M, &sc->vr, err);
  if (st == PASCAL_ERANGE) { /* too many tiles to walk: the held kappa stands */
    pascal_error_clear(err);
    return PASCAL_OK;
  }
  sc->walked = st == PASCAL_OK;
  return st;
}

/* The fills of p carried from the reference by the static reference
 * (docs/design.md 4.5): with PASCAL_READ_EXCESS_RATIO the excess over B_0,
 * V - B_0 = (V_ref - B_0,ref) (V_s - B_0) / (V_s,ref - B_0,ref), or the
 * reference's kappa where V_s's excess at the reference is under
 * GEMM_STATIC_EXCESS_MIN B_0; with PASCAL_READ_RATIO (where the
 * calibration's edge folds chose it, model_reading.c) all of V, V = V_ref
 * V_s / V_s,ref; within [B_0, Q]. *done = false where V_s was not walked
 * (p keeps the held answer) or the reference's kappa was taken. Where it
 * was walked p's explanation takes the reference's carry between
 * reduction lengths (pascal_gemm_carry): how the fills it starts from were
 * read. */
static void carry_apply(pascal_reading rule, const static_carry *sc, pascal_gemm_prediction *p,
                        bool *done)
{
  const pascal_gemm_prediction *r = &sc->ref;
  *done = false;
  if (!sc->walked)
    return;
  p->why.carry = r->why.carry;     /* the fills are now the reference's, carried */
  if (rule == PASCAL_READ_RATIO) { /* all of V carried: V_s > 0 at any shape */
    *done = true;
    p->fill_bytes = fmin(fmax(r->fill_bytes * (sc->vq / sc->vr), p->B0), p->Q);
  } else {
    *done = sc->vr - r->B0 >= GEMM_STATIC_EXCESS_MIN * r->B0;
    double scale = *done ? (sc->vq - p->B0) / (sc->vr - r->B0) : p->B0 / r->B0; /* else held */
    p->fill_bytes = fmin(fmax(p->B0 + (r->fill_bytes - r->B0) * scale, p->B0), p->Q);
  }
  p->kappa = p->fill_bytes / p->B0;
  p->K = p->K0 * p->kappa;
  p->rho = p->K / p->M;
}

pascal_status pc_gemm_fills_by_carry(const pascal_model *md, const pascal_gemm_shape *shape,
                                     const pascal_reading rules[2], double fills[2],
                                     pascal_error *err)
{
  pascal_status st;
  pascal_gemm_prediction p;
  gemm_span span;
  static_carry sc;
  bool done;
  if ((st = predict_within(md, shape, &p, &span, err)))
    return st;
  gemm_extrapolations(md, &p, &span, false, &p.extrapolated);
  fills[0] = fills[1] = p.fill_bytes;
  if (!p.extrapolated.n || (st = static_walks(md, &span, &p, &sc, err)))
    return st;
  for (int k = 0; k < 2; k++) {
    pascal_gemm_prediction q = p;
    carry_apply(rules[k], &sc, &q, &done);
    fills[k] = q.fill_bytes;
  }
  return PASCAL_OK;
}

pascal_status pascal_model_predict_gemm(const pascal_model *md, const pascal_gemm_shape *shape,
                                        pascal_gemm_prediction *out, pascal_error *err)
{
  pascal_status st;
  pascal_gemm_prediction p;
  gemm_span span;
  bool statik = false;
  if (md->workload != PASCAL_WORKLOAD_GEMM)
    return pascal_error_set(err, PASCAL_EINVAL, "workload",
                            "this calibration is for a scan, not GEMM");
  if ((st = predict_within(md, shape, &p, &span, err)))
    return st;
  gemm_extrapolations(md, &p, &span, false, &p.extrapolated);
  if (p.extrapolated.n) {
    static_carry sc;
    if ((st = static_walks(md, &span, &p, &sc, err)))
      return st;
    carry_apply(md->beyond.rule, &sc, &p, &statik);
  }
  gemm_extrapolations(md, &p, &span, statik, &p.extrapolated);
  gemm_transfers(&p, &span, &p.transfers);
  pc_transfers_mark_actions(&p.transfers, &p.extrapolated);
  *out = p;
  return PASCAL_OK;
}
