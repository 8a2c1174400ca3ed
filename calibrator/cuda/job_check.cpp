/*
 * job_check.cpp - validation of cuda backend jobs (see job_check.h): scan
 * keys (o, path, d, m) per paper Section 4.2 (sync rows have d = 0), sizes
 * N and horizons W, GEMM shapes in whole tiles of the implementation the
 * job names (the project's 128x128x64, Appendix `GEMM instantiation`, or a
 * cuBLASLt configuration's, pascal/gemm_impl.h), attention runs of the
 * kernel's tiling (docs/attention.md).
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

/* The implementation's own rules: the project's kernel has one tile and
 * no further configuration; a cuBLASLt configuration must encode
 * (pascal_cublaslt_encode). The tile the shape is measured in goes to *tile. */
pascal_status check_impl(const pascal_gemm_params &g, uint32_t tile[3], pascal_error *err)
{
  pascal_status st = pascal_gemm_impl_check(&g, err);
  if (st != PASCAL_OK)
    return st;
  if (g.impl == PASCAL_GEMM_IMPL_CUBLASLT) {
    tile[0] = g.tile_m, tile[1] = g.tile_n, tile[2] = g.tile_k;
    return PASCAL_OK;
  }
  tile[0] = PASCAL_KERN_GEMM_TILE_M, tile[1] = PASCAL_KERN_GEMM_TILE_N,
  tile[2] = PASCAL_KERN_GEMM_TILE_K;
  const bool unstated = g.tile_m == 0 && g.tile_n == 0 && g.tile_k == 0;
  if (!unstated && (g.tile_m != tile[0] || g.tile_n != tile[1] || g.tile_k != tile[2]))
    return pascal_error_set(err, PASCAL_EINVAL, "gemm.tile_m",
                            "the project's GEMM kernel has the tile %ux%ux%u only, got %ux%ux%u",
                            tile[0], tile[1], tile[2], g.tile_m, g.tile_n, g.tile_k);
  if (g.stages != 0)
    return pascal_error_set(err, PASCAL_EINVAL, "gemm.stages",
                            "the project's GEMM kernel has no stage count to choose, got %u",
                            g.stages);
  return PASCAL_OK;
}

pascal_status check_gemm(const pascal_backend_job *job, uint64_t budget, pascal_error *err)
{
  const pascal_plan_shape *j = &job->run.shape;
  uint32_t t[3];
  const pascal_gemm_config &c = job->run.config;
  pascal_status st = PASCAL_OK;
  if (c.tile_m) /* a configuration run: measured in whole tiles of its own */
    t[0] = c.tile_m, t[1] = c.tile_n, t[2] = c.tile_k;
  else
    st = check_impl(job->gemm, t, err);
  if (st != PASCAL_OK)
    return st;
  /* Grid rows of the project's kernel: Mg / 128 <= 65535. */
  if (j->Mg == 0 || j->Mg % t[0] != 0 || j->Mg > 8388480u)
    return pascal_error_set(err, PASCAL_EINVAL, "Mg",
                            "Mg must be a positive multiple of %u up to 8388480, got %llu", t[0],
                            (unsigned long long)j->Mg);
  if (j->Ng == 0 || j->Ng % t[1] != 0 || j->Ng > 0xffffffffull)
    return pascal_error_set(err, PASCAL_EINVAL, "Ng", "Ng must be a positive multiple of %u", t[1]);
  /* Kg < 2^22 keeps the host's exact check of the FP32 result valid. */
  if (j->Kg == 0 || j->Kg % t[2] != 0 || j->Kg >= (1u << 22))
    return pascal_error_set(err, PASCAL_EINVAL, "Kg",
                            "Kg must be a positive multiple of %u below 4194304, got %llu", t[2],
                            (unsigned long long)j->Kg);
  const double bytes =
      2.0 * ((double)j->Mg * j->Kg + (double)j->Ng * j->Kg) + 4.0 * (double)j->Mg * j->Ng;
  if (bytes > (double)budget)
    return pascal_error_set(err, PASCAL_ERANGE, "Mg",
                            "GEMM operands exceed half the device memory");
  return PASCAL_OK;
}

/* An attention plan's run: the kernel's tiling (64 x 64, head_dim 64,
 * FP16: a K/V step is one 16 KiB block, m = 128 products per step), a
 * depth the kernel takes, K and V within budget (Q and the output, W x M
 * tiles, are the rig's allocation, which names its failure). */
pascal_status check_attention(const pascal_backend_job *job, uint64_t budget, pascal_error *err)
{
  const pascal_plan_key &k = job->run.key;
  const pascal_plan_run *j = &job->run;
  const uint64_t T = PASCAL_KERN_ATT_TILE, step = 2u * T * T * 2u;
  if (job->block_bytes != step)
    return pascal_error_set(err, PASCAL_EINVAL, "block_bytes",
                            "an attention run's K/V step is %llu bytes, the block is %u",
                            (unsigned long long)step, job->block_bytes);
  if (k.path != PASCAL_PLAN_TMA || k.d == 0 || k.d > PASCAL_KERN_MAX_DEPTH)
    return pascal_error_set(err, PASCAL_EINVAL, "d",
                            "attention streams K/V on the tma path with "
                            "stages in 1..%u",
                            PASCAL_KERN_MAX_DEPTH);
  if (k.o == 0 || k.o > PCU_MAX_O)
    return pascal_error_set(err, PASCAL_EINVAL, "o", "o must be in 1..%u, got %u", PCU_MAX_O, k.o);
  if (k.m != 2u * T * T * T / 4096u)
    return pascal_error_set(err, PASCAL_EINVAL, "m",
                            "m must be %llu, the tiling's products per step",
                            (unsigned long long)(2u * T * T * T / 4096u));
  if (j->N == 0 || j->W == 0 || j->N * T > 0x7fffffffull || j->W * T > 0x7fffffffull)
    return pascal_error_set(err, PASCAL_EINVAL, "N", "N and W must be in 1..%llu",
                            0x7fffffffull / T);
  if ((double)j->N * step > (double)budget)
    return pascal_error_set(err, PASCAL_ERANGE, "N",
                            "N = %llu K/V steps of %llu bytes exceed half the device memory",
                            (unsigned long long)j->N, (unsigned long long)step);
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
  case PASCAL_PLAN_ATTENTION: return check_attention(job, budget, err);
  }
  return pascal_error_set(err, PASCAL_EINVAL, "workload",
                          "workload must be scan, gemm or attention");
}
