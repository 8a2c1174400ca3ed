/*
 * static_scan.cu - the static phase-controlled scan of paper Algorithm
 * `static-kernel` (Section 5.2): CTA w reads block (k + s_w) mod N in round k
 * (Eq. trace), every thread loading its 16-byte lanes with __ldcg, consumes
 * them, and a grid-wide barrier (cooperative launch) ends every round, so the
 * phases stay fixed and the gap law (Eq. ttl) applies.
 */
#include <cooperative_groups.h>

#include "device_common.cuh"
#include "kernel_load.cuh"
#include "pascal_kernels.h"

namespace cg = cooperative_groups;

namespace {

__global__ void __launch_bounds__(1024) static_scan(pascal_kern_static_args a)
{
  __shared__ uint32_t scratch[32];
  cg::grid_group grid = cg::this_grid();
  const uint32_t lanes = a.block_bytes / 16u;
  const uint64_t phase = a.phases[blockIdx.x];
  uint32_t acc = 0;
  uint64_t j = phase % a.n_blocks;
  for (uint64_t k = 0; k < a.rounds; ++k) {
    const uint4 *blk = a.data + j * lanes;
    for (uint32_t l = threadIdx.x; l < lanes; l += blockDim.x)
      acc = pascal_dev_consume(acc, __ldcg(blk + l));
    j = (j + 1 == a.n_blocks) ? 0 : j + 1; /* j == (k + 1 + s_w) mod N */
    grid.sync();
  }
  const uint32_t sum = pascal_dev_cta_sum(acc, scratch);
  if (threadIdx.x == 0)
    a.checksum[blockIdx.x] = sum;
}

} // namespace

cudaError_t pascal_kern_load_static_scan(void)
{
  return pascal_kern_load(static_scan);
}

uint32_t pascal_kern_static_threads(uint32_t block_bytes)
{
  const uint32_t lanes = block_bytes / 16u;
  const uint32_t t = (lanes + 31u) / 32u * 32u;
  return t < 32u ? 32u : (t > 1024u ? 1024u : t);
}

cudaError_t pascal_kern_static_max_ctas(int device, uint32_t block_bytes, uint32_t *out)
{
  int per_sm = 0, sms = 0;
  cudaError_t e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(
      &per_sm, static_scan, (int)pascal_kern_static_threads(block_bytes), 0);
  if (e == cudaSuccess)
    e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
  if (e != cudaSuccess)
    return e;
  *out = (uint32_t)per_sm * (uint32_t)sms;
  return cudaSuccess;
}

cudaError_t pascal_kern_static_scan(const pascal_kern_static_args *args, cudaStream_t stream)
{
  if (args == nullptr || args->data == nullptr || args->phases == nullptr ||
      args->checksum == nullptr || args->n_blocks == 0 || args->ctas == 0 ||
      args->block_bytes == 0 || args->block_bytes % 16u != 0)
    return cudaErrorInvalidValue;
  pascal_kern_static_args a = *args;
  void *params[] = {&a};
  /* Fails with cudaErrorCooperativeLaunchTooLarge when M CTAs cannot all be
   * resident, which the barrier requires. */
  return cudaLaunchCooperativeKernel(reinterpret_cast<const void *>(static_scan), dim3(a.ctas),
                                     dim3(pascal_kern_static_threads(a.block_bytes)), params, 0,
                                     stream);
}
