/*
 * plausible.c - the physically possible range of a measured run's fills and
 * kernel time (pascal/plausible.h): cold bytes to M fills per logical
 * reference, paper section 2 (K in [1/W, M] for a scan) and App. C
 * (K in [K0, M] for GEMM); and the most one planned run may read.
 */
#include "pascal/plausible.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>

#include "pascal/attention.h"

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
  if (shape->Mg == 0 || shape->Ng == 0 || shape->Kg == 0)
    return pascal_error_set(err, PASCAL_EINVAL,
                            shape->Mg == 0   ? "Mg"
                            : shape->Ng == 0 ? "Ng"
                                             : "Kg",
                            "GEMM dimensions must be at least 1");
  if (gemm->tile_m == 0 || gemm->tile_n == 0 || gemm->elem_bytes == 0)
    return pascal_error_set(err, PASCAL_EINVAL, "gemm.tile_m", "GEMM tiling must be at least 1");
  /* B0 and Q of pascal_gemm_geometry in closed form, defined for any shape:
   * n_k (n_r tile_m + n_c tile_n) tile_k e = (Mg + Ng) Kg e, and
   * n_r n_c n_k (tile_m + tile_n) tile_k e = Mg Ng Kg e (1/tile_n + 1/tile_m). */
  double M = shape->Mg, N = shape->Ng, K = shape->Kg, e = gemm->elem_bytes;
  *cold = (M + N) * K * e;
  *most = M * N * K * e * (1.0 / gemm->tile_n + 1.0 / gemm->tile_m);
  return PASCAL_OK;
}

pascal_status pascal_plausible_result(const pascal_device *dev, double cold, double most,
                                      double fill_bytes, double kernel_ns, pascal_error *err)
{
  double lo = cold * (1 - PASCAL_PLAUSIBLE_SLACK);
  double hi = most * (1 + PASCAL_PLAUSIBLE_SLACK) + PASCAL_PLAUSIBLE_LAUNCH_BYTES;
  if (!isfinite(fill_bytes) || fill_bytes < lo || fill_bytes > hi)
    return pascal_error_set(err, PASCAL_EREFUSED, "fill_bytes",
                            "fill_bytes %.17g is outside what this run can fill: from its cold "
                            "bytes %.17g to M fills per reference %.17g (1%% slack each side, "
                            "and %.0f bytes above for the launch itself)",
                            fill_bytes, cold, most, PASCAL_PLAUSIBLE_LAUNCH_BYTES);
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

pascal_status pascal_plausible_run_size(double most, double reads, const char *field,
                                        pascal_error *err)
{
  if (!(most <= (double)PASCAL_RUN_BYTES_MAX))
    return pascal_error_set(err, PASCAL_ERANGE, field,
                            "the run reads %.4g bytes, above the %.4g one run may read", most,
                            (double)PASCAL_RUN_BYTES_MAX);
  if (!(reads <= (double)PASCAL_RUN_READS_MAX))
    return pascal_error_set(err, PASCAL_ERANGE, field,
                            "the run makes %.4g block reads (M W N), above the %.4g one run may "
                            "make",
                            reads, (double)PASCAL_RUN_READS_MAX);
  return PASCAL_OK;
}

pascal_status pascal_plausible_scan_run_fills(const pascal_calibration *cal,
                                              const pascal_scan_run *run, double *cold,
                                              double *most, pascal_error *err)
{
  pascal_status st = pascal_plausible_scan_fills(&cal->device, &run->key, (double)run->N,
                                                 (double)run->W, cold, most, err);
  if (st == PASCAL_OK && cal->workload == PASCAL_WORKLOAD_ATTENTION)
    *most += pascal_attention_run_q_bytes(&cal->attention, cal->device.sm_count, run);
  return st;
}

pascal_status pascal_plausible_calibration(const pascal_calibration *cal, pascal_error *err)
{
  for (int set = 0; set < PASCAL_RUN_SETS; set++) {
    const pascal_scan_run *scan;
    const pascal_gemm_run *gemm;
    size_t n = pascal_calibration_runs_of(cal, (pascal_run_set)set, &scan, &gemm);
    for (size_t i = 0; i < n; i++) {
      pascal_error why;
      double cold = 0, most = 0, fill, ns;
      pascal_status st;
      if (pascal_workload_scans(cal->workload)) {
        fill = scan[i].fill_bytes, ns = scan[i].has_kernel_ns ? scan[i].kernel_ns : 0;
        st = pascal_plausible_scan_run_fills(cal, &scan[i], &cold, &most, &why);
      } else {
        fill = gemm[i].fill_bytes, ns = gemm[i].has_kernel_ns ? gemm[i].kernel_ns : 0;
        st = pascal_plausible_gemm_fills(&cal->gemm, &gemm[i].shape, &cold, &most, &why);
      }
      if (st == PASCAL_OK)
        st = pascal_plausible_result(&cal->device, cold, most, fill, ns, &why);
      if (st != PASCAL_OK) {
        char field[PASCAL_ERROR_FIELD_MAX + 48]; /* the set's name and index before it */
        snprintf(field, sizeof field, "%s[%zu].%s", pascal_run_set_name((pascal_run_set)set), i,
                 why.field);
        return pascal_error_set(err, st, field, "%s", why.message);
      }
    }
  }
  return PASCAL_OK;
}
