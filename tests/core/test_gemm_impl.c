/*
 * test_gemm_impl.c - the GEMM implementations and the cuBLASLt
 * configuration encoding (pascal/gemm_impl.h), exhaustively over its tables:
 * every tile x stages id x swizzle x split-K round-trips both ways
 * (attributes -> configuration -> attributes and back), every value outside
 * the tables or ranges is refused naming its field and writing nothing, and
 * a calibration checks its implementation's fields. The tables' ids are
 * compared with cublasLt.h itself in tests/gpu/test_cublaslt_abi.cpp.
 * Verified to fail: with the 64x4 row given id 17 (64x5's) the ids collide,
 * 64x5 decodes as 64x4 and id 16 is refused (677 failed checks).
 */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "pascal/calibration.h"
#include "pascal/gemm_impl.h"

typedef struct {
  uint32_t a, b, id;
} row3;

#define TILE(M, N, ID)          {M, N, ID},
#define STAGES(K, SNAME, S, ID) {K, S, ID},
static const row3 tiles[] = {PASCAL_CUBLASLT_TILES(TILE)};
static const row3 stages[] = {PASCAL_CUBLASLT_STAGES(STAGES)};
#define N_TILES  (sizeof tiles / sizeof tiles[0])
#define N_STAGES (sizeof stages / sizeof stages[0])

/* The tables are bijections: ids distinct and > 0 (0 is UNDEFINED), keys distinct. */
static void test_tables(void)
{
  for (size_t i = 0; i < N_TILES; i++) {
    CHECK(tiles[i].id > 0);
    for (size_t j = i + 1; j < N_TILES; j++) {
      CHECK(tiles[i].id != tiles[j].id);
      CHECK(tiles[i].a != tiles[j].a || tiles[i].b != tiles[j].b);
    }
  }
  for (size_t i = 0; i < N_STAGES; i++) {
    CHECK(stages[i].id > 0);
    for (size_t j = i + 1; j < N_STAGES; j++) {
      CHECK(stages[i].id != stages[j].id);
      CHECK(stages[i].a != stages[j].a || stages[i].b != stages[j].b);
    }
  }
  /* every stages id of CUDA 13 but UNDEFINED and the unused 29, 30 */
  CHECK_INT((int)N_STAGES, 36);
}

static int same_config(const pascal_cublaslt_config *x, const pascal_cublaslt_config *y)
{
  return x->algo == y->algo && x->tile_id == y->tile_id && x->stages_id == y->stages_id &&
         x->cta_swizzling == y->cta_swizzling && x->split_k == y->split_k &&
         x->custom_option == y->custom_option && x->inner_shape_id == y->inner_shape_id &&
         x->cluster_shape_id == y->cluster_shape_id;
}

/* Every combination of the tables, two algo ids, both swizzles, four
 * split-K values and three sets of Hopper attributes (none stated; an
 * sm_90 heuristic's custom option 1, inner shape MMA16816, cluster 1x1x1;
 * the largest of each), both ways. Without the Hopper fields in decode or
 * encode, same_config fails for the second and third sets (checked by
 * dropping the three assignments from pascal_cublaslt_decode). */
static void test_round_trip(void)
{
  static const uint32_t algos[] = {0, 66};
  static const int32_t splits[] = {1, 2, 7, (int32_t)PASCAL_CUBLASLT_MAX_SPLIT_K};
  static const uint32_t hopper[][3] = {
      {0, 0, 0},
      {1, 4, 2},
      {UINT32_MAX, PASCAL_CUBLASLT_MAX_SHAPE_ID, PASCAL_CUBLASLT_MAX_SHAPE_ID}};
  size_t n = 0;
  for (size_t t = 0; t < N_TILES; t++)
    for (size_t s = 0; s < N_STAGES; s++)
      for (size_t a = 0; a < 2; a++)
        for (uint32_t z = 0; z < 2; z++)
          for (size_t k = 0; k < 4; k++)
            for (size_t h = 0; h < 3; h++) {
              const pascal_cublaslt_config c = {
                  algos[a],  tiles[t].id,  stages[s].id, z,
                  splits[k], hopper[h][0], hopper[h][1], hopper[h][2]};
              pascal_gemm_params g;
              memset(&g, 0, sizeof g);
              g.elem_bytes = 2;
              g.resident_ctas = 132;
              CHECK_INT(pascal_cublaslt_decode(&c, &g, NULL), PASCAL_OK);
              CHECK(g.impl == PASCAL_GEMM_IMPL_CUBLASLT && g.tile_m == tiles[t].a &&
                    g.tile_n == tiles[t].b && g.tile_k == stages[s].a && g.stages == stages[s].b &&
                    g.algo == algos[a] && g.cta_swizzling == z &&
                    g.split_k == (uint32_t)splits[k] && g.custom_option == hopper[h][0] &&
                    g.inner_shape_id == hopper[h][1] && g.cluster_shape_id == hopper[h][2]);
              CHECK(g.elem_bytes == 2 && g.resident_ctas == 132); /* untouched */
              CHECK_INT(pascal_gemm_impl_check(&g, NULL), PASCAL_OK);
              pascal_cublaslt_config back;
              memset(&back, 0xff, sizeof back);
              CHECK_INT(pascal_cublaslt_encode(&g, &back, NULL), PASCAL_OK);
              CHECK(same_config(&c, &back));
              n++;
            }
  CHECK_INT((int)n, (int)(N_TILES * N_STAGES * 2 * 2 * 4 * 3));
}

static void expect_encode(const pascal_gemm_params *g, const char *field)
{
  pascal_cublaslt_config out, before;
  memset(&out, 0x5a, sizeof out);
  before = out;
  pascal_error err;
  pascal_error_clear(&err);
  CHECK_INT(pascal_cublaslt_encode(g, &out, &err), PASCAL_EINVAL);
  if (strcmp(err.field, field) != 0)
    fprintf(stderr, "  field '%s' (%s), wanted '%s'\n", err.field, err.message, field);
  CHECK(strcmp(err.field, field) == 0 && err.message[0] != '\0');
  CHECK(memcmp(&out, &before, sizeof out) == 0);
}

static void expect_decode(pascal_cublaslt_config c, const char *field)
{
  pascal_gemm_params g, before;
  memset(&g, 0x5a, sizeof g);
  before = g;
  pascal_error err;
  pascal_error_clear(&err);
  CHECK_INT(pascal_cublaslt_decode(&c, &g, &err), PASCAL_EINVAL);
  if (strcmp(err.field, field) != 0)
    fprintf(stderr, "  field '%s' (%s), wanted '%s'\n", err.field, err.message, field);
  CHECK(strcmp(err.field, field) == 0 && err.message[0] != '\0');
  CHECK(memcmp(&g, &before, sizeof g) == 0);
}

/* Outside the tables: refused, field named, nothing written. */
static void test_refusals(void)
{
  pascal_gemm_params ok;
  memset(&ok, 0, sizeof ok);
  ok.impl = PASCAL_GEMM_IMPL_CUBLASLT;
  ok.tile_m = 128, ok.tile_n = 256, ok.tile_k = 64, ok.stages = 4, ok.split_k = 1;
  pascal_cublaslt_config c;
  CHECK_INT(pascal_cublaslt_encode(&ok, &c, NULL), PASCAL_OK);
  CHECK(c.tile_id == 23 && c.stages_id == 16 && c.split_k == 1); /* cublasLt.h: 128x256, 64x4 */
  pascal_gemm_params g = ok;
  g.tile_n = 100;
  expect_encode(&g, "gemm.tile_m");
  g = ok, g.tile_m = 0, g.tile_n = 0;
  expect_encode(&g, "gemm.tile_m");
  g = ok, g.tile_k = 48;
  expect_encode(&g, "gemm.stages");
  g = ok, g.stages = 7; /* 64 has 1..6 and AUTO */
  expect_encode(&g, "gemm.stages");
  g = ok, g.tile_k = 256, g.stages = 3; /* 256 has AUTO only */
  expect_encode(&g, "gemm.stages");
  g = ok, g.cta_swizzling = 2;
  expect_encode(&g, "gemm.cta_swizzling");
  g = ok, g.split_k = 0;
  expect_encode(&g, "gemm.split_k");
  g = ok, g.split_k = PASCAL_CUBLASLT_MAX_SPLIT_K + 1;
  expect_encode(&g, "gemm.split_k");
  g = ok, g.inner_shape_id = PASCAL_CUBLASLT_MAX_SHAPE_ID + 1; /* the attribute is uint16_t */
  expect_encode(&g, "gemm.inner_shape_id");
  g = ok, g.cluster_shape_id = PASCAL_CUBLASLT_MAX_SHAPE_ID + 1;
  expect_encode(&g, "gemm.cluster_shape_id");
  g = ok, g.impl = PASCAL_GEMM_IMPL_OWN;
  expect_encode(&g, "gemm.impl");

  const pascal_cublaslt_config good = {66, 23, 16, 0, 1, 0, 0, 0};
  pascal_cublaslt_config x = good;
  x.tile_id = 0; /* CUBLASLT_MATMUL_TILE_UNDEFINED */
  expect_decode(x, "tile_id");
  x = good, x.tile_id = 36; /* 8x128: a tile PASCAL does not name */
  expect_decode(x, "tile_id");
  x = good, x.stages_id = 0;
  expect_decode(x, "stages_id");
  x = good, x.stages_id = 29; /* unused ids between 28 and 31 */
  expect_decode(x, "stages_id");
  x = good, x.stages_id = 39; /* CUBLASLT_MATMUL_STAGES_END */
  expect_decode(x, "stages_id");
  x = good, x.cta_swizzling = 2;
  expect_decode(x, "cta_swizzling");
  x = good, x.split_k = 0;
  expect_decode(x, "split_k");
  x = good, x.split_k = -1;
  expect_decode(x, "split_k");
  x = good, x.inner_shape_id = PASCAL_CUBLASLT_MAX_SHAPE_ID + 1;
  expect_decode(x, "inner_shape_id");
  x = good, x.cluster_shape_id = PASCAL_CUBLASLT_MAX_SHAPE_ID + 1;
  expect_decode(x, "cluster_shape_id");
}

static void test_names_and_check(void)
{
  pascal_gemm_impl impl = PASCAL_GEMM_IMPL_CUBLASLT;
  CHECK(strcmp(pascal_gemm_impl_name(PASCAL_GEMM_IMPL_OWN), "own") == 0);
  CHECK(strcmp(pascal_gemm_impl_name(PASCAL_GEMM_IMPL_CUBLASLT), "cublaslt") == 0);
  CHECK(pascal_gemm_impl_name((pascal_gemm_impl)2) == NULL);
  CHECK_INT(pascal_gemm_impl_parse("own", "impl", &impl, NULL), PASCAL_OK);
  CHECK(impl == PASCAL_GEMM_IMPL_OWN);
  CHECK_INT(pascal_gemm_impl_parse("cublaslt", "impl", &impl, NULL), PASCAL_OK);
  CHECK(impl == PASCAL_GEMM_IMPL_CUBLASLT);
  pascal_error err;
  CHECK_INT(pascal_gemm_impl_parse("cuBLASLt", "gemm.impl", &impl, &err), PASCAL_EINVAL);
  CHECK(strcmp(err.field, "gemm.impl") == 0 && impl == PASCAL_GEMM_IMPL_CUBLASLT);

  char buf[128];
  const pascal_cublaslt_config c = {66, 23, 35, 1, 2, 0, 0, 0}, odd = {7, 600, 99, 0, 1, 0, 0, 0};
  pascal_cublaslt_describe(&c, buf, sizeof buf);
  CHECK(strcmp(buf, "algo 66 tile 128x256 stages 64xAUTO swizzle 1 split-k 2") == 0);
  pascal_cublaslt_describe(&odd, buf, sizeof buf);
  CHECK(strcmp(buf, "algo 7 tile id 600 stages id 99 swizzle 0 split-k 1") == 0);
  pascal_cublaslt_config hop = {66, 23, 35, 0, 1, 1, 0, 2};
  pascal_cublaslt_describe(&hop, buf, sizeof buf);
  CHECK(strcmp(buf, "algo 66 tile 128x256 stages 64xAUTO swizzle 0 split-k 1 custom-option 1 "
                    "cluster-shape 2") == 0);
  hop.inner_shape_id = 4;
  pascal_cublaslt_describe(&hop, buf, 40); /* cut, still terminated */
  CHECK(strlen(buf) == 39);
  pascal_cublaslt_describe(&hop, buf, sizeof buf);
  CHECK(strcmp(buf, "algo 66 tile 128x256 stages 64xAUTO swizzle 0 split-k 1 custom-option 1 "
                    "inner-shape 4 cluster-shape 2") == 0);

  /* a calibration: the own kernel states no cuBLASLt field; a cuBLASLt one
   * encodes and measures split_k 1 */
  pascal_calibration cal;
  pascal_calibration_init(&cal, PASCAL_WORKLOAD_GEMM);
  snprintf(cal.device.name, sizeof cal.device.name, "gpu");
  snprintf(cal.device.arch, sizeof cal.device.arch, "sm_90");
  cal.device.sm_count = 132, cal.device.capacity_blocks = 1371, cal.device.block_bytes = 16384;
  cal.gemm.resident_ctas = 132;
  CHECK_INT(pascal_calibration_check(&cal, NULL), PASCAL_OK);
  cal.gemm.cluster_shape_id = 2;
  CHECK_INT(pascal_calibration_check(&cal, &err), PASCAL_EINVAL);
  CHECK(strcmp(err.field, "gemm.cluster_shape_id") == 0);
  cal.gemm.cluster_shape_id = 0, cal.gemm.custom_option = 1;
  CHECK_INT(pascal_calibration_check(&cal, &err), PASCAL_EINVAL);
  CHECK(strcmp(err.field, "gemm.custom_option") == 0);
  cal.gemm.custom_option = 0, cal.gemm.split_k = 1;
  CHECK_INT(pascal_calibration_check(&cal, &err), PASCAL_EINVAL);
  CHECK(strcmp(err.field, "gemm.split_k") == 0);
  cal.gemm.impl = PASCAL_GEMM_IMPL_CUBLASLT;
  CHECK_INT(pascal_calibration_check(&cal, NULL), PASCAL_OK); /* 128x128, 64xAUTO */
  cal.gemm.split_k = 2;
  CHECK_INT(pascal_calibration_check(&cal, &err), PASCAL_EINVAL);
  CHECK(strcmp(err.field, "gemm.split_k") == 0 && strstr(err.message, "split-K") != NULL);
  cal.gemm.split_k = 1, cal.gemm.tile_k = 48;
  CHECK_INT(pascal_calibration_check(&cal, &err), PASCAL_EINVAL);
  CHECK(strcmp(err.field, "gemm.stages") == 0);
  pascal_calibration_free(&cal);
}

/* A configuration run as cuBLASLt runs it (pascal_cublaslt_of_config):
 * every tile x (tile_k, stages) of the tables maps to exactly its ids, with
 * the heuristic's algo and Hopper attributes, swizzle 0, split-K 1; what
 * cuBLASLt cannot express is refused naming the member, *out untouched.
 * Verified to fail: mapping group_m 8 to swizzle 1 instead of refusing it
 * fails the group_m row; dropping the heuristic's cluster shape fails every
 * round trip. */
static void test_config_mapping(void)
{
  const pascal_cublaslt_config h = {66, 20, 15, 1, 4, 7, 3, 9};
  size_t mapped = 0;
  for (size_t i = 0; i < sizeof tiles / sizeof *tiles; i++)
    for (size_t j = 0; j < sizeof stages / sizeof *stages; j++) {
      if (stages[j].b == 0) /* AUTO: a configuration states its stages */
        continue;
      const pascal_gemm_config c = {tiles[i].a, tiles[i].b, stages[j].a, 2, stages[j].b, 1};
      pascal_gemm_params g;
      pascal_cublaslt_config got;
      CHECK_INT(pascal_cublaslt_of_config(&c, &h, &g, NULL), PASCAL_OK);
      CHECK_INT(pascal_cublaslt_encode(&g, &got, NULL), PASCAL_OK);
      CHECK_INT(got.tile_id, tiles[i].id);
      CHECK_INT(got.stages_id, stages[j].id);
      CHECK_INT(got.algo, 66);
      CHECK_INT(got.cta_swizzling, 0);
      CHECK_INT(got.split_k, 1);
      CHECK_INT(got.custom_option, 7);
      CHECK_INT(got.inner_shape_id, 3);
      CHECK_INT(got.cluster_shape_id, 9);
      mapped++;
    }
  /* 29 stated stages ids: 16, 32, 64, 128 x 1..6, 32x10, 16x10, 8x3, 8x4, 8x5 */
  CHECK_INT(mapped, (sizeof tiles / sizeof *tiles) * 29u);
  static const struct {
    pascal_gemm_config c;
    const char *field;
  } refused[] = {
      {{128, 128, 64, 1, 3, 1}, "configuration.elem_bytes"},
      {{128, 128, 64, 4, 3, 1}, "configuration.elem_bytes"},
      {{128, 128, 64, 2, 3, 8}, "configuration.group_m"},
      {{128, 48, 64, 2, 3, 1}, "configuration.tile_m"},
      {{128, 128, 64, 2, 7, 1}, "configuration.stages"},
      {{128, 128, 48, 2, 3, 1}, "configuration.stages"},
  };
  for (size_t i = 0; i < sizeof refused / sizeof *refused; i++) {
    pascal_gemm_params g;
    memset(&g, 0xab, sizeof g);
    pascal_error err;
    CHECK_INT(pascal_cublaslt_of_config(&refused[i].c, &h, &g, &err), PASCAL_EINVAL);
    CHECK(strcmp(err.field, refused[i].field) == 0);
    CHECK(strchr(err.message, '\n') == NULL);
    CHECK_INT(g.tile_m, 0xababababu);
  }
  /* the own staged kernel's fallback: 128x128x64 FP16 at 1..4 stages */
  static const struct {
    pascal_gemm_config c;
    const char *field; /* NULL: runs */
  } own[] = {
      {{128, 128, 64, 2, 1, 1}, NULL},
      {{128, 128, 64, 2, 4, 8}, NULL},
      {{128, 128, 64, 2, 5, 1}, "configuration.stages"},
      {{128, 64, 64, 2, 3, 1}, "configuration.tile_m"},
      {{128, 128, 32, 2, 3, 1}, "configuration.tile_m"},
      {{128, 128, 64, 1, 3, 1}, "configuration.elem_bytes"},
  };
  for (size_t i = 0; i < sizeof own / sizeof *own; i++) {
    pascal_error err;
    CHECK_INT(pascal_gemm_own_runs_config(&own[i].c, &err),
              own[i].field ? PASCAL_EINVAL : PASCAL_OK);
    if (own[i].field)
      CHECK(strcmp(err.field, own[i].field) == 0);
  }
}

int main(void)
{
  test_tables();
  test_config_mapping();
  test_round_trip();
  test_refusals();
  test_names_and_check();
  return check_summary();
}
