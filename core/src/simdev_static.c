/*
 * simdev_static.c - the static phase-controlled kernel on the sim device
 * (paper Algorithm "static-kernel", §5.2): M workers with fixed phases s_w,
 * round k: every worker loads block (k + s_w) mod N synchronously, consumes
 * it, and a grid barrier ends the round. Requests are looked up in worker
 * order at the barrier release, so the cache sees exactly the round-by-round
 * trace of Eq. (trace) and its fills are the fully associative LRU misses
 * of that trace (Theorem lru; the gap law of Theorem ttl in steady state when
 * the LRU interval collapses). Timing uses the same DRAM and link servers as
 * the open scan.
 */

#include "simdev_internal.h"

static pascal_status static_check(const pascal_simdev *dev, const pascal_simdev_static *run,
                                  pascal_error *err)
{
  if (run->N < 1 || run->N >= (1ull << 31))
    return pascal_error_set(err, PASCAL_EINVAL, "N", "N must be in [1, 2^31)");
  if (run->M < 1 || run->M > (1u << 20))
    return pascal_error_set(err, PASCAL_EINVAL, "M", "M must be in [1, 2^20]");
  if (!run->phases)
    return pascal_error_set(err, PASCAL_EINVAL, "phases", "phases is NULL");
  for (uint32_t w = 0; w < run->M; w++)
    if (run->phases[w] >= run->N)
      return pascal_error_set(err, PASCAL_EINVAL, "phases", "phases[%u] = %llu is not below N", w,
                              (unsigned long long)run->phases[w]);
  if (run->H < 1 || run->H > (UINT64_MAX / 4) / run->M)
    return pascal_error_set(err, PASCAL_EINVAL, "H", "H must be at least 1 and H * M must fit");
  (void)dev;
  return PASCAL_OK;
}

pascal_status pascal_simdev_run_static(pascal_simdev *dev, const pascal_simdev_static *run,
                                       pascal_simdev_stats *out, pascal_error *err)
{
  if (!dev || !run || !out)
    return pascal_error_set(err, PASCAL_EINVAL, "run", "device, run and out must be given");
  pascal_status st = static_check(dev, run, err);
  if (st != PASCAL_OK)
    return st;
  const pascal_simdev_profile *p = &dev->profile;
  uint32_t capacity = run->C; /* 0: the profile's L2 */
  simdev_rng rng = {
      pc_simdev_seed_mix(pc_simdev_seed_mix(p->seed, 0x535441544943ULL /* "STATIC" */),
                         pc_simdev_seed_mix(run->seed, run->N * 1000003u + run->M))};
  st = pc_simdev_mem_prepare(dev, (uint32_t)run->N, capacity, p->block_bytes, &rng, err);
  if (st != PASCAL_OK)
    return st;
  if (pc_simdev_queue_reserve(&dev->queue, run->M) != PASCAL_OK)
    return pascal_error_set(err, PASCAL_ENOMEM, "M", "cannot allocate the event queue");
  simdev_mem *mm = &dev->mem;
  double work_ns = p->consume_ns + p->cta_sync_ns;
  double release = 0.0;
  for (uint64_t k = 0; k < run->H; k++) {
    /* barrier released: every worker issues its load, in worker order */
    for (uint32_t w = 0; w < run->M; w++) {
      double ready;
      uint32_t b = (uint32_t)((k + run->phases[w]) % run->N);
      pc_simdev_mem_lookup(mm, w % p->sm_count, b, release, &ready, NULL);
      pc_simdev_queue_push(&dev->queue, ready, w);
    }
    /* data reaches each SM over its link in order of readiness */
    double round_end = release;
    simdev_event e;
    while (pc_simdev_queue_pop(&dev->queue, &e)) {
      double arr = pc_simdev_mem_transfer(mm, e.id % p->sm_count, e.t);
      double done = arr + p->sync_issue_ns + pc_simdev_rng_jitter(&rng, work_ns, p->service_jitter);
      if (done > round_end)
        round_end = done;
    }
    release = round_end + p->grid_barrier_ns;
  }
  pc_simdev_mem_stats(mm, p->block_bytes, release, (double)run->H, run->M, out);
  return PASCAL_OK;
}
