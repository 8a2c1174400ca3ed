/*
 * predict_advice.c - what restores sharing when a scan prediction says the
 * workers diverge (K > PASCAL_DIVERGENCE_K), by the paper's Theorem
 * coherence (section 3.5, Eqs. progress_spread and coherent_traffic),
 * through pascal_coherence_check() of coherence.c.
 *
 * The largest lead the capacity tolerates is sigma_max = floor((C + 1) / 2),
 * the largest sigma with C >= 2 sigma - 1. A within-wave checkpoint at which
 * all resident CTAs wait every I blocks bounds the lead by I plus the d - 1
 * copies a depth-d TMA pipeline has issued ahead of its consumer, so
 * I = sigma_max - (d - 1) keeps the lead within sigma_max (the paper's GB10
 * run: C = 1280, sigma_max = 640, a 512-block checkpoint brought K from 5.40
 * to 1.00). Under that lead the theorem bounds the whole run's count by
 * K <= 1 + (M - 1) sigma_max / E with E = M W N requests: the fill bytes at
 * stake are the predicted ones minus that bound's.
 */
#include <math.h>

#include "model_internal.h"
#include "pascal/coherence.h"

void pc_scan_advise(const pascal_device *dev, const pascal_scan_key *key, uint32_t N, double W,
                    const pascal_scan_prediction *p, pascal_scan_advice *out)
{
  *out = (pascal_scan_advice){0};
  uint64_t ahead = key->path == PASCAL_PATH_TMA && key->d > 0 ? key->d - 1 : 0;
  uint64_t sigma = ((uint64_t)dev->capacity_blocks + 1) / 2;
  if (p->why.rule == PASCAL_RULE_RESIDENT || !(p->K > PASCAL_DIVERGENCE_K) || p->M < 2 ||
      sigma <= ahead)
    return;
  double requests = (double)p->M * W * (double)N; /* E, rounded down below */
  uint64_t e = requests >= 0x1p63 ? UINT64_C(1) << 63 : (uint64_t)requests;
  pascal_coherence_result r;
  /* the lead cannot exceed the requests made */
  if (e < 1 || pascal_coherence_check(sigma < e ? sigma : e, dev->capacity_blocks, p->M, e, &r,
                                      NULL) != PASCAL_OK)
    return;
  double per_k = (double)dev->block_bytes * W * (double)N; /* bytes at K = 1 */
  out->given = true;
  out->sigma_max = sigma;
  out->min_capacity = 2 * sigma - 1;
  out->checkpoint_blocks = sigma - ahead;
  out->K_coherent = fmin(r.rate_bound, p->M);
  out->fill_bytes_coherent = out->K_coherent * per_k;
  out->fill_bytes_at_k1 = per_k;
  out->fill_bytes_at_stake = p->fill_bytes - out->fill_bytes_coherent;
}
