/*
 * capacity.cpp - capacity scan and the proposed effective capacity C
 * (see capacity.h; paper Section 5.1 and Figure `capacity`).
 */
#include "capacity.h"

#include <algorithm>

namespace {

double median(std::vector<double> v)
{
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

} // namespace

uint64_t pcu_capacity_propose(const std::vector<pcu_capacity_row> &rows)
{
  uint64_t c = 0;
  for (const pcu_capacity_row &r : rows) {
    if (!(r.ratio <= 1.0 + PCU_CAPACITY_TOLERANCE))
      break;
    c = r.n_blocks;
  }
  return c;
}

pascal_status pcu_capacity_scan(pcu_rig *rig, uint32_t block_bytes, uint32_t repeats,
                                std::vector<pcu_capacity_row> *rows, pascal_error *err)
{
  if (repeats == 0)
    return pascal_error_set(err, PASCAL_EINVAL, "repeats", "repeats must be at least 1");
  const uint64_t l2_blocks = rig->info().l2_bytes / block_bytes;
  if (l2_blocks < 8)
    return pascal_error_set(err, PASCAL_EINVAL, "block_bytes",
                            "block of %u bytes leaves fewer than 8 blocks in L2", block_bytes);
  const pascal_kern_open_config cfg{1, 0, 0, 0, block_bytes};
  std::vector<pcu_capacity_row> out;
  for (uint32_t i = 0; i < PCU_CAPACITY_SIZES; ++i) {
    /* L2/4 + i x (5/4 L2)/14: from a quarter to one and a half times L2. */
    const uint64_t n = l2_blocks / 4 + (uint64_t)i * (5 * l2_blocks / 4) / (PCU_CAPACITY_SIZES - 1);
    std::vector<double> ratio, ns;
    for (uint32_t r = 0; r < repeats; ++r) {
      pcu_sample s;
      pascal_status st = rig->run_open_scan(cfg, n, PCU_CAPACITY_WAVES, &s, err);
      if (st != PASCAL_OK)
        return st;
      ratio.push_back(s.fill_bytes / ((double)n * block_bytes));
      ns.push_back(s.kernel_ns);
    }
    out.push_back(pcu_capacity_row{n, median(ratio), median(ns)});
  }
  *rows = out;
  return PASCAL_OK;
}
