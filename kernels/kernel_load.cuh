/*
 * kernel_load.cuh - load kernels into the current CUDA context now, not at
 * their first launch. Since CUDA 12.2 the runtime loads a module lazily, at
 * the first launch of one of its kernels, and that first launch would then
 * be timed with the loading (the first GEMM of an agent process, the first
 * scan of a probe). cudaFuncGetAttributes needs the loaded function, so it
 * loads it. Each .cu file of kernels/ lists its kernels in one
 * pascal_kern_load_<file>() (declared here, called by pascal_kern_load_all,
 * preload.cu).
 */
#ifndef PASCAL_KERNELS_KERNEL_LOAD_CUH
#define PASCAL_KERNELS_KERNEL_LOAD_CUH

#include <cuda_runtime.h>

/* Load each of `kernels`; the first failure is returned (for example
 * cudaErrorNoKernelImageForDevice on an architecture this build lacks). */
template <typename... K> cudaError_t pascal_kern_load(K... kernels)
{
  cudaFuncAttributes attr;
  cudaError_t e = cudaSuccess;
  ((e = e == cudaSuccess ? cudaFuncGetAttributes(&attr, reinterpret_cast<const void *>(kernels))
                         : e),
   ...);
  return e;
}

cudaError_t pascal_kern_load_static_scan(void);
cudaError_t pascal_kern_load_open_scan(void);
cudaError_t pascal_kern_load_gemm(void);
cudaError_t pascal_kern_load_attention(void);
cudaError_t pascal_kern_load_util(void);
cudaError_t pascal_kern_load_peaks(void);

#endif
