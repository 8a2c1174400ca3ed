/*
 * simdev_mem.c - the sim device's memory path: requests through the L2
 * array of simdev_cache.c (its partitions, sets and ways, or one fully
 * associative LRU), request merging for lines whose fill is still
 * outstanding (MSHR-like), the far-partition hop, the FIFO DRAM server with
 * finite bandwidth and base latency, the optional shared L2 data server and
 * the per-SM L2 -> SM link servers (docs/sim-device.md, "Memory path").
 *
 * With one partition and one set the cache is exact LRU on the sequence of
 * lookups, lines allocated at miss time, so with lookups in the static
 * kernel's trace order its misses are the LRU misses of paper §3.3
 * (Theorem lru).
 *
 * Partitions (an L2 split in two halves, each next to half of the SMs, as
 * on the H100): a request goes to the partition next to its SM. A line
 * homed there is served, or filled from DRAM, as with one partition. A line
 * homed in the other partition is kept as a copy in the near one: if the
 * copy is missing, the request crosses to the home partition (far_ns),
 * which serves it or fills it from DRAM, and the data comes back (far_ns)
 * into a new near copy. Only DRAM reads are fills, so a line both halves
 * read costs one fill while it stays in its home partition, and each half
 * holds every line its SMs read: the capacity a scan shared by all SMs can
 * use is one partition's.
 *
 * A request the SM makes in `rounds` dependent rounds (the sync path's
 * per-thread loads, simdev_scan.c) pays the hop, the far hop and the DRAM
 * latency once per round; the DRAM service and the transfer are the line's.
 */
#include <assert.h>
#include <string.h>

#include "simdev_internal.h"

/* A DRAM fill of a line that arrives at its partition at `at`: FIFO
 * service (at is non-decreasing across lookups up to the far hop), then
 * the latency and its tail. */
static double dram_fill(simdev_mem *mm, double at)
{
  double start = at > mm->dram_free ? at : mm->dram_free;
  mm->dram_free = start + pc_simdev_rng_jitter(mm->rng, mm->dram_block_ns, mm->jitter);
  mm->fills++;
  return mm->dram_free + mm->rounds * mm->dram_latency_ns +
         pc_simdev_rng_tail(mm->rng, mm->dram_tail_prob, mm->dram_tail_ns);
}

/* Look b up in partition q at time `at`: a resident line is a hit, or a
 * merge while its fill is outstanding; a missing one is allocated (a fill:
 * the caller sets its data's ready time and origin). *line: the line. */
static simdev_outcome part_lookup(simdev_mem *mm, uint32_t q, uint32_t b, double at, double *ready,
                                  simdev_line **line)
{
  simdev_line *l = pc_simdev_cache_touch(&mm->cache, q, b);
  if (l) {
    *line = l;
    if (l->fill_ready > at) {
      *ready = l->fill_ready;
      return SIMDEV_MERGE;
    }
    *ready = at;
    return SIMDEV_HIT;
  }
  *line = pc_simdev_cache_insert(&mm->cache, q, b);
  return SIMDEV_FILL;
}

simdev_outcome pc_simdev_mem_lookup(simdev_mem *mm, uint32_t sm, uint32_t b, double t,
                                    double *ready, uint32_t *origin)
{
  simdev_cache *c = &mm->cache;
  double at = t + mm->rounds * mm->hop_ns, far = mm->rounds * mm->far_ns;
  uint32_t near = (uint32_t)((uint64_t)sm * c->parts / mm->sm_count);
  simdev_line *copy;
  assert(b < c->n && sm < mm->sm_count);
  mm->requests++;
  simdev_outcome o = part_lookup(mm, near, b, at, ready, &copy);
  if (o == SIMDEV_FILL) {
    uint32_t home = pc_simdev_cache_home(c, b);
    if (home == near) {
      *ready = dram_fill(mm, at);
      copy->origin = pc_simdev_group_of(sm, mm->groups, mm->sm_count);
    } else { /* the near copy comes from the home partition */
      simdev_line *line;
      double far_at = at + far;
      o = part_lookup(mm, home, b, far_at, ready, &line);
      if (o == SIMDEV_FILL) {
        *ready = line->fill_ready = dram_fill(mm, far_at);
        line->origin = pc_simdev_group_of(sm, mm->groups, mm->sm_count);
      }
      *ready += far;
      copy->origin = line->origin;
    }
    copy->fill_ready = *ready;
  }
  if (origin)
    *origin = copy->origin;
  if (o == SIMDEV_HIT)
    mm->hits++;
  else if (o == SIMDEV_MERGE)
    mm->merges++;
  return o;
}

void pc_simdev_mem_write(simdev_mem *mm, uint32_t b, double t)
{
  simdev_cache *c = &mm->cache;
  uint32_t home = pc_simdev_cache_home(c, b);
  double at = t + mm->hop_ns;
  assert(b < c->n);
  simdev_line *l = pc_simdev_cache_touch(c, home, b); /* rewritten: touched */
  if (!l)
    l = pc_simdev_cache_insert(c, home, b);
  l->fill_ready = at;
  l->origin = 0; /* no SM's read brought it in */
  /* its write-back takes one DRAM service (charged now, in arrival order) */
  double start = at > mm->dram_free ? at : mm->dram_free;
  mm->dram_free = start + pc_simdev_rng_jitter(mm->rng, mm->dram_block_ns, mm->jitter);
}

double pc_simdev_mem_transfer(simdev_mem *mm, uint32_t sm, double ready)
{
  if (mm->l2_line_ns > 0.0) { /* the L2's own data rate, shared by every SM */
    double start = ready > mm->l2_free ? ready : mm->l2_free;
    mm->l2_free = start + pc_simdev_rng_jitter(mm->rng, mm->l2_line_ns, mm->jitter);
    ready = mm->l2_free;
  }
  double start = ready > mm->link_free[sm] ? ready : mm->link_free[sm];
  mm->link_free[sm] = start + pc_simdev_rng_jitter(mm->rng, mm->link_run_ns[sm], mm->jitter) +
                      pc_simdev_rng_tail(mm->rng, mm->link_stall_prob, mm->link_stall_ns);
  return mm->link_free[sm];
}

/* The cache geometry of a run in lines of line_bytes (see the header). */
static pascal_status geometry(const pascal_simdev_profile *p, uint32_t capacity,
                              uint32_t line_bytes, uint32_t g[3], pascal_error *err)
{
  g[0] = g[1] = g[2] = 1;
  if (capacity > 0) {
    g[2] = capacity;
    return PASCAL_OK;
  }
  uint64_t sets = p->l2_sets
                      ? p->l2_sets
                      : (p->l2_ways ? p->capacity_blocks / (p->l2_partitions * p->l2_ways) : 0);
  /* in whole lines of line_bytes (exact integer arithmetic) */
  uint64_t lines = (p->l2_ways ? sets : p->capacity_blocks) * p->block_bytes / line_bytes;
  if (lines < 1 || lines > UINT32_MAX)
    return pascal_error_set(err, PASCAL_EINVAL, "C",
                            "the cache would hold %llu lines of %u bytes; it must hold 1 to "
                            "2^32 - 1",
                            (unsigned long long)lines, line_bytes);
  if (p->l2_ways) { /* sets scale with the line size, ways stay */
    g[0] = p->l2_partitions;
    g[1] = (uint32_t)lines;
    g[2] = p->l2_ways;
  } else {
    g[2] = (uint32_t)lines;
  }
  return PASCAL_OK;
}

pascal_status pc_simdev_mem_prepare(pascal_simdev *dev, uint32_t n, uint32_t capacity,
                                    uint32_t line_bytes, simdev_rng *rng, pascal_error *err)
{
  const pascal_simdev_profile *p = &dev->profile;
  simdev_mem *mm = &dev->mem;
  uint32_t g[3];
  pascal_status st = geometry(p, capacity, line_bytes, g, err);
  if (st != PASCAL_OK)
    return st;
  if (pc_simdev_cache_reset(&mm->cache, n, g[0], g[1], g[2]) != PASCAL_OK)
    return pascal_error_set(err, PASCAL_ENOMEM, "N", "cannot allocate the cache index for %u lines",
                            n);
  double scale = (double)line_bytes / (double)p->block_bytes;
  for (uint32_t s = 0; s < p->sm_count; s++) {
    mm->link_free[s] = 0.0;
    mm->link_run_ns[s] =
        pc_simdev_rng_jitter(rng, mm->link_block_ns[s], p->sm_read_run_spread) * scale;
  }
  mm->sm_count = p->sm_count;
  mm->groups = p->clock_skew_groups;
  mm->hop_ns = p->hop_ns;
  mm->far_ns = g[0] > 1 ? p->l2_far_ns : 0.0;
  mm->dram_block_ns = (double)line_bytes / p->dram_gbps;
  mm->dram_latency_ns = p->dram_latency_ns;
  mm->l2_line_ns = p->l2_gbps > 0.0 ? (double)line_bytes / p->l2_gbps : 0.0;
  mm->jitter = p->service_jitter;
  mm->dram_tail_prob = p->dram_tail_prob;
  mm->dram_tail_ns = p->dram_tail_ns;
  mm->link_stall_prob = p->link_stall_prob;
  mm->link_stall_ns = p->link_stall_ns;
  mm->rounds = 1.0;
  mm->dram_free = mm->l2_free = 0.0;
  mm->requests = mm->hits = mm->merges = mm->fills = 0;
  mm->rng = rng;
  return PASCAL_OK;
}

void pc_simdev_mem_stats(const simdev_mem *mm, uint32_t block_bytes, double kernel_ns, double k_per,
                         uint32_t M, pascal_simdev_stats *out)
{
  assert(pc_simdev_cache_consistent(&mm->cache));
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
