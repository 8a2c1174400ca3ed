/*
 * open_scan.cu - the open scan of paper Algorithm `dynamic-kernel`
 * (Section 5.3): W x M CTAs, each scanning blocks 0..N-1 once from block zero,
 * no grid barrier. Per block: load (sync path: __ldcg of 16-byte lanes; TMA
 * path: cp.async.bulk into one of d shared-memory buffers, bounded mbarrier
 * wait, n_p blocks primed), consume, m WMMA iterations, __syncthreads,
 * then issue block j + n_p into the freed buffer. Occupancy is forced by
 * kernels/occupancy.cu through the dynamic shared-memory size.
 */
#include "device_common.cuh"
#include "kernel_load.cuh"
#include "pascal_kernels.h"
#include "tma.cuh"

#ifndef PASCAL_TMA_PRIME_EXTRA
#define PASCAL_TMA_PRIME_EXTRA 0
#endif

uint32_t pascal_kern_tma_priming(uint32_t d)
{
  /* n_p = d - 1 (+1 when built with PASCAL_TMA_PRIMING=d); 0 <= n_p <= d. */
  return d == 0 ? 0u : d - 1u + (uint32_t)PASCAL_TMA_PRIME_EXTRA;
}

namespace {

/* CTA results: the word checksum and the WMMA count summed over warps (lane 0
 * of each warp contributes its count, so a correct CTA reports warps x m x N). */
__device__ __forceinline__ void pascal_dev_finish(uint32_t acc, uint32_t iters, uint32_t *scratch,
                                                  uint32_t *checksum, uint32_t *iterations)
{
  const uint32_t sum = pascal_dev_cta_sum(acc, scratch);
  const uint32_t its = pascal_dev_cta_sum(threadIdx.x % 32u == 0 ? iters : 0u, scratch);
  if (threadIdx.x == 0) {
    checksum[blockIdx.x] = sum;
    iterations[blockIdx.x] = its;
  }
}

struct open_params {
  const uint4 *data;
  uint64_t n_blocks;
  uint32_t lanes; /* 16-byte lanes per block */
  uint32_t m;
  uint32_t d;       /* TMA buffers */
  uint32_t priming; /* n_p, <= d */
  uint32_t *checksum;
  uint32_t *iterations;
};

/* Sync path: every thread loads its lanes of block j with __ldcg. */
__global__ void __launch_bounds__(PASCAL_KERN_OPEN_THREADS) open_scan_sync(open_params p)
{
  __shared__ uint32_t scratch[32];
  pascal_dev_mma mma;
  mma.init();
  uint32_t acc = 0, iters = 0;
  for (uint64_t j = 0; j < p.n_blocks; ++j) {
    const uint4 *blk = p.data + j * p.lanes;
    for (uint32_t l = threadIdx.x; l < p.lanes; l += blockDim.x)
      acc = pascal_dev_consume(acc, __ldcg(blk + l));
    iters += mma.run(p.m);
    __syncthreads();
  }
  pascal_dev_finish(acc, iters, scratch, p.checksum, p.iterations);
}

/* TMA path: thread 0 issues bulk copies of whole blocks into d buffers. The
 * dynamic shared memory holds d mbarriers (8 B each, padded to 128 B) and
 * then d buffers of lanes * 16 bytes; its total size is set by the occupancy
 * plan and may exceed what the buffers need. */
__global__ void __launch_bounds__(PASCAL_KERN_OPEN_THREADS) open_scan_tma(open_params p)
{
  extern __shared__ __align__(128) unsigned char smem[];
  __shared__ uint32_t scratch[32];
  uint64_t *bars = reinterpret_cast<uint64_t *>(smem);
  uint4 *bufs = reinterpret_cast<uint4 *>(smem + 128u * ((p.d * 8u + 127u) / 128u));
  const uint32_t bytes = p.lanes * 16u;
  const uint64_t n = p.n_blocks;

  if (threadIdx.x == 0) {
    for (uint32_t s = 0; s < p.d; ++s)
      pascal_tma_bar_init(&bars[s]);
    pascal_tma_fence_init();
  }
  __syncthreads();
  /* Invariant: block j lives in buffer j mod d and is the (j / d)-th use of
   * that buffer's barrier, so its completion has parity (j / d) & 1. */
  if (threadIdx.x == 0)
    for (uint64_t j = 0; j < (uint64_t)p.priming && j < n; ++j)
      pascal_tma_load(bufs + (j % p.d) * p.lanes, p.data + j * p.lanes, bytes, &bars[j % p.d]);

  pascal_dev_mma mma;
  mma.init();
  uint32_t acc = 0, iters = 0;
  for (uint64_t j = 0; j < n; ++j) {
    const uint32_t slot = (uint32_t)(j % p.d);
    if (p.priming == 0 && threadIdx.x == 0) {
      /* Nothing primed: block j is issued only now (its buffer was freed by
       * the __syncthreads that ended iteration j - 1). */
      pascal_tma_fence_proxy();
      pascal_tma_load(bufs + slot * p.lanes, p.data + j * p.lanes, bytes, &bars[slot]);
    }
    pascal_tma_wait(&bars[slot], (uint32_t)((j / p.d) & 1u), PASCAL_KERN_TMA_WAIT_CYCLES);
    const uint4 *buf = bufs + slot * p.lanes;
    for (uint32_t l = threadIdx.x; l < p.lanes; l += blockDim.x)
      acc = pascal_dev_consume(acc, buf[l]);
    iters += mma.run(p.m);
    __syncthreads();
    /* Block j + n_p goes into buffer (j + n_p) mod d: with n_p = d that is
     * the buffer just consumed, with n_p = d - 1 the one consumed in
     * iteration j - 1; both are free after the barrier above. */
    if (p.priming > 0 && j + p.priming < n && threadIdx.x == 0) {
      const uint64_t k = j + p.priming;
      pascal_tma_fence_proxy();
      pascal_tma_load(bufs + (k % p.d) * p.lanes, p.data + k * p.lanes, bytes, &bars[k % p.d]);
    }
  }
  pascal_dev_finish(acc, iters, scratch, p.checksum, p.iterations);
}

/* One thread arms nothing and waits: the bound of pascal_tma_wait traps. */
__global__ void tma_stall(uint64_t budget)
{
  __shared__ uint64_t bar;
  pascal_tma_bar_init(&bar);
  pascal_tma_fence_init();
  pascal_tma_wait(&bar, 0u, budget);
}

} // namespace

cudaError_t pascal_kern_load_open_scan(void)
{
  return pascal_kern_load(open_scan_sync, open_scan_tma, tma_stall);
}

cudaError_t pascal_kern_tma_stall(uint64_t budget, cudaStream_t stream)
{
  tma_stall<<<1, 1, 0, stream>>>(budget);
  return cudaGetLastError();
}

/* Kernel selected by the path; used by the occupancy plan and the launch. */
const void *pascal_kern_open_function(int tma);
const void *pascal_kern_open_function(int tma)
{
  return tma ? reinterpret_cast<const void *>(open_scan_tma)
             : reinterpret_cast<const void *>(open_scan_sync);
}

cudaError_t pascal_kern_open_scan(const pascal_kern_open_config *cfg,
                                  const pascal_kern_open_plan *plan, const uint4 *data,
                                  uint64_t n_blocks, uint32_t ctas, uint32_t *checksum,
                                  uint32_t *iterations, cudaStream_t stream)
{
  if (cfg == nullptr || plan == nullptr || data == nullptr || checksum == nullptr ||
      iterations == nullptr || n_blocks == 0 || ctas == 0 || cfg->block_bytes == 0 ||
      cfg->block_bytes % 16u != 0 || (cfg->tma && (cfg->d == 0 || plan->priming > cfg->d)))
    return cudaErrorInvalidValue;
  open_params p{data,
                n_blocks,
                cfg->block_bytes / 16u,
                cfg->m,
                cfg->tma ? cfg->d : 0u,
                cfg->tma ? plan->priming : 0u,
                checksum,
                iterations};
  const void *fn = pascal_kern_open_function(cfg->tma);
  void *args[] = {&p};
  return cudaLaunchKernel(fn, dim3(ctas), dim3(PASCAL_KERN_OPEN_THREADS), args, plan->smem_bytes,
                          stream);
}
