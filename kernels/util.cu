/*
 * util.cu - device utilities of the measurement: the scan data pattern, the
 * GEMM operand fill, and the L2 flush (the range profiler does not flush L2
 * between kernels, so every measured launch is preceded by streaming a
 * buffer larger than L2; docs/gpu.md "Flushing L2").
 */
#include "kernel_load.cuh"
#include "pascal_kernels.h"
#include "reference.h"

namespace {

constexpr unsigned kThreads = 256;

unsigned grid_for(uint64_t n)
{
  const uint64_t g = (n + kThreads - 1) / kThreads;
  return (unsigned)(g > 65536u ? 65536u : (g == 0 ? 1u : g));
}

__global__ void fill_pattern(uint32_t *data, uint64_t words)
{
  for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < words;
       i += (uint64_t)gridDim.x * blockDim.x)
    data[i] = pascal_ref_word(i);
}

__global__ void fill_gemm(__half *x, uint64_t n, uint32_t seed)
{
  for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < n;
       i += (uint64_t)gridDim.x * blockDim.x)
    x[i] = __float2half(pascal_ref_gemm_value(seed, i));
}

__global__ void l2_flush(const uint4 *buf, uint64_t lanes, uint32_t *sink)
{
  uint32_t acc = 0;
  for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < lanes;
       i += (uint64_t)gridDim.x * blockDim.x) {
    const uint4 v = __ldcg(buf + i);
    acc += v.x ^ v.y ^ v.z ^ v.w;
  }
  if (acc == 0x9e3779b9u)
    atomicAdd(sink, acc); /* data-dependent: loads stay */
}

} // namespace

cudaError_t pascal_kern_load_util(void)
{
  return pascal_kern_load(fill_pattern, fill_gemm, l2_flush);
}

cudaError_t pascal_kern_fill_pattern(uint32_t *data, uint64_t words, cudaStream_t stream)
{
  fill_pattern<<<grid_for(words), kThreads, 0, stream>>>(data, words);
  return cudaGetLastError();
}

cudaError_t pascal_kern_fill_gemm_input(__half *x, uint64_t n, uint32_t seed, cudaStream_t stream)
{
  fill_gemm<<<grid_for(n), kThreads, 0, stream>>>(x, n, seed);
  return cudaGetLastError();
}

cudaError_t pascal_kern_l2_flush(const uint4 *buf, uint64_t bytes, uint32_t *sink,
                                 cudaStream_t stream)
{
  if (buf == nullptr || sink == nullptr || bytes % 16u != 0)
    return cudaErrorInvalidValue;
  l2_flush<<<grid_for(bytes / 16u), kThreads, 0, stream>>>(buf, bytes / 16u, sink);
  return cudaGetLastError();
}
