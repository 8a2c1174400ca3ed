/*
 * peak_kernels.h - host launch API of the microbenchmarks that measure a
 * device's peaks for the latency pipeline (paper "PASCAL: A Progress
 * Divergence-Aware Shared-Cache Model", section "End-to-end latency with
 * TileSight"; docs/gpu.md "Device peaks"):
 *
 *   stream read   every CTA reads 16-byte lanes of a buffer with __ldcg
 *                 (L2 only), `passes` times over: far above L2 it measures
 *                 DRAM -> L2 bandwidth, well inside L2 (after a warm pass)
 *                 the L2 -> SM bandwidth;
 *   mma           every warp issues chained 16x16x16 FP16 wmma with FP32
 *                 accumulation (the scan kernels' instruction,
 *                 device_common.cuh) on four independent accumulators;
 *   clock spin    one CTA per SM spins on clock64() for a number of cycles
 *                 and records the cycles it saw (against the event time);
 *   empty         an empty kernel, for the launch overhead.
 *
 * Like pascal_kernels.h, these only enqueue work on `stream` and return the
 * launch status; none allocates. Results land in device buffers so that no
 * load or MMA is dead.
 */
#ifndef PASCAL_PEAK_KERNELS_H
#define PASCAL_PEAK_KERNELS_H

#include <cuda_runtime.h>
#include <stdint.h>

/* Threads per CTA of the stream read and the mma benchmark. */
#define PASCAL_PEAK_THREADS    256u
/* Independent accumulators per warp of the mma benchmark. */
#define PASCAL_PEAK_MMA_CHAINS 4u
/* FLOPs of one 16x16x16 MMA. */
#define PASCAL_PEAK_MMA_FLOPS  8192.0

/* `ctas` CTAs read `bytes` (a multiple of 16) of `buf` `passes` times; a
 * data-dependent add to *sink keeps the loads. */
cudaError_t pascal_kern_peak_stream(const uint4 *buf, uint64_t bytes, uint32_t passes,
                                    uint32_t ctas, uint32_t *sink, cudaStream_t stream);

/* `ctas` CTAs of PASCAL_PEAK_THREADS threads; each warp runs `iters` rounds
 * of PASCAL_PEAK_MMA_CHAINS MMAs. out[c] (ctas entries) receives the sum over
 * the accumulators of thread 0 of each one's count: iters x
 * PASCAL_PEAK_MMA_CHAINS when every MMA ran (A = 1, B = 1/16: each MMA adds
 * one to every element); NaN when an accumulator's elements disagree. */
cudaError_t pascal_kern_peak_mma(uint32_t ctas, uint32_t iters, float *out, cudaStream_t stream);

/* `ctas` CTAs of one thread spin until clock64() advanced by `cycles`;
 * cycles_seen[c] receives the cycles CTA c counted (>= cycles). */
cudaError_t pascal_kern_peak_clock(uint32_t ctas, uint64_t cycles, unsigned long long *cycles_seen,
                                   cudaStream_t stream);

/* One empty CTA of one thread. */
cudaError_t pascal_kern_peak_empty(cudaStream_t stream);

#endif
