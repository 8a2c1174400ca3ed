/*
 * job_check.h - validation of a job handed to the cuda backend, before any
 * device work: every field a kernel depends on, named in the error.
 * Internal to the cuda backend; pure, tested without a GPU.
 */
#ifndef PASCAL_CUDA_JOB_CHECK_H
#define PASCAL_CUDA_JOB_CHECK_H

#include "backend.h"

#define PCU_MAX_O           32u
#define PCU_MAX_M           65536u
#define PCU_MAX_BLOCK_BYTES (1u << 20)

#ifdef __cplusplus
extern "C" {
#endif

/* `device_bytes` is the device's global memory; a job may use half of it. */
pascal_status pcu_job_check(const pascal_backend_job *job, uint64_t device_bytes,
                            pascal_error *err);

#ifdef __cplusplus
}
#endif
#endif
