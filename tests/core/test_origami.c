/*
 * test_origami.c - Origami's model on NVIDIA (pascal/origami.h) against
 * independent expectations:
 *  - the mapping equals Triton's grouped program-id formula (the tutorial's
 *    pid_m / pid_n arithmetic, written out here) on every small grid;
 *  - the unique-tile counts equal a brute-force enumeration of the tiles a
 *    pid range touches, on every range of every grid up to 6 x 6 and every
 *    group size, except in the one case where Origami's closed form counts
 *    more (one group, exactly two columns: the whole group's rows), which is
 *    checked as such and shown to occur;
 *  - the hit rate equals the two-timestep equations evaluated on those
 *    brute-force sets, over grids, SM counts and capacities (reuse on and off);
 *  - a grid that fits one timestep reads exactly its distinct panels
 *    (B_0: Origami is aligned K_0 there) and Origami's 0.5 floor applies to a
 *    lone CTA;
 *  - worked by hand: a 4 x 4 grid on 4 SMs (row-major H = 3/4, 3/8 without
 *    capacity, grouped by 2 H = 1/2), one predicted time term by term, and
 *    selections (a tie broken by hit rate, the 1 % arithmetic-intensity tie
 *    breaker choosing a slower tile, no tie outside 1 %, equal intensities
 *    kept in time order);
 *  - errors name their argument.
 * Verified to fail without the code under test: swapping the row and column
 * of decode() breaks the Triton mapping check; dropping the two-column case
 * (exact rows) breaks the exhaustive count's "approximate" branch; leaving
 * out the temporal term breaks the hand-worked H = 3/4.
 */
#include <math.h>
#include <string.h>

#include "check.h"
#include "pascal/origami.h"

/* Triton's grouped ordering (tutorial 03-matrix-multiplication). */
static void triton_pid(uint64_t grid_m, uint64_t grid_n, uint64_t G, uint64_t pid, uint64_t *row,
                       uint64_t *col)
{
  uint64_t in_group = G * grid_n, group = pid / in_group, first = group * G;
  uint64_t size = grid_m - first < G ? grid_m - first : G;
  *row = first + (pid % in_group) % size;
  *col = (pid % in_group) / size;
}

static void test_mapping_is_tritons(void)
{
  for (uint64_t gm = 1; gm <= 7; gm++)
    for (uint64_t gn = 1; gn <= 7; gn++)
      for (uint32_t G = 1; G <= 8; G++) {
        int seen[7][7] = {{0}};
        for (uint64_t pid = 0; pid < gm * gn; pid++) {
          uint64_t r, c, tr, tc;
          CHECK(pascal_origami_tile_of(gm, gn, G, pid, &r, &c, NULL) == PASCAL_OK);
          triton_pid(gm, gn, G, pid, &tr, &tc);
          CHECK(r == tr && c == tc);
          if (r < gm && c < gn)
            seen[r][c]++;
        }
        for (uint64_t r = 0; r < gm; r++)
          for (uint64_t c = 0; c < gn; c++)
            CHECK(seen[r][c] == 1);
      }
}

/* The distinct rows and columns of pids [start, start + count). */
static void brute_unique(uint64_t gm, uint64_t gn, uint64_t G, uint64_t start, uint64_t count,
                         uint64_t *rows, uint64_t *cols)
{
  int rs[64] = {0}, cs[64] = {0};
  *rows = *cols = 0;
  for (uint64_t p = start; p < start + count; p++) {
    uint64_t r, c;
    triton_pid(gm, gn, G, p, &r, &c);
    *rows += !rs[r]++;
    *cols += !cs[c]++;
  }
}

/* Origami's counts from the brute-force sets: exact, except that within one
 * group a range touching exactly two columns counts the group's rows. */
static void origami_expected(uint64_t gm, uint64_t gn, uint64_t G, uint64_t start, uint64_t count,
                             uint64_t *rows, uint64_t *cols, int *approximate)
{
  brute_unique(gm, gn, G, start, count, rows, cols);
  uint64_t r0, c0, r1, c1;
  triton_pid(gm, gn, G, start, &r0, &c0);
  triton_pid(gm, gn, G, start + count - 1, &r1, &c1);
  *approximate = 0;
  if (r0 / G == r1 / G && *cols == 2) {
    uint64_t first = r0 / G * G, group_rows = gm - first < G ? gm - first : G;
    CHECK(*rows <= group_rows);
    *approximate = *rows < group_rows;
    *rows = group_rows;
  }
}

static void test_unique_tiles_exhaustive(void)
{
  size_t cases = 0, approximate = 0;
  for (uint64_t gm = 1; gm <= 6; gm++)
    for (uint64_t gn = 1; gn <= 6; gn++)
      for (uint32_t G = 1; G <= 7; G++)
        for (uint64_t s = 0; s < gm * gn; s++)
          for (uint64_t n = 1; s + n <= gm * gn; n++) {
            uint64_t r, c, er, ec;
            int approx;
            CHECK(pascal_origami_unique_tiles(gm, gn, G, s, n, &r, &c, NULL) == PASCAL_OK);
            origami_expected(gm, gn, G, s, n, &er, &ec, &approx);
            CHECK_INT((long long)r, (long long)er);
            CHECK_INT((long long)c, (long long)ec);
            cases++;
            approximate += approx;
          }
  CHECK(cases > 10000);
  CHECK(approximate > 0); /* the closed form's over-count is exercised */
}

static pascal_origami_device device(uint32_t sm, double l2_bytes)
{
  return (pascal_origami_device){.sm_count = sm,
                                 .l2_bytes = l2_bytes,
                                 .peaks = {.dram_bytes_per_s = 1e9,
                                           .l2_bytes_per_s = 4e9,
                                           .tensor_flops = 1e12,
                                           .sm_clock_hz = 1e9,
                                           .launch_s = 0}};
}

/* The two-timestep hit rate from brute-force sets. */
static double brute_hit_rate(uint64_t gm, uint64_t gn, uint64_t G, uint64_t N, double a, double b,
                             double cap)
{
  uint64_t total = gm * gn, ts = (total + N - 1) / N, c0 = total < N ? total : N;
  uint64_t r0, k0, r1, k1;
  int approx;
  origami_expected(gm, gn, G, 0, c0, &r0, &k0, &approx);
  double ws0 = r0 * a + k0 * b, req0 = c0 * (a + b), hits0 = req0 - ws0, req1 = 0, hits1 = 0;
  if (ts > 1) {
    uint64_t c1 = total - N < N ? total - N : N, row, f0, l0, f1, l1;
    origami_expected(gm, gn, G, N, c1, &r1, &k1, &approx);
    triton_pid(gm, gn, G, 0, &row, &f0);
    triton_pid(gm, gn, G, c0 - 1, &row, &l0);
    triton_pid(gm, gn, G, N, &row, &f1);
    triton_pid(gm, gn, G, N + c0 - 1 < total ? N + c0 - 1 : total - 1, &row, &l1);
    double cols = f1 <= l0 && l1 >= f0 ? fmax(fmin(l1, l0) - fmax(f1, f0) + 1, 0) : 0;
    double rows = r0 == gm && r1 == gm ? gm : 0;
    double temporal = ws0 <= 0.99 * cap ? rows * a + cols * b : 0;
    req1 = c1 * (a + b);
    hits1 = req1 - fmax(r1 * a + k1 * b - temporal, 0);
  }
  return fmin(fmax((hits0 + (ts - 1) * hits1) / (req0 + (ts - 1) * req1), 0), 1);
}

static void test_hit_rate_matches_equations(void)
{
  const double caps[] = {1e3, 1e6, 1e12};
  size_t with_reuse = 0;
  for (uint32_t gm = 1; gm <= 6; gm++)
    for (uint32_t gn = 1; gn <= 6; gn++)
      for (uint32_t G = 1; G <= 4; G++)
        for (uint32_t N = 1; N <= 7; N++)
          for (size_t ci = 0; ci < 3; ci++) {
            pascal_origami_device d = device(N, caps[ci]);
            pascal_origami_config c = {64, 32, 16, 2, G, 1};
            pascal_gemm_shape s = {64 * gm, 32 * gn, 256};
            pascal_origami_traffic t;
            CHECK(pascal_origami_traffic_of(&d, &s, &c, &t, NULL) == PASCAL_OK);
            double a = 64.0 * 256 * 2, b = 32.0 * 256 * 2;
            double h = brute_hit_rate(gm, gn, G, N, a, b, caps[ci]);
            CHECK_NEAR(t.hit_rate, h, 1e-12);
            CHECK_NEAR(t.requested_bytes, gm * gn * (a + b), 0);
            CHECK_NEAR(t.dram_bytes, (1 - (h == 0 ? 0.5 : h)) * t.requested_bytes, 1e-6);
            with_reuse += t.rows_reused + t.cols_reused > 0 && ci == 2;
          }
  CHECK(with_reuse > 0);
}

static void test_one_timestep_reads_each_panel_once(void)
{
  /* 3 x 5 tiles on 16 SMs: one timestep, every row and column once: B_0. */
  pascal_origami_device d = device(16, 1e3);
  pascal_origami_config c = {128, 128, 64, 2, 1, 1};
  pascal_gemm_shape s = {384, 640, 1024};
  pascal_origami_traffic t;
  CHECK(pascal_origami_traffic_of(&d, &s, &c, &t, NULL) == PASCAL_OK);
  double panel = 128.0 * 1024 * 2;
  CHECK_INT((long long)t.timesteps, 1);
  CHECK_NEAR(t.dram_bytes, (3 + 5) * panel, 1e-6);
  CHECK_NEAR(t.requested_bytes, 15 * 2 * panel, 0);
  /* a lone CTA hits nothing: H = 0, and Origami's floor halves its traffic */
  pascal_gemm_shape one = {128, 128, 1024};
  CHECK(pascal_origami_traffic_of(&d, &one, &c, &t, NULL) == PASCAL_OK);
  CHECK(t.hit_rate == 0 && t.hit_rate_used == 0.5);
  CHECK_NEAR(t.dram_bytes, panel, 1e-9);
}

static void test_hand_worked_grid(void)
{
  /* 4 x 4 tiles of 128 on 4 SMs, Kg = 64: panels a = b = 16384 bytes,
   * Q = 16 CTAs x 2 panels. Row-major: T0 = row 0 (1 row, 4 columns):
   * req 8, unique 5, hits 3 panels. T1 = row 1: same columns, both range
   * over columns 0..3, so 4 are reused; rows are reused only when both
   * timesteps touch all rows: not here. hits1 = 8 - (5 - 4) = 7. With
   * T = 4: H = (3 + 3 x 7) / (8 + 3 x 8) = 3/4, DRAM 8 panels. */
  pascal_origami_device d = device(4, 1e9);
  pascal_origami_config c = {128, 128, 64, 2, 1, 1};
  pascal_gemm_shape s = {512, 512, 64};
  pascal_origami_traffic t;
  CHECK(pascal_origami_traffic_of(&d, &s, &c, &t, NULL) == PASCAL_OK);
  CHECK_INT((long long)t.rows0, 1);
  CHECK_INT((long long)t.cols0, 4);
  CHECK_INT((long long)t.cols_reused, 4);
  CHECK_INT((long long)t.rows_reused, 0);
  CHECK_NEAR(t.hit_rate, 0.75, 1e-15);
  CHECK_NEAR(t.dram_bytes, 8 * 16384.0, 1e-9);
  /* T0's 5 panels exceed 0.99 C: no reuse, hits1 = 3, H = 12/32. */
  d.l2_bytes = 4 * 16384.0;
  CHECK(pascal_origami_traffic_of(&d, &s, &c, &t, NULL) == PASCAL_OK);
  CHECK_NEAR(t.hit_rate, 12.0 / 32, 1e-15);
  /* GROUP_SIZE_M 2: T0 = tiles (0,0) (1,0) (0,1) (1,1), 2 rows and 2
   * columns; T1 = columns 2 and 3 of the same rows: the column ranges 0..1
   * and 2..3 do not overlap and not every row is touched, so nothing is
   * reused (the shared rows 0 and 1 are not seen): hits 4 per timestep,
   * H = 16/32. */
  d.l2_bytes = 1e9;
  c.group_m = 2;
  CHECK(pascal_origami_traffic_of(&d, &s, &c, &t, NULL) == PASCAL_OK);
  CHECK_INT((long long)t.rows1, 2);
  CHECK_INT((long long)t.cols1, 2);
  CHECK_NEAR(t.hit_rate, 0.5, 1e-15);
}

static void test_hand_worked_time(void)
{
  /* The grid above with Kg = 128 (2 k-steps, 1 iteration), peaks DRAM
   * 1e9, L2 4e9 B/s, 1e12 FLOP/s, 1 GHz, 4 SMs all active:
   *  compute 2 x 128^2 x 64 / 2.5e11 = 8.388608e-6 s;
   *  loads of the 4 SMs 4 x 256 x 128 = 131072 B: L2 131072 / 4e9;
   *  DRAM (1 - 3/4) 131072 / 1e9 + 200 cycles = 3.2768e-5 + 2e-7;
   *  occupancy factor 0.95 (occupancy 1); prologue = memory x 0.95;
   *  epilogue (4 x 128 x 256 B / 1e9 + compute) x 0.95;
   *  CTA: iteration + 1.5 prologue + 2 epilogue + 1 + 500 cycles;
   *  GEMM: 4 timesteps. */
  pascal_origami_device d = device(4, 1e9);
  pascal_origami_config c = {128, 128, 64, 2, 1, 1};
  pascal_gemm_shape s = {512, 512, 128};
  pascal_origami_time t;
  CHECK(pascal_origami_time_of(&d, &s, &c, &t, NULL) == PASCAL_OK);
  double compute = 8.388608e-6, l2 = 131072 / 4e9, dram = 0.25 * 131072 / 1e9 + 2e-7;
  double mem = fmax(l2, dram), pro = mem * 0.95, epi = (131072 / 1e9 + compute) * 0.95;
  double cta = fmax(compute, mem) + 1.5 * pro + 2 * epi + 1e-9 + 500e-9;
  CHECK_NEAR(t.compute_s, compute, 1e-18);
  CHECK_NEAR(t.l2_s, l2, 1e-18);
  CHECK_NEAR(t.dram_s, dram, 1e-18);
  CHECK_INT((long long)t.iterations, 1);
  CHECK_NEAR(t.prologue_s, pro, 1e-18);
  CHECK_NEAR(t.epilogue_s, epi, 1e-18);
  CHECK_NEAR(t.time_s, 4 * cta, 1e-17);
  /* a shape off the tiles: utilisation 500 x 500 x 100 / (512 x 512 x 128)
   * divides the iteration, and the padded last k-step costs
   * 50000 x (100 mod 64) / 100 cycles in the epilogue */
  pascal_gemm_shape off = {500, 500, 100};
  pascal_origami_time u;
  CHECK(pascal_origami_time_of(&d, &off, &c, &u, NULL) == PASCAL_OK);
  double util = 500.0 * 500 * 100 / (512.0 * 512 * 128);
  CHECK_NEAR(u.utilization, util, 1e-15);
  CHECK_NEAR(u.epilogue_s - (131072 / 1e9 + compute / util) * 0.95, 50000e-9 * 36 / 100, 1e-15);
}

static pascal_origami_device fast_memory(void)
{
  /* compute-bound, cycle constants negligible */
  return (pascal_origami_device){.sm_count = 4,
                                 .l2_bytes = 1e12,
                                 .peaks = {.dram_bytes_per_s = 1e18,
                                           .l2_bytes_per_s = 1e18,
                                           .tensor_flops = 1e12,
                                           .sm_clock_hz = 1e18,
                                           .launch_s = 0}};
}

static void test_selection(void)
{
  pascal_origami_device d = fast_memory();
  size_t order[2];
  double t[2];
  /* one tile, two rasters, compute-bound: the times tie within 1 % and
   * so do the intensities; the stable order is the time's, where the
   * higher hit rate (row-major, H 3/4 above, against 1/2 for groups of 2)
   * saves DRAM time, whatever the input order */
  pascal_origami_config by_group[2] = {{128, 128, 64, 2, 2, 1}, {128, 128, 64, 2, 1, 1}};
  pascal_gemm_shape s = {512, 512, 64};
  d.peaks.dram_bytes_per_s = 1e14; /* DRAM, not L2, sets the memory term */
  CHECK(pascal_origami_rank(&d, &s, by_group, 2, order, t, NULL) == PASCAL_OK);
  CHECK(t[1] < t[0] && t[0] / t[1] - 1 < 0.01);
  CHECK(order[0] == 1 && order[1] == 0);
  /* 128x128x64 (intensity 64) against 128x128x32 (42.7) at Kg = 4096:
   * iterations 63 x 2c against 127 x c, the epilogue's compute step 2c
   * against c (x 2 x 0.95): the bigger k-step is slower by about 0.9 c
   * of some 130 c, within 1 %: Origami's tie breaker still picks it. */
  pascal_origami_config by_k[2] = {{128, 128, 32, 2, 1, 1}, {128, 128, 64, 2, 1, 1}};
  d = fast_memory();
  s.Kg = 4096;
  CHECK(pascal_origami_rank(&d, &s, by_k, 2, order, t, NULL) == PASCAL_OK);
  CHECK(t[1] > t[0] && (t[1] - t[0]) / t[0] < 0.01);
  CHECK(order[0] == 1);
  /* Kg = 256: about 0.9 c of some 8.9 c, no tie: the faster one wins */
  s.Kg = 256;
  CHECK(pascal_origami_rank(&d, &s, by_k, 2, order, t, NULL) == PASCAL_OK);
  CHECK(t[1] > 1.01 * t[0]);
  CHECK(order[0] == 0 && order[1] == 1);
}

static void test_errors(void)
{
  pascal_origami_device d = device(4, 1e9);
  pascal_origami_config c = {128, 128, 64, 2, 1, 1};
  pascal_gemm_shape s = {512, 512, 64};
  pascal_origami_traffic t;
  pascal_origami_time tm;
  pascal_error err;
  uint64_t r, k;
  c.group_m = 0;
  CHECK(pascal_origami_traffic_of(&d, &s, &c, &t, &err) == PASCAL_EINVAL);
  CHECK(strcmp(err.field, "config.group_m") == 0);
  c.group_m = 1;
  s.Kg = 0;
  CHECK(pascal_origami_traffic_of(&d, &s, &c, &t, &err) == PASCAL_EINVAL);
  CHECK(strcmp(err.field, "shape.Kg") == 0);
  s.Kg = 64;
  d.sm_count = 0;
  CHECK(pascal_origami_traffic_of(&d, &s, &c, &t, &err) == PASCAL_EINVAL);
  CHECK(strcmp(err.field, "sm_count") == 0);
  d = device(4, 1e9);
  d.peaks.tensor_flops = 0; /* the traffic needs no peaks, the time does */
  CHECK(pascal_origami_traffic_of(&d, &s, &c, &t, &err) == PASCAL_OK);
  CHECK(pascal_origami_time_of(&d, &s, &c, &tm, &err) == PASCAL_EINVAL);
  CHECK(strcmp(err.field, "peaks") == 0);
  d = device(4, 1e9);
  pascal_origami_config two[2] = {c, c};
  two[1].occupancy = 0;
  size_t order[2];
  CHECK(pascal_origami_rank(&d, &s, two, 2, order, NULL, &err) == PASCAL_EINVAL);
  CHECK(strcmp(err.field, "configs[1].occupancy") == 0);
  CHECK(pascal_origami_rank(&d, &s, two, 0, order, NULL, &err) == PASCAL_EINVAL);
  CHECK(strcmp(err.field, "n") == 0);
  CHECK(pascal_origami_tile_of(2, 2, 1, 4, &r, &k, &err) == PASCAL_EINVAL);
  CHECK(strcmp(err.field, "pid") == 0);
  CHECK(pascal_origami_unique_tiles(2, 2, 1, 3, 2, &r, &k, &err) == PASCAL_EINVAL);
  CHECK(strcmp(err.field, "count") == 0);
  CHECK(pascal_origami_unique_tiles(UINT64_C(1) << 30, UINT64_C(1) << 30, 1, 0, 1, &r, &k, &err) ==
        PASCAL_ERANGE);
  CHECK(strcmp(err.field, "grid_m") == 0);
}

int main(void)
{
  test_mapping_is_tritons();
  test_unique_tiles_exhaustive();
  test_hit_rate_matches_equations();
  test_one_timestep_reads_each_panel_once();
  test_hand_worked_grid();
  test_hand_worked_time();
  test_selection();
  test_errors();
  return check_summary();
}
