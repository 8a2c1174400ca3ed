/*
 * backend_cuda_absent.c - pascal_backend_cuda_ops() for builds without a CUDA
 * toolkit (compiled only when the pascal_cuda_backend library does not
 * exist): there is no cuda backend, and pascal-agent says so when asked for
 * --backend cuda.
 */
#include <stddef.h>

#include "../backend.h"

const pascal_backend_ops *pascal_backend_cuda_ops(void)
{
  return NULL;
}
