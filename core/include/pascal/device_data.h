/*
 * pascal/device_data.h - what a device's probe measured besides its
 * constants, kept with the device so that bundles can show it (docs/plots.md):
 *
 *  capacity probe   the capacity scan of the paper ("PASCAL: A Progress
 *                   Divergence-Aware Shared-Cache Model", section 5.1, Figure
 *                   `capacity`): fill bytes of a synchronous one-CTA-per-SM
 *                   open scan of `waves` waves over n blocks, divided by the
 *                   scanned bytes n b, for increasing n. The ratio stays near
 *                   one while the data fits and rises toward `waves` past the
 *                   effective capacity; the device's capacity_blocks is the C
 *                   chosen from it.
 *  static table     the static cluster experiment (section 5.2, Table
 *                   "static"; pascal/cluster_exp.h): per block size and
 *                   cluster count, the measured K (fills per round) and what
 *                   the gap law, exact SDCM and Che expect.
 *
 * Plain data with fixed bounds (no allocation), so a pascal_device stays a
 * value. The checks name the offending field relative to the object
 * ("fill_ratio[3]", "rows[2].K").
 */
#ifndef PASCAL_DEVICE_DATA_H
#define PASCAL_DEVICE_DATA_H

#include <stddef.h>
#include <stdint.h>

#include "pascal/error.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PASCAL_CAPACITY_PROBE_MAX 64 /* sizes in one capacity scan   */
#define PASCAL_STATIC_ROWS_MAX    64 /* rows of one static table     */

typedef struct pascal_capacity_probe {
  uint32_t waves;                                  /* W of the scan, >= 1    */
  size_t n;                                        /* 2..MAX sizes           */
  uint64_t size_blocks[PASCAL_CAPACITY_PROBE_MAX]; /* strictly increasing, >= 1 */
  double fill_ratio[PASCAL_CAPACITY_PROBE_MAX];    /* fill / scanned bytes, finite, >= 0 */
} pascal_capacity_probe;

/* PASCAL_EINVAL naming "waves", "size_blocks", "size_blocks[i]" or
 * "fill_ratio[i]" unless the probe is as documented above. */
pascal_status pascal_capacity_probe_check(const pascal_capacity_probe *p, pascal_error *err);

/* The sizes of the scan the probes run: n sizes from a quarter to one and a
 * half times the nominal L2 (l2_blocks, >= 8 blocks), evenly spaced. */
#define PASCAL_CAPACITY_SCAN_SIZES 15u
#define PASCAL_CAPACITY_SCAN_WAVES 4u
pascal_status pascal_capacity_scan_sizes(uint64_t l2_blocks,
                                         uint64_t out[PASCAL_CAPACITY_SCAN_SIZES],
                                         pascal_error *err);

typedef struct pascal_static_row {
  uint32_t block_bytes;      /* bytes per block of this row, >= 1           */
  uint32_t C;                /* capacity in blocks of block_bytes, 1 <= C < N */
  uint32_t clusters;         /* phase clusters c, 1 <= c <= M               */
  double K;                  /* measured fills per round, finite, >= 0      */
  double gap_law, sdcm, che; /* expected fills per round, finite, >= 0 */
} pascal_static_row;

typedef struct pascal_static_table {
  uint32_t M;    /* workers (one per SM), >= 1 */
  uint32_t N;    /* blocks per scan, >= 2      */
  uint64_t H;    /* rounds per run, >= 1       */
  size_t n_rows; /* 1..MAX                   */
  pascal_static_row rows[PASCAL_STATIC_ROWS_MAX];
} pascal_static_table;

/* PASCAL_EINVAL naming "M", "N", "H", "rows" or "rows[i].FIELD" unless the
 * table is as documented above. */
pascal_status pascal_static_table_check(const pascal_static_table *t, pascal_error *err);

#ifdef __cplusplus
}
#endif
#endif
