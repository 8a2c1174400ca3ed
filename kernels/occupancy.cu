/*
 * occupancy.cu - forcing a kernel's occupancy o (resident CTAs per SM, key
 * coordinate o of paper Section 4.2; the open scan's and the attention
 * kernel's): carveout at maximum shared memory,
 * then the smallest dynamic shared-memory size at which no more than o CTAs
 * fit on an SM, verified with cudaOccupancyMaxActiveBlocksPerMultiprocessor
 * (docs/gpu.md "Forcing occupancy o").
 */
#include "occupancy.h"
#include "pascal_kernels.h"

const void *pascal_kern_open_function(int tma); /* open_scan.cu */

namespace {

/* Bytes of dynamic shared memory the TMA path needs for d buffers of b bytes
 * (mbarriers padded to 128 bytes first, see open_scan.cu). */
size_t tma_need(uint32_t d, uint32_t b)
{
  return 128u * ((d * 8u + 127u) / 128u) + (size_t)d * b;
}

cudaError_t occupancy_at(const void *fn, uint32_t threads, size_t smem, int *out)
{
  return cudaOccupancyMaxActiveBlocksPerMultiprocessor(out, fn, (int)threads, smem);
}

} // namespace

cudaError_t pascal_kern_force_occupancy(int device, const void *fn, uint32_t threads, size_t need,
                                        uint32_t o, size_t *smem, int *occupancy)
{
  int optin = 0;
  cudaFuncAttributes attr;
  cudaError_t e = cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device);
  if (e == cudaSuccess)
    e = cudaFuncGetAttributes(&attr, fn);
  if (e != cudaSuccess)
    return e;
  /* Static plus dynamic shared memory may not exceed the opt-in maximum. */
  const int max_dyn = optin - (int)attr.sharedSizeBytes;
  e = cudaFuncSetAttribute(fn, cudaFuncAttributePreferredSharedMemoryCarveout,
                           (int)cudaSharedmemCarveoutMaxShared);
  if (e == cudaSuccess)
    e = cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, max_dyn);
  if (e != cudaSuccess)
    return e;
  *smem = 0;
  *occupancy = 0;
  if (max_dyn <= 0 || need > (size_t)max_dyn)
    return cudaErrorInvalidConfiguration;

  /* Occupancy is non-increasing in the shared-memory size: find the smallest
   * size in [need, max_dyn] whose occupancy is at most o. */
  int occ = 0;
  if ((e = occupancy_at(fn, threads, need, &occ)) != cudaSuccess)
    return e;
  size_t lo = need, hi = (size_t)max_dyn;
  if (occ > (int)o) {
    int occ_hi = 0;
    if ((e = occupancy_at(fn, threads, hi, &occ_hi)) != cudaSuccess)
      return e;
    if (occ_hi > (int)o) {
      *occupancy = occ_hi;
      return cudaErrorInvalidConfiguration;
    }
    /* Invariant: occupancy(lo) > o >= occupancy(hi). */
    while (hi - lo > 1u) {
      const size_t mid = lo + (hi - lo) / 2u;
      int o_mid = 0;
      if ((e = occupancy_at(fn, threads, mid, &o_mid)) != cudaSuccess)
        return e;
      if (o_mid > (int)o)
        lo = mid;
      else
        hi = mid;
    }
    lo = hi;
  }
  if ((e = occupancy_at(fn, threads, lo, &occ)) != cudaSuccess)
    return e;
  *smem = lo;
  *occupancy = occ;
  if (occ != (int)o)
    return cudaErrorInvalidConfiguration;
  return cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)lo);
}

cudaError_t pascal_kern_open_plan_make(int device, const pascal_kern_open_config *cfg,
                                       pascal_kern_open_plan *out)
{
  if (cfg == nullptr || out == nullptr || cfg->o == 0 || cfg->block_bytes == 0 ||
      cfg->block_bytes % 16u != 0 ||
      (cfg->tma && (cfg->d == 0 || cfg->d > PASCAL_KERN_MAX_DEPTH)) || (!cfg->tma && cfg->d != 0))
    return cudaErrorInvalidValue;
  out->priming = cfg->tma ? pascal_kern_tma_priming(cfg->d) : 0u;
  const size_t need = cfg->tma ? tma_need(cfg->d, cfg->block_bytes) : 0u;
  return pascal_kern_force_occupancy(device, pascal_kern_open_function(cfg->tma),
                                     PASCAL_KERN_OPEN_THREADS, need, cfg->o, &out->smem_bytes,
                                     &out->occupancy);
}
