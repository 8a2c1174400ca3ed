/*
 * probe.cpp - pascal_cuda_probe() (cuda_probe.h): device constants, the fill
 * counter chosen and its cold-read validation, the TMA priming count of this
 * binary, what one measured run costs with and without CUPTI (measure.sh
 * sizes the scan plan with it), the capacity scan with the proposed
 * effective capacity C (paper Section 5.1, Figure `capacity`), the
 * device peaks of the latency pipeline (peak_bench.h), and the GEMM's
 * achieved TFLOP/s, own kernel and cuBLASLt side by side (gemm_bench.h).
 */
#include "cuda_probe.h"

#include <stdlib.h>
#include <string.h>

#include "c_boundary.h"
#include "capacity.h"
#include "cuda_rig.h"
#include "gemm_bench.h"
#include "peak_bench.h"

namespace {

/* Empty-kernel runs timed each way for the run cost (an odd count: the
 * median is a measured run). */
const unsigned kCostRuns = 9;

void print_device(FILE *out, const pcu_rig &rig, uint32_t block_bytes)
{
  const pcu_info &in = rig.info();
  fprintf(out, "device        %s (sm_%d%d, CUPTI chip %s)\n", in.name.c_str(), in.cc_major,
          in.cc_minor, in.chip.c_str());
  fprintf(out, "CUDA name     \"%s\", compute capability %d.%d\n", in.name.c_str(), in.cc_major,
          in.cc_minor);
  fprintf(out, "SMs           %u\n", in.sm_count);
  fprintf(out, "L2            %llu bytes (%llu blocks of %u)\n", (unsigned long long)in.l2_bytes,
          (unsigned long long)(in.l2_bytes / block_bytes), block_bytes);
  fprintf(out, "smem per SM   %llu bytes\n", (unsigned long long)in.smem_per_sm);
  fprintf(out, "TMA priming   n_p = %u at d = 4 (this binary: n_p = %s)\n",
          pascal_kern_tma_priming(4), pascal_kern_tma_priming(4) == 3 ? "d-1" : "d");
  size_t passes = 0;
  pascal_error err;
  if (pcu_cupti_pass_count(in.chip, nullptr, {rig.metric().name}, &passes, &err) != PASCAL_OK)
    passes = 0;
  fprintf(out, "fill metric   %s (x %g bytes, %zu replay pass(es))\n", rig.metric().name.c_str(),
          rig.metric().bytes_per_unit, passes);
  const pcu_cold_read &c = rig.cold_read();
  fprintf(out, "cold read     %.0f bytes:", c.bytes);
  for (size_t i = 0; i < c.metrics.size(); ++i)
    fprintf(out, " %s=%.4f", c.metrics[i].name.c_str(), c.values[i] / c.bytes);
  fprintf(out, " (x bytes read)\n");
}

/* The scan's rows as the device's capacity probe (pascal/device_data.h), which
 * the agent prints on its "capacity probe:" line for the registration. */
void keep_scan(const std::vector<pcu_capacity_row> &rows, pascal_backend_device *device)
{
  pascal_capacity_probe *p = &device->capacity_probe;
  p->waves = PCU_CAPACITY_WAVES;
  for (const pcu_capacity_row &r : rows) {
    if (p->n == PASCAL_CAPACITY_PROBE_MAX)
      break;
    p->size_blocks[p->n] = r.n_blocks;
    p->fill_ratio[p->n++] = r.ratio;
  }
  device->has_capacity_probe = pascal_capacity_probe_check(p, nullptr) == PASCAL_OK;
}

/* One measured run (CUPTI range, L2 flushed) of the 4096^3 GEMM on `g`'s
 * implementation: the fills cuBLASLt's kernels cause, counted the way
 * every job's are, beside the own kernel's. */
void print_gemm_fills(FILE *out, pcu_rig *rig, const char *what, const pascal_gemm_params &g,
                      const pcu_gemm_bench &b)
{
  pcu_sample s;
  pascal_error err;
  const double operands = 2.0 * ((double)b.m * b.k + (double)b.n * b.k);
  if (rig->run_gemm(g, b.m, b.n, b.k, &s, &err) == PASCAL_OK)
    fprintf(out, "GEMM fills    %.0f bytes (%.2f x the operands), %.1f us  %s (CUPTI range)\n",
            s.fill_bytes, s.fill_bytes / operands, s.kernel_ns / 1e3, what);
  else
    fprintf(out, "GEMM fills    not measured  %s: %s\n", what, err.message);
}

/* The GEMM's achieved TFLOP/s (gemm_bench.h): the project's kernel, and
 * cuBLASLt where the host has it (one line says which), then one measured
 * run of each through the jobs' CUPTI path. A failure is printed, never
 * the probe's failure: the capacity and peaks stand. */
void print_gemm(FILE *out, pcu_rig *rig)
{
  pcu_cublaslt *lib = pcu_gemm_cublaslt_line(out, getenv("PASCAL_CUBLASLT"));
  pcu_gemm_bench bench;
  pascal_error err;
  pascal_error_clear(&err);
  if (pcu_gemm_bench_run(lib, &bench, &err) == PASCAL_OK) {
    pcu_gemm_bench_print(out, bench);
    print_gemm_fills(out, rig, "own wmma kernel", pascal_gemm_params{}, bench);
    pascal_gemm_params g{};
    if (bench.have_cublaslt && bench.heuristic.tflops > 0) {
      if (pascal_cublaslt_decode(&bench.heuristic.config, &g, &err) == PASCAL_OK)
        print_gemm_fills(out, rig, "cuBLASLt heuristic's configuration", g, bench);
      else
        fprintf(out, "GEMM fills    not measured  cuBLASLt heuristic's configuration: %s\n",
                err.message);
    }
  } else {
    fprintf(out, "GEMM          not measured: %s\n", err.message);
  }
  delete lib;
}

pascal_status probe(FILE *out, uint32_t block_bytes, uint32_t repeats,
                    pascal_backend_device *device, pascal_error *err)
{
  if (out == nullptr || device == nullptr)
    return pascal_error_set(err, PASCAL_EINVAL, out == nullptr ? "out" : "device",
                            "output stream and device record are required");
  if (block_bytes == 0)
    block_bytes = 16384;
  if (repeats == 0)
    repeats = 3;
  if (block_bytes % 16u != 0 || block_bytes > (1u << 20))
    return pascal_error_set(err, PASCAL_EINVAL, "block_bytes",
                            "block_bytes must be a multiple of 16 up to 1048576, got %u",
                            block_bytes);
  pcu_rig *rig = nullptr;
  pascal_status st = pcu_rig::open(0, &rig, err);
  if (st != PASCAL_OK)
    return st;
  std::vector<pcu_capacity_row> rows;
  uint64_t c = 0;
  pcu_run_cost cost;
  print_device(out, *rig, block_bytes);
  if ((st = rig->measure_cost(kCostRuns, &cost, err)) != PASCAL_OK)
    goto done;
  fprintf(out,
          "run cost      %.4f s per measured run with CUPTI, %.4f s without (CUPTI adds %.4f s; "
          "median of %u empty-kernel runs)\n",
          cost.with_cupti_s, cost.without_cupti_s, cost.with_cupti_s - cost.without_cupti_s,
          kCostRuns);
  fprintf(out, "run cost: {\"with_cupti_s\":%.6f,\"without_cupti_s\":%.6f,\"runs\":%u}\n",
          cost.with_cupti_s, cost.without_cupti_s, kCostRuns);
  fprintf(out, "capacity scan (sync, o=1, W=%u, %u repeat(s), median):\n", PCU_CAPACITY_WAVES,
          repeats);
  fprintf(out, "%12s %14s %10s %12s\n", "blocks", "bytes", "fill/bytes", "kernel_us");
  if ((st = pcu_capacity_scan(rig, block_bytes, repeats, &rows, err)) != PASCAL_OK)
    goto done;
  for (const pcu_capacity_row &r : rows)
    fprintf(out, "%12llu %14llu %10.4f %12.1f\n", (unsigned long long)r.n_blocks,
            (unsigned long long)(r.n_blocks * block_bytes), r.ratio, r.kernel_ns / 1e3);
  c = pcu_capacity_propose(rows);
  if (c == 0) {
    st = pascal_error_set(err, PASCAL_ERANGE, "capacity_blocks",
                          "capacity scan: even the smallest size exceeds the fill tolerance");
    goto done;
  }
  fprintf(out, "proposed C    %llu blocks (%llu bytes; fill within %.0f %% of the scanned bytes)\n",
          (unsigned long long)c, (unsigned long long)(c * block_bytes),
          100.0 * PCU_CAPACITY_TOLERANCE);
  memset(device, 0, sizeof *device);
  snprintf(device->name, sizeof device->name, "%s", rig->info().name.c_str());
  snprintf(device->arch, sizeof device->arch, "sm_%d%d", rig->info().cc_major,
           rig->info().cc_minor);
  device->sm_count = rig->info().sm_count;
  device->capacity_blocks = (uint32_t)c;
  device->block_bytes = block_bytes;
  device->l2_bytes = rig->info().l2_bytes;
  snprintf(device->cuda_name, sizeof device->cuda_name, "%s", rig->info().name.c_str());
  device->cc_major = (uint32_t)rig->info().cc_major;
  device->cc_minor = (uint32_t)rig->info().cc_minor;
  device->smem_per_sm = rig->info().smem_per_sm;
  keep_scan(rows, device);
  {
    /* no peaks rather than wrong ones: a failed benchmark leaves has_peaks 0 */
    pcu_peak_samples samples;
    pascal_error perr;
    pascal_error_clear(&perr);
    if (pcu_peak_measure(rig->info(), 0, &samples, &device->peaks, &perr) == PASCAL_OK) {
      device->has_peaks = 1;
      pcu_peak_print(out, samples, device->peaks);
    } else {
      fprintf(out, "peaks         not measured: %s%s%s\n", perr.message,
              perr.field[0] ? " - field " : "", perr.field);
    }
  }
  print_gemm(out, rig);
done:
  delete rig;
  return st;
}

} // namespace

PCU_API pascal_status pascal_cuda_probe(FILE *out, uint32_t block_bytes, uint32_t repeats,
                                        pascal_backend_device *device, pascal_error *err)
{
  return pcu_c_boundary("cuda probe", err,
                        [&] { return probe(out, block_bytes, repeats, device, err); });
}
