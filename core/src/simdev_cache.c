/*
 * simdev_cache.c - the sim device's L2 array: P partitions, each of S sets
 * of A ways, true LRU within a set, lines allocated at miss time with the
 * time their data lands (simdev_internal.h). One set holding all C lines of
 * one partition is the fully associative LRU of paper §3.3 (Theorem lru),
 * which the static kernel's and the theory tests' exact numbers need.
 *
 * Set index: block b of aligned group g = b / S goes to set
 * (b mod S + hash(g)) mod S. Every aligned run of S consecutive blocks
 * therefore fills each set exactly once, as the XOR-hashed set index of a
 * GPU spreads a contiguous buffer evenly over its sets, while blocks S apart
 * land in unrelated sets. So a cyclic scan of up to S A blocks has no
 * conflict miss, and a working set that is not a contiguous range (the
 * blocks the leaders and the laggards of a diverged scan keep, the A and B
 * tiles of a GEMM) loads the sets unevenly and has conflict misses that a
 * fully associative cache of the same size would not have. The home
 * partition of a block uses the same rule with P in place of S.
 *
 * O(1) per operation: per partition a direct array over block ids 0..n-1
 * plus one list sentinel per set, intrusive doubly linked lists, a count
 * per set; each block's set is computed once per run.
 */
#include <assert.h>
#include <stdlib.h>

#include "simdev_internal.h"

/* A 32-bit hash of a group index (the splitmix64 finalizer). */
static uint32_t group_hash(uint64_t g)
{
  g += 0x9e3779b97f4a7c15ULL;
  g = (g ^ (g >> 30)) * 0xbf58476d1ce4e5b9ULL;
  g = (g ^ (g >> 27)) * 0x94d049bb133111ebULL;
  return (uint32_t)((g ^ (g >> 31)) >> 32);
}

/* b's slot among k: (b mod k + hash(b / k)) mod k; 0 when k == 1. */
static uint32_t spread(uint32_t b, uint32_t k, uint64_t salt)
{
  if (k == 1)
    return 0;
  return (uint32_t)(((uint64_t)(b % k) + group_hash((b / k) ^ salt)) % k);
}

uint32_t pc_simdev_cache_set(const simdev_cache *c, uint32_t b)
{
  return c->sets == 1 ? 0 : c->set_of[b];
}

uint32_t pc_simdev_cache_home(const simdev_cache *c, uint32_t b)
{
  return spread(b, c->parts, 0x504152544954494fULL /* "PARTITIO" */);
}

pascal_status pc_simdev_cache_reset(simdev_cache *c, uint32_t n, uint32_t parts, uint32_t sets,
                                    uint32_t ways)
{
  assert(parts >= 1 && sets >= 1 && ways >= 1);
  size_t stride = (size_t)n + sets;
  size_t need = stride * parts, nsets = (size_t)sets * parts;
  if (pc_simdev_grow((void **)&c->lines, &c->lines_cap, need, sizeof *c->lines, "N", NULL) ||
      (sets > 1 &&
       pc_simdev_grow((void **)&c->set_of, &c->set_cap, n, sizeof *c->set_of, "N", NULL)) ||
      pc_simdev_grow((void **)&c->count, &c->count_cap, nsets, sizeof *c->count, "N", NULL))
    return PASCAL_ENOMEM;
  for (uint32_t q = 0; q < parts; q++) {
    simdev_line *l = c->lines + (size_t)q * stride;
    for (uint32_t b = 0; b < n; b++) {
      l[b].prev = l[b].next = SIMDEV_NONE;
      l[b].fill_ready = 0.0;
    }
    for (uint32_t s = 0; s < sets; s++) /* empty circular lists */
      l[n + s].prev = l[n + s].next = n + s;
  }
  for (size_t s = 0; s < nsets; s++)
    c->count[s] = 0;
  for (uint32_t b = 0; sets > 1 && b < n; b++)
    c->set_of[b] = spread(b, sets, 0);
  c->n = n;
  c->parts = parts;
  c->sets = sets;
  c->ways = ways;
  return PASCAL_OK;
}

void pc_simdev_cache_free(simdev_cache *c)
{
  free(c->lines);
  free(c->count);
  free(c->set_of);
  c->lines = NULL;
  c->count = NULL;
  c->set_of = NULL;
  c->lines_cap = c->count_cap = c->set_cap = 0;
}

static simdev_line *part_lines(const simdev_cache *c, uint32_t q)
{
  return c->lines + (size_t)q * ((size_t)c->n + c->sets);
}

static void unlink_line(simdev_line *l, uint32_t b)
{
  l[l[b].prev].next = l[b].next;
  l[l[b].next].prev = l[b].prev;
}

static void push_front(simdev_line *l, uint32_t sentinel, uint32_t b)
{
  uint32_t first = l[sentinel].next;
  l[b].prev = sentinel;
  l[b].next = first;
  l[first].prev = b;
  l[sentinel].next = b;
}

simdev_line *pc_simdev_cache_touch(simdev_cache *c, uint32_t q, uint32_t b)
{
  simdev_line *l = part_lines(c, q);
  assert(q < c->parts && b < c->n);
  if (l[b].prev == SIMDEV_NONE)
    return NULL;
  unlink_line(l, b);
  push_front(l, c->n + pc_simdev_cache_set(c, b), b);
  return &l[b];
}

simdev_line *pc_simdev_cache_insert(simdev_cache *c, uint32_t q, uint32_t b)
{
  simdev_line *l = part_lines(c, q);
  uint32_t set = pc_simdev_cache_set(c, b), sentinel = c->n + set;
  uint32_t *count = &c->count[(size_t)q * c->sets + set];
  assert(q < c->parts && b < c->n && l[b].prev == SIMDEV_NONE && *count <= c->ways);
  if (*count == c->ways) { /* evict the set's LRU line, even if in flight */
    uint32_t victim = l[sentinel].prev;
    unlink_line(l, victim);
    l[victim].prev = l[victim].next = SIMDEV_NONE;
  } else {
    (*count)++;
  }
  push_front(l, sentinel, b);
  return &l[b];
}

int pc_simdev_cache_consistent(const simdev_cache *c)
{
  for (uint32_t q = 0; q < c->parts; q++) {
    const simdev_line *l = part_lines(c, q);
    uint64_t resident = 0, counted = 0;
    for (uint32_t s = 0; s < c->sets; s++) {
      uint32_t seen = 0, sentinel = c->n + s;
      for (uint32_t b = l[sentinel].next; b != sentinel; b = l[b].next) {
        if (b >= c->n || l[l[b].next].prev != b || pc_simdev_cache_set(c, b) != s ||
            ++seen > c->ways)
          return 0;
      }
      if (seen != c->count[(size_t)q * c->sets + s])
        return 0;
      counted += seen;
    }
    for (uint32_t b = 0; b < c->n; b++)
      resident += l[b].prev != SIMDEV_NONE;
    if (resident != counted)
      return 0;
  }
  return 1;
}
