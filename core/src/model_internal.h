/*
 * model_internal.h - layout of the fitted dynamic model (pascal_model of
 * pascal/predict.h), shared by the fit (model.c), the scan and GEMM
 * predictions (predict_scan.c, predict_gemm.c) and the LOKO folds
 * (evaluate.c).
 *
 * Scan: sizes sorted by N; each size owns a contiguous run of families
 * sorted by (o, path, d); each family a contiguous run of references sorted
 * by m, with ref_m[] (m as double, the x of the pooled PCHIP) parallel to
 * refs[]. GEMM: rows sorted by n_r, each a contiguous run of grids sorted
 * by n_c, with grid_lnc[] = log n_c parallel to grids[] and row_lnr[] =
 * log n_r parallel to rows[].
 */
#ifndef PASCAL_MODEL_INTERNAL_H
#define PASCAL_MODEL_INTERNAL_H

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pascal/gemm_config.h"
#include "pascal/predict.h"
#include "pascal/time_model.h"

typedef struct model_ref {
  uint32_t m;
  unsigned cls;
  size_t family; /* index into families[] */
  pascal_curve curve;
  double log_cost; /* time (time_fit.c): log of the cost per block and wave */
  double fixed;    /* time: seconds once per kernel                         */
} model_ref;

typedef struct model_family {
  uint32_t o;
  pascal_path path;
  uint32_t d;
  unsigned class_mask; /* bit c set when class c has a reference */
  size_t size;         /* index into sizes[] */
  size_t first_ref, n_refs;
} model_family;

typedef struct model_size {
  uint32_t N;
  double eta; /* C / N */
  size_t first_family, n_families;
} model_size;

typedef struct model_grid {
  uint32_t n_r, n_c;
  pascal_curve curve; /* of log(n_k kappa) over log n_k */
} model_grid;

typedef struct model_row {
  uint32_t n_r;
  size_t first_grid, n_grids;
} model_row;

struct pascal_model {
  pascal_workload workload;
  pascal_device device;
  pascal_class_rule class_rule;
  pascal_gemm_params gemm;
  pascal_attention_params attention; /* an attention model's tiling */
  /* scan */
  model_size *sizes;
  size_t n_sizes;
  model_family *families;
  size_t n_families;
  model_ref *refs;
  double *ref_m;
  size_t n_refs;
  /* gemm */
  model_row *rows;
  double *row_lnr;
  size_t n_rows;
  model_grid *grids;
  double *grid_lnc;
  size_t n_grids;
  double *lnk_levels; /* the knots of every grid, distinct, increasing */
  size_t n_lnk_levels;
  /* calibrated time (time_fit.c): every scan reference's log_cost and
     fixed, or the GEMM fit below, when `timed` */
  bool timed;
  pascal_gemm_time_fit gemm_time;
  pascal_reading_choice between;        /* the reading between knots (model.c)  */
  pascal_reading_choice beyond;         /* GEMM: the carry beyond the grid      */
  pascal_reading_choice between_static; /* GEMM: the carry between Kg   */
  pascal_reading_choice between_silent; /* GEMM: where V_s says nothing */
  pascal_reading_choice graph;          /* scan: m between same-class refs  */
};

/* Runs to leave out of a fit: a scan key or a GEMM grid (Mg, Ng) (the
 * leave-one-key-out folds), or every run at one level of a coordinate the
 * curves and sizes are calibrated at (the level folds of residuals.c): a
 * horizon W or a size N of a scan, a reduction length Kg of a GEMM; or a
 * GEMM grid and a reduction length together (its runs at that length are
 * then read from other grids and lengths: model_reading.c). */
typedef enum model_exclusion_kind {
  PC_EXCLUDE_NONE = 0,
  PC_EXCLUDE_KEY = 1,    /* key (scan) or Mg, Ng (GEMM)  */
  PC_EXCLUDE_W = 2,      /* scan runs with W == level     */
  PC_EXCLUDE_N = 3,      /* scan runs with N == level     */
  PC_EXCLUDE_KG = 4,     /* GEMM runs with Kg == level    */
  PC_EXCLUDE_MG = 5,     /* GEMM runs with Mg == level    */
  PC_EXCLUDE_NG = 6,     /* GEMM runs with Ng == level    */
  PC_EXCLUDE_GRID_KG = 7 /* GEMM runs of grid Mg, Ng or with Kg == level */
} model_exclusion_kind;

typedef struct model_exclusion {
  model_exclusion_kind kind;
  pascal_scan_key key;
  uint32_t Mg, Ng;
  uint32_t level;
  bool untimed; /* the fold scores fills only: no time fit */
} model_exclusion;

/* One included run of a fit (model.c) with the coordinates it is grouped
 * and sorted by.
 * Scan: (a, b, c, e, f) = (N, o, path, d, m), h = W.
 * GEMM: (a, b) = (n_r, n_c), h = n_k; c, e, f unused (0). */
typedef struct pc_fit_item {
  uint32_t a, b, c, e, f;
  double h;
  double k;     /* K (scan) or kappa (GEMM) of the run */
  double t;     /* kernel seconds, or 0 when the run carries no time */
  size_t index; /* run index, for error messages */
} pc_fit_item;

/* Items i and j share the first `depth` coordinates. */
static inline bool pc_fit_same_prefix(const pc_fit_item *i, const pc_fit_item *j, int depth)
{
  const uint32_t a[5] = {i->a, i->b, i->c, i->e, i->f};
  const uint32_t b[5] = {j->a, j->b, j->c, j->e, j->f};
  for (int k = 0; k < depth; k++)
    if (a[k] != b[k])
      return false;
  return true;
}

/* The size N of scan reference r, and whether two references are of one key
 * (inline: the fit's loops over pairs of references call them). */
static inline double pc_model_ref_N(const pascal_model *m, size_t r)
{
  return m->sizes[m->families[m->refs[r].family].size].N;
}

static inline bool pc_model_same_key(const pascal_model *m, const model_ref *a, const model_ref *b)
{
  const model_family *fa = &m->families[a->family], *fb = &m->families[b->family];
  return a->m == b->m && fa->o == fb->o && fa->path == fb->path && fa->d == fb->d;
}

/* Choose m's readings between knots and (GEMM) beyond the grid on its own
 * runs (model_reading.c): items[0, n) the sorted runs m was fitted to (its
 * curves are their groups, in order), scratch 4 n doubles. */
pascal_status pc_model_choose_readings(pascal_model *m, const pascal_calibration *cal,
                                       const pc_fit_item *items, size_t n, double *scratch,
                                       pascal_error *err);

/* No run left out and no time fit: the model of all runs that folds take
 * their onsets and readings from (evaluate.c, residuals.c). */
static const model_exclusion pc_fit_base_only = {.kind = PC_EXCLUDE_NONE, .untimed = true};

/* Whether `ex` (NULL: nothing) leaves run `r` out. */
bool pc_excludes_scan(const model_exclusion *ex, const pascal_scan_run *r);
bool pc_excludes_gemm(const model_exclusion *ex, const pascal_gemm_run *r);

/* pascal_model_fit() leaving out the runs matched by `ex` (NULL: none).
 * `base` (or NULL): the model of all runs, whose onsets the keys that a
 * key fold keeps take over instead of fitting them again (the same
 * values: a key's onset reads its own curves only), and whose readings
 * (between knots, beyond the grid) every fold takes (so that a fold scores
 * the readings the model answers with; without base the fit chooses them
 * on its own runs). */
pascal_status pc_model_fit_excluding(const pascal_calibration *cal, const model_exclusion *ex,
                                     const pascal_model *base, pascal_model **out,
                                     pascal_error *err);

/* omega of Eq. graph, the weight of the same-class line at a query hl
 * and hr from its same-class references with c0 the sum of inverse
 * distances to its adjacent references: g / (c0 + g), g = gamma (1/hl +
 * 1/hr); 0 for gamma 0, the pooled PCHIP alone (predict_scan.c). */
double pc_graph_weight(double gamma, double hl, double hr, double c0);

/* Narrow [*lo, *hi] to its intersection with [a, b]: the span in which no
 * reference read so far is extrapolated. */
static inline void pc_span_narrow(double *lo, double *hi, double a, double b)
{
  if (a > *lo)
    *lo = a;
  if (b < *hi)
    *hi = b;
}

/* Record a transfer along c unless it is at a reference (distance 0) or
 * the list is full; a coordinate listed again keeps the least direct kind
 * and the largest distance. */
static inline void pc_transfer_add(pascal_transfers *t, pascal_coordinate c,
                                   pascal_transfer_kind kind, double distance)
{
  if (!(distance > 1e-12))
    return;
  for (size_t i = 0; i < t->n; i++)
    if (t->item[i].coordinate == c) {
      if (kind > t->item[i].kind)
        t->item[i].kind = kind;
      if (distance > t->item[i].distance)
        t->item[i].distance = distance;
      return;
    }
  if (t->n < PASCAL_TRANSFERS_MAX)
    t->item[t->n++] = (pascal_transfer){c, kind, distance, PASCAL_EXTRAP_CLAMPED};
}

/* Distance of t from the nearest of the n sorted knots x. */
static inline double pc_knot_distance(const double *x, size_t n, double t)
{
  double best = INFINITY;
  for (size_t i = 0; i < n; i++) {
    double e = t > x[i] ? t - x[i] : x[i] - t;
    if (e < best)
      best = e;
  }
  return best;
}

/* Record coordinate c when value lies outside [lo, hi]. */
static inline void pc_extrapolation_flag(pascal_extrapolations *ex, pascal_coordinate c,
                                         double value, double lo, double hi,
                                         pascal_extrapolation_action action)
{
  if ((value >= lo && value <= hi) || ex->n == PASCAL_EXTRAPOLATION_MAX)
    return;
  ex->item[ex->n++] = (pascal_extrapolation){c, value, lo, hi, action};
}

/* Give each extrapolated transfer of t the action of ex's item of its
 * coordinate (one set the transfer's action, the other the item's). */
static inline void pc_transfers_mark_actions(pascal_transfers *t, const pascal_extrapolations *ex)
{
  for (size_t i = 0; i < t->n; i++)
    for (size_t j = 0; j < ex->n; j++)
      if (t->item[i].kind == PASCAL_TRANSFER_EXTRAP &&
          t->item[i].coordinate == ex->item[j].coordinate)
        t->item[i].action = ex->item[j].action;
}

/* Whether the encoded excess a reads none: pascal_excess_decode gives its
 * k0, aligned K, exactly (pascal_transfers.aligned; an encoded zero decodes
 * to an excess of about 1e-18, below a double's resolution at 1). */
static inline bool pc_excess_none(double a)
{
  return pascal_excess_decode(a, 1, INFINITY) == 1;
}

/* Which value of a reference a scan transfer reads: K's encoded a at log W
 * (the curve), or the time fit's log cost or fixed cost. */
typedef enum pc_ref_value {
  PC_VALUE_K = 0,
  PC_VALUE_LOG_COST = 1,
  PC_VALUE_FIXED = 2
} pc_ref_value;

/* The transfer of pascal_model_predict_scan (rules 1-6 at the sizes
 * adjacent to N, then linear in eta) applied to `value`; N <= C reads the
 * sizes as any other N (no closed form). `lw` is log W, computed once by
 * the caller (K's curves are read at it; the time fit's values do not
 * depend on W, and their callers pass NAN). Above the largest size K's
 * curves are read at the same blocks per slot, log W + lw_shift (W > 1).
 * values[0..n_values) are read in one walk (all K, or the time fit's two:
 * they read the same references), why[v] the explanation of values[v].
 * Fills `why` and `sp_out` (the span of (m, log W read, d) inside every
 * reference read; may be NULL). Errors as pascal_model_predict_scan's. */
typedef struct scan_span {
  double m_lo, m_hi, lw_lo, lw_hi, d_lo, d_hi;
  double lw_dist;   /* the largest distance of the log W read from the
                       nearest knot of a curve read (0 when it is a knot of
                       every curve read)                                    */
  double lw_shift;  /* log(N / N_max) when K's curves were read at the
                       horizon W N / N_max of the largest size, else 0      */
  bool lw_one_pass; /* a curve read on its segment from one pass
                       (pc_curve_one_pass_segment)                          */
} scan_span;
pascal_status pc_scan_transfer(const pascal_model *md, const pascal_scan_key *key, uint32_t N,
                               double lw, const pc_ref_value *values, size_t n_values,
                               pascal_scan_explanation *why, scan_span *sp_out, pascal_error *err);

/* The query checks of a scan prediction (fields "workload", "o", "path",
 * "d", "N", "W"), and the refusal of an (o, path) never calibrated. */
pascal_status pc_scan_query_check(const pascal_model *md, const pascal_scan_key *key, uint32_t N,
                                  double W, pascal_error *err);

/* The time fits (time_fit.c). A scan reference's runs: horizons W[i] and
 * kernel seconds T[i] > 0 (n >= 1) at size N; false when no positive cost
 * fits. The GEMM fit over the included runs' tile counts and kernel seconds;
 * false with fewer than three runs. `scratch` holds 2 n (scan) or 3 n
 * (GEMM) doubles. */
bool pc_time_fit_scan_ref(const double *W, const double *T, size_t n, uint32_t N, double *scratch,
                          double *log_cost, double *fixed);
typedef struct pc_gemm_timed_run {
  uint64_t tiles;
  uint32_t n_k;
  double T; /* kernel seconds, > 0 */
} pc_gemm_timed_run;
bool pc_time_fit_gemm(const pc_gemm_timed_run *runs, size_t n, uint32_t sm_count,
                      pascal_gemm_time_fit *out, double *scratch);

/* Waves of `tiles` CTAs on sm_count SMs holding c_max CTAs each: full
 * waves, the tail's CTAs and its busiest SM's count (0 without a tail). */
void pc_gemm_waves(uint64_t tiles, uint32_t sm_count, uint32_t c_max, uint64_t *full,
                   uint64_t *tail, uint32_t *c_tail);

/* The time of a kernel the pipeline timed on peaks (time_model.c): time_s,
 * bound, waves, CTAs per SM, step and in-flight bytes, source peaks. */
void pc_time_from_pipeline(const pascal_peaks *peaks, const pascal_latency *lat,
                           const pascal_pipeline_kernel *k, pascal_time *out);

/* The fills pascal_model_predict_gemm answers for `shape` with each of the
 * two carries beyond the grid rules[0], rules[1] (predict_gemm.c), from one
 * walk of the static reference: what the edge folds of model_reading.c
 * compare. Inside the grid both are the answer's. */
pascal_status pc_gemm_fills_by_carry(const pascal_model *md, const pascal_gemm_shape *shape,
                                     const pascal_reading rules[2], double fills[2],
                                     pascal_error *err);

/* The fills pascal_model_predict_gemm answers for `shape` read between
 * two reduction lengths by each of rules[k]: md's reading between knots
 * (any other rule), carried by the static reference
 * (PASCAL_READ_STATIC_EXCESS, pascal_gemm_carry; where V_s is silent at
 * both levels the reading between knots stands) or so carried with the
 * lower level's kappa held where V_s is silent (PASCAL_READ_LOWER_LEVEL):
 * what the Kg folds of model_reading.c compare. */
pascal_status pc_gemm_fills_between(const pascal_model *md, const pascal_gemm_shape *shape,
                                    const pascal_reading rules[2], double fills[2],
                                    pascal_error *err);

/* A GEMM query's prediction in its configuration (predict_config.c;
 * pascal/gemm_config.h "Transfer"): the calibration's own where the
 * configuration and the shape are measured ones. */
pascal_status pc_gemm_predict_config(const pascal_model *md, const pascal_gemm_query *q,
                                     pascal_gemm_prediction *out, pascal_gemm_config_answer *ca,
                                     pascal_error *err);

/* Fit the per-k-iteration overhead of the configurations' time on the
 * calibration's configuration runs (gemm_config_fit.c) into
 * m->gemm_time.step_overhead_s; 0 without runs or a calibrated time.
 * Errors of pc_gemm_predict_config for a run. */
pascal_status pc_gemm_fit_step_overhead(pascal_model *m, const pascal_calibration *cal,
                                        pascal_error *err);

/* The advice of a scan prediction whose K, M, fill_bytes and rule are set
 * (predict_advice.c); given only when it predicts divergence. */
void pc_scan_advise(const pascal_device *dev, const pascal_scan_key *key, uint32_t N, double W,
                    const pascal_scan_prediction *p, pascal_scan_advice *out);

#endif
