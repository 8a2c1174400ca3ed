/*
 * test_simdev_gemm.c - the sim device's tiled GEMM (CTA raster over the
 * shared cache; paper §4.5 and App. C "GEMM instantiation") against
 * independent expectations:
 *   - when all A and B tiles fit, the fills are the compulsory tiles
 *     (n_r + n_c) n_k exactly, V = B_0, for any number of resident CTAs;
 *   - with one resident CTA the read order is the raster trace, so the fills
 *     equal a brute-force LRU on that trace for every capacity (one tile:
 *     no reuse at all, V = Q), hence are non-increasing in capacity;
 *   - with many resident CTAs the fills stay within [B_0, Q] and do not grow
 *     with capacity over a sweep;
 *   - a hand-worked case of the aligned / PASCAL K relation:
 *     K = M V / Q is K_0 when everything fits and M without reuse;
 *   - determinism for a seed, and input validation naming the field;
 *   - Triton's configurations (issue 31): with one resident CTA the fills
 *     equal the brute-force LRU on the raster trace for non-square tiles
 *     (lines of gcd(tile_m, tile_n) rows), any stage count and the grouped
 *     raster (its order written here from Triton's tutorial formula, not
 *     from the engine's); deeper stages hide a latency-bound CTA's waits;
 *     two CTAs on an SM share its matrix pipes (a compute-bound run takes
 *     as long with twice the resident CTAs; with each CTA at the SM's full
 *     rate, as before the pipes were shared, it took about half).
 */
#include <string.h>

#include "check.h"
#include "pascal/predict.h"
#include "pascal/simdev.h"

#define TILE_BYTES 16384.0 /* 128 x 64 FP16 */
#define MAX_TRACE  4096

static pascal_simdev_gemm gemm_run(uint32_t n_r, uint32_t n_c, uint32_t n_k, uint32_t M, uint32_t C)
{
  pascal_simdev_gemm g;
  memset(&g, 0, sizeof g);
  g.shape = (pascal_gemm_shape){n_r * 128, n_c * 128, n_k * 64};
  g.tiling = (pascal_gemm_params){
      .tile_m = 128, .tile_n = 128, .tile_k = 64, .elem_bytes = 2, .resident_ctas = M};
  g.m = 8;
  g.C = C;
  g.seed = 7;
  return g;
}

/* Touch `line` in a recency list of at most C lines (MRU first); returns 1
 * when it was absent (a miss), 0 when it was resident. */
static int lru_touch(uint32_t *list, uint32_t *len, uint32_t C, uint32_t line)
{
  uint32_t at = 0;
  int miss = 0;
  while (at < *len && list[at] != line)
    at++;
  if (at == *len) {
    miss = 1;
    if (*len < C)
      (*len)++;
    at = *len - 1; /* drop the LRU entry (or use the new slot) */
  }
  memmove(&list[1], &list[0], at * sizeof list[0]);
  list[0] = line;
  return miss;
}

/* Misses of a brute-force LRU of C lines (recency list, MRU first) on the
 * raster trace of one CTA at a time: tile (i, j) row-major, step k reads
 * A(i, k) then B(k, j); after its last step the tile writes `out` output
 * lines (allocated like a miss, not counted: nothing is read). */
/* Tile (i, j) of pid in Triton's grouped order (tutorial 03, matmul_kernel):
 * group_id = pid / (G n_c), first_pid_m = group_id G, group_size_m =
 * min(n_r - first_pid_m, G), pid_m = first_pid_m + (pid % (G n_c)) %
 * group_size_m, pid_n = (pid % (G n_c)) / group_size_m. */
static void triton_order(uint32_t n_r, uint32_t n_c, uint32_t G, uint32_t pid, uint32_t *i,
                         uint32_t *j)
{
  uint32_t in_group = G * n_c, first = pid / in_group * G;
  uint32_t size = n_r - first < G ? n_r - first : G;
  *i = first + (pid % in_group) % size;
  *j = (pid % in_group) / size;
}

/* The same LRU on the raster trace of `group` with tiles of a and b lines
 * (A then B lines of each step). */
static uint64_t lru_raster_lines(uint32_t n_r, uint32_t n_c, uint32_t n_k, uint32_t a, uint32_t b,
                                 uint32_t group, uint32_t out, uint32_t C)
{
  uint32_t list[MAX_TRACE];
  uint32_t len = 0;
  uint64_t misses = 0;
  for (uint32_t pid = 0; pid < n_r * n_c; pid++) {
    uint32_t i, j;
    triton_order(n_r, n_c, group, pid, &i, &j);
    for (uint32_t k = 0; k < n_k; k++) {
      for (uint32_t q = 0; q < a; q++)
        misses += lru_touch(list, &len, C, 1000000u + (i * 1000u + k) * 8u + q);
      for (uint32_t q = 0; q < b; q++)
        misses += lru_touch(list, &len, C, 9000000u + (k * 1000u + j) * 8u + q);
    }
    for (uint32_t q = 0; q < out; q++)
      lru_touch(list, &len, C, 30000000u + (i * n_c + j) * 8u + q);
  }
  return misses;
}

static uint64_t lru_raster(uint32_t n_r, uint32_t n_c, uint32_t n_k, uint32_t out, uint32_t C)
{
  return lru_raster_lines(n_r, n_c, n_k, 1, 1, 1, out, C);
}

static void test_compulsory_when_fits(pascal_simdev *dev)
{
  static const uint32_t shapes[][3] = {{1, 1, 1}, {2, 3, 4}, {5, 2, 7}, {8, 8, 16}, {20, 12, 40}};
  static const uint32_t Ms[] = {1, 6, 48, 100};
  for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
    for (size_t m = 0; m < sizeof Ms / sizeof Ms[0]; m++) {
      uint32_t n_r = shapes[s][0], n_c = shapes[s][1], n_k = shapes[s][2];
      pascal_simdev_gemm g = gemm_run(n_r, n_c, n_k, Ms[m], 0); /* C = 1280 tiles */
      pascal_simdev_stats st;
      CHECK_INT(pascal_simdev_run_gemm(dev, &g, &st, NULL), PASCAL_OK);
      uint64_t tiles = (uint64_t)(n_r + n_c) * n_k;
      CHECK_INT(st.fills, tiles);
      CHECK_NEAR(st.fill_bytes, TILE_BYTES * (double)tiles, 0.0);
      CHECK_INT(st.requests, 2ull * n_r * n_c * n_k);
      CHECK_INT(st.requests, st.hits + st.merges + st.fills);
      CHECK(st.kernel_ns > 0.0);
    }
}

/* Without output traffic (out_elem_bytes 0) and with FP32 outputs: a
 * 128 x 128 x 4-byte tile is 4 lines of 16 KiB. */
static void test_single_cta_is_raster_lru(pascal_simdev *dev)
{
  static const uint32_t shapes[][3] = {{1, 1, 1}, {2, 3, 4}, {3, 5, 2}, {4, 4, 6}};
  for (size_t x = 0; x < 2 * sizeof shapes / sizeof shapes[0]; x++) {
    size_t s = x / 2;
    uint32_t out_bytes = x % 2 ? 4u : 0u, out_lines = out_bytes;
    uint32_t n_r = shapes[s][0], n_c = shapes[s][1], n_k = shapes[s][2];
    uint32_t lines = (n_r + n_c) * n_k + n_r * n_c * out_lines;
    uint64_t prev = UINT64_MAX;
    for (uint32_t C = 1; C <= lines + 1; C++) {
      pascal_simdev_gemm g = gemm_run(n_r, n_c, n_k, 1, C);
      g.out_elem_bytes = out_bytes;
      pascal_simdev_stats st;
      CHECK_INT(pascal_simdev_run_gemm(dev, &g, &st, NULL), PASCAL_OK);
      CHECK_INT(st.fills, lru_raster(n_r, n_c, n_k, out_lines, C));
      CHECK(st.fills <= prev);
      prev = st.fills;
      if (C == 1) { /* no reuse: every read fills */
        CHECK_INT(st.fills, 2ull * n_r * n_c * n_k);
        CHECK_INT(st.hits + st.merges, 0);
      }
    }
    CHECK_INT(prev, (n_r + n_c) * n_k);
  }
}

/* Many resident CTAs: the read order depends on timing, so only the bounds
 * B_0 <= V <= Q and the sweep's monotonicity are expected. */
static void test_many_ctas_bounds(pascal_simdev *dev)
{
  uint32_t n_r = 16, n_c = 16, n_k = 8;
  uint64_t prev = UINT64_MAX;
  for (uint32_t C = 1; C <= 512; C *= 2) {
    pascal_simdev_gemm g = gemm_run(n_r, n_c, n_k, 48, C);
    pascal_simdev_stats st;
    CHECK_INT(pascal_simdev_run_gemm(dev, &g, &st, NULL), PASCAL_OK);
    CHECK(st.fills >= (uint64_t)(n_r + n_c) * n_k);
    CHECK(st.fills <= 2ull * n_r * n_c * n_k);
    CHECK(st.fills <= prev);
    prev = st.fills;
  }
  CHECK_INT(prev, (n_r + n_c) * n_k); /* 256 tiles fit in 512 */
}

/* Worked by hand: Mg = 256, Ng = 384, Kg = 256 gives n_r = 2, n_c = 3,
 * n_k = 4; B_0 = 16384 (2 + 3) 4 = 327680 bytes, Q = 32768 * 24 = 786432
 * bytes. With M = 6 all tiles run at once: K_0 = 6 * 327680 / 786432 = 2.5,
 * and with a cache that holds the 20 tiles V = B_0, so K = K_0 (kappa = 1).
 * With M = 1 and a one-tile cache all 48 reads fill: V = Q, K = M = 1. */
static void test_hand_worked_k(pascal_simdev *dev)
{
  pascal_simdev_gemm g = gemm_run(2, 3, 4, 6, 0);
  pascal_gemm_prediction geo;
  CHECK_INT(pascal_gemm_geometry(&g.tiling, &g.shape, &geo, NULL), PASCAL_OK);
  CHECK_NEAR(geo.B0, 327680.0, 0.0);
  CHECK_NEAR(geo.Q, 786432.0, 0.0);
  CHECK_NEAR(geo.K0, 2.5, 1e-12);
  pascal_simdev_stats st;
  CHECK_INT(pascal_simdev_run_gemm(dev, &g, &st, NULL), PASCAL_OK);
  CHECK_NEAR(st.fill_bytes, 327680.0, 0.0);
  CHECK_NEAR(st.K, 2.5, 1e-12);
  CHECK_INT(st.M, 6);
  g = gemm_run(2, 3, 4, 1, 1);
  CHECK_INT(pascal_simdev_run_gemm(dev, &g, &st, NULL), PASCAL_OK);
  CHECK_NEAR(st.fill_bytes, 786432.0, 0.0);
  CHECK_NEAR(st.K, 1.0, 1e-12);
  /* FP32 outputs take 6 x 4 = 24 lines: with 44 lines all fits (V = B_0);
   * with 20, the inputs alone would fit but the outputs evict some of them
   * (one CTA: the brute-force raster LRU says how many). */
  g = gemm_run(2, 3, 4, 6, 44);
  g.out_elem_bytes = 4;
  CHECK_INT(pascal_simdev_run_gemm(dev, &g, &st, NULL), PASCAL_OK);
  CHECK_NEAR(st.K, 2.5, 1e-12);
  g = gemm_run(2, 3, 4, 1, 20);
  g.out_elem_bytes = 4;
  CHECK_INT(pascal_simdev_run_gemm(dev, &g, &st, NULL), PASCAL_OK);
  CHECK(st.fills > 20);
  CHECK_INT(st.fills, lru_raster(2, 3, 4, 4, 20));
  /* in between: six CTAs, a four-tile cache: K_0 <= K <= M */
  g = gemm_run(2, 3, 4, 6, 4);
  CHECK_INT(pascal_simdev_run_gemm(dev, &g, &st, NULL), PASCAL_OK);
  CHECK(st.K >= 2.5 && st.K <= 6.0);
}

static void test_determinism_and_time(pascal_simdev *dev)
{
  pascal_simdev_gemm g = gemm_run(10, 10, 20, 48, 64);
  pascal_simdev_stats a, b, c;
  CHECK_INT(pascal_simdev_run_gemm(dev, &g, &a, NULL), PASCAL_OK);
  CHECK_INT(pascal_simdev_run_gemm(dev, &g, &b, NULL), PASCAL_OK);
  CHECK(memcmp(&a, &b, sizeof a) == 0);
  g.seed = 8;
  CHECK_INT(pascal_simdev_run_gemm(dev, &g, &c, NULL), PASCAL_OK);
  CHECK(c.kernel_ns != a.kernel_ns);
  /* twice the reduction length: more than the time of the shorter one */
  g = gemm_run(10, 10, 40, 48, 64);
  CHECK_INT(pascal_simdev_run_gemm(dev, &g, &b, NULL), PASCAL_OK);
  CHECK(b.kernel_ns > 1.5 * a.kernel_ns);
}

static void expect_field(pascal_simdev *dev, const pascal_simdev_gemm *g, const char *field)
{
  pascal_error err;
  pascal_simdev_stats st;
  memset(&err, 0, sizeof err);
  CHECK(pascal_simdev_run_gemm(dev, g, &st, &err) != PASCAL_OK);
  CHECK(strcmp(err.field, field) == 0);
}

static void test_validation(pascal_simdev *dev)
{
  pascal_simdev_gemm g = gemm_run(2, 2, 2, 4, 0);
  g.shape.Mg = 200;
  expect_field(dev, &g, "Mg");
  g = gemm_run(2, 2, 2, 4, 0);
  g.shape.Kg = 0;
  expect_field(dev, &g, "Kg");
  g = gemm_run(2, 2, 2, 4, 0);
  g.tiling.stages = PASCAL_GEMM_STAGES_MAX + 1;
  expect_field(dev, &g, "stages");
  /* stages and group_m 0 state neither: the one-stage direct kernel, run
   * for run (same counters and time, the same seed) */
  pascal_simdev_stats unstated, stated;
  pascal_error err;
  g = gemm_run(3, 2, 4, 4, 0);
  g.tiling.stages = g.tiling.group_m = 0;
  CHECK_INT(pascal_simdev_run_gemm(dev, &g, &unstated, &err), PASCAL_OK);
  g.tiling.stages = g.tiling.group_m = 1;
  CHECK_INT(pascal_simdev_run_gemm(dev, &g, &stated, &err), PASCAL_OK);
  CHECK(unstated.fills == stated.fills && unstated.hits == stated.hits &&
        unstated.kernel_ns == stated.kernel_ns);
  g = gemm_run(2, 2, 2, 0, 0);
  expect_field(dev, &g, "gemm.resident_ctas");
  g = gemm_run(2, 2, 2, 4, 0);
  g.tiling.elem_bytes = 1u << 20; /* a 16 GiB tile: beyond 32-bit sizes */
  expect_field(dev, &g, "tile_k");
  g = gemm_run(2, 2, 2, 4, 0);
  g.out_elem_bytes = 65;
  expect_field(dev, &g, "out_elem_bytes");
  g = gemm_run(2, 2, 2, 4, 0);
  g.tiling.tile_k = 131072; /* a 32 MiB tile: the 20 MiB cache holds none */
  g.shape.Kg = 131072;
  expect_field(dev, &g, "C");
}

/* One CTA at a time: the read order is the raster's whatever the stages
 * (steps are requested in k order, the next CTA starts after the output),
 * so every configuration's fills are the brute-force LRU's. */
static void test_configurations_single_cta(pascal_simdev *dev)
{
  static const uint32_t tiles[][2] = {{128, 128}, {128, 64}, {64, 128}, {128, 32}, {64, 96}};
  static const uint32_t stages[] = {1, 2, 4}, groups[] = {1, 2, 3};
  for (size_t t = 0; t < 5; t++)
    for (size_t si = 0; si < 3; si++)
      for (size_t gi = 0; gi < 3; gi++) {
        uint32_t tm = tiles[t][0], tn = tiles[t][1], u = tm < tn ? tm : tn;
        while (tm % u || tn % u)
          u--;
        uint32_t a = tm / u, b = tn / u, n_r = 4, n_c = 3, n_k = 3;
        uint32_t lines = (n_r * a + n_c * b) * n_k;
        for (uint32_t C = 1; C <= lines + 1; C += 3) {
          pascal_simdev_gemm g = gemm_run(n_r, n_c, n_k, 1, C);
          g.shape = (pascal_gemm_shape){n_r * tm, n_c * tn, n_k * 64};
          g.tiling.tile_m = tm;
          g.tiling.tile_n = tn;
          g.tiling.stages = stages[si];
          g.tiling.group_m = groups[gi];
          pascal_simdev_stats st;
          CHECK_INT(pascal_simdev_run_gemm(dev, &g, &st, NULL), PASCAL_OK);
          CHECK_INT(st.fills, lru_raster_lines(n_r, n_c, n_k, a, b, groups[gi], 0, C));
          CHECK_INT(st.requests, (uint64_t)n_r * n_c * n_k * (a + b));
          CHECK_NEAR(st.fill_bytes, st.fills * (double)u * 64 * 2, 0.0);
          if (check_failures())
            return;
        }
      }
}

/* Stages hide the wait for the tiles: one CTA whose step is short against
 * its reads' latency runs faster with four buffers than with one; with
 * everything resident the fills are the inputs whatever the stages. */
static void test_stages_and_pipes(pascal_simdev *dev)
{
  pascal_simdev_stats one, four;
  pascal_simdev_gemm g = gemm_run(2, 2, 32, 1, 0);
  g.m = 1;
  CHECK_INT(pascal_simdev_run_gemm(dev, &g, &one, NULL), PASCAL_OK);
  g.tiling.stages = 4;
  CHECK_INT(pascal_simdev_run_gemm(dev, &g, &four, NULL), PASCAL_OK);
  CHECK(four.kernel_ns < 0.8 * one.kernel_ns);
  CHECK_INT(four.fills, one.fills);
  CHECK_INT(one.fills, (2 + 2) * 32);
  /* compute-bound (m = 5120 per step: 16.1 us at gb10-like's pipe rate of
   * 3.146 ns, against a step's reads of about 1 us): 96 CTAs on 48 SMs, one
   * or two at a time per SM, take about the same time; the pipes are the
   * SM's */
  pascal_simdev_stats a, b;
  g = gemm_run(12, 8, 8, 48, 0);
  g.m = 5120;
  CHECK_INT(pascal_simdev_run_gemm(dev, &g, &a, NULL), PASCAL_OK);
  g.tiling.resident_ctas = 96;
  CHECK_INT(pascal_simdev_run_gemm(dev, &g, &b, NULL), PASCAL_OK);
  CHECK(b.kernel_ns > 0.9 * a.kernel_ns && b.kernel_ns < 1.1 * a.kernel_ns);
}

/* The profile's tensor_pipe_ns is the GEMM step's matrix rate and nothing
 * else's: one CTA (one slot, nothing shared) of 1 x 1 x 8 steps of m = 256
 * on gb10-like (3.146 ns) and on a copy stating 0 (the scan's chain, 60 ns
 * per instruction in groups of four, tail0_ns = 0). Per step the work
 * differs by 256 (60 - 3.146) = 14555 ns, 8 steps 116.4 us, each step's
 * work jittered by +-10 % (service_jitter); the reads and so the fills are
 * the same. A scan with matrix work (m = 8) runs bit for bit the same on
 * both: the anchors' chain rate is untouched. Checked to fail with the key
 * not read by the GEMM (both runs equal). */
static void test_tensor_pipe(void)
{
  pascal_simdev_profile pipe, chain;
  pascal_simdev_profile_default(&pipe);
  chain = pipe;
  chain.tensor_pipe_ns = 0.0;
  CHECK_NEAR(pipe.tensor_pipe_ns, 3.146, 0.0);
  pascal_simdev *dp = NULL, *dc = NULL;
  CHECK_INT(pascal_simdev_new(&pipe, &dp, NULL), PASCAL_OK);
  CHECK_INT(pascal_simdev_new(&chain, &dc, NULL), PASCAL_OK);
  if (dp && dc) {
    pascal_simdev_gemm g = gemm_run(1, 1, 8, 1, 0);
    g.m = 256;
    pascal_simdev_stats a, b;
    CHECK_INT(pascal_simdev_run_gemm(dp, &g, &a, NULL), PASCAL_OK);
    CHECK_INT(pascal_simdev_run_gemm(dc, &g, &b, NULL), PASCAL_OK);
    double gap = 8 * 256 * (pipe.compute_ns - pipe.tensor_pipe_ns);
    CHECK(b.kernel_ns - a.kernel_ns > 0.9 * gap && b.kernel_ns - a.kernel_ns < 1.1 * gap);
    CHECK_INT(a.fills, b.fills);
    pascal_simdev_scan sc = {2, 1, 4, 8, 2048, 2, 5, 0};
    CHECK_INT(pascal_simdev_run_scan(dp, &sc, &a, NULL, NULL), PASCAL_OK);
    CHECK_INT(pascal_simdev_run_scan(dc, &sc, &b, NULL, NULL), PASCAL_OK);
    CHECK(memcmp(&a, &b, sizeof a) == 0);
  }
  pascal_simdev_free(dp);
  pascal_simdev_free(dc);
}

int main(void)
{
  static void (*const tests[])(pascal_simdev *) = {
      test_compulsory_when_fits,      test_single_cta_is_raster_lru,
      test_many_ctas_bounds,          test_hand_worked_k,
      test_determinism_and_time,      test_validation,
      test_configurations_single_cta, test_stages_and_pipes};
  pascal_simdev_profile gb10;
  pascal_simdev_profile_default(&gb10); /* C = 1280 blocks of 16 KiB: 1280 tiles */
  pascal_simdev *dev = NULL;
  CHECK_INT(pascal_simdev_new(&gb10, &dev, NULL), PASCAL_OK);
  for (size_t i = 0; dev && i < sizeof tests / sizeof tests[0]; i++)
    tests[i](dev);
  pascal_simdev_free(dev);
  test_tensor_pipe();
  return check_summary();
}
