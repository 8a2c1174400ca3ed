/*
 * reference.cpp - host-side expectations for the PASCAL kernels' results
 * (see reference.h): plain loops over the input formulas.
 */
#include "reference.h"

#include <cmath>

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

void pascal_ref_attention_row(uint32_t seq_q, uint32_t seq_kv, uint32_t heads_per_kv, uint32_t head,
                              uint32_t row, double out[64])
{
  const uint64_t q0 = ((uint64_t)head * seq_q + row) * 64u;
  const uint64_t kv0 = (uint64_t)(head / heads_per_kv) * seq_kv * 64u;
  std::vector<double> s(seq_kv);
  double mx = -1e300;
  for (uint32_t j = 0; j < seq_kv; ++j) {
    double dot = 0.0;
    for (uint32_t c = 0; c < 64; ++c)
      dot += (double)pascal_ref_gemm_value(PASCAL_REF_ATT_SEED_Q, q0 + c) *
             (double)pascal_ref_gemm_value(PASCAL_REF_ATT_SEED_K, kv0 + (uint64_t)j * 64u + c);
    s[j] = dot / 8.0;
    mx = s[j] > mx ? s[j] : mx;
  }
  double sum = 0.0;
  for (uint32_t c = 0; c < 64; ++c)
    out[c] = 0.0;
  for (uint32_t j = 0; j < seq_kv; ++j) {
    const double p = std::exp(s[j] - mx);
    sum += p;
    for (uint32_t c = 0; c < 64; ++c)
      out[c] +=
          p * (double)pascal_ref_gemm_value(PASCAL_REF_ATT_SEED_V, kv0 + (uint64_t)j * 64u + c);
  }
  for (uint32_t c = 0; c < 64; ++c)
    out[c] /= sum;
}
