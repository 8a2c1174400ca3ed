/*
 * peak_math.h - from the microbenchmarks' timed repeats to a device's peaks
 * (pascal/latency.h pascal_peaks), without CUDA: medians, unit conversions
 * and the all-or-nothing rule (one failed or implausible benchmark gives no
 * peaks, never a partial set). The benchmarks themselves: peak_bench.h;
 * the method: docs/gpu.md "Device peaks".
 */
#ifndef PASCAL_CUDA_PEAK_MATH_H
#define PASCAL_CUDA_PEAK_MATH_H

#include <stdint.h>

#include <vector>

#include "pascal/error.h"
#include "pascal/latency.h"

/* What each benchmark did once (the work) and how long each repeat took
 * (seconds, from CUDA events). */
struct pcu_peak_samples {
  double dram_bytes = 0; /* bytes one DRAM stream read moves          */
  std::vector<double> dram_s;
  double l2_bytes = 0; /* bytes one L2 stream read moves            */
  std::vector<double> l2_s;
  double mma_flops = 0; /* FLOPs of one mma launch                   */
  std::vector<double> mma_s;
  std::vector<double> clock_cycles; /* cycles the spin counted, per repeat    */
  std::vector<double> clock_s;
  uint32_t launches = 0;        /* empty launches per timed repeat          */
  std::vector<double> launch_s; /* time of those launches, per repeat       */
};

/* Median of `v` (the mean of the middle two for an even count); NaN when
 * empty. */
double pcu_peak_median(std::vector<double> v);

/* The peaks: dram = dram_bytes / median(dram_s), l2 and tensor likewise,
 * sm_clock_hz = median of clock_cycles[i] / clock_s[i], launch_s =
 * median(launch_s) / launches. Every repeat's time and count must be finite
 * and > 0 and every benchmark must have the same number of repeats (>= 1);
 * otherwise an error names the peak ("dram_bytes_per_s", ...) and *out is
 * untouched. */
pascal_status pcu_peaks_from_samples(const pcu_peak_samples &s, pascal_peaks *out,
                                     pascal_error *err);

#endif
