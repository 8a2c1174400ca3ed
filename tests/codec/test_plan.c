/*
 * test_plan.c - core/src/plan.c: grid expansion (sync rows force d = 0,
 * duplicates merged, first-seen order), the documented expansion order
 * (sizes, keys, horizons, repeats), run counts of the paper's 756-run plan,
 * and every validation rule naming its field. Expected values are written out
 * by hand from the rules in pascal/plan.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "pascal/plan.h"

static uint64_t *dup_u64(const uint64_t *v, size_t n)
{
  uint64_t *out = malloc(n * sizeof *out);
  memcpy(out, v, n * sizeof *out);
  return out;
}

static pascal_plan_key *dup_keys(const pascal_plan_key *v, size_t n)
{
  pascal_plan_key *out = malloc(n * sizeof *out);
  memcpy(out, v, n * sizeof *out);
  return out;
}

static int key_is(const pascal_plan_key *k, uint32_t o, pascal_plan_path p, uint32_t d, uint32_t m)
{
  return k->o == o && k->path == p && k->d == d && k->m == m;
}

static void test_grid_small(void)
{
  const uint32_t o[] = {1}, d[] = {2, 3}, m[] = {0, 5};
  const pascal_plan_path path[] = {PASCAL_PLAN_SYNC, PASCAL_PLAN_TMA};
  pascal_plan_grid g = {o, 1, path, 2, d, 2, m, 2};
  pascal_plan_key *keys = NULL;
  size_t n = 0;
  CHECK_INT(pascal_plan_grid_expand(&g, &keys, &n, NULL), PASCAL_OK);
  /* sync: one d (forced 0) x 2 m; tma: 2 d x 2 m -> 6, in loop order. */
  CHECK_INT(n, 6);
  if (n == 6) {
    CHECK(key_is(&keys[0], 1, PASCAL_PLAN_SYNC, 0, 0));
    CHECK(key_is(&keys[1], 1, PASCAL_PLAN_SYNC, 0, 5));
    CHECK(key_is(&keys[2], 1, PASCAL_PLAN_TMA, 2, 0));
    CHECK(key_is(&keys[3], 1, PASCAL_PLAN_TMA, 2, 5));
    CHECK(key_is(&keys[4], 1, PASCAL_PLAN_TMA, 3, 0));
    CHECK(key_is(&keys[5], 1, PASCAL_PLAN_TMA, 3, 5));
  }
  free(keys);
}

static void test_grid_duplicates(void)
{
  /* o {1,2,1} and m {0,1,0}: repeated values merge; path sync twice too. */
  const uint32_t o[] = {1, 2, 1}, d[] = {4}, m[] = {0, 1, 0};
  const pascal_plan_path path[] = {PASCAL_PLAN_SYNC, PASCAL_PLAN_TMA, PASCAL_PLAN_SYNC};
  pascal_plan_grid g = {o, 3, path, 3, d, 1, m, 3};
  pascal_plan_key *keys = NULL;
  size_t n = 0;
  CHECK_INT(pascal_plan_grid_expand(&g, &keys, &n, NULL), PASCAL_OK);
  /* distinct: o in {1,2} x (sync d0, tma d4) x m in {0,1} = 8 */
  CHECK_INT(n, 8);
  for (size_t i = 0; i < n; i++)
    for (size_t j = 0; j < i; j++)
      CHECK(!key_is(&keys[i], keys[j].o, keys[j].path, keys[j].d, keys[j].m));
  free(keys);

  /* sync-only grid may omit d; d values then do not matter */
  const pascal_plan_path sync[] = {PASCAL_PLAN_SYNC};
  pascal_plan_grid g2 = {o, 2, sync, 1, NULL, 0, m, 2};
  CHECK_INT(pascal_plan_grid_expand(&g2, &keys, &n, NULL), PASCAL_OK);
  CHECK_INT(n, 4);
  free(keys);
}

static void test_grid_errors(void)
{
  const uint32_t o[] = {1}, zero[] = {0}, d[] = {2}, m[] = {0};
  const pascal_plan_path tma[] = {PASCAL_PLAN_TMA}, bad[] = {(pascal_plan_path)7};
  pascal_plan_key *keys = NULL;
  size_t n = 0;
  pascal_error err;
  pascal_plan_grid g = {o, 1, tma, 1, NULL, 0, m, 1};
  CHECK_INT(pascal_plan_grid_expand(&g, &keys, &n, &err), PASCAL_EINVAL);
  CHECK(strcmp(err.field, "grid.d") == 0);
  pascal_plan_grid g2 = {o, 1, tma, 1, zero, 1, m, 1};
  CHECK_INT(pascal_plan_grid_expand(&g2, &keys, &n, &err), PASCAL_EINVAL);
  CHECK(strcmp(err.field, "grid.d[0]") == 0);
  pascal_plan_grid g3 = {zero, 1, tma, 1, d, 1, m, 1};
  CHECK_INT(pascal_plan_grid_expand(&g3, &keys, &n, &err), PASCAL_EINVAL);
  CHECK(strcmp(err.field, "grid.o[0]") == 0);
  pascal_plan_grid g4 = {o, 1, bad, 1, d, 1, m, 1};
  CHECK_INT(pascal_plan_grid_expand(&g4, &keys, &n, &err), PASCAL_EINVAL);
  CHECK(strcmp(err.field, "grid.path[0]") == 0);
  pascal_plan_grid g5 = {o, 1, tma, 1, d, 1, m, 0};
  CHECK_INT(pascal_plan_grid_expand(&g5, &keys, &n, &err), PASCAL_EINVAL);
  CHECK(strcmp(err.field, "grid.m") == 0);
  /* 65 x 65 computes... product above the limit */
  uint32_t *big = malloc(65 * sizeof *big);
  for (uint32_t i = 0; i < 65; i++)
    big[i] = i;
  pascal_plan_grid g6 = {o, 1, tma, 1, big + 1, 64, big, 65};
  CHECK_INT(pascal_plan_grid_expand(&g6, &keys, &n, &err), PASCAL_EINVAL);
  CHECK(strcmp(err.field, "grid") == 0);
  free(big);
}

/* sizes {100, 200}, keys k0 k1, horizons {1, 4}, repeats 2: 16 runs. */
static void small_plan(pascal_plan *p)
{
  const uint64_t sizes[] = {100, 200}, hz[] = {1, 4};
  const pascal_plan_key keys[] = {{1, PASCAL_PLAN_SYNC, 0, 3}, {2, PASCAL_PLAN_TMA, 4, 8}};
  pascal_plan_init(p);
  p->sizes = dup_u64(sizes, 2);
  p->n_sizes = 2;
  p->horizons = dup_u64(hz, 2);
  p->n_horizons = 2;
  p->keys = dup_keys(keys, 2);
  p->n_keys = 2;
  p->repeats = 2;
}

static void test_order(void)
{
  pascal_plan p;
  small_plan(&p);
  CHECK_INT(pascal_plan_validate(&p, NULL), PASCAL_OK);
  CHECK_INT(pascal_plan_run_count(&p), 16);
  /* index = ((size * 2 + key) * 2 + horizon) * 2 + repeat */
  const struct {
    size_t i;
    uint64_t N;
    uint32_t m;
    uint64_t W;
    uint32_t r;
  } want[] = {{0, 100, 3, 1, 0}, {1, 100, 3, 1, 1}, {2, 100, 3, 4, 0},  {4, 100, 8, 1, 0},
              {7, 100, 8, 4, 1}, {8, 200, 3, 1, 0}, {13, 200, 8, 1, 1}, {15, 200, 8, 4, 1}};
  for (size_t t = 0; t < sizeof want / sizeof *want; t++) {
    pascal_plan_run r;
    CHECK_INT(pascal_plan_run_get(&p, want[t].i, &r, NULL), PASCAL_OK);
    CHECK_INT(r.N, want[t].N);
    CHECK_INT(r.key.m, want[t].m);
    CHECK_INT(r.W, want[t].W);
    CHECK_INT(r.repeat, want[t].r);
    CHECK_INT(r.workload, PASCAL_PLAN_SCAN);
  }
  pascal_plan_run *runs = NULL, r;
  size_t n = 0;
  CHECK_INT(pascal_plan_expand(&p, &runs, &n, NULL), PASCAL_OK);
  CHECK_INT(n, 16);
  for (size_t i = 0; i < n; i++) {
    CHECK_INT(pascal_plan_run_get(&p, i, &r, NULL), PASCAL_OK);
    CHECK(memcmp(&r, &runs[i], sizeof r) == 0);
  }
  free(runs);
  pascal_error err;
  CHECK_INT(pascal_plan_run_get(&p, 16, &r, &err), PASCAL_ENOTFOUND);
  CHECK(strcmp(err.field, "index") == 0);
  pascal_plan_free(&p);
  CHECK(p.sizes == NULL && p.n_keys == 0);
}

/* The paper's default: 63 keys x 3 sizes x 4 horizons = 756 runs. */
static void test_paper_plan(void)
{
  pascal_plan p;
  pascal_plan_init(&p);
  const uint64_t sizes[] = {2048, 3072, 5120};
  p.sizes = dup_u64(sizes, 3);
  p.n_sizes = 3;
  p.horizons = dup_u64(pascal_plan_default_horizons, 4);
  p.n_horizons = 4;
  p.keys = malloc(63 * sizeof *p.keys);
  for (uint32_t i = 0; i < 63; i++)
    p.keys[i] = (pascal_plan_key){1 + i / 21, PASCAL_PLAN_TMA, 1 + (i / 7) % 3, i % 7};
  p.n_keys = 63;
  CHECK_INT(pascal_plan_validate(&p, NULL), PASCAL_OK);
  CHECK_INT(pascal_plan_run_count(&p), 756);
  p.repeats = 3;
  CHECK_INT(pascal_plan_run_count(&p), 2268);
  pascal_plan_run last;
  CHECK_INT(pascal_plan_run_get(&p, 2267, &last, NULL), PASCAL_OK);
  CHECK(last.N == 5120 && last.W == 64 && last.repeat == 2 && last.key.m == 62 % 7);
  pascal_plan_free(&p);
}

static void expect_invalid(pascal_plan *p, const char *field)
{
  pascal_error err;
  pascal_error_clear(&err);
  CHECK_INT(pascal_plan_validate(p, &err), PASCAL_EINVAL);
  if (strcmp(err.field, field) != 0)
    fprintf(stderr, "  field '%s', wanted '%s' (%s)\n", err.field, field, err.message);
  CHECK(strcmp(err.field, field) == 0);
  CHECK(err.message[0] != '\0');
  pascal_plan_free(p);
}

static void test_validation(void)
{
  pascal_plan p;
  small_plan(&p);
  p.keys[0].d = 2; /* sync with a depth */
  expect_invalid(&p, "keys[0].d");
  small_plan(&p);
  p.keys[1].d = 0; /* tma without one */
  expect_invalid(&p, "keys[1].d");
  small_plan(&p);
  p.keys[0].o = 0;
  expect_invalid(&p, "keys[0].o");
  small_plan(&p);
  p.keys[1] = p.keys[0];
  expect_invalid(&p, "keys[1]");
  small_plan(&p);
  p.sizes[1] = 100;
  expect_invalid(&p, "sizes[1]");
  small_plan(&p);
  p.sizes[0] = 0;
  expect_invalid(&p, "sizes[0]");
  small_plan(&p);
  p.sizes[0] = UINT64_C(4294967296); /* a calibration run holds N < 2^32 */
  expect_invalid(&p, "sizes[0]");
  small_plan(&p);
  p.horizons[1] = 1;
  expect_invalid(&p, "horizons[1]");
  small_plan(&p);
  p.repeats = 0;
  expect_invalid(&p, "repeats");
  small_plan(&p);
  p.repeats = PASCAL_PLAN_MAX_REPEATS + 1;
  expect_invalid(&p, "repeats");
  small_plan(&p);
  p.n_keys = 0;
  expect_invalid(&p, "keys");
  small_plan(&p);
  p.n_horizons = 0;
  expect_invalid(&p, "horizons");
  small_plan(&p);
  p.workload = PASCAL_PLAN_GEMM;
  expect_invalid(&p, "sizes");

  /* list lengths: MAX_LIST distinct sizes are fine, one more is refused
   * (before its entries are looked at); likewise keys */
  small_plan(&p);
  free(p.sizes);
  p.sizes = malloc((PASCAL_PLAN_MAX_LIST + 1) * sizeof *p.sizes);
  for (uint64_t i = 0; i <= PASCAL_PLAN_MAX_LIST; i++)
    p.sizes[i] = i + 1;
  p.n_sizes = PASCAL_PLAN_MAX_LIST;
  CHECK_INT(pascal_plan_validate(&p, NULL), PASCAL_OK);
  p.n_sizes = PASCAL_PLAN_MAX_LIST + 1;
  expect_invalid(&p, "sizes");
  small_plan(&p);
  free(p.keys);
  p.keys = calloc(PASCAL_PLAN_MAX_LIST + 1, sizeof *p.keys);
  p.n_keys = PASCAL_PLAN_MAX_LIST + 1;
  expect_invalid(&p, "keys");

  /* too many runs: 1000 sizes x 1000 horizons x 2 keys x 2 repeats */
  small_plan(&p);
  free(p.sizes);
  free(p.horizons);
  p.sizes = malloc(1000 * sizeof *p.sizes);
  p.horizons = malloc(1000 * sizeof *p.horizons);
  for (uint64_t i = 0; i < 1000; i++)
    p.sizes[i] = p.horizons[i] = i + 1;
  p.n_sizes = p.n_horizons = 1000;
  expect_invalid(&p, "plan");
}

static void test_gemm(void)
{
  pascal_plan p;
  pascal_plan_init(&p);
  p.workload = PASCAL_PLAN_GEMM;
  p.shapes = malloc(2 * sizeof *p.shapes);
  p.shapes[0] = (pascal_plan_shape){1280, 896, 2560};
  p.shapes[1] = (pascal_plan_shape){256, 256, 1024};
  p.n_shapes = 2;
  p.repeats = 2;
  CHECK_INT(pascal_plan_validate(&p, NULL), PASCAL_OK);
  CHECK_INT(pascal_plan_run_count(&p), 4);
  pascal_plan_run r;
  CHECK_INT(pascal_plan_run_get(&p, 1, &r, NULL), PASCAL_OK);
  CHECK(r.workload == PASCAL_PLAN_GEMM && r.shape.Mg == 1280 && r.repeat == 1 && r.N == 0);
  CHECK_INT(pascal_plan_run_get(&p, 2, &r, NULL), PASCAL_OK);
  CHECK(r.shape.Kg == 1024 && r.repeat == 0);
  p.shapes[1] = p.shapes[0];
  expect_invalid(&p, "shapes[1]");
  pascal_plan_init(&p);
  p.workload = PASCAL_PLAN_GEMM;
  p.shapes = malloc(sizeof *p.shapes);
  p.shapes[0] = (pascal_plan_shape){128, 128, 0};
  p.n_shapes = 1;
  expect_invalid(&p, "shapes[0].Kg");
}

static void test_path_names(void)
{
  pascal_plan_path p;
  CHECK_INT(pascal_plan_path_parse("tma", &p, NULL), PASCAL_OK);
  CHECK_INT(p, PASCAL_PLAN_TMA);
  CHECK_INT(pascal_plan_path_parse("TMA", &p, NULL), PASCAL_EINVAL);
  CHECK_INT(pascal_plan_path_parse(NULL, &p, NULL), PASCAL_EINVAL);
  CHECK(strcmp(pascal_plan_path_name(PASCAL_PLAN_SYNC), "sync") == 0);
  CHECK(pascal_plan_path_name((pascal_plan_path)9) == NULL);
}

int main(void)
{
  test_grid_small();
  test_grid_duplicates();
  test_grid_errors();
  test_order();
  test_paper_plan();
  test_validation();
  test_gemm();
  test_path_names();
  return check_summary();
}
