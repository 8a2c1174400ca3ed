/*
 * simdev_heap.c - the sim device's event queue: a 4-ary min-heap keyed on
 * (time, insertion sequence), so simultaneous events run in the order they
 * were scheduled and every run is deterministic. O(log n) push/pop with half
 * the depth of a binary heap, no allocation after pc_simdev_heap_reserve.
 *
 * Pop dominates the engine's time, so it is written to avoid unpredictable
 * branches: event times are never negative, and the bit patterns of
 * non-negative IEEE doubles order like the values, so times are compared as
 * unsigned integers and the earliest child is selected with masks.
 */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "simdev_internal.h"

pascal_status pc_simdev_heap_reserve(simdev_heap *h, size_t cap)
{
  if (pascal_grow((void **)&h->items, &h->cap, cap, sizeof *h->items))
    return PASCAL_ENOMEM;
  h->len = 0;
  h->next_seq = 0;
  return PASCAL_OK;
}

void pc_simdev_heap_free(simdev_heap *h)
{
  free(h->items);
  h->items = NULL;
  h->len = h->cap = 0;
}

/* Ordering key of an event time t >= 0 (see above). */
static inline uint64_t tkey(const simdev_event *e)
{
  uint64_t k;
  memcpy(&k, &e->t, sizeof k);
  return k;
}

/* Bitwise rather than short-circuit operators: no branch inside. */
static int event_before(const simdev_event *a, const simdev_event *b)
{
  uint64_t x = tkey(a), y = tkey(b);
  return (x < y) | ((x == y) & (a->seq < b->seq));
}

void pc_simdev_heap_push(simdev_heap *h, double t, uint32_t id)
{
  assert(t >= 0.0 && h->len < h->cap); /* tkey's order needs t >= 0 */
  simdev_event e = {t, h->next_seq++, id};
  size_t i = h->len++;
  /* sift up: parents stay no later than their children */
  while (i > 0) {
    size_t p = (i - 1) / 4;
    if (!event_before(&e, &h->items[p]))
      break;
    h->items[i] = h->items[p];
    i = p;
  }
  h->items[i] = e;
}

/* Pop with Floyd's bottom-up sift: move the hole from the root down along
 * the earliest children to a leaf (no comparison with the displaced last
 * element on the way, which is the unpredictable branch), then sift that
 * element up from the leaf, where it nearly always stays. */
int pc_simdev_heap_pop(simdev_heap *h, simdev_event *out)
{
  if (h->len == 0)
    return 0;
  simdev_event *it = h->items;
  *out = it[0];
  size_t n = --h->len;
  if (n == 0)
    return 1;
  simdev_event last = it[n];
  size_t i = 0;
  for (;;) {
    size_t first = 4 * i + 1;
    if (first >= n)
      break;
    size_t end = first + 4 < n ? first + 4 : n, c = first;
    uint64_t ct = tkey(&it[first]);
    uint32_t cs = it[first].seq;
    for (size_t k = first + 1; k < end; k++) {
      uint64_t kt = tkey(&it[k]);
      uint32_t ks = it[k].seq;
      /* m: all ones when child k is earlier than the best so far */
      uint64_t m = (uint64_t)0 - (uint64_t)((kt < ct) | ((kt == ct) & (ks < cs)));
      c ^= (c ^ k) & m;
      ct ^= (ct ^ kt) & m;
      cs ^= (cs ^ ks) & (uint32_t)m;
    }
    it[i] = it[c];
    i = c;
  }
  while (i > 0) {
    size_t p = (i - 1) / 4;
    if (!event_before(&last, &it[p]))
      break;
    it[i] = it[p];
    i = p;
  }
  it[i] = last;
  assert(!event_before(&it[0], out)); /* heap order: nothing earlier remains */
  return 1;
}
