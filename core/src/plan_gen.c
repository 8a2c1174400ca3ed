/*
 * plan_gen.c - the paper's calibration and held-out plans for one device
 * (pascal/plan_gen.h; paper sections 4.4 and 5, "Calibration protocol" and
 * the evaluation's test panels). The rule is written out in docs/plans.md;
 * for GB10 (C = 1280, 100 KiB of shared memory per SM) it yields the shipped
 * deploy/plans/scan-paper.json and gemm-paper.json. The paper evaluates "42
 * depth/compute pairs with the highest feasible occupancy settings at each
 * depth" after calibrating "63 depth/compute coordinates": seven depths, nine
 * calibration and six held-out compute values each.
 */
#include "pascal/plan_gen.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pascal/attention.h"
#include "pascal/gemm_config.h"

/* Sizes as multiples of C / 20: eta = C/N = 20/k (GB10: 1280 x k / 20). */
static const uint32_t scan_size_k[] = {48, 64, 96}; /* 3072, 4096, 6144 */
static const uint64_t scan_horizons[] = {1, 4, 16, 64};
/* Held-out: N = 16 C/5 and 4 C (GB10: 4096 and 5120), five (N, W) pairs
 * from short to long work, containing the three pairs the paper names:
 * (4096, 1), (4096, 64) and (5120, 80). */
typedef struct heldout_part {
  uint32_t k;
  uint64_t horizons[3];
  size_t n_horizons;
} heldout_part;
static const heldout_part scan_heldout[PASCAL_PLAN_SCAN_HELDOUT_PARTS] = {
    {64, {1, 8, 64}, 3},
    {80, {24, 80}, 2},
};
/* Where fills decide the time (plan_gen.h): the capacity edge. */
static const uint32_t scan_dram_k[] = {21, 22, 24, 26, 28}; /* 1.05 C .. 1.4 C */
static const uint64_t scan_dram_horizons[] = {4, 16};
static const uint32_t scan_dram_m[] = {0, 6};
#define HELDOUT_REPEATS 2u
/* The off-grid panel (plan_gen.h): each part moves the coordinates the
 * calibration and the held-out panel keep on their grids. */
typedef struct offgrid_part {
  uint32_t k[2]; /* sizes as multiples of C / 20 */
  size_t n_k;
  uint64_t horizons[3];
  size_t n_horizons;
  uint32_t m[3];
  size_t n_m;
} offgrid_part;
static const offgrid_part scan_offgrid[PASCAL_PLAN_SCAN_OFFGRID_PARTS] = {
    {{64}, 1, {2, 32, 96}, 3, {1, 12}, 2}, /* W between and beyond the horizons */
    {{40, 240}, 2, {16}, 1, {2, 13}, 2},   /* N = 2 C and 12 C, around the sizes */
    {{64}, 1, {16}, 1, {16, 17, 18}, 3},   /* m beyond the grid, every class    */
    {{160}, 1, {8}, 1, {9}, 1},            /* all three off their grids at once */
};

/* Compute values m = 4k + r: calibration k in {0, 1, 3}, r in {0, 1, 2};
 * held-out the six left free between them (docs/plans.md). */
static const uint32_t scan_m[] = {0, 1, 2, 4, 5, 6, 12, 13, 14};
static const uint32_t scan_heldout_m[] = {3, 7, 8, 9, 10, 11};

/* GEMM grids (elements): calibration powers of two, held-out shapes the
 * paper's test grid; all multiples of the 128 x 128 x 64 tile. */
static const uint64_t gemm_mg[] = {256, 512, 1024, 2048, 4096, 8192};
static const uint64_t gemm_ng[] = {256, 512, 1024, 2048, 4096};
static const uint64_t gemm_kg[] = {1024, 2048, 4096, 8192};
static const uint64_t gemm_heldout_mg[] = {640, 896, 1280, 2560, 5120};
static const uint64_t gemm_heldout_ng[] = {640, 896, 1280, 2560};
static const uint64_t gemm_heldout_kg[] = {1280, 2560, 5120};
/* Off-grid GEMM shapes (plan_gen.h): Kg off its four values on calibrated
 * grids, grids below and beyond the calibrated Mg and Ng, and both at once
 * between the grids. */
static const pascal_plan_shape gemm_offgrid_shapes[] = {
    {512, 512, 512},     {512, 512, 3072},    {512, 512, 16384},   {2048, 1024, 512},
    {2048, 1024, 3072},  {2048, 1024, 16384}, {8192, 4096, 512},   {8192, 4096, 3072},
    {8192, 4096, 16384}, {128, 1024, 2048},   {16384, 1024, 2048}, {1024, 128, 2048},
    {1024, 8192, 2048},  {128, 128, 2048},    {16384, 8192, 2048}, {384, 768, 3072},
    {384, 3072, 3072},   {1536, 768, 3072},   {1536, 3072, 3072},  {3072, 768, 3072},
    {3072, 3072, 3072},  {12288, 6144, 12288}};
/* Skinny direct-raster grids (plan_gen.h): 1 x n tiles and n x 1, n = 264
 * and 528 (one and two waves of an H100 at two CTAs per SM), and 1 x 132
 * (one CTA per SM) with the longest reduction. */
static const pascal_plan_shape gemm_dram_shapes[] = {
    {128, 33792, 8192},  {128, 33792, 16384}, {128, 67584, 8192}, {128, 67584, 16384},
    {33792, 128, 8192},  {33792, 128, 16384}, {67584, 128, 8192}, {67584, 128, 16384},
    {128, 16896, 32768}, {16896, 128, 32768}};
/* Configuration runs (plan_gen.h, "gemm-configs"). On a device that states
 * no shared memory per SM (smem_per_sm 0, as the shipped sim bundles'
 * configurations were measured): the per-k-iteration matrix work spread
 * over a factor of 32, stages 2 to 4, both rasters, one 1-byte
 * configuration. On a device that states it (a GPU host; a sim profile
 * that states one, as gb10-like's 100 KiB): what the project's own staged
 * kernel runs exactly as stated, the 128 x 128 x 64 FP16 tile at 1 to 4
 * stages, direct and grouped (G = 8) raster, each kept where one CTA fits.
 * (Not cuBLASLt's tiles: on an H100 it refused every explicit stage count
 * on every heuristic answer's launch attributes, and it has no grouped
 * raster.) */
static const pascal_gemm_config configs_sim[] = {
    {64, 32, 32, 2, 3, 1},  {32, 64, 32, 2, 4, 8},   {128, 32, 32, 2, 3, 1},
    {64, 128, 32, 2, 3, 8}, {128, 128, 32, 2, 2, 1}, {128, 64, 64, 2, 3, 8},
    {64, 64, 64, 2, 2, 1},  {128, 128, 64, 2, 3, 1}, {128, 64, 64, 1, 4, 1}};
static const pascal_plan_shape configs_sim_shapes[] = {
    {1024, 1024, 2048}, {2048, 2048, 1024}, {4096, 512, 2048}};
static const pascal_gemm_config configs_gpu[] = {{128, 128, 64, 2, 1, 1}, {128, 128, 64, 2, 2, 1},
                                                 {128, 128, 64, 2, 3, 1}, {128, 128, 64, 2, 4, 1},
                                                 {128, 128, 64, 2, 1, 8}, {128, 128, 64, 2, 2, 8},
                                                 {128, 128, 64, 2, 3, 8}, {128, 128, 64, 2, 4, 8}};
static const pascal_plan_shape configs_gpu_shapes[] = {
    {4096, 4096, 4096}, {2048, 2048, 8192}, {8192, 1024, 4096}};
/* Attention (plan_gen.h): sizes in C / 20, horizons, the cells. */
static const uint32_t attention_size_k[] = {30, 40, 60, 80};
static const uint32_t attention_heldout_k[] = {50, 70};
static const uint64_t attention_horizons[] = {1, 3, 8, 24};
typedef struct attention_cell {
  uint32_t k;
  uint64_t W;
} attention_cell;
static const attention_cell attention_cells[PASCAL_PLAN_ATTENTION_CELL_PARTS] = {
    {35, 2}, {45, 12}, {55, 5}, {65, 20}, {75, 16}};
#define ATTENTION_DEPTHS  3u
#define ATTENTION_REPEATS 2u
#define COUNT(a)          (sizeof(a) / sizeof((a)[0]))
#define N_FAMILIES        7u

static const char *const kind_names[] = {"scan",
                                         "scan-heldout",
                                         "gemm",
                                         "gemm-heldout",
                                         "scan-dram",
                                         "gemm-dram",
                                         "scan-offgrid",
                                         "gemm-offgrid",
                                         "attention",
                                         "attention-heldout",
                                         "attention-cells",
                                         "gemm-configs"};

const char *pascal_plan_kind_name(pascal_plan_kind kind)
{
  return (unsigned)kind < COUNT(kind_names) ? kind_names[kind] : NULL;
}

pascal_status pascal_plan_kind_parse(const char *text, pascal_plan_kind *out, pascal_error *err)
{
  for (size_t i = 0; text && i < COUNT(kind_names); i++)
    if (strcmp(text, kind_names[i]) == 0) {
      *out = (pascal_plan_kind)i;
      return PASCAL_OK;
    }
  return pascal_error_set(err, PASCAL_EINVAL, "kind",
                          "kind must be scan, scan-heldout, gemm, gemm-heldout, scan-dram, "
                          "gemm-dram, scan-offgrid, gemm-offgrid, attention, attention-heldout, "
                          "attention-cells or gemm-configs");
}

int pascal_plan_kind_is_scan(pascal_plan_kind kind)
{
  return kind == PASCAL_PLAN_KIND_SCAN || kind == PASCAL_PLAN_KIND_SCAN_HELDOUT ||
         kind == PASCAL_PLAN_KIND_SCAN_DRAM || kind == PASCAL_PLAN_KIND_SCAN_OFFGRID ||
         kind == PASCAL_PLAN_KIND_ATTENTION || kind == PASCAL_PLAN_KIND_ATTENTION_HELDOUT ||
         kind == PASCAL_PLAN_KIND_ATTENTION_CELLS;
}

unsigned pascal_plan_kind_parts(pascal_plan_kind kind)
{
  switch (kind) {
  case PASCAL_PLAN_KIND_SCAN_HELDOUT: return PASCAL_PLAN_SCAN_HELDOUT_PARTS;
  case PASCAL_PLAN_KIND_SCAN_OFFGRID: return PASCAL_PLAN_SCAN_OFFGRID_PARTS;
  case PASCAL_PLAN_KIND_ATTENTION_CELLS: return PASCAL_PLAN_ATTENTION_CELL_PARTS;
  default: return 1u;
  }
}

uint32_t pascal_plan_max_occupancy(uint64_t smem_per_sm, uint32_t d, uint32_t block_bytes)
{
  if (smem_per_sm == 0 || d == 0)
    return UINT32_MAX;
  /* The open scan's dynamic shared memory: barriers padded to 128 bytes,
   * then d buffers (kernels/open_scan.cu). */
  const uint64_t per_cta = 128u * (((uint64_t)d * 8u + 127u) / 128u) + (uint64_t)d * block_bytes +
                           PASCAL_PLAN_SMEM_RESERVED_PER_CTA;
  const uint64_t o = smem_per_sm / per_cta;
  return o > UINT32_MAX ? UINT32_MAX : (uint32_t)o;
}

/* The seven families (o, path, d), one per depth d = 0..6: the synchronous
 * path (d = 0) and the TMA depths 1..6, each at the highest occupancy that
 * fits, at most the cap (docs/plans.md, "Families"). */
static pascal_status scan_families(const pascal_plan_device *dev, pascal_plan_key fam[N_FAMILIES],
                                   pascal_error *err)
{
  const uint32_t cap = dev->max_occupancy ? dev->max_occupancy : 2u;
  if (cap > PASCAL_PLAN_MAX_OCCUPANCY)
    return pascal_error_set(err, PASCAL_EINVAL, "max_occupancy",
                            "max_occupancy must be in [1, %u], got %u", PASCAL_PLAN_MAX_OCCUPANCY,
                            cap);
  for (uint32_t d = 0; d < N_FAMILIES; d++) {
    const uint32_t most = pascal_plan_max_occupancy(dev->smem_per_sm, d, dev->block_bytes);
    if (most == 0)
      return pascal_error_set(err, PASCAL_EINVAL, "smem_per_sm",
                              "family (tma, d=%u) does not fit: %llu bytes of shared memory per "
                              "SM hold no CTA with %u buffers of %u bytes",
                              d, (unsigned long long)dev->smem_per_sm, d, dev->block_bytes);
    fam[d] =
        (pascal_plan_key){most < cap ? most : cap, d ? PASCAL_PLAN_TMA : PASCAL_PLAN_SYNC, d, 0};
  }
  return PASCAL_OK;
}

static pascal_status scan_plan(const pascal_plan_device *dev, const uint32_t *k, size_t n_k,
                               const uint64_t *horizons, size_t n_h, const uint32_t *ms, size_t n_m,
                               uint32_t repeats, pascal_plan *out, pascal_error *err)
{
  pascal_plan_key fam[N_FAMILIES];
  pascal_status st = scan_families(dev, fam, err);
  if (st)
    return st;
  out->workload = PASCAL_PLAN_SCAN;
  out->repeats = repeats;
  out->sizes = malloc(n_k * sizeof *out->sizes);
  out->horizons = malloc(n_h * sizeof *out->horizons);
  out->keys = malloc(N_FAMILIES * n_m * sizeof *out->keys);
  if (!out->sizes || !out->horizons || !out->keys)
    return pascal_error_set(err, PASCAL_ENOMEM, "", "out of memory building the plan");
  for (size_t i = 0; i < n_k; i++) /* N = round(k C / 20) */
    out->sizes[i] = (k[i] * dev->capacity_blocks * 2u + 20u) / 40u;
  out->n_sizes = n_k;
  memcpy(out->horizons, horizons, n_h * sizeof *horizons);
  out->n_horizons = n_h;
  for (size_t f = 0; f < N_FAMILIES; f++)
    for (size_t j = 0; j < n_m; j++) {
      out->keys[out->n_keys] = fam[f];
      out->keys[out->n_keys++].m = ms[j];
    }
  return PASCAL_OK;
}

/* An attention plan (plan_gen.h): the default tiling's key at each depth
 * 1..3 at its occupancy, sizes k C / 20, the horizons given. */
static pascal_status attention_plan(const pascal_plan_device *dev, const uint32_t *k, size_t n_k,
                                    const uint64_t *horizons, size_t n_h, uint32_t repeats,
                                    pascal_plan *out, pascal_error *err)
{
  const uint32_t cap = dev->max_occupancy ? dev->max_occupancy : 2u;
  if (cap > PASCAL_PLAN_MAX_OCCUPANCY)
    return pascal_error_set(err, PASCAL_EINVAL, "max_occupancy",
                            "max_occupancy must be in [1, %u], got %u", PASCAL_PLAN_MAX_OCCUPANCY,
                            cap);
  const pascal_attention_params a = PASCAL_ATTENTION_DEFAULT;
  if (pascal_attention_step_bytes(&a) != dev->block_bytes)
    return pascal_error_set(err, PASCAL_EINVAL, "block_bytes",
                            "an attention plan's K/V step is %.0f bytes, the device's block %u",
                            pascal_attention_step_bytes(&a), dev->block_bytes);
  out->workload = PASCAL_PLAN_ATTENTION;
  out->repeats = repeats;
  out->sizes = malloc(n_k * sizeof *out->sizes);
  out->horizons = malloc(n_h * sizeof *out->horizons);
  out->keys = malloc(ATTENTION_DEPTHS * sizeof *out->keys);
  if (!out->sizes || !out->horizons || !out->keys)
    return pascal_error_set(err, PASCAL_ENOMEM, "", "out of memory building the plan");
  for (uint32_t d = 1; d <= ATTENTION_DEPTHS; d++) {
    uint32_t o = pascal_attention_occupancy(&a, d, dev->smem_per_sm, cap);
    if (o == 0)
      return pascal_error_set(err, PASCAL_EINVAL, "smem_per_sm",
                              "attention at stages = %u does not fit: %llu bytes of shared memory "
                              "per SM hold no CTA with a query tile and %u K/V steps",
                              d, (unsigned long long)dev->smem_per_sm, d);
    out->keys[out->n_keys++] = (pascal_plan_key){o, PASCAL_PLAN_TMA, d, pascal_attention_m(&a)};
  }
  for (size_t i = 0; i < n_k; i++) /* N = round(k C / 20) */
    out->sizes[i] = (k[i] * dev->capacity_blocks * 2u + 20u) / 40u;
  out->n_sizes = n_k;
  memcpy(out->horizons, horizons, n_h * sizeof *horizons);
  out->n_horizons = n_h;
  return PASCAL_OK;
}

static pascal_status gemm_plan(const uint64_t *mg, size_t n_mg, const uint64_t *ng, size_t n_ng,
                               const uint64_t *kg, size_t n_kg, pascal_plan *out, pascal_error *err)
{
  out->workload = PASCAL_PLAN_GEMM;
  out->repeats = 1;
  out->shapes = malloc(n_mg * n_ng * n_kg * sizeof *out->shapes);
  if (!out->shapes)
    return pascal_error_set(err, PASCAL_ENOMEM, "", "out of memory building the plan");
  for (size_t a = 0; a < n_mg; a++)
    for (size_t b = 0; b < n_ng; b++)
      for (size_t c = 0; c < n_kg; c++)
        out->shapes[out->n_shapes++] = (pascal_plan_shape){mg[a], ng[b], kg[c]};
  return PASCAL_OK;
}

static pascal_status gemm_list(const pascal_plan_shape *shapes, size_t n, uint32_t repeats,
                               pascal_plan *out, pascal_error *err)
{
  out->workload = PASCAL_PLAN_GEMM;
  out->repeats = repeats;
  out->shapes = malloc(n * sizeof *out->shapes);
  if (!out->shapes)
    return pascal_error_set(err, PASCAL_ENOMEM, "", "out of memory building the plan");
  memcpy(out->shapes, shapes, n * sizeof *shapes);
  out->n_shapes = n;
  return PASCAL_OK;
}

/* The configuration runs for the device: its list's configurations that
 * fit its shared memory (all where it states none) on its list's shapes. */
static pascal_status configs_plan(const pascal_plan_device *dev, pascal_plan *out,
                                  pascal_error *err)
{
  const int gpu = dev->smem_per_sm != 0;
  const pascal_gemm_config *list = gpu ? configs_gpu : configs_sim;
  const size_t n = gpu ? COUNT(configs_gpu) : COUNT(configs_sim);
  pascal_status st = gpu ? gemm_list(configs_gpu_shapes, COUNT(configs_gpu_shapes), 1, out, err)
                         : gemm_list(configs_sim_shapes, COUNT(configs_sim_shapes), 1, out, err);
  if (st)
    return st;
  if (!(out->configs = malloc(n * sizeof *out->configs)))
    return pascal_error_set(err, PASCAL_ENOMEM, "", "out of memory building the plan");
  for (size_t i = 0; i < n; i++) {
    uint32_t per_sm = 0;
    if (pascal_gemm_ctas_per_sm(dev->smem_per_sm, &list[i], 1, &per_sm, NULL) == PASCAL_OK)
      out->configs[out->n_configs++] = list[i];
  }
  if (out->n_configs == 0)
    return pascal_error_set(err, PASCAL_EINVAL, "smem_per_sm",
                            "no configuration of the gemm-configs plan fits %llu bytes of shared "
                            "memory per SM",
                            (unsigned long long)dev->smem_per_sm);
  return PASCAL_OK;
}

static pascal_status check_device(const pascal_plan_device *dev, pascal_error *err)
{
  /* 24/5 C must stay a plan extent (and 192 C must not overflow). */
  if (dev->capacity_blocks < 1 || dev->capacity_blocks > PASCAL_PLAN_MAX_EXTENT / 5u)
    return pascal_error_set(err, PASCAL_EINVAL, "capacity_blocks",
                            "capacity_blocks must be in [1, %llu], got %llu",
                            (unsigned long long)(PASCAL_PLAN_MAX_EXTENT / 5u),
                            (unsigned long long)dev->capacity_blocks);
  if (dev->block_bytes == 0 || dev->block_bytes % 16u != 0 || dev->block_bytes > (1u << 20))
    return pascal_error_set(err, PASCAL_EINVAL, "block_bytes",
                            "block_bytes must be a multiple of 16 in [16, 1048576], got %u",
                            dev->block_bytes);
  return PASCAL_OK;
}

pascal_status pascal_plan_generate(const pascal_plan_device *dev, pascal_plan_kind kind,
                                   unsigned part, pascal_plan *out, pascal_error *err)
{
  if (!pascal_plan_kind_name(kind))
    return pascal_error_set(err, PASCAL_EINVAL, "kind", "unknown plan kind %d", (int)kind);
  const unsigned parts = pascal_plan_kind_parts(kind);
  if (part < 1 || part > parts)
    return parts > 1 ? pascal_error_set(err, PASCAL_EINVAL, "part", "%s has parts 1..%u, got %u",
                                        pascal_plan_kind_name(kind), parts, part)
                     : pascal_error_set(err, PASCAL_EINVAL, "part", "%s has part 1, got %u",
                                        pascal_plan_kind_name(kind), part);
  pascal_status st = check_device(dev, err);
  if (st)
    return st;
  pascal_plan_free(out);
  switch (kind) {
  case PASCAL_PLAN_KIND_SCAN:
    st = scan_plan(dev, scan_size_k, COUNT(scan_size_k), scan_horizons, COUNT(scan_horizons),
                   scan_m, COUNT(scan_m), 1, out, err);
    break;
  case PASCAL_PLAN_KIND_SCAN_HELDOUT: {
    const heldout_part *h = &scan_heldout[part - 1];
    st = scan_plan(dev, &h->k, 1, h->horizons, h->n_horizons, scan_heldout_m, COUNT(scan_heldout_m),
                   HELDOUT_REPEATS, out, err);
    break;
  }
  case PASCAL_PLAN_KIND_GEMM:
    st = gemm_plan(gemm_mg, COUNT(gemm_mg), gemm_ng, COUNT(gemm_ng), gemm_kg, COUNT(gemm_kg), out,
                   err);
    break;
  case PASCAL_PLAN_KIND_GEMM_HELDOUT:
    st = gemm_plan(gemm_heldout_mg, COUNT(gemm_heldout_mg), gemm_heldout_ng, COUNT(gemm_heldout_ng),
                   gemm_heldout_kg, COUNT(gemm_heldout_kg), out, err);
    break;
  case PASCAL_PLAN_KIND_SCAN_DRAM:
    st = scan_plan(dev, scan_dram_k, COUNT(scan_dram_k), scan_dram_horizons,
                   COUNT(scan_dram_horizons), scan_dram_m, COUNT(scan_dram_m), 1, out, err);
    break;
  case PASCAL_PLAN_KIND_GEMM_DRAM:
    st = gemm_list(gemm_dram_shapes, COUNT(gemm_dram_shapes), 1, out, err);
    break;
  case PASCAL_PLAN_KIND_SCAN_OFFGRID: {
    const offgrid_part *g = &scan_offgrid[part - 1];
    st = scan_plan(dev, g->k, g->n_k, g->horizons, g->n_horizons, g->m, g->n_m, HELDOUT_REPEATS,
                   out, err);
    break;
  }
  case PASCAL_PLAN_KIND_GEMM_OFFGRID:
    st = gemm_list(gemm_offgrid_shapes, COUNT(gemm_offgrid_shapes), HELDOUT_REPEATS, out, err);
    break;
  case PASCAL_PLAN_KIND_ATTENTION:
    st = attention_plan(dev, attention_size_k, COUNT(attention_size_k), attention_horizons,
                        COUNT(attention_horizons), ATTENTION_REPEATS, out, err);
    break;
  case PASCAL_PLAN_KIND_ATTENTION_HELDOUT:
    st = attention_plan(dev, attention_heldout_k, COUNT(attention_heldout_k), attention_horizons,
                        COUNT(attention_horizons), 1, out, err);
    break;
  case PASCAL_PLAN_KIND_ATTENTION_CELLS: {
    const attention_cell *cell = &attention_cells[part - 1];
    st = attention_plan(dev, &cell->k, 1, &cell->W, 1, ATTENTION_REPEATS, out, err);
    break;
  }
  case PASCAL_PLAN_KIND_GEMM_CONFIGS: st = configs_plan(dev, out, err); break;
  }
  if (st == PASCAL_OK)
    st = pascal_plan_validate(out, err);
  if (st == PASCAL_OK && pascal_plan_kind_is_scan(kind))
    st = pascal_plan_check_capacity(out, dev->capacity_blocks, err);
  if (st)
    pascal_plan_free(out);
  return st;
}

pascal_status pascal_plan_check_capacity(const pascal_plan *plan, uint64_t capacity_blocks,
                                         pascal_error *err)
{
  if (plan->workload == PASCAL_PLAN_GEMM)
    return PASCAL_OK;
  for (size_t i = 0; i < plan->n_sizes; i++)
    if (plan->sizes[i] <= capacity_blocks) {
      char field[32];
      snprintf(field, sizeof field, "sizes[%zu]", i);
      return pascal_error_set(err, PASCAL_EINVAL, field,
                              "size N = %llu blocks is not above the device's capacity C = %llu "
                              "blocks (scan sizes must exceed C)",
                              (unsigned long long)plan->sizes[i],
                              (unsigned long long)capacity_blocks);
    }
  return PASCAL_OK;
}
