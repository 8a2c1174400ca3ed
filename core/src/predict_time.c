/*
 * predict_time.c - the pipeline time of a prediction on peaks
 * (pascal/predict_time.h): the calibration kernel of the model's workload,
 * built with the latency module's GEMM and scan builders, timed on the
 * model's device peaks. The paper's protocol; time_model.c answers with it
 * where no calibrated time exists.
 */
#include <math.h>

#include "pascal/predict_time.h"

static const pascal_peaks *device_peaks(const pascal_model *model, pascal_error *err)
{
  const pascal_device *dev = pascal_model_device(model);
  if (!dev->has_peaks) {
    pascal_error_set(err, PASCAL_ENOTFOUND, "peaks", "device '%s' has no measured peaks",
                     dev->name);
    return NULL;
  }
  return &dev->peaks;
}

pascal_status pascal_predict_time_scan(const pascal_model *model, const pascal_scan_key *key,
                                       uint32_t N, double W, double fill_bytes, pascal_latency *out,
                                       pascal_pipeline_kernel *kernel, pascal_error *err)
{
  const pascal_peaks *peaks = device_peaks(model, err);
  if (!peaks)
    return PASCAL_ENOTFOUND;
  if (!(W >= 1 && W <= 1e12 && W == floor(W)))
    return pascal_error_set(err, PASCAL_EINVAL, "W",
                            "a horizon of %g is not a whole number of CTA waves", W);
  const pascal_device *dev = pascal_model_device(model);
  pascal_pipeline_kernel k;
  pascal_status st =
      pascal_latency_scan(dev->sm_count, key->o, key->d, key->m, N, (uint64_t)W, dev->block_bytes,
                          PASCAL_SCAN_MMA_FLOPS, fill_bytes, &k, err);
  if (!st && kernel)
    *kernel = k;
  return st ? st : pascal_latency_time(peaks, &k, out, err);
}

pascal_status pascal_predict_time_gemm(const pascal_model *model, const pascal_gemm_shape *shape,
                                       double fill_bytes, pascal_latency *out,
                                       pascal_pipeline_kernel *kernel, pascal_error *err)
{
  const pascal_peaks *peaks = device_peaks(model, err);
  if (!peaks)
    return PASCAL_ENOTFOUND;
  const pascal_device *dev = pascal_model_device(model);
  const pascal_gemm_params *g = pascal_model_gemm(model);
  uint32_t per_sm = g->resident_ctas / dev->sm_count;
  pascal_pipeline_kernel k;
  pascal_status st = pascal_latency_gemm(
      shape->Mg, shape->Ng, shape->Kg, g->tile_m, g->tile_n, g->tile_k, g->elem_bytes,
      dev->sm_count, per_sm ? per_sm : 1, pascal_gemm_stages(g), fill_bytes, &k, err);
  if (!st && kernel)
    *kernel = k;
  return st ? st : pascal_latency_time(peaks, &k, out, err);
}
