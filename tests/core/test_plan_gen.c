/*
 * test_plan_gen.c - the device-aware plan generator (pascal/plan_gen.h)
 * against the paper's counts (63 calibration keys x 3 sizes x 4 horizons =
 * 756 runs, 42 held-out keys x 5 (N, W) pairs x 2 repeats = 420 runs, 120 +
 * 60 GEMM shapes), hand-computed sizes and occupancies for GB10 and an
 * H100-like probe, disjointness of calibration and held-out sets, and the
 * refusals (shared memory too small, N not above C, bad part).
 */
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "pascal/attention.h"
#include "pascal/gemm_config.h"
#include "pascal/gemm_impl.h"
#include "pascal/latency.h"
#include "pascal/plan_gen.h"

static const pascal_plan_device gb10 = {1280, 16384, 100u * 1024u, 0};
/* H100-like: 50 MiB of L2 in 16 KiB blocks, 228 KiB of shared memory per SM. */
static const pascal_plan_device h100 = {50u * 1024u * 1024u / 16384u, 16384, 228u * 1024u, 0};

static int has_key(const pascal_plan *p, uint32_t o, pascal_plan_path path, uint32_t d, uint32_t m)
{
  for (size_t i = 0; i < p->n_keys; i++)
    if (p->keys[i].o == o && p->keys[i].path == path && p->keys[i].d == d && p->keys[i].m == m)
      return 1;
  return 0;
}

/* The seven families with a cap of 2: sync and TMA d = 1..6, one each, at
 * the occupancies worked out by hand from the shared memory per SM (one
 * CTA needs 128 + d x 16384 + 1024 bytes): on GB10 (102400 bytes) d <= 3 fit
 * twice (d = 3: 2 x 50304) and d = 4, 5, 6 once (66688, 83072, 99456); on
 * the H100 (233472 bytes) every depth fits at least twice (d = 6: 2 x 99456). */
static const uint32_t gb10_o[7] = {2, 2, 2, 2, 1, 1, 1};
static const uint32_t h100_o[7] = {2, 2, 2, 2, 2, 2, 2};

static void check_families(const pascal_plan *p, const uint32_t o[7], const uint32_t *ms,
                           size_t n_m)
{
  CHECK_INT(p->n_keys, 7 * n_m);
  for (uint32_t d = 0; d < 7; d++)
    for (size_t j = 0; j < n_m; j++)
      CHECK(has_key(p, o[d], d ? PASCAL_PLAN_TMA : PASCAL_PLAN_SYNC, d, ms[j]));
}

static void test_scan_calibration(void)
{
  static const uint32_t ms[] = {0, 1, 2, 4, 5, 6, 12, 13, 14};
  const pascal_plan_device *devs[] = {&gb10, &h100};
  const uint64_t want[][3] = {{3072, 4096, 6144}, {7680, 10240, 15360}};
  for (int i = 0; i < 2; i++) {
    pascal_plan p;
    pascal_plan_init(&p);
    CHECK_INT(pascal_plan_generate(devs[i], PASCAL_PLAN_KIND_SCAN, 1, &p, NULL), PASCAL_OK);
    CHECK_INT(p.workload, PASCAL_PLAN_SCAN);
    CHECK_INT(p.n_sizes, 3);
    for (size_t j = 0; j < p.n_sizes && j < 3; j++) {
      CHECK_INT(p.sizes[j], want[i][j]);
      CHECK(p.sizes[j] > devs[i]->capacity_blocks);
    }
    CHECK_INT(p.n_horizons, 4);
    CHECK_INT(p.repeats, 1);
    check_families(&p, i ? h100_o : gb10_o, ms, 9);
    CHECK_INT(pascal_plan_run_count(&p), 756);
    pascal_plan_free(&p);
  }
}

static void test_scan_heldout(void)
{
  static const uint32_t ms[] = {3, 7, 8, 9, 10, 11};
  const pascal_plan_device *devs[] = {&gb10, &h100};
  /* (N, W) pairs: GB10 (4096: 1, 8, 64) and (5120: 24, 80); H100 x 2.5. */
  const uint64_t sizes[][2] = {{4096, 5120}, {10240, 12800}};
  for (int i = 0; i < 2; i++) {
    size_t runs = 0, pairs = 0;
    pascal_plan cal;
    pascal_plan_init(&cal);
    CHECK_INT(pascal_plan_generate(devs[i], PASCAL_PLAN_KIND_SCAN, 1, &cal, NULL), PASCAL_OK);
    CHECK_INT(pascal_plan_kind_parts(PASCAL_PLAN_KIND_SCAN_HELDOUT), 2);
    for (unsigned part = 1; part <= 2; part++) {
      pascal_plan p;
      pascal_plan_init(&p);
      CHECK_INT(pascal_plan_generate(devs[i], PASCAL_PLAN_KIND_SCAN_HELDOUT, part, &p, NULL),
                PASCAL_OK);
      CHECK_INT(p.n_sizes, 1);
      CHECK_INT(p.sizes[0], sizes[i][part - 1]);
      CHECK(p.sizes[0] > devs[i]->capacity_blocks);
      CHECK_INT(p.repeats, 2);
      check_families(&p, i ? h100_o : gb10_o, ms, 6);
      for (size_t k = 0; k < p.n_keys; k++) /* held out: no key is calibrated */
        CHECK(!has_key(&cal, p.keys[k].o, p.keys[k].path, p.keys[k].d, p.keys[k].m));
      pairs += p.n_sizes * p.n_horizons;
      runs += pascal_plan_run_count(&p);
      pascal_plan_free(&p);
    }
    CHECK_INT(pairs, 5);
    CHECK_INT(runs, 420);
    pascal_plan_free(&cal);
  }
}

static void test_gemm(void)
{
  pascal_plan cal, test;
  pascal_plan_init(&cal);
  pascal_plan_init(&test);
  CHECK_INT(pascal_plan_generate(&h100, PASCAL_PLAN_KIND_GEMM, 1, &cal, NULL), PASCAL_OK);
  CHECK_INT(pascal_plan_generate(&h100, PASCAL_PLAN_KIND_GEMM_HELDOUT, 1, &test, NULL), PASCAL_OK);
  CHECK_INT(cal.workload, PASCAL_PLAN_GEMM);
  CHECK_INT(pascal_plan_run_count(&cal), 120);
  CHECK_INT(pascal_plan_run_count(&test), 60);
  for (size_t i = 0; i < cal.n_shapes; i++) { /* powers of two in the paper's ranges */
    const pascal_plan_shape *s = &cal.shapes[i];
    CHECK((s->Mg & (s->Mg - 1)) == 0 && s->Mg >= 256 && s->Mg <= 8192);
    CHECK((s->Ng & (s->Ng - 1)) == 0 && s->Ng >= 256 && s->Ng <= 4096);
    CHECK((s->Kg & (s->Kg - 1)) == 0 && s->Kg >= 1024 && s->Kg <= 8192);
  }
  for (size_t i = 0; i < test.n_shapes; i++) { /* the paper's test grid, none calibrated */
    const pascal_plan_shape *s = &test.shapes[i];
    CHECK(s->Mg == 640 || s->Mg == 896 || s->Mg == 1280 || s->Mg == 2560 || s->Mg == 5120);
    CHECK(s->Ng == 640 || s->Ng == 896 || s->Ng == 1280 || s->Ng == 2560);
    CHECK(s->Kg == 1280 || s->Kg == 2560 || s->Kg == 5120);
    CHECK(s->Mg % 128 == 0 && s->Ng % 128 == 0 && s->Kg % 64 == 0);
    for (size_t j = 0; j < cal.n_shapes; j++)
      CHECK(memcmp(s, &cal.shapes[j], sizeof *s) != 0);
  }
  pascal_plan_free(&cal);
  pascal_plan_free(&test);
}

/* Where fills decide the time: the capacity edge of the H100's measured C
 * (1371 blocks) and skinny GEMMs whose compulsory fills alone make the
 * pipeline on the H100's measured peaks DRAM-bound by > 10 %: the peaks of
 * run 3 (2026-11-26, the shipped calibration's probe), where the margin is
 * 11.8-12.3 %; on run 1's (tensor 1216.6 TFLOP/s, twice the work done) it
 * was 10.7-11.2 %, and with a tensor peak of 200 TFLOP/s the check fails. */
static void test_dram_plans(void)
{
  const pascal_plan_device probe = {1371, 16384, 233472, 0};
  pascal_plan p;
  pascal_plan_init(&p);
  CHECK_INT(pascal_plan_generate(&probe, PASCAL_PLAN_KIND_SCAN_DRAM, 1, &p, NULL), PASCAL_OK);
  static const uint64_t sizes[] = {1440, 1508, 1645, 1782, 1919}; /* round(C k / 20) */
  CHECK_INT(p.n_sizes, 5);
  for (size_t i = 0; i < 5 && i < p.n_sizes; i++)
    CHECK_INT(p.sizes[i], sizes[i]);
  CHECK_INT(p.n_horizons, 2);
  CHECK_INT(p.n_keys, 14);
  CHECK(has_key(&p, 2, PASCAL_PLAN_SYNC, 0, 0) && has_key(&p, 2, PASCAL_PLAN_TMA, 6, 6));
  CHECK_INT(pascal_plan_run_count(&p), 140);
  CHECK(pascal_plan_kind_is_scan(PASCAL_PLAN_KIND_SCAN_DRAM));
  CHECK(!pascal_plan_kind_is_scan(PASCAL_PLAN_KIND_GEMM_DRAM));
  CHECK(strcmp(pascal_plan_kind_name(PASCAL_PLAN_KIND_SCAN_DRAM), "scan-dram") == 0);

  CHECK_INT(pascal_plan_generate(&probe, PASCAL_PLAN_KIND_GEMM_DRAM, 1, &p, NULL), PASCAL_OK);
  CHECK_INT(p.n_shapes, 10);
  const pascal_peaks peaks = {2981026289919.3242, 7273105597132.543, 549735542166194.69,
                              1978192904.8579168, 4.2848958969116207e-06};
  for (size_t i = 0; i < p.n_shapes; i++) {
    const pascal_plan_shape *s = &p.shapes[i];
    uint64_t nr = s->Mg / 128, nc = s->Ng / 128, nk = s->Kg / 64;
    CHECK(nr == 1 || nc == 1);
    /* every tile of the long side is read by one CTA: B_0 >= Q / 2 */
    double b0 = (double)nk * (nr * 128.0 + nc * 128.0) * 64 * 2;
    double q = (double)nr * nc * nk * 256.0 * 64 * 2;
    CHECK(b0 / q >= 0.5);
    pascal_pipeline_kernel k0, k;
    pascal_latency t0, t;
    CHECK_INT(pascal_latency_gemm(s->Mg, s->Ng, s->Kg, 128, 128, 64, 2, 132, 1, 1, 0, &k0, NULL),
              PASCAL_OK);
    CHECK_INT(pascal_latency_gemm(s->Mg, s->Ng, s->Kg, 128, 128, 64, 2, 132, 1, 1, b0, &k, NULL),
              PASCAL_OK);
    CHECK_INT(pascal_latency_time(&peaks, &k0, &t0, NULL), PASCAL_OK);
    CHECK_INT(pascal_latency_time(&peaks, &k, &t, NULL), PASCAL_OK);
    CHECK(t.time_s > 1.1 * t0.time_s);
    CHECK_INT(t.bound, PASCAL_BOUND_DRAM);
  }
  pascal_plan_free(&p);
}

static void test_occupancy(void)
{
  /* One CTA with d buffers: 128 bytes of barriers + d x 16 KiB + 1 KiB. */
  CHECK_INT(pascal_plan_max_occupancy(233472, 2, 16384), 233472 / 33920); /* 6 */
  CHECK_INT(pascal_plan_max_occupancy(233472, 4, 16384), 233472 / 66688); /* 3 */
  CHECK_INT(pascal_plan_max_occupancy(102400, 2, 16384), 3);
  CHECK_INT(pascal_plan_max_occupancy(102400, 3, 16384), 2);
  CHECK_INT(pascal_plan_max_occupancy(102400, 4, 16384), 1);
  CHECK_INT(pascal_plan_max_occupancy(100608, 3, 16384), 2); /* exactly 2 x 50304 */
  CHECK_INT(pascal_plan_max_occupancy(100607, 3, 16384), 1);
  CHECK_INT(pascal_plan_max_occupancy(102400, 0, 16384), UINT32_MAX);
  CHECK_INT(pascal_plan_max_occupancy(0, 4, 16384), UINT32_MAX);

  /* A higher cap uses what the H100 allows: 233472 / (128 + d x 16384 + 1024)
   * = 13, 6, 4, 3, 2, 2 CTAs at d = 1..6; sync has no such limit. */
  pascal_plan_device dev = h100;
  dev.max_occupancy = 8;
  pascal_plan p;
  pascal_plan_init(&p);
  CHECK_INT(pascal_plan_generate(&dev, PASCAL_PLAN_KIND_SCAN, 1, &p, NULL), PASCAL_OK);
  static const uint32_t capped8[7] = {8, 8, 6, 4, 3, 2, 2};
  for (uint32_t d = 0; d < 7; d++)
    CHECK(has_key(&p, capped8[d], d ? PASCAL_PLAN_TMA : PASCAL_PLAN_SYNC, d, 14));
  CHECK_INT(p.n_keys, 63);
  pascal_plan_free(&p);

  /* The sim (no shared-memory limit) gets the cap at every depth; a cap of
   * 1 gives one CTA per SM everywhere. */
  dev = gb10;
  dev.smem_per_sm = 0;
  dev.max_occupancy = 3;
  CHECK_INT(pascal_plan_generate(&dev, PASCAL_PLAN_KIND_SCAN, 1, &p, NULL), PASCAL_OK);
  for (uint32_t d = 0; d < 7; d++)
    CHECK(has_key(&p, 3, d ? PASCAL_PLAN_TMA : PASCAL_PLAN_SYNC, d, 0));
  pascal_plan_free(&p);
  dev = gb10;
  dev.max_occupancy = 1;
  CHECK_INT(pascal_plan_generate(&dev, PASCAL_PLAN_KIND_SCAN, 1, &p, NULL), PASCAL_OK);
  for (uint32_t d = 0; d < 7; d++)
    CHECK(has_key(&p, 1, d ? PASCAL_PLAN_TMA : PASCAL_PLAN_SYNC, d, 6));
  pascal_plan_free(&p);
}

static void test_refusals(void)
{
  pascal_plan p;
  pascal_plan_init(&p);
  pascal_error err;
  pascal_plan_device dev = gb10;
  dev.smem_per_sm = 99455; /* one byte short of one depth-6 CTA */
  CHECK_INT(pascal_plan_generate(&dev, PASCAL_PLAN_KIND_SCAN, 1, &p, &err), PASCAL_EINVAL);
  CHECK(strcmp(err.field, "smem_per_sm") == 0);
  CHECK(strstr(err.message, "d=6") != NULL);
  CHECK(p.keys == NULL && p.sizes == NULL);
  dev.smem_per_sm = 99456; /* exactly one: d = 6 at o = 1, d = 3 at o = 1 (< 2 x 50304) */
  CHECK_INT(pascal_plan_generate(&dev, PASCAL_PLAN_KIND_SCAN, 1, &p, &err), PASCAL_OK);
  CHECK(has_key(&p, 1, PASCAL_PLAN_TMA, 6, 0) && has_key(&p, 1, PASCAL_PLAN_TMA, 3, 0));
  CHECK(has_key(&p, 2, PASCAL_PLAN_TMA, 2, 0)); /* 2 x 33920 */
  pascal_plan_free(&p);
  dev.smem_per_sm = 60000; /* not even one depth-4 CTA */
  CHECK_INT(pascal_plan_generate(&dev, PASCAL_PLAN_KIND_SCAN, 1, &p, &err), PASCAL_EINVAL);
  dev = gb10;
  dev.max_occupancy = PASCAL_PLAN_MAX_OCCUPANCY + 1;
  CHECK_INT(pascal_plan_generate(&dev, PASCAL_PLAN_KIND_SCAN, 1, &p, &err), PASCAL_EINVAL);
  CHECK(strcmp(err.field, "max_occupancy") == 0);
  dev = gb10;
  dev.capacity_blocks = 0;
  CHECK_INT(pascal_plan_generate(&dev, PASCAL_PLAN_KIND_SCAN, 1, &p, &err), PASCAL_EINVAL);
  CHECK(strcmp(err.field, "capacity_blocks") == 0);
  dev = gb10;
  dev.block_bytes = 1000;
  CHECK_INT(pascal_plan_generate(&dev, PASCAL_PLAN_KIND_SCAN, 1, &p, &err), PASCAL_EINVAL);
  CHECK(strcmp(err.field, "block_bytes") == 0);
  CHECK_INT(pascal_plan_generate(&gb10, PASCAL_PLAN_KIND_SCAN_HELDOUT, 3, &p, &err), PASCAL_EINVAL);
  CHECK(strcmp(err.field, "part") == 0);
  CHECK_INT(pascal_plan_generate(&gb10, PASCAL_PLAN_KIND_GEMM, 2, &p, &err), PASCAL_EINVAL);
  CHECK_INT(pascal_plan_generate(&gb10, (pascal_plan_kind)12, 1, &p, &err), PASCAL_EINVAL);
  /* The smallest C still gives three distinct sizes above it. */
  dev = gb10;
  dev.capacity_blocks = 1;
  CHECK_INT(pascal_plan_generate(&dev, PASCAL_PLAN_KIND_SCAN, 1, &p, &err), PASCAL_OK);
  CHECK(p.sizes[0] == 2 && p.sizes[1] == 3 && p.sizes[2] == 5);
  pascal_plan_free(&p);

  /* N not above C: refused, the size named. */
  CHECK_INT(pascal_plan_generate(&gb10, PASCAL_PLAN_KIND_SCAN, 1, &p, &err), PASCAL_OK);
  CHECK_INT(pascal_plan_check_capacity(&p, 3071, &err), PASCAL_OK);
  CHECK_INT(pascal_plan_check_capacity(&p, 3072, &err), PASCAL_EINVAL);
  CHECK(strcmp(err.field, "sizes[0]") == 0);
  p.sizes[0] = 6144; /* 6144, 4096, 6144: the first size at or below C named */
  CHECK_INT(pascal_plan_check_capacity(&p, 4096, &err), PASCAL_EINVAL);
  CHECK(strcmp(err.field, "sizes[1]") == 0);
  CHECK(strstr(err.message, "N = 4096") != NULL && strstr(err.message, "C = 4096") != NULL);
  pascal_plan_free(&p);
  CHECK_INT(pascal_plan_generate(&gb10, PASCAL_PLAN_KIND_GEMM, 1, &p, &err), PASCAL_OK);
  CHECK_INT(pascal_plan_check_capacity(&p, UINT64_MAX, &err), PASCAL_OK);
  pascal_plan_free(&p);

  pascal_plan_kind k;
  CHECK_INT(pascal_plan_kind_parse("scan-heldout", &k, NULL), PASCAL_OK);
  CHECK_INT(k, PASCAL_PLAN_KIND_SCAN_HELDOUT);
  CHECK_INT(pascal_plan_kind_parse("scan-test", &k, &err), PASCAL_EINVAL);
  CHECK(strcmp(pascal_plan_kind_name(PASCAL_PLAN_KIND_GEMM_HELDOUT), "gemm-heldout") == 0);
}

/* The attention protocol (plan_gen.h): one key per depth 1..3 at the
 * occupancy worked out by hand from the kernel's layout (a CTA takes 128
 * bytes of barriers, an 8 KiB query tile, d 16 KiB K/V steps, 16 KiB of
 * scores, 8 KiB of probabilities, a 16 KiB accumulator, 512 bytes of row
 * statistics and the 1 KiB reservation: 50816 + 16384 d bytes; on GB10's
 * 102400 bytes once at d = 1, 2, 3 (67200, 83584, 99968); on the H100's
 * 233472 bytes three times at d = 1, capped at 2, twice at d = 2 and 3),
 * m = 128; 96 reference runs at 1.5, 2, 3, 4 C, 24 held-out at
 * 2.5 and 3.5 C (disjoint sizes), 5 cells of 6 runs off both grids. */
static void test_attention(void)
{
  const pascal_plan_device *devs[] = {&gb10, &h100};
  const uint32_t want_o[2][3] = {{1, 1, 1}, {2, 2, 2}};
  const pascal_attention_params a = PASCAL_ATTENTION_DEFAULT;
  for (uint32_t d = 1; d <= 3; d++)
    CHECK(pascal_attention_smem_bytes(&a, d) == 50816.0 + 16384.0 * d);
  for (int i = 0; i < 2; i++) {
    uint64_t C = devs[i]->capacity_blocks;
    pascal_plan ref, held;
    pascal_plan_init(&ref);
    pascal_plan_init(&held);
    CHECK_INT(pascal_plan_generate(devs[i], PASCAL_PLAN_KIND_ATTENTION, 1, &ref, NULL), PASCAL_OK);
    CHECK_INT(pascal_plan_generate(devs[i], PASCAL_PLAN_KIND_ATTENTION_HELDOUT, 1, &held, NULL),
              PASCAL_OK);
    CHECK_INT(ref.workload, PASCAL_PLAN_ATTENTION);
    CHECK_INT(pascal_plan_run_count(&ref), 96);
    CHECK_INT(pascal_plan_run_count(&held), 24);
    CHECK_INT(ref.n_keys, 3);
    for (uint32_t d = 1; d <= 3; d++)
      CHECK(has_key(&ref, want_o[i][d - 1], PASCAL_PLAN_TMA, d, 128) &&
            has_key(&held, want_o[i][d - 1], PASCAL_PLAN_TMA, d, 128));
    const uint64_t sizes[4] = {3 * C / 2, 2 * C, 3 * C, 4 * C};
    for (size_t j = 0; j < 4 && j < ref.n_sizes; j++)
      CHECK_INT(ref.sizes[j], sizes[j]);
    CHECK_INT(held.sizes[0], 5 * C / 2);
    CHECK_INT(held.sizes[1], 7 * C / 2);
    size_t cells = 0;
    for (unsigned part = 1; part <= PASCAL_PLAN_ATTENTION_CELL_PARTS; part++) {
      pascal_plan c;
      pascal_plan_init(&c);
      CHECK_INT(pascal_plan_generate(devs[i], PASCAL_PLAN_KIND_ATTENTION_CELLS, part, &c, NULL),
                PASCAL_OK);
      cells += pascal_plan_run_count(&c);
      for (size_t j = 0; j < ref.n_sizes; j++)
        CHECK(c.sizes[0] != ref.sizes[j]);
      for (size_t j = 0; j < ref.n_horizons; j++)
        CHECK(c.horizons[0] != ref.horizons[j]);
      pascal_plan_free(&c);
    }
    CHECK_INT(cells, 30);
    pascal_plan_free(&ref);
    pascal_plan_free(&held);
  }
  pascal_plan p;
  pascal_plan_init(&p);
  pascal_error err;
  CHECK_INT(pascal_plan_generate(&gb10, PASCAL_PLAN_KIND_ATTENTION_CELLS, 6, &p, &err),
            PASCAL_EINVAL);
  CHECK(strcmp(err.field, "part") == 0);
  pascal_plan_device small = gb10;
  small.smem_per_sm = 20000;
  CHECK_INT(pascal_plan_generate(&small, PASCAL_PLAN_KIND_ATTENTION, 1, &p, &err), PASCAL_EINVAL);
  CHECK(strcmp(err.field, "smem_per_sm") == 0);
  pascal_plan_device half = gb10;
  half.block_bytes = 8192;
  CHECK_INT(pascal_plan_generate(&half, PASCAL_PLAN_KIND_ATTENTION, 1, &p, &err), PASCAL_EINVAL);
  CHECK(strcmp(err.field, "block_bytes") == 0);
  /* a hand-made attention plan must be the tiling's: tma, m = 128 */
  CHECK_INT(pascal_plan_generate(&gb10, PASCAL_PLAN_KIND_ATTENTION, 1, &p, NULL), PASCAL_OK);
  p.keys[0].m = 127;
  CHECK_INT(pascal_plan_validate(&p, &err), PASCAL_EINVAL);
  CHECK(strcmp(err.field, "keys[0].m") == 0);
  pascal_plan_free(&p);
}

/* gemm-configs (plan_gen.h): the sim list on a device without a shared
 * memory limit, the project's own staged kernel's list (128 x 128 x 64
 * FP16, stages 1 to 4, G = 1 and 8) on one that states it, cut to what
 * fits; shapes whole tiles of every configuration (pascal_plan_validate),
 * one repeat. Expected counts from the lists in plan_gen.h: 9 x 3 on the
 * sim (three at G = 8); all 8 x 3 on an H100's 228 KiB (4 stages: 4 x 256
 * x 64 x 2 = 128 KiB); on 100 KiB stages 1 to 3 (3 stages: 96 KiB plus
 * the 1 KiB reservation), each kept one fitting by pascal_gemm_ctas_per_sm
 * and by its buffers alone. Verified to fail: with the fit filter removed,
 * the 100 KiB plan keeps all 8. */
static void test_gemm_configs(void)
{
  pascal_plan p;
  pascal_plan_init(&p);
  pascal_plan_device sim = {1280, 16384, 0, 2}, hopper = {3000, 16384, 233472, 2},
                     small = {1280, 16384, 102400, 2}, none = {1280, 16384, 1024, 2};
  CHECK_INT(pascal_plan_generate(&sim, PASCAL_PLAN_KIND_GEMM_CONFIGS, 1, &p, NULL), PASCAL_OK);
  CHECK_INT(p.workload, PASCAL_PLAN_GEMM);
  CHECK_INT(p.n_configs, 9);
  CHECK_INT(pascal_plan_run_count(&p), 27);
  size_t grouped = 0;
  for (size_t i = 0; i < p.n_configs; i++)
    grouped += p.configs[i].group_m > 1;
  CHECK_INT(grouped, 3);
  pascal_plan_free(&p);
  CHECK_INT(pascal_plan_generate(&hopper, PASCAL_PLAN_KIND_GEMM_CONFIGS, 1, &p, NULL), PASCAL_OK);
  CHECK_INT(p.n_configs, 8);
  CHECK_INT(pascal_plan_run_count(&p), 24);
  for (size_t i = 0; i < p.n_configs; i++) /* what the own staged kernel runs as stated */
    CHECK_INT(pascal_gemm_own_runs_config(&p.configs[i], NULL), PASCAL_OK);
  pascal_plan_free(&p);
  CHECK_INT(pascal_plan_generate(&small, PASCAL_PLAN_KIND_GEMM_CONFIGS, 1, &p, NULL), PASCAL_OK);
  CHECK_INT(p.n_configs, 6);
  for (size_t i = 0; i < p.n_configs; i++) {
    uint32_t per_sm = 0;
    CHECK_INT(pascal_gemm_ctas_per_sm(small.smem_per_sm, &p.configs[i], 1, &per_sm, NULL),
              PASCAL_OK);
    CHECK(p.configs[i].stages * (p.configs[i].tile_m + p.configs[i].tile_n) * p.configs[i].tile_k *
              2u <=
          small.smem_per_sm);
  }
  pascal_plan_free(&p);
  pascal_error err;
  CHECK_INT(pascal_plan_generate(&none, PASCAL_PLAN_KIND_GEMM_CONFIGS, 1, &p, &err), PASCAL_EINVAL);
  CHECK(strcmp(err.field, "smem_per_sm") == 0);
  CHECK_INT(pascal_plan_generate(&sim, PASCAL_PLAN_KIND_GEMM_CONFIGS, 2, &p, &err), PASCAL_EINVAL);
  CHECK(strcmp(err.field, "part") == 0);
  pascal_plan_kind k;
  CHECK_INT(pascal_plan_kind_parse("gemm-configs", &k, NULL), PASCAL_OK);
  CHECK_INT(k, PASCAL_PLAN_KIND_GEMM_CONFIGS);
  CHECK(!pascal_plan_kind_is_scan(k));
}

int main(void)
{
  test_gemm_configs();
  test_attention();
  test_dram_plans();
  test_scan_calibration();
  test_scan_heldout();
  test_gemm();
  test_occupancy();
  test_refusals();
  return check_summary();
}
