/*
 * predict_attention.c - attention prediction (pascal/attention.h,
 * docs/attention.md; the paper's exploratory FlashAttention-2 section):
 * a launch is mapped onto the scan coordinates of its shared K/V traffic
 * (N steps, depth d = stages, the tiling's m, the kernel's occupancy o at
 * that depth from the calibration, W = CTAs / M), the K/V scan is
 * predicted by the scan model (predict_scan.c: transfer along the sequence
 * length through eta = C/N and along log W), and the query tiles, read
 * once, are added back to its fills.
 */
#include <math.h>
#include <stdio.h>

#include "model_internal.h"
#include "pascal/attention.h"

const pascal_attention_params *pascal_model_attention(const pascal_model *model)
{
  return model->workload == PASCAL_WORKLOAD_ATTENTION ? &model->attention : NULL;
}

/* The calibration's value for a tiling member the query left at 0; a
 * given value must be the calibration's. */
static pascal_status tiling(uint32_t asked, uint32_t calibrated, const char *field, uint32_t *out,
                            pascal_error *err)
{
  *out = asked ? asked : calibrated;
  if (*out == calibrated)
    return PASCAL_OK;
  return pascal_error_set(err, PASCAL_EREFUSED, field,
                          "the calibration measured the kernel with %s = %u; %s = %u is another "
                          "kernel (measure its own calibration)",
                          field, calibrated, field, asked);
}

/* The kernel's resident CTAs per SM at depth d: the one occupancy the
 * calibration measured at that depth. */
static pascal_status occupancy(const pascal_model *md, uint32_t d, uint32_t *o, pascal_error *err)
{
  uint64_t measured = 0; /* bit d - 1: depth d was measured (d <= 64) */
  *o = 0;
  for (size_t k = 0; k < md->n_families; k++) {
    const model_family *f = &md->families[k];
    if (f->path != PASCAL_PATH_TMA)
      continue;
    if (f->d >= 1 && f->d <= 64)
      measured |= UINT64_C(1) << (f->d - 1);
    if (f->d != d)
      continue;
    if (*o && *o != f->o)
      return pascal_error_set(err, PASCAL_EREFUSED, "stages",
                              "the calibration measured stages = %u at two occupancies (%u and %u "
                              "CTAs per SM): which one runs is not known",
                              d, *o, f->o);
    *o = f->o;
  }
  if (*o)
    return PASCAL_OK;
  char depths[64 * 4] = "";
  size_t len = 0;
  for (unsigned i = 0; i < 64; i++)
    if ((measured >> i) & 1)
      len += (size_t)snprintf(depths + len, sizeof depths - len, "%s%u", len ? ", " : "", i + 1);
  return pascal_error_set(err, PASCAL_EREFUSED, "stages",
                          "stages = %u was not calibrated (measured: %s); a depth is not "
                          "extrapolated",
                          d, len ? depths : "none");
}

pascal_status pascal_model_predict_attention(const pascal_model *md,
                                             const pascal_attention_shape *s,
                                             pascal_attention_prediction *out, pascal_error *err)
{
  pascal_status st;
  if (md->workload != PASCAL_WORKLOAD_ATTENTION)
    return pascal_error_set(err, PASCAL_EINVAL, "workload",
                            "this calibration is for a %s, not attention",
                            pascal_workload_name(md->workload));
  if (s->causal)
    return pascal_error_set(err, PASCAL_EREFUSED, "causal",
                            "causal masking is not modelled: a causal CTA scans only the K/V "
                            "steps up to its diagonal, not the shared cyclic scan of one length "
                            "the calibration measured");
  uint32_t kv_heads = s->kv_heads ? s->kv_heads : 1;
  if (s->heads % kv_heads)
    return pascal_error_set(err, PASCAL_EINVAL, "kv_heads", "kv_heads (%u) must divide heads (%u)",
                            kv_heads, s->heads);
  if (kv_heads != 1)
    return pascal_error_set(err, PASCAL_EREFUSED, "kv_heads",
                            "grouped-query K/V (kv_heads = %u) is not modelled: %u K/V heads are "
                            "%u scans sharing the cache at once; the calibration measured "
                            "multi-query attention (kv_heads = 1)",
                            kv_heads, kv_heads, kv_heads);
  pascal_attention_params a;
  const pascal_attention_params *c = &md->attention;
  if ((st = tiling(s->block_q, c->block_q, "block_q", &a.block_q, err)) ||
      (st = tiling(s->block_kv, c->block_kv, "block_kv", &a.block_kv, err)) ||
      (st = tiling(s->head_dim, c->head_dim, "head_dim", &a.head_dim, err)) ||
      (st = tiling(s->elem_bytes, c->elem_bytes, "elem_bytes", &a.elem_bytes, err)))
    return st;
  uint64_t steps = ((uint64_t)s->seq_kv + a.block_kv - 1) / a.block_kv;
  if (steps > UINT32_MAX)
    return pascal_error_set(err, PASCAL_EINVAL, "seq_kv", "seq_kv has more than 2^32 - 1 steps");
  pascal_attention_prediction p = {0};
  p.key = (pascal_scan_key){.path = PASCAL_PATH_TMA, .d = s->stages, .m = pascal_attention_m(&a)};
  if ((st = occupancy(md, s->stages, &p.key.o, err)))
    return st;
  p.N = (uint32_t)steps;
  p.ctas = ((uint64_t)s->seq_q + a.block_q - 1) / a.block_q * s->heads;
  double M = (double)md->device.sm_count * p.key.o;
  p.W = (double)p.ctas / M;
  if ((st = pascal_model_predict_scan(md, &p.key, p.N, p.W, &p.kv, err)))
    return st;
  double e = a.elem_bytes, b = md->device.block_bytes;
  p.K = p.kv.K;
  p.q_bytes = (double)s->seq_q * s->heads * a.head_dim * e;
  p.o_bytes = p.q_bytes;
  p.kv_bytes = b * p.N;
  p.b0_bytes = p.q_bytes + b * p.W * p.N;
  p.fill_bytes = p.q_bytes + p.kv.fill_bytes;
  *out = p;
  return PASCAL_OK;
}
