/*
 * simdev_attention.c - a FlashAttention-2 forward launch on the sim device
 * (pascal/simdev.h, docs/attention.md, docs/sim-device.md; the paper's
 * exploratory attention section): its checks, its lines (K/V steps per K/V
 * head, then a query tile and an output tile per CTA), its per-step work at
 * the profile's rates (the matrix products at the tensor pipe's), the scan engine's run
 * (simdev_scan.c), and its fills in bytes with the query tiles counted at their own size.
 */
#include <math.h>
#include <string.h>

#include "simdev_internal.h"

/* The most lines one launch may name (about 400 MiB of cache index). */
#define ATTENTION_MAX_LINES  (1u << 24)
/* The most compute units one step may take (as a scan's m). */
#define ATTENTION_MAX_STEP_M 1000000u

static pascal_status positive(uint32_t v, const char *field, pascal_error *err)
{
  return v ? PASCAL_OK
           : pascal_error_set(err, PASCAL_EINVAL, field, "%s must be at least 1", field);
}

static pascal_status check(const pascal_simdev_profile *p, const pascal_simdev_attention *run,
                           pascal_error *err)
{
  const pascal_attention_shape *s = &run->shape;
  pascal_status st;
  if ((st = positive(s->seq_q, "seq_q", err)) || (st = positive(s->seq_kv, "seq_kv", err)) ||
      (st = positive(s->heads, "heads", err)) || (st = positive(s->head_dim, "head_dim", err)) ||
      (st = positive(s->block_q, "block_q", err)) ||
      (st = positive(s->block_kv, "block_kv", err)) || (st = positive(s->stages, "stages", err)) ||
      (st = positive(s->elem_bytes, "elem_bytes", err)) || (st = positive(run->o, "o", err)))
    return st;
  const struct {
    const char *field;
    uint32_t v;
  } tiles[] = {{"block_q", s->block_q}, {"block_kv", s->block_kv}, {"head_dim", s->head_dim}};
  for (size_t i = 0; i < sizeof tiles / sizeof *tiles; i++)
    if (tiles[i].v % 16 || tiles[i].v > 1024)
      return pascal_error_set(err, PASCAL_EINVAL, tiles[i].field,
                              "%s must be a multiple of 16 in [16, 1024] (got %u)", tiles[i].field,
                              tiles[i].v);
  if (s->elem_bytes > 8)
    return pascal_error_set(err, PASCAL_EINVAL, "elem_bytes", "elem_bytes must be in [1, 8]");
  if (s->stages > 64)
    return pascal_error_set(err, PASCAL_EINVAL, "stages", "stages must be in [1, 64]");
  if (s->causal > 1)
    return pascal_error_set(err, PASCAL_EINVAL, "causal", "causal must be 0 or 1");
  uint32_t kv = s->kv_heads ? s->kv_heads : 1;
  if (s->heads % kv)
    return pascal_error_set(err, PASCAL_EINVAL, "kv_heads", "kv_heads (%u) must divide heads (%u)",
                            kv, s->heads);
  if (run->o > 64 || (uint64_t)p->sm_count * run->o > (1u << 18))
    return pascal_error_set(err, PASCAL_EINVAL, "o",
                            "o must be in [1, 64] with sm_count o <= 2^18");
  return PASCAL_OK;
}

pascal_status pascal_simdev_run_attention(pascal_simdev *dev, const pascal_simdev_attention *run,
                                          pascal_simdev_stats *out, pascal_error *err)
{
  if (!dev || !run || !out)
    return pascal_error_set(err, PASCAL_EINVAL, "attention", "device, run and out must be given");
  const pascal_simdev_profile *p = &dev->profile;
  pascal_status st = check(p, run, err);
  if (st)
    return st;
  const pascal_attention_shape *s = &run->shape;
  pascal_attention_params a = {s->block_q, s->block_kv, s->head_dim, s->elem_bytes};
  uint32_t kv_heads = s->kv_heads ? s->kv_heads : 1;
  uint64_t steps = ((uint64_t)s->seq_kv + a.block_kv - 1) / a.block_kv;
  uint64_t per_head = ((uint64_t)s->seq_q + a.block_q - 1) / a.block_q;
  uint64_t ctas = per_head * s->heads, kv_lines = steps * kv_heads;
  if (kv_lines + 2 * ctas > ATTENTION_MAX_LINES)
    return pascal_error_set(err, PASCAL_ERANGE, "seq_q",
                            "%llu K/V steps and 2 x %llu CTA tiles exceed the sim's %u lines",
                            (unsigned long long)kv_lines, (unsigned long long)ctas,
                            ATTENTION_MAX_LINES);
  double step_bytes = pascal_attention_step_bytes(&a), q_bytes = pascal_attention_q_tile_bytes(&a);
  double cache = (double)p->capacity_blocks * p->block_bytes;
  if (step_bytes > cache || step_bytes > (double)(1u << 30))
    return pascal_error_set(err, PASCAL_EINVAL, "block_kv",
                            "one K/V step (%.0f bytes) must fit the cache (%.0f bytes)", step_bytes,
                            cache);
  uint32_t m = pascal_attention_m(&a);
  if (m > ATTENTION_MAX_STEP_M)
    m = ATTENTION_MAX_STEP_M;
  uint64_t key = pc_simdev_seed_mix(
      pc_simdev_seed_mix(pc_simdev_seed_mix(s->seq_q, s->seq_kv),
                         pc_simdev_seed_mix(((uint64_t)s->heads << 32) | kv_heads,
                                            ((uint64_t)s->head_dim << 32) | s->stages)),
      pc_simdev_seed_mix(((uint64_t)a.block_q << 32) | a.block_kv,
                         ((uint64_t)run->o << 40) | ((uint64_t)s->elem_bytes << 8) | s->causal));
  pc_scan_cfg cfg = {
      .o = run->o,
      .tma = 1,
      .d = s->stages,
      .N = (uint32_t)steps,
      .ctas = ctas,
      .lines = (uint32_t)(kv_lines + 2 * ctas),
      .line_bytes = (uint32_t)step_bytes,
      .work_ns = 2 * p->consume_ns + pc_simdev_tile_compute_ns(p, m) + p->cta_sync_ns,
      .loop_ns = pc_simdev_tile_compute_ns(p, m),
      .seed = pc_simdev_seed_mix(pc_simdev_seed_mix(p->seed, key), run->seed),
      .tiles = 1,
      .causal = (int)s->causal,
      .tiles_per_head = per_head,
      .heads_per_kv = s->heads / kv_heads,
      .block_q = a.block_q,
      .block_kv = a.block_kv,
      .q_first = (uint32_t)kv_lines,
      .o_first = (uint32_t)(kv_lines + ctas),
  };
  pascal_simdev_stats st_all;
  if ((st = pc_simdev_scan_engine(dev, &cfg, &st_all, NULL, err)))
    return st;
  /* every query tile is one fill of its own (its line is read once) */
  uint64_t kv_fills = st_all.fills - ctas, kv_requests = st_all.requests - ctas;
  *out = st_all;
  out->fill_bytes = (double)kv_fills * step_bytes + (double)ctas * q_bytes;
  out->K = kv_requests ? (double)out->M * (double)kv_fills / (double)kv_requests : 0.0;
  return PASCAL_OK;
}
