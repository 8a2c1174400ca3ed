/*
 * test_plan_json.c - pascal-plan/1 through the codec: decoding of key and
 * grid plans (defaults, counts), canonical re-encoding and round trip, every
 * malformed-plan rule naming its field, and the strict parser (duplicate
 * keys, nesting depth, invalid numbers).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "pascal_codec.h"

static pascal_status decode_text(const char *text, pascal_plan *plan, pascal_error *err)
{
  json_t *doc = NULL;
  pascal_status st = pascal_codec_parse(text, strlen(text), &doc, err);
  if (!st)
    st = pascal_codec_plan_decode(doc, plan, err);
  json_decref(doc);
  return st;
}

static void test_keys_plan(void)
{
  const char *text =
      "{\"format\":\"pascal-plan/1\",\"workload\":\"scan\",\"sizes\":[4096,2048],"
      "\"horizons\":[1,4],\"repeats\":2,\"note\":\"extra keys are fine\","
      "\"keys\":[{\"o\":1,\"path\":\"tma\",\"d\":4,\"m\":8},{\"o\":2,\"path\":\"sync\",\"m\":3}]}";
  pascal_plan p, q;
  pascal_plan_init(&p);
  pascal_plan_init(&q);
  CHECK_INT(decode_text(text, &p, NULL), PASCAL_OK);
  CHECK_INT(p.n_keys, 2);
  CHECK_INT(p.keys[1].d, 0);
  CHECK_INT(p.keys[1].path, PASCAL_PLAN_SYNC);
  CHECK_INT(pascal_plan_run_count(&p), 2 * 2 * 2 * 2);
  CHECK_INT(p.sizes[0], 4096); /* plan order is kept */

  json_t *doc = NULL;
  CHECK_INT(pascal_codec_plan_encode(&p, &doc, NULL), PASCAL_OK);
  CHECK_INT(pascal_codec_plan_decode(doc, &q, NULL), PASCAL_OK);
  CHECK(q.n_keys == p.n_keys && memcmp(q.keys, p.keys, p.n_keys * sizeof *p.keys) == 0);
  CHECK(q.n_sizes == 2 && q.sizes[1] == 2048 && q.n_horizons == 2 && q.repeats == 2);
  /* canonical form: explicit keys, d written for sync */
  CHECK(json_integer_value(json_object_get(json_array_get(json_object_get(doc, "keys"), 1), "d")) ==
        0);
  json_decref(doc);

  pascal_plan_run run;
  CHECK_INT(pascal_plan_run_get(&p, 0, &run, NULL), PASCAL_OK);
  CHECK_INT(pascal_codec_plan_run_encode(&run, &doc, NULL), PASCAL_OK);
  char *s = pascal_codec_dump(doc, 0);
  CHECK(strcmp(s, "{\"o\":1,\"path\":\"tma\",\"d\":4,\"m\":8,\"N\":4096,\"W\":1,\"repeat\":0}") ==
        0);
  free(s);
  /* and back: every run of the plan survives encode -> decode */
  for (size_t i = 0; i < pascal_plan_run_count(&p); i++) {
    pascal_plan_run back;
    json_decref(doc);
    CHECK_INT(pascal_plan_run_get(&p, i, &run, NULL), PASCAL_OK);
    CHECK_INT(pascal_codec_plan_run_encode(&run, &doc, NULL), PASCAL_OK);
    CHECK_INT(pascal_codec_plan_run_decode(doc, PASCAL_PLAN_SCAN, &back, NULL), PASCAL_OK);
    CHECK(memcmp(&back, &run, sizeof run) == 0);
  }
  json_decref(doc);
  pascal_plan_free(&p);
  pascal_plan_free(&q);
}

static void expect_run_error(const char *text, pascal_plan_workload wl, const char *field)
{
  json_t *doc = json_loads(text, 0, NULL);
  pascal_plan_run r;
  pascal_error err;
  pascal_error_clear(&err);
  CHECK(pascal_codec_plan_run_decode(doc, wl, &r, &err) != PASCAL_OK);
  if (strcmp(err.field, field) != 0)
    fprintf(stderr, "  %s -> '%s', wanted '%s'\n", text, err.field, field);
  CHECK(strcmp(err.field, field) == 0);
  json_decref(doc);
}

static void test_run_decode(void)
{
  const char *gemm = "{\"Mg\":1280,\"Ng\":896,\"Kg\":2560}";
  json_t *doc = json_loads(gemm, 0, NULL);
  pascal_plan_run r;
  CHECK_INT(pascal_codec_plan_run_decode(doc, PASCAL_PLAN_GEMM, &r, NULL), PASCAL_OK);
  CHECK(r.shape.Mg == 1280 && r.shape.Ng == 896 && r.shape.Kg == 2560 && r.repeat == 0);
  json_decref(doc);
  expect_run_error("{\"Mg\":1280,\"Ng\":896}", PASCAL_PLAN_GEMM, "run.Kg");
  expect_run_error("{\"o\":1,\"path\":\"tma\",\"d\":4,\"m\":8,\"N\":4096}", PASCAL_PLAN_SCAN,
                   "run.W");
  expect_run_error("{\"o\":1,\"path\":\"sync\",\"d\":4,\"m\":8,\"N\":4096,\"W\":1}",
                   PASCAL_PLAN_SCAN, "run.d");
  expect_run_error("{\"o\":1,\"path\":\"tma\",\"d\":4,\"m\":8,\"N\":0,\"W\":1}", PASCAL_PLAN_SCAN,
                   "run.N");
  expect_run_error("{\"o\":1,\"path\":\"tma\",\"d\":4,\"m\":8,\"N\":8,\"W\":1,\"repeat\":-1}",
                   PASCAL_PLAN_SCAN, "run.repeat");
  expect_run_error("[]", PASCAL_PLAN_SCAN, "run");
}

static void test_grid_plan(void)
{
  const char *text =
      "{\"format\":\"pascal-plan/1\",\"workload\":\"scan\",\"sizes\":[2048,3072],"
      "\"grid\":{\"o\":[1,2],\"path\":[\"sync\",\"tma\"],\"d\":[2,3,4],\"m\":[0,1,2,0]}}";
  pascal_plan p;
  pascal_plan_init(&p);
  CHECK_INT(decode_text(text, &p, NULL), PASCAL_OK);
  /* 2 o x (1 sync + 3 tma depths) x 3 distinct m = 24 keys; default
   * horizons 1,4,16,64; 2 sizes: 24 x 2 x 4 = 192 runs */
  CHECK_INT(p.n_keys, 24);
  CHECK_INT(p.n_horizons, 4);
  CHECK(p.horizons[0] == 1 && p.horizons[3] == 64);
  CHECK_INT(p.repeats, 1);
  CHECK_INT(pascal_plan_run_count(&p), 192);
  size_t sync_rows = 0;
  for (size_t i = 0; i < p.n_keys; i++)
    if (p.keys[i].path == PASCAL_PLAN_SYNC) {
      sync_rows++;
      CHECK_INT(p.keys[i].d, 0);
    }
  CHECK_INT(sync_rows, 6);
  pascal_plan_free(&p);

  const char *gemm = "{\"format\":\"pascal-plan/1\",\"workload\":\"gemm\",\"repeats\":3,"
                     "\"shapes\":[{\"Mg\":1280,\"Ng\":896,\"Kg\":2560}]}";
  CHECK_INT(decode_text(gemm, &p, NULL), PASCAL_OK);
  CHECK_INT(pascal_plan_run_count(&p), 3);
  json_t *doc = NULL;
  CHECK_INT(pascal_codec_plan_encode(&p, &doc, NULL), PASCAL_OK);
  CHECK(json_object_get(doc, "sizes") == NULL && json_object_get(doc, "shapes") != NULL);
  json_decref(doc);
  pascal_plan_free(&p);
}

static void expect_error(const char *text, pascal_status status, const char *field)
{
  pascal_plan p;
  pascal_error err;
  pascal_plan_init(&p);
  pascal_error_clear(&err);
  pascal_status st = decode_text(text, &p, &err);
  CHECK_INT(st, status);
  if (strcmp(err.field, field) != 0)
    fprintf(stderr, "  %s\n  -> field '%s' (%s), wanted '%s'\n", text, err.field, err.message,
            field);
  CHECK(strcmp(err.field, field) == 0);
  CHECK(err.message[0] != '\0' && strchr(err.message, '\n') == NULL);
  CHECK(p.keys == NULL && p.sizes == NULL); /* nothing leaks out on failure */
}

#define SCAN "\"format\":\"pascal-plan/1\",\"workload\":\"scan\","
#define KEY  "{\"o\":1,\"path\":\"tma\",\"d\":4,\"m\":8}"

static void test_errors(void)
{
  expect_error("[1,2]", PASCAL_EFORMAT, "plan");
  expect_error("{\"format\":\"pascal-plan/2\",\"workload\":\"scan\"}", PASCAL_EFORMAT, "format");
  expect_error("{\"workload\":\"scan\"}", PASCAL_EMISSING, "format");
  expect_error("{\"format\":\"pascal-plan/1\"}", PASCAL_EMISSING, "workload");
  expect_error("{\"format\":\"pascal-plan/1\",\"workload\":\"conv\"}", PASCAL_EINVAL, "workload");
  expect_error("{" SCAN "\"keys\":[" KEY "]}", PASCAL_EMISSING, "sizes");
  expect_error("{" SCAN "\"sizes\":[1,\"2\"],\"keys\":[" KEY "]}", PASCAL_EFORMAT, "sizes[1]");
  expect_error("{" SCAN "\"sizes\":[-4],\"keys\":[" KEY "]}", PASCAL_EINVAL, "sizes[0]");
  expect_error("{" SCAN "\"sizes\":[4.5],\"keys\":[" KEY "]}", PASCAL_EFORMAT, "sizes[0]");
  expect_error("{" SCAN "\"sizes\":[8,8],\"keys\":[" KEY "]}", PASCAL_EINVAL, "sizes[1]");
  expect_error("{" SCAN "\"sizes\":[],\"keys\":[" KEY "]}", PASCAL_EINVAL, "sizes");
  expect_error("{" SCAN "\"sizes\":[8],\"horizons\":[0],\"keys\":[" KEY "]}", PASCAL_EINVAL,
               "horizons[0]");
  expect_error("{" SCAN "\"sizes\":[8]}", PASCAL_EMISSING, "keys");
  expect_error("{" SCAN "\"sizes\":[8],\"keys\":{}}", PASCAL_EFORMAT, "keys");
  expect_error("{" SCAN "\"sizes\":[8],\"keys\":[" KEY "],\"grid\":{}}", PASCAL_EFORMAT, "grid");
  expect_error("{" SCAN "\"sizes\":[8],\"keys\":[" KEY "," KEY "]}", PASCAL_EINVAL, "keys[1]");
  expect_error("{" SCAN "\"sizes\":[8],\"keys\":[{\"o\":1,\"path\":\"dma\",\"d\":4,\"m\":8}]}",
               PASCAL_EINVAL, "keys[0].path");
  expect_error("{" SCAN "\"sizes\":[8],\"keys\":[{\"o\":1,\"path\":\"tma\",\"m\":8}]}",
               PASCAL_EMISSING, "keys[0].d");
  expect_error("{" SCAN "\"sizes\":[8],\"keys\":[{\"o\":1,\"path\":\"sync\",\"d\":3,\"m\":8}]}",
               PASCAL_EINVAL, "keys[0].d");
  expect_error("{" SCAN "\"sizes\":[8],\"keys\":[{\"o\":0,\"path\":\"sync\",\"m\":8}]}",
               PASCAL_EINVAL, "keys[0].o");
  expect_error("{" SCAN "\"sizes\":[8],\"keys\":[{\"o\":1,\"path\":\"sync\"}]}", PASCAL_EMISSING,
               "keys[0].m");
  expect_error("{" SCAN "\"sizes\":[8],\"keys\":[7]}", PASCAL_EFORMAT, "keys[0]");
  expect_error("{" SCAN "\"sizes\":[8],\"repeats\":0,\"keys\":[" KEY "]}", PASCAL_EINVAL,
               "repeats");
  expect_error("{" SCAN "\"sizes\":[8],\"repeats\":1.0,\"keys\":[" KEY "]}", PASCAL_EFORMAT,
               "repeats");
  expect_error("{" SCAN "\"sizes\":[8],\"grid\":{\"o\":[1],\"path\":[\"tma\"],\"m\":[1]}}",
               PASCAL_EINVAL, "grid.d");
  expect_error("{" SCAN "\"sizes\":[8],\"grid\":{\"o\":[1],\"path\":[\"x\"],\"m\":[1]}}",
               PASCAL_EINVAL, "grid.path[0]");
  expect_error("{" SCAN "\"sizes\":[8],\"grid\":{\"path\":[\"sync\"],\"m\":[1]}}", PASCAL_EMISSING,
               "grid.o");
  expect_error("{" SCAN "\"sizes\":[8],\"shapes\":[],\"keys\":[" KEY "]}", PASCAL_EFORMAT,
               "shapes");
  expect_error("{\"format\":\"pascal-plan/1\",\"workload\":\"gemm\",\"sizes\":[8],"
               "\"shapes\":[{\"Mg\":128,\"Ng\":128,\"Kg\":64}]}",
               PASCAL_EFORMAT, "sizes");
  expect_error("{\"format\":\"pascal-plan/1\",\"workload\":\"gemm\","
               "\"shapes\":[{\"Mg\":128,\"Ng\":128}]}",
               PASCAL_EMISSING, "shapes[0].Kg");
  expect_error("{\"format\":\"pascal-plan/1\",\"workload\":\"gemm\","
               "\"shapes\":[{\"Mg\":128,\"Ng\":128,\"Kg\":64},{\"Mg\":128,\"Ng\":128,\"Kg\":64}]}",
               PASCAL_EINVAL, "shapes[1]");
  /* the parser itself */
  expect_error("{" SCAN "\"sizes\":[8],\"sizes\":[9],\"keys\":[" KEY "]}", PASCAL_EFORMAT,
               "document");
  expect_error("{" SCAN "\"sizes\":[NaN],\"keys\":[" KEY "]}", PASCAL_EFORMAT, "document");
  expect_error("{" SCAN "\"sizes\":[1e999],\"keys\":[" KEY "]}", PASCAL_EFORMAT, "document");
  expect_error("{" SCAN, PASCAL_EFORMAT, "document");
}

/* head + "[" + n copies of item, comma-separated + "]" + tail (malloc'd). */
static char *with_list(const char *head, const char *item, size_t n, const char *tail)
{
  size_t len = strlen(head) + n * (strlen(item) + 1) + strlen(tail) + 3;
  char *text = malloc(len), *at = text;
  if (!text)
    return NULL;
  at += sprintf(at, "%s[", head);
  for (size_t i = 0; i < n; i++)
    at += sprintf(at, "%s%s", i ? "," : "", item);
  sprintf(at, "]%s", tail);
  return text;
}

/* Lists are refused past PASCAL_PLAN_MAX_LIST entries, naming the list. */
static void test_list_lengths(void)
{
  const size_t over = PASCAL_PLAN_MAX_LIST + 1;
  char *sizes = with_list("{" SCAN "\"sizes\":", "8", over, ",\"keys\":[" KEY "]}");
  char *keys = with_list("{" SCAN "\"sizes\":[8],\"keys\":", KEY, over, "}");
  char *shapes = with_list("{\"format\":\"pascal-plan/1\",\"workload\":\"gemm\",\"shapes\":",
                           "{\"Mg\":128,\"Ng\":128,\"Kg\":64}", over, "}");
  CHECK(sizes && keys && shapes);
  if (sizes && keys && shapes) {
    expect_error(sizes, PASCAL_EINVAL, "sizes");
    expect_error(keys, PASCAL_EINVAL, "keys");
    expect_error(shapes, PASCAL_EINVAL, "shapes");
  }
  free(sizes);
  free(keys);
  free(shapes);
  /* at the limit the length is fine: the next rule (distinct sizes) speaks */
  char *full = with_list("{" SCAN "\"sizes\":", "8", PASCAL_PLAN_MAX_LIST, ",\"keys\":[" KEY "]}");
  if (full)
    expect_error(full, PASCAL_EINVAL, "sizes[1]");
  free(full);
}

static void test_depth(void)
{
  char deep[200];
  json_t *doc = NULL;
  pascal_error err;
  /* PASCAL_CODEC_MAX_DEPTH levels parse, one more is refused */
  for (unsigned extra = 0; extra < 2; extra++) {
    size_t n = PASCAL_CODEC_MAX_DEPTH + extra, k = 0;
    for (size_t i = 0; i < n; i++)
      deep[k++] = '[';
    for (size_t i = 0; i < n; i++)
      deep[k++] = ']';
    pascal_status st = pascal_codec_parse(deep, k, &doc, &err);
    CHECK_INT(st, extra ? PASCAL_EFORMAT : PASCAL_OK);
    if (!st)
      json_decref(doc);
    else
      CHECK(strcmp(err.field, "document") == 0);
  }
  /* brackets inside strings do not count */
  const char *s = "{\"a\":\"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[\\\"[[\"}";
  CHECK_INT(pascal_codec_parse(s, strlen(s), &doc, NULL), PASCAL_OK);
  json_decref(doc);
}

static void test_file_errors(void)
{
  json_t *doc = NULL;
  pascal_error err;
  CHECK_INT(pascal_codec_load_file("/nonexistent/plan.json", &doc, &err), PASCAL_ENOTFOUND);
  CHECK(strcmp(err.field, "file") == 0);
}

/* GEMM plans with configurations (kind gemm-configs): the expansion order
 * shape, configuration, repeat; the canonical encoding round-trips; each
 * run carries its configuration through the job codec; every malformed
 * configuration is refused naming its field. Verified to fail: with the
 * configuration loop outside the shape loop in pascal_plan_run_get the
 * order check fails; without the whole-tile rule the shapes[1] row passes. */
#define GEMM "\"format\":\"pascal-plan/1\",\"workload\":\"gemm\","
#define CFG(m, n, k, e, s, g)                                                                      \
  "{\"tile_m\":" #m ",\"tile_n\":" #n ",\"tile_k\":" #k ",\"elem_bytes\":" #e ",\"stages\":" #s    \
  ",\"group_m\":" #g "}"
static void test_configurations(void)
{
  const char *text = "{" GEMM "\"repeats\":2,\"shapes\":[{\"Mg\":1024,\"Ng\":1024,\"Kg\":2048},"
                     "{\"Mg\":2048,\"Ng\":512,\"Kg\":1024}],\"configurations\":[" CFG(
                         64, 32, 32, 2, 3, 1) "," CFG(128, 128, 64, 1, 4, 8) "]}";
  pascal_plan p, q;
  pascal_plan_init(&p);
  pascal_plan_init(&q);
  CHECK_INT(decode_text(text, &p, NULL), PASCAL_OK);
  CHECK_INT(p.n_configs, 2);
  CHECK_INT(pascal_plan_run_count(&p), 8);
  pascal_plan_run r;
  for (size_t i = 0; i < 8; i++) {
    CHECK_INT(pascal_plan_run_get(&p, i, &r, NULL), PASCAL_OK);
    CHECK_INT(r.repeat, i % 2);
    CHECK_INT(r.config.tile_m, (i / 2) % 2 ? 128 : 64);
    CHECK_INT(r.shape.Mg, i / 4 ? 2048 : 1024);
    /* the job codec carries the configuration both ways */
    json_t *run = NULL;
    pascal_plan_run back;
    CHECK_INT(pascal_codec_plan_run_encode(&r, &run, NULL), PASCAL_OK);
    CHECK_INT(pascal_codec_plan_run_decode(run, PASCAL_PLAN_GEMM, &back, NULL), PASCAL_OK);
    CHECK(memcmp(&back.config, &r.config, sizeof r.config) == 0);
    json_decref(run);
  }
  json_t *doc = NULL;
  CHECK_INT(pascal_codec_plan_encode(&p, &doc, NULL), PASCAL_OK);
  CHECK_INT(pascal_codec_plan_decode(doc, &q, NULL), PASCAL_OK);
  CHECK_INT(q.n_configs, 2);
  CHECK(q.n_configs == 2 && memcmp(q.configs, p.configs, 2 * sizeof *p.configs) == 0);
  json_decref(doc);
  pascal_plan_free(&p);
  pascal_plan_free(&q);
  /* a plain GEMM plan's runs carry none, and its encoding has no key */
  CHECK_INT(decode_text("{" GEMM "\"shapes\":[{\"Mg\":128,\"Ng\":128,\"Kg\":64}]}", &p, NULL),
            PASCAL_OK);
  CHECK_INT(pascal_plan_run_get(&p, 0, &r, NULL), PASCAL_OK);
  CHECK_INT(r.config.tile_m, 0);
  CHECK_INT(pascal_codec_plan_encode(&p, &doc, NULL), PASCAL_OK);
  CHECK(json_object_get(doc, "configurations") == NULL);
  json_decref(doc);
  pascal_plan_free(&p);

  static const struct {
    const char *configs; /* the "configurations" value */
    const char *field;
  } bad[] = {
      {"[]", "configurations"},
      {"{}", "configurations"},
      {"[1]", "configurations[0]"},
      {"[{\"tile_m\":64,\"tile_n\":64,\"tile_k\":32,\"elem_bytes\":2,\"stages\":2}]",
       "configurations[0].group_m"},
      {"[" CFG(0, 64, 32, 2, 2, 1) "]", "configurations[0].tile_m"},
      {"[" CFG(64, 8192, 32, 2, 2, 1) "]", "configurations[0].tile_n"},
      {"[" CFG(64, 64, 32, 3, 2, 1) "]", "configurations[0].elem_bytes"},
      {"[" CFG(64, 64, 32, 2, 0, 1) "]", "configurations[0].stages"},
      {"[" CFG(64, 64, 32, 2, 17, 1) "]", "configurations[0].stages"},
      {"[" CFG(64, 64, 32, 2, 2, 0) "]", "configurations[0].group_m"},
      {"[" CFG(64, 64, 32, 2, 2, -1) "]", "configurations[0].group_m"},
      {"[" CFG(64, 64, 32, 2, 2, 1) "," CFG(64, 64, 32, 2, 2, 1) "]", "configurations[1]"},
      {"[" CFG(64, 64, 32, 2, 2, 1) "," CFG(256, 64, 32, 2, 2, 1) "]", "shapes[1]"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    char buf[512];
    snprintf(buf, sizeof buf,
             "{" GEMM "\"shapes\":[{\"Mg\":512,\"Ng\":512,\"Kg\":512},"
             "{\"Mg\":128,\"Ng\":128,\"Kg\":128}],\"configurations\":%s}",
             bad[i].configs);
    pascal_plan b;
    pascal_error err;
    pascal_plan_init(&b);
    pascal_error_clear(&err);
    CHECK(decode_text(buf, &b, &err) != PASCAL_OK);
    if (strcmp(err.field, bad[i].field) != 0)
      fprintf(stderr, "  %s\n  -> field '%s' (%s), wanted '%s'\n", buf, err.field, err.message,
              bad[i].field);
    CHECK(strcmp(err.field, bad[i].field) == 0);
    CHECK(b.configs == NULL && b.shapes == NULL);
  }
  /* configurations belong to a gemm plan only */
  expect_error("{" SCAN "\"sizes\":[8],\"keys\":[" KEY "],\"configurations\":[]}", PASCAL_EFORMAT,
               "configurations");
  expect_run_error("{\"Mg\":128,\"Ng\":128,\"Kg\":64,\"tile_m\":128}", PASCAL_PLAN_GEMM,
                   "run.tile_n");
  expect_run_error("{\"Mg\":128,\"Ng\":128,\"Kg\":64,\"tile_m\":128,\"tile_n\":128,"
                   "\"tile_k\":64,\"elem_bytes\":2,\"stages\":3,\"group_m\":0}",
                   PASCAL_PLAN_GEMM, "run.group_m");
}

int main(void)
{
  test_configurations();
  test_keys_plan();
  test_grid_plan();
  test_errors();
  test_list_lengths();
  test_run_decode();
  test_depth();
  test_file_errors();
  return check_summary();
}
