/*
 * occupancy.h - forcing a kernel's occupancy (kernels/occupancy.cu), shared
 * by the open scan and the attention kernel: not part of the library's
 * public API (pascal_kernels.h).
 */
#ifndef PASCAL_KERNELS_OCCUPANCY_H
#define PASCAL_KERNELS_OCCUPANCY_H

#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>

/* With the carveout at maximum shared memory, the smallest dynamic
 * shared-memory size in [need, opt-in maximum] at which at most `o` CTAs of
 * `threads` threads of `fn` fit on an SM, verified with
 * cudaOccupancyMaxActiveBlocksPerMultiprocessor, set as the function's
 * dynamic shared-memory size. *smem and *occupancy receive what was found;
 * cudaErrorInvalidConfiguration when exactly o is not reachable
 * (*occupancy then holds the nearest occupancy found, 0 if not even one
 * CTA fits). */
cudaError_t pascal_kern_force_occupancy(int device, const void *fn, uint32_t threads, size_t need,
                                        uint32_t o, size_t *smem, int *occupancy);

#endif
