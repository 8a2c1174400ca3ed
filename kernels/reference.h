/*
 * reference.h - the inputs the PASCAL kernels read and the host-side
 * expectations their results are checked against.
 *
 * The input data are defined by formulas (word i of a scan array, element i
 * of a GEMM operand) that the device fill kernels and the host share; the
 * expected results are computed on the host by plain loops, independently of
 * the kernels' blocking, pipelining and tensor-core arithmetic.
 */
#ifndef PASCAL_KERNELS_REFERENCE_H
#define PASCAL_KERNELS_REFERENCE_H

#include <stdint.h>

#include <vector>

#ifdef __CUDACC__
#define PASCAL_HD __host__ __device__
#else
#define PASCAL_HD
#endif

/* Word i of a scan array: a cheap integer hash, so that every word differs. */
PASCAL_HD inline uint32_t pascal_ref_word(uint64_t i)
{
  uint32_t x = (uint32_t)i * 2654435761u ^ (uint32_t)(i >> 32);
  x ^= x >> 15;
  x *= 2246822519u;
  return x ^ (x >> 13);
}

/* Element i of GEMM operand `seed`: a multiple of 1/4 in [-1/2, 1/2]. Products
 * are multiples of 1/16 and every partial sum of a dot product of length
 * Kg < 2^22 is exact in FP32, so the GEMM result can be checked exactly. */
PASCAL_HD inline float pascal_ref_gemm_value(uint32_t seed, uint64_t i)
{
  uint32_t h = pascal_ref_word(i ^ ((uint64_t)seed << 40));
  return (float)((int)(h % 5u) - 2) * 0.25f;
}

/* Sum (mod 2^32) of the words of each of n_blocks blocks of block_bytes. */
std::vector<uint32_t> pascal_ref_block_sums(uint64_t n_blocks, uint32_t block_bytes);

/* Expected checksum of a static-scan CTA with phase s over `rounds` rounds:
 * the sum of block_sums[(k + s) mod N] for k < rounds. */
uint32_t pascal_ref_static_checksum(const std::vector<uint32_t> &block_sums, uint64_t phase,
                                    uint64_t rounds);

/* Expected checksum of an open-scan CTA: the sum of all block sums. */
uint32_t pascal_ref_open_checksum(const std::vector<uint32_t> &block_sums);

/* C[row][col] of the GEMM with operands seeded 1 (A) and 2 (B), computed by a
 * plain dot product in double (exact for these inputs). */
double pascal_ref_gemm_element(uint32_t Kg, uint32_t row, uint32_t col);

/* Seeds of the attention inputs: element i of Q, K, V is
 * pascal_ref_gemm_value(seed, i) in the kernel's layouts
 * (pascal_kernels.h). */
#define PASCAL_REF_ATT_SEED_Q 11u
#define PASCAL_REF_ATT_SEED_K 12u
#define PASCAL_REF_ATT_SEED_V 13u

/* Row `row` of query head `head`'s attention output, head_dim 64, softmax
 * scale 1/8, its K/V head head / heads_per_kv, computed in double by plain
 * loops (scores, their maximum, exponentials, weighted sum): out[0..63]. */
void pascal_ref_attention_row(uint32_t seq_q, uint32_t seq_kv, uint32_t heads_per_kv, uint32_t head,
                              uint32_t row, double out[64]);

#endif
