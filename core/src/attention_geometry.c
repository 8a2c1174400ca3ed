/*
 * attention_geometry.c - the arithmetic of attention as a shared cyclic scan
 * (pascal/attention.h, docs/attention.md): a tiling's tensor work per K/V
 * step (the scan's m), its query-tile and K/V-step bytes, the tiling's
 * check against the device's block, the kernel's occupancy from its shared
 * memory, and the query tiles' share of a calibration run's fills (the
 * query adjustment).
 */
#include "pascal/attention.h"

#include <math.h>

/* The edge of a 16x16x16 tensor-core product. */
#define MMA_EDGE 16u

uint32_t pascal_attention_m(const pascal_attention_params *a)
{
  uint64_t macs = 2ull * a->block_q * a->block_kv * a->head_dim;
  return (uint32_t)(macs / (MMA_EDGE * MMA_EDGE * MMA_EDGE));
}

double pascal_attention_q_tile_bytes(const pascal_attention_params *a)
{
  return (double)a->block_q * a->head_dim * a->elem_bytes;
}

double pascal_attention_step_bytes(const pascal_attention_params *a)
{
  return 2.0 * a->block_kv * a->head_dim * a->elem_bytes;
}

pascal_status pascal_attention_params_check(const pascal_attention_params *a, uint32_t block_bytes,
                                            pascal_error *err)
{
  const struct {
    const char *field;
    uint32_t v, multiple, max;
  } dims[] = {
      {"attention.block_q", a->block_q, MMA_EDGE, 1024},
      {"attention.block_kv", a->block_kv, MMA_EDGE, 1024},
      {"attention.head_dim", a->head_dim, MMA_EDGE, 1024},
      {"attention.elem_bytes", a->elem_bytes, 1, 8},
  };
  for (size_t i = 0; i < sizeof dims / sizeof *dims; i++)
    if (dims[i].v < 1 || dims[i].v > dims[i].max || dims[i].v % dims[i].multiple)
      return pascal_error_set(err, PASCAL_EINVAL, dims[i].field,
                              "%s must be a multiple of %u in [1, %u] (got %u)", dims[i].field,
                              dims[i].multiple, dims[i].max, dims[i].v);
  double step = pascal_attention_step_bytes(a);
  if (step != (double)block_bytes)
    return pascal_error_set(err, PASCAL_EINVAL, "attention.block_kv",
                            "a K/V step (2 block_kv head_dim elem_bytes = %.0f bytes) must be "
                            "the device's block (%u bytes)",
                            step, block_bytes);
  return PASCAL_OK;
}

/* The driver's shared-memory reservation per CTA (sm_80 on). */
#define SMEM_RESERVED_PER_CTA 1024.0

double pascal_attention_smem_bytes(const pascal_attention_params *a, uint32_t stages)
{
  double q = a->block_q, kv = a->block_kv, hd = a->head_dim;
  double barriers = 128.0 * floor(((stages + 1.0) * 8.0 + 127.0) / 128.0);
  return barriers + pascal_attention_q_tile_bytes(a) + stages * pascal_attention_step_bytes(a) +
         q * kv * 4.0 + q * kv * 2.0 + q * hd * 4.0 + 2.0 * q * 4.0 + SMEM_RESERVED_PER_CTA;
}

uint32_t pascal_attention_occupancy(const pascal_attention_params *a, uint32_t stages,
                                    uint64_t smem_per_sm, uint32_t max_occupancy)
{
  if (smem_per_sm == 0)
    return max_occupancy;
  double fit = floor((double)smem_per_sm / pascal_attention_smem_bytes(a, stages));
  return fit < max_occupancy ? (uint32_t)fit : max_occupancy;
}

double pascal_attention_run_q_bytes(const pascal_attention_params *a, uint32_t sm_count,
                                    const pascal_scan_run *run)
{
  return (double)run->W * sm_count * run->key.o * pascal_attention_q_tile_bytes(a);
}
