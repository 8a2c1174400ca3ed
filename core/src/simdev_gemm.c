/*
 * simdev_gemm.c - the tiled GEMM engine of the sim device (paper §4.5
 * "operand sharing" and App. C "GEMM instantiation"): a CTA raster over the
 * shared cache of simdev_mem.c, with the multistage pipeline and grouped
 * raster a Triton matmul tunes (num_stages, GROUP_SIZE_M).
 *
 * The n_r x n_c output tiles are CTAs, numbered in the raster's order
 * (pascal_gemm_raster_tile: row-major for group_m = 1, else Triton's groups
 * of group_m tile rows swept column by column) and launched in that order:
 * the first M go to slots 0..M-1 through the dispatcher (one launch per
 * dispatch_ns), then each CTA that ends hands its slot to the next tile.
 * Slot s runs on SM s mod sm_count.
 *
 * A CTA (i, j) runs n_k steps through `stages` buffers: it requests the A
 * tile (i, k) and B tile (k, j) of steps 0 .. stages-1 at its start, and
 * the tiles of step k + stages when the work of step k ends and frees its
 * buffer. Step k's work starts when its tiles have crossed the SM's link
 * and step k - 1's work has ended: 2 consume + compute(m) + intra-CTA sync,
 * scaled by the SM's per-run clock factor and jittered (m counts 16x16x16
 * matrix instructions, as the scan's does; pascal_simdev_gemm_step_m gives
 * a tile step's; they run at the profile's tensor_pipe_ns each, the pipe
 * throughput a CTA's warps reach together, else at the scan's chain rate:
 * pc_simdev_tile_compute_ns). The consume + compute part occupies the SM's execution
 * pipes, which the CTAs resident on one SM share, served in turn (as the
 * scan's do); the sync does not. With one stage a CTA waits for each
 * step's tiles, as the calibration kernel does.
 *
 * Lines. A tile row panel of u = gcd(tile_m, tile_n) rows by tile_k is one
 * cache line of u tile_k elem_bytes bytes; an A tile is tile_m / u lines, a
 * B tile tile_n / u (one line each when the tile is square). A(i, k) is
 * lines (i n_k + k) a .. + a - 1, B(k, j) lines n_r n_k a + (k n_c + j) b
 * .., so the cache holds the profile's L2 bytes in lines of that size (a
 * set-associative L2's sets scaled, its ways kept) and every DRAM, L2 and
 * link time scales with the line. When a CTA ends it writes its output
 * tile into the cache: out_lines = ceil(tile_m tile_n out_elem_bytes / line
 * bytes) lines after the inputs, allocated without a read
 * (pc_simdev_mem_write), so the output competes with A and B for capacity
 * as on the GPU, where L2 holds the written tiles.
 *
 * Nothing here encodes reuse: which reads hit, merge or fill comes out of
 * the raster, the slot timing and LRU. When all input lines and the output
 * fit the fills are exactly the inputs (V = B_0, K = K_0); with one slot
 * and a one-line cache no read is reused (V = Q, K = M).
 *
 * Events: id < M is slot id's next step (start of its CTA, or end of a
 * step's work); id = M + stages s + b is a read of slot s's buffer b
 * reaching L2.
 */
#include <math.h>
#include <string.h>

#include "pascal/gemm_config.h"
#include "pascal/latency.h"
#include "pascal/predict.h"
#include "simdev_internal.h"

/* The most compute units one k-step may take. */
#define GEMM_MAX_STEP_M 1000000u

/* One buffered k-step: its reads still on the way, the last arrival. */
typedef struct gemm_buffer {
  uint32_t pending;
  double data_at;
} gemm_buffer;

struct gemm_slot {
  uint32_t sm;
  uint8_t active;  /* a CTA runs (else the slot's next event starts one) */
  uint8_t working; /* the work of step `next` runs                        */
  uint32_t i, j;   /* output tile of the current CTA                      */
  uint32_t issued; /* k-steps whose reads were issued                     */
  uint32_t next;   /* the k-step whose work is next (or running)          */
  gemm_buffer buf[PASCAL_GEMM_STAGES_MAX];
};

typedef struct gemm_run {
  simdev_mem *mem;
  simdev_queue *queue;
  gemm_slot *slots;
  const pascal_simdev_profile *p;
  simdev_rng rng;
  uint32_t M, n_r, n_c, n_k, stages, group_m;
  uint32_t a_lines, b_lines;     /* lines of an A and of a B tile          */
  uint32_t b_first;              /* first line of B                        */
  uint32_t out_first, out_lines; /* first output line; lines per output tile */
  uint64_t tiles, launched;
  const double *sm_clock; /* per SM: this run's work factor */
  double *exec_free;      /* per SM: execution pipes busy until */
  double work_ns, shared_frac, dispatch_free, end_ns;
} gemm_run;

static uint32_t gcd_u32(uint32_t a, uint32_t b)
{
  while (b) {
    uint32_t t = a % b;
    a = b;
    b = t;
  }
  return a;
}

/* Resolve the run's geometry and cache size, checking every field. */
static pascal_status gemm_check(const pascal_simdev_gemm *run, pascal_gemm_prediction *geo,
                                uint32_t *lines, uint32_t *line_bytes, uint32_t *out_lines,
                                uint32_t *capacity, pascal_error *err)
{
  const pascal_gemm_params *g = &run->tiling;
  pascal_status st = pascal_gemm_geometry(g, &run->shape, geo, err);
  if (st != PASCAL_OK)
    return st;
  if (g->resident_ctas > (1u << 18))
    return pascal_error_set(err, PASCAL_EINVAL, "resident_ctas",
                            "resident_ctas must be at most 2^18");
  if (g->stages > PASCAL_GEMM_STAGES_MAX)
    return pascal_error_set(err, PASCAL_EINVAL, "stages", "stages must be in [0, %u]",
                            PASCAL_GEMM_STAGES_MAX);
  if (run->m > GEMM_MAX_STEP_M)
    return pascal_error_set(err, PASCAL_EINVAL, "m", "m must be at most %u", GEMM_MAX_STEP_M);
  uint32_t u = gcd_u32(g->tile_m, g->tile_n);
  uint64_t lb = (uint64_t)u * g->tile_k * g->elem_bytes;
  if (lb > UINT32_MAX)
    return pascal_error_set(err, PASCAL_ERANGE, "tile_k", "a line of %llu bytes is too large",
                            (unsigned long long)lb);
  if (run->out_elem_bytes > 64)
    return pascal_error_set(err, PASCAL_EINVAL, "out_elem_bytes",
                            "out_elem_bytes must be at most 64");
  uint64_t out_bytes = (uint64_t)g->tile_m * g->tile_n * run->out_elem_bytes;
  *out_lines = (uint32_t)((out_bytes + lb - 1) / lb);
  uint64_t n =
      ((uint64_t)geo->n_r * (g->tile_m / u) + (uint64_t)geo->n_c * (g->tile_n / u)) * geo->n_k +
      (uint64_t)geo->n_r * geo->n_c * *out_lines;
  if (n >= (1ull << 31))
    return pascal_error_set(err, PASCAL_ERANGE, "Kg", "%llu input and output lines exceed 2^31",
                            (unsigned long long)n);
  *lines = (uint32_t)n;
  *line_bytes = (uint32_t)lb;
  *capacity = run->C; /* 0: the profile's L2 in lines of lb bytes (pc_simdev_mem_prepare) */
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
  pascal_gemm_raster_tile(r->n_r, r->n_c, r->group_m, r->launched++, &sl->i, &sl->j);
  sl->active = 0;
  pc_simdev_queue_push(r->queue, gemm_start_at(r, at), s);
}

/* Slot s requests the A and B tiles of its next step into a buffer at `now`. */
static void gemm_issue_step(gemm_run *r, uint32_t s, double now)
{
  gemm_slot *sl = &r->slots[s];
  uint32_t k = sl->issued++, b = k % r->stages;
  uint32_t a0 = (sl->i * r->n_k + k) * r->a_lines;
  uint32_t b0 = r->b_first + (k * r->n_c + sl->j) * r->b_lines;
  uint32_t id = r->M + s * r->stages + b;
  double ready;
  for (uint32_t q = 0; q < r->a_lines; q++) {
    pc_simdev_mem_lookup(r->mem, sl->sm, a0 + q, now, &ready, NULL);
    pc_simdev_queue_push(r->queue, ready, id);
  }
  for (uint32_t q = 0; q < r->b_lines; q++) {
    pc_simdev_mem_lookup(r->mem, sl->sm, b0 + q, now, &ready, NULL);
    pc_simdev_queue_push(r->queue, ready, id);
  }
  sl->buf[b] = (gemm_buffer){r->a_lines + r->b_lines, now};
}

/* The work of slot s's step `next` starts at `start` (its tiles are in, the
 * previous step's work has ended), after the SM's pipes free. */
static void gemm_begin_work(gemm_run *r, uint32_t s, double start)
{
  gemm_slot *sl = &r->slots[s];
  double work =
      pc_simdev_rng_jitter(&r->rng, r->work_ns * r->sm_clock[sl->sm], r->p->service_jitter);
  double *pipes = &r->exec_free[sl->sm];
  if (start < *pipes)
    start = *pipes;
  *pipes = start + work * r->shared_frac;
  sl->working = 1;
  pc_simdev_queue_push(r->queue, start + work, s);
}

/* Slot s's event: start its CTA, or end the work of its step `next`. */
static void gemm_on_slot(gemm_run *r, uint32_t s, double now)
{
  gemm_slot *sl = &r->slots[s];
  if (!sl->active) {
    sl->active = 1;
    sl->working = 0;
    sl->issued = sl->next = 0;
    while (sl->issued < r->n_k && sl->issued < r->stages)
      gemm_issue_step(r, s, now);
    return;
  }
  sl->working = 0;
  sl->next++;
  if (sl->issued < r->n_k) /* the finished step's buffer takes a new one */
    gemm_issue_step(r, s, now);
  if (sl->next < r->n_k) {
    const gemm_buffer *b = &sl->buf[sl->next % r->stages];
    if (b->pending == 0)
      gemm_begin_work(r, s, b->data_at > now ? b->data_at : now);
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

/* A read of slot s's buffer b is ready at L2: it crosses the SM's link;
 * once all of the buffer's have, the step's work runs if it is next. */
static void gemm_on_ready(gemm_run *r, uint32_t s, uint32_t b, double now)
{
  gemm_slot *sl = &r->slots[s];
  gemm_buffer *buf = &sl->buf[b];
  double arr = pc_simdev_mem_transfer(r->mem, sl->sm, now);
  if (arr > buf->data_at)
    buf->data_at = arr;
  if (--buf->pending > 0)
    return;
  if (!sl->working && sl->next % r->stages == b)
    gemm_begin_work(r, s, buf->data_at);
}

pascal_status pascal_simdev_run_gemm(pascal_simdev *dev, const pascal_simdev_gemm *run,
                                     pascal_simdev_stats *out, pascal_error *err)
{
  if (!dev || !run || !out)
    return pascal_error_set(err, PASCAL_EINVAL, "run", "device, run and out must be given");
  pascal_gemm_prediction geo;
  uint32_t lines = 0, line_bytes = 0, out_lines = 0, capacity = 0;
  pascal_status st = gemm_check(run, &geo, &lines, &line_bytes, &out_lines, &capacity, err);
  if (st != PASCAL_OK)
    return st;
  const pascal_simdev_profile *p = &dev->profile;
  const pascal_gemm_params *g = &run->tiling;
  uint32_t u = gcd_u32(g->tile_m, g->tile_n);
  gemm_run r;
  memset(&r, 0, sizeof r);
  r.p = p;
  r.M = g->resident_ctas;
  r.n_r = geo.n_r;
  r.n_c = geo.n_c;
  r.n_k = geo.n_k;
  r.stages = pascal_gemm_stages(g);
  r.group_m = pascal_gemm_group_m(g);
  r.a_lines = g->tile_m / u;
  r.b_lines = g->tile_n / u;
  r.tiles = (uint64_t)geo.n_r * geo.n_c;
  r.b_first = geo.n_r * geo.n_k * r.a_lines;
  r.out_first = r.b_first + geo.n_c * geo.n_k * r.b_lines;
  r.out_lines = out_lines;
  uint64_t key =
      pc_simdev_seed_mix(pc_simdev_seed_mix(run->shape.Mg, run->shape.Ng),
                         pc_simdev_seed_mix(run->shape.Kg, ((uint64_t)r.M << 32) | run->m));
  if (r.stages != 1 || r.group_m != 1) /* the one-stage direct runs keep their seeds */
    key = pc_simdev_seed_mix(key, ((uint64_t)r.stages << 32) | r.group_m);
  r.rng.s = pc_simdev_seed_mix(
      pc_simdev_seed_mix(pc_simdev_seed_mix(p->seed, 0x47454D4DULL /* "GEMM" */), key), run->seed);
  st = pc_simdev_grow((void **)&dev->gemm_slots, &dev->gemm_slots_cap, r.M, sizeof(gemm_slot),
                      "resident_ctas", err);
  if (st != PASCAL_OK)
    return st;
  size_t events = (size_t)r.M * (1 + (size_t)r.stages * (r.a_lines + r.b_lines));
  if (pc_simdev_queue_reserve(&dev->queue, events) != PASCAL_OK)
    return pascal_error_set(err, PASCAL_ENOMEM, "resident_ctas", "cannot allocate the event queue");
  st = pc_simdev_mem_prepare(dev, lines, capacity, line_bytes, &r.rng, err);
  if (st != PASCAL_OK)
    return st;
  r.mem = &dev->mem;
  r.queue = &dev->queue;
  r.slots = dev->gemm_slots;
  r.work_ns = 2.0 * p->consume_ns + pc_simdev_tile_compute_ns(p, run->m) + p->cta_sync_ns;
  r.shared_frac = r.work_ns > 0.0 ? (r.work_ns - p->cta_sync_ns) / r.work_ns : 0.0;
  pc_simdev_draw_clocks(dev, &r.rng);
  for (uint32_t i = 0; i < p->sm_count; i++)
    dev->exec_free[i] = 0.0;
  r.sm_clock = dev->sm_clock;
  r.exec_free = dev->exec_free;
  uint32_t first = r.tiles < r.M ? (uint32_t)r.tiles : r.M;
  for (uint32_t s = 0; s < first; s++) {
    memset(&r.slots[s], 0, sizeof r.slots[s]);
    r.slots[s].sm = s % p->sm_count;
    gemm_assign(&r, s, 0.0);
  }
  simdev_event e;
  while (pc_simdev_queue_pop(r.queue, &e)) {
    if (e.id < r.M)
      gemm_on_slot(&r, e.id, e.t);
    else
      gemm_on_ready(&r, (e.id - r.M) / r.stages, (e.id - r.M) % r.stages, e.t);
  }
  pc_simdev_mem_stats(r.mem, line_bytes, r.end_ns, geo.Q / (double)line_bytes / r.M, r.M, out);
  return PASCAL_OK;
}

pascal_status pascal_simdev_gemm_of_config(const pascal_simdev_profile *p,
                                           const pascal_gemm_shape *shape,
                                           const pascal_gemm_config *c, uint64_t seed,
                                           pascal_simdev_gemm *out, pascal_error *err)
{
  uint32_t per_sm;
  pascal_status st = pascal_gemm_ctas_per_sm(p->smem_per_sm, c, 1, &per_sm, err);
  if (st)
    return st;
  pascal_simdev_gemm g;
  memset(&g, 0, sizeof g);
  g.shape = *shape;
  g.tiling = pascal_gemm_params_of(c, per_sm * p->sm_count);
  g.m = pascal_simdev_gemm_step_m(&g.tiling);
  g.out_elem_bytes = 4; /* FP32 accumulators written out */
  g.seed = seed;
  *out = g;
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
