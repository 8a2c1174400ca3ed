/*
 * trace_rd.c - LRU stack (reuse) distances of an arbitrary address trace
 * (Mattson et al.; the reuse profile SDCM consumes, paper §2.1 and §3.3).
 *
 * A Fenwick tree over request times marks, for every address, the time of its
 * latest request; the distance of request i to an address last seen at p is
 * the number of marks in (p, i). O(len log len).
 */
#include "pascal/simulate.h"

#include <stdlib.h>

#include "sim_source.h"

static void fenwick_add(uint32_t *tree, size_t len, size_t i, int delta)
{
  for (i++; i <= len; i += i & (~i + 1))
    tree[i - 1] += (uint32_t)delta;
}

/* Marks at times 0..i-1. */
static uint64_t fenwick_prefix(const uint32_t *tree, size_t i)
{
  uint64_t sum = 0;
  for (; i > 0; i -= i & (~i + 1))
    sum += tree[i - 1];
  return sum;
}

pascal_status pascal_trace_reuse_distance_compute(const uint64_t *trace, size_t len,
                                                  uint64_t universe, uint64_t *rd,
                                                  pascal_error *err)
{
  pascal_sim_source src;
  pascal_status st = pc_sim_source_trace(&src, trace, len, universe, 1, 1, err);
  if (st != PASCAL_OK)
    return st;
  if (len > UINT32_MAX)
    return pascal_error_set(err, PASCAL_ERANGE, "len", "trace too long");
  if (!rd && len > 0)
    return pascal_error_set(err, PASCAL_EINVAL, "rd", "output pointer is NULL");
  uint32_t *tree = calloc(len ? len : 1, sizeof *tree);
  uint64_t *last = malloc(universe * sizeof *last);
  if (!tree || !last) {
    free(tree);
    free(last);
    return pascal_error_set(err, PASCAL_ENOMEM, "len", "cannot allocate the distance tree");
  }
  for (uint64_t b = 0; b < universe; b++)
    last[b] = PASCAL_RD_COLD;
  for (size_t i = 0; i < len; i++) {
    uint64_t p = last[trace[i]];
    if (p == PASCAL_RD_COLD) {
      rd[i] = PASCAL_RD_COLD;
    } else {
      rd[i] = fenwick_prefix(tree, i) - fenwick_prefix(tree, (size_t)p + 1);
      fenwick_add(tree, len, (size_t)p, -1);
    }
    fenwick_add(tree, len, i, 1);
    last[trace[i]] = i;
  }
  free(tree);
  free(last);
  return PASCAL_OK;
}
