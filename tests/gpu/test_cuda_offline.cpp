/*
 * test_cuda_offline.cpp - the parts of the cuda backend that need no GPU,
 * run in CI: the fill-metric choice per chip from CUPTI's host metric tables
 * (works without a driver), the cold-read metric pick, the capacity-scan
 * proposal of C, job validation, the host references the kernels are checked
 * against, the device peaks from timed repeats (medians, units, no partial
 * peaks), clear errors from the backend when no device is present, and
 * cuBLASLt's run-time load: the search order, the one-line fallback to the
 * project's kernel, the real library where this host's toolkit has it, the
 * explicit configurations the probe tries, GEMM jobs per implementation,
 * and attention jobs, the attention kernel's shared memory and its host
 * reference.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <string>
#include <vector>

extern "C" {
#include "check.h"
}
#include "backend.h"
#include "capacity.h"
#include "cublaslt_lib.h"
#include "cuda_probe.h"
#include "cupti_session.h"
#include "fill_metric.h"
#include "gemm_bench.h"
#include "job_check.h"
#include "pascal/attention.h"
#include "pascal_kernels.h"
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
  /* a configuration run is measured in whole tiles of its own tile: 64 x
   * 32 x 32 takes shapes the own kernel's 128 x 128 x 64 refuses, and
   * refuses one off its tile (checked to fail with the own tile used) */
  j.run.config = {64, 32, 32, 2, 3, 1};
  j.run.shape.Mg = 320;
  j.run.shape.Ng = 96;
  j.run.shape.Kg = 96;
  CHECK_INT(pcu_job_check(&j, 80ull << 30, &err), PASCAL_OK);
  j.run.shape.Ng = 100;
  expect_field(j, "Ng");
  j.run.config = {};
  CHECK(pcu_job_check(nullptr, 1, &err) == PASCAL_EINVAL);
}

/* An attention plan's run (docs/attention.md): the kernel's tiling only. */
static pascal_backend_job attention_job(void)
{
  pascal_backend_job j = scan_job();
  j.run.workload = PASCAL_PLAN_ATTENTION;
  j.run.key = {2, PASCAL_PLAN_TMA, 2, 128};
  return j;
}

static void test_attention_job_check(void)
{
  pascal_error err;
  pascal_backend_job j = attention_job();
  CHECK_INT(pcu_job_check(&j, 80ull << 30, &err), PASCAL_OK);
  j.run.key.m = 127;
  expect_field(j, "m");
  j = attention_job();
  j.run.key.path = PASCAL_PLAN_SYNC;
  j.run.key.d = 0;
  expect_field(j, "d");
  j = attention_job();
  j.block_bytes = 32768;
  expect_field(j, "block_bytes");
  j = attention_job();
  j.run.key.o = 0;
  expect_field(j, "o");
  j = attention_job();
  j.run.N = 1ull << 40;
  expect_field(j, "N");
}

/* The attention kernel's shared memory (kernels/attention.cu) is what the
 * plans' occupancy rule counts (pascal_attention_smem_bytes, less the
 * driver's 1 KiB reservation), at every depth the kernel takes. */
static void test_attention_smem(void)
{
  const pascal_attention_params a = PASCAL_ATTENTION_DEFAULT;
  for (uint32_t d = 1; d <= PASCAL_KERN_MAX_DEPTH; ++d)
    CHECK((double)pascal_kern_attention_smem(d) + 1024.0 == pascal_attention_smem_bytes(&a, d));
}

/* The host reference of an attention row against a second computation
 * (the softmax without its maximum subtracted, in long double) and its
 * convexity: every output element lies between the smallest and the
 * largest value of its column. */
static void test_attention_reference(void)
{
  const uint32_t seq_q = 128, seq_kv = 192, heads_per_kv = 2;
  for (uint32_t head = 0; head < 4; head += 3)
    for (uint32_t row = 0; row < seq_q; row += 37) {
      double out[64];
      pascal_ref_attention_row(seq_q, seq_kv, heads_per_kv, head, row, out);
      const uint64_t q0 = ((uint64_t)head * seq_q + row) * 64u;
      const uint64_t kv0 = (uint64_t)(head / heads_per_kv) * seq_kv * 64u;
      long double num[64] = {0}, den = 0;
      double lo[64], hi[64];
      for (uint32_t c = 0; c < 64; ++c)
        lo[c] = 1.0, hi[c] = -1.0;
      for (uint32_t j = 0; j < seq_kv; ++j) {
        long double dot = 0;
        for (uint32_t c = 0; c < 64; ++c)
          dot += (long double)pascal_ref_gemm_value(PASCAL_REF_ATT_SEED_Q, q0 + c) *
                 pascal_ref_gemm_value(PASCAL_REF_ATT_SEED_K, kv0 + j * 64u + c);
        const long double w = expl(dot / 8);
        den += w;
        for (uint32_t c = 0; c < 64; ++c) {
          const double v = pascal_ref_gemm_value(PASCAL_REF_ATT_SEED_V, kv0 + j * 64u + c);
          num[c] += w * v;
          lo[c] = v < lo[c] ? v : lo[c];
          hi[c] = v > hi[c] ? v : hi[c];
        }
      }
      for (uint32_t c = 0; c < 64; ++c) {
        CHECK(fabs(out[c] - (double)(num[c] / den)) < 1e-12);
        CHECK(out[c] >= lo[c] && out[c] <= hi[c]);
      }
    }
}

static pascal_backend_job gemm_job(const pascal_gemm_params &g, uint64_t mg, uint64_t ng,
                                   uint64_t kg)
{
  pascal_backend_job j = scan_job();
  j.run.workload = PASCAL_PLAN_GEMM;
  j.run.shape = {mg, ng, kg};
  j.gemm = g;
  return j;
}

static pascal_status check_job(const pascal_backend_job &j)
{
  return pcu_job_check(&j, 80ull << 30, nullptr);
}

/* GEMM jobs per implementation: the own kernel at its one tile (stated or
 * not), a cuBLASLt configuration that encodes, shapes in whole tiles of the
 * configuration's tile. */
static void test_gemm_job_check(void)
{
  pascal_gemm_params own;
  memset(&own, 0, sizeof own);
  CHECK_INT(check_job(gemm_job(own, 640, 896, 1280)), PASCAL_OK);
  own.tile_m = 128, own.tile_n = 128, own.tile_k = 64;
  CHECK_INT(check_job(gemm_job(own, 640, 896, 1280)), PASCAL_OK);
  pascal_gemm_params g = own;
  g.tile_m = 64;
  expect_field(gemm_job(g, 640, 896, 1280), "gemm.tile_m");
  g = own, g.stages = 3;
  expect_field(gemm_job(g, 640, 896, 1280), "gemm.stages");
  g = own, g.split_k = 1;
  expect_field(gemm_job(g, 640, 896, 1280), "gemm.split_k");
  g = own, g.algo = 66;
  expect_field(gemm_job(g, 640, 896, 1280), "gemm.algo");

  pascal_gemm_params lt = own;
  lt.impl = PASCAL_GEMM_IMPL_CUBLASLT;
  lt.tile_n = 256, lt.stages = 4, lt.algo = 66, lt.cta_swizzling = 1, lt.split_k = 4;
  CHECK_INT(check_job(gemm_job(lt, 1024, 1024, 1280)), PASCAL_OK);
  expect_field(gemm_job(lt, 640, 896, 1280), "Ng"); /* 896 is not a multiple of 256 */
  g = lt, g.tile_k = 128, g.stages = 3;
  CHECK_INT(check_job(gemm_job(g, 1024, 1024, 1280)), PASCAL_OK); /* 10 k-steps of 128 */
  expect_field(gemm_job(g, 1024, 1024, 1216), "Kg");              /* 9.5 */
  g = lt, g.tile_n = 100;
  expect_field(gemm_job(g, 1024, 1000, 1280), "gemm.tile_m");
  g = lt, g.split_k = 0;
  expect_field(gemm_job(g, 1024, 1024, 1280), "gemm.split_k");
}

/* The output of `f` (given a FILE *) as a string. */
template <typename F> static std::string captured(F f)
{
  FILE *tmp = tmpfile();
  std::string text;
  if (tmp == nullptr)
    return text;
  f(tmp);
  rewind(tmp);
  for (int c; (c = fgetc(tmp)) != EOF;)
    text += (char)c;
  fclose(tmp);
  return text;
}

static size_t lines(const std::string &s)
{
  size_t n = 0;
  for (char c : s)
    n += c == '\n';
  return n;
}

/* Where cuBLASLt is looked for, and the probe's one line when it is not
 * there (the GEMM figures are then the project's kernel's). Verified to
 * fail: with the .so.12 names tried before .so.13, or with open() taking
 * PASCAL_CUBLASLT as one candidate among the defaults, the order checks
 * fail. */
static void test_cublaslt_search(void)
{
  const char *keep = getenv("LD_LIBRARY_PATH");
  const std::string saved = keep != nullptr ? keep : "";
  setenv("LD_LIBRARY_PATH", "/opt/a::/opt/b", 1);
  std::vector<std::string> c = pcu_cublaslt::candidates(nullptr);
  CHECK(c.size() >= 8);
  CHECK(c[0] == "/opt/a/libcublasLt.so.13" && c[1] == "/opt/b/libcublasLt.so.13");
  CHECK(c[2] == "/usr/local/cuda/lib64/libcublasLt.so.13");
  size_t bare13 = 0, bare12 = 0, first12 = c.size();
  for (size_t i = 0; i < c.size(); i++) {
    if (c[i] == "libcublasLt.so.13")
      bare13 = i;
    if (c[i] == "libcublasLt.so.12")
      bare12 = i;
    if (c[i].find(".so.12") != std::string::npos && first12 == c.size())
      first12 = i;
  }
  CHECK(bare13 > 2 && bare13 + 1 == first12 && bare12 == c.size() - 1);
  CHECK(pcu_cublaslt::candidates("") == c); /* empty is unset */
  CHECK(pcu_cublaslt::candidates("/x/lib.so") == std::vector<std::string>{"/x/lib.so"});
  if (keep != nullptr)
    setenv("LD_LIBRARY_PATH", saved.c_str(), 1);
  else
    unsetenv("LD_LIBRARY_PATH");

  pcu_cublaslt *lib = nullptr;
  std::string why;
  CHECK(!pcu_cublaslt::open("/nonexistent", &lib, &why) && lib == nullptr);
  CHECK(why.find("PASCAL_CUBLASLT=/nonexistent") != std::string::npos);
  const std::string line =
      captured([&](FILE *f) { CHECK(pcu_gemm_cublaslt_line(f, "/nonexistent") == nullptr); });
  CHECK(lines(line) == 1 && line.back() == '\n');
  CHECK(line.find("not loaded") != std::string::npos &&
        line.find("project's wmma kernel") != std::string::npos &&
        line.find("/nonexistent") != std::string::npos);
  /* a file that exists but is no library: the loader's own reason */
  char path[] = "/tmp/pascal-not-a-library-XXXXXX";
  const int fd = mkstemp(path);
  CHECK(fd >= 0 && write(fd, "text", 4) == 4);
  close(fd);
  CHECK(!pcu_cublaslt::open(path, &lib, &why));
  CHECK(why.find(path) != std::string::npos && why.find("No such file") == std::string::npos);
  unlink(path);
}

/* The library itself, where this host's toolkit has it: every entry point
 * resolves, and the probe's line names the file and version. */
static void test_cublaslt_load(void)
{
  pcu_cublaslt *lib = nullptr;
  std::string why;
  if (!pcu_cublaslt::open(nullptr, &lib, &why)) {
    printf("note: no cuBLASLt on this host, load not tested: %s\n", why.c_str());
    return;
  }
  CHECK(lib->path().find("libcublasLt.so.1") != std::string::npos);
  CHECK(lib->version() >= 120000);
  CHECK(strcmp(lib->status_name(pcu_lt::STATUS_SUCCESS), "CUBLAS_STATUS_SUCCESS") == 0);
#define PCU_LT_SET(name, type) CHECK(lib->api().name != nullptr);
  PCU_CUBLASLT_API(PCU_LT_SET)
#undef PCU_LT_SET
  const std::string path = lib->path();
  delete lib;
  const std::string line = captured([&](FILE *f) { delete pcu_gemm_cublaslt_line(f, nullptr); });
  CHECK(lines(line) == 1 && line.find(path) != std::string::npos &&
        line.find("version") != std::string::npos);
}

/* The explicit configurations the probe measures beside the heuristic's:
 * its full configuration, Hopper attributes included, with the tile varied
 * only where the algo lists the tile. (Before: the candidates crossed tiles,
 * stages and swizzles and dropped the Hopper attributes, so c[0] was not
 * the heuristic's configuration and this test failed.) */
static void test_gemm_candidates(void)
{
  const pascal_cublaslt_config h = {66, 23, 35, 0, 1, 1, 4, 2}; /* 128x256, 64xAUTO */
  pcu_lt_caps cap;
  cap.tiles = {20, 23, 18};
  cap.stages = {16, 35, 13};
  cap.swizzle = true;
  std::vector<pcu_gemm_figure> c = pcu_gemm_candidates(cap, h);
  CHECK_INT((int)c.size(), 3); /* the heuristic's, 256x128 (not listed), 128x128 */
  const uint32_t tiles[] = {23, 24, 20};
  for (size_t i = 0; i < c.size(); i++) {
    pascal_cublaslt_config want = h;
    want.tile_id = tiles[i];
    CHECK(memcmp(&c[i].config, &want, sizeof want) == 0 && c[i].cublaslt && c[i].tflops == 0);
  }
  CHECK(!c[0].skipped && c[0].error.empty() && !c[2].skipped && c[2].error.empty());
  CHECK(c[1].skipped && c[1].error == "its tile is not among the 3 tile id(s) algo 66 lists");
  /* an algo that lists no tiles: its own configuration, the others skipped */
  cap.tiles = {0};
  c = pcu_gemm_candidates(cap, h);
  CHECK(c.size() == 3 && !c[0].skipped && c[1].skipped && c[2].skipped);
  /* a heuristic tile that is not among the three: all three tried after it */
  pascal_cublaslt_config h2 = h;
  h2.tile_id = 18; /* 128x64 */
  cap.tiles = {18, 20, 23, 24};
  c = pcu_gemm_candidates(cap, h2);
  CHECK(c.size() == 4 && c[0].config.tile_id == 18 && c[1].config.tile_id == 23 &&
        c[2].config.tile_id == 24 && c[3].config.tile_id == 20);
  for (const pcu_gemm_figure &f : c)
    CHECK(!f.skipped && f.config.cluster_shape_id == 2 && f.config.stages_id == 35);
}

/* The probe's GEMM lines, which measure.sh copies into report.md (lines
 * starting "GEMM" or "cuBLASLt") and report.json (the "gemm json:" line). */
static void test_gemm_print(void)
{
  pcu_gemm_bench b;
  b.own.tflops = 61.84;
  std::string text = captured([&](FILE *f) { pcu_gemm_bench_print(f, b); });
  CHECK(lines(text) == 3);
  CHECK(text.find("GEMM TFLOP/s      61.8  own wmma kernel 128x128x64\n") != std::string::npos);
  CHECK(text.find("gemm json: {\"m\":4096,\"n\":4096,\"k\":4096,\"repeats\":9,"
                  "\"own_tflops\":61.84,\"cublaslt\":null}\n") != std::string::npos);
  b.have_cublaslt = true;
  b.heuristic.cublaslt = true;
  b.heuristic.config = {66, 23, 35, 0, 1, 1, 0, 2};
  b.heuristic.tflops = 702.5;
  pcu_gemm_figure f = b.heuristic;
  f.tflops = 0;
  f.error = "cuBLASLt rejects it: CUBLAS_STATUS_NOT_SUPPORTED";
  b.explicit_configs.push_back(f);
  f.config = {66, 24, 16, 1, 1, 0, 0, 0};
  f.tflops = 715.04;
  b.explicit_configs.push_back(f);
  f.config = {66, 20, 16, 1, 1, 0, 0, 0};
  f.tflops = 650.0;
  b.explicit_configs.push_back(f);
  f.config = {66, 21, 16, 1, 1, 0, 0, 0}; /* 256x64 */
  f.tflops = 0;
  f.skipped = true;
  f.error = "its tile is not among the 3 tile id(s) algo 66 lists";
  b.explicit_configs.push_back(f);
  CHECK(pcu_gemm_best_explicit(b) == &b.explicit_configs[1]);
  text = captured([&](FILE *out) { pcu_gemm_bench_print(out, b); });
  CHECK(lines(text) == 7);
  CHECK(text.find("GEMM TFLOP/s     702.5  cuBLASLt heuristic (algo 66 tile 128x256 stages "
                  "64xAUTO swizzle 0 split-k 1 custom-option 1 cluster-shape 2)\n") !=
        std::string::npos);
  CHECK(text.find("cuBLASLt      not measured (algo 66 tile 128x256 stages 64xAUTO swizzle 0 "
                  "split-k 1 custom-option 1 cluster-shape 2): cuBLASLt rejects it: "
                  "CUBLAS_STATUS_NOT_SUPPORTED\n") != std::string::npos);
  CHECK(text.find("cuBLASLt      skipped (algo 66 tile 256x64 stages 64x4 swizzle 1 split-k 1): "
                  "its tile is not among the 3 tile id(s) algo 66 lists\n") != std::string::npos);
  CHECK(text.find("GEMM TFLOP/s     715.0  cuBLASLt explicit, best of 2 measured (algo 66 tile "
                  "256x128 stages 64x4 swizzle 1 split-k 1)\n") != std::string::npos);
  CHECK(text.find("\"cublaslt\":{\"heuristic\":{\"config\":{\"algo\":66,\"tile_m\":128,"
                  "\"tile_n\":256,\"tile_k\":64,\"stages\":0,\"cta_swizzling\":0,\"split_k\":1,"
                  "\"custom_option\":1,\"cluster_shape_id\":2},"
                  "\"tflops\":702.50},\"explicit_best\":{\"config\":{\"algo\":66,\"tile_m\":256,"
                  "\"tile_n\":128,\"tile_k\":64,\"stages\":4,\"cta_swizzling\":1,\"split_k\":1},"
                  "\"tflops\":715.04},\"explicit_measured\":2,\"explicit_failed\":1,\"explicit_"
                  "skipped\":1}}\n") != std::string::npos);
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
  test_attention_job_check();
  test_gemm_job_check();
  test_cublaslt_search();
  test_cublaslt_load();
  test_gemm_candidates();
  test_gemm_print();
  test_references();
  test_attention_reference();
  test_attention_smem();
  test_peak_median();
  test_peaks_from_samples();
  test_no_device_errors();
  return check_summary();
}
