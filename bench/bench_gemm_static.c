/*
 * bench_gemm_static.c - the cost of the raster's static reference V_s
 * (gemm_raster.c), which an answer beyond the GEMM grid and a configuration
 * transfer walk per query: median seconds per walk and ns per output tile
 * for rasters up to PASCAL_GEMM_STATIC_TILES_MAX tiles, at the H100's
 * probed capacity (21.4 MiB) and 132 CTAs. Prints; asserts nothing.
 */
#include <stdio.h>
#include <stdlib.h>

#include "pascal/gemm_config.h"
#include "timing.h"

typedef struct walk_case {
  const char *what;
  pascal_gemm_config config;
  pascal_gemm_shape shape;
} walk_case;

static const walk_case CASES[] = {
    {"128x128 tiles, direct, 8192^2 x 4096", {128, 128, 64, 2, 3, 1}, {8192, 8192, 4096}},
    {"128x128 tiles, direct, 262144^2 x 4096", {128, 128, 64, 2, 3, 1}, {262144, 262144, 4096}},
    {"128x128 tiles, group 8, 262144^2 x 4096", {128, 128, 64, 2, 3, 8}, {262144, 262144, 4096}},
    {"16x16 tiles, direct, 32768^2 x 16", {16, 16, 16, 2, 2, 1}, {32768, 32768, 16}},
    {"16x16 tiles, direct, 65536 x 16384 x 64", {16, 16, 16, 2, 2, 1}, {65536, 16384, 64}},
    {"16x16 tiles, group 8, 65536 x 16384 x 64", {16, 16, 16, 2, 2, 8}, {65536, 16384, 64}},
};

int main(void)
{
  const double capacity = 1371.0 * 16384; /* the H100 bundle's C blocks of 16 KiB */
  printf("%-44s %12s %10s %12s\n", "raster", "tiles", "s/walk", "ns/tile");
  for (size_t k = 0; k < sizeof CASES / sizeof CASES[0]; k++) {
    const walk_case *c = &CASES[k];
    double samples[5], v = 0;
    for (int r = 0; r < 5; r++) {
      double t0 = bench_now_ns();
      if (pascal_gemm_static_fills(&c->shape, &c->config, 132, capacity, &v, NULL) != PASCAL_OK)
        abort();
      samples[r] = bench_now_ns() - t0;
    }
    double tiles = (double)(c->shape.Mg / c->config.tile_m) * (c->shape.Ng / c->config.tile_n);
    double med = bench_median(samples, 5);
    printf("%-44s %12.0f %10.4f %12.1f\n", c->what, tiles, med * 1e-9, med / tiles);
  }
  return 0;
}
