/*
 * pascal/feedback.h - when hits cannot pull a slow worker back (paper §3.6,
 * Theorem 5, Eqs. slot_timing, refill_cadence, catchup_gain, catchup_limit).
 *
 * A pipelined copy loop of depth d >= 2 (r = d - 1 copies in flight) with
 * fixed costs alpha >= 0 (previous issue to the next wait) and beta > 0 (wait
 * release through consumption to the refill issue) issues copy k + r at
 *     I_{k+r} = max{I_{k+r-1} + alpha, I_k + lambda_k} + beta     (slot_timing)
 * where lambda_k >= 0 is copy k's latency. For constant latency lambda,
 *     P_d(lambda) = lim I_n / n = max{alpha + beta, (lambda + beta)/(d - 1)},
 * the available overlap is Theta = (d - 1)(alpha + beta) - beta, and the
 * largest saving per request from hits is
 *     G_d = P_d(lambda_miss) - P_d(lambda_hit)
 *         = ([lambda_miss - Theta]_+ - [lambda_hit - Theta]_+) / (d - 1).
 * For two workers phi = P_2(lambda_hit,2) - P_1(lambda_miss,1); when phi > 0
 * the timing gap grows at least like n phi - O(1) (catchup_limit).
 *
 * All inputs must be finite, and alpha, beta and the latencies at most
 * PASCAL_FEEDBACK_TIME_MAX (PASCAL_ERANGE otherwise, so that no result
 * overflows); errors follow pascal/error.h and name the field
 * ("alpha", "beta", "d", "lambda", "lambda_hit", "lambda_miss", "latency[3]",
 * "initial[0]", "count").
 */
#ifndef PASCAL_FEEDBACK_H
#define PASCAL_FEEDBACK_H

#include <stddef.h>
#include <stdint.h>

#include "pascal/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Largest alpha, beta or latency accepted (any time unit). */
#define PASCAL_FEEDBACK_TIME_MAX 1e300

/* One worker's loop: alpha >= 0, beta > 0, depth d >= 2 (d <= 2^20). */
typedef struct pascal_feedback_params {
  double alpha;
  double beta;
  uint32_t d;
} pascal_feedback_params;

/* Everything the CLI reports for one worker and a hit/miss latency pair. */
typedef struct pascal_feedback_summary {
  double cadence_hit;  /* P_d(lambda_hit)                                  */
  double cadence_miss; /* P_d(lambda_miss)                                 */
  double overlap;      /* Theta                                            */
  double gain;         /* G_d, zero when lambda_miss <= Theta               */
} pascal_feedback_summary;

/* P_d(lambda) of Eq. refill_cadence; lambda >= 0. */
pascal_status pascal_feedback_cadence(const pascal_feedback_params *p, double lambda,
                                      double *cadence, pascal_error *err);

/* Theta = (d - 1)(alpha + beta) - beta. */
pascal_status pascal_feedback_overlap(const pascal_feedback_params *p, double *overlap,
                                      pascal_error *err);

/* G_d of Eq. catchup_gain; requires 0 <= lambda_hit <= lambda_miss. */
pascal_status pascal_feedback_gain(const pascal_feedback_params *p, double lambda_hit,
                                   double lambda_miss, double *gain, pascal_error *err);

/* Cadences, overlap and gain in one call (same requirements as _gain). */
pascal_status pascal_feedback_summarize(const pascal_feedback_params *p, double lambda_hit,
                                        double lambda_miss, pascal_feedback_summary *out,
                                        pascal_error *err);

/* Divergence rate phi = P_2(lambda_hit_2) - P_1(lambda_miss_1) of Theorem 5
 * (worker 1 slowest, worker 2 fastest permitted responses); positive phi means
 * the gap I_2,n - I_1,n grows at least like n phi - O(1). */
pascal_status pascal_feedback_divergence(const pascal_feedback_params *w1, double lambda_miss_1,
                                         const pascal_feedback_params *w2, double lambda_hit_2,
                                         double *phi, pascal_error *err);

/* Iterate Eq. slot_timing: issue[0..r-1] = initial[0..r-1] (r = d - 1), then
 * issue[k + r] = max(issue[k + r - 1] + alpha, issue[k] + latency[k]) + beta
 * for k = 0 .. count - r - 1. `latency` holds count - r entries (each >= 0),
 * `issue` holds `count` >= r entries. */
pascal_status pascal_feedback_iterate(const pascal_feedback_params *p, const double *initial,
                                      const double *latency, size_t count, double *issue,
                                      pascal_error *err);

#ifdef __cplusplus
}
#endif
#endif
