/*
 * gemm_config.c - a GEMM configuration's resources (pascal/gemm_config.h):
 * the configuration a query names, the shared memory of a device and of a
 * CTA, and the resident CTAs per SM they allow. Beyond the paper, which
 * measures one tiling (App. C "GEMM instantiation").
 *
 * Shared memory per SM by compute capability, as NVIDIA's CUDA programming
 * guide tabulates it (the most a kernel may configure): 7.0 96 KiB, 7.5 64
 * KiB, 8.0/8.7 164 KiB, 8.6/8.9 100 KiB, 9.0/10.x/11.x 228 KiB, 12.x 100
 * KiB. The runtime reserves 1 KiB of it per resident CTA (compute
 * capability 8.0 on), which the count below charges on every device.
 */
#include <string.h>

#include "pascal/gemm_config.h"

#define SMEM_RESERVED_PER_CTA 1024u

static const struct {
  const char *arch;
  uint64_t smem_per_sm;
} smem_by_arch[] = {
    {"sm_70", 96u << 10},   {"sm_75", 64u << 10},   {"sm_80", 164u << 10},  {"sm_86", 100u << 10},
    {"sm_87", 164u << 10},  {"sm_89", 100u << 10},  {"sm_90", 228u << 10},  {"sm_100", 228u << 10},
    {"sm_101", 228u << 10}, {"sm_103", 228u << 10}, {"sm_110", 228u << 10}, {"sm_120", 100u << 10},
    {"sm_121", 100u << 10},
};

static const char *const transfer_names[PASCAL_GEMM_TRANSFER_COUNT] = {
    "tile", "elem_bytes", "stages", "group_m", "shape"};

const char *pascal_gemm_transfer_name(unsigned bit_index)
{
  return bit_index < PASCAL_GEMM_TRANSFER_COUNT ? transfer_names[bit_index] : NULL;
}

const char *pascal_gemm_occupancy_source_name(pascal_gemm_occupancy_source source)
{
  switch (source) {
  case PASCAL_OCCUPANCY_MEASURED: return "measured";
  case PASCAL_OCCUPANCY_RESOURCES: return "resources";
  case PASCAL_OCCUPANCY_ASSUMED: return "assumed";
  }
  return "unknown";
}

static uint32_t given_or(uint32_t given, uint32_t cal)
{
  return given ? given : cal;
}

void pascal_gemm_config_of(const pascal_gemm_params *cal, pascal_gemm_config *out)
{
  *out = (pascal_gemm_config){cal->tile_m,
                              cal->tile_n,
                              cal->tile_k,
                              cal->elem_bytes,
                              pascal_gemm_stages(cal),
                              pascal_gemm_group_m(cal)};
}

pascal_gemm_params pascal_gemm_params_of(const pascal_gemm_config *c, uint32_t resident_ctas)
{
  return (pascal_gemm_params){.tile_m = c->tile_m,
                              .tile_n = c->tile_n,
                              .tile_k = c->tile_k,
                              .elem_bytes = c->elem_bytes,
                              .resident_ctas = resident_ctas,
                              .stages = c->stages,
                              .group_m = c->group_m};
}

void pascal_gemm_config_resolve(const pascal_gemm_params *cal, const pascal_gemm_config *given,
                                pascal_gemm_config *out)
{
  *out = (pascal_gemm_config){given_or(given->tile_m, cal->tile_m),
                              given_or(given->tile_n, cal->tile_n),
                              given_or(given->tile_k, cal->tile_k),
                              given_or(given->elem_bytes, cal->elem_bytes),
                              given_or(given->stages, pascal_gemm_stages(cal)),
                              given_or(given->group_m, pascal_gemm_group_m(cal))};
}

uint64_t pascal_gemm_smem_of_arch(const char *arch)
{
  for (size_t i = 0; i < sizeof smem_by_arch / sizeof *smem_by_arch; i++)
    if (strcmp(arch, smem_by_arch[i].arch) == 0)
      return smem_by_arch[i].smem_per_sm;
  return 0;
}

uint64_t pascal_gemm_smem_per_sm(const pascal_device *dev)
{
  return dev->smem_per_sm ? dev->smem_per_sm : pascal_gemm_smem_of_arch(dev->arch);
}

uint64_t pascal_gemm_smem_per_cta(const pascal_gemm_config *c)
{
  return (uint64_t)c->stages * ((uint64_t)c->tile_m + c->tile_n) * c->tile_k * c->elem_bytes;
}

pascal_status pascal_gemm_ctas_per_sm(uint64_t smem_per_sm, const pascal_gemm_config *c,
                                      uint32_t assumed, uint32_t *out, pascal_error *err)
{
  uint64_t acc = (uint64_t)c->tile_m * c->tile_n * 4u;
  if (acc > PASCAL_GEMM_ACC_BYTES_PER_SM)
    return pascal_error_set(err, PASCAL_EREFUSED, "tile_m",
                            "does not fit: a %ux%u FP32 accumulator is %llu bytes of registers, "
                            "more than the %u an SM gives them",
                            c->tile_m, c->tile_n, (unsigned long long)acc,
                            PASCAL_GEMM_ACC_BYTES_PER_SM);
  uint64_t n = PASCAL_GEMM_ACC_BYTES_PER_SM / acc;
  if (smem_per_sm == 0) {
    *out = assumed ? assumed : 1;
    return PASCAL_OK;
  }
  uint64_t cta = pascal_gemm_smem_per_cta(c) + SMEM_RESERVED_PER_CTA;
  if (cta > smem_per_sm) {
    pascal_gemm_config one = *c;
    one.stages = 1;
    const char *field =
        pascal_gemm_smem_per_cta(&one) + SMEM_RESERVED_PER_CTA > smem_per_sm ? "tile_k" : "stages";
    return pascal_error_set(err, PASCAL_EREFUSED, field,
                            "does not fit: %u stages of a %ux%ux%u tile of %u-byte elements take "
                            "%llu bytes of shared memory (+%u reserved), the SM has %llu",
                            c->stages, c->tile_m, c->tile_n, c->tile_k, c->elem_bytes,
                            (unsigned long long)pascal_gemm_smem_per_cta(c), SMEM_RESERVED_PER_CTA,
                            (unsigned long long)smem_per_sm);
  }
  if (smem_per_sm / cta < n)
    n = smem_per_sm / cta;
  *out = (uint32_t)(n < PASCAL_GEMM_CTAS_PER_SM_MAX ? n : PASCAL_GEMM_CTAS_PER_SM_MAX);
  return PASCAL_OK;
}
