/*
 * test_simdev_gemm_time.c - the sim's tiled GEMM (core/src/simdev_gemm.c)
 * and the latency pipeline (core/src/latency.c, the TileSight model of the
 * paper's section "End-to-end latency with TileSight") describe the same
 * kernel on the shipped profiles (deploy/profiles/gb10-like and thor-like):
 *   - unit check: a profile's peak_tensor_flops is sm_count 16x16x16 matrix
 *     instructions (8192 FLOPs) per compute_ns, and one 128 x 128 x 64 k-step
 *     costs the sim's SM what it costs the pipeline's: 256 instructions,
 *     256 compute_ns (15.36 us on gb10-like; the sim once charged 8);
 *   - a compute-bound run (128 x 128 x 64 FP16, one wave of one CTA per SM,
 *     every tile fits): the pipeline's time is the sim's within the sim's
 *     slowest-CTA spread below (4 % on gb10-like, 7 % on thor-like) and 3 %
 *     above;
 *   - a DRAM-bound run (8 x 8 x 1024 FP16 tiles, a one-tile cache, so every
 *     read fills): the pipeline says `dram` and lies 0 to 25 % above the sim
 *     (by hand 15 %: one stage adds a CTA's compute to its fills).
 * The expected figures are worked by hand in the comments of each case.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "pascal/latency.h"
#include "pascal/simdev.h"

/* <repo>/deploy/profiles/NAME (this file is <repo>/tests/core/...). */
static int load_shipped(const char *name, pascal_simdev_profile *p)
{
  char path[4096];
  pascal_error err;
  const char *me = __FILE__, *cut = strstr(me, "tests/core/");
  CHECK(cut != NULL);
  if (!cut)
    return 0;
  snprintf(path, sizeof path, "%.*sdeploy/profiles/%s", (int)(cut - me), me, name);
  pascal_status st = pascal_simdev_profile_load(path, p, &err);
  if (st != PASCAL_OK)
    fprintf(stderr, "%s: %s\n", path, err.message);
  CHECK_INT(st, PASCAL_OK);
  return st == PASCAL_OK;
}

/* Run `run` on the sim and time the same kernel, with the sim's measured
 * fills, on the pipeline with the profile's peaks, as pascal_predict_time_gemm
 * builds it (resident_ctas / sm_count CTAs per SM, one stage). */
static int time_both(const pascal_simdev_profile *p, const pascal_simdev_gemm *run,
                     pascal_simdev_stats *sim, pascal_latency *lat)
{
  pascal_simdev *dev = NULL;
  pascal_error err;
  pascal_pipeline_kernel k;
  const pascal_gemm_params *g = &run->tiling;
  uint32_t per_sm = g->resident_ctas / p->sm_count;
  int ok = pascal_simdev_new(p, &dev, &err) == PASCAL_OK &&
           pascal_simdev_run_gemm(dev, run, sim, &err) == PASCAL_OK &&
           pascal_latency_gemm(run->shape.Mg, run->shape.Ng, run->shape.Kg, g->tile_m, g->tile_n,
                               g->tile_k, g->elem_bytes, p->sm_count, per_sm ? per_sm : 1,
                               PASCAL_GEMM_KERNEL_STAGES, sim->fill_bytes, &k, &err) == PASCAL_OK &&
           pascal_latency_time(&p->peaks, &k, lat, &err) == PASCAL_OK;
  if (!ok)
    fprintf(stderr, "%s: %s\n", err.field, err.message);
  CHECK(ok);
  pascal_simdev_free(dev);
  return ok;
}

static void test_step_compute(const char *name)
{
  pascal_simdev_profile p;
  if (!load_shipped(name, &p))
    return;
  CHECK(pascal_simdev_profile_has_peaks(&p));
  /* gb10-like: 48 x 8192 / 60 ns = 6.5536e12; thor-like: 20 x 8192 / 90 ns */
  double rate = p.sm_count * 8192.0 / (p.compute_ns * 1e-9);
  CHECK_NEAR(p.peaks.tensor_flops / rate, 1.0, 1e-6);
  /* 2 x 128 x 128 x 64 = 2097152 FLOPs = 256 instructions; 256 mod 4 = 0,
   * so the sim charges 256 compute_ns plus the class-0 tail */
  pascal_gemm_params cal = {
      .tile_m = 128, .tile_n = 128, .tile_k = 64, .elem_bytes = 2, .resident_ctas = p.sm_count};
  CHECK_INT(pascal_simdev_gemm_step_m(&cal), 256);
  double sim_ns = 256 * p.compute_ns + p.tail_ns[0];
  pascal_pipeline_kernel k;
  pascal_latency lat;
  pascal_error err;
  CHECK_INT(pascal_latency_gemm(128, 128, 64, 128, 128, 64, 2, p.sm_count, 1, 1, 0.0, &k, &err),
            PASCAL_OK);
  CHECK_INT(pascal_latency_time(&p.peaks, &k, &lat, &err), PASCAL_OK);
  CHECK_NEAR(lat.compute_iter_s * 1e9 / sim_ns, 1.0, 1e-6);
}

static void test_step_m(void)
{
  pascal_gemm_params
      one = {.tile_m = 16, .tile_n = 16, .tile_k = 16, .elem_bytes = 2, .resident_ctas = 1},
      part = {.tile_m = 8, .tile_n = 8, .tile_k = 8, .elem_bytes = 2, .resident_ctas = 1},
      big = {.tile_m = 1u << 16,
             .tile_n = 1u << 16,
             .tile_k = 1u << 16,
             .elem_bytes = 2,
             .resident_ctas = 1};
  CHECK_INT(pascal_simdev_gemm_step_m(&one), 1);       /* exactly one instruction */
  CHECK_INT(pascal_simdev_gemm_step_m(&part), 1);      /* 1024 FLOPs round up to one */
  CHECK_INT(pascal_simdev_gemm_step_m(&big), 1000000); /* 2^49 / 2^13 = 2^36: the cap */
  CHECK_INT(pascal_simdev_gemm_step_m(NULL), 0);
}

/* One wave, every tile fits, so the fills are B_0 = (n_r + n_c) n_k 16 KiB.
 * gb10-like (n_r x n_c = 6 x 8, n_k = 20), per k-step and SM:
 *   sim: request hop 200 + two 16 KiB link transfers 2 x 341 (+ 2 x 40 mean
 *        stall) + work 2 x 30 + 256 x 60 + 15 = 15435, about 16.4 us; 20 steps
 *        and a 2 us launch: about 330 us;
 *   pipeline: compute 2097152 x 48 / 6.5536e12 = 15.36 us, L2 32768 x 48 /
 *        2.304e12 = 0.68 us, DRAM (14 x 20 x 16384 / 960) x 48 / 273e9 =
 *        0.84 us; 20 (0.84 + 15.36) = 324 us + store 32768 x 48 / 273e9 =
 *        5.8 us + launch 2 us = 332 us, compute-bound.
 * thor-like the same with 20 SMs (4 x 5 tiles) and 90 ns instructions. */
static void test_compute_bound(const char *name, uint32_t n_r, uint32_t n_c)
{
  pascal_simdev_profile p;
  if (!load_shipped(name, &p))
    return;
  pascal_simdev_gemm run;
  memset(&run, 0, sizeof run);
  run.shape = (pascal_gemm_shape){128 * n_r, 128 * n_c, 64 * 20};
  run.tiling = (pascal_gemm_params){
      .tile_m = 128, .tile_n = 128, .tile_k = 64, .elem_bytes = 2, .resident_ctas = p.sm_count};
  run.m = pascal_simdev_gemm_step_m(&run.tiling);
  run.seed = 3;
  pascal_simdev_stats sim;
  pascal_latency lat;
  if (!time_both(&p, &run, &sim, &lat))
    return;
  CHECK_NEAR(sim.fill_bytes, (n_r + n_c) * 20.0 * 16384.0, 0.0);
  CHECK_INT(lat.bound, PASCAL_BOUND_COMPUTE);
  double step = p.hop_ns + 2 * (16384.0 / p.sm_read_gbps) + 2 * p.consume_ns + 256 * p.compute_ns +
                p.cta_sync_ns;
  CHECK(sim.kernel_ns > 20 * step * 0.97 && sim.kernel_ns < 20 * step * 1.1 + p.launch_ns);
  /* the pipeline times a mean CTA, the sim ends with its slowest: on the
   * slowest SM (clock factor up to 1 + sm_clock_spread) and with its 20 steps'
   * +-10 % jitter up to 3 standard deviations long (0.1 / sqrt(3 x 20)); the
   * pipeline's store and DRAM-over-hop terms add at most 3 % */
  double slowest = (1 + p.sm_clock_spread) * (1 + 3 * p.service_jitter / sqrt(3.0 * 20));
  double ratio = lat.time_s * 1e9 / sim.kernel_ns;
  CHECK(ratio >= 1 / slowest && ratio <= 1.03);
}

/* gb10-like, 8 x 8 x 1024 FP16 tiles (16 KiB, 16 instructions a step), 6 x 8
 * CTAs on the 48 SMs, n_k = 8, a one-tile cache: no read is reused, so the
 * fills are (up to merged concurrent misses) the 2 x 48 x 8 reads.
 *   sim: a step's 96 fills queue at the DRAM, 16384 / 273e9 = 60 ns each:
 *        5.76 us, more than a CTA's own step (hop 200 + DRAM latency 205 +
 *        link 2 x 341 + work 60 + 960 + 15, about 2.1 us), so 8 steps take
 *        about 46 us, and the launch 2 us: about 48 us;
 *   pipeline: DRAM 32768 x 48 / 273e9 = 5.76 us, L2 0.82 us, compute
 *        131072 x 48 / 6.5536e12 = 0.96 us; one stage adds compute to memory:
 *        8 (5.76 + 0.96) + launch 2 = 55.8 us, DRAM-bound, about 1.15 x the
 *        sim, whose other CTAs fill while one computes. */
static void test_dram_bound(void)
{
  pascal_simdev_profile p;
  if (!load_shipped("gb10-like.profile", &p))
    return;
  pascal_simdev_gemm run;
  memset(&run, 0, sizeof run);
  run.shape = (pascal_gemm_shape){8 * 6, 8 * 8, 1024 * 8};
  run.tiling = (pascal_gemm_params){
      .tile_m = 8, .tile_n = 8, .tile_k = 1024, .elem_bytes = 2, .resident_ctas = p.sm_count};
  run.m = pascal_simdev_gemm_step_m(&run.tiling);
  CHECK_INT(run.m, 16);
  run.C = 1;
  run.seed = 3;
  pascal_simdev_stats sim;
  pascal_latency lat;
  if (!time_both(&p, &run, &sim, &lat))
    return;
  CHECK(sim.fill_bytes > 0.9 * 2 * 48 * 8 * 16384.0);
  CHECK_INT(lat.bound, PASCAL_BOUND_DRAM);
  double ratio = lat.time_s * 1e9 / sim.kernel_ns;
  CHECK(ratio >= 1.0 && ratio <= 1.25);
}

int main(void)
{
  test_step_m();
  test_step_compute("gb10-like.profile");
  test_step_compute("thor-like.profile");
  test_compute_bound("gb10-like.profile", 6, 8);
  test_compute_bound("thor-like.profile", 4, 5);
  test_dram_bound();
  return check_summary();
}
