/* test_agent_sim.c - the sim backend adapter (calibrator/agent/backend_sim.c)
 * against core/simdev: it describes the profile it was opened with, passes
 * every job field through (same stats as calling simdev directly), is
 * deterministic, keeps fills within their physical bounds, runs a GEMM job
 * with pascald's GEMM tiling (128 x 128 x 64 FP16, one CTA per SM, FP32
 * outputs, the tile's FLOPs as its compute), and
 * refuses what the sim cannot measure (a shape off the tile grid, another
 * block size, a missing profile). */
#include <string.h>

#include "../../calibrator/backend.h"
#include "check.h"
#include "pascal/simdev.h"

#ifndef TINY_PROFILE
#error "TINY_PROFILE must name tests/e2e/tiny.profile"
#endif

/* Open the sim backend on `profile` (NULL: default), describe, close. */
static void describe(const char *profile, pascal_backend_device *d)
{
  pascal_backend *b = NULL;
  pascal_error err;
  memset(d, 0, sizeof *d);
  CHECK_INT(pascal_backend_sim_ops.open(profile, &b, &err), PASCAL_OK);
  if (!b)
    return;
  CHECK_INT(pascal_backend_sim_ops.describe(b, 0, d, &err), PASCAL_OK);
  pascal_backend_sim_ops.close(b);
}

static void test_describe(void)
{
  pascal_backend_device d;
  describe(NULL, &d);
  /* The default profile: GB10-like, 48 SMs, C = 1280 blocks of 16 KiB. */
  CHECK(strcmp(d.arch, "sim") == 0);
  CHECK_INT(d.sm_count, 48);
  CHECK_INT(d.capacity_blocks, 1280);
  CHECK_INT(d.block_bytes, 16384);

  describe(TINY_PROFILE, &d);
  CHECK(strcmp(d.name, "e2e-tiny") == 0);
  CHECK_INT(d.sm_count, 4);
  CHECK_INT(d.capacity_blocks, 64);
  CHECK_INT(d.l2_bytes, 1048576);

  pascal_backend *b = NULL;
  pascal_error err;
  CHECK(pascal_backend_sim_ops.open("/nonexistent/x.profile", &b, &err) != PASCAL_OK);
  CHECK(strcmp(pascal_backend_sim_ops.name, "sim") == 0);
}

static void test_runs(void)
{
  pascal_backend *b = NULL;
  pascal_error err;
  CHECK_INT(pascal_backend_sim_ops.open(TINY_PROFILE, &b, &err), PASCAL_OK);
  pascal_simdev_profile prof;
  CHECK_INT(pascal_simdev_profile_load(TINY_PROFILE, &prof, &err), PASCAL_OK);
  pascal_simdev *dev = NULL;
  CHECK_INT(pascal_simdev_new(&prof, &dev, &err), PASCAL_OK);

  const struct {
    uint32_t o;
    int tma;
    uint32_t d, m;
    uint64_t N, W;
    uint32_t rep;
  } jobs[] = {{1, 0, 0, 0, 96, 4, 0},
              {2, 1, 4, 1, 128, 16, 0},
              {1, 1, 2, 6, 192, 64, 3},
              {2, 1, 3, 2, 160, 1, 1}};
  for (size_t i = 0; i < sizeof jobs / sizeof jobs[0]; i++) {
    pascal_backend_job j = {
        .run = {.workload = PASCAL_PLAN_SCAN,
                .key = {.o = jobs[i].o,
                        .path = jobs[i].tma ? PASCAL_PLAN_TMA : PASCAL_PLAN_SYNC,
                        .d = jobs[i].d,
                        .m = jobs[i].m},
                .N = jobs[i].N,
                .W = jobs[i].W,
                .repeat = jobs[i].rep},
        .block_bytes = 16384};
    pascal_backend_result r1, r2;
    CHECK_INT(pascal_backend_sim_ops.run(b, &j, &r1, &err), PASCAL_OK);
    CHECK_INT(pascal_backend_sim_ops.run(b, &j, &r2, &err), PASCAL_OK);
    CHECK(r1.fill_bytes == r2.fill_bytes && r1.kernel_ns == r2.kernel_ns); /* deterministic */
    pascal_simdev_scan s = {.o = jobs[i].o,
                            .path_tma = jobs[i].tma,
                            .d = jobs[i].d,
                            .m = jobs[i].m,
                            .N = jobs[i].N,
                            .W = jobs[i].W,
                            .seed = jobs[i].rep};
    pascal_simdev_stats st;
    CHECK_INT(pascal_simdev_run_scan(dev, &s, &st, NULL, &err), PASCAL_OK);
    CHECK(st.fill_bytes == r1.fill_bytes && st.kernel_ns == r1.kernel_ns);
    /* Every one of the N blocks is fetched at least once (cold cache), and
     * a fill needs a request: N b <= fill_bytes <= W M N b. */
    double b_bytes = 16384.0, M = 4.0 * jobs[i].o;
    CHECK(r1.fill_bytes >= (double)jobs[i].N * b_bytes);
    CHECK(r1.fill_bytes <= (double)jobs[i].W * M * (double)jobs[i].N * b_bytes);
    CHECK(r1.kernel_ns > 0.0);
  }
  pascal_backend_job gemm = {
      .run = {.workload = PASCAL_PLAN_GEMM, .shape = {256, 384, 1024}, .repeat = 2},
      .block_bytes = 16384};
  pascal_backend_result r;
  pascal_error_clear(&err);
  CHECK_INT(pascal_backend_sim_ops.run(b, &gemm, &r, &err), PASCAL_OK);
  /* a k-step's compute: 2 x 128 x 128 x 64 FLOPs = 256 16x16x16 matrix
   * instructions of 8192 FLOPs, the unit the profile's compute_ns costs */
  pascal_simdev_gemm g = {.shape = {256, 384, 1024},
                          .tiling = {128, 128, 64, 2, 4, 1, 1},
                          .m = 256,
                          .out_elem_bytes = 4,
                          .seed = 2};
  pascal_simdev_stats gs;
  CHECK_INT(pascal_simdev_run_gemm(dev, &g, &gs, &err), PASCAL_OK);
  CHECK(gs.fill_bytes == r.fill_bytes && gs.kernel_ns == r.kernel_ns);
  /* 2 x 3 output tiles, 16 k-steps: (2 + 3) 16 = 80 tiles of 16 KiB are
   * read at least once; 64 fit in the tiny profile's cache, so some refill. */
  CHECK(r.fill_bytes > 80.0 * 16384.0);
  CHECK(r.fill_bytes <= 2.0 * 6.0 * 16.0 * 16384.0);
  gemm.run.shape.Mg = 200; /* not a multiple of tile_m */
  CHECK_INT(pascal_backend_sim_ops.run(b, &gemm, &r, &err), PASCAL_EINVAL);
  CHECK(strcmp(err.field, "Mg") == 0);
  pascal_backend_job wrong = {
      .run = {.workload = PASCAL_PLAN_SCAN, .key = {.o = 1}, .N = 96, .W = 1}, .block_bytes = 8192};
  CHECK_INT(pascal_backend_sim_ops.run(b, &wrong, &r, &err), PASCAL_EINVAL);
  CHECK(strcmp(err.field, "block_bytes") == 0);
  pascal_backend_job bad = {.run = {.workload = PASCAL_PLAN_SCAN,
                                    .key = {.o = 1, .path = PASCAL_PLAN_SYNC, .d = 3},
                                    .N = 96,
                                    .W = 1},
                            .block_bytes = 16384};
  CHECK(pascal_backend_sim_ops.run(b, &bad, &r, &err) != PASCAL_OK); /* sync with a depth */
  pascal_simdev_free(dev);
  pascal_backend_sim_ops.close(b);
}

int main(void)
{
  test_describe();
  test_runs();
  return check_summary();
}
