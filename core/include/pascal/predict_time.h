/*
 * pascal/predict_time.h - the pipeline time of a prediction: its fills
 * through the latency pipeline (pascal/latency.h) for the kernel the model's
 * calibration measured, on the peaks the model's device carries (paper
 * "PASCAL: A Progress Divergence-Aware Shared-Cache Model", section
 * "End-to-end latency with TileSight"): the paper's protocol, nothing fitted
 * to a duration. Answers take their time from pascal/time_model.h, which
 * uses these two functions where a calibration has no timed runs; `pascal
 * evaluate` reports both.
 *
 * PASCAL_ENOTFOUND (field "peaks") when the device has no peaks; PASCAL_EINVAL
 * (field "W") for a scan horizon that is not a whole number of waves >= 1.
 */
#ifndef PASCAL_PREDICT_TIME_H
#define PASCAL_PREDICT_TIME_H

#include <stdint.h>

#include "pascal/error.h"
#include "pascal/latency.h"
#include "pascal/predict.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A scan (key, N blocks, horizon W) with `fill_bytes` predicted: W x
 * sm_count x o CTAs of N iterations, one block load and m 16x16x16 wmma
 * each, max(d, 1) stages. `kernel` (may be NULL) receives the kernel timed. */
pascal_status pascal_predict_time_scan(const pascal_model *model, const pascal_scan_key *key,
                                       uint32_t N, double W, double fill_bytes, pascal_latency *out,
                                       pascal_pipeline_kernel *kernel, pascal_error *err);

/* A GEMM shape with `fill_bytes` predicted: the calibration's tile and
 * element size, resident_ctas / sm_count CTAs per SM (at least 1), the
 * single-stage calibration kernel. */
pascal_status pascal_predict_time_gemm(const pascal_model *model, const pascal_gemm_shape *shape,
                                       double fill_bytes, pascal_latency *out,
                                       pascal_pipeline_kernel *kernel, pascal_error *err);

#ifdef __cplusplus
}
#endif
#endif
