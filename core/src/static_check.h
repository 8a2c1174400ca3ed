/*
 * static_check.h - internal: validation of the static model's inputs
 * (paper §3.1: 1 <= N, 1 <= C < N, phases in [0, N), M >= 1), shared by the
 * gap law, the reuse computations and the simulators so that every entry
 * point names the bad argument the same way.
 */
#ifndef PASCAL_STATIC_CHECK_H
#define PASCAL_STATIC_CHECK_H

#include <stddef.h>
#include <stdint.h>

#include "pascal/error.h"

/* 1 <= n <= limit; field "N". */
pascal_status pc_check_n(uint64_t n, uint64_t limit, pascal_error *err);
/* 1 <= c < n; field "C". */
pascal_status pc_check_c(uint64_t n, uint64_t c, pascal_error *err);
/* phases != NULL, m >= 1, every phase < n; fields "phases", "M", "phases[i]". */
pascal_status pc_check_phases(uint64_t n, const uint64_t *phases, size_t m, pascal_error *err);
/* n, c and phases together (n against PASCAL_STATIC_N_MAX). */
pascal_status pc_check_model(uint64_t n, uint64_t c, const uint64_t *phases, size_t m,
                             pascal_error *err);
/* *out = a * b, or PASCAL_ERANGE naming `field` when it exceeds `limit`. */
pascal_status pc_check_mul(uint64_t a, uint64_t b, uint64_t limit, const char *field, uint64_t *out,
                           pascal_error *err);

#endif
