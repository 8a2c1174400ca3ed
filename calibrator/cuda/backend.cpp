/*
 * backend.cpp - the agent's "cuda" backend (calibrator/backend.h): device
 * discovery, jobs run on the kernels of kernels/ with CUPTI fill counters
 * (cuda_rig.h), and the effective capacity from the capacity scan
 * (capacity.h), measured only when no C is known yet for the device (with
 * repeats; the agent passes the C pascald has stored), and with it the
 * device peaks (peak_bench.h): a device already registered keeps the peaks
 * it was registered with, and a failed peak benchmark registers none rather
 * than wrong ones. `profile` names the
 * device index ("0" when NULL). Jobs run on the agent's runner threads, so
 * every entry point binds the device to its thread; a job whose kernel
 * faulted (the context is lost) fails, and the next one opens the device
 * again on a fresh context. Every entry point is wrapped by
 * pcu_c_boundary(): no exception reaches the C caller.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "c_boundary.h"
#include "capacity.h"
#include "cuda_probe.h"
#include "cuda_rig.h"
#include "job_check.h"
#include "peak_bench.h"

struct pascal_backend {
  int device;
  pcu_rig *rig;             /* NULL after a kernel fault lost the context */
  uint32_t capacity_blocks; /* 0 until the capacity scan ran */
  int has_peaks;            /* 1 once measured with the capacity */
  pascal_peaks peaks;
};

namespace {

const uint32_t kBlockBytes = 16384;
/* Repeats per size when the agent must measure C itself (the median is kept;
 * a single repeat let one noisy size move C between agent starts). */
const uint32_t kCapacityRepeats = 3;

pascal_status parse_device(const char *profile, int *out, pascal_error *err)
{
  if (profile == nullptr) {
    *out = 0;
    return PASCAL_OK;
  }
  char *end = nullptr;
  const long v = strtol(profile, &end, 10);
  if (*profile == '\0' || end == nullptr || *end != '\0' || v < 0 || v > 1024)
    return pascal_error_set(err, PASCAL_EINVAL, "profile",
                            "the cuda backend's profile is a device index (0, 1, ...), got '%s'",
                            profile);
  *out = (int)v;
  return PASCAL_OK;
}

pascal_status cuda_open(const char *profile, pascal_backend **out, pascal_error *err)
{
  return pcu_c_boundary("cuda backend open", err, [&]() -> pascal_status {
    int device = 0;
    pascal_status st = parse_device(profile, &device, err);
    if (st != PASCAL_OK)
      return st;
    pcu_rig *rig = nullptr;
    if ((st = pcu_rig::open(device, &rig, err)) != PASCAL_OK)
      return st;
    *out = new pascal_backend{device, rig, 0, 0, {}};
    return PASCAL_OK;
  });
}

/* The rig, bound to the calling thread; opened again on a fresh context
 * when a kernel fault lost the last one (so one faulting job does not fail
 * every job after it). */
pascal_status usable_rig(pascal_backend *b, pascal_error *err)
{
  if (b->rig == nullptr) {
    pascal_status st = pcu_rig::open(b->device, &b->rig, err);
    if (st != PASCAL_OK)
      return st;
  }
  return b->rig->bind_thread(err);
}

pascal_status describe(pascal_backend *b, uint32_t known_capacity, pascal_backend_device *out,
                       pascal_error *err)
{
  pascal_status st = usable_rig(b, err);
  if (st != PASCAL_OK)
    return st;
  const pcu_info &in = b->rig->info();
  if (known_capacity != 0)
    b->capacity_blocks = known_capacity;
  if (b->capacity_blocks == 0) {
    std::vector<pcu_capacity_row> rows;
    st = pcu_capacity_scan(b->rig, kBlockBytes, kCapacityRepeats, &rows, err);
    if (st != PASCAL_OK)
      return st;
    const uint64_t c = pcu_capacity_propose(rows);
    if (c == 0)
      return pascal_error_set(err, PASCAL_ERANGE, "capacity_blocks",
                              "capacity scan: even %llu blocks exceed the fill tolerance",
                              (unsigned long long)rows[0].n_blocks);
    b->capacity_blocks = (uint32_t)c;
    pascal_error perr;
    b->has_peaks = pcu_peak_measure(in, 0, nullptr, &b->peaks, &perr) == PASCAL_OK;
  }
  pascal_backend_device d;
  memset(&d, 0, sizeof d);
  snprintf(d.name, sizeof d.name, "%s", in.name.c_str());
  snprintf(d.arch, sizeof d.arch, "sm_%d%d", in.cc_major, in.cc_minor);
  d.sm_count = in.sm_count;
  d.capacity_blocks = b->capacity_blocks;
  d.block_bytes = kBlockBytes;
  d.l2_bytes = in.l2_bytes;
  snprintf(d.cuda_name, sizeof d.cuda_name, "%s", in.name.c_str());
  d.cc_major = (uint32_t)in.cc_major;
  d.cc_minor = (uint32_t)in.cc_minor;
  d.smem_per_sm = in.smem_per_sm;
  d.has_peaks = b->has_peaks;
  d.peaks = b->peaks;
  *out = d;
  return PASCAL_OK;
}

pascal_status cuda_describe(pascal_backend *b, uint32_t known_capacity, pascal_backend_device *out,
                            pascal_error *err)
{
  return pcu_c_boundary("cuda backend describe", err,
                        [&] { return describe(b, known_capacity, out, err); });
}

pascal_status run(pascal_backend *b, const pascal_backend_job *job, pascal_backend_result *out,
                  pascal_error *err)
{
  pascal_status st = usable_rig(b, err);
  if (st == PASCAL_OK)
    st = pcu_job_check(job, b->rig->info().global_bytes, err);
  if (st != PASCAL_OK)
    return st;
  pcu_sample s;
  const pascal_plan_run &r = job->run;
  switch (r.workload) {
  case PASCAL_PLAN_SCAN: {
    const pascal_kern_open_config cfg{r.key.o, r.key.path == PASCAL_PLAN_TMA, r.key.d, r.key.m,
                                      job->block_bytes};
    st = b->rig->run_open_scan(cfg, r.N, r.W, &s, err);
    break;
  }
  case PASCAL_PLAN_ATTENTION:
    st = b->rig->run_attention(r.key.o, r.key.d, r.N, r.W, &s, err);
    break;
  case PASCAL_PLAN_GEMM:
    if (r.config.tile_m) { /* a configuration run */
      std::string ran;
      st = b->rig->run_gemm_config(r.config, (uint32_t)r.shape.Mg, (uint32_t)r.shape.Ng,
                                   (uint32_t)r.shape.Kg, &s, &ran, err);
      snprintf(out->note, sizeof out->note, "%s", ran.c_str());
      break;
    }
    st = b->rig->run_gemm(job->gemm, (uint32_t)r.shape.Mg, (uint32_t)r.shape.Ng,
                          (uint32_t)r.shape.Kg, &s, err);
    break;
  }
  if (st != PASCAL_OK) {
    pcu_rig::drop_if_lost(&b->rig);
    return st;
  }
  out->fill_bytes = s.fill_bytes;
  out->kernel_ns = s.kernel_ns;
  return PASCAL_OK;
}

pascal_status cuda_run(pascal_backend *b, const pascal_backend_job *job, pascal_backend_result *out,
                       pascal_error *err)
{
  return pcu_c_boundary("cuda backend run", err, [&] { return run(b, job, out, err); });
}

pascal_status cuda_run_static(pascal_backend *b, const pascal_backend_static *run,
                              pascal_backend_result *out, pascal_error *err)
{
  return pcu_c_boundary("cuda backend static run", err, [&]() -> pascal_status {
    std::vector<uint32_t> phases(run->M);
    for (uint32_t w = 0; w < run->M; ++w) {
      if (run->phases[w] > UINT32_MAX)
        return pascal_error_set(err, PASCAL_EINVAL, "phases", "phase %u does not fit 32 bits", w);
      phases[w] = (uint32_t)run->phases[w];
    }
    pcu_sample s;
    pascal_status st = usable_rig(b, err);
    if (st == PASCAL_OK)
      st = b->rig->run_static_scan(phases, run->N, run->block_bytes, run->H, &s, err);
    if (st != PASCAL_OK) {
      pcu_rig::drop_if_lost(&b->rig);
      return st;
    }
    out->fill_bytes = s.fill_bytes;
    out->kernel_ns = s.kernel_ns;
    return PASCAL_OK;
  });
}

void cuda_close(pascal_backend *b)
{
  if (b == nullptr)
    return;
  (void)pcu_c_boundary("cuda backend close", nullptr, [&] {
    delete b->rig;
    delete b;
    return PASCAL_OK;
  });
}

const pascal_backend_ops kCudaOps = {"cuda",          cuda_open,  cuda_describe,    cuda_run,
                                     cuda_run_static, cuda_close, pascal_cuda_probe};

} // namespace

PCU_API const pascal_backend_ops *pascal_backend_cuda_ops(void)
{
  return &kCudaOps;
}
