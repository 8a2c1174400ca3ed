/*
 * bench_json_real.c - what a double costs the JSON number writer
 * (pascal_json_real_format, server/codec/json_real.c: Schubfach) next to
 * printf's "%.17g", in median nanoseconds per double, for the doubles the
 * daemon writes (the reals of an explained GET /v1/predict answer on the
 * shipped sim-gb10 calibration) and for random bits, [0, 1) and small
 * scaled values. 21 rounds of 100,000 doubles each (the answer's reals
 * repeated); the median round, divided by the count. docs/http-performance.md
 * ("Seventh round") quotes its figures, with the previous writer's (Grisu2)
 * measured by the same program before the change.
 *
 * usage: bench_json_real
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "pascal_codec.h"
#include "timing.h"

#define COUNT  100000
#define ROUNDS 21

/* The non-integral reals of an explained answer (sim-gb10, o=1 tma d=4
 * m=6 N=4096 W=16), as the daemon writes them. */
static const double answer_reals[] = {
    0.020833333333333332, 0.9469064223607305,
    1.056070564509323,    1016733029.1029252,
    1133947134.20895,     0.025580593635797396,
    0.04202110684547672,  27.991589178752715,
    24.747369353454246,   0.3125,
    -4.605170185988091,   0.8571428571428571,
};

static uint64_t rng_next(uint64_t *s) /* xorshift64* */
{
  *s ^= *s >> 12;
  *s ^= *s << 25;
  *s ^= *s >> 27;
  return *s * UINT64_C(2685821657736338717);
}

static void fill(double *v, int kind)
{
  uint64_t s = UINT64_C(0x9e3779b97f4a7c15);
  size_t na = sizeof answer_reals / sizeof answer_reals[0];
  for (size_t i = 0; i < COUNT; i++) {
    uint64_t r = rng_next(&s);
    double x = 0;
    switch (kind) {
    case 0: x = answer_reals[i % na]; break;
    case 1:
      memcpy(&x, &r, sizeof x);
      if (!isfinite(x))
        x = 1.5;
      break;
    case 2: x = (double)(r >> 11) * 0x1p-53; break;
    default: x = (double)(r >> 11) * 0x1p-53 * pow(10, (double)(int)(r % 40) - 20); break;
    }
    v[i] = x;
  }
}

/* Median ns per double of one writer over the values. */
static double time_writer(const double *v, int use_printf, size_t *bytes)
{
  double rounds[ROUNDS];
  char out[PASCAL_JSON_REAL_MAX];
  size_t total = 0;
  for (int r = 0; r < ROUNDS; r++) {
    double t0 = bench_now_ns();
    for (size_t i = 0; i < COUNT; i++)
      total += use_printf ? (size_t)snprintf(out, sizeof out, "%.17g", v[i])
                          : pascal_json_real_format(v[i], out);
    rounds[r] = (bench_now_ns() - t0) / COUNT;
  }
  *bytes = total; /* used, so the loop is not optimised away */
  return bench_median(rounds, ROUNDS);
}

int main(void)
{
  static const char *names[] = {"explained answer's reals", "random bits", "[0, 1)",
                                "small scaled (10^-20..10^19)"};
  static double v[COUNT];
  size_t sink = 0, b;
  printf("%-30s %14s %14s\n", "doubles", "json_real ns", "%.17g ns");
  for (int k = 0; k < 4; k++) {
    fill(v, k);
    double ours = time_writer(v, 0, &b);
    sink += b;
    double pf = time_writer(v, 1, &b);
    sink += b;
    printf("%-30s %14.1f %14.1f\n", names[k], ours, pf);
  }
  printf("(%zu bytes written)\n", sink);
  return 0;
}
