/*
 * sim_belady.c - Belady's MIN, with forced allocation and with bypass, over
 * the cyclic phase trace and over an address trace: the optimal offline
 * policies that Theorem 3's bound (paper §3.4, §5.2) must never exceed.
 *
 * The cached blocks sit in an indexed binary max-heap keyed by their next
 * use time. A hit moves its block's key later (sift up); a miss with a full
 * cache evicts the root (forced), or, with bypass, is not inserted at all
 * when its own next use is later than the root's. Next uses of the phase
 * trace follow from shift invariance: worker w's request at time kM + w is
 * next requested at kM + w + fwd[w] (phase_order.h), so no trace is stored.
 */
#include "pascal/simulate.h"

#include <stdlib.h>

#include "pascal/static.h"
#include "phase_order.h"
#include "sim_source.h"
#include "static_check.h"

#define HEAP_ABSENT UINT32_MAX

typedef struct belady_heap {
  uint32_t *block; /* heap slot -> block                 */
  uint64_t *key;   /* heap slot -> next use time          */
  uint32_t *pos;   /* block -> heap slot or HEAP_ABSENT   */
  uint64_t size, cap;
} belady_heap;

static pascal_status heap_init(belady_heap *h, uint64_t universe, uint64_t cap, pascal_error *err)
{
  uint64_t slots = cap < universe ? cap : universe;
  h->block = malloc(slots * sizeof *h->block);
  h->key = malloc(slots * sizeof *h->key);
  h->pos = malloc(universe * sizeof *h->pos);
  if (!h->block || !h->key || !h->pos) {
    free(h->block);
    free(h->key);
    free(h->pos);
    return pascal_error_set(err, PASCAL_ENOMEM, "C", "cannot allocate the Belady heap");
  }
  for (uint64_t b = 0; b < universe; b++)
    h->pos[b] = HEAP_ABSENT;
  h->size = 0;
  h->cap = cap;
  return PASCAL_OK;
}

static void heap_free(belady_heap *h)
{
  free(h->block);
  free(h->key);
  free(h->pos);
}

static void heap_place(belady_heap *h, uint64_t i, uint32_t b, uint64_t key)
{
  h->block[i] = b;
  h->key[i] = key;
  h->pos[b] = (uint32_t)i;
}

static void heap_sift_up(belady_heap *h, uint64_t i)
{
  uint32_t b = h->block[i];
  uint64_t key = h->key[i];
  while (i > 0) { /* invariant: every parent key >= its children's keys */
    uint64_t parent = (i - 1) / 2;
    if (h->key[parent] >= key)
      break;
    heap_place(h, i, h->block[parent], h->key[parent]);
    i = parent;
  }
  heap_place(h, i, b, key);
}

static void heap_sift_down(belady_heap *h, uint64_t i)
{
  uint32_t b = h->block[i];
  uint64_t key = h->key[i];
  for (;;) {
    uint64_t child = 2 * i + 1;
    if (child >= h->size)
      break;
    if (child + 1 < h->size && h->key[child + 1] > h->key[child])
      child++;
    if (h->key[child] <= key)
      break;
    heap_place(h, i, h->block[child], h->key[child]);
    i = child;
  }
  heap_place(h, i, b, key);
}

/* Request block b whose following request is at time `next`: 1 hit, 0 miss. */
static int belady_access(belady_heap *h, uint32_t b, uint64_t next, pascal_belady_variant variant)
{
  uint32_t at = h->pos[b];
  if (at != HEAP_ABSENT) {
    h->key[at] = next; /* later than before: the request is now */
    heap_sift_up(h, at);
    return 1;
  }
  if (h->size < h->cap) {
    heap_place(h, h->size, b, next);
    h->size++;
    heap_sift_up(h, h->size - 1);
    return 0;
  }
  if (variant == PASCAL_BELADY_BYPASS && next > h->key[0])
    return 0; /* every cached block is needed sooner: do not insert */
  h->pos[h->block[0]] = HEAP_ABSENT;
  heap_place(h, 0, b, next);
  heap_sift_down(h, 0);
  return 0;
}

static pascal_status check_variant(pascal_belady_variant variant, pascal_sim_result *out,
                                   pascal_error *err)
{
  if (variant != PASCAL_BELADY_FORCED && variant != PASCAL_BELADY_BYPASS)
    return pascal_error_set(err, PASCAL_EINVAL, "variant", "unknown Belady variant %d",
                            (int)variant);
  if (!out)
    return pascal_error_set(err, PASCAL_EINVAL, "out", "output pointer is NULL");
  return PASCAL_OK;
}

pascal_status pascal_sim_belady_phases(uint64_t n, uint64_t c, const uint64_t *phases, size_t m,
                                       pascal_belady_variant variant, uint64_t rounds,
                                       pascal_sim_result *out, pascal_error *err)
{
  if (rounds < 1)
    return pascal_error_set(err, PASCAL_EINVAL, "rounds", "rounds must be at least 1");
  pascal_sim_source src;
  uint64_t nm; /* bounds the next-use offsets lag M + u - w */
  pascal_status st = pc_sim_source_phases(&src, n, c, phases, m, rounds, err);
  if (st == PASCAL_OK)
    st = pc_check_mul(n, m, PASCAL_STATIC_N_MAX, "M", &nm, err);
  if (st == PASCAL_OK)
    st = check_variant(variant, out, err);
  if (st != PASCAL_OK)
    return st;
  uint64_t *fwd = malloc(m * sizeof *fwd);
  if (!fwd)
    return pascal_error_set(err, PASCAL_ENOMEM, "M", "cannot allocate %zu workers", m);
  pascal_phase_order po;
  st = pc_phase_order_init(&po, n, phases, m, err);
  if (st != PASCAL_OK) {
    free(fwd);
    return st;
  }
  for (size_t w = 0; w < m; w++) { /* lag M + u - w >= 1 */
    pascal_phase_link next = pc_phase_order_next(&po, w);
    fwd[w] = next.lag * m + next.worker - w;
  }
  pc_phase_order_free(&po);
  belady_heap heap;
  st = heap_init(&heap, n, c, err);
  if (st != PASCAL_OK) {
    free(fwd);
    return st;
  }
  uint64_t misses = 0, base = 0, t = 0; /* t = kM + w, below 2^41 */
  for (uint64_t k = 0; k < rounds; k++) {
    for (size_t w = 0; w < m; w++, t++)
      misses +=
          !belady_access(&heap, (uint32_t)pc_sim_block(&src, k, base, w), t + fwd[w], variant);
    if (++base == n)
      base = 0;
  }
  heap_free(&heap);
  free(fwd);
  out->requests = rounds * m;
  out->misses = misses;
  out->rounds = rounds;
  out->misses_per_round = (double)misses / (double)rounds;
  return PASCAL_OK;
}

pascal_status pascal_sim_belady_trace(const uint64_t *trace, size_t len, uint64_t universe,
                                      uint64_t c, pascal_belady_variant variant, uint8_t *hits,
                                      pascal_sim_result *out, pascal_error *err)
{
  pascal_sim_source src;
  pascal_status st = pc_sim_source_trace(&src, trace, len, universe, 1, c, err);
  if (st == PASCAL_OK)
    st = check_variant(variant, out, err);
  if (st != PASCAL_OK)
    return st;
  uint64_t *next = malloc((len ? len : 1) * sizeof *next);
  uint64_t *seen = malloc(universe * sizeof *seen);
  belady_heap heap = {0};
  if (!next || !seen) {
    st = pascal_error_set(err, PASCAL_ENOMEM, "len", "cannot allocate next uses");
    goto done;
  }
  for (uint64_t b = 0; b < universe; b++)
    seen[b] = UINT64_MAX; /* never requested again */
  for (size_t i = len; i-- > 0;) {
    next[i] = seen[trace[i]];
    seen[trace[i]] = i;
  }
  st = heap_init(&heap, universe, c, err);
  if (st != PASCAL_OK)
    goto done;
  uint64_t misses = 0;
  for (size_t i = 0; i < len; i++) {
    int hit = belady_access(&heap, (uint32_t)trace[i], next[i], variant);
    if (hits)
      hits[i] = (uint8_t)hit;
    misses += !hit;
  }
  heap_free(&heap);
  out->requests = len;
  out->misses = misses;
  out->rounds = 0;
  out->misses_per_round = 0.0;
done:
  free(next);
  free(seen);
  return st;
}
