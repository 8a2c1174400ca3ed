/*
 * preload.cu - pascal_kern_load_all (pascal_kernels.h): every kernel of the
 * library loaded into the current context before any timed launch
 * (kernel_load.cuh says why).
 */
#include "kernel_load.cuh"
#include "pascal_kernels.h"

cudaError_t pascal_kern_load_all(void)
{
  cudaError_t (*const files[])(void) = {pascal_kern_load_static_scan, pascal_kern_load_open_scan,
                                        pascal_kern_load_gemm,        pascal_kern_load_attention,
                                        pascal_kern_load_util,        pascal_kern_load_peaks};
  for (cudaError_t (*load)(void) : files) {
    const cudaError_t e = load();
    if (e != cudaSuccess)
      return e;
  }
  return cudaSuccess;
}
