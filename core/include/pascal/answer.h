/*
 * pascal/answer.h - the one code path from a query to its answer (paper
 * section 4, Algorithm predict; section "End-to-end latency with
 * TileSight"): pascal_answer_query() takes a query pascal_query_check has
 * accepted, predicts it from the fitted model (K, fill bytes, the
 * explanation, what it extrapolates and, for a diverging scan, Theorem
 * coherence's advice), looks up how far to trust it in the calibration's
 * validation (the expected error, the prediction interval of K, fills and
 * time, pascal/interval.h, and whether its family loses to aligned K = 1
 * under the folds) and runs the predicted fills through the latency
 * pipeline for time_s and its bound. pascald (single queries,
 * batches, GET and POST), `pascal predict` and the dashboard's form
 * (through pascald) all answer through it, and the codec writes the answer
 * (pascal_codec_answer_write): the front ends only read queries and write
 * answers.
 *
 * The answer is one struct for every workload, so that what later features
 * add to an answer (an interval, a calibrated time) is a member here and in
 * its writer, not a change of every caller.
 */
#ifndef PASCAL_ANSWER_H
#define PASCAL_ANSWER_H

#include <stdbool.h>

#include "pascal/attention.h"
#include "pascal/error.h"
#include "pascal/gemm_config.h"
#include "pascal/latency.h"
#include "pascal/predict.h"
#include "pascal/query.h"
#include "pascal/time_model.h"
#include "pascal/validation.h"

#ifdef __cplusplus
extern "C" {
#endif

/* How far the truth may lie from the answer, at `level` (pascal/interval.h):
 * the K interval scaled to fills (fills are K times a constant of the
 * query) and the time interval applied to time_s. Where the answer's family
 * loses to aligned K = 1 (pascal_answer.loses), the K interval is widened
 * to hold the aligned answer (K = 1; K_0 for GEMM): the folds say that
 * answer is at least as likely. A scan's or GEMM's K interval then stays
 * inside the K a run can measure (pascal_interval_clip_k: at most M, at
 * least 1 / max(W, 1) or K_0). A GEMM answered by transfer
 * (pascal/gemm_config.h) keeps the anchor's bounds, scaled to its own K,
 * fills and time, and says so (`transferred`): the residuals measured the
 * calibration's configuration, not the transfer (docs/expected-error.md). */
typedef struct pascal_answer_interval {
  bool known; /* false: no validation, or a calibration without residuals */
  double level;
  double K_low, K_high, fill_bytes_low, fill_bytes_high;
  double time_s_low, time_s_high; /* NaN when the answer is untimed        */
  size_t n_residuals;             /* the K rates behind it                 */
  unsigned borrowed;              /* transfers whose group borrowed        */
  bool widened_to_aligned;        /* the family's loss widened it          */
  bool transferred;               /* GEMM: a configuration or shape the
                                     calibration did not measure; the
                                     bounds are the anchor's residuals'
                                     and `level` their coverage there only */
} pascal_answer_interval;

typedef struct pascal_answer {
  pascal_workload workload; /* the query's                                  */
  union {                   /* the prediction with its explanation,
                               extrapolations, expected error (and advice) */
    pascal_scan_prediction scan;
    pascal_gemm_prediction gemm;
    pascal_attention_prediction attention;
  };
  bool timed;       /* the device has peaks and the query a time:        */
  pascal_time time; /* time_s, its bound and source (pascal/time_model.h) */
  pascal_answer_interval interval;
  bool loses;                            /* the family's folds favour aligned K = 1:   */
  pascal_family_loss loss;               /* both errors (pascal/validation.h)          */
  pascal_gemm_config_answer gemm_config; /* GEMM: the configuration answered,
                                            measured or transferred
                                            (pascal/gemm_config.h)          */
} pascal_answer;

/* Answer `q`, which pascal_query_check has accepted (the readers check it,
 * naming the field in their own terms; the Debug build asserts it), from
 * `model`: PASCAL_EINVAL for a query of another workload than the model's
 * (field "workload"), else the prediction's own errors (PASCAL_EINVAL
 * naming a shape the calibration's tile does not divide, PASCAL_EREFUSED for
 * an unknown family or an unidentifiable class, or for attention what the
 * model does not describe (pascal/attention.h), PASCAL_ERANGE for fill bytes
 * beyond a double). An attention answer's time is the K/V scan's at
 * ceil(W) waves (a partial wave of CTAs scans all of K/V as a full one
 * does) with the launch's whole fills. `validation` gives the expected
 * error, the interval and the family's loss (NULL: unknown, source none, no
 * interval). On failure `out` holds nothing usable (it is written in place:
 * an answer is about a kilobyte, and batches answer thousands).
 * Reads only its arguments: any number of threads may answer from one model
 * at once. */
pascal_status pascal_answer_query(const pascal_model *model, const pascal_validation *validation,
                                  const pascal_query *q, pascal_answer *out, pascal_error *err);

#ifdef __cplusplus
}
#endif
#endif
