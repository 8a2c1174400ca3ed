/*
 * gemm.cu - the FP16 GEMM of paper Section 4.5 / Appendix `GEMM
 * instantiation`: 128x128 output tiles, reduction steps of 64, FP16 inputs,
 * FP32 accumulation and output, direct CTA raster (CTA (x, y) computes output
 * tile (y, x); the hardware dispatches x fastest). At reduction step k, CTA
 * (i, j) reads the 16 KiB tiles A(i, k) and B(k, j), the traffic the GEMM
 * extension of the predictor models. Eight warps, each owning a 64x32 slice
 * of the tile as 4x2 WMMA 16x16x16 accumulators.
 */
#include <mma.h>

#include "kernel_load.cuh"
#include "pascal_kernels.h"

namespace {

using namespace nvcuda;

constexpr uint32_t TM = PASCAL_KERN_GEMM_TILE_M, TN = PASCAL_KERN_GEMM_TILE_N,
                   TK = PASCAL_KERN_GEMM_TILE_K;
constexpr uint32_t LD = TK + 8; /* padded row (halves) against bank conflicts */

/* Copy a 128 x 64 FP16 tile (rows of `ld` halves in global) into shared memory. */
__device__ __forceinline__ void load_tile(__half (*dst)[LD], const __half *src, uint64_t ld)
{
  constexpr uint32_t chunks = TK / 8; /* 16-byte chunks per row */
  for (uint32_t c = threadIdx.x; c < TM * chunks; c += blockDim.x) {
    const uint32_t r = c / chunks, q = c % chunks;
    const uint4 v = __ldcg(reinterpret_cast<const uint4 *>(src + r * ld) + q);
    *reinterpret_cast<uint4 *>(&dst[r][q * 8]) = v;
  }
}

__global__ void __launch_bounds__(PASCAL_KERN_GEMM_THREADS)
    gemm_128x128x64(const __half *A, const __half *B, float *C, uint32_t Ng, uint32_t Kg)
{
  __shared__ __align__(128) __half As[TM][LD];
  __shared__ __align__(128) __half Bs[TN][LD]; /* Bs[n][k]: B column-major */
  const uint32_t tile_row = blockIdx.y, tile_col = blockIdx.x;
  const uint32_t warp = threadIdx.x / 32u;
  const uint32_t wm = warp / 4u, wn = warp % 4u; /* 2 x 4 warps of 64 x 32 */

  wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[4][2];
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 2; ++j)
      wmma::fill_fragment(acc[i][j], 0.0f);

  const __half *a_base = A + (uint64_t)tile_row * TM * Kg;
  const __half *b_base = B + (uint64_t)tile_col * TN * Kg;
  for (uint32_t k0 = 0; k0 < Kg; k0 += TK) {
    load_tile(As, a_base + k0, Kg);
    load_tile(Bs, b_base + k0, Kg);
    __syncthreads();
    for (uint32_t kk = 0; kk < TK; kk += 16) {
      wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> a[4];
      wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::col_major> b[2];
      for (int i = 0; i < 4; ++i)
        wmma::load_matrix_sync(a[i], &As[wm * 64 + i * 16][kk], LD);
      for (int j = 0; j < 2; ++j)
        wmma::load_matrix_sync(b[j], &Bs[wn * 32 + j * 16][kk], LD);
      for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 2; ++j)
          wmma::mma_sync(acc[i][j], a[i], b[j], acc[i][j]);
    }
    __syncthreads();
  }
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 2; ++j) {
      const uint64_t row = (uint64_t)tile_row * TM + wm * 64 + i * 16;
      const uint64_t col = (uint64_t)tile_col * TN + wn * 32 + j * 16;
      wmma::store_matrix_sync(C + row * Ng + col, acc[i][j], Ng, wmma::mem_row_major);
    }
}

} // namespace

cudaError_t pascal_kern_load_gemm(void)
{
  return pascal_kern_load(gemm_128x128x64);
}

cudaError_t pascal_kern_gemm(const __half *A, const __half *B, float *C, uint32_t Mg, uint32_t Ng,
                             uint32_t Kg, cudaStream_t stream)
{
  if (A == nullptr || B == nullptr || C == nullptr || Mg == 0 || Ng == 0 || Kg == 0 ||
      Mg % TM != 0 || Ng % TN != 0 || Kg % TK != 0 || Mg / TM > 65535u)
    return cudaErrorInvalidValue;
  gemm_128x128x64<<<dim3(Ng / TN, Mg / TM), PASCAL_KERN_GEMM_THREADS, 0, stream>>>(A, B, C, Ng, Kg);
  return cudaGetLastError();
}
