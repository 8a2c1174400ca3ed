/*
 * answer.c - from a query to its whole answer (pascal/answer.h): the check,
 * the model's prediction (predict_scan.c, predict_gemm.c,
 * predict_attention.c; a GEMM in the configuration it names:
 * predict_config.c, pascal/gemm_config.h), the expected error from the
 * calibration's validation (validation.c), the time of the predicted fills
 * (time_model.c: calibrated on the calibration's own kernel times, else the
 * pipeline on the device's peaks), and the interval of all three from the
 * calibration's residuals (interval.c), carried through the capacity
 * probe's bracket where a scan read it (residency.c).
 */
#include "pascal/answer.h"

#include <assert.h>
#include <math.h>

#include "model_internal.h"
#include "pascal/time_model.h"
#include "residency.h"

/* The interval of K, fills and time (see pascal_answer_interval); the K a
 * run can measure is k_range (pascal_interval_k_range). A scan's residency
 * (NULL for a GEMM) is read at horizon W. */
static void answer_interval(const pascal_validation *v, const pascal_transfers *t, double K,
                            double fill_bytes, double K_aligned, const double k_range[2],
                            const pascal_scan_residency *res, double W, pascal_answer *out)
{
  pascal_answer_interval *iv = &out->interval;
  pascal_interval_bounds b;
  *iv = (pascal_answer_interval){.level = PASCAL_INTERVAL_LEVEL,
                                 .K_low = NAN,
                                 .K_high = NAN,
                                 .fill_bytes_low = NAN,
                                 .fill_bytes_high = NAN,
                                 .time_s_low = NAN,
                                 .time_s_high = NAN};
  if (!v)
    return;
  bool widened =
      pascal_interval_answer_bounds(&v->interval, t, K, K_aligned, out->loses, k_range, res, W, &b);
  if (!b.known[PASCAL_INTERVAL_K])
    return;
  iv->known = true;
  iv->n_residuals = b.n_residuals;
  iv->borrowed = b.borrowed;
  iv->widened_to_aligned = widened;
  double lo = b.lo[PASCAL_INTERVAL_K], hi = b.hi[PASCAL_INTERVAL_K];
  double scale_lo = exp(lo), scale_hi = exp(hi); /* K and the fills scale alike */
  iv->K_low = K * scale_lo;
  iv->K_high = K * scale_hi;
  iv->fill_bytes_low = fill_bytes * scale_lo;
  iv->fill_bytes_high = fill_bytes * scale_hi;
  if (out->timed && b.known[PASCAL_INTERVAL_TIME]) {
    iv->time_s_low = out->time.time_s * exp(b.lo[PASCAL_INTERVAL_TIME]);
    iv->time_s_high = out->time.time_s * exp(b.hi[PASCAL_INTERVAL_TIME]);
  }
}

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
  /* What the interval and the family's loss read (for attention its K/V
   * scan's transfers and key, with the launch's K and fills), set by the
   * workload's branch. */
  const pascal_transfers *t;
  const pascal_scan_key *key = NULL;
  const pascal_scan_residency *res = NULL; /* a scan's; its W, and N and W as timed */
  uint32_t N = 0;
  double K, fill, aligned = 1.0, W = NAN, W_timed = NAN;
  double k_range[2];
  if (q->workload == PASCAL_WORKLOAD_SCAN) {
    const pascal_scan_query *s = &q->scan;
    if ((st = pascal_model_predict_scan(model, &s->key, s->N, s->W, &out->scan, err)))
      return st;
    if (validation)
      pascal_validation_expect_scan(validation, &s->key, &out->scan);
    /* no time for a fractional horizon (not a whole number of waves) */
    out->timed = pascal_time_scan(model, &s->key, s->N, s->W, out->scan.fill_bytes, &out->time,
                                  NULL) == PASCAL_OK;
    t = &out->scan.transfers, key = &s->key, K = out->scan.K, fill = out->scan.fill_bytes;
    res = &out->scan.why.residency, N = s->N, W = W_timed = s->W;
    pascal_interval_k_range(q->workload, s->W, out->scan.M, NAN, k_range);
  } else if (q->workload == PASCAL_WORKLOAD_ATTENTION) {
    pascal_attention_prediction *p = &out->attention;
    if ((st = pascal_model_predict_attention(model, &q->attention.shape, p, err)))
      return st;
    if (validation)
      pascal_validation_expect_scan(validation, &p->key, &p->kv);
    out->timed = pascal_time_scan(model, &p->key, p->N, ceil(p->W), p->fill_bytes, &out->time,
                                  NULL) == PASCAL_OK;
    t = &p->kv.transfers, key = &p->key, K = p->K, fill = p->fill_bytes;
    res = &p->kv.why.residency, N = p->N, W = p->W, W_timed = ceil(p->W);
    pascal_interval_k_range(q->workload, p->W, p->kv.M, NAN, k_range);
  } else {
    pascal_gemm_config_answer *ca = &out->gemm_config;
    if ((st = pc_gemm_predict_config(model, &q->gemm, &out->gemm, ca, err)))
      return st;
    /* the validation measured the calibration's configuration; a transferred
     * answer's own error is not known per answer (docs/autotuning.md
     * measures the transfer on the sim): it stays NaN, source none */
    if (validation && !ca->transferred)
      pascal_validation_expect_gemm(validation, &ca->anchor, &out->gemm);
    out->timed = pascal_gemm_time_config(model, &q->gemm, ca, out->gemm.fill_bytes,
                                         ca->anchor_fills, &out->time, NULL) == PASCAL_OK;
    t = &out->gemm.transfers, K = out->gemm.K, fill = out->gemm.fill_bytes;
    aligned = out->gemm.K0;
    pascal_interval_k_range(q->workload, NAN, out->gemm.M, out->gemm.K0, k_range);
  }
  const pascal_family_loss *loss =
      validation ? pascal_family_loss_find(validation->losses, validation->n_losses, key) : NULL;
  out->loses = loss != NULL;
  out->loss = loss ? *loss : (pascal_family_loss){.pascal_pct = NAN, .aligned_pct = NAN};
  answer_interval(validation, t, K, fill, aligned, k_range, res, W, out);
  pascal_answer_interval *iv = &out->interval;
  if (res && res->read && iv->known && out->timed)
    pc_residency_time_bounds(model, key, N, W_timed, out->time.time_s, iv->fill_bytes_low,
                             iv->fill_bytes_high, &iv->time_s_low, &iv->time_s_high);
  out->interval.transferred = q->workload == PASCAL_WORKLOAD_GEMM && out->gemm_config.transferred;
  return PASCAL_OK;
}
