/*
 * pascal/interval.h - prediction intervals: how far the measured K (and
 * kernel time) of a query may lie from its answer, at a stated level, from
 * the calibration's own out-of-fold residuals and repeats (paper section
 * 4.4, whose leave-one-key-out folds this reuses run by run;
 * docs/expected-error.md derives it and states its limits).
 *
 * A residual is log(measured / predicted) of one calibration run predicted
 * by a model that never saw it: a leave-one-key-out fold (a scan key, a GEMM
 * grid) or a level fold (every run at one horizon W, size N or reduction
 * length Kg left out; residuals.c). It keeps the transfers of its prediction
 * (pascal_transfers, pascal/predict.h: which coordinates were interpolated
 * or extrapolated, how far). A residual with exactly one transfer is
 * evidence about that transfer alone: it enters the group (coordinate,
 * kind) as the rate log-ratio / distance, and an extrapolated one also
 * the group of its action (coordinate, action): a scan's N below the
 * smallest size (carried on linearly) and above the largest (read at the
 * same blocks per slot, or clamped at one pass) err differently. The W
 * transfer of an answer read at the same blocks per slot is entailed by
 * its N transfer (the horizon read is W N / N_max, shifted by the N
 * distance): it does not count as a transfer of its own there, so such a
 * residual is evidence about the N transfer. A residual whose prediction
 * read no excess (pascal_transfers.aligned: K is aligned K exactly) is
 * evidence about none of its transfers: it enters the aligned group
 * instead, as its log-ratio (most are exact, the truth also aligned, and
 * the others err by the excess the references missed, not by a rate per
 * unit distance). Repeated runs of one
 * configuration (calibration or held-out panel) give the run-to-run spread
 * (the noise group). Neither panel's predictions enter: both score the
 * intervals out of sample (pascal_coverage below).
 *
 * An answer's interval of K, for each of its transfers, takes its group's
 * bounds times the answer's distance: for an extrapolated group the
 * (1 - level)/2 and (1 + level)/2 quantiles of the rate (a held or clamped
 * value errs on the side the curve moves on to), for an interpolated one
 * (and W from one pass) -+ the level quantile of |rate| (an interpolant's
 * error changes sign along the curve, so only its size carries over);
 * so it widens with the distance, the farther past the last reference the
 * wider, each side at least 0 (the interval holds the answer); an
 * answer that read no excess takes the aligned group's quantiles instead,
 * whatever it transferred (with fewer than PASCAL_INTERVAL_MIN_RESIDUALS
 * there, its transfers' groups as below); several transfers take the
 * widest per side (the folds that hold out a key and a level at once, the
 * only residuals with two transfers, cover 79-88 % so and 82-93 % in
 * quadrature: the errors of two reads are not independent,
 * docs/expected-error.md); the noise group's quantiles are the floor (a new run varies
 * that much even at a reference), and off its references no half-width is
 * below PASCAL_INTERVAL_FLOOR. An extrapolated transfer reads its
 * action's group; with fewer than PASCAL_INTERVAL_MIN_RESIDUALS rates
 * there, the group of its coordinate's extrapolations of every action
 * (and an entailed W transfer then counts on its own).
 * A group with fewer than
 * PASCAL_INTERVAL_MIN_RESIDUALS rates borrows the other kind of the same
 * coordinate (extrapolated from interpolated and back, from one pass from
 * interpolated), then the widest
 * group in log units at distance 1, and says so (`borrowed`). An answer at
 * its references (no transfer) has the noise group's interval, or none
 * (zero width) when the calibration has no repeated runs: what it measured
 * is what it answers. The interval of time is the quantiles of every
 * residual's time (the folds' own time models), whatever the answer
 * transferred, with the same floors: the time's error is its fit's, which
 * does not grow with the distance as K's does.
 *
 * Everything is computed once when a model is loaded; an interval is a
 * lookup of at most PASCAL_TRANSFERS_MAX groups (no allocation), so any
 * number of threads may compute intervals from one calibration at once.
 */
#ifndef PASCAL_INTERVAL_H
#define PASCAL_INTERVAL_H

#include <stdbool.h>
#include <stddef.h>

#include "pascal/calibration.h"
#include "pascal/error.h"
#include "pascal/predict.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The stated level of every interval. */
#define PASCAL_INTERVAL_LEVEL         0.8
/* A group with fewer rates than this borrows (see above). */
#define PASCAL_INTERVAL_MIN_RESIDUALS 8
/* The least half-width, in log units (about 1 %), of an answer that is not
 * at its references: a stated floor, not fitted to any panel. */
#define PASCAL_INTERVAL_FLOOR         0.01

/* What an interval bounds: the fill-equivalent count K (and with it the
 * fill bytes) or the kernel time. */
typedef enum pascal_interval_quantity {
  PASCAL_INTERVAL_K = 0,
  PASCAL_INTERVAL_TIME = 1,
  PASCAL_INTERVAL_QUANTITIES = 2
} pascal_interval_quantity;

/* One out-of-sample run. */
typedef struct pascal_residual {
  pascal_transfers transfers;                   /* of its prediction            */
  size_t run;                                   /* the calibration run it
                                                   predicts (an index below
                                                   pascal_calibration_run_count) */
  double log_ratio[PASCAL_INTERVAL_QUANTITIES]; /* log(measured / predicted);
                                                   NaN when not measured (an
                                                   untimed run's time)          */
} pascal_residual;

/* The summary of one group, per quantity. */
typedef struct pascal_interval_group {
  size_t n[PASCAL_INTERVAL_QUANTITIES];        /* rates                      */
  double lo[PASCAL_INTERVAL_QUANTITIES];       /* (1 - level)/2 quantile     */
  double hi[PASCAL_INTERVAL_QUANTITIES];       /* (1 + level)/2 quantile     */
  double mean_abs[PASCAL_INTERVAL_QUANTITIES]; /* mean |rate|                */
} pascal_interval_group;

/* The residuals of one calibration and their groups. */
typedef struct pascal_interval_calibration {
  size_t n, cap;
  pascal_residual *items; /* owned */
  size_t n_noise, cap_noise;
  double (*noise)[PASCAL_INTERVAL_QUANTITIES]; /* owned: per quantity, one
                                                  run's deviation (NaN for a
                                                  quantity not measured)   */
  pascal_interval_group group[PASCAL_COORDINATES][PASCAL_TRANSFER_KINDS];  /* [coordinate][kind] */
  pascal_interval_group action[PASCAL_COORDINATES][PASCAL_EXTRAP_ACTIONS]; /* the extrapolated
                                                                            ones, per action */
  pascal_interval_group noise_group;                                       /* one run's deviation */
  pascal_interval_group aligned; /* the log-ratios of the residuals whose
                                    prediction read no excess           */
  pascal_interval_group pooled;  /* every residual's log-ratio (the time's
                                    interval: see above)                  */
  pascal_interval_group widest;  /* per quantity, the group of the widest
                                    (hi - lo) among the groups above */
} pascal_interval_calibration;

/* The residuals and groups of `cal` (its folds and repeats, residuals.c),
 * finished. Errors: an invalid calibration (named field), ENOMEM. A fold
 * the model cannot be fitted without gives no residual. Release with
 * pascal_interval_free() (also after a failure). */
pascal_status pascal_interval_build(const pascal_calibration *cal, pascal_interval_calibration *out,
                                    pascal_error *err);

/* Add one residual (its log-ratio of K must be finite: field
 * "log_ratio"), or one repeat pair's log(run a / run b) (K finite, time
 * finite or NaN), which enters the noise group as +-ratio / sqrt 2: the
 * spread of one run about its configuration's level (a difference of two
 * runs has twice its variance). ENOMEM. */
pascal_status pascal_interval_add(pascal_interval_calibration *c, const pascal_residual *r,
                                  pascal_error *err);
pascal_status pascal_interval_add_noise(pascal_interval_calibration *c,
                                        const double log_ratio[PASCAL_INTERVAL_QUANTITIES],
                                        pascal_error *err);
/* Summarise the groups (after the last add; may be called again). ENOMEM. */
pascal_status pascal_interval_finish(pascal_interval_calibration *c, pascal_error *err);
void pascal_interval_free(pascal_interval_calibration *c);

/* How far the truth may lie from an answer with transfers t, per quantity,
 * in log units relative to the answer: [value e^lo, value e^hi]. */
typedef struct pascal_interval_bounds {
  double level;                           /* PASCAL_INTERVAL_LEVEL        */
  double lo[PASCAL_INTERVAL_QUANTITIES];  /* <= 0                          */
  double hi[PASCAL_INTERVAL_QUANTITIES];  /* >= 0                          */
  size_t n_residuals;                     /* K rates behind it (its groups,
                                             borrowed ones included)       */
  double mean_abs;                        /* K: its groups' mean |rate| times
                                             the distances, the largest (the
                                             aligned group's mean |log-ratio|
                                             for an aligned answer; log
                                             units; 0: no transfer)        */
  unsigned borrowed;                      /* transfers whose group was too
                                             small and borrowed            */
  bool known[PASCAL_INTERVAL_QUANTITIES]; /* false: no residual at all of
                                             this quantity (lo = hi = NaN) */
} pascal_interval_bounds;

void pascal_interval_bounds_of(const pascal_interval_calibration *c, const pascal_transfers *t,
                               pascal_interval_bounds *out);

/* Widen the K bounds of b, an answer with transfers t, to hold the
 * log-ratio `to` (another answer relative to this one: aligned K = 1 where
 * the answer's family loses to it in its leave-one-key-out folds,
 * pascal/answer.h); true when that widened them. Only an answer that
 * transfers across keys (m or d of a scan, the grid n_r, n_c of a GEMM) is
 * widened: those folds held keys out, so their verdict is about such
 * transfers; an answer read on its own calibrated key's curves is not
 * what lost there. */
bool pascal_interval_widen_k(pascal_interval_bounds *b, const pascal_transfers *t, double to);

/* Narrow the K bounds of b, an answer of K, to the K a run can measure,
 * [K_min, K_max]: for a scan at least one fill per block it touches
 * (K_min = 1 / max(W, 1)) and at most every worker missing every block
 * (K_max = M); for a GEMM between K_0 (each operand tile filled once) and
 * M (every tile read missing). True when that narrowed them. Nothing is
 * done when K itself lies outside the range or b has no K bounds. */
bool pascal_interval_clip_k(pascal_interval_bounds *b, double K, double K_min, double K_max);

/* That range for an answer of workload w into range[2]: a scan's
 * [1 / max(W, 1), M], a GEMM's [K_0, M] (W unused); an attention launch's
 * K counts its queries too, for which none is stated: NaN, which
 * pascal_interval_clip_k leaves alone. The answers and the panels'
 * coverage both take it from here. */
void pascal_interval_k_range(pascal_workload w, double W, double M, double K0, double range[2]);

/* The bounds of an answer of K with transfers t, as the answers and the
 * panels' coverage both state them: its groups' bounds
 * (pascal_interval_bounds_of), reaching to the aligned answer K_aligned
 * when `loses` (pascal_interval_widen_k), within what a run can measure,
 * k_range (pascal_interval_clip_k). Where a scan read the capacity probe
 * (res, NULL or not read otherwise; its horizon W) those bounds are the
 * curves' K's, res->K_refetching, carried through the bracket's two shares
 * refetched to bounds of K. True when the loss widened them. */
bool pascal_interval_answer_bounds(const pascal_interval_calibration *c, const pascal_transfers *t,
                                   double K, double K_aligned, bool loses, const double k_range[2],
                                   const pascal_scan_residency *res, double W,
                                   pascal_interval_bounds *out);

/* The one transfer r is evidence about (its only transfer not entailed by
 * another), whose group it enters; NULL when it has none or several, or
 * when its prediction read no excess (the aligned group's). */
const pascal_transfer *pascal_residual_evidence(const pascal_residual *r);

/* The group index a transfer reads, for reports: its coordinate and kind. */
const pascal_interval_group *pascal_interval_group_of(const pascal_interval_calibration *c,
                                                      pascal_coordinate coordinate,
                                                      pascal_transfer_kind kind);

/* ---- coverage: how the intervals hold on a panel -------------------------
 *
 * The runs of a panel (held-out or off-grid: never in any fold) are
 * predicted by the model of all calibration runs and grouped by what their
 * answers transferred: the set of (coordinate, kind) of their transfers, a
 * signature with bit PASCAL_SIGNATURE_BIT(coordinate, kind) per transfer
 * (0: every coordinate at a reference). Per group and over all: the share of runs whose
 * measured K lies inside the answer's interval, the median K_high / K_low,
 * and the run-mean |pred/obs - 1| of PASCAL and of aligned K = 1 (K_0 for
 * GEMM), the baseline an answer must beat. */

/* One scored run of a panel. */
typedef struct pascal_covered_run {
  unsigned signature;             /* pascal_transfer_signature            */
  double K_obs, K, K_low, K_high; /* measured, answered, its interval     */
  double K_aligned;               /* aligned K = 1 (K_0 for GEMM)         */
  double t_obs, t_low, t_high;    /* kernel time and its interval, s; NaN
                                     when the run or the answer is untimed */
} pascal_covered_run;

#define PASCAL_COVERAGE_GROUPS_MAX 16
/* The group of the runs whose signature found no free group. */
#define PASCAL_COVERAGE_OTHER      0xffffffffu

typedef struct pascal_coverage_group {
  unsigned signature;
  size_t n_runs, n_covered;         /* K inside [K_low, K_high]               */
  size_t n_timed, n_time_covered;   /* timed runs, time inside its interval   */
  double median_ratio;              /* median K_high / K_low                  */
  double mape_pascal, mape_aligned; /* percent, mean over the runs          */
} pascal_coverage_group;

typedef struct pascal_coverage {
  double level;              /* PASCAL_INTERVAL_LEVEL; 0: not scored   */
  pascal_coverage_group all; /* every scored run (signature 0)         */
  size_t n_groups;           /* by signature, ascending ("other" last) */
  pascal_coverage_group group[PASCAL_COVERAGE_GROUPS_MAX];
} pascal_coverage;

#define PASCAL_SIGNATURE_BIT(coordinate, kind)                                                     \
  (1u << (PASCAL_TRANSFER_KINDS * (coordinate) + (kind)))

/* The signature of the transfers t. */
unsigned pascal_transfer_signature(const pascal_transfers *t);

/* A signature in words: "at references", "other", else its transfers
 * joined by ", " ("m interpolated, W extrapolated"), coordinates in the
 * order of pascal_coordinate; truncated to len - 1 bytes. */
void pascal_signature_name(unsigned signature, char *buf, size_t len);

/* Group and score the n runs. Errors: ENOMEM. */
pascal_status pascal_coverage_of(const pascal_covered_run *runs, size_t n, pascal_coverage *out,
                                 pascal_error *err);

#ifdef __cplusplus
}
#endif
#endif
