/*
 * bench_simdev.c - speed of the sim device (core/simdev): simulated requests
 * per second over a mix of scan keys of the calibration plan at N = 4096,
 * W = 4 (median of repetitions), and the wall time of one N = 4096, W = 64,
 * M = 48 run (sync path and TMA d = 4, the divergent case). Budgets (issue
 * 5): >= 5 M requests/s, one such run < 10 s. Then the tiled GEMM: tile
 * reads per second over four shapes of the paper's held-out GEMM grid
 * (128 x 128 x 64 FP16 tiles, FP32 outputs, M = 48 resident CTAs), one pass.
 *
 * Rates are printed per wall second and per CPU second of this process
 * (clock()): on a shared machine the second is the sim's own speed.
 *
 * usage: bench_simdev [repetitions]   (default 3)
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "pascal/simdev.h"
#include "timing.h"

typedef struct bench_key {
  uint32_t o;
  int tma;
  uint32_t d, m;
} bench_key;

static const bench_key MIX[] = {{1, 0, 0, 0}, {1, 1, 2, 0}, {1, 1, 3, 0}, {1, 1, 4, 0},
                                {1, 1, 4, 8}, {2, 0, 0, 5}, {2, 1, 3, 0}, {2, 1, 4, 6}};
#define NMIX     (sizeof MIX / sizeof MIX[0])
#define MAX_REPS 50

/* Run one scan; returns wall seconds (and CPU seconds in *cpu), or -1 on
 * error. */
static double timed_run(pascal_simdev *dev, const bench_key *k, uint64_t N, uint64_t W,
                        uint64_t seed, pascal_simdev_stats *st, double *cpu)
{
  pascal_simdev_scan s = {k->o, k->tma, k->d, k->m, N, W, seed, 0};
  pascal_error err;
  clock_t c0 = clock();
  double t0 = bench_now_ns();
  if (pascal_simdev_run_scan(dev, &s, st, NULL, &err) != PASCAL_OK) {
    fprintf(stderr, "run_scan: %s\n", err.message);
    return -1.0;
  }
  *cpu = (double)(clock() - c0) / CLOCKS_PER_SEC;
  return (bench_now_ns() - t0) * 1e-9;
}

/* One pass over corners and the middle of the held-out GEMM grid. */
static int gemm_rate(pascal_simdev *dev)
{
  static const pascal_gemm_shape shapes[] = {
      {640, 640, 1280}, {1280, 896, 2560}, {5120, 2560, 5120}, {2560, 1280, 5120}};
  double requests = 0.0, cpu_secs = 0.0, wall = 0.0;
  for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
    pascal_simdev_gemm g = {
        .shape = shapes[i], .tiling = {128, 128, 64, 2, 48, 1, 1}, .m = 8, .out_elem_bytes = 4};
    pascal_simdev_stats st;
    pascal_error err;
    clock_t c0 = clock();
    double t0 = bench_now_ns();
    if (pascal_simdev_run_gemm(dev, &g, &st, &err) != PASCAL_OK) {
      fprintf(stderr, "run_gemm: %s\n", err.message);
      return 1;
    }
    cpu_secs += (double)(clock() - c0) / CLOCKS_PER_SEC;
    wall += (bench_now_ns() - t0) * 1e-9;
    requests += (double)st.requests;
    printf("simdev gemm %ux%ux%u M=48: %.0f k tile reads, K/M = %.3f, %.3f ms simulated\n",
           g.shape.Mg, g.shape.Ng, g.shape.Kg, (double)st.requests * 1e-3, st.K / st.M,
           st.kernel_ns * 1e-6);
  }
  printf("simdev gemm (4 shapes, one pass): %.2f M tile reads/s wall, %.2f M/CPU-s\n",
         requests / wall * 1e-6, cpu_secs > 0.0 ? requests / cpu_secs * 1e-6 : 0.0);
  return 0;
}

int main(int argc, char **argv)
{
  int reps = argc > 1 ? atoi(argv[1]) : 3;
  if (reps < 1 || reps > MAX_REPS) {
    fprintf(stderr, "usage: bench_simdev [repetitions 1..%d]\n", MAX_REPS);
    return 2;
  }
  pascal_simdev_profile p;
  pascal_simdev_profile_default(&p);
  pascal_simdev *dev = NULL;
  pascal_error err;
  if (pascal_simdev_new(&p, &dev, &err) != PASCAL_OK) {
    fprintf(stderr, "simdev: %s\n", err.message);
    return 1;
  }
  int rc = 0;
  double rate[MAX_REPS], cpu_rate[MAX_REPS];
  for (int r = 0; r < reps; r++) {
    double secs = 0.0, cpu_secs = 0.0, requests = 0.0;
    for (size_t i = 0; i < NMIX; i++) {
      pascal_simdev_stats st;
      double cpu;
      double t = timed_run(dev, &MIX[i], 4096, 4, (uint64_t)r, &st, &cpu);
      if (t < 0) {
        rc = 1;
        goto done;
      }
      secs += t;
      cpu_secs += cpu;
      requests += (double)st.requests;
    }
    rate[r] = requests / secs;
    cpu_rate[r] = cpu_secs > 0.0 ? requests / cpu_secs : 0.0;
  }
  printf("simdev mix (%zu keys, N=4096, W=4, %d reps): median %.2f M requests/s wall, "
         "%.2f M requests/CPU-s\n",
         NMIX, reps, bench_median(rate, (size_t)reps) * 1e-6,
         bench_median(cpu_rate, (size_t)reps) * 1e-6);
  static const bench_key big[] = {{1, 0, 0, 0}, {1, 1, 4, 0}};
  for (size_t i = 0; i < 2; i++) {
    double wall[MAX_REPS], cpu[MAX_REPS];
    pascal_simdev_stats st;
    for (int r = 0; r < reps; r++) {
      wall[r] = timed_run(dev, &big[i], 4096, 64, (uint64_t)r, &st, &cpu[r]);
      if (wall[r] < 0) {
        rc = 1;
        goto done;
      }
    }
    double med = bench_median(wall, (size_t)reps), cmed = bench_median(cpu, (size_t)reps);
    printf("simdev N=4096 W=64 M=48 %s d=%u: median %.2f s wall, %.2f CPU-s "
           "(%.2f M requests/CPU-s, K=%.2f)\n",
           big[i].tma ? "tma" : "sync", big[i].d, med, cmed,
           cmed > 0.0 ? (double)st.requests / cmed * 1e-6 : 0.0, st.K);
  }
  if (gemm_rate(dev) != 0)
    rc = 1;
done:
  pascal_simdev_free(dev);
  return rc;
}
