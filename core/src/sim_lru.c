/*
 * sim_lru.c - request-level fully associative LRU reference simulator over
 * the cyclic phase trace (steady state, docs/design.md §3.7) and over an address
 * trace; it checks Theorem 2 and the exact reuse distances of paper §3.3.
 *
 * The cache is an intrusive doubly linked recency list over the universe
 * (index arrays, head = most recent): O(1) per request, no hashing.
 */
#include "pascal/simulate.h"

#include <assert.h>
#include <stdlib.h>

#include "sim_source.h"

#define LRU_NIL    UINT32_MAX       /* no neighbour                     */
#define LRU_ABSENT (UINT32_MAX - 1) /* prev[] marker: block not cached  */

typedef struct lru_cache {
  uint32_t *prev;
  uint32_t *next;
  uint32_t head, tail;
  uint64_t size, cap;
} lru_cache;

static pascal_status lru_init(lru_cache *c, uint64_t universe, uint64_t cap, pascal_error *err)
{
  c->prev = malloc(universe * sizeof *c->prev);
  c->next = malloc(universe * sizeof *c->next);
  if (!c->prev || !c->next) {
    free(c->prev);
    free(c->next);
    return pascal_error_set(err, PASCAL_ENOMEM, "N", "cannot allocate an LRU list of %llu blocks",
                            (unsigned long long)universe);
  }
  for (uint64_t b = 0; b < universe; b++)
    c->prev[b] = LRU_ABSENT;
  c->head = c->tail = LRU_NIL;
  c->size = 0;
  c->cap = cap;
  return PASCAL_OK;
}

static void lru_free(lru_cache *c)
{
  free(c->prev);
  free(c->next);
}

static void lru_unlink(lru_cache *c, uint32_t b)
{
  uint32_t p = c->prev[b], n = c->next[b];
  if (p != LRU_NIL)
    c->next[p] = n;
  else
    c->head = n;
  if (n != LRU_NIL)
    c->prev[n] = p;
  else
    c->tail = p;
}

static void lru_push_front(lru_cache *c, uint32_t b)
{
  c->prev[b] = LRU_NIL;
  c->next[b] = c->head;
  if (c->head != LRU_NIL)
    c->prev[c->head] = b;
  else
    c->tail = b;
  c->head = b;
}

#ifndef NDEBUG
/* The recency list holds exactly `size` <= cap blocks, head to tail, with
 * links that agree both ways. */
static int lru_consistent(const lru_cache *c)
{
  uint64_t seen = 0;
  uint32_t last = LRU_NIL;
  for (uint32_t b = c->head; b != LRU_NIL; last = b, b = c->next[b])
    if (c->prev[b] != last || ++seen > c->size)
      return 0;
  return last == c->tail && seen == c->size && c->size <= c->cap;
}
#endif

/* Request block b: 1 on a hit, 0 on a miss (b is then inserted, evicting the
 * least recently used block when the cache holds `cap` blocks). */
static int lru_access(lru_cache *c, uint32_t b)
{
  if (c->prev[b] != LRU_ABSENT) {
    if (c->head != b) {
      lru_unlink(c, b);
      lru_push_front(c, b);
    }
    return 1;
  }
  if (c->size == c->cap) {
    uint32_t victim = c->tail;
    assert(victim != LRU_NIL); /* cap >= 1 */
    lru_unlink(c, victim);
    c->prev[victim] = LRU_ABSENT;
  } else {
    c->size++;
  }
  lru_push_front(c, b);
  return 0;
}

/* Run the source, counting slots >= count_from; hits[] indexed by request. */
static void lru_run(lru_cache *c, const pascal_sim_source *s, uint64_t count_from, uint8_t *hits,
                    pascal_sim_result *out)
{
  uint64_t requests = 0, misses = 0, base = 0, index = 0;
  for (uint64_t k = 0; k < s->slots; k++) {
    size_t size = pc_sim_slot_size(s, k);
    int counted = k >= count_from;
    for (size_t pos = 0; pos < size; pos++, index++) {
      int hit = lru_access(c, (uint32_t)pc_sim_block(s, k, base, pos));
      if (hits)
        hits[index] = (uint8_t)hit;
      if (counted) {
        requests++;
        misses += !hit;
      }
    }
    if (!s->trace && ++base == s->universe)
      base = 0;
  }
  assert(lru_consistent(c));
  out->requests = requests;
  out->misses = misses;
}

pascal_status pascal_sim_lru_phases(uint64_t n, uint64_t c, const uint64_t *phases, size_t m,
                                    uint64_t periods, pascal_sim_result *out, pascal_error *err)
{
  pascal_sim_source src;
  pascal_status st = pc_sim_source_steady(&src, n, c, phases, m, periods, out, err);
  if (st != PASCAL_OK)
    return st;
  lru_cache cache;
  st = lru_init(&cache, n, c, err);
  if (st != PASCAL_OK)
    return st;
  lru_run(&cache, &src, PASCAL_SIM_WARMUP_PERIODS * n, NULL, out);
  lru_free(&cache);
  out->rounds = periods * n;
  out->misses_per_round = (double)out->misses / (double)out->rounds;
  return PASCAL_OK;
}

pascal_status pascal_sim_lru_trace(const uint64_t *trace, size_t len, uint64_t universe, uint64_t c,
                                   uint8_t *hits, pascal_sim_result *out, pascal_error *err)
{
  pascal_sim_source src;
  pascal_status st = pc_sim_source_trace(&src, trace, len, universe, 1, c, err);
  if (st != PASCAL_OK)
    return st;
  if (!out)
    return pascal_error_set(err, PASCAL_EINVAL, "out", "output pointer is NULL");
  lru_cache cache;
  st = lru_init(&cache, universe, c, err);
  if (st != PASCAL_OK)
    return st;
  lru_run(&cache, &src, 0, hits, out);
  lru_free(&cache);
  out->rounds = 0;
  out->misses_per_round = 0.0;
  return PASCAL_OK;
}
