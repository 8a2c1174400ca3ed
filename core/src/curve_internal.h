/*
 * curve_internal.h - allocation-free pieces of curve.c that the prediction
 * hot path uses directly: local PCHIP evaluation from a window of at most
 * four knots (so a pooled interpolant over a family never needs all its
 * values), and curve evaluation from a precomputed log W.
 */
#ifndef PASCAL_CURVE_INTERNAL_H
#define PASCAL_CURVE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "pascal/curve.h"

/* Largest i in [0, n-2] with x[i] <= t (t already clamped into the range);
 * n >= 2. */
size_t pc_pchip_interval(const double *x, size_t n, double t);

/* The knots [*lo, *hi] whose values the interval i of an n-knot PCHIP
 * (n >= 2) depends on: at most four. */
void pc_pchip_window(size_t n, size_t i, size_t *lo, size_t *hi);

/* Value at t (inside [x_i, x_{i+1}]) of the n-knot PCHIP, given only the
 * values yw[k - lo] = y[k] for k in the window [lo, hi] of interval i.
 * Equal to pascal_pchip_eval() on the full arrays. */
double pc_pchip_eval_window(const double *x, size_t n, size_t i, const double *yw, size_t lo,
                            double t);

/* pascal_curve_fit without the onset (left 0): the model fits it per key
 * over all sizes (model.c), a GEMM grid's curve has none. */
pascal_status pc_curve_fit_knots(const double *W, const double *K, size_t n_obs, pascal_curve *out,
                                 const char *field, pascal_error *err);

/* L at log-horizon lw: S(clamped lw) - clamped lw. */
double pc_curve_log_k_at(const pascal_curve *curve, double lw);

/* a at log-horizon lw as the scan predictor reads it (pascal_curve_excess),
 * with the onset law between two knots above one pass when law_between, or
 * else the paper's curve S there (a calibration's choice, model.c); and
 * whether lw lies strictly between a knot at one pass (W = 1) and the next
 * knot, where the onset law is read (an interval group of its own). */
double pc_curve_excess_at(const pascal_curve *curve, double lw, bool law_between);
bool pc_curve_one_pass_segment(const pascal_curve *curve, double lw);

/* The excess coordinate at lw (clamped to the knots' range) linear in lw
 * between the encoded values of the two knots around it: the GEMM's
 * alternative reading between reduction lengths (PASCAL_READ_LINEAR). */
double pc_curve_excess_linear(const pascal_curve *curve, double lw);
/* The knots above one pass as onset-fit points (pascal_onset_fit): x the
 * blocks per slot W N, e the excess K - 1 >= 0. Writes at most curve->n
 * entries to x and e and returns how many. */
size_t pc_curve_onset_points(const pascal_curve *curve, double N, double *x, double *e);

#endif
