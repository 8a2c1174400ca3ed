/*
 * bench_static.c - speed of the static core (issue 2 performance targets):
 * gap law for M = 48 (<= 1 us per call) and M = 1,000,000 random phases
 * (<= 100 ms), exact reuse distances for M = 1,000 (<= 50 ms), and the LRU
 * simulator's throughput (>= 20 M requests/s). Prints medians; asserts
 * nothing.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "pascal/simulate.h"
#include "pascal/static.h"
#include "timing.h"

static uint64_t rng_state = 0x2545f4914f6cdd1du;

static uint64_t rng_next(void)
{
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return rng_state;
}

static void random_phases(uint64_t *phases, size_t m, uint64_t n)
{
  for (size_t w = 0; w < m; w++)
    phases[w] = rng_next() % n;
}

/* Median ns per gap-law call over `reps` samples of `inner` calls. */
static double bench_gap_law(uint64_t n, uint64_t c, size_t m, int reps, int inner)
{
  uint64_t *phases = malloc(m * sizeof *phases);
  double *samples = malloc((size_t)reps * sizeof *samples);
  pascal_static_result r;
  size_t sink = 0;
  random_phases(phases, m, n);
  for (int i = 0; i < reps; i++) {
    double t0 = bench_now_ns();
    for (int j = 0; j < inner; j++) {
      phases[0] = (uint64_t)j % n; /* defeat hoisting */
      if (pascal_static_analyze(n, c, phases, m, &r, NULL) != PASCAL_OK)
        abort();
      sink += r.k_ttl;
    }
    samples[i] = (bench_now_ns() - t0) / inner;
  }
  double med = bench_median(samples, (size_t)reps);
  if (sink == 0)
    puts("(no misses)");
  free(phases);
  free(samples);
  return med;
}

static double bench_reuse_distance(uint64_t n, size_t m, int reps)
{
  uint64_t *phases = malloc(m * sizeof *phases), *rd = malloc(m * sizeof *rd);
  double *samples = malloc((size_t)reps * sizeof *samples);
  random_phases(phases, m, n);
  for (int i = 0; i < reps; i++) {
    double t0 = bench_now_ns();
    if (pascal_reuse_distance_compute(n, phases, m, rd, NULL) != PASCAL_OK)
      abort();
    samples[i] = bench_now_ns() - t0;
  }
  double med = bench_median(samples, (size_t)reps);
  free(phases);
  free(rd);
  free(samples);
  return med;
}

/* Median requests per second of the steady-state LRU phase simulator. */
static double bench_lru(uint64_t n, uint64_t c, size_t m, int reps)
{
  uint64_t *phases = malloc(m * sizeof *phases);
  double *samples = malloc((size_t)reps * sizeof *samples);
  random_phases(phases, m, n);
  pascal_sim_result r;
  for (int i = 0; i < reps; i++) {
    double t0 = bench_now_ns();
    if (pascal_sim_lru_phases(n, c, phases, m, 1, &r, NULL) != PASCAL_OK)
      abort();
    double simulated = (double)(PASCAL_SIM_WARMUP_PERIODS + 1) * (double)n * (double)m;
    samples[i] = simulated / ((bench_now_ns() - t0) * 1e-9);
  }
  double med = bench_median(samples, (size_t)reps);
  free(phases);
  free(samples);
  return med;
}

int main(void)
{
  printf("gap law, M = 48, N = 4096, C = 1280:   %8.3f us/call (median)\n",
         bench_gap_law(4096, 1280, 48, 41, 2000) / 1e3);
  printf("gap law, M = 1e6, N = 2^30, C = 2^28:  %8.3f ms/call (median)\n",
         bench_gap_law(UINT64_C(1) << 30, UINT64_C(1) << 28, 1000000, 11, 1) / 1e6);
  printf("exact RD, M = 1000, N = 1e6:           %8.3f ms/call (median)\n",
         bench_reuse_distance(1000000, 1000, 11) / 1e6);
  printf("LRU simulator, N = 4096, M = 48, C = 1280: %6.1f M requests/s (median)\n",
         bench_lru(4096, 1280, 48, 11) / 1e6);
  return 0;
}
