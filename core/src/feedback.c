/*
 * feedback.c - the limit on cache-mediated catch-up (paper §3.6, Theorem 5):
 * refill cadence P_d (Eq. refill_cadence), overlap Theta and catch-up gain
 * G_d (Eq. catchup_gain), divergence rate phi (Eq. catchup_limit) and the
 * earliest-event recurrence itself (Eq. slot_timing).
 */
#include "pascal/feedback.h"

#include <math.h>
#include <stdio.h>

#define FEEDBACK_D_MAX (UINT32_C(1) << 20)

static pascal_status check_value(double v, double min, int strict, const char *field,
                                 pascal_error *err)
{
  if (!isfinite(v))
    return pascal_error_set(err, PASCAL_EINVAL, field, "%s must be finite", field);
  /* with every time at most 1e300, sums of three of them times d - 1 <= 2^20
   * stay far below DBL_MAX, so no cadence, overlap or gain overflows */
  if (v > PASCAL_FEEDBACK_TIME_MAX)
    return pascal_error_set(err, PASCAL_ERANGE, field, "%s must be at most %g", field,
                            PASCAL_FEEDBACK_TIME_MAX);
  if (strict ? !(v > min) : !(v >= min))
    return pascal_error_set(err, PASCAL_EINVAL, field, "%s must be %s %g", field,
                            strict ? ">" : ">=", min);
  return PASCAL_OK;
}

static pascal_status check_params(const pascal_feedback_params *p, pascal_error *err)
{
  if (!p)
    return pascal_error_set(err, PASCAL_EINVAL, "params", "params is NULL");
  pascal_status st = check_value(p->alpha, 0.0, 0, "alpha", err);
  if (st == PASCAL_OK)
    st = check_value(p->beta, 0.0, 1, "beta", err);
  if (st == PASCAL_OK && (p->d < 2 || p->d > FEEDBACK_D_MAX))
    st =
        pascal_error_set(err, PASCAL_EINVAL, "d", "d must be in [2, %u]", (unsigned)FEEDBACK_D_MAX);
  return st;
}

/* max{alpha + beta, (lambda + beta) / (d - 1)} for checked inputs. */
static double cadence(const pascal_feedback_params *p, double lambda)
{
  double fill = (lambda + p->beta) / (double)(p->d - 1);
  double issue = p->alpha + p->beta;
  return fill > issue ? fill : issue;
}

pascal_status pascal_feedback_cadence(const pascal_feedback_params *p, double lambda, double *out,
                                      pascal_error *err)
{
  pascal_status st = check_params(p, err);
  if (st == PASCAL_OK)
    st = check_value(lambda, 0.0, 0, "lambda", err);
  if (st == PASCAL_OK && !out)
    st = pascal_error_set(err, PASCAL_EINVAL, "cadence", "output pointer is NULL");
  if (st == PASCAL_OK)
    *out = cadence(p, lambda);
  return st;
}

pascal_status pascal_feedback_overlap(const pascal_feedback_params *p, double *overlap,
                                      pascal_error *err)
{
  pascal_status st = check_params(p, err);
  if (st == PASCAL_OK && !overlap)
    st = pascal_error_set(err, PASCAL_EINVAL, "overlap", "output pointer is NULL");
  if (st == PASCAL_OK)
    *overlap = (double)(p->d - 1) * (p->alpha + p->beta) - p->beta;
  return st;
}

pascal_status pascal_feedback_summarize(const pascal_feedback_params *p, double lambda_hit,
                                        double lambda_miss, pascal_feedback_summary *out,
                                        pascal_error *err)
{
  pascal_status st = check_params(p, err);
  if (st == PASCAL_OK)
    st = check_value(lambda_hit, 0.0, 0, "lambda_hit", err);
  if (st == PASCAL_OK)
    st = check_value(lambda_miss, lambda_hit, 0, "lambda_miss", err);
  if (st == PASCAL_OK && !out)
    st = pascal_error_set(err, PASCAL_EINVAL, "out", "output pointer is NULL");
  if (st != PASCAL_OK)
    return st;
  out->cadence_hit = cadence(p, lambda_hit);
  out->cadence_miss = cadence(p, lambda_miss);
  out->overlap = (double)(p->d - 1) * (p->alpha + p->beta) - p->beta;
  /* the closed form ([l_miss - Theta]_+ - [l_hit - Theta]_+) / (d - 1):
   * exactly zero when lambda_miss <= Theta (no rounding residue) */
  double over_miss = fmax(lambda_miss - out->overlap, 0.0);
  double over_hit = fmax(lambda_hit - out->overlap, 0.0);
  out->gain = (over_miss - over_hit) / (double)(p->d - 1);
  return PASCAL_OK;
}

pascal_status pascal_feedback_gain(const pascal_feedback_params *p, double lambda_hit,
                                   double lambda_miss, double *gain, pascal_error *err)
{
  pascal_feedback_summary s;
  pascal_status st = pascal_feedback_summarize(p, lambda_hit, lambda_miss, &s, err);
  if (st == PASCAL_OK && !gain)
    st = pascal_error_set(err, PASCAL_EINVAL, "gain", "output pointer is NULL");
  if (st == PASCAL_OK)
    *gain = s.gain;
  return st;
}

pascal_status pascal_feedback_divergence(const pascal_feedback_params *w1, double lambda_miss_1,
                                         const pascal_feedback_params *w2, double lambda_hit_2,
                                         double *phi, pascal_error *err)
{
  pascal_status st = check_params(w1, err);
  if (st == PASCAL_OK)
    st = check_params(w2, err);
  if (st == PASCAL_OK)
    st = check_value(lambda_miss_1, 0.0, 0, "lambda_miss", err);
  if (st == PASCAL_OK)
    st = check_value(lambda_hit_2, 0.0, 0, "lambda_hit", err);
  if (st == PASCAL_OK && !phi)
    st = pascal_error_set(err, PASCAL_EINVAL, "phi", "output pointer is NULL");
  if (st == PASCAL_OK)
    *phi = cadence(w2, lambda_hit_2) - cadence(w1, lambda_miss_1);
  return st;
}

pascal_status pascal_feedback_iterate(const pascal_feedback_params *p, const double *initial,
                                      const double *latency, size_t count, double *issue,
                                      pascal_error *err)
{
  pascal_status st = check_params(p, err);
  if (st != PASCAL_OK)
    return st;
  size_t r = p->d - 1;
  if (count < r)
    return pascal_error_set(err, PASCAL_EINVAL, "count", "count must be at least d - 1 = %zu", r);
  if (!initial || !issue || (count > r && !latency))
    return pascal_error_set(err, PASCAL_EINVAL,
                            !initial ? "initial"
                            : !issue ? "issue"
                                     : "latency",
                            "array pointer is NULL");
  char field[40];
  for (size_t j = 0; j < r; j++) {
    if (!isfinite(initial[j])) {
      snprintf(field, sizeof field, "initial[%zu]", j);
      return pascal_error_set(err, PASCAL_EINVAL, field, "initial issue times must be finite");
    }
  }
  for (size_t k = 0; k + r < count; k++) {
    if (!isfinite(latency[k]) || latency[k] < 0.0 || latency[k] > PASCAL_FEEDBACK_TIME_MAX) {
      snprintf(field, sizeof field, "latency[%zu]", k);
      return pascal_error_set(err, PASCAL_EINVAL, field,
                              "latencies must be finite, >= 0 and at most %g",
                              PASCAL_FEEDBACK_TIME_MAX);
    }
  }
  for (size_t j = 0; j < r; j++)
    issue[j] = initial[j];
  for (size_t k = 0; k + r < count; k++) {
    double wait = issue[k + r - 1] + p->alpha; /* one-index edge */
    double fill = issue[k] + latency[k];       /* r-index edge   */
    issue[k + r] = (wait > fill ? wait : fill) + p->beta;
  }
  return PASCAL_OK;
}
