/*
 * cuda_probe.h - the CUDA backend's probe entry point, for
 * `pascal-agent --backend cuda --probe`.
 *
 * The probe discovers the first CUDA device (name, compute capability, SM
 * count, L2 size, shared memory per SM, CUPTI chip name), chooses the DRAM->L2
 * fill metric for that chip (docs/gpu.md), and runs the capacity scan of the
 * paper (Figure `capacity`, Section 5.1): fill volume of a synchronous
 * one-CTA-per-SM scan, normalized by the scanned bytes, over a sweep of sizes
 * around the nominal L2 size. The largest size whose normalized fill stays
 * within 10 % of one is proposed as the effective capacity C (in blocks).
 * Then it measures the device peaks of the latency pipeline
 * (peak_bench.h); a failed peak benchmark is reported and leaves the device
 * without peaks, it does not fail the probe.
 *
 * The agent reaches it, like the rest of the backend, through
 * pascal_backend_cuda_ops() (calibrator/backend.h: ops->probe); this header
 * is the backend's own and the offline tests'.
 */
#ifndef PASCAL_CUDA_PROBE_H
#define PASCAL_CUDA_PROBE_H

#include <stdint.h>
#include <stdio.h>

#include "backend.h"
#include "pascal/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Probe the first CUDA device. Prints a human-readable report to `out`
 * (device constants, chosen metric, TMA priming count of this binary, the
 * cost of one measured run with and without CUPTI ("run cost:" line), one line
 * per capacity-scan size, proposed C). `block_bytes` is the logical block
 * size (0 selects 16384; must be a positive multiple of 16); `repeats` is the
 * number of measured runs per size (0 selects 3; the median is used).
 * On success fills `*device` (capacity_blocks = proposed C; has_peaks and
 * peaks when every peak benchmark succeeded) so that the agent can register
 * the device with pascald.
 * Errors (no device, no kernel image for this architecture, profiling
 * restricted to admin users, fill metric unavailable, kernel result check
 * failed) return a status and a message in `err`; `*device` is untouched.
 */
pascal_status pascal_cuda_probe(FILE *out, uint32_t block_bytes, uint32_t repeats,
                                pascal_backend_device *device, pascal_error *err);

#ifdef __cplusplus
}
#endif
#endif
