/*
 * simdev_heap.c - the sim device's event queue: a 4-ary min-heap keyed on
 * (time, insertion sequence), so simultaneous events run in the order they
 * were scheduled and every run is deterministic. O(log n) push/pop with half
 * the depth of a binary heap (pop dominates the engine's time), no
 * allocation after simdev_heap_reserve.
 */
#include <stdlib.h>

#include "simdev_internal.h"

pascal_status simdev_heap_reserve(simdev_heap *h, size_t cap) {
  if (cap > h->cap) {
    simdev_event *p = realloc(h->items, cap * sizeof *p);
    if (!p) return PASCAL_ENOMEM;
    h->items = p;
    h->cap = cap;
  }
  h->len = 0;
  h->next_seq = 0;
  return PASCAL_OK;
}

void simdev_heap_free(simdev_heap *h) {
  free(h->items);
  h->items = NULL;
  h->len = h->cap = 0;
}

/* Bitwise rather than short-circuit operators: the compiler can select
 * the earliest child without branches, which child wins being random. */
static int event_before(const simdev_event *a, const simdev_event *b) {
  return (a->t < b->t) | ((a->t == b->t) & (a->seq < b->seq));
}

void simdev_heap_push(simdev_heap *h, double t, uint32_t id) {
  simdev_event e = {t, h->next_seq++, id};
  size_t i = h->len++;
  /* sift up: parents stay no later than their children */
  while (i > 0) {
    size_t p = (i - 1) / 4;
    if (!event_before(&e, &h->items[p])) break;
    h->items[i] = h->items[p];
    i = p;
  }
  h->items[i] = e;
}

int simdev_heap_pop(simdev_heap *h, simdev_event *out) {
  if (h->len == 0) return 0;
  *out = h->items[0];
  simdev_event last = h->items[--h->len];
  size_t n = h->len, i = 0;
  for (;;) {
    size_t first = 4 * i + 1;
    if (first >= n) break;
    size_t end = first + 4 < n ? first + 4 : n, c = first;
    for (size_t k = first + 1; k < end; k++) c = event_before(&h->items[k], &h->items[c]) ? k : c;
    if (!event_before(&h->items[c], &last)) break;
    h->items[i] = h->items[c];
    i = c;
  }
  if (n > 0) h->items[i] = last;
  return 1;
}
