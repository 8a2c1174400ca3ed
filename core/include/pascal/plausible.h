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
 * a stray line of another kernel), the upper end also by
 * PASCAL_PLAUSIBLE_LAUNCH_BYTES for what a launch reads besides its data.
 * A measured kernel time is finite and
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

/* Bytes a launch fills besides its operands (its code, constants and
 * descriptors pass through L2 too), allowed above the upper end: a GEMM of
 * one 128 x 128 tile (cold bytes = M fills per reference = 1 MiB) measured
 * 19.5 and 22.5 KiB more than its operands on an H100 (2026-11-28), which
 * 1 % of 1 MiB does not cover; a run's data reads only add to the range's
 * lower end. */
#define PASCAL_PLAUSIBLE_LAUNCH_BYTES 65536.0

/* The most one planned run may read, so that no plan asks an agent for a
 * run of hours (or, from W = 2^32 - 1, a year): its logical bytes (the
 * upper end of its fill range, M W N b for a scan, Q for GEMM) at most 2^47
 * (about 19 s at an H100's 7.3 TB/s L2 peak; the largest run of the shipped
 * H100 plans reads 1.9 TB, 74 times less), and a scan's block reads M W N
 * at most 2^34 (a simulated device walks each one). */
#define PASCAL_RUN_BYTES_MAX (UINT64_C(1) << 47)
#define PASCAL_RUN_READS_MAX (UINT64_C(1) << 34)

/* The fill range [*cold, *most] in bytes of a scan run of `key` over N
 * blocks, W passes, on `dev`. PASCAL_EINVAL naming "N", "W" or "o" for a
 * zero extent. */
pascal_status pascal_plausible_scan_fills(const pascal_device *dev, const pascal_scan_key *key,
                                          double N, double W, double *cold, double *most,
                                          pascal_error *err);

/* The fill range of a GEMM run of `shape` under `gemm`: B0 and Q of
 * pascal_gemm_geometry in closed form, (Mg + Ng) Kg e and
 * Mg Ng Kg e (1/tile_n + 1/tile_m), equal to them for tile multiples and
 * defined for any shape. PASCAL_EINVAL for a zero dimension or tiling. */
pascal_status pascal_plausible_gemm_fills(const pascal_gemm_params *gemm,
                                          const pascal_gemm_shape *shape, double *cold,
                                          double *most, pascal_error *err);

/* PASCAL_OK when a run whose fill range ends at `most` bytes, with
 * `reads` block reads (0 for GEMM), is within PASCAL_RUN_BYTES_MAX and
 * PASCAL_RUN_READS_MAX; PASCAL_ERANGE naming `field` otherwise. */
pascal_status pascal_plausible_run_size(double most, double reads, const char *field,
                                        pascal_error *err);

/* The fill range of scan run `run` of `cal` (scan or attention: an
 * attention run also reads its query tiles once, pascal/attention.h). */
pascal_status pascal_plausible_scan_run_fills(const pascal_calibration *cal,
                                              const pascal_scan_run *run, double *cold,
                                              double *most, pascal_error *err);

/* Every run of `cal`, its measurements and both panels, against its range
 * (pascal_plausible_result), so that a bundle brings in no run an agent's
 * upload could not: PASCAL_EREFUSED naming the run's field, for example
 * "heldout[3].fill_bytes", otherwise. */
pascal_status pascal_plausible_calibration(const pascal_calibration *cal, pascal_error *err);

/* PASCAL_OK when fill_bytes lies in [cold, most] (widened by the slack) and
 * kernel_ns is 0 or a finite positive time the device's peaks allow;
 * PASCAL_EREFUSED naming the field otherwise. */
pascal_status pascal_plausible_result(const pascal_device *dev, double cold, double most,
                                      double fill_bytes, double kernel_ns, pascal_error *err);

#ifdef __cplusplus
}
#endif

#endif
