/*
 * fill_metric.cpp - choice of the DRAM->L2 fill counter per chip (see
 * fill_metric.h and docs/gpu.md for the reasons).
 */
#include "fill_metric.h"

#include <math.h>

#include "cupti_session.h"

namespace {

const pcu_fill_metric kDram{"dram__bytes_read.sum", 1.0};
const pcu_fill_metric kFillDevice{"lts__d_sectors_fill_device.sum", 32.0};
const pcu_fill_metric kFillSysmem{"lts__d_sectors_fill_sysmem.sum", 32.0};

} // namespace

pascal_status pcu_fill_choice_resolve(const std::string &chip, const uint8_t *availability,
                                      pcu_fill_choice *out, pascal_error *err)
{
  bool dram = false, dev = false, sys = false;
  pascal_status st = pcu_cupti_metric_known(chip, availability, kDram.name.c_str(), &dram, err);
  if (st == PASCAL_OK)
    st = pcu_cupti_metric_known(chip, availability, kFillDevice.name.c_str(), &dev, err);
  if (st == PASCAL_OK)
    st = pcu_cupti_metric_known(chip, availability, kFillSysmem.name.c_str(), &sys, err);
  if (st != PASCAL_OK)
    return st;

  pcu_fill_choice c;
  if (dram) {
    c.empirical = false;
    c.candidates.push_back(kDram);
    if (dev)
      c.checks.push_back(kFillDevice);
  } else {
    c.empirical = true;
    if (dev)
      c.candidates.push_back(kFillDevice);
    if (sys)
      c.candidates.push_back(kFillSysmem);
  }
  if (c.candidates.empty())
    return pascal_error_set(err, PASCAL_ENOTFOUND, "metric",
                            "no DRAM->L2 fill metric available on %s (tried %s, %s, %s)",
                            chip.c_str(), kDram.name.c_str(), kFillDevice.name.c_str(),
                            kFillSysmem.name.c_str());
  *out = c;
  return PASCAL_OK;
}

std::vector<pcu_fill_metric> pcu_fill_cold_read_metrics(const pcu_fill_choice &choice)
{
  std::vector<pcu_fill_metric> all = choice.candidates;
  all.insert(all.end(), choice.checks.begin(), choice.checks.end());
  return all;
}

int pcu_fill_pick(const std::vector<double> &values, double bytes)
{
  int best = -1;
  double best_dist = 0.0;
  for (size_t i = 0; i < values.size(); ++i) {
    const double r = values[i] / bytes;
    if (!(r >= 0.8 && r <= 1.3))
      continue;
    const double dist = fabs(log(r));
    if (best < 0 || dist < best_dist) {
      best = (int)i;
      best_dist = dist;
    }
  }
  return best;
}
