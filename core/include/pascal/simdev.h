/*
 * pascal/simdev.h - the CPU "sim" device: a deterministic, seeded
 * discrete-event model of a GPU running the paper's scan kernels, so that the
 * whole calibration loop runs (and is tested) without a GPU.
 *
 * What is modelled (paper §3.5-3.6, §5.3, Algorithm 2 "dynamic-kernel" and
 * Algorithm "static-kernel"; docs/sim-device.md has the full account):
 *   - M = sm_count * o workers (CTA slots). A scan launches W * M CTAs in
 *     waves: each CTA scans blocks 0..N-1 once; a slot starts its next CTA
 *     when its current one finishes.
 *   - Each CTA runs Algorithm 2: sync path = load block j, wait, consume,
 *     compute; TMA path = d buffers, priming count n_p (d-1 or d, a profile
 *     parameter), then per block: wait, consume, compute m, intra-CTA sync,
 *     issue block j + n_p.
 *   - A shared L2: one fully associative LRU cache of C blocks, or one
 *     split into partitions of hashed sets of a few ways each (LRU in a
 *     set; a line homed in the far partition is copied from it). A line is
 *     allocated when its miss is looked up; a request for a resident line
 *     whose fill is still outstanding waits for that fill and counts as a
 *     merge (MSHR-like), not as a fill.
 *   - A FIFO DRAM server with finite bandwidth (service time per block) and a
 *     base latency; optionally the L2's own data rate shared by all SMs;
 *     per-SM L2->SM links with finite bandwidth (the read reference) whose
 *     speed differs slightly between SMs; per-block consume cost; compute
 *     cost per unit m with an execution-class tail (chi(m) = min(m mod 4, 2),
 *     paper App. C) and a fixed cost when the loop runs; work the CTAs of
 *     one SM share or overlap; a sync path that loads a block in dependent
 *     rounds; start-time and service jitter.
 *   - Variation that lasts a run and is redrawn per repeat: per-SM link and
 *     clock factors, autocorrelated per-CTA work noise, link stalls and a
 *     DRAM latency tail, a CTA dispatcher with a random first-wave order;
 *     a fixed work skew between groups of SMs (a property of the chip);
 *     an optional within-wave checkpoint (paper §3.6's experiment).
 *   - Static kernel: M workers with given phases, synchronous loads, a grid
 *     barrier each round, H rounds. Its fills equal fully associative LRU on
 *     the round-by-round trace (worker order within a round).
 *   - Tiled GEMM (paper §4.5, App. C): one CTA per output tile, launched in
 *     a direct row-major raster onto M resident slots; each k-step reads an
 *     A tile and a B tile through the same cache (lines of one tile), DRAM
 *     and links.
 *
 * Nothing here encodes K: fills come out of the cache and timing dynamics.
 * All randomness comes from a per-run PRNG seeded from the profile seed, the
 * run's key and the caller's seed; no global state. Pure C11 + libm (the
 * profile loader uses stdio only to read the file).
 */
#ifndef PASCAL_SIMDEV_H
#define PASCAL_SIMDEV_H

#include <stddef.h>
#include <stdint.h>

#include "pascal/attention.h"
#include "pascal/calibration.h"
#include "pascal/error.h"
#include "pascal/gemm_config.h"
#include "pascal/latency.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PASCAL_SIMDEV_NAME_MAX    64
#define PASCAL_SIMDEV_ARCH_MAX    32
/* Merge rule of paper §5.3: workers whose positions are connected through
 * cyclic gaps of at most this many blocks form one phase cluster. */
#define PASCAL_SIMDEV_CLUSTER_GAP 32u

/* Device profile: every parameter of the model. Values are plain data; the
 * text format is `key = value` lines with `#` comments, one key per field
 * below (same names), see deploy/profiles/gb10-like.profile. */
typedef struct pascal_simdev_profile {
  char name[PASCAL_SIMDEV_NAME_MAX]; /* "gb10-like" */
  char arch[PASCAL_SIMDEV_ARCH_MAX]; /* reported to pascald, "sim" */
  uint32_t sm_count;                 /* SMs; M = sm_count * o        */
  uint32_t capacity_blocks;          /* C, effective L2 capacity (the
                                        device's registered C; also the
                                        cache's size when l2_ways = 0)  */
  uint32_t block_bytes;              /* bytes per logical block        */
  uint64_t l2_bytes;                 /* nominal L2 size (reported)     */
  uint64_t smem_per_sm;              /* shared memory per SM in bytes,
                                        reported for planning only (the
                                        occupancies `pascal plan` picks);
                                        0 = no limit                    */
  /* The identity a CUDA probe would report, as this profile states it for
   * registration with pascald: key `cuda_name` (printable ASCII, blanks
   * inside allowed, "" = not stated) and key `compute_capability` = M.m
   * (0.0 = not stated). */
  char cuda_name[PASCAL_SIMDEV_NAME_MAX];
  uint32_t cc_major, cc_minor;
  uint64_t seed;          /* base seed of every run         */
  uint32_t priming_extra; /* n_p = d - 1 + priming_extra; text
                             form `priming = d-1` (0) or `d` (1) */
  /* The L2 array (docs/sim-device.md, "Memory path"): l2_ways = 0 is one
   * fully associative LRU of capacity_blocks lines (l2_sets must then be 0
   * and l2_partitions 1); l2_ways = A > 0 is l2_partitions P partitions of
   * S sets of A ways (P S A lines of block_bytes), S = l2_sets, or
   * capacity_blocks / (P A) when l2_sets = 0; hashed set index, LRU within
   * a set; SM s is next to partition s P / sm_count, and a line homed in the
   * other partition is copied from there, l2_far_ns each way. */
  uint32_t l2_ways;       /* A, 0: fully associative                      */
  uint32_t l2_sets;       /* S per partition, 0: from capacity_blocks     */
  uint32_t l2_partitions; /* P                                            */
  double l2_far_ns;       /* near -> home partition latency, each way     */
  double l2_gbps;         /* the L2's own data rate shared by all SMs,
                             GB/s; 0: none (each SM's link only)          */
  double hop_ns;          /* SM -> L2 request latency incl. tag lookup    */
  double sm_read_gbps;    /* per-SM L2 -> SM link bandwidth, GB/s         */
  double sm_read_spread;  /* relative spread of per-SM link speed, [0,0.5) */
  double dram_gbps;       /* DRAM fill bandwidth, GB/s (FIFO server)      */
  double dram_latency_ns; /* DRAM base latency after service              */
  double consume_ns;      /* per-block consume cost                       */
  double compute_ns;      /* cost per unit of m in full groups of four    */
  double tensor_pipe_ns;  /* tiled GEMM and attention: one matrix
                             instruction at the SM's tensor-pipe
                             throughput, which a CTA's warps reach by
                             issuing independent MMAs; 0 = the scan's
                             dependent chain (compute_ns)                */
  double tail_ns[3];      /* loop-tail cost per execution class chi(m):
                             keys tail0_ns, tail1_ns, tail2_ns            */
  double mma_setup_ns;    /* scan: the compute loop's fixed cost per block
                             when m >= 1 (accumulator set-up, the wait for
                             the chain's result); not charged by the GEMM,
                             whose accumulators live across its k-steps   */
  double sync_issue_ns;   /* sync path: cooperative load issue per block  */
  uint32_t sync_rounds;   /* sync path: dependent rounds of per-thread loads
                             per block, each paying the hop and, on a miss,
                             the DRAM latency (1: one round trip)         */
  double tma_issue_ns;    /* TMA path: bulk-copy issue per block          */
  double tma_latency_ns;  /* TMA path: from a block's data crossing the
                             link to its barrier completing (0: none)   */
  double cta_sync_ns;     /* intra-CTA synchronisation per block          */
  double exec_shared;     /* scan: share of a block's consume + compute
                             that holds the SM's execution pipes, so that
                             CTAs on one SM take turns for it, [0, 1]
                             (1: throughput-bound work; 0: latency-bound
                             work the CTAs of an SM overlap fully)        */
  double grid_barrier_ns; /* static kernel: grid barrier per round        */
  double launch_ns;       /* CTA launch overhead when a slot frees        */
  double start_jitter_ns; /* CTA start delay, uniform in [0, this)        */
  double service_jitter;  /* relative service jitter, uniform in +-this, [0,1) */
  /* Variation that persists within a run and is redrawn for every run
   * (docs/sim-device.md, "Variation between runs"): */
  double sm_read_run_spread;  /* per-run factor on each SM's link speed,
                                 uniform in +-this, [0,0.5)               */
  double sm_clock_spread;     /* per-run factor on each SM's work (its
                                 effective clock), uniform in +-this, [0,0.5) */
  double clock_skew;          /* a fixed property of the chip: the SMs form
                                 clock_skew_groups groups (SM s in group
                                 s G / sm_count) whose work is scaled by
                                 factors evenly spaced from 1 - this to
                                 1 + this, [0, 0.5); 0: none             */
  uint32_t clock_skew_groups; /* G >= 1 (1: no skew)                      */
  double clock_skew_consume;  /* share of the work outside the compute loop
                                 (consume, intra-CTA sync) that the skew
                                 scales, [0, 1]; the loop it scales whole */
  uint32_t skew_shared;       /* 1: a group's skew factor scales only the
                                 blocks whose line another group's request
                                 brought into the L2 (the group reads data
                                 it shares with a group ahead of it); 0:
                                 every block (docs/sim-device.md)        */
  double work_noise;          /* sd of a CTA's autocorrelated relative work
                                 deviation (AR(1) over its blocks), [0,0.5] */
  double work_noise_blocks;   /* correlation length of that noise, blocks, >= 1 */
  double link_stall_prob;     /* a link transfer stalls with this probability */
  double link_stall_ns;       /* mean of the exponential stall               */
  double dram_tail_prob;      /* a fill's latency has a tail with this prob. */
  double dram_tail_ns;        /* mean of the exponential latency tail        */
  double dispatch_ns;         /* CTA dispatcher: one launch per this many ns */
  /* The peaks a microbenchmark would measure on this device, as the profile
   * states them for registration and bundles (keys peak_dram_bytes_per_s,
   * peak_l2_bytes_per_s, peak_tensor_flops, peak_sm_clock_hz, peak_launch_s;
   * all 0 = not stated; stating one rate means stating all four rates). */
  pascal_peaks peaks;
} pascal_simdev_profile;

/* Fill `out` with the built-in default profile (identical to the shipped
 * deploy/profiles/gb10-like.profile). */
void pascal_simdev_profile_default(pascal_simdev_profile *out);

/* 1 when the profile states its peaks (peaks.dram_bytes_per_s > 0). */
int pascal_simdev_profile_has_peaks(const pascal_simdev_profile *p);

/* Check every field's domain; err names the bad key. */
pascal_status pascal_simdev_profile_validate(const pascal_simdev_profile *p, pascal_error *err);

/* Parse profile text (`len` bytes, need not be NUL-terminated). Keys not
 * given keep their default values. Unknown keys, duplicate keys, malformed
 * lines and bad values are PASCAL_EFORMAT errors whose field is the key (or
 * "line N") and whose message names the line. The result is validated. */
pascal_status pascal_simdev_profile_parse(const char *text, size_t len, pascal_simdev_profile *out,
                                          pascal_error *err);

/* Read and parse a profile file (PASCAL_ENOTFOUND if it cannot be opened). */
pascal_status pascal_simdev_profile_load(const char *path, pascal_simdev_profile *out,
                                         pascal_error *err);

/* Opaque device: a validated profile plus buffers reused across runs.
 * Owned by the caller; one run at a time per device (not thread-safe; use
 * one device per thread). */
typedef struct pascal_simdev pascal_simdev;

pascal_status pascal_simdev_new(const pascal_simdev_profile *profile, pascal_simdev **out,
                                pascal_error *err);
void pascal_simdev_free(pascal_simdev *dev); /* NULL is fine */
/* The device's profile (owned by dev, valid until pascal_simdev_free). */
const pascal_simdev_profile *pascal_simdev_profile_of(const pascal_simdev *dev);

/* One open-scan run (Algorithm 2), the sim's answer to a calibration job. */
typedef struct pascal_simdev_scan {
  uint32_t o;                 /* resident CTAs per SM, >= 1                        */
  int path_tma;               /* 0: sync loads (d must be 0), 1: TMA (d >= 1)      */
  uint32_t d;                 /* prefetch depth (buffers)                          */
  uint32_t m;                 /* compute work per block                            */
  uint64_t N;                 /* blocks per scan, >= 1                             */
  uint64_t W;                 /* waves: W * M CTAs in all, >= 1                    */
  uint64_t seed;              /* mixed into the profile seed (the job's repeat)    */
  uint32_t checkpoint_blocks; /* 0: none; else the CTAs of a wave wait for
                                 each other every this many blocks (a
                                 within-wave checkpoint, grid_barrier_ns) */
} pascal_simdev_scan;

/* Whole-run counts. Invariant: requests == hits + merges + fills. */
typedef struct pascal_simdev_stats {
  uint64_t requests; /* block requests issued (W*M*N for a scan)        */
  uint64_t hits;     /* line resident and filled                        */
  uint64_t merges;   /* line resident, fill outstanding: waited for it  */
  uint64_t fills;    /* misses: DRAM -> L2 fills                        */
  double fill_bytes; /* fills * block_bytes                             */
  double kernel_ns;  /* simulated kernel time                           */
  double K;          /* fills / (W*N) (scan), fills / H (static),
                        M V / Q (GEMM)                                  */
  uint32_t M;        /* workers                                          */
} pascal_simdev_stats;

/* One phase snapshot of the running scan (paper §5.3). */
typedef struct pascal_simdev_snapshot {
  double t_ns;               /* simulated time of the snapshot              */
  uint32_t active;           /* CTAs running at that time                   */
  uint32_t clusters;         /* phase clusters, merge rule CLUSTER_GAP      */
  uint64_t spread_blocks;    /* max - min cumulative blocks consumed over
                                active slots (the progress spread sigma)    */
  double gap_law_K;          /* gap-law K_TTL of the running CTAs' positions
                                (Theorem ttl, pascal/static.h); 0 when no CTA
                                runs or N <= C                               */
  uint64_t wave;             /* oldest wave (CTA batch) with running CTAs   */
  uint64_t wave_lead_blocks; /* max - min block position j over that
                             wave's running CTAs (the within-wave lead)  */
} pascal_simdev_snapshot;

/* Optional snapshot request, caller-owned: the run records a snapshot every
 * interval_ns (from t = interval_ns on) into items[0..capacity) and sets
 * count (at most capacity; later snapshots are dropped). */
typedef struct pascal_simdev_snapshots {
  pascal_simdev_snapshot *items;
  size_t capacity;
  double interval_ns;
  size_t count; /* out */
} pascal_simdev_snapshots;

/* Run one open scan. `snaps` may be NULL. Deterministic: the same device
 * profile and scan (including seed) give the same stats bit for bit. */
pascal_status pascal_simdev_run_scan(pascal_simdev *dev, const pascal_simdev_scan *scan,
                                     pascal_simdev_stats *out, pascal_simdev_snapshots *snaps,
                                     pascal_error *err);

/* One static phase-controlled run (paper Algorithm "static-kernel"). */
typedef struct pascal_simdev_static {
  uint64_t N;             /* blocks in the ring, >= 2                     */
  uint32_t M;             /* workers, >= 1                                */
  const uint64_t *phases; /* M phases, each < N (borrowed)               */
  uint64_t H;             /* rounds, >= 1                                 */
  uint32_t C;             /* > 0: a fully associative LRU of C blocks (the
                             theory's cache); 0: the profile's L2          */
  uint64_t seed;          /* mixed into the profile seed                  */
} pascal_simdev_static;

/* Run the static kernel: round k, worker w (in index order) requests block
 * (k + phases[w]) mod N; a grid barrier ends each round. With C > 0 (or a
 * fully associative profile) fills equal the misses of fully associative
 * LRU (empty at start) on that trace; the timing (kernel_ns) uses the same
 * DRAM/link model as the scan. */
pascal_status pascal_simdev_run_static(pascal_simdev *dev, const pascal_simdev_static *run,
                                       pascal_simdev_stats *out, pascal_error *err);

/* One tiled GEMM run (paper §4.5 and App. C "GEMM instantiation"): the
 * n_r x n_c output tiles (Mg/tile_m, Ng/tile_n) are CTAs launched in the
 * raster order of tiling.group_m (0 or 1: row-major) onto M =
 * tiling.resident_ctas slots (slot s on SM s mod sm_count; the next CTA
 * takes the first slot to free). CTA (i, j) runs n_k = Kg/tile_k steps
 * through tiling.stages buffers (0: one): step k requests A tile (i, k) and B tile
 * (k, j), its work (2 consume + compute(m) + intra-CTA sync, the first two
 * on the SM's shared pipes) starts when both have crossed its SM's link
 * and step k-1's work has ended; after its last step it writes its output
 * tile (tile_m x tile_n x out_elem_bytes) into the cache, which evicts like
 * a miss but reads nothing. Lines are gcd(tile_m, tile_n) rows of a tile
 * (simdev_gemm.c). */
typedef struct pascal_simdev_gemm {
  pascal_gemm_shape shape;   /* Mg, Ng, Kg: multiples of the tile sizes    */
  pascal_gemm_params tiling; /* tile_m/n/k, elem_bytes, resident_ctas >= 1 */
  uint32_t m;                /* compute work per k-step, in 16x16x16 matrix
                                instructions (the scan's unit of m); the
                                tiling's own: pascal_simdev_gemm_step_m  */
  uint32_t out_elem_bytes;   /* bytes per output element a CTA writes into
                                the cache when it ends (FP32: 4); 0: none */
  uint32_t C;                /* > 0: a fully associative LRU of C lines;
                                0: the profile's L2 in lines of the run's
                                line bytes (fully associative:
                                capacity_blocks * block_bytes / line bytes
                                lines; set-associative: its sets scaled by
                                block_bytes / line bytes, its ways kept) */
  uint64_t seed;             /* mixed into the profile seed (the repeat)   */
} pascal_simdev_gemm;

/* Run one GEMM. out: requests = n_r n_c n_k (tile_m + tile_n) / u line
 * reads, fills in lines, fill_bytes = fills * line bytes (the measured V), kernel_ns, K = M V / Q
 * (Q = logical input bytes, pascal_gemm_geometry), M. Deterministic for a
 * given profile and run (including seed). Errors name the field ("Mg",
 * "tile_n", "C", ...). */
pascal_status pascal_simdev_run_gemm(pascal_simdev *dev, const pascal_simdev_gemm *run,
                                     pascal_simdev_stats *out, pascal_error *err);

/* The sim's run of a matmul kernel in configuration `c` (a Triton matmul,
 * pascal/gemm_config.h) on `shape`: its tiling with resident_ctas =
 * sm_count x the CTAs per SM the profile's shared memory and the
 * accumulators allow (one per SM when the profile states none), the
 * tiling's own compute per step, FP32 outputs, `seed`. PASCAL_EREFUSED
 * naming the field when the configuration does not fit
 * (pascal_gemm_ctas_per_sm); *out written on success only. */
pascal_status pascal_simdev_gemm_of_config(const pascal_simdev_profile *p,
                                           const pascal_gemm_shape *shape,
                                           const pascal_gemm_config *c, uint64_t seed,
                                           pascal_simdev_gemm *out, pascal_error *err);
/* One FlashAttention-2 forward launch (docs/attention.md, the paper's
 * exploratory attention section) on the scan engine: CTA c is query tile
 * c mod t of head c / t (t = ceil(seq_q / block_q) tiles per head),
 * launched in that order onto M = sm_count * o slots like a scan's CTAs
 * (the first wave in a per-run random order). A CTA reads its query tile
 * (one line of its own, a fill), then streams its heads' K/V steps 0 ..
 * n - 1 as the scan streams blocks (n = ceil(seq_kv / block_kv); causal:
 * the steps up to its tile's last row, top-left aligned) through `stages`
 * buffers: its first step's work waits for the query tile too. Per step:
 * 2 consume (the K and the V tile) + compute(m) + intra-CTA sync, m =
 * pascal_attention_m. At its end it writes its output tile (one line,
 * allocated without a read). The cache's line is one K/V step
 * (2 block_kv head_dim elem_bytes bytes): it holds capacity_blocks *
 * block_bytes / that many lines, and DRAM and link times scale with it; a
 * query or output tile takes one line too (for the default tiling half a
 * line's bytes: the sim overstates their footprint, and their DRAM and
 * link time, by that much). The kv_heads K/V heads are separate lines;
 * query head h reads K/V head h / (heads / kv_heads). */
typedef struct pascal_simdev_attention {
  pascal_attention_shape shape; /* every member but kv_heads (0: 1) and
                                   causal >= 1; block_q, block_kv and
                                   head_dim multiples of 16              */
  uint32_t o;                   /* resident CTAs per SM, >= 1           */
  uint64_t seed;                /* mixed into the profile seed          */
} pascal_simdev_attention;

/* Run one attention launch. out: requests (query tiles and K/V steps),
 * hits, merges, fills (query tiles included, every one a fill), fill_bytes
 * = K/V fills * step bytes + query fills * query tile bytes (what a fill
 * counter measures), kernel_ns, K = M * K/V fills / K/V requests (the
 * query-adjusted excess: fills / (W N) for a multi-query, non-causal
 * launch of W M CTAs), M. Errors name the field ("seq_q", "block_kv",
 * "kv_heads", "o", ...). Deterministic for a given profile and run. */
pascal_status pascal_simdev_run_attention(pascal_simdev *dev, const pascal_simdev_attention *run,
                                          pascal_simdev_stats *out, pascal_error *err);

/* The compute of one k-step of `tiling`: its 2 tile_m tile_n tile_k FLOPs
 * as 16x16x16 matrix instructions (PASCAL_SCAN_MMA_FLOPS each, the unit a
 * profile's compute_ns and tensor_pipe_ns are the cost of and its
 * peak_tensor_flops counts),
 * rounded up; 1000000 (the most a run takes) where it would be more; 0
 * for NULL. 128 x 128 x 64: 256. */
uint32_t pascal_simdev_gemm_step_m(const pascal_gemm_params *tiling);

#ifdef __cplusplus
}
#endif
#endif
