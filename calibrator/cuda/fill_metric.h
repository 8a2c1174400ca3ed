/*
 * fill_metric.h - which CUPTI counter measures DRAM->L2 fill bytes on a chip
 * (the V of paper Eq. dynamic_target), and why (docs/gpu.md "Metric choice").
 *
 *  - Chips whose CUPTI metric table has dram__bytes_read.sum (GH100 = H100 /
 *    H200, GB100 = B200): use it; lts__d_sectors_fill_device.sum x 32 is read
 *    alongside as a cross-check by the probe. L2 lookup-miss counts are not
 *    used: on two-partition L2s a near-partition miss may be served by the far
 *    partition, so they overcount DRAM fills.
 *  - Chips without it (GB20B = GB10, GB10B = Thor, GB20x): the L2 fill
 *    counters lts__d_sectors_fill_device.sum and lts__d_sectors_fill_sysmem.sum
 *    (32-byte sectors) are the candidates; which aperture an integrated chip's
 *    memory is filled through is decided empirically at open time: a cold read
 *    of S >> L2 bytes must report ~S, and the candidate that does is kept.
 * Internal to the cuda backend (C++).
 */
#ifndef PASCAL_CUDA_FILL_METRIC_H
#define PASCAL_CUDA_FILL_METRIC_H

#include <string>
#include <vector>

#include "pascal/error.h"

struct pcu_fill_metric {
  std::string name;
  double bytes_per_unit; /* 1 for byte metrics, 32 for sector counts */
};

struct pcu_fill_choice {
  bool empirical;                          /* false: dram rule, true: cold-read test */
  std::vector<pcu_fill_metric> candidates; /* dram rule: [0] is the metric */
  std::vector<pcu_fill_metric> checks;     /* read alongside by the probe */
};

/* Resolve the choice for `chip` from CUPTI's metric tables (offline when
 * availability is NULL). ENOTFOUND: chip unknown to CUPTI, or none of the
 * fill metrics exists on it (the message lists what was tried). */
pascal_status pcu_fill_choice_resolve(const std::string &chip, const uint8_t *availability,
                                      pcu_fill_choice *out, pascal_error *err);

/* The metrics the open-time cold read measures: the candidates, then the
 * checks (every later run reads only the candidate picked). */
std::vector<pcu_fill_metric> pcu_fill_cold_read_metrics(const pcu_fill_choice &choice);

/* Of `values` (one per candidate, in bytes) for a cold read of `bytes`,
 * the index of the candidate that reports the read: within [0.8, 1.3] x bytes,
 * closest to 1 in log ratio; -1 if none does. */
int pcu_fill_pick(const std::vector<double> &values, double bytes);

#endif
