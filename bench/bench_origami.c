/*
 * bench_origami.c - Origami (pascal/origami.h) beside PASCAL on the runs of
 * GEMM calibration bundles (docs/origami.md): per key, the measured
 * fill-equivalent K, Origami's K with the two-timestep terms it comes from,
 * aligned K_0, and PASCAL's and Origami's fold (or panel) MAPE of K from
 * the evaluation (pascal_loko_run); then Origami's own predicted time
 * against the measured kernel times, key-balanced, on the calibration runs
 * and on each panel (the latency table's Origami column instead sends
 * Origami's fills through PASCAL's pipeline).
 *
 * Usage: bench_origami BUNDLE.json... [--keys]
 *   --keys  print the per-key table (else the summaries only)
 * Prints; asserts nothing. About a second per bundle.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pascal/evaluate.h"
#include "pascal/origami.h"
#include "pascal/predict.h"
#include "pascal_codec.h"

static pascal_origami_config config_of(const pascal_calibration *cal)
{
  uint32_t sm = cal->device.sm_count, M = cal->gemm.resident_ctas;
  return (pascal_origami_config){.tile_m = cal->gemm.tile_m,
                                 .tile_n = cal->gemm.tile_n,
                                 .tile_k = cal->gemm.tile_k,
                                 .elem_bytes = cal->gemm.elem_bytes,
                                 .group_m = 1,
                                 .occupancy = (M + sm - 1) / sm};
}

/* The per-key rows of one set of runs with its report's MAPEs. */
static void key_table(const pascal_calibration *cal, const pascal_gemm_run *runs, size_t n,
                      const pascal_loko_report *rep, const char *title)
{
  pascal_origami_device dev;
  pascal_origami_device_of(&cal->device, &dev);
  pascal_origami_config c = config_of(cal);
  printf("\n%s: per key (K averaged over its runs)\n", title);
  printf("%6s %6s %6s %4s %8s %8s %8s %8s %9s %9s\n", "Mg", "Ng", "CTAs", "T", "H", "K meas",
         "K Orig", "K_0", "PASCAL%", "Origami%");
  for (size_t k = 0; k < rep->n_keys; k++) {
    const pascal_key_report *kr = &rep->keys[k];
    double km = 0, ko = 0, k0 = 0, h = 0;
    size_t cnt = 0;
    uint64_t ctas = 0, ts = 0;
    for (size_t i = 0; i < n; i++) {
      if (runs[i].shape.Mg != kr->Mg || runs[i].shape.Ng != kr->Ng)
        continue;
      pascal_gemm_prediction g;
      pascal_origami_traffic t;
      if (pascal_gemm_geometry(&cal->gemm, &runs[i].shape, &g, NULL) ||
          pascal_origami_traffic_of(&dev, &runs[i].shape, &c, &t, NULL))
        continue;
      km += g.M * runs[i].fill_bytes / g.Q;
      ko += g.M * t.dram_bytes / t.requested_bytes;
      k0 += g.K0;
      h += t.hit_rate;
      ctas = t.ctas;
      ts = t.timesteps;
      cnt++;
    }
    if (!cnt)
      continue;
    printf("%6u %6u %6llu %4llu %8.3f %8.2f %8.2f %8.2f %9.2f %9.2f\n", kr->Mg, kr->Ng,
           (unsigned long long)ctas, (unsigned long long)ts, h / cnt, km / cnt, ko / cnt, k0 / cnt,
           kr->mape[PASCAL_METHOD_PASCAL], kr->mape[PASCAL_METHOD_ORIGAMI]);
  }
}

/* Origami's own time against the kernel times: key-balanced MAPE (%) and
 * how many runs it predicts faster than measured. */
static void own_time(const pascal_calibration *cal, const pascal_gemm_run *runs, size_t n,
                     const char *title)
{
  pascal_origami_device dev;
  pascal_origami_device_of(&cal->device, &dev);
  pascal_origami_config c = config_of(cal);
  double keys_sum = 0;
  size_t keys = 0, timed = 0, faster = 0;
  for (size_t i = 0; i < n; i++) {
    bool first = true; /* the first run of its key (Mg, Ng) */
    for (size_t j = 0; j < i && first; j++)
      first = runs[j].shape.Mg != runs[i].shape.Mg || runs[j].shape.Ng != runs[i].shape.Ng;
    if (!first)
      continue;
    double sum = 0;
    size_t cnt = 0;
    for (size_t j = i; j < n; j++) {
      pascal_origami_time t;
      if (runs[j].shape.Mg != runs[i].shape.Mg || runs[j].shape.Ng != runs[i].shape.Ng ||
          !runs[j].has_kernel_ns ||
          pascal_origami_time_of(&dev, &runs[j].shape, &c, &t, NULL) != PASCAL_OK)
        continue;
      double ratio = t.time_s / (1e-9 * runs[j].kernel_ns);
      sum += fabs(ratio - 1);
      cnt++;
      faster += ratio < 1;
    }
    if (cnt) {
      keys_sum += sum / cnt;
      keys++;
      timed += cnt;
    }
  }
  if (!keys) {
    printf("%-28s Origami's own time: no timed run (or no peaks)\n", title);
    return;
  }
  printf("%-28s Origami's own time: key-balanced MAPE %.2f %% over %zu keys (%zu runs), "
         "predicted faster than measured in %zu\n",
         title, 100 * keys_sum / keys, keys, timed, faster);
}

static void summary(const char *title, const pascal_loko_report *rep)
{
  printf("%-28s balanced MAPE of K:", title);
  for (unsigned col = 0; col < PASCAL_METHOD_COUNT; col++) {
    pascal_method m = pascal_method_at_column(col);
    printf("  %s %.2f", pascal_method_info_of(m)->title, rep->summary.balanced_mape[m]);
  }
  printf("\n%-28s Origami - PASCAL: %+.2f [%.2f, %.2f]\n", "",
         rep->summary.gap[PASCAL_METHOD_ORIGAMI], rep->summary.gap_ci[PASCAL_METHOD_ORIGAMI].lo,
         rep->summary.gap_ci[PASCAL_METHOD_ORIGAMI].hi);
}

static int one_bundle(const char *path, bool keys)
{
  pascal_error err = {0};
  json_t *doc = NULL;
  pascal_codec_bundle b;
  pascal_loko_report rep;
  pascal_codec_bundle_init(&b);
  if (pascal_codec_load_file(path, &doc, &err) || pascal_codec_bundle_decode(doc, &b, &err) ||
      pascal_loko_run(&b.cal, &rep, &err)) {
    fprintf(stderr, "bench_origami: %s: %s: %s\n", path, err.field, err.message);
    pascal_codec_bundle_free(&b);
    json_decref(doc);
    return 1;
  }
  const pascal_calibration *cal = &b.cal;
  if (cal->workload != PASCAL_WORKLOAD_GEMM) {
    fprintf(stderr, "bench_origami: %s: not a GEMM calibration\n", path);
    pascal_loko_report_free(&rep);
    pascal_codec_bundle_free(&b);
    json_decref(doc);
    return 1;
  }
  printf("== %s (%s, %u SMs, C = %.1f MiB)\n", path, cal->device.name, cal->device.sm_count,
         (double)cal->device.capacity_blocks * cal->device.block_bytes / (1 << 20));
  summary("LOKO folds", &rep);
  own_time(cal, cal->gemm_runs, cal->n_gemm_runs, "calibration runs");
  if (rep.heldout) {
    summary("held-out panel", rep.heldout);
    own_time(cal, cal->heldout_gemm_runs, cal->n_heldout_gemm_runs, "held-out panel");
  }
  if (rep.offgrid) {
    summary("off-grid panel", rep.offgrid);
    own_time(cal, cal->offgrid_gemm_runs, cal->n_offgrid_gemm_runs, "off-grid panel");
  }
  if (keys) {
    key_table(cal, cal->gemm_runs, cal->n_gemm_runs, &rep, "LOKO folds");
    if (rep.heldout)
      key_table(cal, cal->heldout_gemm_runs, cal->n_heldout_gemm_runs, rep.heldout,
                "held-out panel");
    if (rep.offgrid)
      key_table(cal, cal->offgrid_gemm_runs, cal->n_offgrid_gemm_runs, rep.offgrid,
                "off-grid panel");
  }
  printf("\n");
  pascal_loko_report_free(&rep);
  pascal_codec_bundle_free(&b);
  json_decref(doc);
  return 0;
}

int main(int argc, char **argv)
{
  bool keys = false;
  int rc = 0, bundles = 0;
  for (int i = 1; i < argc; i++)
    keys |= strcmp(argv[i], "--keys") == 0;
  for (int i = 1; i < argc; i++)
    if (strcmp(argv[i], "--keys") != 0) {
      rc |= one_bundle(argv[i], keys);
      bundles++;
    }
  if (!bundles) {
    fprintf(stderr, "usage: bench_origami BUNDLE.json... [--keys]\n");
    return 2;
  }
  return rc;
}
