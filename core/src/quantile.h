/*
 * quantile.h - internal: sorting doubles and reading a quantile off them
 * (Hyndman-Fan type 7, linear between order statistics), shared by the key
 * bootstrap (bootstrap.c) and the prediction intervals (interval.c).
 */
#ifndef PASCAL_QUANTILE_H
#define PASCAL_QUANTILE_H

#include <stddef.h>

/* Sort v[0..n) ascending (no NaN). */
void pc_sort_doubles(double *v, size_t n);

/* Type-7 quantile q in [0, 1] of the sorted s[0..n), n >= 1: the value at
 * position q (n - 1), linear between the order statistics around it. */
double pc_quantile_sorted(const double *s, size_t n, double q);

#endif
