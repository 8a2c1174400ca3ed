/*
 * answer.c - from a query to its whole answer (pascal/answer.h): the check,
 * the model's prediction (predict_scan.c, predict_gemm.c), the expected
 * error from the calibration's validation (validation.c) and the time of
 * the predicted fills (time_model.c: calibrated on the calibration's own
 * kernel times, else the pipeline on the device's peaks).
 */
#include "pascal/answer.h"

#include <assert.h>

#include "pascal/time_model.h"

pascal_status pascal_answer_query(const pascal_model *model, const pascal_validation *validation,
                                  const pascal_query *q, pascal_answer *out, pascal_error *err)
{
  /* Every reader checked the query, with the names of its own input; the
   * check is not paid twice per answer (a batch answers thousands). */
  assert(pascal_query_check(q, NULL, NULL) == PASCAL_OK);
  pascal_status st;
  if (pascal_model_workload(model) != q->workload)
    return pascal_error_set(err, PASCAL_EINVAL, "workload", "the model answers %s queries, not %s",
                            pascal_workload_name(pascal_model_workload(model)),
                            pascal_workload_name(q->workload));
  out->workload = q->workload;
  if (q->workload == PASCAL_WORKLOAD_SCAN) {
    const pascal_scan_query *s = &q->scan;
    if ((st = pascal_model_predict_scan(model, &s->key, s->N, s->W, &out->scan, err)))
      return st;
    if (validation)
      pascal_validation_expect_scan(validation, &s->key, &out->scan);
    /* no time for a fractional horizon (not a whole number of waves) */
    out->timed = pascal_time_scan(model, &s->key, s->N, s->W, out->scan.fill_bytes, &out->time,
                                  NULL) == PASCAL_OK;
  } else {
    const pascal_gemm_shape *shape = &q->gemm.shape;
    if ((st = pascal_model_predict_gemm(model, shape, &out->gemm, err)))
      return st;
    if (validation)
      pascal_validation_expect_gemm(validation, shape, &out->gemm);
    out->timed =
        pascal_time_gemm(model, shape, out->gemm.fill_bytes, &out->time, NULL) == PASCAL_OK;
  }
  return PASCAL_OK;
}
