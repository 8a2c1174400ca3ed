/*
 * pascal/plausible.h - the range a measured run's fills and kernel time can
 * physically take, so that a measurement outside it is refused where it
 * enters (an agent's upload) instead of spoiling a whole calibration's fit.
 *
 * Fills V of a run (paper section 2, the count K of fills per block per
 * pass; App. C for GEMM) lie between
 *   - the cold bytes: every block is filled at least once (scan: K >= 1/W,
 *     V >= N b; GEMM: K >= K0, V >= B0), and
 *   - M fills per logical reference: no worker misses a block more than once
 *     per reference (scan: K <= M = sm_count o, V <= M W N b; GEMM: K <= M,
 *     V <= Q),
 * each widened by PASCAL_PLAUSIBLE_SLACK for counter granularity (sectors,
 * a stray line of another kernel). A measured kernel time is finite and
 * positive (0: not measured) and, when the device carries its measured
 * peaks, no shorter than the fills moved at twice the peak DRAM bandwidth
 * (the peak is itself a measurement, hence the factor). Errors follow
 * pascal/error.h: PASCAL_EREFUSED naming "fill_bytes" or "kernel_ns" with
 * the range in the message.
 */
#ifndef PASCAL_PLAUSIBLE_H
#define PASCAL_PLAUSIBLE_H

#include "pascal/calibration.h"
#include "pascal/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Relative widening of the fill range on each side. */
#define PASCAL_PLAUSIBLE_SLACK 0.01

/* The fill range [*cold, *most] in bytes of a scan run of `key` over N
 * blocks, W passes, on `dev`. PASCAL_EINVAL naming "N", "W" or "o" for a
 * zero extent. */
pascal_status pascal_plausible_scan_fills(const pascal_device *dev, const pascal_scan_key *key,
                                          double N, double W, double *cold, double *most,
                                          pascal_error *err);

/* The fill range of a GEMM run of `shape` under `gemm` (what
 * pascal_gemm_geometry refuses, refused the same way). */
pascal_status pascal_plausible_gemm_fills(const pascal_gemm_params *gemm,
                                          const pascal_gemm_shape *shape, double *cold,
                                          double *most, pascal_error *err);

/* PASCAL_OK when fill_bytes lies in [cold, most] (widened by the slack) and
 * kernel_ns is 0 or a finite positive time the device's peaks allow;
 * PASCAL_EREFUSED naming the field otherwise. */
pascal_status pascal_plausible_result(const pascal_device *dev, double cold, double most,
                                      double fill_bytes, double kernel_ns, pascal_error *err);

#ifdef __cplusplus
}
#endif

#endif
