/*
 * cluster_exp.c - the pure parts of the static cluster experiment
 * (pascal/cluster_exp.h; paper section 5.2, Table "static"): the scan
 * length for a device's L2, cluster counts, equally spaced phases, and the
 * gap-law / SDCM / Che expectations.
 */
#include "pascal/cluster_exp.h"

#include <math.h>

#include "pascal/baselines.h"
#include "pascal/static.h"

pascal_status pascal_cluster_scan_blocks(uint64_t l2_bytes, uint32_t block_bytes, uint64_t *n,
                                         pascal_error *err)
{
  if (block_bytes == 0)
    return pascal_error_set(err, PASCAL_EINVAL, "block_bytes", "block_bytes must be at least 1");
  uint64_t blocks = PASCAL_CLUSTER_N_MIN;
  while (blocks * block_bytes <= l2_bytes) {
    if (blocks >= (1ull << 30))
      return pascal_error_set(err, PASCAL_ERANGE, "l2_bytes",
                              "an L2 of %llu bytes needs a ring above 2^31 blocks of %u bytes",
                              (unsigned long long)l2_bytes, block_bytes);
    blocks *= 2;
  }
  *n = blocks;
  return PASCAL_OK;
}

pascal_status pascal_cluster_counts(uint32_t m, uint32_t out[PASCAL_CLUSTER_COUNTS], size_t *n,
                                    pascal_error *err)
{
  if (m == 0)
    return pascal_error_set(err, PASCAL_EINVAL, "M", "M must be at least 1");
  size_t k = 0;
  if (m <= PASCAL_CLUSTER_COUNTS) {
    for (uint32_t c = 1; c <= m; c++)
      out[k++] = c;
  } else {
    for (unsigned i = 0; i < PASCAL_CLUSTER_COUNTS; i++) {
      uint32_t c = (uint32_t)lround(pow((double)m, i / (double)(PASCAL_CLUSTER_COUNTS - 1)));
      if (k > 0 && c <= out[k - 1])
        c = out[k - 1] + 1; /* m > 11 leaves room: c stays <= m - (10 - i) */
      out[k++] = c;
    }
    out[k - 1] = m;
  }
  *n = k;
  return PASCAL_OK;
}

pascal_status pascal_cluster_phases(uint64_t n, uint32_t m, uint32_t c, uint64_t *phases,
                                    pascal_error *err)
{
  if (c < 1 || c > m)
    return pascal_error_set(err, PASCAL_EINVAL, "c", "cluster count %u is outside [1, M = %u]", c,
                            m);
  if (c > n)
    return pascal_error_set(err, PASCAL_EINVAL, "N", "N = %llu is below the cluster count %u",
                            (unsigned long long)n, c);
  const uint64_t spacing = n / c;
  for (uint32_t w = 0; w < m; w++)
    phases[w] = (w % c) * spacing;
  return PASCAL_OK;
}

pascal_status pascal_cluster_expectations(uint64_t n, uint64_t c, const uint64_t *phases,
                                          uint32_t m, pascal_cluster_expect *out, pascal_error *err)
{
  pascal_static_result gap;
  pascal_baseline_k base;
  pascal_status st = pascal_static_analyze(n, c, phases, m, &gap, err);
  if (st == PASCAL_OK)
    st = pascal_baseline_static_k(n, c, phases, m, 0, 0, &base, err);
  if (st != PASCAL_OK)
    return st;
  out->gap_law = (double)gap.k_ttl;
  out->sdcm = base.sdcm;
  out->che = base.che;
  return PASCAL_OK;
}
