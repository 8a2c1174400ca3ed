/*
 * test_bundle.c - calibration bundles through pascal_codec: lossless round
 * trips (plain: encode -> text -> decode gives bit-identical runs; frozen:
 * read -> fit -> write -> read -> fit -> write gives the identical
 * document), the content hash (what it covers and what it does not), and
 * every malformed-bundle rule with the field it must name.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "pascal/time_model.h"
#include "pascal_codec.h"
#include "test_device.h"

/* Awkward doubles: each must come back bit for bit. */
static const double awkward[] = {
    0.1, 1e9 / 3.0, 5e-324, 1.7976931348623157e308, 123456789.123456789, 2.5e-7, 1048576.0};

/* Scan calibration: family (1, tma, 2) with m in {0, 1, 2, 4}, sync m = 0,
 * sizes {2048, 4096}, horizons {1, 4, 16}; K grows with W and m. */
static void make_scan(pascal_calibration *cal)
{
  test_device_calibration(cal, PASCAL_WORKLOAD_SCAN, "test-gpu");
  snprintf(cal->device.arch, sizeof cal->device.arch, "sm_90");
  const uint32_t ms[] = {0, 1, 2, 4}, sizes[] = {2048, 4096}, ws[] = {1, 4, 16};
  size_t k = 0;
  for (size_t s = 0; s < 2; s++)
    for (size_t i = 0; i < 5; i++)
      for (size_t w = 0; w < 3; w++) {
        pascal_scan_run r;
        memset(&r, 0, sizeof r);
        r.key = i < 4 ? (pascal_scan_key){1, PASCAL_PATH_TMA, 2, ms[i]}
                      : (pascal_scan_key){1, PASCAL_PATH_SYNC, 0, 0};
        r.N = sizes[s];
        r.W = ws[w];
        double K = 1.0 + 0.3 * (double)(i + 1) * (double)ws[w] / (ws[w] + 4.0);
        r.fill_bytes = K * 16384.0 * r.W * r.N + awkward[k % 7];
        if (k % 3 == 0) {
          r.has_kernel_ns = true;
          r.kernel_ns = awkward[(k + 1) % 7] * 1e-3;
        }
        if (k % 4 == 0) {
          r.has_repeat = true;
          r.repeat = 0;
        }
        k++;
        CHECK_INT(pascal_calibration_append_scan(cal, &r, NULL), PASCAL_OK);
      }
}

static json_t *provenance(void)
{
  json_t *p = json_object();
  CHECK_INT(json_object_set_new(p, "source", json_string("sim")), 0);
  CHECK_INT(json_object_set_new(p, "profile", json_string("gb10-like")), 0);
  return p;
}

/* Encode, print, parse, decode: the way a bundle travels through a file. */
static pascal_status through_text(const json_t *doc, pascal_codec_bundle *b, pascal_error *err)
{
  char *text = pascal_codec_dump(doc, 1);
  json_t *back = NULL;
  pascal_status st = pascal_codec_parse(text, strlen(text), &back, err);
  free(text);
  if (!st)
    st = pascal_codec_bundle_decode(back, b, err);
  json_decref(back);
  return st;
}

static int same_run_arrays(const pascal_scan_run *a, size_t na, const pascal_scan_run *b, size_t nb)
{
  if (na != nb)
    return 0;
  for (size_t i = 0; i < na; i++) {
    const pascal_scan_run *x = &a[i], *y = &b[i];
    if (memcmp(&x->key, &y->key, sizeof x->key) || x->N != y->N || x->W != y->W ||
        memcmp(&x->fill_bytes, &y->fill_bytes, sizeof(double)) || x->has_repeat != y->has_repeat ||
        x->has_kernel_ns != y->has_kernel_ns || (x->has_repeat && x->repeat != y->repeat) ||
        (x->has_kernel_ns && memcmp(&x->kernel_ns, &y->kernel_ns, sizeof(double))))
      return 0;
  }
  return 1;
}

static int same_scan_runs(const pascal_calibration *a, const pascal_calibration *b)
{
  return same_run_arrays(a->scan_runs, a->n_scan_runs, b->scan_runs, b->n_scan_runs) &&
         same_run_arrays(a->heldout_scan_runs, a->n_heldout_scan_runs, b->heldout_scan_runs,
                         b->n_heldout_scan_runs);
}

static void test_plain_round_trip(void)
{
  pascal_calibration cal;
  pascal_codec_bundle b;
  json_t *prov = provenance(), *doc = NULL;
  make_scan(&cal);
  pascal_codec_bundle_init(&b);
  CHECK_INT(pascal_codec_bundle_encode(&cal, prov, NULL, NULL, &doc, NULL), PASCAL_OK);
  CHECK(json_object_get(doc, "content_hash") == NULL && json_object_get(doc, "model") == NULL);
  CHECK_INT(through_text(doc, &b, NULL), PASCAL_OK);
  CHECK(!b.frozen);
  CHECK(same_scan_runs(&cal, &b.cal));
  CHECK(strcmp(b.cal.device.name, "test-gpu") == 0 && b.cal.device.capacity_blocks == 1280);
  CHECK(json_equal(b.provenance, prov));
  pascal_codec_bundle_free(&b);
  json_decref(doc);
  json_decref(prov);
  pascal_calibration_free(&cal);
}

static void test_frozen_round_trip(void)
{
  pascal_calibration cal;
  pascal_codec_bundle b1, b2;
  pascal_model *m0 = NULL, *m1 = NULL;
  pascal_loko_report rep;
  json_t *prov = provenance(), *doc1 = NULL, *doc2 = NULL;
  make_scan(&cal);
  pascal_codec_bundle_init(&b1);
  pascal_codec_bundle_init(&b2);
  CHECK_INT(pascal_model_fit(&cal, &m0, NULL), PASCAL_OK);
  CHECK_INT(pascal_loko_run(&cal, &rep, NULL), PASCAL_OK);
  CHECK_INT(pascal_codec_bundle_encode(&cal, prov, m0, &rep, &doc1, NULL), PASCAL_OK);
  pascal_loko_report_free(&rep);
  CHECK(json_is_object(json_object_get(doc1, "report")));
  CHECK_INT(json_array_size(json_object_get(json_object_get(doc1, "model"), "curves")),
            pascal_model_curve_count(m0));

  /* read -> fit -> write -> read: identical model, hash and measurements */
  CHECK_INT(through_text(doc1, &b1, NULL), PASCAL_OK);
  CHECK(b1.frozen);
  CHECK(same_scan_runs(&cal, &b1.cal));
  CHECK_INT(pascal_model_fit(&b1.cal, &m1, NULL), PASCAL_OK);
  CHECK_INT(pascal_codec_bundle_check_model(&b1, m1, NULL), PASCAL_OK);
  CHECK_INT(pascal_loko_run(&b1.cal, &rep, NULL), PASCAL_OK);
  CHECK_INT(pascal_codec_bundle_encode(&b1.cal, b1.provenance, m1, &rep, &doc2, NULL), PASCAL_OK);
  pascal_loko_report_free(&rep);
  CHECK(json_equal(doc1, doc2));
  char *t1 = pascal_codec_dump(doc1, 1), *t2 = pascal_codec_dump(doc2, 1);
  CHECK(strcmp(t1, t2) == 0);
  free(t1);
  free(t2);
  CHECK_INT(through_text(doc2, &b2, NULL), PASCAL_OK);
  CHECK(strcmp(b1.content_hash, b2.content_hash) == 0);
  CHECK(strncmp(b1.content_hash, "sha256:", 7) == 0 && strlen(b1.content_hash) == 71);

  /* a tampered model (hash still right) is caught by check_model */
  json_t *doc3 = json_deep_copy(doc1);
  json_t *c0 = json_array_get(json_object_get(json_object_get(doc3, "model"), "curves"), 0);
  json_array_set_new(json_object_get(c0, "y"), 0, json_real(42.0));
  pascal_codec_bundle b3;
  pascal_error err;
  pascal_codec_bundle_init(&b3);
  CHECK_INT(through_text(doc3, &b3, NULL), PASCAL_OK);
  CHECK_INT(pascal_codec_bundle_check_model(&b3, m1, &err), PASCAL_EFORMAT);
  CHECK(strcmp(err.field, "model") == 0);
  pascal_codec_bundle_free(&b3);
  json_decref(doc3);

  pascal_model_free(m0);
  pascal_model_free(m1);
  pascal_codec_bundle_free(&b1);
  pascal_codec_bundle_free(&b2);
  json_decref(doc1);
  json_decref(doc2);
  json_decref(prov);
  pascal_calibration_free(&cal);
}

/* The time fit travels under model.time and round-trips bit for bit; a
 * bundle frozen before it existed (no model.time) is still accepted, its
 * time derived from the hashed kernel times; an edited time is refused. */
static void test_frozen_time(void)
{
  pascal_calibration cal;
  pascal_model *m0 = NULL, *m1 = NULL;
  json_t *prov = provenance(), *doc = NULL;
  pascal_codec_bundle b;
  pascal_error err;
  make_scan(&cal);
  for (size_t i = 0; i < cal.n_scan_runs; i++) {
    pascal_scan_run *r = &cal.scan_runs[i];
    r->has_kernel_ns = true;
    r->kernel_ns = 2e4 + 1.7 * r->W * r->N * (1 + r->key.m) + awkward[i % 7] * 1e-300;
  }
  CHECK_INT(pascal_model_fit(&cal, &m0, NULL), PASCAL_OK);
  CHECK(pascal_model_time_calibrated(m0));
  CHECK_INT(pascal_codec_bundle_encode(&cal, prov, m0, NULL, &doc, NULL), PASCAL_OK);
  json_t *t = json_object_get(json_object_get(doc, "model"), "time");
  CHECK_INT(json_array_size(json_object_get(t, "cost_s")), pascal_model_curve_count(m0));
  CHECK_INT(json_array_size(json_object_get(t, "fixed_s")), pascal_model_curve_count(m0));
  pascal_codec_bundle_init(&b);
  CHECK_INT(through_text(doc, &b, NULL), PASCAL_OK);
  CHECK_INT(pascal_model_fit(&b.cal, &m1, NULL), PASCAL_OK);
  CHECK_INT(pascal_codec_bundle_check_model(&b, m1, NULL), PASCAL_OK);
  for (size_t i = 0; i < pascal_model_curve_count(m0); i++) {
    double c0, f0, c1, f1;
    CHECK_INT(pascal_model_time_scan_ref(m0, i, &c0, &f0, NULL), PASCAL_OK);
    CHECK_INT(pascal_model_time_scan_ref(m1, i, &c1, &f1, NULL), PASCAL_OK);
    CHECK(c0 == c1 && f0 == f1);
    CHECK(c0 == json_real_value(json_array_get(json_object_get(t, "cost_s"), i)));
  }
  pascal_codec_bundle_free(&b);
  /* frozen before the time fit: accepted */
  json_t *old = json_deep_copy(doc);
  json_object_del(json_object_get(old, "model"), "time");
  pascal_codec_bundle_init(&b);
  CHECK_INT(through_text(old, &b, NULL), PASCAL_OK);
  CHECK_INT(pascal_codec_bundle_check_model(&b, m1, NULL), PASCAL_OK);
  pascal_codec_bundle_free(&b);
  json_decref(old);
  /* an edited time: refused (the hash covers the runs, the check the fit) */
  json_t *edited = json_deep_copy(doc);
  json_array_set_new(
      json_object_get(json_object_get(json_object_get(edited, "model"), "time"), "cost_s"), 0,
      json_real(1e-6));
  pascal_codec_bundle_init(&b);
  CHECK_INT(through_text(edited, &b, NULL), PASCAL_OK);
  CHECK_INT(pascal_codec_bundle_check_model(&b, m1, &err), PASCAL_EFORMAT);
  CHECK(strcmp(err.field, "model") == 0);
  pascal_codec_bundle_free(&b);
  json_decref(edited);
  pascal_model_free(m0);
  pascal_model_free(m1);
  json_decref(doc);
  json_decref(prov);
  pascal_calibration_free(&cal);
}

static void test_hash_scope(void)
{
  pascal_calibration cal;
  char h1[PASCAL_CODEC_HASH_LEN + 1], h2[PASCAL_CODEC_HASH_LEN + 1];
  make_scan(&cal);
  CHECK_INT(pascal_codec_bundle_hash(&cal, h1, NULL), PASCAL_OK);
  CHECK_INT(pascal_codec_bundle_hash(&cal, h2, NULL), PASCAL_OK);
  CHECK(strcmp(h1, h2) == 0);                                                /* deterministic */
  cal.scan_runs[3].fill_bytes = nextafter(cal.scan_runs[3].fill_bytes, 0.0); /* one ulp */
  CHECK_INT(pascal_codec_bundle_hash(&cal, h2, NULL), PASCAL_OK);
  CHECK(strcmp(h1, h2) != 0);
  cal.scan_runs[3].fill_bytes = nextafter(cal.scan_runs[3].fill_bytes, INFINITY);
  snprintf(cal.device.arch, sizeof cal.device.arch, "sm_100");
  CHECK_INT(pascal_codec_bundle_hash(&cal, h2, NULL), PASCAL_OK);
  CHECK(strcmp(h1, h2) != 0);
  pascal_calibration_free(&cal);
}

/* A held-out panel: key (1, tma, 2, 3) at N = 3072, W = 4, two repeats. It
 * round-trips bit for bit, changes the content hash (a bundle without one
 * keeps its hash), is scored in the frozen report and never fitted. */
static void test_heldout_round_trip(void)
{
  pascal_calibration cal;
  pascal_codec_bundle b;
  pascal_model *m0 = NULL, *m_plain = NULL;
  pascal_loko_report rep;
  json_t *prov = provenance(), *doc = NULL, *doc2 = NULL;
  char h0[PASCAL_CODEC_HASH_LEN + 1], h1[PASCAL_CODEC_HASH_LEN + 1];
  make_scan(&cal);
  CHECK_INT(pascal_codec_bundle_hash(&cal, h0, NULL), PASCAL_OK);
  CHECK_INT(pascal_model_fit(&cal, &m_plain, NULL), PASCAL_OK);
  for (uint32_t r = 0; r < 2; r++) {
    pascal_scan_run run = {.key = {1, PASCAL_PATH_TMA, 2, 3},
                           .N = 3072,
                           .W = 4,
                           .fill_bytes = 1.3 * 16384.0 * 4 * 3072 + awkward[r + 1],
                           .has_repeat = true,
                           .repeat = r};
    CHECK_INT(pascal_calibration_append_heldout_scan(&cal, &run, NULL), PASCAL_OK);
  }
  CHECK_INT(pascal_codec_bundle_hash(&cal, h1, NULL), PASCAL_OK);
  CHECK(strcmp(h0, h1) != 0);
  pascal_codec_bundle_init(&b);
  CHECK_INT(pascal_model_fit(&cal, &m0, NULL), PASCAL_OK);
  CHECK_INT(pascal_loko_run(&cal, &rep, NULL), PASCAL_OK);
  CHECK_INT(pascal_codec_bundle_encode(&cal, prov, m0, &rep, &doc, NULL), PASCAL_OK);
  pascal_loko_report_free(&rep);
  CHECK_INT(json_array_size(json_object_get(doc, "heldout")), 2);
  json_t *report = json_object_get(doc, "report");
  CHECK_INT(json_integer_value(json_object_get(json_object_get(report, "heldout"), "n_runs")), 2);
  json_t *row = json_array_get(json_object_get(json_object_get(report, "table"), "rows"), 0);
  CHECK(strcmp(json_string_value(json_object_get(row, "validation")), "heldout") == 0);
  CHECK_INT(json_integer_value(json_object_get(row, "n_floor_runs")), 2);
  CHECK(strcmp(json_string_value(json_object_get(doc, "content_hash")), h1) == 0);

  CHECK_INT(through_text(doc, &b, NULL), PASCAL_OK);
  CHECK(b.frozen && strcmp(b.content_hash, h1) == 0);
  CHECK(same_scan_runs(&cal, &b.cal));
  CHECK_INT(pascal_calibration_run_count(&b.cal), pascal_calibration_run_count(&cal));
  pascal_model *m1 = NULL;
  CHECK_INT(pascal_model_fit(&b.cal, &m1, NULL), PASCAL_OK);
  CHECK_INT(pascal_codec_bundle_check_model(&b, m1, NULL), PASCAL_OK);
  CHECK_INT(pascal_codec_bundle_check_model(&b, m_plain, NULL), PASCAL_OK); /* never fitted */
  CHECK_INT(pascal_loko_run(&b.cal, &rep, NULL), PASCAL_OK);
  CHECK_INT(pascal_codec_bundle_encode(&b.cal, b.provenance, m1, &rep, &doc2, NULL), PASCAL_OK);
  pascal_loko_report_free(&rep);
  CHECK(json_equal(doc, doc2));
  pascal_codec_bundle_free(&b);

  /* an edited panel run breaks the hash; bad panel runs are named */
  json_t *bad = json_deep_copy(doc);
  json_object_set_new(json_array_get(json_object_get(bad, "heldout"), 1), "fill_bytes",
                      json_real(1e9));
  pascal_error err;
  CHECK_INT(through_text(bad, &b, &err), PASCAL_EFORMAT);
  CHECK(strcmp(err.field, "content_hash") == 0);
  json_object_set_new(json_array_get(json_object_get(bad, "heldout"), 1), "fill_bytes",
                      json_real(-1));
  CHECK_INT(through_text(bad, &b, &err), PASCAL_EINVAL);
  CHECK(strcmp(err.field, "heldout[1].fill_bytes") == 0);
  json_object_set_new(bad, "heldout", json_string("none"));
  CHECK_INT(through_text(bad, &b, &err), PASCAL_EFORMAT);
  CHECK(strcmp(err.field, "heldout") == 0);
  json_decref(bad);

  pascal_model_free(m0);
  pascal_model_free(m1);
  pascal_model_free(m_plain);
  json_decref(doc);
  json_decref(doc2);
  json_decref(prov);
  pascal_calibration_free(&cal);
}

/* ---- malformed bundles ---------------------------------------------------- */

static json_t *base_doc(void)
{
  pascal_calibration cal;
  json_t *prov = provenance(), *doc = NULL;
  make_scan(&cal);
  CHECK_INT(pascal_codec_bundle_encode(&cal, prov, NULL, NULL, &doc, NULL), PASCAL_OK);
  json_decref(prov);
  pascal_calibration_free(&cal);
  return doc;
}

static json_t *run(json_t *doc, size_t i)
{
  return json_array_get(json_object_get(doc, "measurements"), i);
}

static void expect_bad(json_t *doc, pascal_status status, const char *field)
{
  pascal_codec_bundle b;
  pascal_error err;
  pascal_codec_bundle_init(&b);
  pascal_error_clear(&err);
  pascal_status st = through_text(doc, &b, &err);
  CHECK_INT(st, status);
  if (strcmp(err.field, field) != 0)
    fprintf(stderr, "  field '%s' (%s), wanted '%s'\n", err.field, err.message, field);
  CHECK(strcmp(err.field, field) == 0);
  CHECK(err.message[0] && !strchr(err.message, '\n'));
  pascal_codec_bundle_free(&b);
  json_decref(doc);
}

/* One edit of a valid bundle: in object `obj` ("" = the root, "device",
 * "provenance", or NULL for measurements[run]) set `key` to the JSON text
 * `value`, or delete it when value is NULL. */
typedef struct bundle_edit {
  const char *obj;
  int run;
  const char *key;
  const char *value;
  pascal_status status;
  const char *field;
} bundle_edit;

static void apply_edit(json_t *doc, const bundle_edit *e)
{
  json_t *target = !e->obj   ? run(doc, (size_t)e->run)
                   : *e->obj ? json_object_get(doc, e->obj)
                             : doc;
  if (!e->value) {
    CHECK_INT(json_object_del(target, e->key), 0);
    return;
  }
  json_t *v = json_loads(e->value, JSON_DECODE_ANY, NULL);
  CHECK(v != NULL);
  CHECK_INT(json_object_set_new(target, e->key, v), 0);
}

static const bundle_edit scan_edits[] = {
    {"", 0, "format", "\"pascal-calibration/2\"", PASCAL_EFORMAT, "format"},
    {"", 0, "device", NULL, PASCAL_EMISSING, "device"},
    {"device", 0, "sm_count", "\"48\"", PASCAL_EFORMAT, "device.sm_count"},
    {"device", 0, "sm_count", "0", PASCAL_EINVAL, "device.sm_count"},
    {"device", 0, "block_bytes", "8589934592", PASCAL_EINVAL, "device.block_bytes"},
    {"device", 0, "name", "\"\"", PASCAL_EINVAL, "device.name"},
    {"device", 0, "arch", NULL, PASCAL_EMISSING, "device.arch"},
    {"", 0, "workload", "\"conv\"", PASCAL_EINVAL, "workload"},
    {"", 0, "class_rule", NULL, PASCAL_EMISSING, "class_rule"},
    {"", 0, "class_rule", "\"mod8\"", PASCAL_EINVAL, "class_rule"},
    {"", 0, "provenance", NULL, PASCAL_EMISSING, "provenance"},
    {"provenance", 0, "source", "\"gpu\"", PASCAL_EINVAL, "provenance.source"},
    {"", 0, "gemm", "{}", PASCAL_EFORMAT, "gemm"},
    {"", 0, "measurements", NULL, PASCAL_EMISSING, "measurements"},
    {"", 0, "measurements", "{}", PASCAL_EFORMAT, "measurements"},
    {NULL, 12, "fill_bytes", NULL, PASCAL_EMISSING, "measurements[12].fill_bytes"},
    {NULL, 12, "fill_bytes", "-5.0", PASCAL_EINVAL, "measurements[12].fill_bytes"},
    {NULL, 12, "fill_bytes", "0", PASCAL_EINVAL, "measurements[12].fill_bytes"},
    {NULL, 12, "fill_bytes", "\"1e9\"", PASCAL_EFORMAT, "measurements[12].fill_bytes"},
    {NULL, 3, "N", "0", PASCAL_EINVAL, "measurements[3].N"},
    {NULL, 3, "W", "8589934592", PASCAL_EINVAL, "measurements[3].W"},
    {NULL, 3, "W", "4.0", PASCAL_EFORMAT, "measurements[3].W"},
    {NULL, 3, "path", "\"dma\"", PASCAL_EINVAL, "measurements[3].path"},
    {NULL, 3, "o", "0", PASCAL_EINVAL, "measurements[3].o"},
    {NULL, 13, "d", "2", PASCAL_EINVAL, "measurements[13].d"}, /* 12..14: sync family */
    {NULL, 5, "kernel_ns", "-1.0", PASCAL_EINVAL, "measurements[5].kernel_ns"},
    {NULL, 5, "repeat", "-1", PASCAL_EINVAL, "measurements[5].repeat"},
};

static void test_malformed_scan(void)
{
  json_t *d;
  for (size_t i = 0; i < sizeof scan_edits / sizeof *scan_edits; i++) {
    d = base_doc();
    apply_edit(d, &scan_edits[i]);
    expect_bad(d, scan_edits[i].status, scan_edits[i].field);
  }
  d = base_doc();
  json_array_set_new(json_object_get(d, "measurements"), 12, json_integer(5));
  expect_bad(d, PASCAL_EFORMAT, "measurements[12]");
  d = base_doc(); /* duplicate run: the same configuration and repeat */
  json_array_set(json_object_get(d, "measurements"), 7, run(d, 6));
  expect_bad(d, PASCAL_EINVAL, "measurements[7]");

  /* extra keys are allowed, and a second repeat is not a duplicate */
  d = base_doc();
  CHECK_INT(json_object_set_new(d, "comment", json_string("measured on a quiet machine")), 0);
  CHECK_INT(json_object_set_new(run(d, 2), "sm_clock_mhz", json_integer(1755)), 0);
  json_t *again = json_deep_copy(run(d, 0));
  CHECK_INT(json_object_set_new(again, "repeat", json_integer(1)), 0);
  CHECK_INT(json_array_append_new(json_object_get(d, "measurements"), again), 0);
  pascal_codec_bundle b;
  pascal_codec_bundle_init(&b);
  CHECK_INT(through_text(d, &b, NULL), PASCAL_OK);
  CHECK_INT(b.cal.n_scan_runs, 31);
  pascal_codec_bundle_free(&b);
  json_decref(d);

  /* duplicate JSON keys never reach the decoder */
  const char *dup = "{\"format\":\"pascal-calibration/1\",\"format\":\"pascal-calibration/1\"}";
  json_t *x = NULL;
  pascal_error err;
  CHECK_INT(pascal_codec_parse(dup, strlen(dup), &x, &err), PASCAL_EFORMAT);
  CHECK(strcmp(err.field, "document") == 0);
}

static void test_malformed_frozen(void)
{
  pascal_calibration cal;
  pascal_model *m = NULL;
  json_t *prov = provenance(), *frozen = NULL;
  make_scan(&cal);
  CHECK_INT(pascal_model_fit(&cal, &m, NULL), PASCAL_OK);
  CHECK_INT(pascal_codec_bundle_encode(&cal, prov, m, NULL, &frozen, NULL), PASCAL_OK);
  CHECK(json_is_null(json_object_get(frozen, "report")));
  json_t *d;
  d = json_deep_copy(frozen); /* a measurement edited after freezing */
  CHECK_INT(json_object_set_new(run(d, 4), "fill_bytes", json_real(1e9)), 0);
  expect_bad(d, PASCAL_EFORMAT, "content_hash");
  d = json_deep_copy(frozen);
  CHECK_INT(json_object_set_new(d, "content_hash", json_string("sha256:00")), 0);
  expect_bad(d, PASCAL_EFORMAT, "content_hash");
  d = json_deep_copy(frozen); /* the last hex digit of the hash changed: all 64 count */
  {
    char h[80];
    snprintf(h, sizeof h, "%s", json_string_value(json_object_get(d, "content_hash")));
    size_t last = strlen(h) - 1;
    h[last] = h[last] == '0' ? '1' : '0';
    CHECK_INT(json_object_set_new(d, "content_hash", json_string(h)), 0);
  }
  expect_bad(d, PASCAL_EFORMAT, "content_hash");
  d = json_deep_copy(frozen);
  CHECK_INT(json_object_set_new(d, "content_hash", json_integer(7)), 0);
  expect_bad(d, PASCAL_EFORMAT, "content_hash");
  d = json_deep_copy(frozen);
  CHECK_INT(json_object_del(d, "content_hash"), 0);
  expect_bad(d, PASCAL_EFORMAT, "content_hash");
  d = json_deep_copy(frozen);
  CHECK_INT(json_object_del(d, "model"), 0);
  expect_bad(d, PASCAL_EMISSING, "model");
  d = json_deep_copy(frozen);
  CHECK_INT(json_object_set_new(d, "report", json_integer(3)), 0);
  expect_bad(d, PASCAL_EFORMAT, "report");
  /* provenance is not hashed: changing it keeps the bundle valid */
  d = json_deep_copy(frozen);
  CHECK_INT(
      json_object_set_new(json_object_get(d, "provenance"), "note", json_string("re-exported")), 0);
  pascal_codec_bundle b;
  pascal_codec_bundle_init(&b);
  CHECK_INT(through_text(d, &b, NULL), PASCAL_OK);
  CHECK(b.frozen);
  CHECK_INT(pascal_codec_bundle_check_model(&b, m, NULL), PASCAL_OK);
  pascal_codec_bundle_free(&b);
  json_decref(d);
  json_decref(frozen);
  json_decref(prov);
  pascal_model_free(m);
  pascal_calibration_free(&cal);
}

static void test_gemm_bundle(void)
{
  pascal_calibration cal;
  test_device_calibration(&cal, PASCAL_WORKLOAD_GEMM, "gemm-gpu");
  snprintf(cal.device.arch, sizeof cal.device.arch, "sm_90");
  cal.gemm.resident_ctas = 48;
  const uint32_t grid[] = {256, 512, 1024};
  for (size_t i = 0; i < 3; i++)
    for (size_t j = 0; j < 3; j++)
      for (uint32_t kg = 1024; kg <= 4096; kg *= 2) {
        pascal_gemm_run r;
        memset(&r, 0, sizeof r);
        r.shape = (pascal_gemm_shape){grid[i], grid[j], kg};
        r.fill_bytes = 16384.0 * (grid[i] / 128 + grid[j] / 128) * (kg / 64) * (1.1 + 0.01 * i);
        CHECK_INT(pascal_calibration_append_gemm(&cal, &r, NULL), PASCAL_OK);
      }
  json_t *prov = json_object(), *doc = NULL;
  CHECK_INT(json_object_set_new(prov, "source", json_string("cuda")), 0);
  pascal_model *m = NULL;
  CHECK_INT(pascal_model_fit(&cal, &m, NULL), PASCAL_OK);
  CHECK_INT(pascal_codec_bundle_encode(&cal, prov, m, NULL, &doc, NULL), PASCAL_OK);
  pascal_codec_bundle b;
  pascal_codec_bundle_init(&b);
  CHECK_INT(through_text(doc, &b, NULL), PASCAL_OK);
  CHECK(b.frozen && b.cal.workload == PASCAL_WORKLOAD_GEMM && b.cal.n_gemm_runs == 27);
  CHECK(b.cal.gemm.tile_m == 128 && b.cal.gemm.tile_k == 64 && b.cal.gemm.resident_ctas == 48);
  CHECK_INT(pascal_codec_bundle_check_model(&b, m, NULL), PASCAL_OK);
  for (size_t i = 0; i < 27; i++)
    CHECK(memcmp(&b.cal.gemm_runs[i].fill_bytes, &cal.gemm_runs[i].fill_bytes, 8) == 0);
  pascal_codec_bundle_free(&b);

  json_t *d = json_deep_copy(doc);
  CHECK_INT(json_object_del(d, "gemm"), 0);
  expect_bad(d, PASCAL_EMISSING, "gemm");
  d = json_deep_copy(doc);
  CHECK_INT(json_object_del(json_object_get(d, "gemm"), "tile_k"), 0);
  expect_bad(d, PASCAL_EMISSING, "gemm.tile_k");
  d = json_deep_copy(doc);
  CHECK_INT(json_object_set_new(json_object_get(d, "gemm"), "resident_ctas", json_integer(0)), 0);
  expect_bad(d, PASCAL_EINVAL, "gemm.resident_ctas");
  d = json_deep_copy(doc);
  CHECK_INT(json_object_set_new(run(d, 2), "Kg", json_integer(1000)), 0);
  expect_bad(d, PASCAL_EINVAL, "measurements[2].Kg");
  d = json_deep_copy(doc);
  CHECK_INT(json_object_del(run(d, 2), "Mg"), 0);
  expect_bad(d, PASCAL_EMISSING, "measurements[2].Mg");
  json_decref(doc);
  json_decref(prov);
  pascal_model_free(m);
  pascal_calibration_free(&cal);
}

/* A plain GEMM calibration of `g`'s configuration over whole tiles of it. */
static void make_gemm(pascal_calibration *cal, const pascal_gemm_params *g)
{
  test_device_calibration(cal, PASCAL_WORKLOAD_GEMM, "gemm-gpu");
  snprintf(cal->device.arch, sizeof cal->device.arch, "sm_90");
  cal->gemm = *g;
  for (uint32_t i = 1; i <= 3; i++) {
    pascal_gemm_run r;
    memset(&r, 0, sizeof r);
    r.shape = (pascal_gemm_shape){2 * i * g->tile_m, 2 * g->tile_n, 8 * i * g->tile_k};
    r.fill_bytes = 1e6 * i + 0.5;
    CHECK_INT(pascal_calibration_append_gemm(cal, &r, NULL), PASCAL_OK);
  }
}

/* The keys of the "gemm" object of cal's plain bundle, sorted, comma-joined. */
static void gemm_keys(const pascal_calibration *cal, char *buf, size_t size)
{
  json_t *prov = provenance(), *doc = NULL;
  CHECK_INT(pascal_codec_bundle_encode(cal, prov, NULL, NULL, &doc, NULL), PASCAL_OK);
  json_t *keys = json_array();
  const char *k;
  json_t *v;
  json_object_foreach(json_object_get(doc, "gemm"), k, v)
  {
    json_array_append_new(keys, json_string(k));
  }
  buf[0] = '\0';
  /* jansson keeps insertion order: sort by hand (few keys) */
  for (size_t n = json_array_size(keys); n > 0; n--) {
    size_t min = 0;
    for (size_t i = 1; i < n; i++)
      if (strcmp(json_string_value(json_array_get(keys, i)),
                 json_string_value(json_array_get(keys, min))) < 0)
        min = i;
    snprintf(buf + strlen(buf), size - strlen(buf), "%s%s", buf[0] ? "," : "",
             json_string_value(json_array_get(keys, min)));
    json_array_remove(keys, min);
  }
  json_decref(keys);
  json_decref(doc);
  json_decref(prov);
}

/* Configuration runs (bundle "configurations"): round-trip exactly, enter
 * the hash only when present (a bundle without them hashes as before), are
 * refused in a scan bundle and name the member at fault. Verified to fail:
 * with encode_config_runs writing an empty array the hashes are equal no
 * more. */
static void test_config_runs_bundle(void)
{
  pascal_calibration cal;
  pascal_gemm_params g = {
      .tile_m = 128, .tile_n = 128, .tile_k = 64, .elem_bytes = 2, .resident_ctas = 132};
  make_gemm(&cal, &g);
  char plain[PASCAL_CODEC_HASH_LEN + 1], with[PASCAL_CODEC_HASH_LEN + 1];
  CHECK_INT(pascal_codec_bundle_hash(&cal, plain, NULL), PASCAL_OK);
  pascal_gemm_config_run r;
  memset(&r, 0, sizeof r);
  r.config = (pascal_gemm_config){64, 32, 32, 1, 3, 8};
  r.run = (pascal_gemm_run){.shape = {1024, 512, 2048},
                            .fill_bytes = 3e6 + 0.25,
                            .has_kernel_ns = true,
                            .kernel_ns = 1234567.5,
                            .has_repeat = true,
                            .repeat = 1};
  CHECK_INT(pascal_calibration_append_config_run(&cal, &r, NULL), PASCAL_OK);
  CHECK_INT(pascal_codec_bundle_hash(&cal, with, NULL), PASCAL_OK);
  CHECK(strcmp(plain, with) != 0);
  json_t *prov = provenance(), *doc = NULL;
  CHECK_INT(pascal_codec_bundle_encode(&cal, prov, NULL, NULL, &doc, NULL), PASCAL_OK);
  pascal_codec_bundle b;
  pascal_codec_bundle_init(&b);
  CHECK_INT(through_text(doc, &b, NULL), PASCAL_OK);
  CHECK(b.cal.n_config_runs == 1 &&
        memcmp(&b.cal.config_runs[0].config, &r.config, sizeof r.config) == 0 &&
        b.cal.config_runs[0].run.fill_bytes == r.run.fill_bytes &&
        b.cal.config_runs[0].run.kernel_ns == r.run.kernel_ns &&
        b.cal.config_runs[0].run.repeat == 1);
  CHECK_INT(pascal_codec_bundle_hash(&b.cal, plain, NULL), PASCAL_OK);
  CHECK(strcmp(plain, with) == 0);
  pascal_codec_bundle_free(&b);
  json_t *c0 = json_array_get(json_object_get(doc, "configurations"), 0), *d;
  static const struct {
    const char *key;
    json_int_t value; /* -1: delete the key */
    const char *field;
  } bad[] = {{"tile_m", 0, "configurations[0].tile_m"},
             {"elem_bytes", 3, "configurations[0].elem_bytes"},
             {"stages", 40, "configurations[0].stages"},
             {"Kg", 1000, "configurations[0].Kg"},
             {"kernel_ns", -1, "configurations[0].kernel_ns"},
             {"group_m", -1, "configurations[0].group_m"}};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    json_t *saved = json_deep_copy(json_object_get(c0, bad[i].key));
    if (bad[i].value < 0)
      json_object_del(c0, bad[i].key);
    else
      json_object_set_new(c0, bad[i].key, json_integer(bad[i].value));
    expect_bad(json_deep_copy(doc),
               bad[i].value < 0 && strcmp(bad[i].key, "group_m") == 0 ? PASCAL_EMISSING
                                                                      : PASCAL_EINVAL,
               bad[i].field);
    json_object_set_new(c0, bad[i].key, saved);
  }
  d = base_doc(); /* a scan bundle */
  json_object_set(d, "configurations", json_object_get(doc, "configurations"));
  expect_bad(d, PASCAL_EINVAL, "configurations");
  json_decref(doc);
  json_decref(prov);
  pascal_calibration_free(&cal);
}

/* The GEMM implementation in a bundle (pascal/gemm_impl.h): absent for the
 * own kernel, so a bundle without it has the keys and hash it always had;
 * "cublaslt" with its configuration round-trips and enters the hash; a
 * configuration that cannot run is refused naming its field. Verified to
 * fail: with encode_gemm writing "impl" for the own kernel the key list and
 * the shipped hashes (test_shipped_hashes) both change. */
static void test_gemm_impl_bundle(void)
{
  pascal_calibration own, lt;
  pascal_gemm_params g;
  pascal_calibration_init(&own, PASCAL_WORKLOAD_GEMM);
  g = own.gemm;
  g.resident_ctas = 132;
  make_gemm(&own, &g);
  char keys[256], h_own[PASCAL_CODEC_HASH_LEN + 1], h_lt[PASCAL_CODEC_HASH_LEN + 1];
  gemm_keys(&own, keys, sizeof keys);
  CHECK(strcmp(keys, "elem_bytes,resident_ctas,tile_k,tile_m,tile_n") == 0);

  g.impl = PASCAL_GEMM_IMPL_CUBLASLT;
  g.tile_n = 256;
  g.stages = 4;
  g.algo = 66;
  g.cta_swizzling = 1;
  g.split_k = 1;
  make_gemm(&lt, &g);
  gemm_keys(&lt, keys, sizeof keys);
  CHECK(strcmp(keys, "algo,cta_swizzling,elem_bytes,impl,resident_ctas,split_k,stages,tile_k,"
                     "tile_m,tile_n") == 0);
  json_t *prov = provenance(), *doc = NULL;
  pascal_model *m = NULL;
  CHECK_INT(pascal_model_fit(&lt, &m, NULL), PASCAL_OK);
  CHECK_INT(pascal_codec_bundle_encode(&lt, prov, m, NULL, &doc, NULL), PASCAL_OK);
  pascal_codec_bundle b;
  pascal_codec_bundle_init(&b);
  CHECK_INT(through_text(doc, &b, NULL), PASCAL_OK);
  CHECK(memcmp(&b.cal.gemm, &lt.gemm, sizeof g) == 0);
  CHECK_INT(pascal_codec_bundle_check_model(&b, m, NULL), PASCAL_OK);
  pascal_codec_bundle_free(&b);
  /* the configuration is hashed: the same runs as the own kernel's differ,
   * and so does each field alone */
  CHECK_INT(pascal_codec_bundle_hash(&lt, h_lt, NULL), PASCAL_OK);
  const pascal_gemm_params keep = lt.gemm;
  lt.gemm = own.gemm;
  CHECK_INT(pascal_codec_bundle_hash(&lt, h_own, NULL), PASCAL_OK);
  CHECK(strcmp(h_lt, h_own) != 0);
  uint32_t *fields[] = {&lt.gemm.stages,          &lt.gemm.algo,          &lt.gemm.cta_swizzling,
                        &lt.gemm.split_k,         &lt.gemm.custom_option, &lt.gemm.inner_shape_id,
                        &lt.gemm.cluster_shape_id};
  for (size_t i = 0; i < 7; i++) {
    lt.gemm = keep;
    *fields[i] += 1;
    CHECK_INT(pascal_codec_bundle_hash(&lt, h_own, NULL), PASCAL_OK);
    CHECK(strcmp(h_lt, h_own) != 0);
  }
  lt.gemm = keep;

  /* Hopper's attributes: written only when stated (the keys above: a bundle
   * without them keeps its hash), then read back */
  pascal_calibration hop;
  g.custom_option = 1, g.inner_shape_id = 4, g.cluster_shape_id = 2;
  make_gemm(&hop, &g);
  gemm_keys(&hop, keys, sizeof keys);
  CHECK(strcmp(keys, "algo,cluster_shape_id,cta_swizzling,custom_option,elem_bytes,impl,"
                     "inner_shape_id,resident_ctas,split_k,stages,tile_k,tile_m,tile_n") == 0);
  json_t *hdoc = NULL;
  CHECK_INT(pascal_codec_bundle_encode(&hop, prov, m, NULL, &hdoc, NULL), PASCAL_OK);
  pascal_codec_bundle_init(&b);
  CHECK_INT(through_text(hdoc, &b, NULL), PASCAL_OK);
  CHECK(memcmp(&b.cal.gemm, &hop.gemm, sizeof g) == 0);
  pascal_codec_bundle_free(&b);
  json_t *d = json_deep_copy(hdoc);
  CHECK_INT(json_object_set_new(json_object_get(d, "gemm"), "inner_shape_id", json_integer(65536)),
            0);
  expect_bad(d, PASCAL_EINVAL, "gemm.inner_shape_id");
  json_decref(hdoc);
  pascal_calibration_free(&hop);

  d = json_deep_copy(doc);
  CHECK_INT(json_object_set_new(json_object_get(d, "gemm"), "impl", json_string("cublas")), 0);
  expect_bad(d, PASCAL_EINVAL, "gemm.impl");
  d = json_deep_copy(doc);
  CHECK_INT(json_object_del(json_object_get(d, "gemm"), "split_k"), 0);
  expect_bad(d, PASCAL_EMISSING, "gemm.split_k");
  d = json_deep_copy(doc);
  CHECK_INT(json_object_set_new(json_object_get(d, "gemm"), "split_k", json_integer(2)), 0);
  expect_bad(d, PASCAL_EINVAL, "gemm.split_k"); /* the model has no split-K geometry */
  d = json_deep_copy(doc);
  CHECK_INT(json_object_set_new(json_object_get(d, "gemm"), "cta_swizzling", json_integer(2)), 0);
  expect_bad(d, PASCAL_EINVAL, "gemm.cta_swizzling");
  d = json_deep_copy(doc);
  CHECK_INT(json_object_set_new(json_object_get(d, "gemm"), "tile_n", json_integer(100)), 0);
  expect_bad(d, PASCAL_EINVAL, "gemm.tile_m"); /* 128x100 is no cuBLASLt tile */
  d = json_deep_copy(doc);
  CHECK_INT(json_object_set_new(json_object_get(d, "gemm"), "stages", json_integer(9)), 0);
  expect_bad(d, PASCAL_EINVAL, "gemm.stages"); /* no 64x9 */
  d = json_deep_copy(doc);
  CHECK_INT(json_object_del(json_object_get(d, "gemm"), "impl"), 0);
  expect_bad(d, PASCAL_EINVAL, "gemm.algo"); /* the own kernel states no algo */
  json_decref(doc);
  json_decref(prov);
  pascal_model_free(m);
  pascal_calibration_free(&own);
  pascal_calibration_free(&lt);
}

/* The shipped GEMM bundles: still read (their content_hash is checked
 * against the content this build writes), as the own kernel, with the gemm
 * keys they always had. */
static void test_shipped_hashes(void)
{
  static const char *const names[] = {"h100-tiled-gemm.json", "sim-gb10-tiled-gemm.json",
                                      "sim-thor-tiled-gemm.json"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    char path[1024], hash[PASCAL_CODEC_HASH_LEN + 1], keys[256];
    snprintf(path, sizeof path, "%s/%s", PASCAL_CALIBRATIONS_DIR, names[i]);
    json_t *doc = NULL;
    pascal_error err;
    pascal_codec_bundle b;
    pascal_codec_bundle_init(&b);
    CHECK_INT(pascal_codec_load_file(path, &doc, &err), PASCAL_OK);
    CHECK_INT(pascal_codec_bundle_decode(doc, &b, &err), PASCAL_OK);
    CHECK(b.frozen && b.cal.gemm.impl == PASCAL_GEMM_IMPL_OWN && b.cal.gemm.stages == 0);
    CHECK_INT(pascal_codec_bundle_hash(&b.cal, hash, NULL), PASCAL_OK);
    CHECK(strcmp(hash, json_string_value(json_object_get(doc, "content_hash"))) == 0);
    gemm_keys(&b.cal, keys, sizeof keys);
    CHECK(strcmp(keys, "elem_bytes,resident_ctas,tile_k,tile_m,tile_n") == 0);
    pascal_codec_bundle_free(&b);
    json_decref(doc);
  }
}

/* Predictions never carry NaN/Inf; the core's NaN "not used" becomes null. */
static void test_no_nan(void)
{
  pascal_answer a;
  memset(&a, 0, sizeof a);
  pascal_scan_prediction *pp = &a.scan, p;
  pascal_scan_key key = {1, PASCAL_PATH_TMA, 2, 3};
  pascal_query q = pascal_query_scan(&key, 4096, 32.0);
  memset(&p, 0, sizeof p);
  p.K = 2.0;
  p.rho = 2.0 / 48;
  p.fill_bytes = 1e9;
  p.M = 48;
  p.why.n_sizes = 1;
  p.why.size[0].n_depths = 1;
  p.why.size[0].depth[0].p = NAN;
  p.why.size[0].depth[0].a_lin = NAN;
  json_t *doc = NULL;
  *pp = p;
  CHECK_INT(pascal_codec_answer_encode(&q, &a, NULL, &doc, NULL), PASCAL_OK);
  char *text = pascal_codec_dump(doc, 0);
  CHECK(strstr(text, "NaN") == NULL && strstr(text, "nan") == NULL);
  CHECK(strstr(text, "\"p\":null") != NULL);
  free(text);
  json_decref(doc);
  pascal_error err;
  pp->K = INFINITY;
  CHECK_INT(pascal_codec_answer_encode(&q, &a, NULL, &doc, &err), PASCAL_ERANGE);
  CHECK(strcmp(err.field, "K") == 0);
  pp->K = NAN;
  CHECK_INT(pascal_codec_answer_encode(&q, &a, NULL, &doc, &err), PASCAL_ERANGE);
  pp->K = 2.0;
  pp->why.a = INFINITY;
  CHECK_INT(pascal_codec_answer_encode(&q, &a, NULL, &doc, &err), PASCAL_ERANGE);
  CHECK(strcmp(err.field, "a") == 0);
  pp->why.a = 0;
  a.timed = 1;
  a.time.time_s = NAN;
  CHECK_INT(pascal_codec_answer_encode(&q, &a, NULL, &doc, &err), PASCAL_ERANGE);
  CHECK(strcmp(err.field, "time_s") == 0);
}

/* Device peaks: optional; absent, the device object and the hash are as
 * before peaks existed; present, they round-trip bit for bit and are hashed;
 * a partial or out-of-range set is refused naming the key. */
static void test_device_peaks(void)
{
  pascal_calibration cal;
  pascal_codec_bundle b;
  char h0[PASCAL_CODEC_HASH_LEN + 1], h1[PASCAL_CODEC_HASH_LEN + 1];
  json_t *prov = provenance(), *doc = NULL;
  make_scan(&cal);
  CHECK_INT(pascal_codec_bundle_hash(&cal, h0, NULL), PASCAL_OK);
  CHECK_INT(pascal_codec_bundle_encode(&cal, prov, NULL, NULL, &doc, NULL), PASCAL_OK);
  CHECK(json_object_get(json_object_get(doc, "device"), "peaks") == NULL);
  CHECK_INT(json_object_size(json_object_get(doc, "device")), 5);
  json_decref(doc);
  const pascal_peaks p = {273e9, 1e12 / 3.0, 1.7e14, 1.4e9, 2.5e-7};
  cal.device.has_peaks = 1;
  cal.device.peaks = p;
  CHECK_INT(pascal_codec_bundle_hash(&cal, h1, NULL), PASCAL_OK);
  CHECK(strcmp(h0, h1) != 0);
  CHECK_INT(pascal_codec_bundle_encode(&cal, prov, NULL, NULL, &doc, NULL), PASCAL_OK);
  pascal_codec_bundle_init(&b);
  CHECK_INT(through_text(doc, &b, NULL), PASCAL_OK);
  CHECK(b.cal.device.has_peaks);
  CHECK(memcmp(&b.cal.device.peaks, &p, sizeof p) == 0);
  pascal_codec_bundle_free(&b);
  json_decref(doc);
  cal.device.peaks.launch_s = 0; /* no launch overhead measured is a value too */
  CHECK_INT(pascal_codec_bundle_hash(&cal, h0, NULL), PASCAL_OK);
  CHECK(strcmp(h0, h1) != 0);

  static const struct {
    const char *key;
    double v;
    const char *field;
  } bad[] = {
      {"dram_bytes_per_s", 0, "device.peaks.dram_bytes_per_s"},
      {"l2_bytes_per_s", -1, "device.peaks.l2_bytes_per_s"},
      {"launch_s", -1e-6, "device.peaks.launch_s"},
      {"sm_clock_hz", NAN, "device.peaks.sm_clock_hz"}, /* deleted below */
  };
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    CHECK_INT(pascal_codec_bundle_encode(&cal, prov, NULL, NULL, &doc, NULL), PASCAL_OK);
    json_t *peaks = json_object_get(json_object_get(doc, "device"), "peaks");
    if (isnan(bad[i].v)) {
      json_object_del(peaks, bad[i].key);
      expect_bad(doc, PASCAL_EMISSING, bad[i].field); /* a required member absent */
    } else {
      json_object_set_new(peaks, bad[i].key, json_real(bad[i].v));
      expect_bad(doc, PASCAL_EINVAL, bad[i].field);
    }
  }
  CHECK_INT(pascal_codec_bundle_encode(&cal, prov, NULL, NULL, &doc, NULL), PASCAL_OK);
  json_object_set_new(json_object_get(doc, "device"), "peaks", json_integer(1));
  expect_bad(doc, PASCAL_EFORMAT, "device.peaks");
  json_decref(prov);
  pascal_calibration_free(&cal);
}

/* Probe data (capacity scan, static table): optional; absent, the hash is as
 * before they existed; present, each round-trips bit for bit and is hashed;
 * a broken one is refused naming the element. */
static void test_device_probe_data(void)
{
  pascal_calibration cal;
  pascal_codec_bundle b;
  char h0[PASCAL_CODEC_HASH_LEN + 1], h1[PASCAL_CODEC_HASH_LEN + 1], h2[PASCAL_CODEC_HASH_LEN + 1];
  json_t *prov = provenance(), *doc = NULL;
  make_scan(&cal);
  CHECK_INT(pascal_codec_bundle_hash(&cal, h0, NULL), PASCAL_OK);
  pascal_capacity_probe p = {
      .waves = 4, .n = 3, .size_blocks = {100, 200, 300}, .fill_ratio = {1.0, 1.0 / 3.0, 3.9}};
  cal.device.has_capacity_probe = 1;
  cal.device.capacity_probe = p;
  CHECK_INT(pascal_codec_bundle_hash(&cal, h1, NULL), PASCAL_OK);
  CHECK(strcmp(h0, h1) != 0);
  pascal_static_table t = {
      .M = 4,
      .N = 64,
      .H = 10,
      .n_rows = 2,
      .rows = {{4096, 16, 1, 0.1, 0.2, 0.3, 0.4}, {8192, 8, 4, 2.0 / 3.0, 0.0, 1.5, 4.0}}};
  cal.device.has_static_table = 1;
  cal.device.static_table = t;
  CHECK_INT(pascal_codec_bundle_hash(&cal, h2, NULL), PASCAL_OK);
  CHECK(strcmp(h2, h1) != 0 && strcmp(h2, h0) != 0);
  CHECK_INT(pascal_codec_bundle_encode(&cal, prov, NULL, NULL, &doc, NULL), PASCAL_OK);
  pascal_codec_bundle_init(&b);
  CHECK_INT(through_text(doc, &b, NULL), PASCAL_OK);
  CHECK(b.cal.device.has_capacity_probe && b.cal.device.has_static_table);
  CHECK(memcmp(&b.cal.device.capacity_probe, &p, sizeof p) == 0);
  const pascal_static_table *g = &b.cal.device.static_table;
  CHECK(g->M == t.M && g->N == t.N && g->H == t.H && g->n_rows == t.n_rows);
  for (size_t i = 0; i < t.n_rows; i++) /* field by field: rows have padding */
    CHECK(g->rows[i].block_bytes == t.rows[i].block_bytes && g->rows[i].C == t.rows[i].C &&
          g->rows[i].clusters == t.rows[i].clusters && g->rows[i].K == t.rows[i].K &&
          g->rows[i].gap_law == t.rows[i].gap_law && g->rows[i].sdcm == t.rows[i].sdcm &&
          g->rows[i].che == t.rows[i].che);
  pascal_codec_bundle_free(&b);
  json_t *dev = json_object_get(doc, "device");
  json_t *ratios = json_object_get(json_object_get(dev, "capacity_probe"), "fill_ratio");
  json_array_set_new(ratios, 1, json_real(-0.5));
  expect_bad(doc, PASCAL_EINVAL, "device.capacity_probe.fill_ratio[1]");
  CHECK_INT(pascal_codec_bundle_encode(&cal, prov, NULL, NULL, &doc, NULL), PASCAL_OK);
  dev = json_object_get(doc, "device");
  json_t *row =
      json_array_get(json_object_get(json_object_get(dev, "static_experiment"), "rows"), 1);
  json_object_set_new(row, "clusters", json_integer(5)); /* more than M */
  expect_bad(doc, PASCAL_EINVAL, "device.static_experiment.rows[1].clusters");
  CHECK_INT(pascal_codec_bundle_encode(&cal, prov, NULL, NULL, &doc, NULL), PASCAL_OK);
  dev = json_object_get(doc, "device");
  json_object_set_new(json_object_get(dev, "capacity_probe"), "extra", json_integer(1));
  expect_bad(doc, PASCAL_EFORMAT, "device.capacity_probe.extra");
  json_decref(prov);
  pascal_calibration_free(&cal);
}

int main(void)
{
  test_plain_round_trip();
  test_frozen_round_trip();
  test_frozen_time();
  test_hash_scope();
  test_device_peaks();
  test_device_probe_data();
  test_heldout_round_trip();
  test_malformed_scan();
  test_malformed_frozen();
  test_gemm_bundle();
  test_gemm_impl_bundle();
  test_config_runs_bundle();
  test_shipped_hashes();
  test_no_nan();
  return check_summary();
}
