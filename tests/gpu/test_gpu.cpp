/*
 * test_gpu.cpp - the cuda backend on a real GPU (issue 6). Exits with 77
 * ("SKIPPED: no CUDA device", reported as skipped by ctest) when none is
 * present. With a GPU it checks:
 *   1. kernel correctness: every measured run checks its result on the host
 *      (scan checksums and MMA counts, sampled GEMM outputs); a small GEMM is
 *      also compared element by element; forced occupancy o = 1..4 verified;
 *   2. CUPTI counters non-zero and consistent: a cold read far larger than L2
 *      fills ~ its logical bytes (and the cross-check counter agrees); a scan
 *      that fits in L2, repeated over 4 waves, fills ~ its size once;
 *   3. the static kernel's K against the gap law (paper Eq. ttl) on the
 *      cluster experiment of Section 5.2: M = SMs, c equally spaced cluster
 *      phases for c from 1 to M, plus packed clusters where sharing makes K=1;
 *   4. the open scan showing K > 1.05 for at least one deep TMA pipeline;
 *   5. as the agent runs it: a job on a thread of its own, and a fresh rig
 *      measuring again after a kernel fault lost the context (the fault: a
 *      TMA mbarrier wait that traps at its bound instead of hanging);
 *   6. cuBLASLt where the host's toolkit has it: the heuristic's
 *      configuration set explicitly runs as a job (result checked, fills
 *      counted through the same CUPTI range), a tile the algo does not list
 *      is refused naming it, a configuration run the own kernel lacks runs
 *      on cuBLASLt or is refused in one line, and the probe's GEMM TFLOP/s
 *      lines; without cuBLASLt a cuBLASLt job fails saying so;
 *   7. the attention kernel at depths 1-3, its sampled output rows against
 *      the host reference, and one run past the cache (docs/attention.md);
 *      `gpu_kernels attention` runs only this part;
 *   8. the configuration runs of this device's gemm-configs plan
 *      (pascal plan --kind gemm-configs), each run once as a job runs it,
 *      with its TFLOP/s and fills: every one must run, on the project's
 *      own staged kernel (cuBLASLt refused all 30 runs of the earlier,
 *      cuBLASLt list on an H100); `gpu_kernels configs` runs only this
 *      part.
 * Measured figures are printed for docs/gpu.md.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <algorithm>
#include <thread>
#include <vector>

extern "C" {
#include "check.h"
}
#include "cublaslt_gemm.h"
#include "cuda_rig.h"
#include "gemm_bench.h"
#include "pascal/plan_gen.h"
#include "pascal/static.h"
#include "reference.h"

#include <cuda_runtime.h>

#define SKIP_CODE 77

namespace {

const uint32_t kB = 16384;

/* Gap law (paper Eq. waterfill / ttl), written out independently of libpascal:
 * the cyclic gaps of the distinct phases, the waterline theta with
 * sum_i min(g_i, theta) = C, T* = floor(theta). Steady state: K = #{g_i > T*}.
 * (libpascal's pascal_static_analyze must agree on K.) Over a finite run of h rounds from a cold
 * cache, a phase whose leader gap is within T* misses only on the min(g_i, h) blocks nobody touched
 * before, the others miss every round, so the run's K is sum_i (g_i > T* ? h : min(g_i, h)) / h. */
struct gap_law {
  uint64_t k;   /* steady-state misses per round */
  double k_run; /* whole-run misses per round over h rounds */
};

gap_law gap_law_eval(std::vector<uint64_t> phases, uint64_t n, uint64_t c, uint64_t h)
{
  std::sort(phases.begin(), phases.end());
  phases.erase(std::unique(phases.begin(), phases.end()), phases.end());
  std::vector<uint64_t> gaps;
  for (size_t i = 0; i < phases.size(); ++i)
    gaps.push_back(i + 1 < phases.size() ? phases[i + 1] - phases[i] : phases[0] + n - phases[i]);
  std::vector<uint64_t> sorted = gaps;
  std::sort(sorted.begin(), sorted.end());
  const size_t d = sorted.size();
  uint64_t prefix = 0;
  double theta = 0;
  for (size_t j = 0; j < d; ++j) {
    theta = (double)(c - prefix) / (double)(d - j);
    if (theta < (double)sorted[j])
      break;
    prefix += sorted[j];
  }
  const uint64_t t = (uint64_t)floor(theta);
  gap_law out{0, 0.0};
  double misses = 0;
  for (uint64_t g : gaps) {
    out.k += g > t;
    misses += g > t ? (double)h : (double)std::min(g, h);
  }
  out.k_run = misses / (double)h;
  /* The independent steady-state count agrees with libpascal's gap law. */
  pascal_static_result lib;
  CHECK(pascal_static_analyze(n, c, phases.data(), phases.size(), &lib, nullptr) == PASCAL_OK);
  CHECK_INT(lib.k_ttl, out.k);
  return out;
}

void check_status(pascal_status st, const pascal_error &err, const char *what)
{
  if (st != PASCAL_OK)
    fprintf(stderr, "%s: %s (%s)\n", what, err.message, err.field);
  CHECK(st == PASCAL_OK);
}

/* Whether o CTAs with d buffers of b bytes (plus barriers and 2 KiB of
 * per-CTA overhead) fit in one SM's shared memory. */
bool fits(const pascal_kern_open_config &c, const pcu_info &in)
{
  return c.o * ((uint64_t)c.d * c.block_bytes + 128 + 2048) <= in.smem_per_sm;
}

/* GEMM operands seeded 1 and 2 (pascal_ref_gemm_value) and an FP32 result. */
struct gemm_buffers {
  __half *a = nullptr, *b = nullptr;
  float *c = nullptr;
  uint32_t mg, ng, kg;
  gemm_buffers(uint32_t m, uint32_t n, uint32_t k) : mg(m), ng(n), kg(k)
  {
    CHECK(cudaMalloc(&a, (size_t)mg * kg * 2) == cudaSuccess);
    CHECK(cudaMalloc(&b, (size_t)ng * kg * 2) == cudaSuccess);
    CHECK(cudaMalloc(&c, (size_t)mg * ng * 4) == cudaSuccess);
    CHECK(pascal_kern_fill_gemm_input(a, (uint64_t)mg * kg, 1, nullptr) == cudaSuccess);
    CHECK(pascal_kern_fill_gemm_input(b, (uint64_t)ng * kg, 2, nullptr) == cudaSuccess);
    CHECK(cudaMemset(c, 0xff, (size_t)mg * ng * 4) == cudaSuccess);
  }
  ~gemm_buffers()
  {
    cudaFree(a);
    cudaFree(b);
    cudaFree(c);
  }
  /* Elements of C that differ from the exact product. */
  long wrong() const
  {
    std::vector<float> got((size_t)mg * ng);
    CHECK(cudaMemcpy(got.data(), c, got.size() * 4, cudaMemcpyDeviceToHost) == cudaSuccess);
    long bad = 0;
    for (uint32_t r = 0; r < mg; ++r)
      for (uint32_t q = 0; q < ng; ++q)
        bad += (double)got[(size_t)r * ng + q] != pascal_ref_gemm_element(kg, r, q);
    return bad;
  }
};

void test_gemm_full(void)
{
  gemm_buffers g(256, 384, 192);
  CHECK(pascal_kern_gemm(g.a, g.b, g.c, g.mg, g.ng, g.kg, nullptr) == cudaSuccess);
  CHECK(pascal_kern_gemm(g.a, g.b, g.c, g.mg, g.ng, 100, nullptr) == cudaErrorInvalidValue);
  CHECK_INT(g.wrong(), 0);
}

/* The staged, grouped-raster kernel: the exact product for every stage
 * count and a group that divides the tile rows, one that does not (3 of 4
 * rows) and one beyond them; bad arguments refused. */
void test_gemm_staged(void)
{
  gemm_buffers g(512, 384, 320); /* 4 x 3 tiles, 5 k-steps */
  for (uint32_t stages = 1; stages <= PASCAL_KERN_GEMM_STAGES_MAX; ++stages)
    for (uint32_t group : {1u, 3u, 8u}) {
      CHECK(cudaMemset(g.c, 0xff, (size_t)g.mg * g.ng * 4) == cudaSuccess);
      CHECK(pascal_kern_gemm_staged(g.a, g.b, g.c, g.mg, g.ng, g.kg, stages, group, nullptr) ==
            cudaSuccess);
      CHECK_INT(g.wrong(), 0);
    }
  const uint32_t too_many = PASCAL_KERN_GEMM_STAGES_MAX + 1;
  CHECK(pascal_kern_gemm_staged(g.a, g.b, g.c, g.mg, g.ng, g.kg, 0, 1, nullptr) ==
        cudaErrorInvalidValue);
  CHECK(pascal_kern_gemm_staged(g.a, g.b, g.c, g.mg, g.ng, g.kg, too_many, 1, nullptr) ==
        cudaErrorInvalidValue);
  CHECK(pascal_kern_gemm_staged(g.a, g.b, g.c, g.mg, g.ng, 100, 2, 1, nullptr) ==
        cudaErrorInvalidValue);
  CHECK(pascal_kern_gemm_staged(g.a, g.b, g.c, g.mg, g.ng, g.kg, 2, 0, nullptr) ==
        cudaErrorInvalidValue);
}

void test_occupancy(const pcu_info &in)
{
  for (int tma = 0; tma <= 1; ++tma)
    for (uint32_t o = 1; o <= 4; ++o) {
      pascal_kern_open_config cfg{o, tma, tma ? 2u : 0u, 0, kB};
      if (!fits(cfg, in))
        continue;
      pascal_kern_open_plan plan;
      CHECK(pascal_kern_open_plan_make(0, &cfg, &plan) == cudaSuccess);
      CHECK_INT(plan.occupancy, o);
      /* Independent of the occupancy API: o CTAs fit in one SM's shared
       * memory and o + 1 do not, even allowing each CTA 2 KiB beyond its
       * dynamic size (1 KiB reserved, static scratch, allocation granularity). */
      CHECK(o * plan.smem_bytes <= in.smem_per_sm);
      CHECK((o + 1) * (plan.smem_bytes + 2048) > in.smem_per_sm);
    }
  pascal_kern_open_config too_many{64, 0, 0, 0, kB};
  pascal_kern_open_plan plan;
  CHECK(pascal_kern_open_plan_make(0, &too_many, &plan) == cudaErrorInvalidConfiguration);
}

void test_scans_correct(pcu_rig *rig)
{
  pascal_error err;
  pcu_sample s;
  /* The last two are corners of the H100 plan: d = 1 with nothing primed
   * at two CTAs per SM, and the deepest pipeline (d = 6) at two CTAs. */
  const pascal_kern_open_config cfgs[] = {{1, 0, 0, 4, kB},   {2, 0, 0, 0, kB}, {1, 1, 1, 0, kB},
                                          {1, 1, 2, 3, kB},   {1, 1, 4, 8, kB}, {2, 1, 3, 1, kB},
                                          {1, 1, 4, 0, 4096}, {2, 1, 1, 2, kB}, {2, 1, 6, 5, kB}};
  for (const pascal_kern_open_config &c : cfgs) {
    if (!fits(c, rig->info()))
      continue;
    check_status(rig->run_open_scan(c, 257, 2, &s, &err), err, "open scan");
    printf("open scan o=%u %s d=%u m=%u N=257 W=2: fill %.0f bytes, %.1f us\n", c.o,
           c.tma ? "tma" : "sync", c.d, c.m, s.fill_bytes, s.kernel_ns / 1e3);
  }
  const pascal_gemm_params own{};
  check_status(rig->run_gemm(own, 512, 640, 1024, &s, &err), err, "gemm");
  printf("gemm 512x640x1024: fill %.0f bytes (cold inputs %d), %.1f us\n", s.fill_bytes,
         2 * (512 + 640) * 1024, s.kernel_ns / 1e3);
  /* Cold inputs must be read at least once. */
  CHECK(s.fill_bytes >= 0.8 * 2.0 * (512 + 640) * 1024);
}

/* Attention (docs/attention.md) at depths 1-3 and one and two CTAs per SM:
 * every run checks eight output rows against the host reference; the cold
 * query tiles and K/V steps are read at least once. Then one run past the
 * cache (N = 4 C, W = 8 at o = 2, d = 2) prints its query-adjusted K. */
void test_attention(pcu_rig *rig)
{
  pascal_error err;
  pcu_sample s;
  const pcu_info &in = rig->info();
  for (uint32_t o = 1; o <= 2; ++o)
    for (uint32_t d = 1; d <= 3; ++d) {
      const uint64_t n = 37, w = 2, heads = (uint64_t)in.sm_count * o;
      const pascal_status st = rig->run_attention(o, d, n, w, &s, &err);
      if (st != PASCAL_OK && strstr(err.message, "reachable"))
        continue; /* the occupancy may not be reachable on a small-memory device */
      check_status(st, err, "attention");
      if (st != PASCAL_OK)
        continue;
      const double cold = heads * w * 8192.0 + n * 16384.0;
      printf("attention o=%u stages=%u N=%llu W=%llu: fill %.0f bytes (cold %.0f), %.1f us\n", o, d,
             (unsigned long long)n, (unsigned long long)w, s.fill_bytes, cold, s.kernel_ns / 1e3);
      CHECK(s.fill_bytes >= 0.8 * cold);
    }
  const uint64_t c = in.l2_bytes / 16384u, n = 4 * c, w = 8, heads = 2ull * in.sm_count;
  if (rig->run_attention(2, 2, n, w, &s, &err) == PASCAL_OK) {
    const double q = heads * w * 8192.0;
    printf("attention o=2 stages=2 N=%llu (4 C) W=%llu: fill %.0f bytes, K = %.3f, %.1f ms\n",
           (unsigned long long)n, (unsigned long long)w, s.fill_bytes,
           (s.fill_bytes - q) / (16384.0 * w * n), s.kernel_ns / 1e6);
  } else {
    printf("attention at 4 C: %s\n", err.message);
  }
}

void test_counters(pcu_rig *rig)
{
  const pcu_info &in = rig->info();
  pascal_error err;
  /* Cold read far larger than L2: fills ~ logical bytes, for the chosen
   * metric and for every cross-check metric. */
  const pcu_cold_read &cold = rig->cold_read();
  for (size_t i = 0; i < cold.metrics.size(); ++i)
    printf("cold read %.0f bytes: %s = %.4f x\n", cold.bytes, cold.metrics[i].name.c_str(),
           cold.values[i] / cold.bytes);
  std::vector<double> v;
  const uint64_t big = 4 * in.l2_bytes;
  check_status(rig->measure_cold_read(big, {rig->metric()}, &v, &err), err, "cold read");
  if (!v.empty())
    CHECK_NEAR(v[0] / (double)big, 1.0, 0.2);
  for (size_t i = 0; i < cold.metrics.size(); ++i)
    if (cold.metrics[i].name != rig->metric().name &&
        cold.metrics[i].name.find("fill_device") != std::string::npos)
      CHECK_NEAR(cold.values[i] / cold.bytes, 1.0, 0.2); /* GH100 cross-check */

  /* A scan of L2/4 over 4 waves: later waves hit, fills ~ its size once. */
  pcu_sample s;
  const uint64_t n = in.l2_bytes / 4 / kB;
  check_status(rig->run_open_scan({1, 0, 0, 0, kB}, n, 4, &s, &err), err, "small scan");
  printf("scan of L2/4 (%llu blocks), W=4: fill / size = %.4f\n", (unsigned long long)n,
         s.fill_bytes / ((double)n * kB));
  CHECK_NEAR(s.fill_bytes / ((double)n * kB), 1.0, 0.2);
}

/* Cluster experiment (paper Section 5.2): M = SMs, c clusters with equally
 * spaced phases, CTAs assigned round-robin, H = 4000 rounds; N = 4 x L2 in
 * blocks, C taken as half of L2 (the expectations below hold for any C
 * from 512 blocks up to N). */
double static_case(pcu_rig *rig, const std::vector<uint32_t> &phases, uint64_t n, uint64_t rounds,
                   const char *label)
{
  pascal_error err;
  pcu_sample s;
  pascal_status st = rig->run_static_scan(phases, n, kB, rounds, &s, &err);
  check_status(st, err, label);
  return st == PASCAL_OK ? s.fill_bytes / ((double)kB * rounds) : -1.0;
}

void test_static_clusters(pcu_rig *rig)
{
  const pcu_info &in = rig->info();
  const uint32_t m = in.sm_count;
  const uint64_t n = 4 * in.l2_bytes / kB, c_model = in.l2_bytes / 2 / kB, rounds = 4000;
  std::vector<uint32_t> counts = {1, 2, 3, 4, 6, 8, 12, 16, m / 4, m / 2, m};
  double worst = 0;
  for (uint32_t c : counts) {
    if (c == 0 || c > m)
      continue;
    std::vector<uint32_t> phases(m);
    std::vector<uint64_t> ph64(m);
    for (uint32_t w = 0; w < m; ++w)
      ph64[w] = phases[w] = (uint32_t)((w % c) * n / c);
    const gap_law want = gap_law_eval(ph64, n, c_model, rounds);
    CHECK_INT(want.k, c); /* equal gaps N/c > C: every cluster pays its own fill */
    const double k = static_case(rig, phases, n, rounds, "static clusters");
    const double rel = fabs(k - want.k_run) / want.k_run;
    worst = std::max(worst, rel);
    printf("static clusters c=%u: K = %.3f, gap law %.3f (%.1f %%)\n", c, k, want.k_run, 100 * rel);
    CHECK(rel < 0.15);
  }
  /* Packed clusters: 8 phases 64 blocks apart share through L2 (steady-state
   * K = 1 although D = 8; over H rounds K = 1 + 448 / H). */
  std::vector<uint32_t> phases(m);
  std::vector<uint64_t> ph64(m);
  for (uint32_t w = 0; w < m; ++w)
    ph64[w] = phases[w] = (w % 8) * 64;
  const gap_law want = gap_law_eval(ph64, n, c_model, rounds);
  CHECK_INT(want.k, 1);
  CHECK_NEAR(want.k_run, 1.0 + 448.0 / rounds, 1e-12);
  const double k = static_case(rig, phases, n, rounds, "static packed");
  printf("static packed clusters (8 phases 64 apart): K = %.3f, gap law %.3f\n", k, want.k_run);
  CHECK(fabs(k - want.k_run) / want.k_run < 0.15);
  printf("static cluster experiment: worst relative error %.1f %%\n", 100 * worst);
}

/* Open scan: some deep TMA pipeline separates (K > 1.05), as in the paper's
 * depth sweep (d = 4 at W = 32 on GB10 reached K = 5.58). Depths 3..8 at
 * o = 1 and 4, 6 at o = 2, where the buffers fit in shared memory. */
void test_open_divergence(pcu_rig *rig)
{
  const pcu_info &in = rig->info();
  const uint64_t n = 2 * in.l2_bytes / kB, w = 32;
  double best = 0;
  const pascal_kern_open_config cfgs[] = {{1, 0, 0, 0, kB}, {1, 1, 3, 0, kB}, {1, 1, 4, 0, kB},
                                          {1, 1, 6, 0, kB}, {1, 1, 8, 0, kB}, {2, 0, 0, 0, kB},
                                          {2, 1, 4, 0, kB}, {2, 1, 6, 0, kB}};
  for (const pascal_kern_open_config &c : cfgs) {
    if (!fits(c, in))
      continue;
    pascal_error err;
    pcu_sample s;
    check_status(rig->run_open_scan(c, n, w, &s, &err), err, "open scan divergence");
    const double k = s.fill_bytes / ((double)kB * w * n);
    printf("open scan o=%u %s d=%u N=%llu W=%llu: K = %.3f, %.1f ms\n", c.o, c.tma ? "tma" : "sync",
           c.d, (unsigned long long)n, (unsigned long long)w, k, s.kernel_ns / 1e6);
    if (c.tma)
      best = std::max(best, k);
  }
  CHECK(best > 1.05);
}

/* What a measured run costs besides its kernel: CUPTI adds time, and a run
 * without it still flushes L2 and synchronizes. */
void test_run_cost(pcu_rig *rig)
{
  pcu_run_cost c;
  pascal_error err;
  check_status(rig->measure_cost(9, &c, &err), err, "run cost");
  printf("run cost: %.4f s with CUPTI, %.4f s without\n", c.with_cupti_s, c.without_cupti_s);
  CHECK(c.without_cupti_s > 0 && c.with_cupti_s > c.without_cupti_s);
}

/* As the agent uses the backend: a job measured on a thread of its own
 * (bound to the device first), and a kernel fault, which loses the context
 * for every later call, followed by a fresh rig on a reset device that
 * measures again (CUPTI stays initialized across the reset: it is
 * initialized once per process). */
void test_thread_and_fault(void)
{
  pcu_rig *rig = nullptr;
  pascal_error err;
  check_status(pcu_rig::open(0, &rig, &err), err, "open");
  if (rig == nullptr)
    return;
  pascal_status st = PASCAL_EINVAL;
  std::thread runner([&] {
    pcu_sample s;
    st = rig->bind_thread(&err);
    if (st == PASCAL_OK)
      st = rig->run_open_scan({1, 1, 2, 1, kB}, 257, 2, &s, &err);
  });
  runner.join();
  check_status(st, err, "scan on a runner thread");

  pcu_rig::drop_if_lost(&rig); /* a healthy context is kept */
  CHECK(rig != nullptr);
  /* The fault: an mbarrier wait that nothing completes, bounded at 2^24
   * cycles (about 10 ms), traps instead of hanging the process. */
  printf("provoking a kernel fault (a TMA wait past its bound), then reopening the device\n");
  CHECK(pascal_kern_tma_stall(1ull << 24, nullptr) == cudaSuccess);
  const cudaError_t fault = cudaDeviceSynchronize();
  printf("the stalled wait ended with: %s\n", cudaGetErrorString(fault));
  CHECK(fault != cudaSuccess); /* a trap: the context is lost */
  pcu_rig::drop_if_lost(&rig);
  CHECK(rig == nullptr);
  check_status(pcu_rig::open(0, &rig, &err), err, "open after the fault");
  if (rig == nullptr)
    return;
  pcu_sample s;
  check_status(rig->run_open_scan({1, 1, 2, 1, kB}, 257, 2, &s, &err), err, "scan after the fault");
  printf("measured again after the fault: fill %.0f bytes\n", s.fill_bytes);
  delete rig;
}

} // namespace

void test_cublaslt(pcu_rig *rig)
{
  pascal_error err;
  pcu_sample s;
  const pcu_cublaslt *lib = nullptr;
  pascal_gemm_params g{};
  g.impl = PASCAL_GEMM_IMPL_CUBLASLT;
  g.tile_m = 128, g.tile_n = 128, g.tile_k = 64, g.split_k = 1;
  if (rig->cublaslt(&lib, &err) != PASCAL_OK) {
    printf("cuBLASLt not loaded: %s\n", err.message);
    CHECK(rig->run_gemm(g, 512, 640, 1024, &s, &err) == PASCAL_ENOTFOUND);
    CHECK(strcmp(err.field, "impl") == 0);
    /* a configuration the own staged kernel lacks fails naming both */
    std::string ran;
    const pascal_gemm_config other = {64, 64, 64, 2, 4, 1};
    CHECK(rig->run_gemm_config(other, 512, 640, 1024, &s, &ran, &err) == PASCAL_ENOTFOUND);
    return;
  }
  printf("cuBLASLt %s, version %zu\n", lib->path().c_str(), lib->version());
  pcu_lt_gemm *lt = nullptr;
  pascal_cublaslt_config h;
  pcu_lt_caps cap;
  check_status(pcu_lt_gemm::create(lib, 512, 640, 1024, &lt, &err), err, "cuBLASLt GEMM");
  if (lt == nullptr)
    return;
  check_status(lt->use_heuristic(&h, &err), err, "cuBLASLt heuristic");
  check_status(lt->caps(h.algo, &cap, &err), err, "cuBLASLt caps");
  char what[128];
  pascal_cublaslt_describe(&h, what, sizeof what);
  printf("cuBLASLt heuristic for 512x640x1024: %s; algo lists %zu tiles, %zu stages\n", what,
         cap.tiles.size(), cap.stages.size());
  if (pascal_cublaslt_decode(&h, &g, &err) == PASCAL_OK && 512 % g.tile_m == 0 &&
      640 % g.tile_n == 0 && 1024 % g.tile_k == 0) {
    check_status(rig->run_gemm(g, 512, 640, 1024, &s, &err), err, "cuBLASLt job");
    printf("cuBLASLt job 512x640x1024: fill %.0f bytes, %.1f us\n", s.fill_bytes,
           s.kernel_ns / 1e3);
    CHECK(s.fill_bytes >= 0.8 * 2.0 * (512 + 640) * 1024);
  } else {
    printf("cuBLASLt heuristic configuration not a job for 512x640x1024: %s\n", err.message);
  }
  /* the heuristic's full configuration set explicitly (Hopper's custom
   * option, inner and cluster shape included) passes cublasLtMatmulAlgoCheck;
   * on an H100 without those three it was refused NOT_SUPPORTED */
  pascal_error_clear(&err);
  check_status(lt->use_config(h, &err), err, "cuBLASLt heuristic's configuration, explicit");
  /* a tile the algo does not list: refused, never replaced */
  for (uint32_t t : {1u, 25u, 35u}) {
    bool listed = false;
    for (uint32_t v : cap.tiles)
      listed = listed || v == t;
    if (listed || (cap.tiles.size() == 1 && cap.tiles[0] == 0))
      continue;
    pascal_cublaslt_config c = h;
    c.tile_id = t;
    pascal_error_clear(&err);
    CHECK(lt->use_config(c, &err) == PASCAL_EINVAL);
    CHECK(strcmp(err.field, "gemm") == 0 && strstr(err.message, "cuBLASLt rejects") != nullptr);
    printf("refused as it must be: %s\n", err.message);
    break;
  }
  delete lt;
  /* a configuration the own staged kernel lacks: cuBLASLt with its tile and
   * stages on a heuristic answer's launch attributes, its output checked,
   * or refused in one line (an H100 refuses every explicit stage count) */
  const pascal_gemm_config other = {64, 64, 64, 2, 4, 1};
  std::string ran;
  pascal_error_clear(&err);
  if (rig->run_gemm_config(other, 512, 640, 1024, &s, &ran, &err) == PASCAL_OK) {
    printf("configuration job 64x64x64x4 512x640x1024: fill %.0f bytes, %.1f us on %s\n",
           s.fill_bytes, s.kernel_ns / 1e3, ran.c_str());
    CHECK(ran.rfind("cuBLASLt", 0) == 0 && s.fill_bytes >= 0.8 * 2.0 * (512 + 640) * 1024);
  } else {
    printf("configuration job 64x64x64x4 refused: %s\n", err.message);
    CHECK(strcmp(err.field, "gemm") == 0 && strchr(err.message, '\n') == nullptr);
  }
  pcu_gemm_bench b;
  check_status(pcu_gemm_bench_run(lib, &b, &err), err, "GEMM bench");
  pcu_gemm_bench_print(stdout, b);
  CHECK(b.own.tflops > 0 && b.have_cublaslt);
}

/* Part 8: every run of the device's gemm-configs plan, as the agent runs it
 * (pcu_rig::run_gemm_config), with what it measured. */
void test_configs(pcu_rig *rig)
{
  const pcu_info &in = rig->info();
  pascal_plan_device dev = {};
  dev.capacity_blocks = 1;
  dev.block_bytes = 16384;
  dev.smem_per_sm = in.smem_per_sm;
  pascal_plan plan;
  pascal_plan_init(&plan);
  pascal_error err;
  check_status(pascal_plan_generate(&dev, PASCAL_PLAN_KIND_GEMM_CONFIGS, 1, &plan, &err), err,
               "gemm-configs plan");
  for (size_t i = 0; i < plan.n_shapes; i++)
    for (size_t j = 0; j < plan.n_configs; j++) {
      const pascal_plan_shape &sh = plan.shapes[i];
      const pascal_gemm_config &c = plan.configs[j];
      pcu_sample s;
      std::string note;
      pascal_error_clear(&err);
      const pascal_status st = rig->run_gemm_config(c, (uint32_t)sh.Mg, (uint32_t)sh.Ng,
                                                    (uint32_t)sh.Kg, &s, &note, &err);
      printf("config %ux%ux%u stages %u on %llux%llux%llu: ", c.tile_m, c.tile_n, c.tile_k,
             c.stages, (unsigned long long)sh.Mg, (unsigned long long)sh.Ng,
             (unsigned long long)sh.Kg);
      if (st != PASCAL_OK) {
        printf("FAILED %s\n", err.message);
        CHECK(st == PASCAL_OK);
        continue;
      }
      printf("%.1f TFLOP/s, fill %.0f bytes%s%s\n",
             2.0 * (double)sh.Mg * (double)sh.Ng * (double)sh.Kg / (double)s.kernel_ns / 1e3,
             s.fill_bytes, note.empty() ? "" : "; ", note.c_str());
      CHECK(s.fill_bytes >= 0.8 * 2.0 * (double)(sh.Mg + sh.Ng) * (double)sh.Kg);
      CHECK(note == "the project's own staged kernel"); /* the plan's list is the own kernel's */
    }
  pascal_plan_free(&plan);
}

int main(int argc, char **argv)
{
#ifdef __SANITIZE_ADDRESS__
  /* CUPTI dlopens libnvperf_host.so with RTLD_DEEPBIND, which the
   * AddressSanitizer runtime refuses: run this test in the normal build. */
  printf("SKIPPED: CUPTI cannot run under AddressSanitizer\n");
  return SKIP_CODE;
#endif
  /* Line-buffered even into a file (measure.sh's selftest log): a run killed
   * by its timeout still shows how far it got. */
  setvbuf(stdout, nullptr, _IOLBF, 0);
  int count = 0;
  cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess || count == 0) {
    printf("SKIPPED: no CUDA device (%s)\n",
           e != cudaSuccess ? cudaGetErrorString(e) : "device count is 0");
    return SKIP_CODE;
  }
  pcu_rig *rig = nullptr;
  pascal_error err;
  if (pcu_rig::open(0, &rig, &err) != PASCAL_OK) {
    fprintf(stderr, "cannot open the device for measurement: %s\n", err.message);
    return 1;
  }
  const pcu_info &in = rig->info();
  printf("device %s sm_%d%d chip %s, %u SMs, L2 %llu bytes, metric %s\n", in.name.c_str(),
         in.cc_major, in.cc_minor, in.chip.c_str(), in.sm_count, (unsigned long long)in.l2_bytes,
         rig->metric().name.c_str());
  if (argc > 1 && strcmp(argv[1], "attention") == 0) { /* measure.sh's attention check */
    test_attention(rig);
    delete rig;
    return check_summary();
  }
  if (argc > 1 && strcmp(argv[1], "configs") == 0) { /* the configs phase's runs alone */
    test_configs(rig);
    delete rig;
    return check_summary();
  }
  test_gemm_full();
  test_gemm_staged();
  test_occupancy(in);
  test_scans_correct(rig);
  test_attention(rig);
  test_counters(rig);
  test_static_clusters(rig);
  test_open_divergence(rig);
  test_run_cost(rig);
  test_cublaslt(rig);
  test_configs(rig);
  delete rig;
  test_thread_and_fault();
  return check_summary();
}
