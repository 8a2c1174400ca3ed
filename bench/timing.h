/* timing.h - monotonic clock and medians for the benchmark programs. */
#ifndef PASCAL_BENCH_TIMING_H
#define PASCAL_BENCH_TIMING_H
#include <stddef.h>

/* Nanoseconds from CLOCK_MONOTONIC. */
double bench_now_ns(void);
/* Median of `n` samples; sorts `samples` in place. */
double bench_median(double *samples, size_t n);
/* The q-quantile (0..1) of `n` samples; sorts in place. */
double bench_quantile(double *samples, size_t n, double q);

#endif
