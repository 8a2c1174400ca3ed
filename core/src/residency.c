/*
 * residency.c - the share of a scan's later passes that refetch between the
 * capacity C and the calibration's smallest size, read off the device's
 * capacity probe (pascal_scan_residency in pascal/predict.h; docs/design.md
 * 4.4). Below C the whole operand stays (rule resident); at the calibrated
 * sizes every later pass refetches what the curves say. Between them a
 * cache that is not a pure LRU keeps part of the data from pass to pass,
 * and the probe (the capacity scan of section 5.1) measured how much at its
 * sizes; no calibration size lies there, so the curves alone answer a full
 * refetch (on the H100, K about 1 where 1/W was measured,
 * docs/results-h100.md).
 */
#include "residency.h"

#include <assert.h>
#include <math.h>

#include "pascal/time_model.h"

/* The share refetched by each pass after the first at one probe size. */
static double probe_refetch(const pascal_capacity_probe *p, size_t i)
{
  double r = (p->fill_ratio[i] - 1) / (double)(p->waves - 1);
  return fmin(1, fmax(0, r));
}

void pc_scan_residency(const pascal_device *dev, uint32_t N_min, uint32_t N, double W,
                       double K_refetching, pascal_scan_residency *out)
{
  *out = (pascal_scan_residency){.read = false};
  const pascal_capacity_probe *p = &dev->capacity_probe;
  if (!dev->has_capacity_probe || p->waves < 2 || !(W > 1) || N <= dev->capacity_blocks ||
      N >= N_min)
    return;
  /* the bracket: the last point below N (C when no probe size lies
   * between C and N) and the first at or above it (N_min when no probe size
   * lies between N and N_min); one point when N is a probe size */
  size_t i = 0;
  while (i < p->n && p->size_blocks[i] < N)
    i++;
  uint32_t n_a = dev->capacity_blocks, n_b = N_min;
  double r_a = 0, r_b = 1;
  if (i > 0 && p->size_blocks[i - 1] > dev->capacity_blocks)
    n_a = (uint32_t)p->size_blocks[i - 1], r_a = probe_refetch(p, i - 1);
  if (i < p->n && p->size_blocks[i] < N_min)
    n_b = (uint32_t)p->size_blocks[i], r_b = probe_refetch(p, i);
  if (n_b == N)
    n_a = n_b, r_a = r_b;
  double lo = fmin(r_a, r_b), hi = fmax(r_a, r_b);
  if (lo >= 1)
    return;
  double r = n_b > n_a ? r_a + (r_b - r_a) * (double)(N - n_a) / (double)(n_b - n_a) : r_a;
  *out = (pascal_scan_residency){.read = true,
                                 .refetch = r,
                                 .refetch_low = lo,
                                 .refetch_high = hi,
                                 .N_low = n_a,
                                 .N_high = n_b,
                                 .K_refetching = K_refetching,
                                 .K_low = pc_residency_K(lo, K_refetching, W),
                                 .K_high = pc_residency_K(hi, K_refetching, W)};
}

double pc_residency_K(double refetch, double K_refetching, double W)
{
  return 1 / W + refetch * (K_refetching - 1 / W);
}

void pc_residency_bounds(const pascal_scan_residency *res, double W, double K, double *lo,
                         double *hi)
{
  double low = pc_residency_K(res->refetch_low, res->K_refetching * exp(*lo), W);
  double high = pc_residency_K(res->refetch_high, res->K_refetching * exp(*hi), W);
  assert(low <= K * (1 + 1e-12) && high >= K * (1 - 1e-12));
  *lo = fmin(0, log(low / K));
  *hi = fmax(0, log(high / K));
}

void pc_residency_time_bounds(const pascal_model *model, const pascal_scan_key *key, uint32_t N,
                              double W, double t, double fill_low, double fill_high, double *t_low,
                              double *t_high)
{
  pascal_time low, high;
  if (!(t > 0) || pascal_time_scan(model, key, N, W, fill_low, &low, NULL) != PASCAL_OK ||
      pascal_time_scan(model, key, N, W, fill_high, &high, NULL) != PASCAL_OK)
    return;
  *t_low = fmin(*t_low, low.time_s * (*t_low / t));
  *t_high = fmax(*t_high, high.time_s * (*t_high / t));
}
