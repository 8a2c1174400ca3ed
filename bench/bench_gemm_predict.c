/*
 * bench_gemm_predict.c - speed of a GEMM prediction from a real calibration
 * bundle (pascal_model_predict_gemm, docs/design.md 4.5), split by what the
 * answer did: read at a calibrated reduction length, between two of them
 * by the curves, carried between them by the static reference V_s (its
 * three walks: pascal_gemm_carry), the lower level's kappa held where V_s
 * is silent at both levels (two walks and the lower level's answer), or
 * past the grid. The shapes are the
 * bundle's own held-out and off-grid panels, each timed apart; the figure is
 * the median of each shape's median, per kind, with the slowest shape's.
 *
 * usage: bench_gemm_predict BUNDLE [repetitions]   (default 200 per shape)
 * Prints; asserts nothing.
 */
#include <stdio.h>
#include <stdlib.h>

#include "pascal/predict.h"
#include "pascal_codec.h"
#include "timing.h"

enum { AT_LEVEL, BETWEEN, CARRIED, HELD, BEYOND, KINDS };
static const char *const KIND_NAMES[KINDS] = {"at a calibrated Kg", "between Kg, curves",
                                              "between Kg, carried by V_s",
                                              "between Kg, lower level held", "beyond the grid"};

#define MAX_SHAPES 4096

static int kind_of(const pascal_gemm_prediction *p)
{
  if (p->extrapolated.n)
    return BEYOND;
  if (p->why.carry.carried)
    return p->why.carry.reading == PASCAL_READ_LOWER_LEVEL ? HELD : CARRIED;
  for (size_t i = 0; i < p->transfers.n; i++)
    if (p->transfers.item[i].coordinate == PASCAL_COORD_N_K && p->transfers.item[i].distance > 0)
      return BETWEEN;
  return AT_LEVEL;
}

/* Median ns of one prediction of s over reps calls. */
static double time_shape(const pascal_model *md, const pascal_gemm_shape *s, int reps,
                         double *samples)
{
  for (int r = 0; r < reps; r++) {
    pascal_gemm_prediction p;
    double t0 = bench_now_ns();
    pascal_model_predict_gemm(md, s, &p, NULL);
    samples[r] = bench_now_ns() - t0;
  }
  return bench_median(samples, (size_t)reps);
}

int main(int argc, char **argv)
{
  if (argc < 2 || argc > 3) {
    fprintf(stderr, "usage: bench_gemm_predict BUNDLE [repetitions]\n");
    return 2;
  }
  int reps = argc == 3 ? atoi(argv[2]) : 200;
  if (reps < 1 || reps > 100000) {
    fprintf(stderr, "bench_gemm_predict: repetitions must be 1..100000\n");
    return 2;
  }
  pascal_codec_bundle bundle;
  pascal_model *md = NULL;
  pascal_error err = {0};
  json_t *doc = NULL;
  pascal_codec_bundle_init(&bundle);
  if (pascal_codec_load_file(argv[1], &doc, &err) ||
      pascal_codec_bundle_decode(doc, &bundle, &err) || pascal_model_fit(&bundle.cal, &md, &err)) {
    fprintf(stderr, "bench_gemm_predict: %s: %s: %s\n", argv[1], err.field, err.message);
    return 1;
  }
  if (pascal_model_workload(md) != PASCAL_WORKLOAD_GEMM) {
    fprintf(stderr, "bench_gemm_predict: %s is not a GEMM calibration\n", argv[1]);
    return 2;
  }
  static double per_kind[KINDS][MAX_SHAPES];
  size_t n_kind[KINDS] = {0};
  double *samples = malloc((size_t)reps * sizeof *samples);
  const pascal_calibration *cal = &bundle.cal;
  const pascal_gemm_run *panels[2] = {cal->heldout_gemm_runs, cal->offgrid_gemm_runs};
  const size_t n_panel[2] = {cal->n_heldout_gemm_runs, cal->n_offgrid_gemm_runs};
  for (int k = 0; samples && k < 2; k++)
    for (size_t i = 0; i < n_panel[k]; i++) {
      const pascal_gemm_run *r = &panels[k][i];
      pascal_gemm_prediction p;
      if (r->repeat || pascal_model_predict_gemm(md, &r->shape, &p, NULL))
        continue;
      int kind = kind_of(&p);
      if (n_kind[kind] < MAX_SHAPES)
        per_kind[kind][n_kind[kind]++] = time_shape(md, &r->shape, reps, samples);
    }
  pascal_reading_choice b, silent;
  pascal_model_between_static(md, &b);
  pascal_model_between_silent(md, &silent);
  printf("bench_gemm_predict: %s (between Kg: %s; where V_s is silent: %s), %d calls per shape\n",
         argv[1], pascal_reading_name(b.rule), pascal_reading_name(silent.rule), reps);
  for (int k = 0; k < KINDS; k++) {
    if (!n_kind[k])
      continue;
    double slowest = 0;
    for (size_t i = 0; i < n_kind[k]; i++)
      slowest = per_kind[k][i] > slowest ? per_kind[k][i] : slowest;
    printf("  %-28s %3zu shapes: median %8.3f us, slowest %8.3f us\n", KIND_NAMES[k], n_kind[k],
           bench_median(per_kind[k], n_kind[k]) / 1e3, slowest / 1e3);
  }
  free(samples);
  pascal_model_free(md);
  pascal_codec_bundle_free(&bundle);
  json_decref(doc);
  return 0;
}
