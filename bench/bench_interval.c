/*
 * bench_interval.c - how the prediction intervals of a calibration hold on
 * its panels (pascal/interval.h; docs/expected-error.md): the residual
 * groups the intervals come from (the calibration's leave-one-key-out and
 * level folds, the repeats; an extrapolated group also per action; the
 * aligned group of the predictions that read no excess) and how
 * each covers its own residuals with the key held out (each rate against
 * the quantiles of its group's rates from other keys; an action's also
 * against those of every action, the group it would read without the
 * split), then, for the held-out and the
 * off-grid panel, the share of runs inside the 80 % interval of K (and of time, where timed), the
 * median K_high / K_low and the run-mean MAPE of PASCAL and of aligned K = 1 (K_0 for GEMM), over
 * all runs and per group of runs with the same transfers.
 *
 * usage: bench_interval BUNDLE.json [OFFGRID.json ...]
 *   OFFGRID bundles (measured calibrations of the scan-offgrid or
 *   gemm-offgrid plans) become the off-grid panel, replacing the bundle's.
 */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "pascal/evaluate.h"
#include "pascal/interval.h"
#include "pascal_codec.h"

static void print_groups(const pascal_interval_calibration *ic)
{
  printf("residual groups (rate = log(measured/predicted) per unit distance; 10%%/90%% "
         "quantiles)\n");
  printf("  %-16s %6s %9s %9s %6s %9s %9s\n", "group", "n K", "lo", "hi", "n t", "lo t", "hi t");
  for (int c = 0; c < PASCAL_COORDINATES; c++)
    for (int k = 0; k < PASCAL_TRANSFER_KINDS; k++) {
      const pascal_interval_group *g = &ic->group[c][k];
      if (!g->n[PASCAL_INTERVAL_K])
        continue;
      char name[64];
      pascal_signature_name(PASCAL_SIGNATURE_BIT(c, k), name, sizeof name);
      printf("  %-16s %6zu %9.4f %9.4f %6zu %9.4f %9.4f\n", name, g->n[0], g->lo[0], g->hi[0],
             g->n[1], g->lo[1], g->hi[1]);
      for (int a = 0; k == PASCAL_TRANSFER_EXTRAP && a < PASCAL_EXTRAP_ACTIONS; a++) {
        const pascal_interval_group *ga = &ic->action[c][a];
        if (ga->n[PASCAL_INTERVAL_K])
          printf("    %-14s %6zu %9.4f %9.4f %6zu %9.4f %9.4f\n",
                 pascal_extrapolation_action_name((pascal_extrapolation_action)a), ga->n[0],
                 ga->lo[0], ga->hi[0], ga->n[1], ga->lo[1], ga->hi[1]);
      }
    }
  const pascal_interval_group *g = &ic->aligned;
  printf("  %-16s %6zu %9.4f %9.4f %6zu %9.4f %9.4f (log-ratios)\n", "aligned", g->n[0], g->lo[0],
         g->hi[0], g->n[1], g->lo[1], g->hi[1]);
  g = &ic->noise_group;
  printf("  %-16s %6zu %9.4f %9.4f %6zu %9.4f %9.4f\n\n", "repeats", g->n[0], g->lo[0], g->hi[0],
         g->n[1], g->lo[1], g->hi[1]);
}

/* The type-7 quantile p of sorted v[0..n). */
static double quantile(const double *v, size_t n, double p)
{
  double h = (double)(n - 1) * p, f = floor(h);
  size_t i = (size_t)f;
  return i + 1 < n ? v[i] + (h - f) * (v[i + 1] - v[i]) : v[n - 1];
}

static int cmp_double(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static bool same_key(const pascal_calibration *cal, size_t a, size_t b)
{
  if (pascal_workload_scans(cal->workload)) {
    const pascal_scan_key *x = &cal->scan_runs[a].key, *y = &cal->scan_runs[b].key;
    return x->o == y->o && x->path == y->path && x->d == y->d && x->m == y->m;
  }
  return cal->gemm_runs[a].shape.Mg == cal->gemm_runs[b].shape.Mg &&
         cal->gemm_runs[a].shape.Ng == cal->gemm_runs[b].shape.Ng;
}

/* Whether residual r's evidence is along coord of kind (and action, if
 * >= 0); coord ALIGNED: whether its prediction read no excess. */
#define ALIGNED (-1)
static bool in_group(const pascal_residual *r, int coord, int kind, int action)
{
  if (coord == ALIGNED)
    return r->transfers.aligned;
  const pascal_transfer *t = pascal_residual_evidence(r);
  return t && (int)t->coordinate == coord && (int)t->kind == kind &&
         (action < 0 || (int)t->action == action);
}

/* Residual r's K rate in the group of coord: per unit distance, or its
 * log-ratio in the aligned group. */
static double rate_of(const pascal_residual *r, int coord)
{
  double lr = r->log_ratio[PASCAL_INTERVAL_K];
  return coord == ALIGNED ? lr : lr / pascal_residual_evidence(r)->distance;
}

/* The share (%) of the K rates of group (coord, kind, action) inside the
 * interval of group (coord, kind, pool) made from other keys' rates; with
 * `passes`, of the scan runs above one pass only. The aligned group's
 * quantiles are signed, as an extrapolated one's (kind EXTRAP). */
static double held_key_coverage(const pascal_calibration *cal,
                                const pascal_interval_calibration *ic, int coord, int kind,
                                int action, int pool, bool passes, size_t *n_out)
{
  double *v = malloc((ic->n ? ic->n : 1) * sizeof *v);
  size_t n = 0, in = 0;
  for (size_t i = 0; v && i < ic->n; i++) {
    const pascal_residual *r = &ic->items[i];
    if (!in_group(r, coord, kind, action) ||
        (passes && pascal_workload_scans(cal->workload) && cal->scan_runs[r->run].W <= 1))
      continue;
    size_t k = 0;
    for (size_t j = 0; j < ic->n; j++)
      if (in_group(&ic->items[j], coord, kind, pool) && !same_key(cal, r->run, ic->items[j].run))
        v[k++] = rate_of(&ic->items[j], coord);
    if (k == 0)
      continue;
    double rate = rate_of(r, coord);
    double lo, hi;
    if (kind == PASCAL_TRANSFER_EXTRAP) {
      qsort(v, k, sizeof *v, cmp_double);
      lo = fmin(0, quantile(v, k, 0.1)), hi = fmax(0, quantile(v, k, 0.9));
    } else {
      for (size_t j = 0; j < k; j++)
        v[j] = fabs(v[j]);
      qsort(v, k, sizeof *v, cmp_double);
      hi = quantile(v, k, PASCAL_INTERVAL_LEVEL), lo = -hi;
    }
    n++;
    in += rate >= lo && rate <= hi;
  }
  free(v);
  *n_out = n;
  return n ? 100.0 * (double)in / (double)n : NAN;
}

static void print_fold_coverage(const pascal_calibration *cal,
                                const pascal_interval_calibration *ic)
{
  printf("fold coverage, key held out (%% of a group's K rates inside the quantiles of its "
         "group's rates from other keys; scans: all runs / above one pass)\n");
  for (int c = 0; c < PASCAL_COORDINATES; c++)
    for (int k = 0; k < PASCAL_TRANSFER_KINDS; k++) {
      if (!ic->group[c][k].n[PASCAL_INTERVAL_K])
        continue;
      char name[64];
      pascal_signature_name(PASCAL_SIGNATURE_BIT(c, k), name, sizeof name);
      size_t n, n1;
      double all = held_key_coverage(cal, ic, c, k, -1, -1, false, &n);
      double above = held_key_coverage(cal, ic, c, k, -1, -1, true, &n1);
      printf("  %-30s %5.1f %% of %zu, %5.1f %% of %zu\n", name, all, n, above, n1);
      for (int a = 0; k == PASCAL_TRANSFER_EXTRAP && a < PASCAL_EXTRAP_ACTIONS; a++) {
        if (!ic->action[c][a].n[PASCAL_INTERVAL_K])
          continue;
        double own = held_key_coverage(cal, ic, c, k, a, a, false, &n);
        double own1 = held_key_coverage(cal, ic, c, k, a, a, true, &n1);
        double mix = held_key_coverage(cal, ic, c, k, a, -1, false, &n);
        double mix1 = held_key_coverage(cal, ic, c, k, a, -1, true, &n1);
        printf("    %-28s %5.1f %% of %zu, %5.1f %% of %zu (every action's: %5.1f %%, %5.1f %%)\n",
               pascal_extrapolation_action_name((pascal_extrapolation_action)a), own, n, own1, n1,
               mix, mix1);
      }
    }
  size_t n, n1;
  double all = held_key_coverage(cal, ic, ALIGNED, PASCAL_TRANSFER_EXTRAP, -1, -1, false, &n);
  double above = held_key_coverage(cal, ic, ALIGNED, PASCAL_TRANSFER_EXTRAP, -1, -1, true, &n1);
  printf("  %-30s %5.1f %% of %zu, %5.1f %% of %zu\n", "aligned", all, n, above, n1);
  printf("\n");
}

static void print_row(const char *name, const pascal_coverage_group *g)
{
  printf("  %-44s %5zu %7.1f %7.2f %8.2f %8.2f", name, g->n_runs,
         g->n_runs ? 100.0 * (double)g->n_covered / (double)g->n_runs : NAN, g->median_ratio,
         g->mape_pascal, g->mape_aligned);
  if (g->n_timed)
    printf(" %6.1f (%zu)", 100.0 * (double)g->n_time_covered / (double)g->n_timed, g->n_timed);
  printf("\n");
}

static void print_panel(const char *title, const pascal_loko_report *rep)
{
  if (!rep)
    return;
  const pascal_coverage *c = &rep->coverage;
  printf("%s: %zu runs, %zu scored, interval level %.0f %%\n", title, rep->n_runs, rep->n_scored,
         100 * c->level);
  printf("  %-44s %5s %7s %7s %8s %8s %s\n", "group (transfers)", "runs", "cover%", "hi/lo",
         "PASCAL%", "aligned%", "time cover% (timed)");
  print_row("all", &c->all);
  for (size_t i = 0; i < c->n_groups; i++) {
    char name[128];
    pascal_signature_name(c->group[i].signature, name, sizeof name);
    print_row(name, &c->group[i]);
  }
  printf("\n");
}

static int load(const char *path, json_t **doc, pascal_codec_bundle *b, pascal_error *err)
{
  pascal_codec_bundle_init(b);
  return pascal_codec_load_file(path, doc, err) || pascal_codec_bundle_decode(*doc, b, err);
}

int main(int argc, char **argv)
{
  if (argc < 2) {
    fprintf(stderr, "usage: %s BUNDLE.json [OFFGRID.json ...]\n", argv[0]);
    return 2;
  }
  int n_parts = argc - 2, rc = 1;
  pascal_error err = {0};
  json_t *doc = NULL, **part_doc = calloc((size_t)n_parts + 1, sizeof *part_doc);
  pascal_codec_bundle b, *parts = calloc((size_t)n_parts + 1, sizeof *parts);
  const pascal_calibration **part_cal = calloc((size_t)n_parts + 1, sizeof *part_cal);
  pascal_interval_calibration ic = {0};
  pascal_loko_report rep = {0};
  int have_rep = 0, loaded = 0;
  const char *where = argv[1];
  if (!part_doc || !parts || !part_cal || load(argv[1], &doc, &b, &err))
    goto done;
  for (; loaded < n_parts; loaded++) {
    where = argv[2 + loaded];
    if (load(argv[2 + loaded], &part_doc[loaded], &parts[loaded], &err))
      goto done;
    part_cal[loaded] = &parts[loaded].cal;
  }
  where = argv[1];
  if ((n_parts && pascal_calibration_set_panel(&b.cal, PASCAL_RUNS_OFFGRID, part_cal,
                                               (size_t)n_parts, &err)) ||
      pascal_interval_build(&b.cal, &ic, &err) || pascal_loko_run(&b.cal, &rep, &err))
    goto done;
  have_rep = 1;
  printf("%s: %zu calibration runs, %zu residuals, %zu repeat deviations\n\n", argv[1],
         pascal_calibration_run_count(&b.cal), ic.n, ic.n_noise);
  print_groups(&ic);
  print_fold_coverage(&b.cal, &ic);
  print_panel("held-out panel", rep.heldout);
  print_panel("off-grid panel", rep.offgrid);
  rc = 0;
done:
  if (rc)
    fprintf(stderr, "%s: %s: %s\n", where, err.field, err.message);
  if (have_rep)
    pascal_loko_report_free(&rep);
  pascal_interval_free(&ic);
  for (int i = 0; parts && i <= loaded && i < n_parts; i++) { /* the loaded ones, the failed one */
    pascal_codec_bundle_free(&parts[i]);
    json_decref(part_doc[i]);
  }
  pascal_codec_bundle_free(&b);
  json_decref(doc);
  free(part_doc);
  free(parts);
  free(part_cal);
  return rc;
}
