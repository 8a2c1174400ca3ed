/*
 * sort_u64.h - internal: ascending sorts of 64-bit keys for the static theory
 * (the O(M log M) sorts of paper §3.2-3.4). Small inputs use insertion sort,
 * large ones an LSD radix sort whose pass count follows the largest key, so a
 * million phases below N = 2^20 take two passes.
 */
#ifndef PASCAL_SORT_U64_H
#define PASCAL_SORT_U64_H

#include <stddef.h>
#include <stdint.h>

/* Inputs of at most this many keys are sorted in place without scratch. */
#define PASCAL_SORT_SMALL 64

/* Sort keys[0..n) ascending. `scratch` holds n keys when n > PASCAL_SORT_SMALL
 * (may be NULL otherwise). */
void pc_sort_u64(uint64_t *keys, size_t n, uint64_t *scratch);

/* Stable sort of (keys[i], vals[i]) pairs by key: equal keys keep their input
 * order. Scratch as above, plus `val_scratch` of n entries. */
void pc_sort_u64_pairs(uint64_t *keys, size_t *vals, size_t n, uint64_t *scratch,
                       size_t *val_scratch);

#endif
