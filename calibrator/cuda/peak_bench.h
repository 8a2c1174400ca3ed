/*
 * peak_bench.h - measure a CUDA device's peaks for the latency pipeline with
 * the microbenchmarks of kernels/peak_kernels.h (docs/gpu.md "Device
 * peaks"): DRAM bandwidth (a streaming read far above L2), L2 bandwidth (a
 * working set well inside L2, read many times after a warm pass), FP16 wmma
 * throughput (the scan kernels' instruction), the SM clock (clock64()
 * against the event time) and the launch overhead (back-to-back empty
 * launches). Each runs once to warm up, then `repeats` timed times; the
 * peaks are medians (peak_math.h).
 */
#ifndef PASCAL_CUDA_PEAK_BENCH_H
#define PASCAL_CUDA_PEAK_BENCH_H

#include <stdint.h>
#include <stdio.h>

#include "cuda_rig.h"
#include "peak_math.h"

/* Timed repeats per benchmark when the caller gives 0 (odd: the median is a
 * sample). */
#define PCU_PEAK_REPEATS 7u

/* Run every benchmark on the current device (`info` as the rig found it).
 * On success fills *out (and *samples, when given, with what was timed);
 * any CUDA error, a failed result check or an implausible value returns an
 * error naming the benchmark and leaves *out untouched: no partial peaks. */
pascal_status pcu_peak_measure(const pcu_info &info, uint32_t repeats, pcu_peak_samples *samples,
                               pascal_peaks *out, pascal_error *err);

/* The probe's lines for measured peaks, with the work each benchmark did. */
void pcu_peak_print(FILE *out, const pcu_peak_samples &s, const pascal_peaks &p);

#endif
