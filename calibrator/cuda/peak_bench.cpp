/*
 * peak_bench.cpp - the device-peak microbenchmarks timed with CUDA events
 * (peak_bench.h): buffer sizes, grids, warm-up and repeats; the medians and
 * conversions are peak_math.cpp's.
 */
#include "peak_bench.h"

#include <functional>

#include "peak_kernels.h"

namespace {

/* Sizes of the benchmarks. */
const uint64_t kDramMinBytes = 512ull << 20; /* DRAM read: >= 8 x L2 and >= 512 MiB */
const uint64_t kL2TargetBytes = 4ull << 30;  /* L2 reads: about 4 GiB per repeat */
const uint32_t kCtasPerSm = 8;               /* stream read: 8 x 256 threads per SM */
const uint32_t kMmaCtasPerSm = 4;            /* mma: 32 warps per SM */
const uint32_t kMmaIters = 16384;            /* rounds of 4 MMAs per warp */
const uint64_t kClockCycles = 20000000;      /* about 10 ms at 2 GHz */
const uint32_t kLaunches = 1000;             /* empty launches per repeat */

/* Device memory and the stream with its events, released on every path. */
struct bench_env {
  cudaStream_t stream = nullptr;
  cudaEvent_t start = nullptr, stop = nullptr;
  void *buf = nullptr;
  uint32_t *sink = nullptr;
  float *mma_out = nullptr;
  unsigned long long *cycles = nullptr;
  ~bench_env()
  {
    if (buf)
      cudaFree(buf);
    if (sink)
      cudaFree(sink);
    if (mma_out)
      cudaFree(mma_out);
    if (cycles)
      cudaFree(cycles);
    if (start)
      cudaEventDestroy(start);
    if (stop)
      cudaEventDestroy(stop);
    if (stream)
      cudaStreamDestroy(stream);
  }
};

/* Seconds `enqueue` takes on the stream, between two events. */
pascal_status timed(bench_env &env, const char *what, const std::function<cudaError_t()> &enqueue,
                    double *seconds, pascal_error *err)
{
  cudaError_t e = cudaEventRecord(env.start, env.stream);
  if (e == cudaSuccess)
    e = enqueue();
  if (e == cudaSuccess)
    e = cudaEventRecord(env.stop, env.stream);
  if (e == cudaSuccess)
    e = cudaEventSynchronize(env.stop);
  float ms = 0;
  if (e == cudaSuccess)
    e = cudaEventElapsedTime(&ms, env.start, env.stop);
  if (e != cudaSuccess)
    return pcu_fail(err, what, e);
  *seconds = 1e-3 * (double)ms;
  return PASCAL_OK;
}

/* One warm-up, then `repeats` timed runs appended to *times. */
pascal_status repeat(bench_env &env, const char *what, uint32_t repeats,
                     const std::function<cudaError_t()> &enqueue, std::vector<double> *times,
                     pascal_error *err)
{
  double s = 0;
  pascal_status st = timed(env, what, enqueue, &s, err);
  for (uint32_t i = 0; st == PASCAL_OK && i < repeats; ++i)
    if ((st = timed(env, what, enqueue, &s, err)) == PASCAL_OK)
      times->push_back(s);
  return st;
}

pascal_status setup(const pcu_info &info, uint64_t buf_bytes, bench_env &env, pascal_error *err)
{
  const uint32_t mma_ctas = info.sm_count * kMmaCtasPerSm;
  cudaError_t e = cudaStreamCreateWithFlags(&env.stream, cudaStreamNonBlocking);
  if (e == cudaSuccess)
    e = cudaEventCreate(&env.start);
  if (e == cudaSuccess)
    e = cudaEventCreate(&env.stop);
  if (e == cudaSuccess)
    e = cudaMalloc(&env.buf, buf_bytes);
  if (e == cudaSuccess)
    e = cudaMalloc((void **)&env.sink, sizeof *env.sink);
  if (e == cudaSuccess)
    e = cudaMalloc((void **)&env.mma_out, mma_ctas * sizeof *env.mma_out);
  if (e == cudaSuccess)
    e = cudaMalloc((void **)&env.cycles, info.sm_count * sizeof *env.cycles);
  if (e == cudaSuccess)
    e = cudaMemsetAsync(env.buf, 0x5a, buf_bytes, env.stream);
  if (e == cudaSuccess)
    e = cudaMemsetAsync(env.sink, 0, sizeof *env.sink, env.stream);
  if (e == cudaSuccess)
    e = cudaStreamSynchronize(env.stream);
  return e == cudaSuccess ? PASCAL_OK : pcu_fail(err, "peak benchmark setup", e);
}

/* Every warp ran every MMA: each CTA's sum is PASCAL_PEAK_MMA_CHAINS x iters. */
pascal_status check_mma(const bench_env &env, uint32_t ctas, pascal_error *err)
{
  std::vector<float> got(ctas);
  cudaError_t e = cudaMemcpy(got.data(), env.mma_out, ctas * sizeof(float), cudaMemcpyDeviceToHost);
  if (e != cudaSuccess)
    return pcu_fail(err, "mma benchmark result", e);
  const float want = (float)PASCAL_PEAK_MMA_CHAINS * (float)kMmaIters;
  for (uint32_t c = 0; c < ctas; ++c)
    if (got[c] != want)
      return pascal_error_set(err, PASCAL_ERANGE, "tensor_flops",
                              "mma benchmark: CTA %u counted %g MMAs per accumulator set, not %g",
                              c, (double)got[c], (double)want);
  return PASCAL_OK;
}

/* The largest cycle count any SM saw in the last clock spin. */
pascal_status clock_cycles(const bench_env &env, uint32_t ctas, double *out, pascal_error *err)
{
  std::vector<unsigned long long> got(ctas);
  cudaError_t e =
      cudaMemcpy(got.data(), env.cycles, ctas * sizeof *env.cycles, cudaMemcpyDeviceToHost);
  if (e != cudaSuccess)
    return pcu_fail(err, "clock spin result", e);
  unsigned long long m = 0;
  for (unsigned long long c : got)
    m = c > m ? c : m;
  *out = (double)m;
  return PASCAL_OK;
}

pascal_status measure(const pcu_info &info, uint32_t repeats, pcu_peak_samples &s,
                      pascal_error *err)
{
  if (info.sm_count == 0 || info.l2_bytes == 0)
    return pascal_error_set(err, PASCAL_EINVAL, "device", "the device reports no SMs or no L2");
  uint64_t dram = 8 * info.l2_bytes;
  if (dram < kDramMinBytes)
    dram = kDramMinBytes;
  if (dram > info.global_bytes / 4)
    dram = info.global_bytes / 4;
  dram &= ~(uint64_t)15;
  const uint64_t l2 = (info.l2_bytes / 4) & ~(uint64_t)15;
  if (dram < 2 * info.l2_bytes || l2 == 0)
    return pascal_error_set(err, PASCAL_ENOMEM, "dram_bytes_per_s",
                            "a streaming read of %llu bytes is not far above L2 (%llu bytes)",
                            (unsigned long long)dram, (unsigned long long)info.l2_bytes);
  const uint32_t passes = (uint32_t)((kL2TargetBytes + l2 - 1) / l2);
  bench_env env;
  pascal_status st = setup(info, dram, env, err);
  if (st)
    return st;
  const uint4 *buf = (const uint4 *)env.buf;
  const uint32_t stream_ctas = info.sm_count * kCtasPerSm, mma_ctas = info.sm_count * kMmaCtasPerSm;
  s.dram_bytes = (double)dram;
  s.l2_bytes = (double)l2 * passes;
  s.mma_flops = (double)mma_ctas * (PASCAL_PEAK_THREADS / 32) * kMmaIters * PASCAL_PEAK_MMA_CHAINS *
                PASCAL_PEAK_MMA_FLOPS;
  s.launches = kLaunches;
  if ((st = repeat(
           env, "DRAM stream read", repeats,
           [&] { return pascal_kern_peak_stream(buf, dram, 1, stream_ctas, env.sink, env.stream); },
           &s.dram_s, err)))
    return st;
  if ((st = repeat(
           env, "L2 stream read", repeats,
           [&] {
             return pascal_kern_peak_stream(buf, l2, passes, stream_ctas, env.sink, env.stream);
           },
           &s.l2_s, err)))
    return st;
  if ((st = repeat(
           env, "mma benchmark", repeats,
           [&] { return pascal_kern_peak_mma(mma_ctas, kMmaIters, env.mma_out, env.stream); },
           &s.mma_s, err)) ||
      (st = check_mma(env, mma_ctas, err)))
    return st;
  for (uint32_t i = 0; i <= repeats; ++i) { /* the first is the warm-up */
    double sec = 0, cycles = 0;
    if ((st = timed(
             env, "clock spin",
             [&] {
               return pascal_kern_peak_clock(info.sm_count, kClockCycles, env.cycles, env.stream);
             },
             &sec, err)) ||
        (st = clock_cycles(env, info.sm_count, &cycles, err)))
      return st;
    if (i == 0)
      continue;
    s.clock_s.push_back(sec);
    s.clock_cycles.push_back(cycles);
  }
  return repeat(
      env, "empty-kernel launch", repeats,
      [&] {
        cudaError_t e = cudaSuccess;
        for (uint32_t i = 0; e == cudaSuccess && i < kLaunches; ++i)
          e = pascal_kern_peak_empty(env.stream);
        return e;
      },
      &s.launch_s, err);
}

} // namespace

pascal_status pcu_peak_measure(const pcu_info &info, uint32_t repeats, pcu_peak_samples *samples,
                               pascal_peaks *out, pascal_error *err)
{
  if (repeats == 0)
    repeats = PCU_PEAK_REPEATS;
  pcu_peak_samples s;
  pascal_status st = measure(info, repeats, s, err);
  if (st == PASCAL_OK)
    st = pcu_peaks_from_samples(s, out, err);
  if (st == PASCAL_OK && samples)
    *samples = s;
  return st;
}

void pcu_peak_print(FILE *out, const pcu_peak_samples &s, const pascal_peaks &p)
{
  fprintf(out, "peaks (warm-up + %zu repeats each, median):\n", s.dram_s.size());
  fprintf(out, "  DRAM          %.1f GB/s (stream read of %.0f MiB with __ldcg)\n",
          p.dram_bytes_per_s / 1e9, s.dram_bytes / (1 << 20));
  fprintf(out, "  L2            %.1f GB/s (%.0f MiB of L2-resident reads)\n",
          p.l2_bytes_per_s / 1e9, s.l2_bytes / (1 << 20));
  fprintf(out, "  tensor        %.1f TFLOP/s (FP16 16x16x16 wmma, FP32 accumulate)\n",
          p.tensor_flops / 1e12);
  fprintf(out, "  SM clock      %.0f MHz (clock64 against event time)\n", p.sm_clock_hz / 1e6);
  fprintf(out, "  launch        %.2f us (%u back-to-back empty launches)\n", p.launch_s * 1e6,
          s.launches);
}
