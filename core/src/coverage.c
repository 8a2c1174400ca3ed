/*
 * coverage.c - how the prediction intervals hold on a panel
 * (pascal/interval.h, "coverage"): panel runs grouped by the signature of
 * their answers' transfers, each group's share inside the interval, its
 * median width and the MAPE of PASCAL and of aligned K = 1.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pascal/interval.h"
#include "quantile.h"

unsigned pascal_transfer_signature(const pascal_transfers *t)
{
  unsigned s = 0;
  for (size_t i = 0; i < t->n; i++)
    s |= PASCAL_SIGNATURE_BIT(t->item[i].coordinate, t->item[i].kind);
  return s;
}

void pascal_signature_name(unsigned signature, char *buf, size_t len)
{
  if (!len)
    return;
  buf[0] = '\0';
  if (signature == PASCAL_COVERAGE_OTHER || signature == 0) {
    snprintf(buf, len, "%s", signature ? "other" : "at references");
    return;
  }
  size_t used = 0;
  for (int c = 0; c < PASCAL_COORDINATES; c++)
    for (int kind = 0; kind < PASCAL_TRANSFER_KINDS; kind++) {
      if (!(signature & PASCAL_SIGNATURE_BIT(c, kind)))
        continue;
      int w = snprintf(buf + used, len - used, "%s%s %s", used ? ", " : "",
                       pascal_coordinate_name((pascal_coordinate)c),
                       pascal_transfer_kind_name((pascal_transfer_kind)kind));
      if (w < 0 || (size_t)w >= len - used)
        return;
      used += (size_t)w;
    }
}

/* The group of signature s: an existing one, a new one while there is
 * room, else "other". */
static pascal_coverage_group *group_of(pascal_coverage *c, unsigned s)
{
  for (size_t i = 0; i < c->n_groups; i++)
    if (c->group[i].signature == s)
      return &c->group[i];
  if (c->n_groups < PASCAL_COVERAGE_GROUPS_MAX - 1 || s == PASCAL_COVERAGE_OTHER) {
    c->group[c->n_groups] = (pascal_coverage_group){.signature = s};
    return &c->group[c->n_groups++];
  }
  return group_of(c, PASCAL_COVERAGE_OTHER);
}

static void add_run(pascal_coverage_group *g, const pascal_covered_run *r)
{
  g->n_runs++;
  g->n_covered += r->K_obs >= r->K_low && r->K_obs <= r->K_high;
  if (isfinite(r->t_obs) && isfinite(r->t_low) && isfinite(r->t_high)) {
    g->n_timed++;
    g->n_time_covered += r->t_obs >= r->t_low && r->t_obs <= r->t_high;
  }
  g->mape_pascal += fabs(r->K / r->K_obs - 1);
  g->mape_aligned += fabs(r->K_aligned / r->K_obs - 1);
}

/* The means and the median width of g, whose runs' ratios are ratio[0..n). */
static void finish_group(pascal_coverage_group *g, double *ratio, size_t n)
{
  g->mape_pascal = n ? 100 * g->mape_pascal / (double)n : NAN;
  g->mape_aligned = n ? 100 * g->mape_aligned / (double)n : NAN;
  pc_sort_doubles(ratio, n);
  g->median_ratio = n ? pc_quantile_sorted(ratio, n, 0.5) : NAN;
}

static int cmp_group(const void *pa, const void *pb)
{
  unsigned a = ((const pascal_coverage_group *)pa)->signature;
  unsigned b = ((const pascal_coverage_group *)pb)->signature;
  return (a > b) - (a < b);
}

pascal_status pascal_coverage_of(const pascal_covered_run *runs, size_t n, pascal_coverage *out,
                                 pascal_error *err)
{
  memset(out, 0, sizeof *out);
  out->level = PASCAL_INTERVAL_LEVEL;
  double *ratio = malloc((n ? n : 1) * sizeof *ratio);
  if (!ratio)
    return pascal_error_set(err, PASCAL_ENOMEM, "coverage", "out of memory");
  for (size_t i = 0; i < n; i++) {
    add_run(&out->all, &runs[i]);
    add_run(group_of(out, runs[i].signature), &runs[i]);
  }
  qsort(out->group, out->n_groups, sizeof *out->group, cmp_group);
  for (size_t i = 0; i < n; i++)
    ratio[i] = runs[i].K_high / runs[i].K_low;
  finish_group(&out->all, ratio, n);
  for (size_t g = 0; g < out->n_groups; g++) {
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
      if (group_of(out, runs[i].signature) == &out->group[g])
        ratio[k++] = runs[i].K_high / runs[i].K_low;
    finish_group(&out->group[g], ratio, k);
  }
  free(ratio);
  return PASCAL_OK;
}
