/*
 * test_simdev_gemm_time.c - the sim's tiled GEMM (core/src/simdev_gemm.c)
 * and the latency pipeline (core/src/latency.c, the TileSight model of the
 * paper's section "End-to-end latency with TileSight") describe the same
 * kernel on the shipped profiles (deploy/profiles/gb10-like and thor-like):
 *   - unit check: a profile's peak_tensor_flops is sm_count 16x16x16 matrix
 *     instructions (8192 FLOPs) per tensor_pipe_ns (the SM's tensor-pipe
 *     throughput, which a GEMM CTA's warps reach), and one 128 x 128 x 64
 *     k-step costs the sim's SM what it costs the pipeline's: 256
 *     instructions, 256 tensor_pipe_ns (805 ns on gb10-like; the sim once
 *     charged the scan's chain rate, 256 compute_ns = 15.36 us);
 *   - a one-wave run (128 x 128 x 64 FP16, one CTA per SM, every tile fits,
 *     one stage): each k-step waits for its tiles, so the sim's time is the
 *     steps' request, fill, link and work times worked by hand below, and
 *     the pipeline, which has no request latency, is below it;
 *   - a DRAM-bound run (8 x 8 x 1024 FP16 tiles, a one-tile cache, so every
 *     read fills): the pipeline says `dram` and lies within 10 % of the sim.
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
  /* gb10-like: 48 x 8192 / 3.146 ns = 125e12 (NVIDIA's 125 TFLOP/s FP16
   * dense); thor-like: 20 x 8192 / 0.633 ns = 258.75e12. The profiles state
   * the ns to three digits, 0.1 % of the rate. */
  CHECK(p.tensor_pipe_ns > 0);
  double rate = p.sm_count * 8192.0 / (p.tensor_pipe_ns * 1e-9);
  CHECK_NEAR(p.peaks.tensor_flops / rate, 1.0, 1e-3);
  /* 2 x 128 x 128 x 64 = 2097152 FLOPs = 256 instructions at the pipe rate */
  pascal_gemm_params cal = {
      .tile_m = 128, .tile_n = 128, .tile_k = 64, .elem_bytes = 2, .resident_ctas = p.sm_count};
  CHECK_INT(pascal_simdev_gemm_step_m(&cal), 256);
  double sim_ns = 256 * p.tensor_pipe_ns;
  pascal_pipeline_kernel k;
  pascal_latency lat;
  pascal_error err;
  CHECK_INT(pascal_latency_gemm(128, 128, 64, 128, 128, 64, 2, p.sm_count, 1, 1, 0.0, &k, &err),
            PASCAL_OK);
  CHECK_INT(pascal_latency_time(&p.peaks, &k, &lat, &err), PASCAL_OK);
  CHECK_NEAR(lat.compute_iter_s * 1e9 / sim_ns, 1.0, 1e-3);
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
 * gb10-like (n_r x n_c = 6 x 8, n_k = 20), per k-step and SM, one stage:
 *   sim: request hop 200 + DRAM latency 205 (each step's tiles are new:
 *        the first CTA to ask fills them, behind up to n_r + n_c = 14 fills
 *        of 60 ns at the DRAM) + two 16 KiB link transfers 2 x 341 (+ up to
 *        2 x 40 mean stall) + work 2 x 30 + 256 x 3.146 + 15 = 880: between
 *        1968 and 2888 ns, 20 steps and a 2 us launch: 41 to 60 us
 *        (measured 46.3 us);
 *   pipeline: compute 2097152 x 48 / 125e12 = 0.81 us, L2 32768 x 48 /
 *        2.304e12 = 0.68 us, DRAM (14 x 20 x 16384 / 960) x 48 / 273e9 =
 *        0.84 us; 20 (0.84 + 0.81) + store 5.8 + launch 2 = 40.7 us: it
 *        has no request latency (hop + DRAM latency, 405 of a step's ~2300
 *        ns), so it lies below the sim (0.88 of it).
 * thor-like the same with 20 SMs (4 x 5 tiles): hop 300, DRAM latency 230,
 * links 2 x 630, work 90 + 162 + 22 (measured 49.6 us, pipeline 0.68 of it,
 * L2-bound on its slower links). */
static void test_one_wave(const char *name, uint32_t n_r, uint32_t n_c)
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
  CHECK(lat.bound != PASCAL_BOUND_COMPUTE && lat.bound != PASCAL_BOUND_DRAM);
  double work = 2 * p.consume_ns + 256 * p.tensor_pipe_ns + p.cta_sync_ns;
  double lo = p.hop_ns + p.dram_latency_ns + 2 * (16384.0 / p.sm_read_gbps) + work;
  double hi = lo + (n_r + n_c) * (16384.0 / p.dram_gbps) + 2 * p.link_stall_prob * p.link_stall_ns;
  /* the sim ends with its slowest CTA: the slowest SM's clock factor and
   * its 20 steps' +-10 % jitter up to 3 standard deviations either way */
  double slowest = (1 + p.sm_clock_spread) * (1 + 3 * p.service_jitter / sqrt(3.0 * 20));
  CHECK(sim.kernel_ns > 20 * lo / slowest && sim.kernel_ns < 20 * hi * slowest + p.launch_ns);
  /* the pipeline leaves out the request latency of every step, and charges
   * the memory and the compute of a step one after the other */
  double ratio = lat.time_s * 1e9 / sim.kernel_ns;
  CHECK(ratio <= 1.0 && ratio >= (lo - p.hop_ns - p.dram_latency_ns) / (hi * slowest));
}

/* gb10-like, 8 x 8 x 1024 FP16 tiles (16 KiB, 16 instructions a step), 6 x 8
 * CTAs on the 48 SMs, n_k = 8, a one-tile cache: no read is reused, so the
 * fills are (up to merged concurrent misses) the 2 x 48 x 8 reads.
 *   sim: a step's 96 fills queue at the DRAM, 16384 / 273e9 = 60 ns each:
 *        5.76 us, more than a CTA's own step (hop 200 + DRAM latency 205 +
 *        link 2 x 341 + work 60 + 16 x 3.146 + 15, about 1.2 us), so 8 steps
 *        take about 46 us, the last CTA's request latency about 1 us more,
 *        and the launch 2 us: about 49 us;
 *   pipeline: DRAM 32768 x 48 / 273e9 = 5.76 us, L2 0.82 us, compute
 *        131072 x 48 / 125e12 = 0.05 us; one stage adds compute to memory:
 *        8 (5.76 + 0.05) + launch 2 = 48.5 us, DRAM-bound, within 10 % of
 *        the sim (measured 0.96 of it: it has no request latency). */
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
  CHECK(ratio >= 0.9 && ratio <= 1.1);
}

int main(void)
{
  test_step_m();
  test_step_compute("gb10-like.profile");
  test_step_compute("thor-like.profile");
  test_one_wave("gb10-like.profile", 6, 8);
  test_one_wave("thor-like.profile", 4, 5);
  test_dram_bound();
  return check_summary();
}
