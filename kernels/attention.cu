/*
 * attention.cu - a FlashAttention-2-style forward kernel (the paper's
 * exploratory attention section; docs/attention.md): attention as a shared
 * cyclic scan of K/V blocks.
 *
 * CTA c computes the 64-row query tile c mod t of head c / t (t = seq_q /
 * 64): thread 0 bulk-copies the tile into shared memory, then streams its
 * K/V head's 64-row steps 0 .. n - 1 (K and V, 8 KiB each, one mbarrier per
 * stage) through `stages` buffers with the open scan's priming rule (n_p
 * steps primed, step j + n_p issued once step j is consumed). Per step each
 * of the four warps owns 16 query rows: S = Q K^T (16 wmma), the online
 * softmax on its rows (running maximum m and sum l in the base-2 domain,
 * the output accumulator rescaled by 2^(m_old - m_new), probabilities
 * rounded to FP16 as FlashAttention-2 does), then O += P V (16 wmma, the
 * FP32 accumulator kept in shared memory). The output O / l is written once,
 * in FP32. Occupancy is forced through the dynamic shared-memory size
 * (kernels/occupancy.cu), as for the open scan.
 */
#include <math.h>
#include <mma.h>

#include "kernel_load.cuh"
#include "occupancy.h"
#include "pascal_kernels.h"
#include "tma.cuh"

namespace {

using namespace nvcuda;

constexpr uint32_t T = PASCAL_KERN_ATT_TILE; /* rows of a tile, head_dim       */
constexpr uint32_t TILE = T * T;             /* halves of a Q, K or V tile     */
constexpr uint32_t TILE_BYTES = TILE * 2u;   /* 8 KiB                          */
constexpr float LOG2E = 1.4426950408889634f; /* exp(x) = 2^(x log2 e)          */
constexpr float SCALE_LOG2 = 0.125f * LOG2E; /* softmax scale 1/sqrt(64)       */
constexpr uint64_t WAIT_CYCLES = PASCAL_KERN_TMA_WAIT_CYCLES;

struct att_params {
  const __half *q, *k, *v;
  float *o;
  uint32_t seq_q, seq_kv, tiles, heads_per_kv, d, priming;
};

/* Offsets (bytes) of the dynamic shared memory at depth d. */
struct att_layout {
  uint32_t bars, q, kv, s, p, o, m, l, total;
  __host__ __device__ explicit att_layout(uint32_t d)
  {
    bars = 0;
    q = 128u * (((d + 1u) * 8u + 127u) / 128u); /* d stage barriers and the query's */
    kv = q + TILE_BYTES;
    s = kv + d * 2u * TILE_BYTES;
    p = s + TILE * 4u;
    o = p + TILE_BYTES;
    m = o + TILE * 4u;
    l = m + T * 4u;
    total = l + T * 4u;
  }
};

struct att_smem {
  uint64_t *bars; /* [0, d): K/V stages; [d]: the query tile */
  __half *q, *kv;
  float *s;
  __half *p;
  float *o, *m, *l;
};

__device__ __forceinline__ att_smem carve(unsigned char *base, uint32_t d)
{
  const att_layout L(d);
  return att_smem{
      reinterpret_cast<uint64_t *>(base + L.bars), reinterpret_cast<__half *>(base + L.q),
      reinterpret_cast<__half *>(base + L.kv),     reinterpret_cast<float *>(base + L.s),
      reinterpret_cast<__half *>(base + L.p),      reinterpret_cast<float *>(base + L.o),
      reinterpret_cast<float *>(base + L.m),       reinterpret_cast<float *>(base + L.l)};
}

/* Thread 0: K/V step j of the CTA's K/V head into stage j mod d. */
__device__ __forceinline__ void load_step(const att_params &p, const att_smem &sm, const __half *kh,
                                          const __half *vh, uint64_t j)
{
  const uint32_t slot = (uint32_t)(j % p.d);
  __half *dst = sm.kv + (size_t)slot * 2u * TILE;
  pascal_tma_expect(&sm.bars[slot], 2u * TILE_BYTES);
  pascal_tma_copy(dst, kh + j * TILE, TILE_BYTES, &sm.bars[slot]);
  pascal_tma_copy(dst + TILE, vh + j * TILE, TILE_BYTES, &sm.bars[slot]);
}

/* One warp's 16 x 64 product C (FP32, rows of T) = A (16 x 64 FP16, rows
 * of T) x B (64 x 64 FP16), added to C when `add`, else into a zeroed C:
 * 16 wmma. B's 16 x 16 tile (kt, nt) is at b + kt * b_k + nt * b_n in
 * layout L. */
template <typename L>
__device__ __forceinline__ void warp_product(float *c, bool add, const __half *a, const __half *b,
                                             uint32_t b_k, uint32_t b_n)
{
#pragma unroll
  for (uint32_t nt = 0; nt < T / 16u; ++nt) {
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
    if (add)
      wmma::load_matrix_sync(acc, c + nt * 16u, T, wmma::mem_row_major);
    else
      wmma::fill_fragment(acc, 0.0f);
#pragma unroll
    for (uint32_t kt = 0; kt < T / 16u; ++kt) {
      wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> fa;
      wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, L> fb;
      wmma::load_matrix_sync(fa, a + kt * 16u, T);
      wmma::load_matrix_sync(fb, b + kt * b_k + nt * b_n, T);
      wmma::mma_sync(acc, fa, fb, acc);
    }
    wmma::store_matrix_sync(c + nt * 16u, acc, T, wmma::mem_row_major);
  }
}

/* S[r0 .. r0+15][:] = Q[r0 ..][:] K^T: K is row-major [key][dim], so K^T
 * is K read column-major (its tile (kt, nt) starts at row 16 nt, column
 * 16 kt). */
__device__ __forceinline__ void scores(const att_smem &sm, const __half *ks, uint32_t r0)
{
  warp_product<wmma::col_major>(sm.s + r0 * T, false, sm.q + r0 * T, ks, 16u, 16u * T);
}

/* The online softmax of one row half: lane pairs (2i, 2i + 1) share row
 * r0 + i, 32 columns each. */
__device__ __forceinline__ void softmax(const att_smem &sm, uint32_t r0, uint32_t lane)
{
  const uint32_t row = r0 + lane / 2u, c0 = (lane % 2u) * (T / 2u);
  const float *srow = sm.s + row * T + c0;
  float mx = -INFINITY;
  for (uint32_t c = 0; c < T / 2u; ++c)
    mx = fmaxf(mx, srow[c]);
  mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 1));
  const float m_old = sm.m[row];
  const float m_new = fmaxf(m_old, mx * SCALE_LOG2);
  const float alpha = exp2f(m_old - m_new); /* 0 on the first step (m_old = -inf) */
  __half *prow = sm.p + row * T + c0;
  float sum = 0.0f;
  for (uint32_t c = 0; c < T / 2u; ++c) {
    const __half h = __float2half(exp2f(srow[c] * SCALE_LOG2 - m_new));
    prow[c] = h;
    sum += __half2float(h); /* the weights PV uses */
  }
  sum += __shfl_xor_sync(0xffffffffu, sum, 1);
  float *orow = sm.o + row * T + c0;
  for (uint32_t c = 0; c < T / 2u; ++c)
    orow[c] *= alpha;
  if (lane % 2u == 0) { /* both lanes read m and l before the shuffles */
    sm.m[row] = m_new;
    sm.l[row] = sm.l[row] * alpha + sum;
  }
}

/* O[r0 .. r0+15][:] += P[r0 ..][:] V (V row-major [key][dim]). */
__device__ __forceinline__ void accumulate(const att_smem &sm, const __half *vs, uint32_t r0)
{
  warp_product<wmma::row_major>(sm.o + r0 * T, true, sm.p + r0 * T, vs, 16u * T, 16u);
}

__global__ void __launch_bounds__(PASCAL_KERN_ATT_THREADS) attention_fwd(att_params p)
{
  extern __shared__ __align__(128) unsigned char smem[];
  const att_smem sm = carve(smem, p.d);
  const uint32_t head = blockIdx.x / p.tiles, tile = blockIdx.x % p.tiles;
  const uint32_t warp = threadIdx.x / 32u, lane = threadIdx.x % 32u, r0 = warp * 16u;
  const size_t kv_off = (size_t)(head / p.heads_per_kv) * p.seq_kv * T;
  const __half *kh = p.k + kv_off, *vh = p.v + kv_off;
  const uint64_t n = p.seq_kv / T;

  if (threadIdx.x == 0) {
    for (uint32_t s = 0; s <= p.d; ++s)
      pascal_tma_bar_init(&sm.bars[s]);
    pascal_tma_fence_init();
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    pascal_tma_load(sm.q, p.q + ((size_t)head * p.seq_q + (size_t)tile * T) * T, TILE_BYTES,
                    &sm.bars[p.d]);
    for (uint64_t j = 0; j < (uint64_t)p.priming && j < n; ++j)
      load_step(p, sm, kh, vh, j);
  }
  for (uint32_t i = threadIdx.x; i < TILE; i += blockDim.x)
    sm.o[i] = 0.0f;
  for (uint32_t i = threadIdx.x; i < T; i += blockDim.x) {
    sm.m[i] = -INFINITY;
    sm.l[i] = 0.0f;
  }
  pascal_tma_wait(&sm.bars[p.d], 0u, WAIT_CYCLES);
  __syncthreads();

#pragma unroll 1
  for (uint64_t j = 0; j < n; ++j) {
    const uint32_t slot = (uint32_t)(j % p.d);
    if (p.priming == 0 && threadIdx.x == 0) { /* nothing primed: issue step j now */
      pascal_tma_fence_proxy();
      load_step(p, sm, kh, vh, j);
    }
    /* Step j is the (j / d)-th use of its stage's barrier. */
    pascal_tma_wait(&sm.bars[slot], (uint32_t)((j / p.d) & 1u), WAIT_CYCLES);
    const __half *ks = sm.kv + (size_t)slot * 2u * TILE;
    scores(sm, ks, r0);
    __syncwarp();
    softmax(sm, r0, lane);
    __syncwarp();
    accumulate(sm, ks + TILE, r0);
    __syncthreads(); /* every warp is done with the stage */
    if (p.priming > 0 && j + p.priming < n && threadIdx.x == 0) {
      pascal_tma_fence_proxy();
      load_step(p, sm, kh, vh, j + p.priming);
    }
  }

  const uint32_t row = r0 + lane / 2u, c0 = (lane % 2u) * (T / 2u);
  const float inv = 1.0f / sm.l[row];
  float *out = p.o + ((size_t)head * p.seq_q + (size_t)tile * T + row) * T + c0;
  for (uint32_t c = 0; c < T / 2u; ++c)
    out[c] = sm.o[row * T + c0 + c] * inv;
}

} // namespace

cudaError_t pascal_kern_load_attention(void)
{
  return pascal_kern_load(attention_fwd);
}

size_t pascal_kern_attention_smem(uint32_t stages)
{
  return att_layout(stages).total;
}

cudaError_t pascal_kern_attention_plan_make(int device, uint32_t stages, uint32_t o,
                                            pascal_kern_open_plan *out)
{
  if (out == nullptr || o == 0 || stages == 0 || stages > PASCAL_KERN_MAX_DEPTH)
    return cudaErrorInvalidValue;
  out->priming = pascal_kern_tma_priming(stages);
  return pascal_kern_force_occupancy(device, reinterpret_cast<const void *>(attention_fwd),
                                     PASCAL_KERN_ATT_THREADS, pascal_kern_attention_smem(stages), o,
                                     &out->smem_bytes, &out->occupancy);
}

cudaError_t pascal_kern_attention(const pascal_kern_attention_args *a,
                                  const pascal_kern_open_plan *plan, cudaStream_t stream)
{
  if (a == nullptr || plan == nullptr || a->q == nullptr || a->k == nullptr || a->v == nullptr ||
      a->o == nullptr || a->seq_q == 0 || a->seq_q % T != 0 || a->seq_kv == 0 ||
      a->seq_kv % T != 0 || a->heads == 0 || a->kv_heads == 0 || a->heads % a->kv_heads != 0 ||
      a->stages == 0 || a->stages > PASCAL_KERN_MAX_DEPTH || plan->priming > a->stages ||
      plan->smem_bytes < pascal_kern_attention_smem(a->stages))
    return cudaErrorInvalidValue;
  const uint64_t ctas = (uint64_t)(a->seq_q / T) * a->heads;
  if (ctas > 0x7fffffffull)
    return cudaErrorInvalidValue;
  att_params p{a->q,      a->k,         a->v,         a->o,
               a->seq_q,  a->seq_kv,    a->seq_q / T, a->heads / a->kv_heads,
               a->stages, plan->priming};
  void *args[] = {&p};
  return cudaLaunchKernel(reinterpret_cast<const void *>(attention_fwd), dim3((uint32_t)ctas),
                          dim3(PASCAL_KERN_ATT_THREADS), args, plan->smem_bytes, stream);
}
