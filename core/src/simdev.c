/*
 * simdev.c - the sim device handle: owns a validated profile, the per-SM
 * link speeds derived from the profile seed (a fixed property of the
 * simulated chip, the sustained service imbalance of paper Theorem
 * feedback, §3.6) and the buffers every run reuses, grown on demand.
 */
#include <stdint.h>
#include <stdlib.h>

#include "simdev_internal.h"

pascal_status pascal_simdev_new(const pascal_simdev_profile *profile, pascal_simdev **out,
                                pascal_error *err)
{
  if (!out)
    return pascal_error_set(err, PASCAL_EINVAL, "out", "out is NULL");
  pascal_status st = pascal_simdev_profile_validate(profile, err);
  if (st != PASCAL_OK)
    return st;
  pascal_simdev *dev = calloc(1, sizeof *dev);
  if (!dev)
    return pascal_error_set(err, PASCAL_ENOMEM, "device", "cannot allocate the device");
  dev->profile = *profile;
  uint32_t sms = profile->sm_count;
  dev->mem.link_free = calloc(sms, sizeof(double));
  dev->mem.link_block_ns = calloc(sms, sizeof(double));
  dev->mem.link_run_ns = calloc(sms, sizeof(double));
  dev->sm_clock = calloc(sms, sizeof(double));
  dev->sm_skew = calloc(sms, sizeof(double));
  dev->exec_free = calloc(sms, sizeof(double));
  if (!dev->mem.link_free || !dev->mem.link_block_ns || !dev->mem.link_run_ns || !dev->sm_clock ||
      !dev->sm_skew || !dev->exec_free) {
    st = pascal_error_set(err, PASCAL_ENOMEM, "sm_count", "cannot allocate %u SM links", sms);
    goto fail;
  }
  /* Per-SM link time: nominal block_bytes / sm_read_gbps (bytes per GB/s is
   * ns), scaled by a speed factor uniform in [1 - spread, 1 + spread) drawn
   * from the profile seed only, so every run on this device sees the same
   * chip. */
  simdev_rng rng = {pc_simdev_seed_mix(profile->seed, 0x5350454544ULL /* "SPEED" */)};
  double nominal = (double)profile->block_bytes / profile->sm_read_gbps;
  for (uint32_t s = 0; s < sms; s++)
    dev->mem.link_block_ns[s] = pc_simdev_rng_jitter(&rng, nominal, profile->sm_read_spread);
  /* The chip's work skew: group g of G gets 1 - skew + 2 skew g / (G - 1). */
  uint32_t groups = profile->clock_skew_groups;
  for (uint32_t s = 0; s < sms; s++) {
    uint32_t g = pc_simdev_group_of(s, groups, sms);
    dev->sm_skew[s] =
        groups > 1 ? 1.0 - profile->clock_skew + 2.0 * profile->clock_skew * g / (groups - 1) : 1.0;
  }
  *out = dev;
  return PASCAL_OK;
fail:
  pascal_simdev_free(dev);
  return st;
}

void pascal_simdev_free(pascal_simdev *dev)
{
  if (!dev)
    return;
  pc_simdev_cache_free(&dev->mem.cache);
  free(dev->mem.link_free);
  free(dev->mem.link_block_ns);
  free(dev->mem.link_run_ns);
  free(dev->sm_clock);
  free(dev->sm_skew);
  free(dev->exec_free);
  pc_simdev_queue_free(&dev->queue);
  free(dev->slots);
  free(dev->ring_arrival);
  free(dev->ring_foreign);
  free(dev->scratch);
  free(dev->gemm_slots);
  free(dev);
}

void pc_simdev_draw_clocks(pascal_simdev *dev, simdev_rng *rng)
{
  for (uint32_t i = 0; i < dev->profile.sm_count; i++)
    dev->sm_clock[i] =
        dev->sm_skew[i] * pc_simdev_rng_jitter(rng, 1.0, dev->profile.sm_clock_spread);
}

const pascal_simdev_profile *pascal_simdev_profile_of(const pascal_simdev *dev)
{
  return dev ? &dev->profile : NULL;
}

pascal_status pc_simdev_grow(void **buf, size_t *cap, size_t need, size_t elem, const char *what,
                             pascal_error *err)
{
  if (pascal_grow(buf, cap, need, elem))
    return pascal_error_set(err, PASCAL_ENOMEM, what, "%s: cannot allocate %zu entries", what,
                            need);
  return PASCAL_OK;
}
