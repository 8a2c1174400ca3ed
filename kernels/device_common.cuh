/*
 * device_common.cuh - device helpers shared by the scan kernels: lane
 * consumption, the per-CTA checksum reduction and the tensor-core compute
 * loop (m WMMA iterations per consumed block, Algorithm `dynamic-kernel`).
 */
#ifndef PASCAL_KERNELS_DEVICE_COMMON_CUH
#define PASCAL_KERNELS_DEVICE_COMMON_CUH

#include <cuda_fp16.h>
#include <mma.h>
#include <stdint.h>

/* Fold one 16-byte lane into a running word sum (mod 2^32). */
__device__ __forceinline__ uint32_t pascal_dev_consume(uint32_t acc, uint4 v)
{
  return acc + v.x + v.y + v.z + v.w;
}

/* Sum `v` over the CTA (blockDim.x a multiple of 32, at most 1024 threads);
 * the result is valid in thread 0. `scratch` holds 32 words of shared memory. */
__device__ __forceinline__ uint32_t pascal_dev_cta_sum(uint32_t v, uint32_t *scratch)
{
  for (int off = 16; off > 0; off >>= 1)
    v += __shfl_xor_sync(0xffffffffu, v, off);
  const unsigned warp = threadIdx.x / 32u, lane = threadIdx.x % 32u;
  __syncthreads(); /* scratch may still be read by a previous call */
  if (lane == 0)
    scratch[warp] = v;
  __syncthreads();
  uint32_t s = 0;
  if (threadIdx.x == 0)
    for (unsigned w = 0; w < blockDim.x / 32u; ++w)
      s += scratch[w];
  return s;
}

/* The MMA count an accumulator holds when every element agrees (with A = 1
 * and B = 1/16 each MMA adds exactly 1 to every element), else NaN. Every
 * element feeds the result: a 16x16x16 wmma is two HMMA.16816 on sm_90, one
 * per n = 8 half, and an element that feeds nothing lets the compiler remove
 * the HMMA computing it (tests/gpu/test_sass_hmma.py counts them). */
__device__ __forceinline__ float
pascal_dev_mma_count(const nvcuda::wmma::fragment<nvcuda::wmma::accumulator, 16, 16, 16, float> &c)
{
  bool same = true;
  for (int e = 1; e < c.num_elements; ++e)
    same = same && c.x[e] == c.x[0];
  return same ? c.x[0] : __int_as_float(0x7fc00000);
}

/* The compute loop: m chained 16x16x16 FP16 MMAs with FP32 accumulation per
 * warp, one wmma (two HMMA on sm_90) per step, not unrolled, so that the
 * SASS holds exactly the work of one step. The returned count equals m when
 * all iterations ran and every element agrees (0xffffffff otherwise); it is
 * folded into the CTA's result so that no MMA is dead. */
struct pascal_dev_mma {
  nvcuda::wmma::fragment<nvcuda::wmma::matrix_a, 16, 16, 16, __half, nvcuda::wmma::row_major> a;
  nvcuda::wmma::fragment<nvcuda::wmma::matrix_b, 16, 16, 16, __half, nvcuda::wmma::col_major> b;

  __device__ __forceinline__ void init()
  {
    nvcuda::wmma::fill_fragment(a, __float2half(1.0f));
    nvcuda::wmma::fill_fragment(b, __float2half(0.0625f));
  }

  __device__ __forceinline__ uint32_t run(uint32_t m) const
  {
    nvcuda::wmma::fragment<nvcuda::wmma::accumulator, 16, 16, 16, float> c;
    nvcuda::wmma::fill_fragment(c, 0.0f);
#pragma unroll 1
    for (uint32_t i = 0; i < m; ++i)
      nvcuda::wmma::mma_sync(c, a, b, c);
    const float n = pascal_dev_mma_count(c);
    return n == n ? (uint32_t)n : 0xffffffffu;
  }
};

#endif
