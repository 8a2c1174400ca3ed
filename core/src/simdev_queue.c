/*
 * simdev_queue.c - the sim device's event queue: events come out in
 * (time, insertion sequence) order, so simultaneous events run in the order
 * they were scheduled and every run is deterministic.
 *
 * A timing wheel over a 4-ary heap. Time is cut into buckets of `width` ns;
 * the wheel holds the QUEUE_SLOTS buckets from the current one, each a
 * short list of events in (t, seq) order, and a bitmap of its non-empty
 * buckets finds the next one with a count of trailing zeros. An event
 * beyond the wheel waits in the heap and moves onto the wheel when the
 * wheel has turned far enough.
 * Invariant: every wheel event's bucket is in [base, base + QUEUE_SLOTS) and
 * every heap event's bucket is >= base + QUEUE_SLOTS, so the earliest wheel
 * event (the minimum of its first non-empty bucket's list) is the earliest
 * of all while the wheel has any.
 *
 * The order is exact for any width; the width sets only the speed. It is
 * a quarter of the mean spacing of the popped events (measured every
 * QUEUE_EPOCH pops), so that a bucket rarely holds more than one event and
 * the bitmap skips the empty ones 64 at a time; the wheel is rebuilt when
 * the spacing moves by more than 4x. An engine's events lie at most a few
 * hundred spacings ahead, so the heap behind the wheel is nearly always
 * empty. Against the plain 4-ary heap it replaced, the sim's runs take about
 * a third less CPU (docs/sim-device.md, "Performance").
 */
#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "simdev_internal.h"

#define NIL         UINT32_MAX
#define QUEUE_EPOCH 1024u
#define WIDTH_MIN   (1.0 / 1024.0) /* ns; bounds t / width below 2^62 */
#define WIDTH_MAX   (1024.0 * 1024.0)
#define FAR_BUCKET  ((uint64_t)1 << 62)

/* Ordering key of an event time t >= 0: the bit patterns of non-negative
 * IEEE doubles order like the values. */
static inline uint64_t tkey(double t)
{
  uint64_t k;
  memcpy(&k, &t, sizeof k);
  return k;
}

static inline int event_before(const simdev_event *a, const simdev_event *b)
{
  uint64_t x = tkey(a->t), y = tkey(b->t);
  return (x < y) | ((x == y) & (a->seq < b->seq));
}

/* ---- the far events: a 4-ary min-heap on (t, seq) ---- */

static void far_push(simdev_queue *q, simdev_event e)
{
  simdev_event *it = q->far;
  size_t i = q->far_len++;
  while (i > 0) {
    size_t p = (i - 1) / 4;
    if (!event_before(&e, &it[p]))
      break;
    it[i] = it[p];
    i = p;
  }
  it[i] = e;
}

static simdev_event far_pop(simdev_queue *q)
{
  simdev_event *it = q->far, top = it[0];
  size_t n = --q->far_len, i = 0;
  simdev_event last = it[n];
  for (;;) {
    size_t c = 4 * i + 1;
    if (c >= n)
      break;
    size_t end = c + 4 < n ? c + 4 : n;
    for (size_t k = c + 1; k < end; k++)
      if (event_before(&it[k], &it[c]))
        c = k;
    if (!event_before(&it[c], &last))
      break;
    it[i] = it[c];
    i = c;
  }
  if (n > 0)
    it[i] = last;
  return top;
}

/* ---- the wheel ---- */

static inline uint64_t bucket_of(const simdev_queue *q, double t)
{
  double b = t * q->inv_width;
  return b < (double)FAR_BUCKET ? (uint64_t)b : FAR_BUCKET;
}

/* Put e on the wheel or, beyond it, in the heap. */
static void place(simdev_queue *q, simdev_event e)
{
  uint64_t b = bucket_of(q, e.t);
  if (b < q->base) /* earlier than the current bucket: it is next anyway */
    b = q->base;
  if (b - q->base >= QUEUE_SLOTS) {
    far_push(q, e);
    return;
  }
  uint32_t slot = (uint32_t)(b & (QUEUE_SLOTS - 1)), n = q->free_node;
  assert(n != NIL);
  q->free_node = q->node_next[n];
  q->nodes[n] = e;
  if (q->head[slot] == NIL) {
    q->node_next[n] = NIL;
    q->head[slot] = q->tail[slot] = n;
  } else if (!event_before(&e, &q->nodes[q->tail[slot]])) { /* the usual case */
    q->node_next[n] = NIL;
    q->node_next[q->tail[slot]] = n;
    q->tail[slot] = n;
  } else { /* before the tail: walk to its place */
    uint32_t *link = &q->head[slot];
    while (!event_before(&e, &q->nodes[*link]))
      link = &q->node_next[*link];
    q->node_next[n] = *link;
    *link = n;
  }
  q->used[slot / 64] |= (uint64_t)1 << (slot % 64);
  q->on_wheel++;
}

/* Move the heap's events that the wheel now covers onto it. */
static void take_from_far(simdev_queue *q)
{
  while (q->far_len > 0 && bucket_of(q, q->far[0].t) - q->base < QUEUE_SLOTS)
    place(q, far_pop(q));
}

/* The offset from the current bucket of the first non-empty one. */
static uint32_t next_used(const simdev_queue *q)
{
  uint32_t at = (uint32_t)(q->base & (QUEUE_SLOTS - 1));
  uint32_t w = at / 64;
  uint64_t bits = q->used[w] & (~(uint64_t)0 << (at % 64));
  for (uint32_t step = 0;; step++) {
    if (bits) {
      uint32_t slot = w * 64 + (uint32_t)__builtin_ctzll(bits);
      return (slot - at) & (QUEUE_SLOTS - 1);
    }
    assert(step <= QUEUE_SLOTS / 64); /* on_wheel > 0: some bit is set */
    w = (w + 1) % (QUEUE_SLOTS / 64);
    bits = q->used[w];
  }
}

/* An empty wheel of buckets `width` ns wide whose current one holds `now`. */
static void wheel_reset(simdev_queue *q, double width, double now)
{
  q->width = width;
  q->inv_width = 1.0 / width;
  q->base = bucket_of(q, now);
  memset(q->used, 0, sizeof q->used);
  for (uint32_t s = 0; s < QUEUE_SLOTS; s++)
    q->head[s] = NIL;
  for (size_t i = 0; i < q->cap; i++)
    q->node_next[i] = i + 1 < q->cap ? (uint32_t)i + 1 : NIL;
  q->free_node = q->cap > 0 ? 0 : NIL;
  q->on_wheel = 0;
}

/* Re-cut time into buckets of `width` ns from the bucket of `now`. */
static void rebuild(simdev_queue *q, double width, double now)
{
  size_t n = 0;
  for (uint32_t s = 0; s < QUEUE_SLOTS; s++) /* gather the wheel's events */
    for (uint32_t i = q->head[s]; i != NIL; i = q->node_next[i])
      q->spill[n++] = q->nodes[i];
  assert(n == q->on_wheel);
  wheel_reset(q, width, now);
  for (size_t i = 0; i < n; i++)
    place(q, q->spill[i]);
  take_from_far(q);
}

/* Every QUEUE_EPOCH pops: the mean spacing of the events they took. */
static void follow_spacing(simdev_queue *q, double now)
{
  double spacing = (now - q->epoch_start) / QUEUE_EPOCH;
  q->epoch_start = now;
  q->epoch_pops = 0;
  double want = fmin(fmax(spacing / 4.0, WIDTH_MIN), WIDTH_MAX);
  if (want > 4.0 * q->width || want < 0.25 * q->width)
    rebuild(q, want, now);
}

pascal_status pc_simdev_queue_reserve(simdev_queue *q, size_t cap)
{
  if (cap >= NIL)
    return PASCAL_ENOMEM;
  size_t c = q->cap;
  if (pascal_grow((void **)&q->nodes, &c, cap, sizeof *q->nodes))
    return PASCAL_ENOMEM;
  c = q->cap;
  if (pascal_grow((void **)&q->node_next, &c, cap, sizeof *q->node_next))
    return PASCAL_ENOMEM;
  c = q->cap;
  if (pascal_grow((void **)&q->far, &c, cap, sizeof *q->far))
    return PASCAL_ENOMEM;
  c = q->cap;
  if (pascal_grow((void **)&q->spill, &c, cap, sizeof *q->spill))
    return PASCAL_ENOMEM;
  if (c >= NIL)
    return PASCAL_ENOMEM;
  q->cap = c;
  q->far_len = 0;
  q->next_seq = 0;
  q->epoch_pops = 0;
  q->epoch_start = 0.0;
  wheel_reset(q, 1.0, 0.0);
  return PASCAL_OK;
}

void pc_simdev_queue_free(simdev_queue *q)
{
  free(q->nodes);
  free(q->node_next);
  free(q->far);
  free(q->spill);
  memset(q, 0, sizeof *q);
}

void pc_simdev_queue_push(simdev_queue *q, double t, uint32_t id)
{
  assert(t >= 0.0 && q->on_wheel + q->far_len < q->cap); /* tkey's order needs t >= 0 */
  simdev_event e = {t, q->next_seq++, id};
  place(q, e);
}

int pc_simdev_queue_pop(simdev_queue *q, simdev_event *out)
{
  if (q->on_wheel == 0) { /* turn the wheel to the heap's earliest */
    if (q->far_len == 0)
      return 0;
    q->base = bucket_of(q, q->far[0].t);
    take_from_far(q);
  }
  uint32_t ahead = next_used(q);
  q->base += ahead;
  uint32_t slot = (uint32_t)(q->base & (QUEUE_SLOTS - 1));
  uint32_t n = q->head[slot]; /* the bucket's list is in (t, seq) order */
  *out = q->nodes[n];
  q->head[slot] = q->node_next[n];
  q->node_next[n] = q->free_node;
  q->free_node = n;
  if (q->head[slot] == NIL)
    q->used[slot / 64] &= ~((uint64_t)1 << (slot % 64));
  q->on_wheel--;
  if (ahead > 0)
    take_from_far(q);
  if (++q->epoch_pops == QUEUE_EPOCH)
    follow_spacing(q, out->t);
  return 1;
}
