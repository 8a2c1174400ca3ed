/*
 * device_data.c - checks of a device's capacity probe and static table, and
 * the sizes of the capacity scan (pascal/device_data.h; paper sections 5.1
 * and 5.2).
 */
#include "pascal/device_data.h"

#include <math.h>
#include <stdio.h>

static int finite_nonneg(double v)
{
  return isfinite(v) && v >= 0.0;
}

pascal_status pascal_capacity_probe_check(const pascal_capacity_probe *p, pascal_error *err)
{
  if (p->waves < 1)
    return pascal_error_set(err, PASCAL_EINVAL, "waves", "waves must be at least 1");
  if (p->n < 2 || p->n > PASCAL_CAPACITY_PROBE_MAX)
    return pascal_error_set(err, PASCAL_EINVAL, "size_blocks",
                            "a capacity probe has 2..%d sizes (got %zu)", PASCAL_CAPACITY_PROBE_MAX,
                            p->n);
  for (size_t i = 0; i < p->n; i++) {
    char field[32];
    if (p->size_blocks[i] < 1 || (i > 0 && p->size_blocks[i] <= p->size_blocks[i - 1])) {
      snprintf(field, sizeof field, "size_blocks[%zu]", i);
      return pascal_error_set(err, PASCAL_EINVAL, field,
                              "%s must be at least 1 and larger than the size before it", field);
    }
    if (!finite_nonneg(p->fill_ratio[i])) {
      snprintf(field, sizeof field, "fill_ratio[%zu]", i);
      return pascal_error_set(err, PASCAL_EINVAL, field, "%s must be finite and >= 0", field);
    }
  }
  return PASCAL_OK;
}

pascal_status pascal_capacity_scan_sizes(uint64_t l2_blocks,
                                         uint64_t out[PASCAL_CAPACITY_SCAN_SIZES],
                                         pascal_error *err)
{
  if (l2_blocks < 8)
    return pascal_error_set(err, PASCAL_EINVAL, "l2_bytes",
                            "the L2 holds fewer than 8 blocks; no capacity scan");
  /* L2/4 + i (5/4 L2)/14: from a quarter to one and a half times L2, the
   * same sweep as the CUDA probe (calibrator/cuda/capacity.cpp). */
  for (uint64_t i = 0; i < PASCAL_CAPACITY_SCAN_SIZES; i++)
    out[i] = l2_blocks / 4 + i * (5 * l2_blocks / 4) / (PASCAL_CAPACITY_SCAN_SIZES - 1);
  return PASCAL_OK;
}

static pascal_status row_error(size_t i, const char *key, const char *what, pascal_error *err)
{
  char field[40];
  snprintf(field, sizeof field, "rows[%zu].%s", i, key);
  return pascal_error_set(err, PASCAL_EINVAL, field, "%s %s", field, what);
}

pascal_status pascal_static_table_check(const pascal_static_table *t, pascal_error *err)
{
  if (t->M < 1)
    return pascal_error_set(err, PASCAL_EINVAL, "M", "M must be at least 1");
  if (t->N < 2)
    return pascal_error_set(err, PASCAL_EINVAL, "N", "N must be at least 2");
  if (t->H < 1)
    return pascal_error_set(err, PASCAL_EINVAL, "H", "H must be at least 1");
  if (t->n_rows < 1 || t->n_rows > PASCAL_STATIC_ROWS_MAX)
    return pascal_error_set(err, PASCAL_EINVAL, "rows", "a static table has 1..%d rows (got %zu)",
                            PASCAL_STATIC_ROWS_MAX, t->n_rows);
  for (size_t i = 0; i < t->n_rows; i++) {
    const pascal_static_row *r = &t->rows[i];
    if (r->block_bytes < 1)
      return row_error(i, "block_bytes", "must be at least 1", err);
    if (r->C < 1 || r->C >= t->N)
      return row_error(i, "C", "must be in [1, N)", err);
    if (r->clusters < 1 || r->clusters > t->M)
      return row_error(i, "clusters", "must be in [1, M]", err);
    const double v[] = {r->K, r->gap_law, r->sdcm, r->che};
    static const char *const keys[] = {"K", "gap_law", "sdcm", "che"};
    for (size_t k = 0; k < 4; k++)
      if (!finite_nonneg(v[k]))
        return row_error(i, keys[k], "must be finite and >= 0", err);
  }
  return PASCAL_OK;
}
