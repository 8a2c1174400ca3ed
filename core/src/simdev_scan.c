/*
 * simdev_scan.c - the open-scan engine of the sim device: W * M CTAs run the
 * paper's Algorithm 2 ("open scan with a binary-defined priming count") in
 * waves over the shared memory path of simdev_mem.c, with optional phase
 * snapshots (cluster count under the 32-block merge rule of §5.3 and the
 * gap-law K of the positions, as in the paper's marker diagnostic, §3.6).
 *
 * Per CTA (slot s on SM s mod sm_count), n_p = d - 1 + priming_extra on the
 * TMA path and 0 on the sync path:
 *   start:   TMA issues blocks 0 .. min(n_p, N) - 1
 *   block j: issue j if not yet issued (sync path, or n_p == 0); wait for its
 *            data; consume + compute(m) + intra-CTA sync (jittered); issue
 *            block j + n_p if n_p > 0 and j + n_p < N.
 * This is the recurrence of paper Eq. (slot_timing); no rule here looks at
 * K, depth or m beyond the costs above: divergence or coherence comes from
 * who misses, who merges and who waits (Theorems coherence and feedback).
 *
 * The CTAs on one SM share its execution pipes: the exec_shared part of the
 * consume + compute of their per-block work is served in turn (an SM's
 * compute throughput is finite; 0 where the work is latency-bound and the
 * CTAs overlap), the intra-CTA sync is not. With m >= 1 a block also pays
 * the compute loop's fixed cost mma_setup_ns. The sync path loads a block
 * in sync_rounds dependent rounds (simdev_mem.c); on the TMA path a block's
 * data counts as arrived tma_latency_ns after it crossed the link (the
 * bulk copy's completion on the CTA's barrier).
 *
 * Variation (docs/sim-device.md): each SM's work is scaled by a per-run
 * clock factor (times its group's fixed skew, which scales the compute
 * loop and clock_skew_consume of the rest of the work; with skew_shared only
 * for a block whose line another group's request filled), each CTA's by an
 * AR(1) deviation that persists over
 * work_noise_blocks blocks; CTAs are launched by one dispatcher, one per
 * dispatch_ns, the first wave in a per-run random order. With
 * checkpoint_blocks = c > 0 the M CTAs of a wave wait for each other before
 * blocks c, 2c, ... (released grid_barrier_ns after the last arrives), which
 * bounds the within-wave lead by c (paper §3.6, the checkpoint experiment).
 *
 * Events: one per slot for its next worker step (START, END of a block, or
 * resume after a checkpoint) and one per outstanding request (data ready at
 * L2 -> SM link transfer).
 * Request ids index a per-slot ring of n_p + 1 entries: the outstanding
 * blocks of a CTA are j .. j + n_p, distinct modulo n_p + 1.
 *
 * The same engine runs an attention launch (simdev_attention.c, through
 * pc_simdev_scan_engine): its blocks are K/V steps, a CTA's stream may be
 * shorter than N (causal) and start at another head's lines, and with
 * `tiles` each CTA first reads a query tile of its own (its own event id
 * after the rings; block 0's work waits for it) and writes an output tile
 * when it ends. A plain scan takes none of these paths and draws the same
 * random numbers as before them.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pascal/static.h"
#include "simdev_internal.h"

struct simdev_slot {
  uint32_t sm;           /* link this slot's CTA uses                  */
  uint32_t j;            /* next block to consume in the current CTA   */
  uint32_t issued;       /* blocks issued by the current CTA           */
  uint8_t active;        /* a CTA runs (else the next event is START)  */
  uint8_t waiting;       /* blocked on block j's data since wait_from  */
  uint8_t at_checkpoint; /* waiting at a checkpoint (next event: resume) */
  double wait_from;
  double noise;      /* the CTA's AR(1) relative work deviation    */
  uint64_t wave;     /* wave of the current (or next) CTA          */
  uint64_t progress; /* blocks consumed by this slot over all CTAs */
  uint64_t cta;      /* the current (or next) CTA's index          */
  uint32_t n, base;  /* its stream: blocks base .. base + n - 1    */
  double q_arrival;  /* tiles: its query tile's arrival (< 0: not yet) */
};

typedef struct scan_run {
  simdev_mem *mem;
  simdev_queue *queue;
  simdev_slot *slots;
  double *ring_arrival;   /* < 0: data not arrived (or not known yet) */
  uint8_t *ring_foreign;  /* skew_shared: another group filled its line */
  const double *sm_clock; /* per SM: this run's work factor */
  const double *sm_skew;  /* per SM: the chip's skew, part of sm_clock */
  double skew_weight;     /* share of the work the skew scales          */
  double *exec_free;      /* per SM: its execution pipes are busy until */
  double shared_frac;     /* share of the work that occupies the pipes  */
  simdev_rng rng;
  uint32_t M, R, np, N, capacity, checkpoint;
  int tma, skew_shared;
  const pc_scan_cfg *cfg;
  double issue_ns, tma_latency_ns, work_ns, jitter, launch_ns, start_jitter_ns, dispatch_ns,
      barrier_ns;
  double noise_sd, noise_phi, noise_innov; /* AR(1): x' = phi x + innov U(-1,1) */
  double dispatch_free;                    /* the dispatcher is busy until */
  uint32_t arrived[2];                     /* CTAs at the pending checkpoint, by wave parity */
  uint64_t ctas_total, ctas_launched;
  double end_ns;
} scan_run;

static pascal_status scan_check(const pascal_simdev *dev, const pascal_simdev_scan *s,
                                pascal_error *err)
{
  const pascal_simdev_profile *p = &dev->profile;
  if (s->o < 1 || s->o > 64)
    return pascal_error_set(err, PASCAL_EINVAL, "o", "o must be in [1, 64]");
  if (s->path_tma != 0 && s->path_tma != 1)
    return pascal_error_set(err, PASCAL_EINVAL, "path", "path must be sync (0) or tma (1)");
  if (!s->path_tma && s->d != 0)
    return pascal_error_set(err, PASCAL_EINVAL, "d", "the sync path has d = 0, got %u", s->d);
  if (s->path_tma && (s->d < 1 || s->d > 64))
    return pascal_error_set(err, PASCAL_EINVAL, "d", "the TMA path needs d in [1, 64], got %u",
                            s->d);
  if (s->m > 1000000u)
    return pascal_error_set(err, PASCAL_EINVAL, "m", "m must be at most 1000000");
  if (s->N < 1 || s->N >= (1ull << 31))
    return pascal_error_set(err, PASCAL_EINVAL, "N", "N must be in [1, 2^31)");
  if (s->W < 1)
    return pascal_error_set(err, PASCAL_EINVAL, "W", "W must be at least 1");
  if (s->checkpoint_blocks > (1u << 31))
    return pascal_error_set(err, PASCAL_EINVAL, "checkpoint_blocks",
                            "checkpoint_blocks must be at most 2^31");
  uint64_t M = (uint64_t)p->sm_count * s->o;
  if (M > (1u << 18))
    return pascal_error_set(err, PASCAL_EINVAL, "o", "M = sm_count * o = %llu exceeds 2^18",
                            (unsigned long long)M);
  if (s->W > (UINT64_MAX / 4) / (M * s->N))
    return pascal_error_set(err, PASCAL_ERANGE, "W", "W * M * N overflows");
  return PASCAL_OK;
}

/* Start time of a CTA launched into a slot freed at `now`: the launch
 * overhead, then the dispatcher (one launch per dispatch_ns, in the order
 * slots free up), then a start jitter. */
static double draw_start(scan_run *r, double now)
{
  double t = now + r->launch_ns;
  if (t < r->dispatch_free)
    t = r->dispatch_free;
  r->dispatch_free = t + r->dispatch_ns;
  return t + r->start_jitter_ns * pc_simdev_rng_unit(&r->rng);
}

/* Uniform in [-1, 1) scaled so its sd is `sd`. */
static double centred(scan_run *r, double sd)
{
  return sd * 1.7320508075688772 * (2.0 * pc_simdev_rng_unit(&r->rng) - 1.0);
}

/* Issue the current CTA's next block at the event time `now`. */
static void issue(scan_run *r, uint32_t s, double now)
{
  simdev_slot *sl = &r->slots[s];
  uint32_t b = sl->issued++;
  uint32_t idx = b % r->R, origin;
  double ready;
  pc_simdev_mem_lookup(r->mem, sl->sm, sl->base + b, now, &ready, r->skew_shared ? &origin : NULL);
  if (r->skew_shared)
    r->ring_foreign[(size_t)s * r->R + idx] =
        origin != pc_simdev_group_of(sl->sm, r->mem->groups, r->mem->sm_count);
  r->ring_arrival[(size_t)s * r->R + idx] = -1.0;
  pc_simdev_queue_push(r->queue, ready, r->M + s * r->R + idx);
}

/* Slot s holds block j's data from `start`: schedule the end of its work,
 * scaled by its SM's clock factor (without its group's skew where
 * skew_shared and its own group filled the line) and its CTA's AR(1)
 * deviation (floored so that work never becomes negative), then jittered. The consume + compute
 * part occupies the SM's execution pipes, which the CTAs resident on one SM
 * share (served in turn); the intra-CTA sync does not. With o = 1 no CTA
 * ever waits for the pipes. */
static void begin_work(scan_run *r, uint32_t s, double start)
{
  simdev_slot *sl = &r->slots[s];
  double factor = r->sm_clock[sl->sm];
  if (r->skew_shared || r->skew_weight != 1.0) { /* the skew, on its share */
    double skew = r->sm_skew[sl->sm];
    int own = r->skew_shared && !r->ring_foreign[(size_t)s * r->R + sl->j % r->R];
    factor = factor / skew * (own ? 1.0 : 1.0 + (skew - 1.0) * r->skew_weight);
  }
  if (r->noise_sd > 0.0) {
    sl->noise = r->noise_phi * sl->noise + centred(r, r->noise_innov);
    factor *= sl->noise > -0.9 ? 1.0 + sl->noise : 0.1;
  }
  double work = pc_simdev_rng_jitter(&r->rng, r->work_ns * factor, r->jitter);
  double *pipes = &r->exec_free[sl->sm];
  if (start < *pipes)
    start = *pipes;
  *pipes = start + work * r->shared_frac;
  pc_simdev_queue_push(r->queue, start + work, s);
}

/* When block j's work may start as far as its data goes: its arrival, for
 * block 0 of a CTA with a query tile the later of it and the tile's; < 0
 * while one is still on its way. */
static double data_at(const scan_run *r, uint32_t s)
{
  const simdev_slot *sl = &r->slots[s];
  double arr = r->ring_arrival[(size_t)s * r->R + sl->j % r->R];
  if (!r->cfg->tiles || sl->j != 0 || arr < 0.0)
    return arr;
  return sl->q_arrival < 0.0 ? -1.0 : fmax(arr, sl->q_arrival);
}

/* Top of Algorithm 2's loop for block j at worker time t (>= now). */
static void loop_top(scan_run *r, uint32_t s, double now, double t)
{
  simdev_slot *sl = &r->slots[s];
  if (sl->issued == sl->j) { /* sync path, or TMA with n_p == 0 */
    issue(r, s, now);
    t += r->issue_ns;
  }
  double arr = data_at(r, s);
  if (arr >= 0.0) {
    begin_work(r, s, arr > t ? arr : t);
  } else {
    sl->waiting = 1;
    sl->wait_from = t;
  }
}

/* The blocks CTA `cta` streams (the whole scan for a scan). */
static void cta_stream(const pc_scan_cfg *c, uint64_t cta, uint32_t *base, uint32_t *n)
{
  *base = 0;
  *n = c->N;
  if (!c->tiles)
    return;
  uint64_t head = cta / c->tiles_per_head, tile = cta % c->tiles_per_head;
  *base = (uint32_t)(head / c->heads_per_kv * c->N);
  if (c->causal) { /* the steps holding keys 0 .. its last query row */
    uint64_t keys = (tile + 1) * c->block_q, steps = (keys + c->block_kv - 1) / c->block_kv;
    *n = steps < c->N ? (uint32_t)steps : c->N;
  }
}

static void on_start(scan_run *r, uint32_t s, double now)
{
  simdev_slot *sl = &r->slots[s];
  sl->active = 1;
  sl->j = sl->issued = 0;
  sl->noise = r->noise_sd > 0.0 ? centred(r, r->noise_sd) : 0.0; /* stationary start */
  double t = now;
  cta_stream(r->cfg, sl->cta, &sl->base, &sl->n);
  if (r->cfg->tiles) { /* its query tile, a line of its own */
    double ready;
    pc_simdev_mem_lookup(r->mem, sl->sm, r->cfg->q_first + (uint32_t)sl->cta, now, &ready, NULL);
    sl->q_arrival = -1.0;
    pc_simdev_queue_push(r->queue, ready, r->M + r->M * r->R + s);
    t += r->issue_ns;
  }
  if (r->tma) {
    uint32_t prime = r->np < sl->n ? r->np : sl->n;
    for (uint32_t b = 0; b < prime; b++) {
      issue(r, s, now);
      t += r->issue_ns;
    }
  }
  loop_top(r, s, now, t);
}

/* Slot s reached a checkpoint at worker time t. The CTAs of one wave are
 * all resident together and cannot pass a checkpoint before the last one
 * arrives, so each wave has at most one pending checkpoint and at most two
 * waves run at once: counters by wave parity suffice. The last arrival
 * releases its wave grid_barrier_ns later. */
static void arrive(scan_run *r, uint32_t s, double t)
{
  uint64_t wave = r->slots[s].wave;
  r->slots[s].at_checkpoint = 1;
  if (++r->arrived[wave & 1] < r->M)
    return;
  r->arrived[wave & 1] = 0;
  double release = t + r->barrier_ns;
  for (uint32_t i = 0; i < r->M; i++) {
    const simdev_slot *o = &r->slots[i];
    if (o->active && o->at_checkpoint && o->wave == wave)
      pc_simdev_queue_push(r->queue, release, i);
  }
}

static void on_block_done(scan_run *r, uint32_t s, double now)
{
  simdev_slot *sl = &r->slots[s];
  double t = now;
  if (r->np > 0 && sl->j + r->np < sl->n) {
    issue(r, s, now); /* block j + n_p: the CTA has issued exactly j + n_p */
    t += r->issue_ns;
  }
  sl->j++;
  sl->progress++;
  if (sl->j < sl->n) {
    if (r->checkpoint && sl->j % r->checkpoint == 0)
      arrive(r, s, t);
    else
      loop_top(r, s, now, t);
    return;
  }
  sl->active = 0;    /* CTA done; the slot takes the next one, if any */
  if (r->cfg->tiles) /* its output tile, written without a read */
    pc_simdev_mem_write(r->mem, r->cfg->o_first + (uint32_t)sl->cta, now);
  if (t > r->end_ns)
    r->end_ns = t;
  if (r->ctas_launched < r->ctas_total) {
    sl->wave = r->ctas_launched / r->M;
    sl->cta = r->ctas_launched;
    r->ctas_launched++;
    pc_simdev_queue_push(r->queue, draw_start(r, t), s);
  }
}

/* Resume after a checkpoint's release (the slot's event at release time). */
static void on_resume(scan_run *r, uint32_t s, double now)
{
  r->slots[s].at_checkpoint = 0;
  loop_top(r, s, now, now);
}

/* Slot s waits for block j's data: start its work if it is all there. */
static void resume_if_ready(scan_run *r, uint32_t s)
{
  simdev_slot *sl = &r->slots[s];
  double arr = data_at(r, s);
  if (arr < 0.0)
    return;
  sl->waiting = 0;
  begin_work(r, s, arr > sl->wait_from ? arr : sl->wait_from);
}

static void on_ready(scan_run *r, uint32_t req, double now)
{
  uint32_t s = req / r->R, idx = req % r->R;
  simdev_slot *sl = &r->slots[s];
  double arr = pc_simdev_mem_transfer(r->mem, sl->sm, now) + r->tma_latency_ns;
  r->ring_arrival[(size_t)s * r->R + idx] = arr;
  if (sl->waiting && sl->j % r->R == idx)
    resume_if_ready(r, s);
}

/* Slot s's query tile reached L2: over the link, then block 0 may start. */
static void on_query_ready(scan_run *r, uint32_t s, double now)
{
  simdev_slot *sl = &r->slots[s];
  sl->q_arrival = pc_simdev_mem_transfer(r->mem, sl->sm, now) + r->tma_latency_ns;
  if (sl->waiting && sl->j == 0)
    resume_if_ready(r, s);
}

static int cmp_u64(const void *a, const void *b)
{
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return (x > y) - (x < y);
}

/* Phase snapshot at time t: positions j of running CTAs on the ring of N
 * blocks; clusters are maximal runs joined by cyclic gaps <= CLUSTER_GAP;
 * the within-wave lead of the oldest running wave. */
static void snapshot(scan_run *r, double t, uint64_t *pos, pascal_simdev_snapshot *out)
{
  uint32_t n = 0;
  uint64_t lo = UINT64_MAX, hi = 0, oldest = UINT64_MAX;
  for (uint32_t s = 0; s < r->M; s++) {
    const simdev_slot *sl = &r->slots[s];
    if (!sl->active)
      continue;
    pos[n++] = sl->j;
    if (sl->progress < lo)
      lo = sl->progress;
    if (sl->progress > hi)
      hi = sl->progress;
    if (sl->wave < oldest)
      oldest = sl->wave;
  }
  uint32_t wlo = UINT32_MAX, whi = 0;
  for (uint32_t s = 0; s < r->M; s++) {
    const simdev_slot *sl = &r->slots[s];
    if (!sl->active || sl->wave != oldest)
      continue;
    if (sl->j < wlo)
      wlo = sl->j;
    if (sl->j > whi)
      whi = sl->j;
  }
  out->t_ns = t;
  out->active = n;
  out->clusters = 0;
  out->spread_blocks = n ? hi - lo : 0;
  out->gap_law_K = 0.0;
  out->wave = n ? oldest : 0;
  out->wave_lead_blocks = n ? whi - wlo : 0;
  if (n == 0)
    return;
  qsort(pos, n, sizeof *pos, cmp_u64);
  uint32_t big = 0;
  for (uint32_t i = 0; i < n; i++) {
    uint64_t gap = i + 1 < n ? pos[i + 1] - pos[i] : pos[0] + r->N - pos[n - 1];
    if (gap > PASCAL_SIMDEV_CLUSTER_GAP)
      big++;
  }
  out->clusters = big ? big : 1;
  pascal_static_result gl;
  if (r->N > r->capacity &&
      pascal_static_analyze(r->N, r->capacity, pos, n, &gl, NULL) == PASCAL_OK)
    out->gap_law_K = (double)gl.k_ttl;
}

static pascal_status scan_buffers(pascal_simdev *dev, uint32_t M, uint32_t R, pascal_error *err)
{
  pascal_status st =
      pc_simdev_grow((void **)&dev->slots, &dev->slots_cap, M, sizeof(simdev_slot), "slots", err);
  if (st != PASCAL_OK)
    return st;
  st = pc_simdev_grow((void **)&dev->ring_arrival, &dev->ring_cap, (size_t)M * R, sizeof(double),
                      "ring", err);
  if (st != PASCAL_OK)
    return st;
  st = pc_simdev_grow((void **)&dev->ring_foreign, &dev->foreign_cap, (size_t)M * R,
                      sizeof(uint8_t), "ring", err);
  if (st != PASCAL_OK)
    return st;
  st = pc_simdev_grow((void **)&dev->scratch, &dev->scratch_cap, M, sizeof(uint64_t), "slots", err);
  if (st != PASCAL_OK)
    return st;
  if (pc_simdev_queue_reserve(&dev->queue, (size_t)M * (R + 2)) != PASCAL_OK)
    return pascal_error_set(err, PASCAL_ENOMEM, "slots", "cannot allocate the event queue");
  return PASCAL_OK;
}

pascal_status pc_simdev_scan_engine(pascal_simdev *dev, const pc_scan_cfg *cfg,
                                    pascal_simdev_stats *out, pascal_simdev_snapshots *snaps,
                                    pascal_error *err)
{
  const pascal_simdev_profile *p = &dev->profile;
  scan_run r;
  memset(&r, 0, sizeof r);
  r.cfg = cfg;
  r.M = p->sm_count * cfg->o;
  r.N = cfg->N;
  r.tma = cfg->tma;
  r.np = r.tma ? cfg->d - 1 + p->priming_extra : 0;
  r.R = r.np + 1;
  r.rng.s = cfg->seed;
  pascal_status st = scan_buffers(dev, r.M, r.R, err);
  if (st != PASCAL_OK)
    return st;
  st = pc_simdev_mem_prepare(dev, cfg->lines, cfg->capacity, cfg->line_bytes, &r.rng, err);
  if (st != PASCAL_OK)
    return st;
  /* the snapshots' gap law reads the cache as C lines */
  r.capacity = cfg->capacity
                   ? cfg->capacity
                   : (uint32_t)((uint64_t)p->capacity_blocks * p->block_bytes / cfg->line_bytes);
  if (!r.tma) /* the sync path loads a block in sync_rounds dependent rounds */
    dev->mem.rounds = (double)p->sync_rounds;
  r.mem = &dev->mem;
  r.queue = &dev->queue;
  r.slots = dev->slots;
  r.ring_arrival = dev->ring_arrival;
  r.ring_foreign = dev->ring_foreign;
  r.skew_shared = p->skew_shared && p->clock_skew_groups > 1;
  r.issue_ns = r.tma ? p->tma_issue_ns : p->sync_issue_ns;
  r.tma_latency_ns = r.tma ? p->tma_latency_ns : 0.0;
  r.work_ns = cfg->work_ns;
  r.jitter = p->service_jitter;
  r.launch_ns = p->launch_ns;
  r.start_jitter_ns = p->start_jitter_ns;
  r.dispatch_ns = p->dispatch_ns;
  r.barrier_ns = p->grid_barrier_ns;
  r.checkpoint = cfg->checkpoint_blocks;
  r.noise_sd = p->work_noise;
  r.noise_phi = exp(-1.0 / p->work_noise_blocks);
  r.noise_innov = p->work_noise * sqrt(1.0 - r.noise_phi * r.noise_phi);
  pc_simdev_draw_clocks(dev, &r.rng);
  r.sm_clock = dev->sm_clock;
  r.sm_skew = dev->sm_skew;
  /* the skew scales the compute loop and clock_skew_consume of the rest */
  r.skew_weight = r.work_ns > 0.0 ? p->clock_skew_consume +
                                        (1.0 - p->clock_skew_consume) * cfg->loop_ns / r.work_ns
                                  : 1.0;
  for (uint32_t i = 0; i < p->sm_count; i++)
    dev->exec_free[i] = 0.0;
  r.exec_free = dev->exec_free;
  r.shared_frac = r.work_ns > 0.0 ? p->exec_shared * (r.work_ns - p->cta_sync_ns) / r.work_ns : 0.0;
  r.ctas_total = cfg->ctas;
  uint32_t first = cfg->ctas < r.M ? (uint32_t)cfg->ctas : r.M; /* a launch may not fill a wave */
  r.ctas_launched = first;
  /* the first wave is dispatched in a per-run random order of the slots */
  uint64_t *order = dev->scratch;
  for (uint32_t s = 0; s < r.M; s++) {
    memset(&r.slots[s], 0, sizeof r.slots[s]);
    r.slots[s].sm = s % p->sm_count;
    r.slots[s].cta = s;
    order[s] = s;
  }
  for (uint32_t i = r.M; i > 1; i--) {
    uint32_t k = (uint32_t)(pc_simdev_rng_unit(&r.rng) * i), last = i - 1;
    uint64_t tmp = order[k];
    order[k] = order[last];
    order[last] = tmp;
  }
  for (uint32_t i = 0; i < r.M; i++)
    if (order[i] < first)
      pc_simdev_queue_push(r.queue, draw_start(&r, 0.0), (uint32_t)order[i]);
  if (snaps)
    snaps->count = 0;
  double next_snap = snaps ? snaps->interval_ns : INFINITY;
  uint32_t queries = r.M + r.M * r.R; /* event ids of the query tiles' reads */
  simdev_event e;
  while (pc_simdev_queue_pop(r.queue, &e)) {
    while (e.t > next_snap) {
      if (snaps->count < snaps->capacity) {
        snapshot(&r, next_snap, dev->scratch, &snaps->items[snaps->count++]);
        next_snap += snaps->interval_ns;
      } else {
        next_snap = INFINITY;
      }
    }
    if (e.id >= queries)
      on_query_ready(&r, e.id - queries, e.t);
    else if (e.id >= r.M)
      on_ready(&r, e.id - r.M, e.t);
    else if (!r.slots[e.id].active)
      on_start(&r, e.id, e.t);
    else if (r.slots[e.id].at_checkpoint)
      on_resume(&r, e.id, e.t);
    else
      on_block_done(&r, e.id, e.t);
  }
  pc_simdev_mem_stats(r.mem, cfg->line_bytes, r.end_ns, (double)cfg->ctas / r.M * (double)cfg->N,
                      r.M, out);
  return PASCAL_OK;
}

pascal_status pascal_simdev_run_scan(pascal_simdev *dev, const pascal_simdev_scan *scan,
                                     pascal_simdev_stats *out, pascal_simdev_snapshots *snaps,
                                     pascal_error *err)
{
  if (!dev || !scan || !out)
    return pascal_error_set(err, PASCAL_EINVAL, "scan", "device, scan and out must be given");
  pascal_status st = scan_check(dev, scan, err);
  if (st != PASCAL_OK)
    return st;
  if (snaps && (!(snaps->interval_ns > 0.0) || !isfinite(snaps->interval_ns) ||
                (snaps->capacity > 0 && !snaps->items)))
    return pascal_error_set(err, PASCAL_EINVAL, "snapshots",
                            "snapshots need interval_ns > 0 and items for their capacity");
  const pascal_simdev_profile *p = &dev->profile;
  uint64_t key =
      pc_simdev_seed_mix(pc_simdev_seed_mix(pc_simdev_seed_mix(scan->o, (uint64_t)scan->path_tma),
                                            ((uint64_t)scan->d << 32) | scan->m),
                         pc_simdev_seed_mix(scan->N, scan->W));
  pc_scan_cfg cfg = {.o = scan->o,
                     .tma = scan->path_tma,
                     .d = scan->d,
                     .N = (uint32_t)scan->N,
                     .ctas = scan->W * p->sm_count * scan->o,
                     .lines = (uint32_t)scan->N,
                     .line_bytes = p->block_bytes,
                     .work_ns = p->consume_ns + pc_simdev_compute_ns(p, scan->m) + p->cta_sync_ns +
                                (scan->m > 0 ? p->mma_setup_ns : 0.0),
                     .loop_ns =
                         pc_simdev_compute_ns(p, scan->m) + (scan->m > 0 ? p->mma_setup_ns : 0.0),
                     .checkpoint_blocks = scan->checkpoint_blocks,
                     .seed = pc_simdev_seed_mix(pc_simdev_seed_mix(p->seed, key), scan->seed)};
  return pc_simdev_scan_engine(dev, &cfg, out, snaps, err);
}
