/*
 * pascal/predict.h - the fitted dynamic model and its predictions (paper
 * section 4, Algorithm predict, Eq. graph, App. C "GEMM instantiation";
 * docs/design.md §4).
 *
 * pascal_model_fit() freezes a calibration into a model: one cumulative
 * traffic curve per (reference size N_j, key z) for a scan, or per reference
 * grid (n_r, n_c) over n_k for GEMM, with PCHIP slopes precomputed. The model
 * copies what it needs; the calibration may be freed afterwards.
 *
 * Scan prediction for key z = (o, path, d, m), size N, horizon W: at each of
 * the (at most two) reference sizes adjacent to N in eta = C/N, the encoded
 * value a_hat_j comes from the first rule that applies:
 *   1 exact   m is a reference of the family: its own a;
 *   2         pooled p = PCHIP of a over the family's distinct m, clamped;
 *   3 graph   same-class references bracket m: a_hat = (1-w) p + w a_lin,
 *             w = g(1/hL+1/hR) / (c0 + g(1/hL+1/hR)), g = 4, c0 from the
 *             adjacent references of any class (Eq. graph);
 *   4 clamp   the class is present but does not bracket m: nearest
 *             same-class reference's a;
 *   5 depth-fallback  the class is absent from the family (or the depth is
 *             not calibrated): the nearest depths d' of the same (o, path)
 *             where 1, 3 or 4 apply, linear in d, clamped;
 *   6 refuse  PASCAL_EREFUSED, message says the class is unidentifiable
 *             (App. C Proposition obstruction). An unknown (o, path) is
 *             refused too, never extrapolated.
 * Then a_hat is linear in eta between the two sizes (clamped outside) and
 * decoded: K = min(M, 1 + [exp a_hat - eps]_+), M = sm_count * o. When a
 * size the query needs refuses (its (o, path) has no reference there, or the
 * class is unidentifiable there), the whole prediction is refused.
 *
 * GEMM prediction for (Mg, Ng, Kg): each reference grid's curve at n_k gives
 * a = log([kappa - 1]_+ + eps), kappa = V / B_0; transfer along log n_c
 * within each reference n_r row, then along log n_r, each step exact at a
 * reference, (p + 4 a_lin)/5 inside a bracket, clamped at the ends; decode
 * K = min(M, K_0 (1 + [exp a - eps]_+)), M = gemm.resident_ctas.
 *
 * A scan whose whole operand fits in the cache (N <= C) reads no curve: its
 * fills are the N cold misses only, K = min(M, 1/W) (rule resident).
 *
 * Every prediction also says what it extrapolates (each coordinate outside
 * the range of the references it read, and whether the model clamped it or
 * held a curve at its end), a scan prediction with K > 1.05 carries the
 * advice of Theorem coherence (predict_advice.c), and `expected` is left for
 * pascal/validation.h to fill from the calibration's own validation.
 *
 * Thread safety: predictions read a const model, allocate nothing and keep
 * no state; any number of threads may predict from one model concurrently.
 */
#ifndef PASCAL_PREDICT_H
#define PASCAL_PREDICT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pascal/calibration.h"
#include "pascal/curve.h"
#include "pascal/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Anchored-interpolation weight gamma of Eq. graph. */
#define PASCAL_GRAPH_GAMMA 4.0

typedef struct pascal_model pascal_model; /* opaque, immutable once fitted */

/* Fit every curve of `cal` (which must pass pascal_calibration_check and hold
 * at least one run). *out is a new model the caller frees with
 * pascal_model_free(). Errors name the run or field at fault. */
pascal_status pascal_model_fit(const pascal_calibration *cal, pascal_model **out,
                               pascal_error *err);
void pascal_model_free(pascal_model *model);

typedef enum pascal_rule {
  PASCAL_RULE_EXACT = 0,          /* the target is a reference            */
  PASCAL_RULE_GRAPH = 1,          /* anchored interpolation in a bracket   */
  PASCAL_RULE_CLAMP = 2,          /* nearest reference (no bracket)        */
  PASCAL_RULE_DEPTH_FALLBACK = 3, /* borrowed from neighbouring depths     */
  PASCAL_RULE_RESIDENT = 4        /* scan with N <= C: the closed form      */
} pascal_rule;

/* "exact", "graph", "clamp", "depth-fallback", "resident". */
const char *pascal_rule_name(pascal_rule rule);

/* ---- what an answer says about itself ------------------------------------ */

/* A query coordinate the calibration spans (scan: N, W, m, d; GEMM: the
 * tile counts n_r, n_c, n_k). */
typedef enum pascal_coordinate {
  PASCAL_COORD_N = 0,
  PASCAL_COORD_W = 1,
  PASCAL_COORD_M = 2,
  PASCAL_COORD_D = 3,
  PASCAL_COORD_N_R = 4,
  PASCAL_COORD_N_C = 5,
  PASCAL_COORD_N_K = 6
} pascal_coordinate;
/* The number of coordinates (a workload that adds one extends both). */
#define PASCAL_COORDINATES 7

/* "N", "W", "m", "d", "n_r", "n_c", "n_k". */
const char *pascal_coordinate_name(pascal_coordinate c);

/* What the model does with a coordinate outside its calibrated range. */
typedef enum pascal_extrapolation_action {
  PASCAL_EXTRAP_CLAMPED = 0,     /* the value of the nearest reference is used
                                    (m, depths; a scan's N above the largest
                                    size at W <= 1; GEMM n_r, n_c where the
                                    static reference cannot be walked)       */
  PASCAL_EXTRAP_HELD = 1,        /* the curve is held at its end value
                                    (horizon W below the first; GEMM n_k
                                    where the static reference cannot be
                                    walked)                                  */
  PASCAL_EXTRAP_LINEAR = 2,      /* the excess is carried on linearly: in
                                    eta = C/N from the two nearest sizes (a
                                    scan's N below the smallest size; its
                                    time's fit values stay clamped), in
                                    -1/W along the last segment's onset law
                                    (a scan's W above the last horizon)      */
  PASCAL_EXTRAP_SAME_SLOT = 3,   /* a scan's N above the largest size at
                                    W > 1: the largest size's curve read at
                                    the same blocks per slot, the horizon
                                    W N / N_max (its time's fit values
                                    clamped)                                 */
  PASCAL_EXTRAP_STATIC_RATIO = 4 /* GEMM n_r, n_c, n_k outside the grid:
                                    the nearest reference's excess fills
                                    over B_0 times the ratio of the
                                    raster's static reference's excesses
                                    V_s - B_0 at the query and at the
                                    reference, in [B_0, Q] (predict_gemm.c) */
} pascal_extrapolation_action;
#define PASCAL_EXTRAP_ACTIONS 5

/* "clamped", "held-at-end", "linear", "same-blocks-per-slot",
 * "static-ratio". */
const char *pascal_extrapolation_action_name(pascal_extrapolation_action a);

/* One coordinate of the query outside the range the answer's references
 * were calibrated on: [min, max] is the range within which none of the
 * references the answer read is extrapolated. */
typedef struct pascal_extrapolation {
  pascal_coordinate coordinate;
  double value, min, max;
  pascal_extrapolation_action action;
} pascal_extrapolation;

#define PASCAL_EXTRAPOLATION_MAX 4
typedef struct pascal_extrapolations {
  size_t n; /* 0: the answer interpolates inside the calibration */
  pascal_extrapolation item[PASCAL_EXTRAPOLATION_MAX];
} pascal_extrapolations;

/* How an answer was carried from its nearest references along one
 * coordinate: interpolated between references or extrapolated past them
 * (clamped or held), and how far, in the coordinate's own unit: |log v -
 * log v_ref| for the multiplicative coordinates (N, W, n_r, n_c, n_k), the
 * difference for the additive ones (m, d). A coordinate the answer reads at
 * a reference is not listed. The residual groups of pascal/interval.h are
 * keyed by (coordinate, kind) and scaled by the distance, so a workload
 * states its transfers and its interval follows. */
typedef enum pascal_transfer_kind {
  PASCAL_TRANSFER_INTERP = 0,  /* between references                 */
  PASCAL_TRANSFER_EXTRAP = 1,  /* past the last reference on one side */
  PASCAL_TRANSFER_ONE_PASS = 2 /* W between one pass (W = 1) and the first
                                  horizon above it, read in the excess
                                  coordinate (pascal_curve_excess): another
                                  rule, so another residual group        */
} pascal_transfer_kind;
#define PASCAL_TRANSFER_KINDS 3

/* "interpolated", "extrapolated", "interpolated-from-one-pass". */
const char *pascal_transfer_kind_name(pascal_transfer_kind kind);

typedef struct pascal_transfer {
  pascal_coordinate coordinate;
  pascal_transfer_kind kind;
  double distance;                    /* > 0: from the nearest reference read */
  pascal_extrapolation_action action; /* kind extrapolated: what was done past
                                         the reference (the extrapolated item
                                         of the coordinate; its residuals are
                                         grouped apart); 0 otherwise          */
} pascal_transfer;

#define PASCAL_TRANSFERS_MAX 6
typedef struct pascal_transfers {
  size_t n; /* 0: every coordinate at a reference */
  pascal_transfer item[PASCAL_TRANSFERS_MAX];
  bool aligned; /* a scan's references read give no excess: K is
                   aligned K = 1 exactly. Such answers err apart (most
                   not at all), so their residuals form their own group
                   (pascal/interval.h). A GEMM's stays false: its folds
                   cover worse with the split (docs/expected-error.md) */
} pascal_transfers;

/* Where an expected error came from (pascal/validation.h). */
typedef enum pascal_error_source {
  PASCAL_ERRSRC_NONE = 0,      /* no validated key fits: unknown          */
  PASCAL_ERRSRC_LOKO = 1,      /* leave-one-key-out fold errors            */
  PASCAL_ERRSRC_IN_SAMPLE = 2, /* the reference's own runs (exact answers) */
  PASCAL_ERRSRC_HELD_OUT = 3,  /* a held-out validation panel              */
  PASCAL_ERRSRC_INTERVAL = 4,  /* the mean error of the answer's interval
                                  groups (pascal/interval.h), where larger  */
  PASCAL_ERRSRC_RESIDENCY = 5  /* the capacity probe's bracket of the share
                                  refetched (pascal_scan_residency), where
                                  larger                                    */
} pascal_error_source;

/* "none", "loko", "in-sample", "held-out", "interval", "residency". */
const char *pascal_error_source_name(pascal_error_source s);

/* How far to trust an answer: the measured error (percent, mean |pred/obs -
 * 1|) of the same rule on the nearest validated keys. NaN with source NONE
 * until pascal_validation_expect_*() fills it. */
#define PASCAL_EXPECTED_KEYS_MAX 2
typedef struct pascal_expected_error {
  double pct;
  pascal_error_source source;
  pascal_rule rule; /* the answer's rule, whose validation errors are
                       looked for                                       */
  unsigned widened; /* 0: same rule, same family (o, path, d) (GEMM: the
                       calibrated grids); 1: same rule, nearest other
                       depth of (o, path); 2: any rule (nearest depth)  */
  size_t n_keys;    /* validated keys averaged: 0 .. 2                  */
  pascal_scan_key key[PASCAL_EXPECTED_KEYS_MAX]; /* scan keys used        */
  uint32_t Mg[PASCAL_EXPECTED_KEYS_MAX], Ng[PASCAL_EXPECTED_KEYS_MAX];
  double key_pct[PASCAL_EXPECTED_KEYS_MAX];
} pascal_expected_error;

/* What restores sharing when an answer predicts divergence (K > 1.05),
 * by Theorem coherence: with every worker's lead over any other at most
 * sigma_max requests, C >= 2 sigma_max - 1 keeps every repeated request a
 * hit. A within-wave checkpoint (all resident CTAs wait every
 * checkpoint_blocks blocks) bounds the lead by checkpoint_blocks plus the
 * d - 1 copies a TMA pipeline issues ahead. */
#define PASCAL_DIVERGENCE_K 1.05
typedef struct pascal_scan_advice {
  bool given;                 /* K > PASCAL_DIVERGENCE_K on a curve rule    */
  uint64_t sigma_max;         /* floor((C + 1) / 2)                          */
  uint64_t min_capacity;      /* 2 sigma_max - 1 <= C                        */
  uint64_t checkpoint_blocks; /* sigma_max - (d - 1) for tma, sigma_max sync */
  double K_coherent;          /* Eq. coherent_traffic: 1 + (M-1) sigma / E,
                                 E = M W N requests                          */
  double fill_bytes_coherent; /* K_coherent b W N                            */
  double fill_bytes_at_k1;    /* the same kernel at K = 1: b W N             */
  double fill_bytes_at_stake; /* fill_bytes - fill_bytes_coherent            */
} pascal_scan_advice;

/* How one family (o, path, d) at one reference size produced its value by
 * rule 1, 3 or 4. Unused numbers are NaN, unused m are 0. */
typedef struct pascal_family_step {
  uint32_t d;               /* depth of the family                                */
  pascal_rule rule;         /* EXACT, GRAPH or CLAMP                              */
  double a;                 /* the family's a_hat                                 */
  double p;                 /* pooled PCHIP estimate at m (GRAPH)                 */
  double a_lin;             /* same-class linear interpolation (GRAPH)            */
  double omega;             /* weight of a_lin (GRAPH)                            */
  double c0;                /* 1/(m - m_minus) + 1/(m_plus - m) (GRAPH)           */
  uint32_t m_left;          /* same-class reference left of m (GRAPH), the clamp
                               reference (CLAMP), m itself (EXACT)                */
  uint32_t m_right;         /* same-class reference right of m (GRAPH), else as
                               m_left                                             */
  double a_left, a_right;   /* their encoded values                          */
  uint32_t m_minus, m_plus; /* adjacent references of any class (GRAPH)     */
} pascal_family_step;

/* One reference size N_j of a scan prediction. */
typedef struct pascal_size_step {
  uint32_t N;       /* reference size N_j                               */
  double eta;       /* C / N_j                                          */
  double weight;    /* weight of a_hat_j in the eta interpolation        */
  pascal_rule rule; /* rule of this size (DEPTH_FALLBACK if borrowed)    */
  double a;         /* a_hat_j                                           */
  size_t n_depths;  /* families used: 1, or 2 when interpolating in d    */
  pascal_family_step depth[2];
  double depth_weight[2]; /* weights of depth[0], depth[1] (sum 1)       */
} pascal_size_step;

/* Between the capacity C and the calibration's smallest size N_min, the
 * part of a scan the L2 keeps from one pass to the next, as the device's
 * capacity probe measured it (docs/design.md 4.4): the probe's fill ratio f
 * at a size (fills over the data scanned once, 1 when it all stays, W_p
 * when every one of its W_p passes refetches it) gives the share of a later
 * pass that refetches, r = (f - 1) / (W_p - 1) clamped to [0, 1]; r is
 * read linearly in N between the points (C, 0), the probe's sizes between
 * C and N_min, and (N_min, 1), and the answer's K is the first pass's
 * compulsory fills plus r of what the later passes refetch at the
 * calibrated sizes: K = 1/W + r (K_refetching - 1/W). The bracket's two
 * points bound r (the probe says nothing of the shape between them); the
 * interval reads them. Read only for W > 1 with a probe of two waves or
 * more, and only where some point of the bracket is below 1. */
typedef struct pascal_scan_residency {
  bool read;           /* false: the curves' K alone (the rest zero)       */
  double refetch;      /* r at N                                            */
  double refetch_low;  /* r at the bracket's two points, lower and higher   */
  double refetch_high; /*                                                    */
  uint32_t N_low;      /* the bracket: C, a probe size or N_min             */
  uint32_t N_high;     /*                                                    */
  double K_refetching; /* the curves' K at N: every later pass refetching   */
  double K_low;        /* K with r at the bracket's lower and higher point  */
  double K_high;       /*                                                    */
} pascal_scan_residency;

typedef struct pascal_scan_explanation {
  pascal_rule rule; /* least direct rule over the sizes used:
                       EXACT < GRAPH < CLAMP < DEPTH_FALLBACK              */
  uint32_t o;       /* family (o, path, d) of the query                   */
  pascal_path path;
  uint32_t d;
  unsigned class_id; /* chi(m) under the calibration's class rule         */
  double eta;        /* C / N of the query                                */
  size_t n_sizes;    /* 1 (exact size or clamped) or 2                    */
  pascal_size_step size[2];
  double a;                        /* final a_hat after the eta interpolation            */
  pascal_scan_residency residency; /* C < N < N_min with a capacity probe */
} pascal_scan_explanation;

typedef struct pascal_scan_prediction {
  double K;          /* predicted fill-equivalent count, in [1, M]; with
                        N <= C (rule resident) min(M, 1/W); where the
                        capacity probe is read (why.residency) in
                        [1/W, M]                                           */
  double rho;        /* K / M                                              */
  double fill_bytes; /* K * b * W * N                                      */
  uint32_t M;        /* sm_count * o                                       */
  pascal_scan_explanation why;
  pascal_extrapolations extrapolated;
  pascal_transfers transfers; /* empty for rule resident (no reference read) */
  pascal_scan_advice advice;
  pascal_expected_error expected; /* filled by pascal_validation_expect_scan */
} pascal_scan_prediction;

/* Predict key at size N >= 1 and horizon W > 0 (finite). PASCAL_EINVAL for a
 * malformed query (field "o", "path", "d", "m", "N", "W"; sync needs d = 0,
 * tma d >= 1),
 * PASCAL_ERANGE (field "W") when the fill bytes K b W N overflow a double,
 * PASCAL_EINVAL if the model is a GEMM model (field "workload"),
 * PASCAL_EREFUSED for an unknown (o, path) or an unidentifiable class, with a
 * message saying which. `out` is written only on success. */
pascal_status pascal_model_predict_scan(const pascal_model *model, const pascal_scan_key *key,
                                        uint32_t N, double W, pascal_scan_prediction *out,
                                        pascal_error *err);

/* Readings each calibration chooses at fit time on its own runs, from two
 * candidates (the workload's default first): folds that hold runs out and
 * read them back both ways; the alternative replaces the default only when
 * its mean error is lower (docs/design.md 4.1, 4.5).
 *
 * Between two calibrated knots (a scan's horizons above one pass, a GEMM's
 * reduction lengths), each interior knot of each curve held out: scan
 * default the onset law, alternative the paper's curve S; GEMM default S,
 * alternative the excess coordinate linear in log n_k.
 *
 * Beyond the GEMM grid (n_r, n_c or n_k outside the references), the
 * largest and the smallest row, column and reduction length held out in
 * turn: default the nearest reference's excess over B_0 carried by the
 * static reference's excess (V - B_0 = (V_ref - B_0,ref) (V_s - B_0) /
 * (V_s,ref - B_0,ref)), alternative all of V carried by V_s (V = V_ref
 * V_s / V_s,ref); both within [B_0, Q].
 *
 * Between two calibrated reduction lengths of a GEMM, on top of the reading
 * between knots, each interior Kg of the calibration held out in turn:
 * default that reading, alternative the excess carried by the query's own
 * static reference (PASCAL_READ_STATIC_EXCESS): the answer at the two
 * reduction lengths around the query's, each as a share of V_s's excess
 * there, the share linear in log n_k between them, times V_s's excess at
 * the query (pascal_gemm_carry).
 *
 * Where that carry is chosen and V_s refetches under 0.1 B_0 at both
 * reduction lengths around the query (it has nothing to carry), on folds
 * that hold out each interior Kg, and each interior grid (its Mg and Ng
 * strictly inside the calibrated ones) together with each interior Kg:
 * default the reading between knots, alternative the lower level's kappa
 * held (PASCAL_READ_LOWER_LEVEL: the static reference says the tiles the
 * longer panel adds stay in the cache).
 *
 * A scan's m between two references of its execution class (rule graph),
 * each reference m with same-class references on both sides among the rest
 * of its family held out at every size and knot, read back from the rest:
 * default the paper's anchored interpolation (PASCAL_READ_ANCHORED, weight
 * gamma = PASCAL_GRAPH_GAMMA on the same-class line), alternative the
 * pooled PCHIP over every m alone (PASCAL_READ_POOLED, gamma = 0: the class
 * not read). A GEMM's is the default with no point. */
typedef enum pascal_reading {
  PASCAL_READ_LAW = 0,           /* the onset law e = A max(0, 1 - W_0 / W) */
  PASCAL_READ_CURVE = 1,         /* the paper's curve S (PCHIP of log(x K)) */
  PASCAL_READ_LINEAR = 2,        /* the excess coordinate linear in log x   */
  PASCAL_READ_EXCESS_RATIO = 3,  /* beyond the grid: the excess ratio       */
  PASCAL_READ_RATIO = 4,         /* beyond the grid: V / V_s held           */
  PASCAL_READ_STATIC_EXCESS = 5, /* between Kg: the share of V_s's excess  */
  PASCAL_READ_LOWER_LEVEL = 6,   /* between Kg, V_s silent: lower's kappa  */
  PASCAL_READ_ANCHORED = 7,      /* m, rule graph: the paper's gamma       */
  PASCAL_READ_POOLED = 8         /* m, rule graph: the pooled PCHIP alone  */
} pascal_reading;

typedef struct pascal_reading_choice {
  pascal_reading rule;         /* the reading the model answers with       */
  pascal_reading candidate[2]; /* the workload's default, its alternative */
  double fold_pct[2];          /* mean |predicted / measured - 1| (%) of K
                                  (between) or of the fills (beyond) per
                                  candidate, NAN without a point           */
  size_t points;               /* held-out points scored                   */
} pascal_reading_choice;

/* One interpolation step of a GEMM transfer (along n_c or n_r). */
typedef struct pascal_gemm_step {
  pascal_rule rule;     /* EXACT, GRAPH ((p + 4 a_lin)/5) or CLAMP            */
  uint32_t left, right; /* reference tile counts bracketing the target (GRAPH),
                           the reference used (EXACT, CLAMP: left == right)   */
  double a_left, a_right;
  double p;     /* pooled PCHIP over log tile count (GRAPH, else NaN) */
  double a_lin; /* linear in log tile count (GRAPH, else NaN)         */
  double a;     /* result of the step                                 */
} pascal_gemm_step;

/* The excess between two calibrated reduction lengths carried by the
 * query's static reference (PASCAL_READ_STATIC_EXCESS): the answer at n_k[0]
 * and n_k[1] (the levels around the query's) read as usual, each a share
 * (kappa - 1) / (kappa_s - 1) of V_s's excess there (NAN where V_s refetches
 * less than 0.1 B_0 and says nothing), the share linear in log n_k between
 * them (the one there is where only one is set), times kappa_s - 1 at the
 * query: kappa = 1 + share (kappa_s - 1), within [1, Q / B_0]. Where V_s
 * is silent at both levels and the calibration chose it (model.
 * between_silent), the answer holds the lower level's kappa instead
 * (PASCAL_READ_LOWER_LEVEL; both shares and kappa_s NAN: V_s is not walked
 * at the query, silent there as at the upper level). Beyond the grid, where the
 * answer is its nearest reference's fills carried by V_s, it is the
 * reference's carry (how those fills were read). */
typedef struct pascal_gemm_carry {
  bool carried;           /* the answer is the carry (else n_k is a level,
                             outside them, or V_s is silent at both and
                             the reading between knots stands)          */
  pascal_reading reading; /* PASCAL_READ_STATIC_EXCESS or _LOWER_LEVEL    */
  uint32_t n_k[2];        /* the reduction levels read, in tiles          */
  double share[2];        /* the excess shares there                      */
  double kappa_s;         /* V_s / B_0 at the query (NAN if not walked)   */
} pascal_gemm_carry;

typedef struct pascal_gemm_explanation {
  pascal_rule rule;        /* least direct rule over all steps            */
  size_t n_rows;           /* reference n_r rows used: 1 or 2             */
  uint32_t row_n_r[2];     /* those rows                                  */
  pascal_gemm_step col[2]; /* transfer along log n_c within each row      */
  pascal_gemm_step row;    /* then along log n_r                          */
  double a;                /* final encoded value                          */
  pascal_gemm_carry carry; /* between reduction lengths, where chosen     */
} pascal_gemm_explanation;

typedef struct pascal_gemm_prediction {
  uint32_t n_r, n_c, n_k; /* Mg/tile_m, Ng/tile_n, Kg/tile_k                 */
  double B0;              /* n_k (n_r tile_m + n_c tile_n) tile_k elem_bytes bytes  */
  double Q;               /* n_r n_c n_k (tile_m + tile_n) tile_k elem_bytes bytes  */
  double K0;              /* M B0 / Q = M (n_r + n_c) / (2 n_r n_c) for square tiles */
  double kappa;           /* K / K0 = V / B0                                       */
  double K;               /* predicted count, in [K0, M]                           */
  double rho;             /* K / M = V / Q                                         */
  double fill_bytes;      /* predicted V = kappa B0                                */
  uint32_t M;             /* resident CTAs                                         */
  pascal_gemm_explanation why;
  pascal_extrapolations extrapolated;
  pascal_transfers transfers;
  pascal_expected_error expected; /* filled by pascal_validation_expect_gemm */
} pascal_gemm_prediction;

/* Tile counts and static references of a shape (no model needed):
 * n_r, n_c, n_k, B0, Q and K0 of `out` are written, the rest zeroed.
 * PASCAL_EINVAL naming "Mg", "Ng" or "Kg" when a dimension is 0 or not a
 * multiple of its tile, or "gemm.*" for bad tiling. */
pascal_status pascal_gemm_geometry(const pascal_gemm_params *gemm, const pascal_gemm_shape *shape,
                                   pascal_gemm_prediction *out, pascal_error *err);

/* Predict a GEMM shape. PASCAL_EINVAL for a bad shape (as above) or a scan
 * model (field "workload"). `out` is written only on success. */
pascal_status pascal_model_predict_gemm(const pascal_model *model, const pascal_gemm_shape *shape,
                                        pascal_gemm_prediction *out, pascal_error *err);

/* ---- read-only view of the frozen model, for serialisation ---------------- */

/* The model's reading between knots, and (GEMM; a scan's is the default
 * with no point) beyond the grid, with the folds that chose them. A model
 * fitted leaving runs out for a fold takes the full model's choices. */
void pascal_model_between(const pascal_model *model, pascal_reading_choice *out);
void pascal_model_beyond(const pascal_model *model, pascal_reading_choice *out);
/* GEMM: the carry between two reduction lengths (a scan's is its between
 * reading with no point). */
void pascal_model_between_static(const pascal_model *model, pascal_reading_choice *out);
/* GEMM with that carry: the reading where V_s is silent at both levels (a
 * scan's, or without the carry, its between reading with no point). */
void pascal_model_between_silent(const pascal_model *model, pascal_reading_choice *out);
/* The scan's reading in m between same-class references (a GEMM's is the
 * default with no point). */
void pascal_model_graph(const pascal_model *model, pascal_reading_choice *out);

/* "law", "curve", "linear", "excess-ratio", "ratio", "static-excess",
 * "lower-level", "anchored" or "pooled". */
const char *pascal_reading_name(pascal_reading rule);

const pascal_device *pascal_model_device(const pascal_model *model);
pascal_workload pascal_model_workload(const pascal_model *model);
const pascal_gemm_params *pascal_model_gemm(const pascal_model *model);

/* One fitted curve. Scan: key and N are set, the knots are x = log W.
 * GEMM: n_r and n_c (the grid) are set, the knots are x = log n_k and the
 * curve is of log(n_k kappa). `curve` points into the model. */
typedef struct pascal_curve_view {
  pascal_scan_key key; /* scan */
  uint32_t N;          /* scan */
  uint32_t n_r, n_c;   /* gemm */
  const pascal_curve *curve;
} pascal_curve_view;

/* Curves in a deterministic order (scan: by N, o, path, d, m; GEMM: by n_r,
 * n_c). pascal_model_curve() returns PASCAL_ENOTFOUND (field "index") past the
 * end. */
size_t pascal_model_curve_count(const pascal_model *model);
pascal_status pascal_model_curve(const pascal_model *model, size_t index, pascal_curve_view *out,
                                 pascal_error *err);

#ifdef __cplusplus
}
#endif
#endif
