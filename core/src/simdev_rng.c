/*
 * simdev_rng.c - the sim device's seeded randomness beyond one splitmix64
 * step (simdev_internal.h): mixing a value into a seed, so that every run,
 * SM and chip property draws from its own stream, and the exponential tail
 * of a service time (DRAM latency tail, link stalls; docs/sim-device.md).
 */
#include <math.h>

#include "simdev_internal.h"

uint64_t pc_simdev_seed_mix(uint64_t seed, uint64_t value)
{
  simdev_rng r = {seed ^ (value * 0xd1342543de82ef95ULL + 0x2545f4914f6cdd1dULL)};
  return pc_simdev_rng_next(&r);
}

double pc_simdev_rng_tail(simdev_rng *r, double prob, double mean_ns)
{
  if (prob <= 0.0 || pc_simdev_rng_unit(r) >= prob)
    return 0.0;
  return -mean_ns * log1p(-pc_simdev_rng_unit(r)); /* unit < 1: finite */
}
