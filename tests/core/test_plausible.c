/*
 * test_plausible.c - the physically possible range of a measured run
 * (pascal/plausible.h, issue 37 finding 2), against hand-computed bounds:
 * a scan run of N = 1000 blocks of 16 KiB, W = 4, o = 2 on 48 SMs fills
 * between N b = 16,384,000 bytes (every block once) and M W N b =
 * 96 x 4 x 16,384,000 = 6,291,456,000 bytes; a 256 x 256 x 1024 GEMM in
 * 128 x 128 x 64 FP16 tiles between B0 = 16384 (2 + 2) 16 = 1,048,576 and
 * Q = 32768 x 2 x 2 x 16 = 2,097,152 bytes. The 1% slack admits the edges
 * and nothing far past them (above: 64 KiB more for the launch's own reads,
 * which a one-tile GEMM measured on an H100 needs); a kernel time below the fills at twice the
 * peak DRAM bandwidth is refused. Without pascal_plausible_result (the
 * checks before it) 1e-300, 5e-324 and 1e300 all passed.
 */
#include <math.h>
#include <string.h>

#include "check.h"
#include "pascal/plausible.h"
#include "pascal/predict.h"

static pascal_device device(void)
{
  pascal_device d;
  memset(&d, 0, sizeof d);
  d.sm_count = 48;
  d.capacity_blocks = 1280;
  d.block_bytes = 16384;
  return d;
}

static int refused(const pascal_device *d, double lo, double hi, double fill, double t,
                   const char *field)
{
  pascal_error err;
  pascal_error_clear(&err);
  pascal_status st = pascal_plausible_result(d, lo, hi, fill, t, &err);
  return st == PASCAL_EREFUSED && strcmp(err.field, field) == 0;
}

static void test_scan_range(void)
{
  pascal_device d = device();
  pascal_scan_key key = {2, PASCAL_PATH_TMA, 2, 5};
  double lo = 0, hi = 0;
  CHECK_INT(pascal_plausible_scan_fills(&d, &key, 1000, 4, &lo, &hi, NULL), PASCAL_OK);
  CHECK(lo == 16384000.0);
  CHECK(hi == 6291456000.0);
  CHECK_INT(pascal_plausible_result(&d, lo, hi, lo, 0, NULL), PASCAL_OK);
  CHECK_INT(pascal_plausible_result(&d, lo, hi, hi, 1e6, NULL), PASCAL_OK);
  CHECK_INT(pascal_plausible_result(&d, lo, hi, lo * 0.995, 0, NULL), PASCAL_OK); /* slack */
  const double bad[] = {0, 1e-300, 5e-324, 1e300, lo * 0.98, hi * 1.02, INFINITY, NAN, -1};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
    CHECK(refused(&d, lo, hi, bad[i], 0, "fill_bytes"));
  CHECK(refused(&d, lo, hi, lo, -1, "kernel_ns"));
  CHECK(refused(&d, lo, hi, lo, INFINITY, "kernel_ns"));
  CHECK_INT(pascal_plausible_scan_fills(&d, &key, 0, 4, &lo, &hi, NULL), PASCAL_EINVAL);
}

static void test_gemm_range(void)
{
  pascal_gemm_params g = {
      .tile_m = 128, .tile_n = 128, .tile_k = 64, .elem_bytes = 2, .resident_ctas = 48};
  pascal_gemm_shape s = {256, 256, 1024};
  double lo = 0, hi = 0;
  CHECK_INT(pascal_plausible_gemm_fills(&g, &s, &lo, &hi, NULL), PASCAL_OK);
  CHECK(lo == 1048576.0);
  CHECK(hi == 2097152.0);
  /* the closed forms agree with pascal_gemm_geometry on every tile multiple */
  for (uint32_t r = 1; r <= 8; r++)
    for (uint32_t c = 1; c <= 8; c++)
      for (uint32_t k = 1; k <= 32; k *= 2) {
        pascal_gemm_shape sh = {128 * r, 128 * c, 64 * k};
        pascal_gemm_prediction geo;
        CHECK_INT(pascal_gemm_geometry(&g, &sh, &geo, NULL), PASCAL_OK);
        CHECK_INT(pascal_plausible_gemm_fills(&g, &sh, &lo, &hi, NULL), PASCAL_OK);
        CHECK(lo == geo.B0 && hi == geo.Q);
      }
  /* one tile: cold bytes = M fills per reference; the launch's own reads
   * on top (an H100 measured 1,071,104 bytes for this shape) are allowed up
   * to PASCAL_PLAUSIBLE_LAUNCH_BYTES, nothing beyond */
  pascal_gemm_shape one = {128, 128, 2048};
  CHECK_INT(pascal_plausible_gemm_fills(&g, &one, &lo, &hi, NULL), PASCAL_OK);
  CHECK(lo == 1048576.0 && hi == 1048576.0);
  pascal_device d = device();
  CHECK_INT(pascal_plausible_result(&d, lo, hi, 1071104.0, 0, NULL), PASCAL_OK);
  CHECK_INT(pascal_plausible_result(&d, lo, hi, 1048576.0 * 1.01 + 65536.0, 0, NULL), PASCAL_OK);
  CHECK(refused(&d, lo, hi, 1048576.0 * 1.01 + 65537.0, 0, "fill_bytes"));
  pascal_gemm_shape zero = {0, 256, 1024};
  pascal_error err;
  CHECK_INT(pascal_plausible_gemm_fills(&g, &zero, &lo, &hi, &err), PASCAL_EINVAL);
  CHECK(strcmp(err.field, "Mg") == 0);
}

static void test_time_bound(void)
{
  pascal_device d = device();
  d.has_peaks = 1;
  d.peaks.dram_bytes_per_s = 1e9; /* 1 byte per ns; twice that: 2e6 bytes in 1e6 ns */
  double fill = 2e6;
  CHECK_INT(pascal_plausible_result(&d, fill, fill, fill, 1e6, NULL), PASCAL_OK);
  CHECK_INT(pascal_plausible_result(&d, fill, fill, fill, 0, NULL), PASCAL_OK); /* not timed */
  CHECK(refused(&d, fill, fill, fill, 0.999e6, "kernel_ns"));
  d.has_peaks = 0; /* no peaks: nothing to compare with */
  CHECK_INT(pascal_plausible_result(&d, fill, fill, fill, 1, NULL), PASCAL_OK);
}

int main(void)
{
  test_scan_range();
  test_gemm_range();
  test_time_bound();
  return check_summary();
}
