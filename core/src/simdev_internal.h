/*
 * simdev_internal.h - private pieces of the sim device (core/src/simdev*.c):
 * the per-run PRNG, the event queue, the LRU cache with fill timestamps
 * (request merging), the memory path (DRAM server + per-SM links) and the
 * device struct that owns their buffers. Not installed; see pascal/simdev.h.
 */
#ifndef PASCAL_SIMDEV_INTERNAL_H
#define PASCAL_SIMDEV_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "pascal/grow.h"
#include "pascal/simdev.h"

/* ---- PRNG: splitmix64, one state per run (no global state) ---- */

typedef struct simdev_rng {
  uint64_t s;
} simdev_rng;

static inline uint64_t pc_simdev_rng_next(simdev_rng *r)
{
  uint64_t z = (r->s += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

/* Uniform in [0, 1). */
static inline double pc_simdev_rng_unit(simdev_rng *r)
{
  return (double)(pc_simdev_rng_next(r) >> 11) * 0x1.0p-53;
}

/* A service time `base` scaled by a uniform factor in [1 - j, 1 + j). */
static inline double pc_simdev_rng_jitter(simdev_rng *r, double base, double j)
{
  return base * (1.0 + j * (2.0 * pc_simdev_rng_unit(r) - 1.0));
}

/* simdev_rng.c: */

/* With probability `prob`, an exponential delay of mean `mean_ns` (else 0):
 * the tail of a service time. */
double pc_simdev_rng_tail(simdev_rng *r, double prob, double mean_ns);

/* Mix a value into a seed (one splitmix64 step of the xor). */
uint64_t pc_simdev_seed_mix(uint64_t seed, uint64_t value);

/* ---- event queue (simdev_queue.c): events in (t, seq) order; seq makes
 * ties FIFO and the whole run deterministic ---- */

typedef struct simdev_event {
  double t;     /* >= 0 always (the queue compares its bits)  */
  uint32_t seq; /* wraps after 2^32 pushes: order stays total, so runs stay
                   deterministic; FIFO among exact ties is what it serves */
  uint32_t id;  /* meaning chosen by the engine that pushed it */
} simdev_event;

#define QUEUE_SLOTS 4096u /* buckets on the timing wheel (a power of two) */

typedef struct simdev_queue {
  size_t cap;              /* room for events (on the wheel + far) */
  uint32_t next_seq;       /* seq of the next push */
  uint32_t on_wheel;       /* events on the wheel */
  uint64_t base;           /* the current bucket: floor(t / width) */
  double width, inv_width; /* bucket width in ns and its inverse */
  double epoch_start;      /* time of the pop that began this epoch */
  uint32_t epoch_pops;     /* pops since then */
  uint32_t free_node;      /* free list through node_next */
  simdev_event *nodes;     /* cap wheel entries */
  uint32_t *node_next;     /* cap list links (NIL-terminated) */
  simdev_event *far;       /* cap: 4-ary min-heap of the events beyond the wheel */
  size_t far_len;
  simdev_event *spill;             /* cap: scratch for a rebuild */
  uint32_t head[QUEUE_SLOTS];      /* per bucket: its list's first node */
  uint32_t tail[QUEUE_SLOTS];      /* and its last (valid while head is not NIL) */
  uint64_t used[QUEUE_SLOTS / 64]; /* per bucket: 1 when its list is non-empty */
} simdev_queue;

/* Make room for `cap` events (keeps the contents' memory, empties it). */
pascal_status pc_simdev_queue_reserve(simdev_queue *q, size_t cap);
void pc_simdev_queue_free(simdev_queue *q);
/* Push; the caller reserved enough room (asserted by the engines' bounds). */
void pc_simdev_queue_push(simdev_queue *q, double t, uint32_t id);
/* Pop the earliest event into *out; returns 0 when empty. */
int pc_simdev_queue_pop(simdev_queue *q, simdev_event *out);

/* ---- the L2 array (simdev_cache.c): P partitions x S sets x A ways over
 * blocks 0..n-1, LRU within a set, with per-line fill-ready time ----
 * Invariant: the lines in a set's list are exactly that set's resident
 * lines of that partition, MRU first, count <= ways. A line is allocated
 * when its miss is looked up; its fill_ready is the time its data lands.
 * A request for a resident line that arrives before fill_ready is a merge
 * and waits for the fill. P = S = 1 with A = C is the fully associative LRU
 * of C lines. */

typedef struct simdev_line {
  uint32_t prev, next; /* list links; prev == SIMDEV_NONE: not resident */
  uint32_t origin;     /* skew group of the SM whose request filled it from
                          DRAM (a near copy keeps its home line's)      */
  double fill_ready;
} simdev_line;

#define SIMDEV_NONE UINT32_MAX

typedef struct simdev_cache {
  simdev_line *lines; /* parts x (n + sets): partition q's line b at
                         q (n + sets) + b, its set sentinels after its n lines */
  uint32_t *count;    /* parts x sets: resident lines per set */
  uint32_t *set_of;   /* n: each block's set (when sets > 1) */
  size_t lines_cap, count_cap, set_cap;
  uint32_t n, parts, sets, ways;
} simdev_cache;

/* Empty cache of `parts` x `sets` x `ways` lines over blocks 0..n-1
 * (buffers kept from run to run). PASCAL_ENOMEM when they cannot grow. */
pascal_status pc_simdev_cache_reset(simdev_cache *c, uint32_t n, uint32_t parts, uint32_t sets,
                                    uint32_t ways);
void pc_simdev_cache_free(simdev_cache *c);
/* Hashed set index of block b (0 with one set) and its home partition. */
uint32_t pc_simdev_cache_set(const simdev_cache *c, uint32_t b);
uint32_t pc_simdev_cache_home(const simdev_cache *c, uint32_t b);
/* Partition q's line for b made MRU of its set, or NULL if not resident. */
simdev_line *pc_simdev_cache_touch(simdev_cache *c, uint32_t q, uint32_t b);
/* Make absent b resident in partition q as MRU of its set, evicting the
 * set's LRU line (even if in flight) when the set is full. */
simdev_line *pc_simdev_cache_insert(simdev_cache *c, uint32_t q, uint32_t b);
/* The invariant above, checked by walking every list (tests, asserts). */
int pc_simdev_cache_consistent(const simdev_cache *c);

typedef enum simdev_outcome { SIMDEV_HIT = 0, SIMDEV_MERGE, SIMDEV_FILL } simdev_outcome;

/* ---- memory path (simdev_mem.c): the L2 array, its partitions' far hop,
 * one DRAM FIFO server, an optional shared L2 data server, per-SM
 * L2 -> SM link FIFOs ---- */

typedef struct simdev_mem {
  simdev_cache cache;
  uint32_t sm_count;                     /* SM s sits next to partition
                                            s * parts / sm_count           */
  uint32_t groups;                       /* skew groups: SM s is in group
                                            s * groups / sm_count          */
  double hop_ns;                         /* SM -> L2 request latency                 */
  double far_ns;                         /* near -> home partition, each way         */
  double dram_block_ns;                  /* DRAM service time per line               */
  double dram_latency_ns;                /* added after service                      */
  double l2_line_ns;                     /* shared L2 data server per line; 0: none  */
  double rounds;                         /* dependent rounds per request: hop, far
                                            hop and DRAM latency are paid this many
                                            times (1 after prepare)                  */
  double jitter;                         /* relative service jitter                  */
  double dram_tail_prob, dram_tail_ns;   /* fill latency tail           */
  double link_stall_prob, link_stall_ns; /* link transfer stalls        */
  double dram_free;                      /* DRAM server busy until                   */
  double l2_free;                        /* shared L2 data server busy until         */
  double *link_free;                     /* per SM: link busy until (sm_count)       */
  double *link_block_ns;                 /* per SM: transfer time per block, fixed by
                                            the profile and its seed (sm_count)      */
  double *link_run_ns;                   /* per SM: this run's transfer time per line:
                                            link_block_ns times a per-run factor     */
  uint64_t requests, hits, merges, fills;
  simdev_rng *rng;
} simdev_mem;

/* SM `sm` looks line `b` up at issue time `t`: at t + hop_ns in the
 * partition next to it; a line homed in the other partition that is not
 * there is copied from its home partition (far_ns each way), which fills
 * it from DRAM if it lacks it too. Issue times must be non-decreasing
 * across calls, so lookups and the DRAM FIFO see requests in arrival order.
 * Returns the outcome (a fill: this request read DRAM; a merge: it waited
 * for an outstanding fill; a hit: neither) and writes the time the data is
 * ready at the SM's partition and, if `origin` is given, the skew group
 * whose request filled the line it read. Counts the request. */
simdev_outcome pc_simdev_mem_lookup(simdev_mem *mm, uint32_t sm, uint32_t b, double t,
                                    double *ready, uint32_t *origin);

/* Write line `b` into its home partition at issue time `t` (same ordering
 * rule as lookups): it becomes resident and MRU without a DRAM read (a
 * full-line write allocates), evicting like a miss; its write-back occupies
 * the DRAM server for one service. Not a request: the counts do not change. */
void pc_simdev_mem_write(simdev_mem *mm, uint32_t b, double t);

/* Move one line from L2 to SM `sm`, data ready at `ready`: through the
 * shared L2 data server (if any), then over the SM's link. Calls must come
 * in non-decreasing `ready` order. Returns arrival at the SM. */
double pc_simdev_mem_transfer(simdev_mem *mm, uint32_t sm, double ready);

/* The run's stats from the memory path's counts: fill_bytes = fills *
 * block_bytes, K = fills / k_per (W*N for a scan, H for a static run). */
void pc_simdev_mem_stats(const simdev_mem *mm, uint32_t block_bytes, double kernel_ns, double k_per,
                         uint32_t M, pascal_simdev_stats *out);

/* ---- the device ---- */

typedef struct simdev_slot simdev_slot; /* scan engine's per-slot state */
typedef struct gemm_slot gemm_slot;     /* GEMM engine's per-slot state */

struct pascal_simdev {
  pascal_simdev_profile profile;
  simdev_mem mem;
  simdev_queue queue;
  /* scan engine buffers, grown on demand */
  simdev_slot *slots;
  size_t slots_cap;
  double *ring_arrival;
  size_t ring_cap;
  uint8_t *ring_foreign; /* per ring entry: another skew group filled its line */
  size_t foreign_cap;
  uint64_t *scratch; /* snapshot positions; first-wave dispatch order */
  size_t scratch_cap;
  double *sm_skew;       /* per SM: the chip's fixed work factor (sm_count) */
  double *sm_clock;      /* per SM: this run's work factor (sm_count) */
  double *exec_free;     /* per SM: execution pipes busy until (sm_count) */
  gemm_slot *gemm_slots; /* GEMM engine: one per resident CTA */
  size_t gemm_slots_cap;
};

/* Prepare dev->mem for a run over n lines of `line_bytes` each (a scan
 * block is the profile's block_bytes, a GEMM tile its own size: DRAM, L2 and
 * link times scale with it): an empty cache, idle servers, zero counts, the
 * run's rng, and this run's per-SM link speeds (the chip's, each scaled by
 * a factor drawn from the run's rng: uniform in +-sm_read_run_spread).
 * capacity > 0: one fully associative LRU of that many lines (the theory's
 * cache); 0: the profile's L2 (its partitions, sets and ways, or its
 * fully associative capacity_blocks), in lines of line_bytes. Errors name
 * `C` when the cache would hold no line or too many. */
pascal_status pc_simdev_mem_prepare(pascal_simdev *dev, uint32_t n, uint32_t capacity,
                                    uint32_t line_bytes, simdev_rng *rng, pascal_error *err);

/* The skew group of SM `sm` among `groups` (0 for 0 or 1 group): SMs in
 * order, equal shares, as the chip's halves sit next to its partitions. */
static inline uint32_t pc_simdev_group_of(uint32_t sm, uint32_t groups, uint32_t sm_count)
{
  return (uint32_t)((uint64_t)sm * groups / sm_count);
}

/* compute(m): full groups of four at compute_ns per unit plus the loop tail
 * of execution class chi(m) = min(m mod 4, 2) (paper App. C: remainders two
 * and three run the same tail). */
static inline double pc_simdev_compute_ns(const pascal_simdev_profile *p, uint32_t m)
{
  uint32_t r = m % 4u;
  uint32_t cls = r < 2u ? r : 2u;
  return p->compute_ns * (double)(m - r) + p->tail_ns[cls];
}

/* The compute of one tile step of m matrix instructions (a tiled GEMM's
 * k-step, an attention launch's K/V step). Such a CTA's warps issue
 * independent MMAs, so the SM's tensor pipe runs at its throughput,
 * tensor_pipe_ns per instruction; a profile that states none
 * charges the scan's dependent chain (pc_simdev_compute_ns), the rate the
 * paper's GB10 anchors set. */
static inline double pc_simdev_tile_compute_ns(const pascal_simdev_profile *p, uint32_t m)
{
  return p->tensor_pipe_ns > 0.0 ? p->tensor_pipe_ns * (double)m : pc_simdev_compute_ns(p, m);
}

/* simdev.c: draw this run's per-SM work factors into dev->sm_clock: the
 * chip's fixed skew times a factor uniform in +-sm_clock_spread from rng. */
void pc_simdev_draw_clocks(pascal_simdev *dev, simdev_rng *rng);

/* ---- the scan engine (simdev_scan.c) ---- */

/* What a run of the scan engine streams: a scan's W M CTAs over blocks
 * 0..N-1 (pascal_simdev_run_scan), or an attention launch's CTAs over their
 * heads' K/V steps with a query tile and an output tile each
 * (simdev_attention.c). */
typedef struct pc_scan_cfg {
  uint32_t o, d;
  int tma;
  uint32_t N;          /* blocks per stream                           */
  uint64_t ctas;       /* CTAs in all (a scan: W M), >= 1             */
  uint32_t lines;      /* cache lines the run names (all ids < lines)  */
  uint32_t line_bytes; /* bytes per line: DRAM and link times scale    */
  uint32_t capacity;   /* 0: the profile's L2 (pc_simdev_mem_prepare)  */
  double work_ns;      /* per block, before clock, noise and jitter    */
  double loop_ns;      /* its compute loop's part (mma_setup + compute) */
  uint32_t checkpoint_blocks;
  uint64_t seed; /* the run's rng seed                           */
  /* attention (tiles = 1): CTA c is tile c mod tiles_per_head of head
   * c / tiles_per_head, whose K/V head (c / tiles_per_head) / heads_per_kv
   * has lines [that * N, that * N + N); query tile line q_first + c,
   * output tile line o_first + c; causal: the steps up to its last row */
  int tiles, causal;
  uint64_t tiles_per_head;
  uint32_t heads_per_kv, block_q, block_kv, q_first, o_first;
} pc_scan_cfg;

/* Run the engine; out as pascal_simdev_run_scan's, with K = fills /
 * (ctas / M * N). */
pascal_status pc_simdev_scan_engine(pascal_simdev *dev, const pc_scan_cfg *cfg,
                                    pascal_simdev_stats *out, pascal_simdev_snapshots *snaps,
                                    pascal_error *err);

/* simdev.c: grow *buf (elements of `elem` bytes) to hold `need`; *cap tracks
 * it. The device keeps the per-run buffers and reuses them from run to run. */
pascal_status pc_simdev_grow(void **buf, size_t *cap, size_t need, size_t elem, const char *what,
                             pascal_error *err);

#endif
