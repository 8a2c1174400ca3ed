/*
 * test_latency.c - the pipeline and wave model (pascal/latency.h) against
 * values worked by hand from its equations: a compute-bound grid of two full
 * waves and a re-timed tail, a DRAM-bound one, several resident CTAs per SM,
 * no software pipelining, a launch that outweighs the kernel; the GEMM and
 * scan builders' arithmetic; monotonicity in the fill bytes; error paths.
 */
#include <math.h>
#include <string.h>

#include "check.h"
#include "pascal/latency.h"

static const pascal_peaks PEAKS = {.dram_bytes_per_s = 1e9,
                                   .l2_bytes_per_s = 4e9,
                                   .tensor_flops = 1e12,
                                   .sm_clock_hz = 1e9,
                                   .launch_s = 5e-6};

static pascal_pipeline_kernel base(void)
{
  pascal_pipeline_kernel k = {.sm_count = 4,
                              .tiles_per_sm = 1,
                              .tiles = 10,
                              .iterations = 8,
                              .stages = 3,
                              .dram_bytes_per_iter = 100,
                              .l2_bytes_per_iter = 800,
                              .flops_per_iter = 1e6,
                              .store_bytes = 0};
  return k;
}

/* The latency of `k` on `peaks`, checked to be computed. */
static pascal_latency timed(const pascal_peaks *peaks, const pascal_pipeline_kernel *k)
{
  pascal_latency r = {0};
  CHECK(pascal_latency_time(peaks, k, &r, NULL) == PASCAL_OK);
  return r;
}

static void test_compute_bound_with_tail(void)
{
  /* full wave, 4 SMs sharing: DRAM 100/1e9*4 = 4e-7, L2 800/4e9*4 = 8e-7,
     MMA 1e6/1e12*4 = 4e-6 per iteration. Depth 2: prologue 2*8e-7 = 1.6e-6,
     steady 6*4e-6 = 2.4e-5, drain 2*4e-6 = 8e-6 -> 3.36e-5 per wave.
     Head penalty 1 + 0.1*1.6e-6/3.36e-5. Tail of 2 CTAs on 2 SMs: L2 4e-7,
     prologue 8e-7 -> 3.28e-5. Total 3.36e-5*hp + 3.36e-5 + 3.28e-5 + 5e-6. */
  pascal_pipeline_kernel k = base();
  pascal_latency r = timed(&PEAKS, &k);
  double hp = 1 + 0.1 * 1.6e-6 / 3.36e-5;
  CHECK_NEAR(r.sm_latency_s, 3.36e-5, 1e-18);
  CHECK_NEAR(r.head_penalty, hp, 1e-15);
  CHECK_INT(r.full_waves, 2);
  CHECK_INT(r.tail_tiles, 2);
  CHECK_NEAR(r.waves_s, 3.36e-5 * hp + 3.36e-5 + 3.28e-5, 1e-18);
  CHECK_NEAR(r.time_s, r.waves_s + 5e-6, 1e-18);
  CHECK_NEAR(r.dram_iter_s, 4e-7, 1e-20);
  CHECK_NEAR(r.l2_iter_s, 8e-7, 1e-20);
  CHECK_NEAR(r.compute_iter_s, 4e-6, 1e-20);
  CHECK(r.bound == PASCAL_BOUND_COMPUTE);
  CHECK(strcmp(pascal_bound_name(r.bound), "compute") == 0);
}

static void test_dram_bound(void)
{
  /* 4000 fill bytes per iteration: DRAM 1.6e-5 per iteration dominates. Grid of
     exactly one wave: prologue 3.2e-5, steady 6*1.6e-5, drain 8e-6 -> 1.36e-4. */
  pascal_pipeline_kernel k = base();
  k.dram_bytes_per_iter = 4000;
  k.tiles = 4;
  pascal_latency r = timed(&PEAKS, &k);
  CHECK_NEAR(r.sm_latency_s, 3.2e-5 + 9.6e-5 + 8e-6, 1e-17);
  CHECK_NEAR(r.waves_s, r.sm_latency_s * (1 + 0.1 * 3.2e-5 / r.sm_latency_s), 1e-17);
  CHECK(r.bound == PASCAL_BOUND_DRAM);
  /* the same kernel reading little from DRAM is L2-bound once MMA is cheap */
  k.dram_bytes_per_iter = 0;
  k.flops_per_iter = 1e3;
  r = timed(&PEAKS, &k);
  CHECK(r.bound == PASCAL_BOUND_L2);
}

static void test_resident_ctas_and_no_pipeline(void)
{
  /* two CTAs per SM, 8 CTAs = one wave: effective depth 3*2-1 = 5 over 16
     iterations; prologue 5*8e-7, steady 11*4e-6, drain 5*4e-6 -> 6.8e-5. */
  pascal_pipeline_kernel k = base();
  k.tiles_per_sm = 2;
  k.tiles = 8;
  pascal_latency r = timed(&PEAKS, &k);
  CHECK_NEAR(r.sm_latency_s, 4e-6 + 4.4e-5 + 2e-5, 1e-17);
  CHECK_INT(r.full_waves, 1);
  CHECK_INT(r.tail_tiles, 0);
  /* one stage: load then compute, 8 * (8e-7 + 4e-6) per CTA, no head penalty;
     the 10-CTA grid: two waves of 3.84e-5 and a tail at the same per-SM time
     (compute does not depend on the active SMs; L2 8e-7 -> 4e-7) */
  k = base();
  k.stages = 1;
  r = timed(&PEAKS, &k);
  CHECK_NEAR(r.sm_latency_s, 3.84e-5, 1e-17);
  CHECK_NEAR(r.head_penalty, 1.0, 0);
  CHECK_NEAR(r.waves_s, 2 * 3.84e-5 + 8 * (4e-7 + 4e-6), 1e-17);
}

static void test_latency_bound(void)
{
  pascal_pipeline_kernel k = base();
  k.iterations = 1; /* nothing but fill and drain */
  pascal_latency r = timed(&PEAKS, &k);
  CHECK(r.bound == PASCAL_BOUND_LATENCY);
  pascal_peaks slow = PEAKS;
  slow.launch_s = 1.0;
  k = base();
  r = timed(&slow, &k);
  CHECK(r.bound == PASCAL_BOUND_LATENCY);
}

static void test_gemm_and_scan_builders(void)
{
  pascal_pipeline_kernel k;
  CHECK(pascal_latency_gemm(1024, 512, 2048, 128, 128, 64, 2, 48, 1, 4, 3.2e7, &k, NULL) ==
        PASCAL_OK);
  CHECK_INT(k.tiles, 8 * 4);
  CHECK_INT(k.iterations, 32);
  CHECK_INT(k.stages, 4);
  CHECK_NEAR(k.dram_bytes_per_iter, 3.2e7 / (32.0 * 32.0), 1e-9);
  CHECK_NEAR(k.l2_bytes_per_iter, 64.0 * 256 * 2, 0);
  CHECK_NEAR(k.flops_per_iter, 2.0 * 128 * 128 * 64, 0);
  CHECK_NEAR(k.store_bytes, 128.0 * 128 * 2, 0);
  CHECK(pascal_latency_scan(48, 2, 0, 5, 4096, 16, 16384, 8192, 1e9, &k, NULL) == PASCAL_OK);
  CHECK_INT(k.tiles, 16 * 48 * 2);
  CHECK_INT(k.tiles_per_sm, 2);
  CHECK_INT(k.iterations, 4096);
  CHECK_INT(k.stages, 1); /* max(d, 1) */
  CHECK_NEAR(k.flops_per_iter, 5 * 8192.0, 0);
  CHECK_NEAR(k.l2_bytes_per_iter, 16384, 0);
  CHECK_NEAR(k.dram_bytes_per_iter, 1e9 / (1536.0 * 4096), 1e-12);
  CHECK(pascal_latency_scan(48, 2, 4, 5, 4096, 16, 16384, 8192, 1e9, &k, NULL) == PASCAL_OK);
  CHECK_INT(k.stages, 4);
}

static void test_more_fills_never_faster(void)
{
  double last = 0;
  for (int i = 0; i <= 40; i++) {
    pascal_pipeline_kernel k;
    pascal_latency r;
    CHECK(pascal_latency_gemm(2048, 2048, 4096, 128, 128, 64, 2, 48, 1, 3, 1e7 * i, &k, NULL) ==
          PASCAL_OK);
    r = timed(&PEAKS, &k);
    CHECK(r.time_s >= last);
    last = r.time_s;
  }
}

static void test_errors(void)
{
  pascal_error err;
  pascal_pipeline_kernel k = base();
  pascal_latency r;
  pascal_peaks p = PEAKS;
  p.l2_bytes_per_s = 0;
  CHECK(pascal_latency_time(&p, &k, &r, &err) == PASCAL_EINVAL);
  CHECK(strcmp(err.field, "l2_bytes_per_s") == 0);
  p = PEAKS;
  p.tensor_flops = NAN;
  CHECK(pascal_latency_time(&p, &k, &r, &err) == PASCAL_EINVAL);
  CHECK(strcmp(err.field, "tensor_flops") == 0);
  p = PEAKS;
  p.launch_s = -1;
  CHECK(pascal_peaks_check(&p, &err) == PASCAL_EINVAL);
  CHECK(strcmp(err.field, "launch_s") == 0);
  k.stages = 0;
  CHECK(pascal_latency_time(&PEAKS, &k, &r, &err) == PASCAL_EINVAL);
  CHECK(strcmp(err.field, "stages") == 0);
  k = base();
  k.flops_per_iter = -1;
  CHECK(pascal_latency_time(&PEAKS, &k, &r, &err) == PASCAL_EINVAL);
  CHECK(strcmp(err.field, "flops_per_iter") == 0);
  CHECK(pascal_latency_gemm(1000, 512, 2048, 128, 128, 64, 2, 48, 1, 4, 1, &k, &err) ==
        PASCAL_EINVAL);
  CHECK(strcmp(err.field, "Mg") == 0);
  CHECK(pascal_latency_gemm(1024, 512, 2048, 128, 128, 64, 2, 0, 1, 4, 1, &k, &err) ==
        PASCAL_EINVAL);
  CHECK(strcmp(err.field, "sm_count") == 0);
  CHECK(pascal_latency_scan(48, 0, 2, 5, 4096, 16, 16384, 1, 1, &k, &err) == PASCAL_EINVAL);
  CHECK(strcmp(err.field, "o") == 0);
  CHECK(pascal_latency_scan(48, 1, 2, 5, 0, 16, 16384, 1, 1, &k, &err) == PASCAL_EINVAL);
  CHECK(strcmp(err.field, "iterations") == 0);
}

int main(void)
{
  test_compute_bound_with_tail();
  test_dram_bound();
  test_resident_ctas_and_no_pipeline();
  test_latency_bound();
  test_gemm_and_scan_builders();
  test_more_fills_never_faster();
  test_errors();
  return check_summary();
}
