/*
 * tma.cuh - the bulk-copy (TMA) primitives of the TMA pipelines (the open
 * scan's TMA path, the attention kernel's query tile and K/V stages), as
 * inline PTX for sm_90 and newer: mbarrier init / expect_tx / bounded parity
 * wait and cp.async.bulk global -> shared with mbarrier completion
 * (docs/gpu.md "TMA / bulk copy pipeline").
 */
#ifndef PASCAL_KERNELS_TMA_CUH
#define PASCAL_KERNELS_TMA_CUH

#include <stdint.h>
#include <stdio.h>

__device__ __forceinline__ uint32_t pascal_tma_smem(const void *p)
{
  return (uint32_t)__cvta_generic_to_shared(p);
}

/* One arrival (the issuing thread) completes a phase once its bytes landed. */
__device__ __forceinline__ void pascal_tma_bar_init(uint64_t *bar)
{
  asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(pascal_tma_smem(bar)) : "memory");
}

__device__ __forceinline__ void pascal_tma_fence_init(void)
{
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}

/* Order this CTA's earlier generic-proxy accesses of shared memory before
 * the async-proxy writes of the next bulk copy into the same buffer. */
__device__ __forceinline__ void pascal_tma_fence_proxy(void)
{
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}

/* Arm `bar` (its one arrival) for `bytes` of copies still to land. */
__device__ __forceinline__ void pascal_tma_expect(uint64_t *bar, uint32_t bytes)
{
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(pascal_tma_smem(bar)),
               "r"(bytes)
               : "memory");
}

/* Start the copy of `bytes` (multiple of 16, both addresses 16-byte
 * aligned) from global `src` into shared `dst`, completing on `bar`. */
__device__ __forceinline__ void pascal_tma_copy(void *dst, const void *src, uint32_t bytes,
                                                uint64_t *bar)
{
  asm volatile(
      "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::
          "r"(pascal_tma_smem(dst)),
      "l"(src), "r"(bytes), "r"(pascal_tma_smem(bar))
      : "memory");
}

/* Arm `bar` for one copy of `bytes` and start it. */
__device__ __forceinline__ void pascal_tma_load(void *dst, const void *src, uint32_t bytes,
                                                uint64_t *bar)
{
  pascal_tma_expect(bar, bytes);
  pascal_tma_copy(dst, src, bytes, bar);
}

/* Wait until the phase with the given parity of `bar` has completed, for at
 * most `budget` SM clock cycles: a bulk copy that never lands (a wrong byte
 * count, a barrier armed twice) would otherwise spin until the process is
 * killed. Past the budget, thread 0 prints which CTA waited and every waiting
 * thread traps, so the launch fails (the context is lost) with the message
 * in the process's output. */
__device__ __forceinline__ void pascal_tma_wait(uint64_t *bar, uint32_t parity, uint64_t budget)
{
  const uint32_t b = pascal_tma_smem(bar);
  const long long start = clock64();
  for (;;) {
    uint32_t done = 0;
    asm volatile("{\n .reg .pred p;\n mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
                 " selp.u32 %0, 1, 0, p;\n}\n"
                 : "=r"(done)
                 : "r"(b), "r"(parity)
                 : "memory");
    if (done)
      return;
    if ((uint64_t)(clock64() - start) > budget) {
      if (threadIdx.x == 0)
        printf("pascal: TMA mbarrier wait of CTA %u (parity %u) passed %llu cycles: the bulk "
               "copy never completed\n",
               blockIdx.x, parity, (unsigned long long)budget);
      __trap();
    }
  }
}

#endif
