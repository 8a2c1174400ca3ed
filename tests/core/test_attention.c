/*
 * test_attention.c - attention as a shared cyclic scan (pascal/attention.h,
 * docs/attention.md): the tiling's worked numbers, the calibration's checks
 * of an attention run, the query-adjusted K, a prediction at a reference
 * that gives back the measured fills to the byte, the resident closed form,
 * each refusal with its field, and the query's table, workload choice and
 * rules through pascal_answer_query.
 *
 * The test device: 48 SMs, C = 1280 blocks of 16 KiB (test_device.h); the
 * default tiling (64 x 64, head_dim 64, FP16) has a 16 KiB K/V step. The
 * calibration below measures depths 1 and 2 at o = 2 and depth 3 at o = 1
 * (as the sim-gb10 plan does), N in {2560, 3840} steps, W in {1, 4, 16},
 * with the K/V part of the fills K_true(N, W, d) b W N and the query tiles
 * W M q added on top.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "pascal/answer.h"
#include "pascal/attention.h"
#include "test_device.h"

#define B 16384.0 /* block = K/V step bytes          */
#define Q 8192.0  /* one 64 x 64 FP16 query tile     */

static const uint32_t SIZES[2] = {2560, 3840};
static const uint32_t HORIZONS[3] = {1, 4, 16};

static uint32_t o_at(uint32_t d)
{
  return d < 3 ? 2 : 1;
}

/* The K/V excess the synthetic runs carry (any positive law will do: the
 * test reads it back at the references only). */
static double k_true(uint32_t N, uint32_t W, uint32_t d)
{
  return 1.0 + 0.4 * d * (N / 1280.0 - 1.0) * log2(1.0 + W) / 4.0;
}

static double q_bytes(uint32_t W, uint32_t o)
{
  return (double)W * 48 * o * Q;
}

static pascal_scan_run run_at(uint32_t N, uint32_t W, uint32_t d)
{
  pascal_scan_run r = {.key = {o_at(d), PASCAL_PATH_TMA, d, 128}, .N = N, .W = W};
  r.fill_bytes = q_bytes(W, o_at(d)) + k_true(N, W, d) * B * W * N;
  return r;
}

static void attention_cal(pascal_calibration *cal)
{
  test_device_calibration(cal, PASCAL_WORKLOAD_ATTENTION, "att-test");
  for (uint32_t d = 1; d <= 3; d++)
    for (size_t n = 0; n < 2; n++)
      for (size_t w = 0; w < 3; w++) {
        pascal_scan_run r = run_at(SIZES[n], HORIZONS[w], d);
        CHECK_INT(pascal_calibration_append_scan(cal, &r, NULL), PASCAL_OK);
      }
}

/* 2 * 64 * 64 * 64 / 16^3 = 128 products per step; 8 KiB query tile; the
 * 16 KiB step; a tiling whose step is not the block, or a tile that is not
 * a multiple of 16, is refused naming its member. */
static void test_geometry(void)
{
  pascal_attention_params a = {64, 64, 64, 2};
  CHECK_INT(pascal_attention_m(&a), 128);
  CHECK(pascal_attention_q_tile_bytes(&a) == Q);
  CHECK(pascal_attention_step_bytes(&a) == B);
  CHECK_INT(pascal_attention_params_check(&a, 16384, NULL), PASCAL_OK);
  pascal_attention_params big = {128, 64, 128, 2};
  CHECK_INT(pascal_attention_m(&big), 512);
  CHECK_INT(pascal_attention_params_check(&big, 32768, NULL), PASCAL_OK);
  pascal_error err;
  pascal_attention_params half = {64, 32, 64, 2};
  CHECK_INT(pascal_attention_params_check(&half, 16384, &err), PASCAL_EINVAL);
  CHECK(strcmp(err.field, "attention.block_kv") == 0);
  pascal_attention_params odd = {40, 64, 64, 2};
  CHECK_INT(pascal_attention_params_check(&odd, 16384, &err), PASCAL_EINVAL);
  CHECK(strcmp(err.field, "attention.block_q") == 0);
  pascal_calibration cal;
  test_device_calibration(&cal, PASCAL_WORKLOAD_ATTENTION, "att-test");
  CHECK_INT(pascal_calibration_check(&cal, NULL), PASCAL_OK);
  cal.device.block_bytes = 32768;
  CHECK_INT(pascal_calibration_check(&cal, &err), PASCAL_EINVAL);
  CHECK(strcmp(err.field, "attention.block_kv") == 0);
  CHECK(strcmp(pascal_workload_name(PASCAL_WORKLOAD_ATTENTION), "attention") == 0);
  pascal_workload w;
  CHECK_INT(pascal_workload_parse("attention", "workload", &w, NULL), PASCAL_OK);
  CHECK_INT(w, PASCAL_WORKLOAD_ATTENTION);
}

/* An attention run is a tma scan of the tiling's m whose fills exceed its
 * query tiles; its K is (V - W M q) / (b W N). */
static void test_runs_and_k(void)
{
  pascal_calibration cal;
  pascal_error err;
  test_device_calibration(&cal, PASCAL_WORKLOAD_ATTENTION, "att-test");
  pascal_scan_run r = run_at(2560, 4, 2);
  /* W = 4, M = 96: Q = 4 * 96 * 8192 = 3145728 bytes */
  CHECK(pascal_attention_run_q_bytes(&cal.attention, 48, &r) == 3145728.0);
  CHECK(fabs(pascal_calibration_scan_k(&cal, &r) - k_true(2560, 4, 2)) < 1e-12);
  pascal_scan_run sync = r;
  sync.key.path = PASCAL_PATH_SYNC;
  sync.key.d = 0;
  CHECK_INT(pascal_calibration_append_scan(&cal, &sync, &err), PASCAL_EINVAL);
  CHECK(strcmp(err.field, "measurements[0].path") == 0);
  pascal_scan_run m = r;
  m.key.m = 127;
  CHECK_INT(pascal_calibration_append_scan(&cal, &m, &err), PASCAL_EINVAL);
  CHECK(strcmp(err.field, "measurements[0].m") == 0);
  pascal_scan_run low = r;
  low.fill_bytes = 3145728.0; /* the query tiles alone: no K/V traffic */
  CHECK_INT(pascal_calibration_append_heldout_scan(&cal, &low, &err), PASCAL_EINVAL);
  CHECK(strcmp(err.field, "heldout[0].fill_bytes") == 0);
  CHECK_INT(pascal_calibration_append_scan(&cal, &r, NULL), PASCAL_OK);
  /* the same run as a scan has the unadjusted K */
  pascal_calibration scan;
  test_device_calibration(&scan, PASCAL_WORKLOAD_SCAN, "scan-test");
  CHECK(fabs(pascal_calibration_scan_k(&scan, &r) -
             (k_true(2560, 4, 2) + 3145728.0 / (B * 4 * 2560))) < 1e-12);
  pascal_calibration_free(&cal);
}

static pascal_attention_shape shape_at(uint32_t N, uint32_t W, uint32_t d)
{
  /* W M CTAs of one 64-row tile: 4 heads of seq_q = 64 W M / 4 rows */
  uint32_t ctas = W * 48 * o_at(d);
  return (pascal_attention_shape){
      .seq_q = 64 * ctas / 4, .seq_kv = 64 * N, .heads = 4, .head_dim = 64, .stages = d};
}

/* At every reference the prediction is the exact rule and gives back the
 * measured fills (query tiles included) and the K of the K/V part. */
static void test_exact_at_references(const pascal_model *md)
{
  for (uint32_t d = 1; d <= 3; d++)
    for (size_t n = 0; n < 2; n++)
      for (size_t w = 0; w < 3; w++) {
        uint32_t N = SIZES[n], W = HORIZONS[w];
        pascal_attention_shape s = shape_at(N, W, d);
        pascal_attention_prediction p;
        CHECK_INT(pascal_model_predict_attention(md, &s, &p, NULL), PASCAL_OK);
        CHECK_INT(p.key.o, o_at(d));
        CHECK_INT(p.key.m, 128);
        CHECK_INT(p.key.d, d);
        CHECK_INT(p.N, N);
        CHECK(p.W == W);
        CHECK_INT(p.kv.why.rule, PASCAL_RULE_EXACT);
        pascal_scan_run r = run_at(N, W, d);
        CHECK(fabs(p.K / k_true(N, W, d) - 1) < 1e-9);
        CHECK(fabs(p.fill_bytes / r.fill_bytes - 1) < 1e-9);
        CHECK(p.q_bytes == q_bytes(W, o_at(d)));
        CHECK(p.b0_bytes == p.q_bytes + B * W * N);
        CHECK(p.kv_bytes == B * N);
        CHECK(p.o_bytes == p.q_bytes);
      }
}

/* A launch of 100 CTAs at depth 2 (M = 96): W = 100/96 between the
 * references; a ragged last step and tile round up; K/V that fits the
 * cache (N <= C) is read once: K = 1/W. */
static void test_between_and_resident(const pascal_model *md)
{
  pascal_attention_shape s = {
      .seq_q = 1250, .seq_kv = 64 * 3000 + 1, .heads = 5, .head_dim = 64, .stages = 2};
  pascal_attention_prediction p;
  CHECK_INT(pascal_model_predict_attention(md, &s, &p, NULL), PASCAL_OK);
  CHECK_INT(p.ctas, 20 * 5); /* ceil(1250 / 64) = 20 tiles per head */
  CHECK_INT(p.N, 3001);
  CHECK(fabs(p.W - 100.0 / 96) < 1e-15);
  CHECK(p.q_bytes == 1250.0 * 5 * 64 * 2);
  CHECK(fabs(p.fill_bytes - (p.q_bytes + p.K * B * p.W * 3001)) < 1e-6 * p.fill_bytes);
  CHECK(p.K >= 1 && p.K <= 96);
  s.seq_kv = 64 * 1000;
  CHECK_INT(pascal_model_predict_attention(md, &s, &p, NULL), PASCAL_OK);
  CHECK_INT(p.kv.why.rule, PASCAL_RULE_RESIDENT);
  CHECK(fabs(p.fill_bytes - (p.q_bytes + B * 1000)) < 1e-6);
}

static void refused(const pascal_model *md, pascal_attention_shape s, pascal_status want,
                    const char *field, const char *words)
{
  pascal_error err;
  pascal_error_clear(&err);
  pascal_attention_prediction p;
  CHECK_INT(pascal_model_predict_attention(md, &s, &p, &err), want);
  CHECK(strcmp(err.field, field) == 0);
  if (!strstr(err.message, words))
    fprintf(stderr, "message: %s\n", err.message);
  CHECK(strstr(err.message, words) != NULL);
}

static void test_refusals(const pascal_model *md, const pascal_model *scan_model)
{
  pascal_attention_shape s = shape_at(2560, 4, 2);
  pascal_attention_shape c = s;
  c.causal = 1;
  refused(md, c, PASCAL_EREFUSED, "causal", "not modelled");
  c = s;
  c.kv_heads = 2;
  refused(md, c, PASCAL_EREFUSED, "kv_heads", "grouped-query");
  c.kv_heads = 3;
  refused(md, c, PASCAL_EINVAL, "kv_heads", "must divide");
  c = s;
  c.head_dim = 128;
  refused(md, c, PASCAL_EREFUSED, "head_dim", "head_dim = 64");
  c = s;
  c.block_kv = 128;
  refused(md, c, PASCAL_EREFUSED, "block_kv", "another kernel");
  c = s;
  c.block_q = 64; /* the calibration's, stated: accepted */
  c.elem_bytes = 2;
  pascal_attention_prediction p;
  CHECK_INT(pascal_model_predict_attention(md, &c, &p, NULL), PASCAL_OK);
  c.stages = 4;
  refused(md, c, PASCAL_EREFUSED, "stages", "measured: 1, 2, 3");
  refused(scan_model, s, PASCAL_EINVAL, "workload", "not attention");
}

/* The query's own table and rules: attention fields choose the workload,
 * mixing one with a scan field names the attention field; kv_heads must
 * divide heads; the answer path answers it from the attention model and
 * refuses it from a scan model. */
typedef struct names {
  const char *const *v;
} names;

static int has(const char *name, void *arg)
{
  const names *n = arg;
  for (size_t i = 0; n->v[i]; i++)
    if (strcmp(n->v[i], name) == 0)
      return 1;
  return 0;
}

static void test_query(const pascal_model *md, const pascal_model *scan_model)
{
  static const char *const att[] = {"seq_q", "seq_kv", "heads", "head_dim", "stages", NULL};
  static const char *const mix[] = {"seq_q", "m", NULL};
  pascal_workload w;
  pascal_error err;
  names n = {att};
  CHECK_INT(pascal_query_workload(has, &n, NULL, &w, NULL), PASCAL_OK);
  CHECK_INT(w, PASCAL_WORKLOAD_ATTENTION);
  /* stages and elem_bytes are GEMM fields too (issue 31): they mark neither */
  static const char *const gemm[] = {"Mg", "Ng", "Kg", "stages", "elem_bytes", NULL};
  n.v = gemm;
  CHECK_INT(pascal_query_workload(has, &n, NULL, &w, NULL), PASCAL_OK);
  CHECK_INT(w, PASCAL_WORKLOAD_GEMM);
  n.v = mix;
  CHECK_INT(pascal_query_workload(has, &n, "queries[2]", &w, &err), PASCAL_EINVAL);
  CHECK(strcmp(err.field, "queries[2].seq_q") == 0);
  CHECK(strcmp(err.message, PASCAL_PREDICT_MIXED_ATTENTION_MESSAGE) == 0);

  const pascal_query_field *f;
  size_t nf = pascal_query_fields(PASCAL_WORKLOAD_ATTENTION, &f);
  CHECK_INT(nf, 10);
  pascal_query_value v[10];
  memset(v, 0, sizeof v);
  uint32_t given = 0;
  const struct {
    const char *name;
    uint64_t value;
  } in[] = {{"seq_q", 4096}, {"seq_kv", 64 * 3840}, {"heads", 9},
            {"kv_heads", 1}, {"head_dim", 64},      {"stages", 2}};
  for (size_t i = 0; i < sizeof in / sizeof *in; i++) {
    int k = pascal_query_field_index(PASCAL_WORKLOAD_ATTENTION, in[i].name, strlen(in[i].name));
    CHECK(k >= 0);
    v[k].u = in[i].value;
    given |= UINT32_C(1) << k;
  }
  pascal_query q;
  CHECK_INT(pascal_query_build(PASCAL_WORKLOAD_ATTENTION, v, given, NULL, &q, NULL), PASCAL_OK);
  pascal_answer a;
  CHECK_INT(pascal_answer_query(md, NULL, &q, &a, NULL), PASCAL_OK);
  CHECK_INT(a.workload, PASCAL_WORKLOAD_ATTENTION);
  CHECK_INT(a.attention.ctas, 64 * 9);
  CHECK(a.attention.W == 64.0 * 9 / 96);
  CHECK_INT(pascal_answer_query(scan_model, NULL, &q, &a, &err), PASCAL_EINVAL);
  CHECK(strcmp(err.field, "workload") == 0);
  int kvh = pascal_query_field_index(PASCAL_WORKLOAD_ATTENTION, "kv_heads", 8);
  v[kvh].u = 2;
  CHECK_INT(pascal_query_build(PASCAL_WORKLOAD_ATTENTION, v, given, "x", &q, &err), PASCAL_EINVAL);
  CHECK(strcmp(err.field, "x.kv_heads") == 0);
  v[kvh].u = 3;
  CHECK_INT(pascal_query_build(PASCAL_WORKLOAD_ATTENTION, v, given, NULL, &q, NULL), PASCAL_OK);
  int causal = pascal_query_field_index(PASCAL_WORKLOAD_ATTENTION, "causal", 6);
  v[causal].u = 2;
  CHECK_INT(pascal_query_build(PASCAL_WORKLOAD_ATTENTION, v, given | (UINT32_C(1) << causal), NULL,
                               &q, &err),
            PASCAL_ERANGE);
  CHECK(strcmp(err.field, "causal") == 0);
  int st = pascal_query_field_index(PASCAL_WORKLOAD_ATTENTION, "stages", 6);
  CHECK_INT(pascal_query_build(PASCAL_WORKLOAD_ATTENTION, v, given & ~(UINT32_C(1) << st), NULL, &q,
                               &err),
            PASCAL_EMISSING);
  CHECK(strcmp(err.field, "stages") == 0);
}

int main(void)
{
  test_geometry();
  test_runs_and_k();
  pascal_calibration cal, scan;
  attention_cal(&cal);
  test_device_calibration(&scan, PASCAL_WORKLOAD_SCAN, "scan-test");
  for (uint32_t d = 1; d <= 3; d++) {
    pascal_scan_run r = run_at(2560, 4, d);
    CHECK_INT(pascal_calibration_append_scan(&scan, &r, NULL), PASCAL_OK);
  }
  pascal_model *md = NULL, *scan_model = NULL;
  CHECK_INT(pascal_model_fit(&cal, &md, NULL), PASCAL_OK);
  CHECK_INT(pascal_model_fit(&scan, &scan_model, NULL), PASCAL_OK);
  CHECK(md && scan_model);
  if (md && scan_model) {
    CHECK(pascal_model_attention(md)->head_dim == 64 && !pascal_model_attention(scan_model));
    test_exact_at_references(md);
    test_between_and_resident(md);
    test_refusals(md, scan_model);
    test_query(md, scan_model);
  }
  pascal_model_free(md);
  pascal_model_free(scan_model);
  pascal_calibration_free(&cal);
  pascal_calibration_free(&scan);
  return check_summary();
}
