/*
 * pascal_kernels.h - host launch API of the PASCAL benchmark kernels (CUDA C++,
 * built only when the toolkit is present).
 *
 *   static scan   paper Algorithm `static-kernel` (Section 5.2): M CTAs, CTA w
 *                 reads block (k + s_w) mod N in round k with __ldcg, a grid-wide
 *                 barrier ends every round (cooperative launch);
 *   open scan     paper Algorithm `dynamic-kernel` (Section 5.3): W x M CTAs,
 *                 each scans blocks 0..N-1 once; sync path (__ldcg) or TMA path
 *                 (bulk copies into d shared-memory buffers, mbarrier
 *                 completion, priming count fixed per binary); m WMMA
 *                 iterations per block; occupancy o forced and verified;
 *   GEMM          FP16 inputs, FP32 output, 128x128x64 tiles, direct CTA raster
 *                 (paper Section 4.5 and Appendix `GEMM instantiation`);
 *   attention     FlashAttention-2-style forward (the paper's exploratory
 *                 attention section, docs/attention.md): a CTA per 64-row
 *                 query tile and head, K/V streamed in 64-row steps through
 *                 `stages` TMA buffers, QK^T and PV on tensor cores, online
 *                 softmax, FP16 inputs, FP32 accumulation and output;
 *   utilities     data pattern, L2 flush by streaming a buffer larger than L2.
 *
 * Every kernel writes a result the host can check (kernels/reference.h): scans
 * a per-CTA checksum of the words read plus the count of compute iterations,
 * GEMM and attention their output matrices. All functions only enqueue work on `stream` and
 * return the launch status; none allocates.
 */
#ifndef PASCAL_KERNELS_H
#define PASCAL_KERNELS_H

#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <stdint.h>

/* Threads per CTA of the open scan and the GEMM. */
#define PASCAL_KERN_OPEN_THREADS 256u
#define PASCAL_KERN_GEMM_THREADS 256u
/* Largest TMA pipeline depth (shared-memory buffers) a job may ask for. */
#define PASCAL_KERN_MAX_DEPTH    16u

/* Load every kernel of this library into the current context (CUDA loads
 * modules lazily by default, at a kernel's first launch, which a measurement
 * would then time; kernel_load.cuh). Call once the device's context exists,
 * before any timed launch; an architecture missing from the build fails
 * here with cudaErrorNoKernelImageForDevice. */
cudaError_t pascal_kern_load_all(void);

/* TMA priming count n_p of this binary as a function of the depth d
 * (Algorithm `dynamic-kernel`: d - 1 on the paper's GB10 binary, d on its Thor
 * binary). Fixed at build time by PASCAL_TMA_PRIME_EXTRA (0 or 1, CMake option
 * PASCAL_TMA_PRIMING=d-1|d); recorded by the probe. */
uint32_t pascal_kern_tma_priming(uint32_t d);

/* ---- utilities -------------------------------------------------------- */

/* data[i] = pascal_ref_word(i) for i < words (kernels/reference.h). */
cudaError_t pascal_kern_fill_pattern(uint32_t *data, uint64_t words, cudaStream_t stream);

/* Stream `bytes` (a multiple of 16) of `buf` through L2 with __ldcg so that
 * earlier contents are evicted; the sum goes to *sink to keep the loads. */
cudaError_t pascal_kern_l2_flush(const uint4 *buf, uint64_t bytes, uint32_t *sink,
                                 cudaStream_t stream);

/* ---- static phase-controlled scan -------------------------------------- */

typedef struct pascal_kern_static_args {
  const uint4 *data;      /* n_blocks * block_bytes bytes */
  uint64_t n_blocks;      /* N */
  uint32_t block_bytes;   /* b, multiple of 16 */
  const uint32_t *phases; /* device array, M phases in [0, N) */
  uint32_t ctas;          /* M, all co-resident (cooperative launch) */
  uint64_t rounds;        /* H */
  uint32_t *checksum;     /* device array, M entries (out) */
} pascal_kern_static_args;

/* Threads per CTA of the static scan for block size b: one 16-byte lane per
 * thread up to 1024 threads (Algorithm `static-kernel`). */
uint32_t pascal_kern_static_threads(uint32_t block_bytes);

/* Largest M the device can co-schedule for the static scan (0 on error). */
cudaError_t pascal_kern_static_max_ctas(int device, uint32_t block_bytes, uint32_t *out);

cudaError_t pascal_kern_static_scan(const pascal_kern_static_args *args, cudaStream_t stream);

/* ---- open scan ---------------------------------------------------------- */

typedef struct pascal_kern_open_config {
  uint32_t o;           /* resident CTAs per SM, >= 1 */
  int tma;              /* 0: sync path (d must be 0), 1: TMA path (1 <= d <= MAX_DEPTH) */
  uint32_t d;           /* prefetch depth (shared-memory buffers) */
  uint32_t m;           /* WMMA iterations per block */
  uint32_t block_bytes; /* b, multiple of 16 */
} pascal_kern_open_config;

typedef struct pascal_kern_open_plan {
  size_t smem_bytes; /* dynamic shared memory per CTA that forces o */
  int occupancy;     /* verified CTAs per SM (== o on success) */
  uint32_t priming;  /* n_p used by the TMA path */
} pascal_kern_open_plan;

/* Size the dynamic shared memory so that exactly cfg->o CTAs fit on one SM
 * (carveout at maximum shared memory), and verify it with
 * cudaOccupancyMaxActiveBlocksPerMultiprocessor. Returns
 * cudaErrorInvalidConfiguration when o cannot be reached (out->occupancy then
 * holds the nearest occupancy found, 0 if not even one CTA fits), and
 * cudaErrorInvalidValue for a malformed cfg. */
cudaError_t pascal_kern_open_plan_make(int device, const pascal_kern_open_config *cfg,
                                       pascal_kern_open_plan *out);

/* SM clock cycles a TMA-path CTA waits for one block's bulk copy before it
 * reports the CTA and traps (about 2 s at 2 GHz; a copy of one block takes
 * microseconds even with every SM loading). */
#define PASCAL_KERN_TMA_WAIT_CYCLES (1ull << 32)

/* Launch `ctas` (= W x M) CTAs, each scanning blocks 0..n_blocks-1 once.
 * checksum[c] receives the sum (mod 2^32) of all words CTA c read;
 * iterations[c] the number of WMMA iterations CTA c completed, counted
 * through the tensor-core results: (threads / 32) x m x N mod 2^32 when
 * every warp ran all its iterations. */
cudaError_t pascal_kern_open_scan(const pascal_kern_open_config *cfg,
                                  const pascal_kern_open_plan *plan, const uint4 *data,
                                  uint64_t n_blocks, uint32_t ctas, uint32_t *checksum,
                                  uint32_t *iterations, cudaStream_t stream);

/* Fault injection for the GPU self-test: one CTA waits on an mbarrier that
 * no copy completes, with a bound of `budget` cycles; the launch must fail
 * (a trap: the context is lost, every later call fails until a reset) and
 * print the wait's message. */
cudaError_t pascal_kern_tma_stall(uint64_t budget, cudaStream_t stream);

/* ---- GEMM ---------------------------------------------------------------- */

#define PASCAL_KERN_GEMM_TILE_M 128u
#define PASCAL_KERN_GEMM_TILE_N 128u
#define PASCAL_KERN_GEMM_TILE_K 64u

/* C[Mg x Ng] (row-major, FP32) = A[Mg x Kg] (row-major, FP16) x B, where B is
 * Kg x Ng stored column-major (that is, B^T row-major, Ng x Kg). Mg and Ng
 * must be multiples of 128, Kg of 64 (cudaErrorInvalidValue otherwise).
 * The calibration's configuration of pascal_kern_gemm_staged below: one
 * stage, direct raster (CTA i computes output tile (i / (Ng/128),
 * i % (Ng/128))). */
cudaError_t pascal_kern_gemm(const __half *A, const __half *B, float *C, uint32_t Mg, uint32_t Ng,
                             uint32_t Kg, cudaStream_t stream);

/* The same product by the same tile as a Triton matmul configuration:
 * `stages` (1..PASCAL_KERN_GEMM_STAGES_MAX) k-steps buffered in dynamic
 * shared memory (stages x 36 KiB with the padded rows) and filled by
 * cp.async, CTAs in the grouped raster of `group_m` tile rows
 * (pascal/gemm_raster.h; 1 is row-major) on a 1-D grid of (Mg/128)(Ng/128).
 * cudaErrorInvalidValue for a shape off the tile, stages or group_m out of
 * range; the device's error when its shared memory cannot hold the stages. */
#define PASCAL_KERN_GEMM_STAGES_MAX 4u
cudaError_t pascal_kern_gemm_staged(const __half *A, const __half *B, float *C, uint32_t Mg,
                                    uint32_t Ng, uint32_t Kg, uint32_t stages, uint32_t group_m,
                                    cudaStream_t stream);

/* Fill n halves with pascal_ref_gemm_value(seed, i). */
cudaError_t pascal_kern_fill_gemm_input(__half *x, uint64_t n, uint32_t seed, cudaStream_t stream);

/* ---- attention ----------------------------------------------------------- */

/* The tiling: 64-row query tiles, 64-row K/V steps, head_dim 64 (FP16: a
 * K/V step is 16 KiB, one block). Threads per CTA: four warps, 16 query
 * rows each. */
#define PASCAL_KERN_ATT_TILE    64u
#define PASCAL_KERN_ATT_THREADS 128u

typedef struct pascal_kern_attention_args {
  const __half *q;   /* [heads][seq_q][64], row-major                      */
  const __half *k;   /* [kv_heads][seq_kv][64]                             */
  const __half *v;   /* [kv_heads][seq_kv][64]                             */
  float *o;          /* [heads][seq_q][64] (out)                           */
  uint32_t seq_q;    /* multiple of 64                                      */
  uint32_t seq_kv;   /* multiple of 64                                      */
  uint32_t heads;    /* query heads; CTA c is tile c mod (seq_q / 64) of
                        head c / (seq_q / 64)                               */
  uint32_t kv_heads; /* divides heads: head h reads K/V head h / (heads /
                        kv_heads); 1 is multi-query                         */
  uint32_t stages;   /* K/V pipeline depth d, 1..PASCAL_KERN_MAX_DEPTH      */
} pascal_kern_attention_args;

/* Dynamic shared memory the kernel needs at depth d: barriers, the query
 * tile, d K/V steps, the scores (FP32), the probabilities (FP16), the
 * output accumulator (FP32) and the row maxima and sums. */
size_t pascal_kern_attention_smem(uint32_t stages);

/* Force exactly o resident CTAs per SM at depth `stages` (as
 * pascal_kern_open_plan_make: the same errors; priming n_p as the open
 * scan's, pascal_kern_tma_priming). */
cudaError_t pascal_kern_attention_plan_make(int device, uint32_t stages, uint32_t o,
                                            pascal_kern_open_plan *out);

/* Launch (seq_q / 64) x heads CTAs. Every query tile and K/V step is read
 * with bulk copies; O[h][r] = softmax(Q K^T / 8) V of its row, the
 * probabilities rounded to FP16 before PV as FlashAttention-2 does.
 * cudaErrorInvalidValue for a malformed args or plan. */
cudaError_t pascal_kern_attention(const pascal_kern_attention_args *args,
                                  const pascal_kern_open_plan *plan, cudaStream_t stream);

#endif
