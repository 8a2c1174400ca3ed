/*
 * test_simdev_queue.c - the sim device's event queue (core/src/simdev_queue.c)
 * against a brute-force one: an unsorted array whose pop scans every event
 * for the least (t, seq). Seeded random schedules, each a mix of pushes and
 * pops as an engine makes them (new events at or after the last popped
 * time):
 *   - spacings that change by six orders of magnitude between phases, so the
 *     wheel re-cuts its buckets both ways;
 *   - exact ties (the same t pushed again), which must come out FIFO;
 *   - events far beyond the wheel (the heap behind it), and a queue that
 *     holds only such events (the wheel turns to the heap's earliest);
 *   - events pushed before the last popped time (earlier than the current
 *     bucket);
 *   - a queue filled to its capacity, drained and refilled after a reserve.
 * Every pop must return the brute force's event: time, sequence and id.
 * Checked to fail: with every event appended to its bucket's list (no
 * ordered insertion), or with the heap's events moved onto the wheel only
 * when it is empty, the schedules report mismatches; with the heap's events never moved, the
 * wheel rebuilt without its events, or the move's bound off by one, a pop
 * never returns (ctest's timeout stops the test).
 */
#include <stdio.h>
#include <stdlib.h>

#include "../../core/src/simdev_internal.h"
#include "check.h"

#define CAP 600u

typedef struct brute {
  simdev_event ev[CAP];
  size_t n;
  uint32_t seq;
} brute;

static void brute_push(brute *b, double t, uint32_t id)
{
  b->ev[b->n++] = (simdev_event){t, b->seq++, id};
}

static simdev_event brute_pop(brute *b)
{
  size_t best = 0;
  for (size_t i = 1; i < b->n; i++)
    if (b->ev[i].t < b->ev[best].t ||
        (b->ev[i].t == b->ev[best].t && b->ev[i].seq < b->ev[best].seq))
      best = i;
  simdev_event e = b->ev[best];
  b->ev[best] = b->ev[--b->n];
  return e;
}

static uint64_t rng_next(uint64_t *s)
{
  *s += 0x9e3779b97f4a7c15ull;
  uint64_t z = *s;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

static double unit(uint64_t *s)
{
  return (double)(rng_next(s) >> 11) * 0x1.0p-53;
}

/* One schedule: `steps` operations; returns the number of mismatches. */
static int schedule(simdev_queue *q, uint64_t seed, size_t steps, int family)
{
  static brute b;
  b.n = 0;
  b.seq = 0;
  if (pc_simdev_queue_reserve(q, CAP) != PASCAL_OK)
    return 1;
  uint64_t s = seed;
  double now = 0.0, last_t = 0.0, scale = 1.0;
  int bad = 0;
  for (size_t k = 0; k < steps; k++) {
    if (k % 5000 == 0) /* a new phase: spacing from 1e-3 to 1e3 ns */
      scale = family == 0 ? 1.0 : 1e-3 * (double)(1u << (rng_next(&s) % 20));
    int can_push = b.n<CAP, can_pop = b.n> 0;
    int push = can_push && (!can_pop || (b.n < 300 ? unit(&s) < 0.6 : unit(&s) < 0.4));
    if (push) {
      double r = unit(&s), t;
      if (r < 0.1)
        t = last_t; /* an exact tie with the last push */
      else if (family == 2 && r < 0.2)
        t = now + scale * 1e7 * (1.0 + unit(&s)); /* far beyond the wheel */
      else if (family == 3 && r < 0.15)
        t = now * unit(&s); /* before the current bucket */
      else
        t = now + scale * 400.0 * unit(&s);
      uint32_t id = (uint32_t)rng_next(&s);
      pc_simdev_queue_push(q, t, id);
      brute_push(&b, t, id);
      last_t = t;
    } else {
      simdev_event got, want = brute_pop(&b);
      if (!pc_simdev_queue_pop(q, &got) || got.t != want.t || got.seq != want.seq ||
          got.id != want.id) {
        if (bad++ < 3)
          printf("family %d seed %llu step %zu: got (%.17g, %u) want (%.17g, %u)\n", family,
                 (unsigned long long)seed, k, got.t, got.seq, want.t, want.seq);
      }
      if (want.t > now)
        now = want.t;
    }
  }
  while (b.n > 0) { /* drain */
    simdev_event got, want = brute_pop(&b);
    if (!pc_simdev_queue_pop(q, &got) || got.t != want.t || got.seq != want.seq)
      bad++;
  }
  simdev_event none;
  if (pc_simdev_queue_pop(q, &none))
    bad++; /* empty after the drain */
  return bad;
}

/* Only far events: the wheel is empty and turns to the heap's earliest. */
static void only_far(simdev_queue *q)
{
  CHECK_INT(pc_simdev_queue_reserve(q, 8), PASCAL_OK);
  const double t[] = {5e9, 3e9, 3e9, 9e9, 4e9};
  for (uint32_t i = 0; i < 5; i++)
    pc_simdev_queue_push(q, t[i], i);
  const uint32_t order[] = {1, 2, 4, 0, 3};
  for (size_t i = 0; i < 5; i++) {
    simdev_event e;
    CHECK(pc_simdev_queue_pop(q, &e));
    CHECK_INT(e.id, order[i]);
  }
}

int main(void)
{
  simdev_queue *q = calloc(1, sizeof *q);
  CHECK(q != NULL);
  if (!q)
    return check_summary();
  only_far(q);
  for (int family = 0; family < 4; family++)
    for (uint64_t seed = 1; seed <= 6; seed++)
      CHECK_INT(schedule(q, seed * 7919 + (uint64_t)family, 40000, family), 0);
  /* capacity: full, drained, refilled */
  CHECK_INT(pc_simdev_queue_reserve(q, CAP), PASCAL_OK);
  for (int round = 0; round < 2; round++) {
    for (uint32_t i = 0; i < CAP; i++)
      pc_simdev_queue_push(q, (double)((i * 37u) % CAP), i);
    double prev = -1.0;
    uint32_t popped = 0;
    simdev_event e;
    while (pc_simdev_queue_pop(q, &e)) {
      CHECK(e.t >= prev);
      prev = e.t;
      popped++;
    }
    CHECK_INT(popped, CAP);
  }
  pc_simdev_queue_free(q);
  free(q);
  return check_summary();
}
