/*
 * peak_math.cpp - medians and unit conversions of the peak microbenchmarks
 * (peak_math.h).
 */
#include "peak_math.h"

#include <math.h>

#include <algorithm>

double pcu_peak_median(std::vector<double> v)
{
  if (v.empty())
    return NAN;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

namespace {

bool positive(double x)
{
  return isfinite(x) && x > 0;
}

/* Every entry of `times` (and of `counts` when given) positive, and as many
 * as `repeats`. */
pascal_status check_repeats(const char *peak, const char *what, const std::vector<double> &times,
                            const std::vector<double> *counts, size_t repeats, pascal_error *err)
{
  if (times.size() != repeats || (counts && counts->size() != repeats))
    return pascal_error_set(err, PASCAL_EINVAL, peak, "the %s has %zu repeats, the others %zu",
                            what, times.size(), repeats);
  for (size_t i = 0; i < repeats; ++i)
    if (!positive(times[i]) || (counts && !positive((*counts)[i])))
      return pascal_error_set(err, PASCAL_ERANGE, peak, "the %s gave no positive %s in repeat %zu",
                              what, positive(times[i]) ? "count" : "time", i);
  return PASCAL_OK;
}

pascal_status check_work(const char *peak, const char *what, double work, pascal_error *err)
{
  if (!positive(work))
    return pascal_error_set(err, PASCAL_EINVAL, peak, "the %s did no work (%g)", what, work);
  return PASCAL_OK;
}

} // namespace

pascal_status pcu_peaks_from_samples(const pcu_peak_samples &s, pascal_peaks *out,
                                     pascal_error *err)
{
  const size_t n = s.dram_s.size();
  if (n == 0)
    return pascal_error_set(err, PASCAL_EINVAL, "dram_bytes_per_s",
                            "the DRAM stream read has no repeat");
  pascal_status st;
  if ((st = check_work("dram_bytes_per_s", "DRAM stream read", s.dram_bytes, err)) ||
      (st = check_repeats("dram_bytes_per_s", "DRAM stream read", s.dram_s, nullptr, n, err)) ||
      (st = check_work("l2_bytes_per_s", "L2 stream read", s.l2_bytes, err)) ||
      (st = check_repeats("l2_bytes_per_s", "L2 stream read", s.l2_s, nullptr, n, err)) ||
      (st = check_work("tensor_flops", "mma benchmark", s.mma_flops, err)) ||
      (st = check_repeats("tensor_flops", "mma benchmark", s.mma_s, nullptr, n, err)) ||
      (st = check_repeats("sm_clock_hz", "clock spin", s.clock_s, &s.clock_cycles, n, err)) ||
      (st = check_work("launch_s", "empty-kernel launch", (double)s.launches, err)) ||
      (st = check_repeats("launch_s", "empty-kernel launch", s.launch_s, nullptr, n, err)))
    return st;
  std::vector<double> hz(n);
  for (size_t i = 0; i < n; ++i)
    hz[i] = s.clock_cycles[i] / s.clock_s[i];
  pascal_peaks p;
  p.dram_bytes_per_s = s.dram_bytes / pcu_peak_median(s.dram_s);
  p.l2_bytes_per_s = s.l2_bytes / pcu_peak_median(s.l2_s);
  p.tensor_flops = s.mma_flops / pcu_peak_median(s.mma_s);
  p.sm_clock_hz = pcu_peak_median(hz);
  p.launch_s = pcu_peak_median(s.launch_s) / (double)s.launches;
  if ((st = pascal_peaks_check(&p, err)))
    return st;
  *out = p;
  return PASCAL_OK;
}
