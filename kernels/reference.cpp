/*
 * reference.cpp - host-side expectations for the PASCAL kernels' results
 * (see reference.h): plain loops over the input formulas.
 */
#include "reference.h"

std::vector<uint32_t> pascal_ref_block_sums(uint64_t n_blocks, uint32_t block_bytes)
{
  const uint64_t words = block_bytes / 4u;
  std::vector<uint32_t> sums(n_blocks, 0u);
  for (uint64_t j = 0; j < n_blocks; ++j) {
    uint32_t s = 0;
    for (uint64_t i = 0; i < words; ++i)
      s += pascal_ref_word(j * words + i);
    sums[j] = s;
  }
  return sums;
}

uint32_t pascal_ref_static_checksum(const std::vector<uint32_t> &block_sums, uint64_t phase,
                                    uint64_t rounds)
{
  const uint64_t n = block_sums.size();
  /* Whole laps contribute the full sum each; the rest is a partial lap. */
  const uint32_t lap = pascal_ref_open_checksum(block_sums);
  uint32_t s = (uint32_t)((rounds / n) & 0xffffffffu) * lap;
  for (uint64_t k = 0; k < rounds % n; ++k)
    s += block_sums[(k + phase) % n];
  return s;
}

uint32_t pascal_ref_open_checksum(const std::vector<uint32_t> &block_sums)
{
  uint32_t s = 0;
  for (uint32_t v : block_sums)
    s += v;
  return s;
}

double pascal_ref_gemm_element(uint32_t Kg, uint32_t row, uint32_t col)
{
  double s = 0.0;
  for (uint32_t k = 0; k < Kg; ++k)
    s += (double)pascal_ref_gemm_value(1, (uint64_t)row * Kg + k) *
         (double)pascal_ref_gemm_value(2, (uint64_t)col * Kg + k);
  return s;
}
