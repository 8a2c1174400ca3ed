/*
 * peaks.cu - the device-peak microbenchmarks (peak_kernels.h): a streaming
 * __ldcg read, chained FP16 wmma (four accumulators per warp, one round per
 * loop iteration: 8 HMMA on sm_90), a clock64() spin and an empty kernel. The
 * host side that times them and turns the times into peaks is
 * calibrator/cuda/peak_bench.cpp.
 */
#include "device_common.cuh"
#include "kernel_load.cuh"
#include "peak_kernels.h"

namespace {

__global__ void __launch_bounds__(PASCAL_PEAK_THREADS)
    stream_read(const uint4 *buf, uint64_t lanes, uint32_t passes, uint32_t *sink)
{
  uint32_t acc = 0;
  const uint64_t stride = (uint64_t)gridDim.x * blockDim.x;
  for (uint32_t p = 0; p < passes; ++p)
    for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < lanes; i += stride) {
      const uint4 v = __ldcg(buf + i);
      acc += v.x ^ v.y ^ v.z ^ v.w;
    }
  if (acc == 0x9e3779b9u)
    atomicAdd(sink, acc); /* data-dependent: loads stay */
}

__global__ void __launch_bounds__(PASCAL_PEAK_THREADS) mma_chain(uint32_t iters, float *out)
{
  nvcuda::wmma::fragment<nvcuda::wmma::matrix_a, 16, 16, 16, __half, nvcuda::wmma::row_major> a;
  nvcuda::wmma::fragment<nvcuda::wmma::matrix_b, 16, 16, 16, __half, nvcuda::wmma::col_major> b;
  nvcuda::wmma::fragment<nvcuda::wmma::accumulator, 16, 16, 16, float> c[PASCAL_PEAK_MMA_CHAINS];
  nvcuda::wmma::fill_fragment(a, __float2half(1.0f));
  nvcuda::wmma::fill_fragment(b, __float2half(0.0625f));
  for (unsigned j = 0; j < PASCAL_PEAK_MMA_CHAINS; ++j)
    nvcuda::wmma::fill_fragment(c[j], 0.0f);
#pragma unroll 1
  for (uint32_t i = 0; i < iters; ++i)
#pragma unroll
    for (unsigned j = 0; j < PASCAL_PEAK_MMA_CHAINS; ++j)
      nvcuda::wmma::mma_sync(c[j], a, b, c[j]);
  /* Every element of every accumulator feeds the result (one left out lets
   * the compiler drop the HMMA that computes it, tests/gpu/test_sass_hmma.py):
   * a chain whose elements differ counts as NaN, which the host check fails. */
  float s = 0;
  for (unsigned j = 0; j < PASCAL_PEAK_MMA_CHAINS; ++j)
    s += pascal_dev_mma_count(c[j]);
  if (threadIdx.x == 0)
    out[blockIdx.x] = s;
}

__global__ void clock_spin(uint64_t cycles, unsigned long long *seen)
{
  const long long start = clock64();
  long long now = start;
  while ((uint64_t)(now - start) < cycles)
    now = clock64();
  seen[blockIdx.x] = (unsigned long long)(now - start);
}

__global__ void empty_kernel() {}

} // namespace

cudaError_t pascal_kern_load_peaks(void)
{
  return pascal_kern_load(stream_read, mma_chain, clock_spin, empty_kernel);
}

cudaError_t pascal_kern_peak_stream(const uint4 *buf, uint64_t bytes, uint32_t passes,
                                    uint32_t ctas, uint32_t *sink, cudaStream_t stream)
{
  if (buf == nullptr || sink == nullptr || bytes == 0 || bytes % 16u != 0 || passes == 0 ||
      ctas == 0)
    return cudaErrorInvalidValue;
  stream_read<<<ctas, PASCAL_PEAK_THREADS, 0, stream>>>(buf, bytes / 16u, passes, sink);
  return cudaGetLastError();
}

cudaError_t pascal_kern_peak_mma(uint32_t ctas, uint32_t iters, float *out, cudaStream_t stream)
{
  if (out == nullptr || ctas == 0 || iters == 0)
    return cudaErrorInvalidValue;
  mma_chain<<<ctas, PASCAL_PEAK_THREADS, 0, stream>>>(iters, out);
  return cudaGetLastError();
}

cudaError_t pascal_kern_peak_clock(uint32_t ctas, uint64_t cycles, unsigned long long *cycles_seen,
                                   cudaStream_t stream)
{
  if (cycles_seen == nullptr || ctas == 0 || cycles == 0)
    return cudaErrorInvalidValue;
  clock_spin<<<ctas, 1, 0, stream>>>(cycles, cycles_seen);
  return cudaGetLastError();
}

cudaError_t pascal_kern_peak_empty(cudaStream_t stream)
{
  empty_kernel<<<1, 1, 0, stream>>>();
  return cudaGetLastError();
}
