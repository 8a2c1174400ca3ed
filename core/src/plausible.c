/*
 * plausible.c - the physically possible range of a measured run's fills and
 * kernel time (pascal/plausible.h): cold bytes to M fills per logical
 * reference, paper section 2 (K in [1/W, M] for a scan) and App. C
 * (K in [K0, M] for GEMM).
 */
#include "pascal/plausible.h"

#include <math.h>

#include "pascal/predict.h"

pascal_status pascal_plausible_scan_fills(const pascal_device *dev, const pascal_scan_key *key,
                                          double N, double W, double *cold, double *most,
                                          pascal_error *err)
{
  if (!(N >= 1))
    return pascal_error_set(err, PASCAL_EINVAL, "N", "N must be at least 1");
  if (!(W >= 1))
    return pascal_error_set(err, PASCAL_EINVAL, "W", "W must be at least 1");
  if (key->o < 1)
    return pascal_error_set(err, PASCAL_EINVAL, "o", "o must be at least 1");
  double pass = N * (double)dev->block_bytes;
  *cold = pass;
  *most = (double)dev->sm_count * key->o * W * pass;
  return PASCAL_OK;
}

pascal_status pascal_plausible_gemm_fills(const pascal_gemm_params *gemm,
                                          const pascal_gemm_shape *shape, double *cold,
                                          double *most, pascal_error *err)
{
  pascal_gemm_prediction geo;
  pascal_status st = pascal_gemm_geometry(gemm, shape, &geo, err);
  if (st != PASCAL_OK)
    return st;
  *cold = geo.B0;
  *most = geo.Q;
  return PASCAL_OK;
}

pascal_status pascal_plausible_result(const pascal_device *dev, double cold, double most,
                                      double fill_bytes, double kernel_ns, pascal_error *err)
{
  double lo = cold * (1 - PASCAL_PLAUSIBLE_SLACK), hi = most * (1 + PASCAL_PLAUSIBLE_SLACK);
  if (!isfinite(fill_bytes) || fill_bytes < lo || fill_bytes > hi)
    return pascal_error_set(err, PASCAL_EREFUSED, "fill_bytes",
                            "fill_bytes %.17g is outside what this run can fill: from its cold "
                            "bytes %.17g to M fills per reference %.17g (1%% slack each side)",
                            fill_bytes, cold, most);
  if (!isfinite(kernel_ns) || kernel_ns < 0)
    return pascal_error_set(err, PASCAL_EREFUSED, "kernel_ns",
                            "kernel_ns must be finite and >= 0 (0: not measured)");
  if (kernel_ns > 0 && dev->has_peaks && dev->peaks.dram_bytes_per_s > 0) {
    double fastest = 1e9 * fill_bytes / (2 * dev->peaks.dram_bytes_per_s);
    if (kernel_ns < fastest)
      return pascal_error_set(err, PASCAL_EREFUSED, "kernel_ns",
                              "kernel_ns %.17g is shorter than %.17g fill bytes take at twice the "
                              "device's peak DRAM bandwidth (%.17g ns)",
                              kernel_ns, fill_bytes, fastest);
  }
  return PASCAL_OK;
}
