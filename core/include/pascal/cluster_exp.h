/*
 * pascal/cluster_exp.h - the static cluster experiment of the paper
 * ("PASCAL: A Progress Divergence-Aware Shared-Cache Model", section 5.2,
 * Table "static"): M workers (one per SM) in c clusters with equally spaced
 * phases over N blocks, fixed phases for many rounds, for 11 cluster counts
 * from 1 to M and several block sizes. This header holds the pure parts:
 * the cluster counts, the phases, and what each model expects for one row
 * (the gap law K_TTL of Theorem 1, exact fully associative SDCM, Che). The
 * measurement itself is a backend's (pascal-agent --static).
 */
#ifndef PASCAL_CLUSTER_EXP_H
#define PASCAL_CLUSTER_EXP_H

#include <stddef.h>
#include <stdint.h>

#include "pascal/error.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PASCAL_CLUSTER_COUNTS 11u
/* The scan length the experiment starts from (the paper's N). */
#define PASCAL_CLUSTER_N_MIN  8192u

/* The scan length N of the experiment for a device whose whole L2 holds
 * l2_bytes (0: unknown) and whose smallest block size is block_bytes:
 * PASCAL_CLUSTER_N_MIN, doubled until N block_bytes exceeds l2_bytes. Every
 * reuse of the experiment lies about N blocks back (the c clusters tile the
 * ring between two reads of a block), so a ring that fits in the physical
 * L2 can be held whole by a sharing pattern the effective C does not
 * describe (docs/results-h100.md: the H100's 4 KiB rows with 81 and 132
 * clusters, a 32 MiB ring in a 50 MiB L2). PASCAL_EINVAL naming
 * "block_bytes" when it is 0, PASCAL_ERANGE naming "l2_bytes" when N would
 * pass 2^31. */
pascal_status pascal_cluster_scan_blocks(uint64_t l2_bytes, uint32_t block_bytes, uint64_t *n,
                                         pascal_error *err);

/* Up to 11 distinct cluster counts from 1 to M, increasing, spread
 * geometrically (c_i = round(M^(i/10)), duplicates replaced by the next free
 * count), always including 1 and M; all of 1..M when M <= 11. *n receives the
 * number written. PASCAL_EINVAL (field "M") when M == 0. */
pascal_status pascal_cluster_counts(uint32_t m, uint32_t out[PASCAL_CLUSTER_COUNTS], size_t *n,
                                    pascal_error *err);

/* Worker w's phase: (w mod c) * floor(N / c), so c distinct phases, equally
 * spaced up to rounding. Needs 1 <= c <= m, c <= N (fields "c", "N"). */
pascal_status pascal_cluster_phases(uint64_t n, uint32_t m, uint32_t c, uint64_t *phases,
                                    pascal_error *err);

/* Steady-state misses per round the models expect for one configuration. */
typedef struct pascal_cluster_expect {
  double gap_law; /* K_TTL = K(T*), Theorem 1                 */
  double sdcm;    /* exact SDCM, fully associative (= LRU)    */
  double che;     /* Che: M (1 - C/N)                         */
} pascal_cluster_expect;

/* The three expectations for N blocks, capacity C (1 <= C < N), phases. */
pascal_status pascal_cluster_expectations(uint64_t n, uint64_t c, const uint64_t *phases,
                                          uint32_t m, pascal_cluster_expect *out,
                                          pascal_error *err);

#ifdef __cplusplus
}
#endif
#endif
