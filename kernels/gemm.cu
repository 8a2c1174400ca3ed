/*
 * gemm.cu - the FP16 GEMM of paper Section 4.5 / Appendix `GEMM
 * instantiation`: 128x128 output tiles, reduction steps of 64, FP16 inputs,
 * FP32 accumulation and output, direct CTA raster (CTA i computes output
 * tile (i / n_c, i % n_c), n_c = Ng / 128: row after row). At reduction step k, CTA
 * (i, j) reads the 16 KiB tiles A(i, k) and B(k, j), the traffic the GEMM
 * extension of the predictor models. Eight warps, each owning a 64x32 slice
 * of the tile as 4x2 WMMA 16x16x16 accumulators.
 *
 * The same tile as a Triton matmul's configuration (issue 31): `stages`
 * buffers of k-steps in dynamic shared memory filled by cp.async
 * (stages - 1 steps in flight while one is computed) and the grouped raster
 * of pascal/gemm_raster.h on a one-dimensional grid. The calibration's GEMM
 * is this kernel's own configuration (one stage: each step waited for;
 * direct raster), so that every configuration run differs from it only in
 * what the configuration states. Until 2026-11-28 the calibration ran a
 * kernel of its own that loaded each step through registers; on an H100
 * it filled the same bytes (to 0.01 %) in 1.78x the time of this one at
 * one stage (runs 8 and 9, docs/results-h100.md), a difference the fitted
 * step overhead of the configuration runs would otherwise absorb.
 */
#include <cuda_pipeline.h>
#include <mma.h>

#include "kernel_load.cuh"
#include "pascal/gemm_raster.h"
#include "pascal_kernels.h"

namespace {

using namespace nvcuda;

constexpr uint32_t TM = PASCAL_KERN_GEMM_TILE_M, TN = PASCAL_KERN_GEMM_TILE_N,
                   TK = PASCAL_KERN_GEMM_TILE_K;
constexpr uint32_t LD = TK + 8; /* padded row (halves) against bank conflicts */

/* Copy a 128 x 64 FP16 tile (rows of `ld` halves in global) into shared
 * memory by cp.async (16 bytes per instruction, L2 only). */
__device__ __forceinline__ void load_tile_async(__half (*dst)[LD], const __half *src, uint64_t ld)
{
  constexpr uint32_t chunks = TK / 8;
  for (uint32_t c = threadIdx.x; c < TM * chunks; c += blockDim.x) {
    const uint32_t r = c / chunks, q = c % chunks;
    __pipeline_memcpy_async(&dst[r][q * 8], src + r * ld + q * 8, 16);
  }
}

using acc_tile = wmma::fragment<wmma::accumulator, 16, 16, 16, float>[4][2];

/* One k-step of a warp's 64 x 32 slice from the tiles in shared memory. */
__device__ __forceinline__ void mma_step(acc_tile &acc, __half (*As)[LD], __half (*Bs)[LD],
                                         uint32_t wm, uint32_t wn)
{
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
}

__device__ __forceinline__ void store_tile(acc_tile &acc, float *C, uint32_t Ng, uint32_t tile_row,
                                           uint32_t tile_col, uint32_t wm, uint32_t wn)
{
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 2; ++j) {
      const uint64_t row = (uint64_t)tile_row * TM + wm * 64 + i * 16;
      const uint64_t col = (uint64_t)tile_col * TN + wn * 32 + j * 16;
      wmma::store_matrix_sync(C + row * Ng + col, acc[i][j], Ng, wmma::mem_row_major);
    }
}

/* The 128 x 128 x 64 tile in a Triton configuration: `stages` buffers (the dynamic
 * shared memory holds stages A and stages B tiles), CTA blockIdx.x runs the
 * tile of the grouped raster. Step k's copies are committed as one group;
 * waiting for all but the newest stages - 1 groups leaves step k's landed. */
__global__ void __launch_bounds__(PASCAL_KERN_GEMM_THREADS)
    gemm_128x128x64_staged(const __half *A, const __half *B, float *C, uint32_t Mg, uint32_t Ng,
                           uint32_t Kg, uint32_t stages, uint32_t group_m)
{
  extern __shared__ __align__(128) unsigned char smem[];
  auto As = reinterpret_cast<__half(*)[TM][LD]>(smem);
  auto Bs = reinterpret_cast<__half(*)[TN][LD]>(smem + (size_t)stages * TM * LD * sizeof(__half));
  uint32_t tile_row, tile_col;
  pascal_gemm_raster_ij(Mg / TM, Ng / TN, group_m, blockIdx.x, &tile_row, &tile_col);
  const uint32_t warp = threadIdx.x / 32u;
  const uint32_t wm = warp / 4u, wn = warp % 4u;

  acc_tile acc;
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 2; ++j)
      wmma::fill_fragment(acc[i][j], 0.0f);

  const __half *a_base = A + (uint64_t)tile_row * TM * Kg;
  const __half *b_base = B + (uint64_t)tile_col * TN * Kg;
  const uint32_t n_k = Kg / TK;
  for (uint32_t s = 0; s + 1 < stages; ++s) { /* the prologue: stages - 1 steps */
    if (s < n_k) {
      load_tile_async(As[s], a_base + (uint64_t)s * TK, Kg);
      load_tile_async(Bs[s], b_base + (uint64_t)s * TK, Kg);
    }
    __pipeline_commit();
  }
  for (uint32_t k = 0; k < n_k; ++k) {
    const uint32_t next = k + stages - 1; /* into the buffer step k - 1 freed */
    if (next < n_k) {
      load_tile_async(As[next % stages], a_base + (uint64_t)next * TK, Kg);
      load_tile_async(Bs[next % stages], b_base + (uint64_t)next * TK, Kg);
    }
    __pipeline_commit();
    __pipeline_wait_prior(stages - 1);
    __syncthreads();
    mma_step(acc, As[k % stages], Bs[k % stages], wm, wn);
    __syncthreads();
  }
  store_tile(acc, C, Ng, tile_row, tile_col, wm, wn);
}

} // namespace

cudaError_t pascal_kern_load_gemm(void)
{
  return pascal_kern_load(gemm_128x128x64_staged);
}

cudaError_t pascal_kern_gemm(const __half *A, const __half *B, float *C, uint32_t Mg, uint32_t Ng,
                             uint32_t Kg, cudaStream_t stream)
{
  return pascal_kern_gemm_staged(A, B, C, Mg, Ng, Kg, 1, 1, stream);
}

cudaError_t pascal_kern_gemm_staged(const __half *A, const __half *B, float *C, uint32_t Mg,
                                    uint32_t Ng, uint32_t Kg, uint32_t stages, uint32_t group_m,
                                    cudaStream_t stream)
{
  if (A == nullptr || B == nullptr || C == nullptr || Mg == 0 || Ng == 0 || Kg == 0 ||
      Mg % TM != 0 || Ng % TN != 0 || Kg % TK != 0 || stages < 1 ||
      stages > PASCAL_KERN_GEMM_STAGES_MAX || group_m < 1 ||
      (uint64_t)(Mg / TM) * (Ng / TN) > 0x7fffffffu)
    return cudaErrorInvalidValue;
  const size_t smem = (size_t)stages * (TM + TN) * LD * sizeof(__half);
  cudaError_t e = cudaFuncSetAttribute(gemm_128x128x64_staged,
                                       cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
  if (e != cudaSuccess)
    return e;
  gemm_128x128x64_staged<<<(Mg / TM) * (Ng / TN), PASCAL_KERN_GEMM_THREADS, smem, stream>>>(
      A, B, C, Mg, Ng, Kg, stages, group_m);
  return cudaGetLastError();
}
