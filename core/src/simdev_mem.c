/*
 * simdev_mem.c - the sim device's memory path: the shared fully associative
 * LRU cache of C blocks (O(1): a direct array over block ids 0..N-1 with an
 * intrusive doubly linked list), request merging for lines whose fill is
 * still outstanding (MSHR-like), the FIFO DRAM server with finite bandwidth
 * and base latency, and the per-SM L2->SM link servers.
 *
 * The cache is exact LRU on the sequence of lookups, lines allocated at miss
 * time, so with lookups in the static kernel's trace order its misses are
 * the LRU misses of paper §3.3 (Theorem lru).
 */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "simdev_internal.h"

static pascal_status lru_reset(simdev_lru *c, uint32_t n, uint32_t capacity)
{
  size_t need = (size_t)n + 1;
  if (pascal_grow((void **)&c->lines, &c->lines_cap, need, sizeof *c->lines))
    return PASCAL_ENOMEM;
  for (uint32_t b = 0; b < n; b++) {
    c->lines[b].prev = c->lines[b].next = SIMDEV_NONE;
    c->lines[b].fill_ready = 0.0;
  }
  c->lines[n].prev = c->lines[n].next = n; /* empty circular list */
  c->n = n;
  c->capacity = capacity;
  c->count = 0;
  return PASCAL_OK;
}

void pc_simdev_lru_free(simdev_lru *c)
{
  free(c->lines);
  c->lines = NULL;
  c->lines_cap = 0;
}

#ifndef NDEBUG
/* The list invariant of simdev_internal.h: walking from the sentinel both
 * ways meets exactly `count` <= capacity resident lines, links agree. */
static int lru_consistent(const simdev_lru *c)
{
  const simdev_line *l = c->lines;
  uint32_t seen = 0;
  for (uint32_t b = l[c->n].next; b != c->n; b = l[b].next) {
    if (b >= c->n || l[l[b].next].prev != b || ++seen > c->count)
      return 0;
  }
  return seen == c->count && c->count <= c->capacity;
}
#endif

static void lru_unlink(simdev_line *l, uint32_t b)
{
  l[l[b].prev].next = l[b].next;
  l[l[b].next].prev = l[b].prev;
}

static void lru_push_front(simdev_line *l, uint32_t sentinel, uint32_t b)
{
  uint32_t first = l[sentinel].next;
  l[b].prev = sentinel;
  l[b].next = first;
  l[first].prev = b;
  l[sentinel].next = b;
}

/* Make absent line b resident as MRU, evicting the LRU line (even if in
 * flight) when the cache is full. */
static void lru_insert(simdev_lru *c, uint32_t b)
{
  simdev_line *l = c->lines;
  assert(c->capacity >= 1 && c->count <= c->capacity);
  if (c->count == c->capacity) {
    uint32_t victim = l[c->n].prev;
    lru_unlink(l, victim);
    l[victim].prev = l[victim].next = SIMDEV_NONE;
  } else {
    c->count++;
  }
  lru_push_front(l, c->n, b);
}

simdev_outcome pc_simdev_mem_lookup(simdev_mem *mm, uint32_t b, double t, double *ready)
{
  simdev_lru *c = &mm->lru;
  simdev_line *l = c->lines;
  double at_l2 = t + mm->hop_ns;
  assert(b < c->n);
  mm->requests++;
  if (l[b].prev != SIMDEV_NONE) { /* resident: touch */
    lru_unlink(l, b);
    lru_push_front(l, c->n, b);
    if (l[b].fill_ready > at_l2) { /* fill outstanding: wait for it */
      mm->merges++;
      *ready = l[b].fill_ready;
      return SIMDEV_MERGE;
    }
    mm->hits++;
    *ready = at_l2;
    return SIMDEV_HIT;
  }
  lru_insert(c, b);
  /* FIFO DRAM: at_l2 is non-decreasing across lookups */
  double start = at_l2 > mm->dram_free ? at_l2 : mm->dram_free;
  mm->dram_free = start + pc_simdev_rng_jitter(mm->rng, mm->dram_block_ns, mm->jitter);
  l[b].fill_ready = mm->dram_free + mm->dram_latency_ns +
                    pc_simdev_rng_tail(mm->rng, mm->dram_tail_prob, mm->dram_tail_ns);
  mm->fills++;
  *ready = l[b].fill_ready;
  return SIMDEV_FILL;
}

void pc_simdev_mem_write(simdev_mem *mm, uint32_t b, double t)
{
  simdev_lru *c = &mm->lru;
  double at_l2 = t + mm->hop_ns;
  assert(b < c->n);
  if (c->lines[b].prev != SIMDEV_NONE) { /* rewritten: touch */
    lru_unlink(c->lines, b);
    lru_push_front(c->lines, c->n, b);
  } else {
    lru_insert(c, b);
  }
  c->lines[b].fill_ready = at_l2;
  /* its write-back takes one DRAM service (charged now, in arrival order) */
  double start = at_l2 > mm->dram_free ? at_l2 : mm->dram_free;
  mm->dram_free = start + pc_simdev_rng_jitter(mm->rng, mm->dram_block_ns, mm->jitter);
}

double pc_simdev_mem_transfer(simdev_mem *mm, uint32_t sm, double ready)
{
  double start = ready > mm->link_free[sm] ? ready : mm->link_free[sm];
  mm->link_free[sm] = start + pc_simdev_rng_jitter(mm->rng, mm->link_run_ns[sm], mm->jitter) +
                      pc_simdev_rng_tail(mm->rng, mm->link_stall_prob, mm->link_stall_ns);
  return mm->link_free[sm];
}

pascal_status pc_simdev_mem_prepare(pascal_simdev *dev, uint32_t n, uint32_t capacity,
                                    uint32_t line_bytes, simdev_rng *rng, pascal_error *err)
{
  const pascal_simdev_profile *p = &dev->profile;
  simdev_mem *mm = &dev->mem;
  if (lru_reset(&mm->lru, n, capacity) != PASCAL_OK)
    return pascal_error_set(err, PASCAL_ENOMEM, "N",
                            "cannot allocate the cache index for %u blocks", n);
  double scale = (double)line_bytes / (double)p->block_bytes;
  for (uint32_t s = 0; s < p->sm_count; s++) {
    mm->link_free[s] = 0.0;
    mm->link_run_ns[s] =
        pc_simdev_rng_jitter(rng, mm->link_block_ns[s], p->sm_read_run_spread) * scale;
  }
  mm->hop_ns = p->hop_ns;
  mm->dram_block_ns = (double)line_bytes / p->dram_gbps;
  mm->dram_latency_ns = p->dram_latency_ns;
  mm->jitter = p->service_jitter;
  mm->dram_tail_prob = p->dram_tail_prob;
  mm->dram_tail_ns = p->dram_tail_ns;
  mm->link_stall_prob = p->link_stall_prob;
  mm->link_stall_ns = p->link_stall_ns;
  mm->dram_free = 0.0;
  mm->requests = mm->hits = mm->merges = mm->fills = 0;
  mm->rng = rng;
  return PASCAL_OK;
}

void pc_simdev_mem_stats(const simdev_mem *mm, uint32_t block_bytes, double kernel_ns, double k_per,
                         uint32_t M, pascal_simdev_stats *out)
{
  assert(lru_consistent(&mm->lru));
  assert(mm->requests == mm->hits + mm->merges + mm->fills);
  memset(out, 0, sizeof *out);
  out->requests = mm->requests;
  out->hits = mm->hits;
  out->merges = mm->merges;
  out->fills = mm->fills;
  out->fill_bytes = (double)mm->fills * (double)block_bytes;
  out->kernel_ns = kernel_ns;
  out->K = (double)mm->fills / k_per;
  out->M = M;
}
