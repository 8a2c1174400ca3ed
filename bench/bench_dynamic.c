/*
 * bench_dynamic.c - speed of the dynamic predictor (issue 3 performance
 * budgets): one scan prediction from a fitted 756-run calibration (63 keys x
 * 3 sizes x 4 horizons, budget 2 us), one GEMM prediction from the 120-shape
 * calibration (5 us), fitting the 756-run calibration (50 ms), and a full
 * leave-one-key-out evaluation over its 63 keys (2 s). For the same query
 * mix it also times the whole answer the daemon gives (pascal_answer_query:
 * the check, the prediction, the expected error and the time, on a device
 * with peaks) next to the same parts called one by one, so that the one
 * path's own cost shows. Prints medians.
 *
 * Usage: bench_dynamic [repetitions-scale]   (default 1; larger = longer)
 */
#include <stdio.h>
#include <stdlib.h>

#include "pascal/answer.h"
#include "pascal/evaluate.h"
#include "pascal/predict.h"
#include "pascal/synth.h"
#include "pascal/time_model.h"
#include "pascal/validation.h"
#include "timing.h"

#define BATCH       1000
#define MAX_SAMPLES 2000

static int synth(pascal_workload w, pascal_calibration *cal)
{
  pascal_synth_law law;
  pascal_synth_plan plan;
  pascal_error err;
  pascal_synth_law_default(w, &law);
  pascal_synth_plan_default(w, &plan);
  if (pascal_synth_calibration(&law, &plan, cal, &err)) {
    fprintf(stderr, "synth: %s: %s\n", err.field, err.message);
    return -1;
  }
  return 0;
}

/* One query q of a mix; returns K (or -1 when refused) and counts its rule
 * in rules[0..4] (rules[REFUSED]) when rules is not NULL. `v`, when not
 * NULL, is the validation the answer's expected error is looked up in, as
 * pascald does for every answer. */
#define REFUSED (PASCAL_RULE_RESIDENT + 1)
typedef double (*query_fn)(const pascal_model *md, const pascal_validation *v, unsigned q,
                           unsigned *rules);

/* Scan queries cycling through families (one with an uncalibrated depth),
 * computes 0..17, sizes between and outside the calibrated ones, horizons. */
static pascal_query scan_mix(unsigned q)
{
  static const uint32_t o_path_d[][3] = {{1, 0, 0}, {2, 0, 0}, {1, 1, 1}, {1, 1, 2},
                                         {1, 1, 3}, {1, 1, 4}, {2, 1, 2}, {2, 1, 4}};
  static const uint32_t sizes[] = {2048, 2560, 4096, 6000};
  static const double horizons[] = {1, 8, 32, 80};
  const uint32_t *f = o_path_d[q % 8];
  pascal_scan_key key = {f[0], (pascal_path)f[1], f[2], (q / 8) % 18};
  return pascal_query_scan(&key, sizes[(q / 3) % 4], horizons[(q / 5) % 4]);
}

static double scan_query(const pascal_model *md, const pascal_validation *v, unsigned q,
                         unsigned *rules)
{
  pascal_query query = scan_mix(q);
  const pascal_scan_query *s = &query.scan;
  pascal_scan_prediction p;
  pascal_status st = pascal_model_predict_scan(md, &s->key, s->N, s->W, &p, NULL);
  if (rules)
    rules[st ? REFUSED : p.why.rule]++;
  if (v && !st)
    pascal_validation_expect_scan(v, &s->key, &p);
  return st ? -1 : p.K + p.expected.pct;
}

/* The paper's held-out GEMM shapes (60). */
static double gemm_query(const pascal_model *md, const pascal_validation *v, unsigned q,
                         unsigned *rules)
{
  static const uint32_t mg[] = {640, 896, 1280, 2560, 5120};
  static const uint32_t ng[] = {640, 896, 1280, 2560};
  static const uint32_t kg[] = {1280, 2560, 5120};
  pascal_gemm_shape shape = {mg[q % 5], ng[(q / 5) % 4], kg[(q / 20) % 3]};
  pascal_gemm_prediction p;
  pascal_status st = pascal_model_predict_gemm(md, &shape, &p, NULL);
  if (rules)
    rules[st ? REFUSED : p.why.rule]++;
  if (v && !st)
    pascal_validation_expect_gemm(v, &shape, &p);
  return st ? -1 : p.K + p.expected.pct;
}

/* The whole answer of scan query q through the one path. */
static double scan_answer(const pascal_model *md, const pascal_validation *v, unsigned q,
                          unsigned *rules)
{
  (void)rules;
  pascal_query query = scan_mix(q);
  pascal_answer a;
  if (pascal_answer_query(md, v, &query, &a, NULL))
    return -1;
  return a.scan.K + a.scan.expected.pct + (a.timed ? a.time.time_s : 0);
}

/* The same answer's parts, called one by one. */
static double scan_parts(const pascal_model *md, const pascal_validation *v, unsigned q,
                         unsigned *rules)
{
  (void)rules;
  pascal_query query = scan_mix(q);
  const pascal_scan_query *s = &query.scan;
  pascal_scan_prediction p;
  pascal_time t;
  if (pascal_model_predict_scan(md, &s->key, s->N, s->W, &p, NULL))
    return -1;
  pascal_validation_expect_scan(v, &s->key, &p);
  int timed = pascal_time_scan(md, &s->key, s->N, s->W, p.fill_bytes, &t, NULL) == 0;
  return p.K + p.expected.pct + (timed ? t.time_s : 0);
}

/* Median nanoseconds per query over `samples` batches of BATCH queries; the
 * first batch's rules are counted. */
static double bench_predict(const pascal_model *md, const pascal_validation *v, query_fn fn,
                            int samples, unsigned *rules)
{
  double *t = malloc((size_t)samples * sizeof *t);
  volatile double sink = 0;
  unsigned q = 0;
  if (!t)
    return -1;
  for (int s = 0; s < samples; s++) {
    double t0 = bench_now_ns();
    for (int i = 0; i < BATCH; i++, q++)
      sink += fn(md, v, q, s == 0 ? rules : NULL);
    t[s] = (bench_now_ns() - t0) / BATCH;
  }
  double med = bench_median(t, (size_t)samples);
  free(t);
  (void)sink;
  return med;
}

static double bench_fit(const pascal_calibration *cal, int samples)
{
  double t[MAX_SAMPLES];
  for (int s = 0; s < samples; s++) {
    pascal_model *md = NULL;
    double t0 = bench_now_ns();
    pascal_status st = pascal_model_fit(cal, &md, NULL);
    t[s] = bench_now_ns() - t0;
    pascal_model_free(md);
    if (st)
      return -1;
  }
  return bench_median(t, (size_t)samples);
}

static double bench_loko(const pascal_calibration *cal, int samples, pascal_loko_report *last)
{
  double t[MAX_SAMPLES];
  for (int s = 0; s < samples; s++) {
    pascal_loko_report rep;
    double t0 = bench_now_ns();
    pascal_status st = pascal_loko_run(cal, &rep, NULL);
    t[s] = bench_now_ns() - t0;
    if (st)
      return -1;
    if (s == samples - 1)
      *last = rep;
    else
      pascal_loko_report_free(&rep);
  }
  return bench_median(t, (size_t)samples);
}

int main(int argc, char **argv)
{
  int scale = argc > 1 ? atoi(argv[1]) : 1;
  if (scale < 1 || scale > 20)
    scale = 1;
  pascal_calibration scan, gemm;
  pascal_model *scan_model = NULL, *gemm_model = NULL;
  pascal_loko_report rep;
  unsigned rules[REFUSED + 1] = {0}, gemm_rules[REFUSED + 1] = {0};
  pascal_validation scan_v, gemm_v;
  if (synth(PASCAL_WORKLOAD_SCAN, &scan) || synth(PASCAL_WORKLOAD_GEMM, &gemm) ||
      pascal_model_fit(&scan, &scan_model, NULL) || pascal_model_fit(&gemm, &gemm_model, NULL) ||
      pascal_validation_build(&scan, scan_model, NULL, &scan_v, NULL) ||
      pascal_validation_build(&gemm, gemm_model, NULL, &gemm_v, NULL)) {
    fprintf(stderr, "bench_dynamic: setup failed\n");
    return 1;
  }
  double scan_ns = bench_predict(scan_model, NULL, scan_query, 100 * scale, rules);
  double gemm_ns = bench_predict(gemm_model, NULL, gemm_query, 50 * scale, gemm_rules);
  double scan_v_ns = bench_predict(scan_model, &scan_v, scan_query, 100 * scale, NULL);
  double gemm_v_ns = bench_predict(gemm_model, &gemm_v, gemm_query, 50 * scale, NULL);
  /* the daemon's whole answer, on the same model with a device's peaks */
  pascal_model *timed_model = NULL;
  scan.device.has_peaks = 1;
  scan.device.peaks = (pascal_peaks){273e9, 1.92e12, 6.5536e12, 1e9, 2e-6};
  if (pascal_model_fit(&scan, &timed_model, NULL)) {
    fprintf(stderr, "bench_dynamic: setup failed\n");
    return 1;
  }
  double parts_ns = bench_predict(timed_model, &scan_v, scan_parts, 100 * scale, NULL);
  double answer_ns = bench_predict(timed_model, &scan_v, scan_answer, 100 * scale, NULL);
  pascal_model_free(timed_model);
  scan.device.has_peaks = 0;
  double fit_ns = bench_fit(&scan, 30 * scale);
  double gemm_fit_ns = bench_fit(&gemm, 30 * scale);
  double loko_ns = bench_loko(&scan, 3 * scale, &rep);
  printf("dynamic predictor (synthetic calibrations, medians)\n");
  printf("  scan predict (756-run model, %zu curves):  %8.3f us  (budget 2 us)\n",
         pascal_model_curve_count(scan_model), scan_ns / 1e3);
  printf(
      "    query mix: exact %u, graph %u, clamp %u, depth-fallback %u, resident %u, refused %u\n",
      rules[0], rules[1], rules[2], rules[3], rules[4], rules[REFUSED]);
  printf("    with its expected error (%zu validated keys): %8.3f us\n", scan_v.n, scan_v_ns / 1e3);
  printf("    its parts one by one, time included:     %8.3f us\n", parts_ns / 1e3);
  printf("    the whole answer (pascal_answer_query):  %8.3f us\n", answer_ns / 1e3);
  printf("  gemm predict (120-shape model):            %8.3f us  (budget 5 us)\n", gemm_ns / 1e3);
  printf("    query mix: exact %u, graph %u, clamp %u, refused %u\n", gemm_rules[0], gemm_rules[1],
         gemm_rules[2], gemm_rules[REFUSED]);
  printf("    with its expected error (%zu validated keys): %8.3f us\n", gemm_v.n, gemm_v_ns / 1e3);
  printf("  fit 756-run scan calibration:              %8.3f ms  (budget 50 ms)\n", fit_ns / 1e6);
  printf("  fit 120-run gemm calibration:              %8.3f ms\n", gemm_fit_ns / 1e6);
  printf("  LOKO over %zu keys (756 runs):              %8.3f ms  (budget 2000 ms)\n", rep.n_keys,
         loko_ns / 1e6);
  printf("    balanced MAPE: pascal %.2f %%, aligned %.2f %%\n",
         rep.balanced_mape[PASCAL_METHOD_PASCAL], rep.balanced_mape[PASCAL_METHOD_ALIGNED]);
  pascal_loko_report_free(&rep);
  pascal_validation_free(&scan_v);
  pascal_validation_free(&gemm_v);
  pascal_model_free(scan_model);
  pascal_model_free(gemm_model);
  pascal_calibration_free(&scan);
  pascal_calibration_free(&gemm);
  return 0;
}
