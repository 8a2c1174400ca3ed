/* timing.c - clock and order statistics shared by the bench_*.c programs. */
#include "timing.h"

#include <stdlib.h>
#include <time.h>

double bench_now_ns(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int compare_double(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

double bench_quantile(double *samples, size_t n, double q)
{
  if (n == 0)
    return 0.0;
  qsort(samples, n, sizeof *samples, compare_double);
  size_t i = (size_t)(q * (double)(n - 1) + 0.5);
  return samples[i < n ? i : n - 1];
}

double bench_median(double *samples, size_t n)
{
  return bench_quantile(samples, n, 0.5);
}
