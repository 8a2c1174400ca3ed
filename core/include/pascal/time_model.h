/*
 * pascal/time_model.h - the kernel time of an answer, calibrated on the
 * calibration's own timings (the runs' kernel_ns, never a held-out panel's),
 * with the pipeline on measured peaks (pascal/predict_time.h, the paper
 * "PASCAL: A Progress Divergence-Aware Shared-Cache Model", section
 * "End-to-end latency with TileSight") as the answer of a device with peaks
 * but no timed runs. docs/time-model.md derives every term.
 *
 * Scan. Every reference (size N_j, key z) fits, from its runs at the
 * horizons W, T = fixed + W N cost: `cost` is the time of one block and
 * wave (every one of the M = sm_count o resident CTAs consumes one block),
 * `fixed` what a kernel costs once (launch, first loads, drain). A query
 * reads the references its K reads, by the same transfer rules (exact,
 * graph, clamp, depth-fallback, then linear in eta = C / N; log cost is
 * transferred, as a is for K), so its time and its K carry one rule. A
 * resident scan (N <= C) reads the smallest calibrated size. The fills then
 * enter as a roofline: a round cannot take less than its DRAM fills at the
 * measured DRAM rate, cost' = max(cost, fill_bytes / (W N) / dram_bytes_per_s).
 *
 * GEMM. One fit over all calibration runs: resident CTAs per SM c_max
 * (identified from the waves of the timings: the smallest count that
 * explains them within PASCAL_TIME_CTAS_TOLERANCE of the best), a fixed
 * cost, and the time of one k-iteration of one CTA as a function of the
 * CTAs c its SM runs at once, t(c) = max(L, c s): L is the time of a CTA
 * alone (the bytes it keeps in flight over the latency, Little's law), s an
 * SM's time per CTA-iteration once its throughput limits. A grid of `tiles`
 * CTAs runs floor(tiles / (sm_count c_max)) full waves at c_max and a tail
 * whose busiest SM runs ceil(tail / sm_count): T = fixed + n_k (full t(c_max)
 * + t(c_tail)). A grid of 4 CTAs is 4 SMs with one CTA each. The fills
 * enter as a roofline: T >= fixed + fill_bytes / dram_bytes_per_s.
 *
 * Both fits minimise the squared relative error and keep every parameter
 * >= 0 (an exact non-negative least squares over the few columns). The
 * parameters are part of the frozen model (pascal_model_time_* below,
 * written under "model" by the codec).
 *
 * `bound` names the limit the fit found: the peak-rate time among DRAM
 * (the fills), L2 (the bytes every resident CTA reads) and the tensor pipe
 * that comes within PASCAL_TIME_BOUND_SHARE of the time per round
 * (per k-iteration for GEMM), the largest of them; else "latency": no peak
 * is near, the kernel is limited by the bytes it keeps in flight (Little's
 * law) or by its issue rate.
 */
#ifndef PASCAL_TIME_MODEL_H
#define PASCAL_TIME_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pascal/error.h"
#include "pascal/latency.h"
#include "pascal/predict.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A peak is the bound when its time is at least this share of the fitted one. */
#define PASCAL_TIME_BOUND_SHARE    0.9
/* Resident CTAs per SM the GEMM fit considers, and how much larger than the
 * best fit's error a smaller count's may be and still be chosen. */
#define PASCAL_TIME_CTAS_MAX       8u
#define PASCAL_TIME_CTAS_TOLERANCE 0.02

typedef enum pascal_time_source {
  PASCAL_TIME_CALIBRATED = 0, /* fitted to the calibration's kernel times        */
  PASCAL_TIME_PEAKS = 1       /* the pipeline on the device's measured peaks only */
} pascal_time_source;

/* "calibrated", "peaks". */
const char *pascal_time_source_name(pascal_time_source source);

/* The time of an answer and the physical terms behind it. */
typedef struct pascal_time {
  double time_s;
  pascal_bound bound;
  pascal_time_source source;
  pascal_rule rule;              /* calibrated scan: the transfer's rule, K's (a resident
                                    scan: the rule at the smallest size); else exact (GEMM:
                                    one fit over all runs, nothing transferred) */
  uint32_t ctas_per_sm;          /* resident CTAs per SM (scan: o; GEMM: of the first wave) */
  uint64_t full_waves;           /* waves of sm_count x ctas_per_sm CTAs                      */
  uint64_t tail_ctas;            /* CTAs of the partial last wave (0: none)                   */
  double step_s;                 /* scan: one block and wave; GEMM: one k-iteration of the
                                    first wave (peaks: the pipeline's per-SM iteration)        */
  double fixed_s;                /* once per kernel (peaks: the launch)                       */
  double in_flight_bytes_per_sm; /* scan: o max(d, 1) b; GEMM: c_max k-iteration operands     */
  double latency_s;              /* Little's law: in-flight bytes over the SM's achieved rate */
} pascal_time;

/* Whether the model carries a calibrated time (every reference has timed
 * runs: scan, each (N_j, z); GEMM, at least three timed runs). */
bool pascal_model_time_calibrated(const pascal_model *model);

/* The fitted GEMM parameters (valid when pascal_model_time_calibrated). */
typedef struct pascal_gemm_time_fit {
  uint32_t ctas_per_sm;   /* c_max, identified from the waves                   */
  double fixed_s;         /* once per kernel                                    */
  double iteration_s;     /* L: one k-iteration of a CTA alone on its SM        */
  double sm_iteration_s;  /* s: an SM's time per CTA-iteration when throughput-
                             bound; 0 when no timed wave identified it          */
  double step_overhead_s; /* o: what a k-iteration costs beyond its matrix work
                             on the SM's pipes, fitted on the configuration
                             runs (pascal/gemm_config.h "Time"); 0 without */
} pascal_gemm_time_fit;

/* PASCAL_EINVAL naming "workload" for a scan model, PASCAL_ENOTFOUND naming
 * "time" when the model carries no calibrated time. */
pascal_status pascal_model_time_gemm(const pascal_model *model, pascal_gemm_time_fit *out,
                                     pascal_error *err);

/* The fitted scan parameters of one reference (curve `index` of
 * pascal_model_curve): cost per block and wave and fixed cost. Same errors,
 * and PASCAL_ENOTFOUND naming "index" past the last curve. */
pascal_status pascal_model_time_scan_ref(const pascal_model *model, size_t index, double *cost_s,
                                         double *fixed_s, pascal_error *err);

/* The answer's time: calibrated when the model carries a calibrated time,
 * else the pipeline on peaks; `fill_bytes` are the run's fills (PASCAL's
 * prediction in an answer; any cache input in an evaluation).
 * PASCAL_ENOTFOUND naming "peaks" when the device has no peaks (no bound can
 * be named, no answer is timed); PASCAL_EINVAL naming "W" for a horizon that
 * is not a whole number of waves, "fill_bytes" for fills not finite and >= 0,
 * and the query's field (as pascal_model_predict_scan / _gemm) for a bad
 * query; PASCAL_EREFUSED when K's transfer refuses the key. */
pascal_status pascal_time_scan(const pascal_model *model, const pascal_scan_key *key, uint32_t N,
                               double W, double fill_bytes, pascal_time *out, pascal_error *err);
pascal_status pascal_time_gemm(const pascal_model *model, const pascal_gemm_shape *shape,
                               double fill_bytes, pascal_time *out, pascal_error *err);

/* The same restricted to one source: PASCAL_TIME_PEAKS is the paper's
 * protocol (nothing fitted to a duration); PASCAL_TIME_CALIBRATED fails
 * with PASCAL_ENOTFOUND naming "time" when the model has no calibrated time. */
pascal_status pascal_time_scan_from(const pascal_model *model, pascal_time_source source,
                                    const pascal_scan_key *key, uint32_t N, double W,
                                    double fill_bytes, pascal_time *out, pascal_error *err);
pascal_status pascal_time_gemm_from(const pascal_model *model, pascal_time_source source,
                                    const pascal_gemm_shape *shape, double fill_bytes,
                                    pascal_time *out, pascal_error *err);

#ifdef __cplusplus
}
#endif
#endif
