/*
 * simdev_gemm.c - the tiled GEMM engine of the sim device (paper §4.5
 * "operand sharing" and App. C "GEMM instantiation"): a direct CTA raster
 * over the shared cache of simdev_mem.c.
 *
 * The n_r x n_c output tiles are CTAs, numbered row-major (t = i n_c + j)
 * and launched in that order: the first M go to slots 0..M-1 through the
 * dispatcher (one launch per dispatch_ns), then each CTA that ends hands its
 * slot to the next tile. Slot s runs on SM s mod sm_count. CTA (i, j) runs
 * n_k steps; at step k it requests A tile (i, k) and B tile (k, j) together,
 * waits until both have crossed its SM's link, then works
 * 2 consume + compute(m) + intra-CTA sync, scaled by its SM's per-run clock
 * factor and jittered (m counts 16x16x16 matrix instructions, as the scan's
 * does; pascal_simdev_gemm_step_m gives a tile step's, so the GEMM computes
 * at the profile's one per-SM matrix rate). Lines are tiles: A tile (i, k)
 * is line i n_k + k, B tile (k, j) is line n_r n_k + k n_c + j, so the cache holds
 * the profile's L2 bytes in lines of one tile (its sets scaled, its ways
 * kept) and every DRAM, L2 and link time scales with the tile size. When a CTA ends it writes its
 * output tile into the cache: out_lines = ceil(tile_m tile_n out_elem_bytes / tile_bytes) lines
 * after the inputs (line (n_r + n_c) n_k + t out_lines + q), allocated
 * without a read (pc_simdev_mem_write), so the output competes with A and B
 * for capacity as on the GPU, where L2 holds the written tiles.
 *
 * Nothing here encodes reuse: which reads hit, merge or fill comes out of
 * the raster, the slot timing and LRU. When all (n_r + n_c) n_k tiles and
 * the output fit the fills are exactly the input tiles (V = B_0, K = K_0); with one slot and a
 * one-tile cache no read is reused (V = Q, K = M).
 *
 * Events: id < M is slot id's next step (start of its CTA, or end of a
 * step's work); id = M + 2 s + op is slot s's outstanding read (op 0: A,
 * 1: B) reaching L2.
 */
#include <math.h>
#include <string.h>

#include "pascal/latency.h"
#include "pascal/predict.h"
#include "simdev_internal.h"

/* The most compute units one k-step may take. */
#define GEMM_MAX_STEP_M 1000000u

struct gemm_slot {
  uint32_t sm;
  uint8_t active;   /* a CTA runs (else the slot's next event starts one) */
  uint8_t pending;  /* reads of the current step not yet over the link    */
  uint32_t i, j, k; /* output tile and reduction step of the current CTA  */
  double data_at;   /* latest arrival of the current step's reads         */
};

typedef struct gemm_run {
  simdev_mem *mem;
  simdev_heap *heap;
  gemm_slot *slots;
  const pascal_simdev_profile *p;
  simdev_rng rng;
  uint32_t M, n_r, n_c, n_k;
  uint32_t out_first, out_lines; /* first output line; lines per output tile */
  uint64_t tiles, launched;
  const double *sm_clock; /* per SM: this run's work factor */
  double work_ns, dispatch_free, end_ns;
} gemm_run;

/* Resolve the run's geometry and cache size, checking every field. */
static pascal_status gemm_check(const pascal_simdev_gemm *run, pascal_gemm_prediction *geo,
                                uint32_t *lines, uint32_t *out_lines, uint32_t *capacity,
                                pascal_error *err)
{
  const pascal_gemm_params *g = &run->tiling;
  pascal_status st = pascal_gemm_geometry(g, &run->shape, geo, err);
  if (st != PASCAL_OK)
    return st;
  if (g->tile_m != g->tile_n)
    return pascal_error_set(err, PASCAL_EINVAL, "tile_n",
                            "the sim needs A and B tiles of one size: tile_n (%u) != tile_m (%u)",
                            g->tile_n, g->tile_m);
  if (g->resident_ctas > (1u << 18))
    return pascal_error_set(err, PASCAL_EINVAL, "resident_ctas",
                            "resident_ctas must be at most 2^18");
  if (run->m > GEMM_MAX_STEP_M)
    return pascal_error_set(err, PASCAL_EINVAL, "m", "m must be at most %u", GEMM_MAX_STEP_M);
  uint64_t tile_bytes = (uint64_t)g->tile_m * g->tile_k * g->elem_bytes;
  if (tile_bytes > UINT32_MAX)
    return pascal_error_set(err, PASCAL_ERANGE, "tile_k", "a tile of %llu bytes is too large",
                            (unsigned long long)tile_bytes);
  if (run->out_elem_bytes > 64)
    return pascal_error_set(err, PASCAL_EINVAL, "out_elem_bytes",
                            "out_elem_bytes must be at most 64");
  uint64_t out_bytes = (uint64_t)g->tile_m * g->tile_n * run->out_elem_bytes;
  *out_lines = (uint32_t)((out_bytes + tile_bytes - 1) / tile_bytes);
  uint64_t n =
      ((uint64_t)geo->n_r + geo->n_c) * geo->n_k + (uint64_t)geo->n_r * geo->n_c * *out_lines;
  if (n >= (1ull << 31))
    return pascal_error_set(err, PASCAL_ERANGE, "Kg", "%llu input and output lines exceed 2^31",
                            (unsigned long long)n);
  *lines = (uint32_t)n;
  *capacity = run->C; /* 0: the profile's L2 in lines of one tile (pc_simdev_mem_prepare) */
  return PASCAL_OK;
}

/* Start time of a CTA whose slot frees at `now`: launch overhead, the
 * dispatcher (one launch per dispatch_ns, in raster order), start jitter. */
static double gemm_start_at(gemm_run *r, double now)
{
  double t = now + r->p->launch_ns;
  if (t < r->dispatch_free)
    t = r->dispatch_free;
  r->dispatch_free = t + r->p->dispatch_ns;
  return t + r->p->start_jitter_ns * pc_simdev_rng_unit(&r->rng);
}

/* Give slot s the next output tile of the raster, starting at `at`. */
static void gemm_assign(gemm_run *r, uint32_t s, double at)
{
  gemm_slot *sl = &r->slots[s];
  uint64_t t = r->launched++;
  sl->i = (uint32_t)(t / r->n_c);
  sl->j = (uint32_t)(t % r->n_c);
  sl->active = 0;
  pc_simdev_heap_push(r->heap, gemm_start_at(r, at), s);
}

/* Slot s requests the A and B tiles of its step k at `now`. */
static void gemm_issue_step(gemm_run *r, uint32_t s, double now)
{
  gemm_slot *sl = &r->slots[s];
  uint32_t a = sl->i * r->n_k + sl->k;
  uint32_t b = r->n_r * r->n_k + sl->k * r->n_c + sl->j;
  double ready;
  pc_simdev_mem_lookup(r->mem, sl->sm, a, now, &ready);
  pc_simdev_heap_push(r->heap, ready, r->M + 2 * s);
  pc_simdev_mem_lookup(r->mem, sl->sm, b, now, &ready);
  pc_simdev_heap_push(r->heap, ready, r->M + 2 * s + 1);
  sl->pending = 2;
  sl->data_at = now;
}

/* Slot s's event: start its CTA, or end the work of its step k. */
static void gemm_on_slot(gemm_run *r, uint32_t s, double now)
{
  gemm_slot *sl = &r->slots[s];
  if (!sl->active) {
    sl->active = 1;
    sl->k = 0;
    gemm_issue_step(r, s, now);
    return;
  }
  if (++sl->k < r->n_k) {
    gemm_issue_step(r, s, now);
    return;
  }
  uint32_t first = r->out_first + (sl->i * r->n_c + sl->j) * r->out_lines;
  for (uint32_t q = 0; q < r->out_lines; q++)
    pc_simdev_mem_write(r->mem, first + q, now);
  if (now > r->end_ns)
    r->end_ns = now;
  if (r->launched < r->tiles)
    gemm_assign(r, s, now);
  else
    sl->active = 0;
}

/* One of slot s's reads is ready at L2: it crosses the SM's link; once both
 * have, the step's work runs, scaled by the SM's clock factor. */
static void gemm_on_ready(gemm_run *r, uint32_t s, double now)
{
  gemm_slot *sl = &r->slots[s];
  double arr = pc_simdev_mem_transfer(r->mem, sl->sm, now);
  if (arr > sl->data_at)
    sl->data_at = arr;
  if (--sl->pending > 0)
    return;
  double work =
      pc_simdev_rng_jitter(&r->rng, r->work_ns * r->sm_clock[sl->sm], r->p->service_jitter);
  pc_simdev_heap_push(r->heap, sl->data_at + work, s);
}

pascal_status pascal_simdev_run_gemm(pascal_simdev *dev, const pascal_simdev_gemm *run,
                                     pascal_simdev_stats *out, pascal_error *err)
{
  if (!dev || !run || !out)
    return pascal_error_set(err, PASCAL_EINVAL, "run", "device, run and out must be given");
  pascal_gemm_prediction geo;
  uint32_t lines = 0, out_lines = 0, capacity = 0;
  pascal_status st = gemm_check(run, &geo, &lines, &out_lines, &capacity, err);
  if (st != PASCAL_OK)
    return st;
  const pascal_simdev_profile *p = &dev->profile;
  const pascal_gemm_params *g = &run->tiling;
  uint32_t tile_bytes = g->tile_m * g->tile_k * g->elem_bytes;
  gemm_run r;
  memset(&r, 0, sizeof r);
  r.p = p;
  r.M = g->resident_ctas;
  r.n_r = geo.n_r;
  r.n_c = geo.n_c;
  r.n_k = geo.n_k;
  r.tiles = (uint64_t)geo.n_r * geo.n_c;
  r.out_first = (geo.n_r + geo.n_c) * geo.n_k;
  r.out_lines = out_lines;
  uint64_t key =
      pc_simdev_seed_mix(pc_simdev_seed_mix(run->shape.Mg, run->shape.Ng),
                         pc_simdev_seed_mix(run->shape.Kg, ((uint64_t)r.M << 32) | run->m));
  r.rng.s = pc_simdev_seed_mix(
      pc_simdev_seed_mix(pc_simdev_seed_mix(p->seed, 0x47454D4DULL /* "GEMM" */), key), run->seed);
  st = pc_simdev_grow((void **)&dev->gemm_slots, &dev->gemm_slots_cap, r.M, sizeof(gemm_slot),
                      "resident_ctas", err);
  if (st != PASCAL_OK)
    return st;
  if (pc_simdev_heap_reserve(&dev->heap, (size_t)r.M * 3) != PASCAL_OK)
    return pascal_error_set(err, PASCAL_ENOMEM, "resident_ctas", "cannot allocate the event queue");
  st = pc_simdev_mem_prepare(dev, lines, capacity, tile_bytes, &r.rng, err);
  if (st != PASCAL_OK)
    return st;
  r.mem = &dev->mem;
  r.heap = &dev->heap;
  r.slots = dev->gemm_slots;
  r.work_ns = 2.0 * p->consume_ns + pc_simdev_compute_ns(p, run->m) + p->cta_sync_ns;
  pc_simdev_draw_clocks(dev, &r.rng);
  r.sm_clock = dev->sm_clock;
  uint32_t first = r.tiles < r.M ? (uint32_t)r.tiles : r.M;
  for (uint32_t s = 0; s < first; s++) {
    memset(&r.slots[s], 0, sizeof r.slots[s]);
    r.slots[s].sm = s % p->sm_count;
    gemm_assign(&r, s, 0.0);
  }
  simdev_event e;
  while (pc_simdev_heap_pop(r.heap, &e)) {
    if (e.id < r.M)
      gemm_on_slot(&r, e.id, e.t);
    else
      gemm_on_ready(&r, (e.id - r.M) / 2, e.t);
  }
  pc_simdev_mem_stats(r.mem, tile_bytes, r.end_ns, geo.Q / (double)tile_bytes / r.M, r.M, out);
  return PASCAL_OK;
}

uint32_t pascal_simdev_gemm_step_m(const pascal_gemm_params *tiling)
{
  if (!tiling)
    return 0;
  double mma =
      ceil(2.0 * tiling->tile_m * (double)tiling->tile_n * tiling->tile_k / PASCAL_SCAN_MMA_FLOPS);
  return mma < GEMM_MAX_STEP_M ? (uint32_t)mma : GEMM_MAX_STEP_M;
}
