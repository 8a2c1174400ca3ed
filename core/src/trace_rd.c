/*
 * trace_rd.c - LRU stack (reuse) distances of an arbitrary address trace
 * (Mattson et al.; the reuse profile SDCM consumes, paper §2.1 and §3.3).
 *
 * Every address's latest request holds a mark in a Fenwick tree of slots
 * kept in request order; the distance of a request to an address whose
 * mark sits in slot p is the number of marks after p. At most `universe`
 * marks are live at once, so the tree has 2 universe slots: when they run
 * out, the live marks are renumbered 0..k-1 in their order and the tree is
 * rebuilt (O(universe), at most once per universe requests). O(len log
 * universe) time; the tree stays small enough for the caches, where one
 * slot per request (a GEMM trace has millions) did not.
 */
#include "pascal/simulate.h"

#include <stdlib.h>

#include "sim_source.h"

#define NO_SLOT UINT64_MAX

static void fenwick_add(uint32_t *tree, size_t len, size_t i, int delta)
{
  for (i++; i <= len; i += i & (~i + 1))
    tree[i - 1] += (uint32_t)delta;
}

/* Marks in slots 0..i-1. */
static uint64_t fenwick_prefix(const uint32_t *tree, size_t i)
{
  uint64_t sum = 0;
  for (; i > 0; i -= i & (~i + 1))
    sum += tree[i - 1];
  return sum;
}

/* Renumber the live marks 0..k-1 in slot order (slot_addr[s] is the
 * address whose mark is in slot s, or NO_SLOT) and rebuild the tree with
 * them; returns k. */
static size_t compact(uint32_t *tree, size_t cap, uint64_t *slot_addr, uint64_t *slot)
{
  size_t k = 0;
  for (size_t s = 0; s < cap; s++)
    if (slot_addr[s] != NO_SLOT) {
      slot_addr[k] = slot_addr[s];
      slot[slot_addr[k]] = k;
      k++;
    }
  for (size_t s = k; s < cap; s++)
    slot_addr[s] = NO_SLOT;
  /* the tree of k ones, built in O(cap): each node passes its sum up once */
  for (size_t s = 0; s < cap; s++)
    tree[s] = s < k;
  for (size_t i = 1; i <= cap; i++) {
    size_t parent = i + (i & (~i + 1));
    if (parent <= cap)
      tree[parent - 1] += tree[i - 1];
  }
  return k;
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
  const size_t cap = 2 * (size_t)universe;
  uint32_t *tree = calloc(cap ? cap : 1, sizeof *tree);
  uint64_t *slot_addr = malloc((cap ? cap : 1) * sizeof *slot_addr);
  uint64_t *slot = malloc((universe ? universe : 1) * sizeof *slot);
  if (!tree || !slot_addr || !slot) {
    free(tree);
    free(slot_addr);
    free(slot);
    return pascal_error_set(err, PASCAL_ENOMEM, "len", "cannot allocate the distance tree");
  }
  for (size_t s = 0; s < cap; s++)
    slot_addr[s] = NO_SLOT;
  for (uint64_t b = 0; b < universe; b++)
    slot[b] = NO_SLOT;
  size_t next = 0, live = 0;
  for (size_t i = 0; i < len; i++) {
    if (next == cap)
      next = compact(tree, cap, slot_addr, slot);
    uint64_t a = trace[i], p = slot[a];
    if (p == NO_SLOT) {
      rd[i] = PASCAL_RD_COLD;
      live++;
    } else {
      rd[i] = live - fenwick_prefix(tree, (size_t)p + 1); /* the marks after p */
      fenwick_add(tree, cap, (size_t)p, -1);
      slot_addr[p] = NO_SLOT;
    }
    fenwick_add(tree, cap, next, 1);
    slot[a] = next;
    slot_addr[next++] = a;
  }
  free(tree);
  free(slot_addr);
  free(slot);
  return PASCAL_OK;
}
