/*
 * test_cuda_offline.cpp - the parts of the cuda backend that need no GPU,
 * run in CI: the fill-metric choice per chip from CUPTI's host metric tables
 * (works without a driver), the cold-read metric pick, the capacity-scan
 * proposal of C, job validation, the host references the kernels are checked
 * against, the device peaks from timed repeats (medians, units, no partial
 * peaks), and clear errors from the backend when no device is present.
 */
#include <stdio.h>
#include <string.h>

#include <string>
#include <vector>

extern "C" {
#include "check.h"
}
#include "backend.h"
#include "capacity.h"
#include "cuda_probe.h"
#include "cupti_session.h"
#include "fill_metric.h"
#include "job_check.h"
#include "peak_bench.h"
#include "peak_math.h"
#include "reference.h"

#include <cuda_runtime.h>

/* CUPTI 13.0's tables, as listed by the Profiler Host API for each chip.
 * Not under AddressSanitizer: CUPTI's host API dlopens libnvperf_host.so with
 * RTLD_DEEPBIND, which the ASan runtime refuses (google/sanitizers#611). */
#ifndef __SANITIZE_ADDRESS__
static std::vector<std::string> names(const std::vector<pcu_fill_metric> &v)
{
  std::vector<std::string> out;
  for (const pcu_fill_metric &m : v)
    out.push_back(m.name);
  return out;
}

static void test_fill_choice(void)
{
  pcu_fill_choice c;
  pascal_error err;
  /* H100/H200: DRAM read bytes, cross-checked with L2 fills from device memory. */
  CHECK_INT(pcu_fill_choice_resolve("GH100", nullptr, &c, &err), PASCAL_OK);
  CHECK(!c.empirical);
  CHECK(names(c.candidates) == std::vector<std::string>{"dram__bytes_read.sum"});
  CHECK(names(c.checks) == std::vector<std::string>{"lts__d_sectors_fill_device.sum"});
  CHECK(c.candidates[0].bytes_per_unit == 1.0 && c.checks[0].bytes_per_unit == 32.0);
  /* GB10 (GB20B): no dram__ metric; both L2 fill apertures are candidates. */
  CHECK_INT(pcu_fill_choice_resolve("GB20B", nullptr, &c, &err), PASCAL_OK);
  CHECK(c.empirical);
  CHECK((names(c.candidates) == std::vector<std::string>{"lts__d_sectors_fill_device.sum",
                                                         "lts__d_sectors_fill_sysmem.sum"}));
  CHECK(c.checks.empty());
  /* Thor (GB10B): only the sysmem fill counter exists. */
  CHECK_INT(pcu_fill_choice_resolve("GB10B", nullptr, &c, &err), PASCAL_OK);
  CHECK(c.empirical);
  CHECK(names(c.candidates) == std::vector<std::string>{"lts__d_sectors_fill_sysmem.sum"});
  /* B200 (GB100) has DRAM bytes like GH100. */
  CHECK_INT(pcu_fill_choice_resolve("GB100", nullptr, &c, &err), PASCAL_OK);
  CHECK(!c.empirical && c.candidates[0].name == "dram__bytes_read.sum");
  /* A chip CUPTI does not know is an error that names it. */
  CHECK_INT(pcu_fill_choice_resolve("XY999", nullptr, &c, &err), PASCAL_ENOTFOUND);
  CHECK(strstr(err.message, "XY999") != nullptr);

  bool known = true;
  CHECK_INT(pcu_cupti_metric_known("GB10B", nullptr, "dram__bytes_read.sum", &known, &err),
            PASCAL_OK);
  CHECK(!known);
  size_t passes = 0;
  CHECK_INT(pcu_cupti_pass_count("GH100", nullptr,
                                 {"dram__bytes_read.sum", "lts__d_sectors_fill_device.sum"},
                                 &passes, &err),
            PASCAL_OK);
  CHECK_INT(passes, 1);
  CHECK_INT(pcu_cupti_pass_count("GB10B", nullptr, {"dram__bytes_read.sum"}, &passes, &err),
            PASCAL_ENOTFOUND);
  CHECK(strstr(err.message, "dram__bytes_read.sum") != nullptr);
}

/* The metric lists a GPU run reads, from the same choice and list the rig
 * uses (cuda_rig.cpp): the open-time cold read (candidates, then checks) and
 * every measured run (one candidate). Each must build a config image and
 * fit in one replay pass, so that no run is replayed and none fails on the
 * first GPU. */
static void test_run_metric_lists(void)
{
  for (const char *chip : {"GH100", "GB100", "GB20B", "GB10B"}) {
    pcu_fill_choice c;
    pascal_error err;
    CHECK_INT(pcu_fill_choice_resolve(chip, nullptr, &c, &err), PASCAL_OK);
    const std::vector<std::string> cold = names(pcu_fill_cold_read_metrics(c));
    CHECK_INT(cold.size(), c.candidates.size() + c.checks.size());
    size_t passes = 0;
    CHECK_INT(pcu_cupti_pass_count(chip, nullptr, cold, &passes, &err), PASCAL_OK);
    CHECK_INT(passes, 1);
    for (const std::string &m : names(c.candidates)) {
      passes = 0;
      CHECK_INT(pcu_cupti_pass_count(chip, nullptr, {m}, &passes, &err), PASCAL_OK);
      CHECK_INT(passes, 1);
    }
  }
}
#endif

static void test_fill_pick(void)
{
  /* 1e9 bytes read once: 0.95e9 is in range and closer (in log) than 1.25e9. */
  CHECK_INT(pcu_fill_pick({1.25e9, 0.95e9}, 1e9), 1);
  CHECK_INT(pcu_fill_pick({0.0, 1.1e9}, 1e9), 1);
  CHECK_INT(pcu_fill_pick({0.5e9, 2e9}, 1e9), -1);
  CHECK_INT(pcu_fill_pick({}, 1e9), -1);
  CHECK_INT(pcu_fill_pick({0.8e9}, 1e9), 0);
}

static void test_capacity_propose(void)
{
  std::vector<pcu_capacity_row> rows = {
      {100, 1.00, 1}, {200, 1.02, 1}, {300, 1.09, 1}, {400, 1.6, 1}, {500, 1.05, 1}};
  /* Stops at the first size past 10 %: a later dip does not count. */
  CHECK_INT(pcu_capacity_propose(rows), 300);
  rows[0].ratio = 1.2;
  CHECK_INT(pcu_capacity_propose(rows), 0);
  CHECK_INT(pcu_capacity_propose({}), 0);
}

static pascal_backend_job scan_job(void)
{
  pascal_backend_job j;
  memset(&j, 0, sizeof j);
  j.run.workload = PASCAL_PLAN_SCAN;
  j.run.key.o = 1;
  j.run.key.path = PASCAL_PLAN_TMA;
  j.run.key.d = 4;
  j.run.key.m = 8;
  j.run.N = 4096;
  j.run.W = 16;
  j.block_bytes = 16384;
  return j;
}

static void expect_field(pascal_backend_job j, const char *field)
{
  pascal_error err;
  pascal_error_clear(&err);
  CHECK(pcu_job_check(&j, 80ull << 30, &err) != PASCAL_OK);
  CHECK(strcmp(err.field, field) == 0);
}

static void test_job_check(void)
{
  pascal_error err;
  pascal_backend_job j = scan_job();
  CHECK_INT(pcu_job_check(&j, 80ull << 30, &err), PASCAL_OK);
  j.run.key.o = 0;
  expect_field(j, "o");
  j = scan_job();
  j.run.key.path = PASCAL_PLAN_SYNC;
  expect_field(j, "d"); /* sync with d = 4 */
  j.run.key.d = 0;
  CHECK_INT(pcu_job_check(&j, 80ull << 30, &err), PASCAL_OK);
  j = scan_job();
  j.run.key.d = 0;
  expect_field(j, "d");
  j = scan_job();
  j.run.key.d = 17;
  expect_field(j, "d");
  j = scan_job();
  j.run.N = 0;
  expect_field(j, "N");
  j = scan_job();
  j.run.N = 1ull << 40;
  expect_field(j, "N");
  j = scan_job();
  j.run.W = 0;
  expect_field(j, "W");
  j = scan_job();
  j.block_bytes = 1000;
  expect_field(j, "block_bytes");
  j = scan_job();
  j.run.key.m = 1u << 20;
  expect_field(j, "m");
  j = scan_job();
  j.run.key.path = (pascal_plan_path)2;
  expect_field(j, "path");
  j = scan_job();
  j.run.workload = PASCAL_PLAN_GEMM;
  j.run.shape.Mg = 640;
  j.run.shape.Ng = 896;
  j.run.shape.Kg = 1280;
  CHECK_INT(pcu_job_check(&j, 80ull << 30, &err), PASCAL_OK);
  j.run.shape.Mg = 100;
  expect_field(j, "Mg");
  j.run.shape.Mg = 640;
  j.run.shape.Ng = 0;
  expect_field(j, "Ng");
  j.run.shape.Ng = 896;
  j.run.shape.Kg = 96;
  expect_field(j, "Kg");
  CHECK(pcu_job_check(nullptr, 1, &err) == PASCAL_EINVAL);
}

static void test_references(void)
{
  /* Block sums against a direct sum of words; static checksum against a
   * round-by-round loop, including more than one lap. */
  const uint64_t n = 5;
  const uint32_t b = 64; /* 16 words per block */
  std::vector<uint32_t> sums = pascal_ref_block_sums(n, b);
  uint32_t all = 0;
  for (uint64_t i = 0; i < n * 16; ++i)
    all += pascal_ref_word(i);
  CHECK_INT(pascal_ref_open_checksum(sums), all);
  uint32_t s2 = 0;
  for (uint64_t i = 2 * 16; i < 3 * 16; ++i)
    s2 += pascal_ref_word(i);
  CHECK_INT(sums[2], s2);
  for (uint64_t phase = 0; phase < n; ++phase)
    for (uint64_t rounds : {0ull, 3ull, 5ull, 12ull}) {
      uint32_t want = 0;
      for (uint64_t k = 0; k < rounds; ++k)
        want += sums[(k + phase) % n];
      CHECK_INT(pascal_ref_static_checksum(sums, phase, rounds), want);
    }
  /* GEMM inputs are quarter steps in [-1/2, 1/2]; C is their dot product. */
  for (uint64_t i = 0; i < 1000; ++i) {
    const float v = pascal_ref_gemm_value(1, i);
    CHECK(v >= -0.5f && v <= 0.5f && v * 4.0f == (float)(int)(v * 4.0f));
  }
  double dot = 0;
  for (uint32_t k = 0; k < 64; ++k)
    dot += (double)pascal_ref_gemm_value(1, 3 * 64 + k) * pascal_ref_gemm_value(2, 5 * 64 + k);
  CHECK_NEAR(pascal_ref_gemm_element(64, 3, 5), dot, 0.0);
}

/* Without a device, open and probe fail with a message, never a crash. */
static void test_no_device_errors(void)
{
  const pascal_backend_ops *ops = pascal_backend_cuda_ops();
  CHECK(ops != nullptr && strcmp(ops->name, "cuda") == 0);
  pascal_error err;
  pascal_backend *b = nullptr;
  CHECK_INT(ops->open("zero", &b, &err), PASCAL_EINVAL);
  CHECK(strcmp(err.field, "profile") == 0);
  int count = 0;
  if (cudaGetDeviceCount(&count) == cudaSuccess && count > 0)
    return; /* GPU host: see test_gpu */
  pascal_error_clear(&err);
  CHECK_INT(ops->open(nullptr, &b, &err), PASCAL_ENOTFOUND);
  CHECK(strstr(err.message, "no CUDA device") != nullptr);
  pascal_backend_device dev;
  CHECK_INT(pascal_cuda_probe(stdout, 0, 0, &dev, &err), PASCAL_ENOTFOUND);
  CHECK_INT(pascal_cuda_probe(stdout, 1000, 0, &dev, &err), PASCAL_EINVAL);
}

static void test_peak_median(void)
{
  CHECK(pcu_peak_median({3, 1, 2}) == 2);
  CHECK(pcu_peak_median({4, 1, 3, 2}) == 2.5);
  CHECK(pcu_peak_median({7}) == 7);
  CHECK(pcu_peak_median({}) != pcu_peak_median({})); /* NaN */
  /* an outlier moves the mean, not the median */
  CHECK(pcu_peak_median({1.0, 1.1, 0.9, 50.0, 1.05}) == 1.05);
}

/* Three repeats of every benchmark, numbers chosen by hand: a 512 MiB read
 * in 2, 2.2 and 1.9 ms (median 2 ms: 268.435456 GB/s), 4 GiB of L2 reads in
 * 0.5, 0.4, 0.45 ms (median 0.45 ms), 1e12 FLOPs in 5 ms (200 TFLOP/s), 2e7
 * cycles in 10 ms, 10.5 ms and 20e6/9.8e6... (median ratio 2 GHz), and 1000
 * launches in 2.1, 2.0, 2.4 ms (median 2.1 us each). */
static pcu_peak_samples hand_samples(void)
{
  pcu_peak_samples s;
  s.dram_bytes = 512.0 * (1 << 20);
  s.dram_s = {2e-3, 2.2e-3, 1.9e-3};
  s.l2_bytes = 4.0 * (1u << 30);
  s.l2_s = {0.5e-3, 0.4e-3, 0.45e-3};
  s.mma_flops = 1e12;
  s.mma_s = {5e-3, 5.5e-3, 4e-3};
  s.clock_cycles = {2e7, 2.1e7, 1.9e7};
  s.clock_s = {10e-3, 10e-3, 10e-3}; /* 2.0, 2.1, 1.9 GHz */
  s.launches = 1000;
  s.launch_s = {2.1e-3, 2.0e-3, 2.4e-3};
  return s;
}

static void test_peaks_from_samples(void)
{
  pascal_peaks p;
  pascal_error err;
  pcu_peak_samples s = hand_samples();
  CHECK_INT(pcu_peaks_from_samples(s, &p, &err), PASCAL_OK);
  CHECK_NEAR(p.dram_bytes_per_s, 512.0 * (1 << 20) / 2e-3, 1e-3);
  CHECK_NEAR(p.l2_bytes_per_s, 4.0 * (1u << 30) / 0.45e-3, 1e-3);
  CHECK_NEAR(p.tensor_flops, 2e14, 1e-3);
  CHECK_NEAR(p.sm_clock_hz, 2e9, 1e-3);
  CHECK_NEAR(p.launch_s, 2.1e-6, 1e-18);

  /* One failed or missing benchmark: no peaks at all, *out untouched, and
   * the message names the peak. */
  const pascal_peaks before = {1, 2, 3, 4, 5};
  struct broken {
    const char *field;
    void (*breakit)(pcu_peak_samples &);
  } cases[] = {
      {"dram_bytes_per_s", [](pcu_peak_samples &t) { t.dram_s.clear(); }},
      {"dram_bytes_per_s", [](pcu_peak_samples &t) { t.dram_s[1] = 0; }},
      {"l2_bytes_per_s", [](pcu_peak_samples &t) { t.l2_s[2] = -1; }},
      {"l2_bytes_per_s", [](pcu_peak_samples &t) { t.l2_s.pop_back(); }},
      {"tensor_flops", [](pcu_peak_samples &t) { t.mma_s[0] = 0.0 / 0.0; }},
      {"tensor_flops", [](pcu_peak_samples &t) { t.mma_flops = 0; }},
      {"sm_clock_hz", [](pcu_peak_samples &t) { t.clock_cycles[1] = 0; }},
      {"sm_clock_hz", [](pcu_peak_samples &t) { t.clock_s.push_back(1); }},
      {"launch_s", [](pcu_peak_samples &t) { t.launches = 0; }},
      {"launch_s", [](pcu_peak_samples &t) { t.launch_s[0] = 1.0 / 0.0; }},
  };
  for (const broken &c : cases) {
    pcu_peak_samples t = hand_samples();
    c.breakit(t);
    pascal_peaks q = before;
    pascal_error_clear(&err);
    CHECK(pcu_peaks_from_samples(t, &q, &err) != PASCAL_OK);
    CHECK(strcmp(err.field, c.field) == 0);
    CHECK(memcmp(&q, &before, sizeof q) == 0);
  }
}

int main(void)
{
#ifdef __SANITIZE_ADDRESS__
  printf("note: CUPTI host-table checks skipped under AddressSanitizer\n");
#else
  test_fill_choice();
  test_run_metric_lists();
#endif
  test_fill_pick();
  test_capacity_propose();
  test_job_check();
  test_references();
  test_peak_median();
  test_peaks_from_samples();
  test_no_device_errors();
  return check_summary();
}
