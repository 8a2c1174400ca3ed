/*
 * bootstrap.c - the percentile key bootstrap behind the paper's 95% paired
 * confidence intervals (section 5.4): keys are resampled with replacement
 * within each workload/device group, the balanced mean is recomputed for
 * every resample, and the interval is read off the sorted statistics
 * (pascal/evaluate.h gives the exact rules).
 */
#include "pascal/evaluate.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "quantile.h"

/* splitmix64 (Steele, Lea and Flood): one 64-bit draw per call. */
static uint64_t splitmix64(uint64_t *state)
{
  uint64_t z = (*state += UINT64_C(0x9E3779B97F4A7C15));
  z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
  z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
  return z ^ (z >> 31);
}

/* Uniform index below n: floor(u n), u = top 53 bits / 2^53 in [0, 1). */
static size_t draw_index(uint64_t *state, size_t n)
{
  double u = (double)(splitmix64(state) >> 11) * 0x1.0p-53;
  size_t i = (size_t)(u * (double)n);
  return i < n ? i : n - 1;
}

static pascal_status check_input(const double *const *values, const size_t *n, size_t n_groups,
                                 size_t resamples, double level, pascal_interval *out,
                                 pascal_error *err)
{
  char field[PASCAL_ERROR_FIELD_MAX];
  if (n_groups == 0 || !values || !n)
    return pascal_error_set(err, PASCAL_EINVAL, "values", "at least one group of keys is needed");
  if (resamples < 1)
    return pascal_error_set(err, PASCAL_EINVAL, "resamples", "resamples must be at least 1");
  if (!(level > 0 && level < 1))
    return pascal_error_set(err, PASCAL_EINVAL, "level", "level must lie strictly between 0 and 1");
  if (!out)
    return pascal_error_set(err, PASCAL_EINVAL, "out", "output pointer is NULL");
  for (size_t g = 0; g < n_groups; g++) {
    if (n[g] == 0 || !values[g]) {
      snprintf(field, sizeof field, "n[%zu]", g);
      return pascal_error_set(err, PASCAL_EINVAL, field, "every group needs at least one key");
    }
    for (size_t i = 0; i < n[g]; i++)
      if (!isfinite(values[g][i])) {
        snprintf(field, sizeof field, "values[%zu][%zu]", g, i);
        return pascal_error_set(err, PASCAL_EINVAL, field, "values must be finite");
      }
  }
  return PASCAL_OK;
}

pascal_status pascal_key_bootstrap(const double *const *values, const size_t *n, size_t n_groups,
                                   size_t resamples, uint64_t seed, double level,
                                   pascal_interval *out, pascal_error *err)
{
  pascal_status st = check_input(values, n, n_groups, resamples, level, out, err);
  if (st)
    return st;
  double *stat = malloc(resamples * sizeof *stat);
  if (!stat)
    return pascal_error_set(err, PASCAL_ENOMEM, "resamples", "out of memory");
  uint64_t state = seed;
  for (size_t r = 0; r < resamples; r++) {
    double total = 0;
    for (size_t g = 0; g < n_groups; g++) {
      double sum = 0;
      for (size_t i = 0; i < n[g]; i++)
        sum += values[g][draw_index(&state, n[g])];
      total += sum / (double)n[g];
    }
    stat[r] = total / (double)n_groups;
  }
  pc_sort_doubles(stat, resamples);
  out->lo = pc_quantile_sorted(stat, resamples, (1 - level) / 2);
  out->hi = pc_quantile_sorted(stat, resamples, (1 + level) / 2);
  free(stat);
  return PASCAL_OK;
}
