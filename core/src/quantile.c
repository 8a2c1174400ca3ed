/*
 * quantile.c - sorting doubles and the type-7 quantile (quantile.h).
 */
#include "quantile.h"

#include <math.h>
#include <stdlib.h>

static int cmp_double(const void *pa, const void *pb)
{
  double a = *(const double *)pa, b = *(const double *)pb;
  return (a > b) - (a < b);
}

void pc_sort_doubles(double *v, size_t n)
{
  qsort(v, n, sizeof *v, cmp_double);
}

double pc_quantile_sorted(const double *s, size_t n, double q)
{
  double h = q * (double)(n - 1);
  size_t i = (size_t)floor(h);
  if (i + 1 >= n)
    return s[n - 1];
  return s[i] + (h - (double)i) * (s[i + 1] - s[i]);
}
