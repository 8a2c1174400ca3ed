/*
 * test_query.c - the query and its one path to an answer (pascal/query.h,
 * pascal/answer.h):
 *  - the field tables: the paper's scan key z = (o, path, d, m) with N and W,
 *    the GEMM shape (Mg, Ng, Kg), each kept where its table says (a value set
 *    through the table reads back from the struct member it names);
 *  - every range refused at both ends and accepted at both ends, naming
 *    prefix.field; the path/depth rule over every path x (d absent, 0, 1, 64);
 *    the workload of a set of fields (mixed: the first GEMM field named);
 *  - pascal_answer_query is the composition of its parts: on a synthetic
 *    model with peaks it equals, bit for bit, the prediction, the expected
 *    error from the validation and the time computed one by one; without a
 *    validation the expected error is unknown; a fractional horizon has no
 *    time; a refusal, a query of the other workload and a shape the tile
 *    does not divide fail naming their field.
 * Verified to fail: with check_scan's sync condition `k->d == 0` replaced by
 * 1 (a sync scan with a depth accepted) the rule cases fail; with the
 * validation lookup dropped from answer.c the composition check fails.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "pascal/answer.h"
#include "pascal/plan.h"
#include "pascal/synth.h"
#include "pascal/time_model.h"

static const pascal_peaks PEAKS = {273e9, 1.92e12, 6.5536e12, 1e9, 2e-6};

static int idx(pascal_workload w, const char *name)
{
  return pascal_query_field_index(w, name, strlen(name));
}

/* The values a reader read, by field name (given in that order). */
typedef struct read_values {
  pascal_query_value v[PASCAL_QUERY_FIELDS_MAX];
  uint32_t given;
} read_values;

static void put(read_values *r, pascal_workload w, const char *name, pascal_query_value v)
{
  int i = idx(w, name);
  CHECK(i >= 0);
  r->v[i] = v;
  r->given |= 1u << i;
}

/* A scan query as a reader builds it (d < 0: not given). */
static pascal_status build_scan(const char *path, uint32_t o, int d, uint32_t m, uint32_t N,
                                double W, const char *prefix, pascal_query *q, pascal_error *err)
{
  read_values r = {.given = 0};
  pascal_workload w = PASCAL_WORKLOAD_SCAN;
  put(&r, w, "path", (pascal_query_value){.text = path});
  put(&r, w, "o", (pascal_query_value){.u = o});
  if (d >= 0)
    put(&r, w, "d", (pascal_query_value){.u = (uint64_t)d});
  put(&r, w, "m", (pascal_query_value){.u = m});
  put(&r, w, "N", (pascal_query_value){.u = N});
  put(&r, w, "W", (pascal_query_value){.r = W});
  return pascal_query_build(w, r.v, r.given, prefix, q, err);
}

/* A scan query that builds, for tests that need one. */
static pascal_query scan_query(const char *path, uint32_t o, int d, uint32_t m, uint32_t N,
                               double W)
{
  pascal_query q;
  CHECK_INT(build_scan(path, o, d, m, N, W, NULL, &q, NULL), PASCAL_OK);
  return q;
}

static pascal_query gemm_query(uint32_t Mg, uint32_t Ng, uint32_t Kg)
{
  read_values r = {.given = 0};
  pascal_workload w = PASCAL_WORKLOAD_GEMM;
  put(&r, w, "Mg", (pascal_query_value){.u = Mg});
  put(&r, w, "Ng", (pascal_query_value){.u = Ng});
  put(&r, w, "Kg", (pascal_query_value){.u = Kg});
  pascal_query q;
  CHECK_INT(pascal_query_build(w, r.v, r.given, NULL, &q, NULL), PASCAL_OK);
  return q;
}

static void tables(void)
{
  static const char *const scan[] = {"o", "path", "d", "m", "N", "W"};
  static const char *const gemm[] = {"Mg",     "Ng",         "Kg",     "tile_m", "tile_n",
                                     "tile_k", "elem_bytes", "stages", "group_m"};
  const pascal_query_field *f;
  CHECK_INT(pascal_query_fields(PASCAL_WORKLOAD_SCAN, &f), 6);
  for (size_t i = 0; i < 6; i++)
    CHECK(strcmp(f[i].name, scan[i]) == 0 && f[i].doc && f[i].doc[0]);
  CHECK(!f[2].required && f[0].required && f[5].type == PASCAL_QUERY_REAL);
  CHECK(f[0].hi == PASCAL_PLAN_MAX_OCCUPANCY && f[3].hi == PASCAL_PLAN_MAX_COMPUTE);
  CHECK_INT(pascal_query_fields(PASCAL_WORKLOAD_GEMM, &f), 9);
  for (size_t i = 0; i < 9; i++) /* the shape is required, the configuration optional */
    CHECK(strcmp(f[i].name, gemm[i]) == 0 && f[i].required == (i < 3) && f[i].lo == 1);
  /* a field marks its workload exactly when no other workload has its name
   * (GEMM and attention share stages and elem_bytes) */
  static const pascal_workload all[] = {PASCAL_WORKLOAD_SCAN, PASCAL_WORKLOAD_GEMM,
                                        PASCAL_WORKLOAD_ATTENTION};
  for (size_t w = 0; w < 3; w++) {
    size_t n = pascal_query_fields(all[w], &f);
    for (size_t i = 0; i < n; i++)
      CHECK_INT(f[i].marks,
                idx(all[(w + 1) % 3], f[i].name) < 0 && idx(all[(w + 2) % 3], f[i].name) < 0);
  }
  CHECK_INT(pascal_query_fields((pascal_workload)7, &f), 0);
  CHECK(f == NULL);
  CHECK_INT(idx(PASCAL_WORKLOAD_SCAN, "W"), 5);
  CHECK_INT(pascal_query_field_index(PASCAL_WORKLOAD_SCAN, "Wx", 1), 5); /* by length */
  CHECK_INT(idx(PASCAL_WORKLOAD_GEMM, "o"), -1);

  /* each value lands in the member its table names, and reads back */
  pascal_query q = scan_query("tma", 3, 4, 5, 4096, 2.5);
  CHECK(q.scan.key.o == 3 && q.scan.key.path == PASCAL_PATH_TMA && q.scan.key.d == 4);
  CHECK(q.scan.key.m == 5 && q.scan.N == 4096 && q.scan.W == 2.5);
  CHECK_INT(q.given, 0x3f);
  pascal_query_value v;
  pascal_query_get(&q, 1, &v);
  CHECK(strcmp(v.text, "tma") == 0);
  pascal_query_get(&q, 5, &v);
  CHECK(v.r == 2.5);
  pascal_query g = gemm_query(1024, 512, 4294967295u);
  CHECK(g.gemm.shape.Mg == 1024 && g.gemm.shape.Ng == 512 && g.gemm.shape.Kg == 4294967295u);
  CHECK_INT(pascal_query_check(&g, NULL, NULL), PASCAL_OK);

  /* the constructors give what a reader builds, every field given */
  pascal_scan_key key = {3, PASCAL_PATH_TMA, 4, 5};
  pascal_query c = pascal_query_scan(&key, 4096, 2.5);
  CHECK(c.workload == q.workload && c.given == q.given && c.scan.key.o == 3 &&
        c.scan.key.path == q.scan.key.path && c.scan.key.d == 4 && c.scan.key.m == 5 &&
        c.scan.N == 4096 && c.scan.W == 2.5);
  pascal_gemm_shape shape = {1024, 512, 4294967295u};
  c = pascal_query_gemm(&shape, NULL);
  CHECK(c.workload == PASCAL_WORKLOAD_GEMM && c.given == g.given && c.gemm.shape.Kg == shape.Kg);
}

/* Each workload's examples make a query the check accepts. */
static void examples(void)
{
  static const pascal_workload all[] = {PASCAL_WORKLOAD_SCAN, PASCAL_WORKLOAD_GEMM};
  for (size_t w = 0; w < 2; w++) {
    const pascal_query_field *f;
    size_t n = pascal_query_fields(all[w], &f);
    pascal_query_value v[PASCAL_QUERY_FIELDS_MAX];
    for (size_t i = 0; i < n; i++) {
      CHECK(f[i].example && f[i].example[0]);
      v[i] = (pascal_query_value){strtoull(f[i].example, NULL, 10), strtod(f[i].example, NULL),
                                  f[i].example};
    }
    pascal_query q;
    CHECK_INT(pascal_query_build(all[w], v, (1u << n) - 1, NULL, &q, NULL), PASCAL_OK);
    CHECK_INT(pascal_query_check(&q, NULL, NULL), PASCAL_OK);
  }
}

/* Each number of the scan taken at both ends of its range and refused just
 * past them, naming prefix.field; a bad path; NaN. */
static void ranges(void)
{
  const pascal_query_field *f;
  size_t n = pascal_query_fields(PASCAL_WORKLOAD_SCAN, &f);
  pascal_query_value ok[PASCAL_QUERY_FIELDS_MAX] = {{1, 1, "sync"}, {0, 0, "sync"}, {0, 0, "sync"},
                                                    {0, 0, "sync"}, {1, 1, "sync"}, {1, 1, "sync"}};
  for (size_t i = 0; i < n; i++) {
    if (f[i].type == PASCAL_QUERY_PATH || !strcmp(f[i].name, "d"))
      continue; /* d: its rule is the depth rule's */
    pascal_query q;
    pascal_query_value v[PASCAL_QUERY_FIELDS_MAX];
    pascal_error err;
    char want[64];
    snprintf(want, sizeof want, "queries[2].%s", f[i].name);
    double edge[] = {f[i].lo, f[i].hi};
    for (int e = 0; e < 2; e++) {
      memcpy(v, ok, sizeof v);
      v[i] = (pascal_query_value){(uint64_t)edge[e], edge[e], NULL};
      CHECK_INT(pascal_query_build(PASCAL_WORKLOAD_SCAN, v, 0x3b, "queries[2]", &q, &err),
                PASCAL_OK);
    }
    memcpy(v, ok, sizeof v);
    if (f[i].lo > 0) {
      v[i] = (pascal_query_value){(uint64_t)f[i].lo - 1, f[i].lo / 2, NULL};
      CHECK_INT(pascal_query_build(PASCAL_WORKLOAD_SCAN, v, 0x3b, "queries[2]", &q, &err),
                PASCAL_ERANGE);
      CHECK(strcmp(err.field, want) == 0 && strstr(err.message, want));
    }
    v[i] = (pascal_query_value){(uint64_t)f[i].hi + 1, f[i].hi * 2, NULL};
    CHECK_INT(pascal_query_build(PASCAL_WORKLOAD_SCAN, v, 0x3b, "queries[2]", &q, &err),
              PASCAL_ERANGE);
    CHECK(strcmp(err.field, want) == 0);
  }
  pascal_query q;
  pascal_error err;
  CHECK_INT(build_scan("dma", 1, -1, 0, 1, 1, NULL, &q, &err), PASCAL_EINVAL);
  CHECK(strcmp(err.field, "path") == 0);
  CHECK_INT(build_scan("sync", 1, -1, 0, 1, NAN, NULL, &q, &err), PASCAL_ERANGE);
  CHECK(strcmp(err.field, "W") == 0);
  /* the first error in the table's order: o (out of range) before a bad path */
  CHECK_INT(build_scan("dma", 0, -1, 0, 1, 1, NULL, &q, &err), PASCAL_ERANGE);
  CHECK(strcmp(err.field, "o") == 0);
  q = scan_query("sync", 1, -1, 0, 1, 1);
  /* a required field not given */
  q.given &= ~(1u << 4);
  CHECK_INT(pascal_query_check(&q, NULL, &err), PASCAL_EMISSING);
  CHECK(strcmp(err.field, "N") == 0 && strcmp(err.message, "field 'N' is required") == 0);
  /* a value put in the struct directly is checked too */
  q = scan_query("sync", 1, -1, 0, 1, 1);
  q.scan.key.o = 0;
  CHECK_INT(pascal_query_check(&q, NULL, &err), PASCAL_ERANGE);
  CHECK(strcmp(err.field, "o") == 0);
  q.scan.key.o = 1;
  q.scan.key.path = (pascal_path)9;
  CHECK_INT(pascal_query_check(&q, NULL, &err), PASCAL_EINVAL);
  CHECK(strcmp(err.field, "path") == 0);
}

/* The depth belongs to the path, every case, through the reader's build
 * and the check alike. */
static void depth_rule(void)
{
  static const int depths[] = {-1, 0, 1, 64};
  for (int p = 0; p < 2; p++)
    for (size_t i = 0; i < sizeof depths / sizeof *depths; i++) {
      int d = depths[i];
      pascal_query q;
      pascal_error err;
      pascal_status built = build_scan(p ? "tma" : "sync", 1, d, 0, 1, 1, "queries[0]", &q, &err);
      pascal_status st = pascal_query_check(&q, "queries[0]", &err);
      CHECK_INT(built, st);
      pascal_status want = p ? (d < 0    ? PASCAL_EMISSING
                                : d == 0 ? PASCAL_EINVAL
                                         : PASCAL_OK)
                             : (d > 0 ? PASCAL_EINVAL : PASCAL_OK);
      CHECK_INT(st, want);
      if (st)
        CHECK(strcmp(err.field, "queries[0].d") == 0 && strstr(err.message, "'queries[0].d'"));
    }
}

static int in_list(const char *name, void *arg)
{
  for (const char *const *l = arg; *l; l++)
    if (strcmp(*l, name) == 0)
      return 1;
  return 0;
}

static void workload_of_fields(void)
{
  const char *scan[] = {"device", "o", "W", NULL}, *gemm[] = {"Kg", "calibration", NULL},
             *none[] = {"device", NULL}, *mixed[] = {"m", "Ng", "Kg", NULL};
  pascal_workload w = PASCAL_WORKLOAD_GEMM;
  pascal_error err;
  CHECK_INT(pascal_query_workload(in_list, scan, NULL, &w, NULL), PASCAL_OK);
  CHECK_INT(w, PASCAL_WORKLOAD_SCAN);
  CHECK_INT(pascal_query_workload(in_list, gemm, NULL, &w, NULL), PASCAL_OK);
  CHECK_INT(w, PASCAL_WORKLOAD_GEMM);
  CHECK_INT(pascal_query_workload(in_list, none, NULL, &w, NULL), PASCAL_OK);
  CHECK_INT(w, PASCAL_WORKLOAD_SCAN);
  CHECK_INT(pascal_query_workload(in_list, mixed, "queries[1]", &w, &err), PASCAL_EINVAL);
  CHECK(strcmp(err.field, "queries[1].Ng") == 0); /* the table's first GEMM field given */
  CHECK(strcmp(err.message, PASCAL_PREDICT_MIXED_MESSAGE) == 0);
}

static pascal_model *fit(pascal_workload wl, pascal_calibration *cal)
{
  pascal_synth_law law;
  pascal_synth_plan plan;
  pascal_model *m = NULL;
  pascal_synth_law_default(wl, &law);
  pascal_synth_plan_default(wl, &plan);
  CHECK_INT(pascal_synth_calibration(&law, &plan, cal, NULL), PASCAL_OK);
  cal->device.has_peaks = 1;
  cal->device.peaks = PEAKS;
  CHECK_INT(pascal_model_fit(cal, &m, NULL), PASCAL_OK);
  return m;
}

/* The answer is its parts, computed one by one here. */
static void answer_is_its_parts(void)
{
  pascal_calibration cal;
  pascal_model *m = fit(PASCAL_WORKLOAD_SCAN, &cal);
  pascal_validation v = {0};
  CHECK_INT(pascal_validation_build(&cal, m, NULL, &v, NULL), PASCAL_OK);
  static const double horizons[] = {16, 100, 2.5};
  for (size_t i = 0; i < 3; i++) {
    pascal_query q = scan_query("tma", 1, 3, 5, 3000, horizons[i]);
    pascal_answer a, bare;
    CHECK_INT(pascal_answer_query(m, &v, &q, &a, NULL), PASCAL_OK);
    CHECK_INT(pascal_answer_query(m, NULL, &q, &bare, NULL), PASCAL_OK);
    pascal_scan_prediction p;
    pascal_time t;
    CHECK_INT(pascal_model_predict_scan(m, &q.scan.key, 3000, horizons[i], &p, NULL), PASCAL_OK);
    CHECK(bare.scan.K == p.K && isnan(bare.scan.expected.pct) &&
          bare.scan.expected.source == PASCAL_ERRSRC_NONE);
    pascal_validation_expect_scan(&v, &q.scan.key, &p);
    CHECK(a.workload == PASCAL_WORKLOAD_SCAN && a.scan.K == p.K &&
          a.scan.fill_bytes == p.fill_bytes && a.scan.why.rule == p.why.rule);
    CHECK(a.scan.expected.source == p.expected.source && a.scan.expected.source != 0 &&
          a.scan.expected.pct == p.expected.pct);
    int timed =
        pascal_time_scan(m, &q.scan.key, 3000, horizons[i], p.fill_bytes, &t, NULL) == PASCAL_OK;
    CHECK_INT(a.timed, timed);
    CHECK_INT(timed, horizons[i] != 2.5); /* no time for a fractional horizon */
    if (timed)
      CHECK(a.time.time_s == t.time_s && a.time.bound == t.bound && a.time.source == t.source);
  }
  pascal_error err;
  pascal_answer a;
  pascal_query q = scan_query("tma", 3, 2, 1, 2048, 4); /* o = 3: no such family */
  CHECK_INT(pascal_answer_query(m, &v, &q, &a, &err), PASCAL_EREFUSED);
  pascal_query g = gemm_query(1024, 512, 2048);
  CHECK_INT(pascal_answer_query(m, &v, &g, &a, &err), PASCAL_EINVAL);
  CHECK(strcmp(err.field, "workload") == 0);
  pascal_validation_free(&v);
  pascal_model_free(m);
  pascal_calibration_free(&cal);

  m = fit(PASCAL_WORKLOAD_GEMM, &cal);
  CHECK_INT(pascal_validation_build(&cal, m, NULL, &v, NULL), PASCAL_OK);
  CHECK_INT(pascal_answer_query(m, &v, &g, &a, NULL), PASCAL_OK);
  pascal_gemm_prediction p;
  pascal_time t;
  CHECK_INT(pascal_model_predict_gemm(m, &g.gemm.shape, &p, NULL), PASCAL_OK);
  pascal_validation_expect_gemm(&v, &g.gemm.shape, &p);
  CHECK_INT(pascal_time_gemm(m, &g.gemm.shape, p.fill_bytes, &t, NULL), PASCAL_OK);
  CHECK(a.workload == PASCAL_WORKLOAD_GEMM && a.gemm.K == p.K && a.gemm.kappa == p.kappa);
  CHECK(a.gemm.expected.pct == p.expected.pct && a.gemm.expected.source != 0);
  CHECK(a.timed && a.time.time_s == t.time_s && a.time.bound == t.bound &&
        a.time.source == t.source);
  g.gemm.shape.Mg = 1000; /* not a multiple of the tile */
  CHECK_INT(pascal_answer_query(m, &v, &g, &a, &err), PASCAL_EINVAL);
  CHECK(strcmp(err.field, "Mg") == 0);
  pascal_validation_free(&v);
  pascal_model_free(m);
  pascal_calibration_free(&cal);
}

int main(void)
{
  tables();
  examples();
  ranges();
  depth_rule();
  workload_of_fields();
  answer_is_its_parts();
  return check_summary();
}
