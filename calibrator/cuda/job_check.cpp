/*
 * job_check.cpp - validation of cuda backend jobs (see job_check.h): scan
 * keys (o, path, d, m) per paper Section 4.2 (sync rows have d = 0), sizes
 * N and horizons W, GEMM shapes in whole 128x128x64 tiles (Appendix `GEMM
 * instantiation`).
 */
#include "job_check.h"

#include "pascal_kernels.h"

namespace {

pascal_status check_scan(const pascal_backend_job *job, uint64_t budget, pascal_error *err)
{
  const pascal_plan_key &k = job->run.key;
  const pascal_plan_run *j = &job->run;
  const int tma = k.path == PASCAL_PLAN_TMA;
  if (k.o == 0 || k.o > PCU_MAX_O)
    return pascal_error_set(err, PASCAL_EINVAL, "o", "o must be in 1..%u, got %u", PCU_MAX_O, k.o);
  if (k.path != PASCAL_PLAN_SYNC && k.path != PASCAL_PLAN_TMA)
    return pascal_error_set(err, PASCAL_EINVAL, "path", "path must be sync or tma");
  if (!tma && k.d != 0)
    return pascal_error_set(err, PASCAL_EINVAL, "d", "the sync path has d = 0, got %u", k.d);
  if (tma && (k.d == 0 || k.d > PASCAL_KERN_MAX_DEPTH))
    return pascal_error_set(err, PASCAL_EINVAL, "d", "the tma path needs d in 1..%u, got %u",
                            PASCAL_KERN_MAX_DEPTH, k.d);
  if (k.m > PCU_MAX_M)
    return pascal_error_set(err, PASCAL_EINVAL, "m", "m must be at most %u, got %u", PCU_MAX_M,
                            k.m);
  if (j->N == 0)
    return pascal_error_set(err, PASCAL_EINVAL, "N", "N must be positive");
  if (j->N > budget / job->block_bytes)
    return pascal_error_set(err, PASCAL_ERANGE, "N",
                            "N = %llu blocks of %u bytes exceed half the device memory",
                            (unsigned long long)j->N, job->block_bytes);
  if (j->W == 0 || j->W > 0x7fffffffull / ((uint64_t)PCU_MAX_O * 1024u))
    return pascal_error_set(err, PASCAL_EINVAL, "W", "W must be in 1..%llu, got %llu",
                            0x7fffffffull / ((uint64_t)PCU_MAX_O * 1024u),
                            (unsigned long long)j->W);
  return PASCAL_OK;
}

pascal_status check_gemm(const pascal_backend_job *job, uint64_t budget, pascal_error *err)
{
  const pascal_plan_shape *j = &job->run.shape;
  if (j->Mg == 0 || j->Mg % 128u != 0 || j->Mg / 128u > 65535u)
    return pascal_error_set(err, PASCAL_EINVAL, "Mg",
                            "Mg must be a positive multiple of 128 up to 8388480, got %llu",
                            (unsigned long long)j->Mg);
  if (j->Ng == 0 || j->Ng % 128u != 0 || j->Ng > 0xffffffffull)
    return pascal_error_set(err, PASCAL_EINVAL, "Ng", "Ng must be a positive multiple of 128");
  /* Kg < 2^22 keeps the host's exact check of the FP32 result valid. */
  if (j->Kg == 0 || j->Kg % 64u != 0 || j->Kg >= (1u << 22))
    return pascal_error_set(err, PASCAL_EINVAL, "Kg",
                            "Kg must be a positive multiple of 64 below 4194304, got %llu",
                            (unsigned long long)j->Kg);
  const double bytes =
      2.0 * ((double)j->Mg * j->Kg + (double)j->Ng * j->Kg) + 4.0 * (double)j->Mg * j->Ng;
  if (bytes > (double)budget)
    return pascal_error_set(err, PASCAL_ERANGE, "Mg",
                            "GEMM operands exceed half the device memory");
  return PASCAL_OK;
}

} // namespace

pascal_status pcu_job_check(const pascal_backend_job *job, uint64_t device_bytes, pascal_error *err)
{
  if (job == nullptr)
    return pascal_error_set(err, PASCAL_EINVAL, "job", "no job");
  if (job->block_bytes < 16 || job->block_bytes % 16u != 0 ||
      job->block_bytes > PCU_MAX_BLOCK_BYTES)
    return pascal_error_set(err, PASCAL_EINVAL, "block_bytes",
                            "block_bytes must be a multiple of 16 in 16..%u, got %u",
                            PCU_MAX_BLOCK_BYTES, job->block_bytes);
  const uint64_t budget = device_bytes / 2;
  switch (job->run.workload) {
  case PASCAL_PLAN_SCAN: return check_scan(job, budget, err);
  case PASCAL_PLAN_GEMM: return check_gemm(job, budget, err);
  }
  return pascal_error_set(err, PASCAL_EINVAL, "workload", "workload must be scan or gemm");
}
