/*
 * cmd_evaluate.c - `pascal evaluate BUNDLE... [--heldout PANEL[,PANEL...]]
 * [--offgrid PANEL[,PANEL...]] [--json]`: the paper's comparison table
 * (section 5.4) offline. Each bundle is fitted (a frozen one must match its
 * stored model), evaluated by leave-one-key-out folds and on each panel it
 * carries; --heldout and --offgrid make the measurements of other bundles (a
 * panel measured in parts, e.g. one per size, joined) the held-out or
 * off-grid panel of a single BUNDLE. The table has one row per bundle (its
 * held-out panel, else its LOKO folds) and the balanced overall row, with
 * 95% paired key-bootstrap intervals. Then each panel's coverage by the
 * answers' prediction intervals, per group of runs with the same transfers
 * (pascal/interval.h), with PASCAL's and aligned K = 1's MAPE; and, for
 * calibrations whose runs carry kernel times and whose device has peaks, a
 * table in the layout of the paper's Table e2e: latency MAPE of the
 * pipeline's time with the TileSight, PASCAL and measured fills.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "commands.h"
#include "output.h"

#define EVAL_BUNDLES_MAX     16
#define EVAL_PANEL_PARTS_MAX 8 /* --heldout A,B,...: a panel measured in parts */
#define PATH_TEXT_MAX        4096

/* The method in column c of the comparison table (PASCAL_METHODS). */
static const pascal_method_info *column(unsigned c)
{
  return pascal_method_info_of(pascal_method_at_column(c));
}

static double number(const json_t *obj, const char *key)
{
  const json_t *v = json_object_get(obj, key);
  return json_is_number(v) ? json_number_value(v) : NAN;
}

/* "lo..hi" of an interval member, or "-". */
static void interval_text(const json_t *ci, const char *key, char *buf, size_t size)
{
  const json_t *pair = json_object_get(ci, key);
  if (json_array_size(pair) == 2)
    snprintf(buf, size, "[%.2f, %.2f]", json_number_value(json_array_get(pair, 0)),
             json_number_value(json_array_get(pair, 1)));
  else
    snprintf(buf, size, "-");
}

static void print_value(double v, const char *fmt_number)
{
  if (isfinite(v))
    printf(fmt_number, v);
  else
    printf("%12s", "-");
}

/* One row of the table: label, keys, then each column's balanced MAPE, with
 * PASCAL's interval; then the gaps with their intervals; floor and
 * diverged runs. */
static void print_row(const char *label, const json_t *row)
{
  char ci[64];
  const json_t *mape = json_object_get(row, "mape");
  interval_text(json_object_get(row, "ci"), column(0)->key, ci, sizeof ci);
  printf("%-30s", label);
  print_value(number(mape, column(0)->key), "%12.2f");
  printf(" %-18s", ci);
  for (unsigned c = 1; c < PASCAL_METHOD_COUNT; c++)
    print_value(number(mape, column(c)->key), "%12.2f");
  printf("\n%-30s", "  gap to PASCAL [95% CI]");
  for (unsigned c = 1; c < PASCAL_METHOD_COUNT; c++) {
    interval_text(json_object_get(row, "gap_ci"), column(c)->key, ci, sizeof ci);
    double gap = number(json_object_get(row, "gap"), column(c)->key);
    if (isfinite(gap))
      printf("  %s %+.2f %s", column(c)->title, gap, ci);
  }
  double floor = number(row, "floor_mape");
  printf("\n%-30s", "  repeat floor");
  if (isfinite(floor))
    printf("  %.2f (%lld runs)", floor,
           (long long)json_integer_value(json_object_get(row, "n_floor_runs")));
  else
    printf("  - (no repeats)");
  printf("   K > 1.05 x aligned: %lld of %lld runs\n",
         (long long)json_integer_value(json_object_get(row, "n_above")),
         (long long)json_integer_value(json_object_get(row, "n_scored")));
}

static void print_table(const json_t *table)
{
  const json_t *boot = json_object_get(table, "bootstrap");
  printf("balanced MAPE (%%) of the fill-equivalent K; 95%% paired key-bootstrap intervals "
         "(%lld resamples, seed %lld); gap = baseline - PASCAL\n\n",
         (long long)json_integer_value(json_object_get(boot, "resamples")),
         (long long)json_integer_value(json_object_get(boot, "seed")));
  printf("%-30s%12s %-18s", "workload / device (keys)", column(0)->title, "  [95% CI]");
  for (unsigned c = 1; c < PASCAL_METHOD_COUNT; c++)
    printf("%12s", column(c)->title);
  printf("\n");
  size_t i;
  const json_t *row;
  json_array_foreach(json_object_get(table, "rows"), i, row)
  {
    char label[96];
    snprintf(label, sizeof label, "%s %s %s (%lld)",
             json_string_value(json_object_get(row, "workload")),
             json_string_value(json_object_get(row, "device")),
             json_string_value(json_object_get(row, "validation")),
             (long long)json_integer_value(json_object_get(row, "n_keys")));
    print_row(label, row);
  }
  print_row("balanced overall", json_object_get(table, "overall"));
}

/* One row of the latency table: label, runs, then each cache input's
 * latency MAPE with its interval, then TileSight's paired gap to PASCAL. */
static void print_latency_row(const char *label, const char *runs, const json_t *row)
{
  const json_t *mape = json_object_get(row, "mape");
  char ci[64], count[48];
  snprintf(count, sizeof count, "%s (%lld)", runs,
           (long long)json_integer_value(json_object_get(row, "n_runs")));
  printf("%-26s %-17s", label, count);
  for (int c = 0; c < PASCAL_CACHE_COUNT; c++) {
    const char *input = pascal_cache_input_name((pascal_cache_input)c);
    interval_text(json_object_get(row, "ci"), input, ci, sizeof ci);
    print_value(number(mape, input), "%9.2f");
    printf(" %-18s", ci);
  }
  interval_text(json_object_get(row, "gap_ci"), "tilesight", ci, sizeof ci);
  double gap = number(json_object_get(row, "gap"), "tilesight");
  if (isfinite(gap))
    printf(" %+.2f %s", gap, ci);
  printf("\n");
}

/* The paper's Table e2e: each timed calibration's held-out panel (else its
 * LOKO folds), all runs and the DRAM-bound ones, with the report's `key`
 * rows ("latency": the pipeline on peaks; "latency_calibrated"). */
static void print_latency(const json_t *doc, const char *key, const char *title)
{
  size_t i;
  const json_t *cal;
  int header = 0;
  json_array_foreach(json_object_get(doc, "calibrations"), i, cal)
  {
    const json_t *report = json_object_get(cal, "report");
    const json_t *heldout = json_object_get(report, "heldout");
    const json_t *lat = json_object_get(heldout ? heldout : report, key);
    if (!lat)
      continue;
    if (!header++) {
      printf("\nlatency MAPE (%%) of %s with each cache input (key-balanced, "
             "95%% paired key-bootstrap intervals); DRAM-bound: measured fills raise the time "
             "by > %.0f%% over no DRAM traffic; gap = TileSight - PASCAL\n\n%-26s %-17s",
             title, 100 * number(lat, "dram_bound_rise"), "workload / device", "runs");
      for (int c = 0; c < PASCAL_CACHE_COUNT; c++)
        printf("%9s %-18s", pascal_cache_input_title((pascal_cache_input)c), "  [95% CI]");
      printf(" %s\n", "gap [95% CI]");
    }
    char label[96];
    snprintf(label, sizeof label, "%s %s %s", json_string_value(json_object_get(cal, "workload")),
             json_string_value(json_object_get(cal, "device")), heldout ? "held-out" : "LOKO");
    print_latency_row(label, "all", json_object_get(lat, "all"));
    const json_t *dram = json_object_get(lat, "dram_bound");
    if (json_integer_value(json_object_get(dram, "n_runs")) > 0)
      print_latency_row(label, "DRAM-bound", dram);
    else
      printf("%-26s %-17s\n", label, "DRAM-bound (0)");
  }
}

/* One row of a coverage table. */
static void print_coverage_row(const char *label, const char *group, const json_t *g)
{
  printf("%-28s %-46s %5lld %7.1f %6.2f %8.2f %8.2f\n", label, group,
         (long long)json_integer_value(json_object_get(g, "n_runs")), number(g, "coverage_pct"),
         number(g, "median_K_high_over_low"), number(g, "pascal_pct"), number(g, "aligned_pct"));
}

/* Each panel's coverage: per group of transfers, the share of runs inside
 * their interval, its median width and the MAPE of PASCAL and of aligned
 * K = 1 over the group's runs. */
static void print_coverage(const json_t *doc)
{
  static const char *const panels[] = {"heldout", "offgrid"}, *const names[] = {"held-out",
                                                                                "off-grid"};
  size_t i, j;
  const json_t *cal, *g;
  int header = 0;
  json_array_foreach(json_object_get(doc, "calibrations"), i, cal)
  {
    for (size_t p = 0; p < 2; p++) {
      const json_t *report = json_object_get(cal, "report");
      const json_t *cov = json_object_get(json_object_get(report, panels[p]), "coverage");
      if (!cov)
        continue;
      if (!header++)
        printf("\ncoverage of the answers' %.0f%% intervals of K on the panels, per group of runs "
               "with the same transfers (run-mean MAPE, %%)\n\n%-28s %-46s %5s %7s %6s %8s %8s\n",
               100 * number(cov, "level"), "workload / device / panel", "group (transfers)", "runs",
               "cover%", "hi/lo", "PASCAL", "aligned");
      char label[96];
      snprintf(label, sizeof label, "%s %s %s", json_string_value(json_object_get(cal, "workload")),
               json_string_value(json_object_get(cal, "device")), names[p]);
      print_coverage_row(label, "all", json_object_get(cov, "all"));
      json_array_foreach(json_object_get(cov, "groups"), j, g)
          print_coverage_row("", json_string_value(json_object_get(g, "transfers")), g);
    }
  }
}

/* Parts of a panel list: 1 to EVAL_PANEL_PARTS_MAX non-empty paths
 * separated by commas; 0 when malformed. */
static size_t panel_parts(const char *list)
{
  size_t n = 0;
  for (const char *p = list;; p++) {
    size_t len = strcspn(p, ",");
    if (len == 0 || len >= PATH_TEXT_MAX || ++n > EVAL_PANEL_PARTS_MAX)
      return 0;
    p += len;
    if (!*p)
      return n;
  }
}

/* Read the panel bundles of the well-formed comma-separated `list` and make
 * them, together, the panel `set` of `cal`. */
static int attach_panel(const char *list, pascal_run_set set, pascal_calibration *cal)
{
  pascal_codec_bundle parts[EVAL_PANEL_PARTS_MAX];
  const pascal_calibration *cals[EVAL_PANEL_PARTS_MAX];
  char path[PATH_TEXT_MAX];
  size_t n = 0;
  pascal_error err = {0};
  pascal_status st = PASCAL_OK;
  for (const char *p = list; !st && *p; n++) {
    size_t len = strcspn(p, ",");
    memcpy(path, p, len);
    path[len] = '\0';
    pascal_codec_bundle_init(&parts[n]);
    st = cli_read_bundle(path, &parts[n], &err);
    cals[n] = &parts[n].cal;
    p += len + (p[len] == ',');
  }
  const char *what = st ? path : list;
  if (!st)
    st = pascal_calibration_set_panel(cal, set, cals, n, &err);
  int rc = st ? cli_input_error("evaluate", what, &err) : CLI_EXIT_OK;
  for (size_t i = 0; i < n; i++)
    pascal_codec_bundle_free(&parts[i]);
  return rc;
}

/* Load, attach the panels (lists by run set; NULL: the bundle's own),
 * evaluate. */
static int evaluate_one(const char *path, const char *const panel_list[PASCAL_RUN_SETS],
                        pascal_codec_bundle *bundle, pascal_loko_report *report)
{
  pascal_model *model = NULL;
  pascal_error err = {0};
  int rc = cli_load_model("evaluate", path, bundle, &model);
  pascal_model_free(model); /* loaded only to check a frozen bundle's model */
  if (rc)
    return rc;
  for (int set = PASCAL_RUNS_HELDOUT; set < PASCAL_RUN_SETS; set++)
    if (panel_list[set] && (rc = attach_panel(panel_list[set], (pascal_run_set)set, &bundle->cal)))
      return rc;
  if (pascal_loko_run(&bundle->cal, report, &err))
    return cli_input_error("evaluate", path, &err);
  return CLI_EXIT_OK;
}

/* {"calibrations": [{"device", "workload", "report"}...], "table": {...}} */
static pascal_status encode_all(pascal_codec_bundle *bundles, pascal_loko_report *reports, size_t n,
                                json_t **out, pascal_error *err)
{
  const pascal_loko_report *rp[EVAL_BUNDLES_MAX];
  const char *devices[EVAL_BUNDLES_MAX];
  json_t *doc = json_object(), *list = json_array(), *table = NULL;
  json_object_set_new(doc, "calibrations", list);
  pascal_status st = PASCAL_OK;
  for (size_t i = 0; !st && i < n; i++) {
    json_t *report = NULL;
    rp[i] = &reports[i];
    devices[i] = bundles[i].cal.device.name;
    if (!(st = pascal_codec_loko_encode(&reports[i], &report, err)))
      json_array_append_new(list, json_pack("{s:s,s:s,s:o}", "device", devices[i], "workload",
                                            pascal_workload_name(bundles[i].cal.workload), "report",
                                            report));
  }
  if (!st && !(st = pascal_codec_table_encode(rp, devices, n, &table, err)))
    json_object_set_new(doc, "table", table);
  if (st) {
    json_decref(doc);
    return st;
  }
  *out = doc;
  return PASCAL_OK;
}

int cli_cmd_evaluate(int argc, char **argv)
{
  const char *panel[PASCAL_RUN_SETS] = {NULL}, *paths[EVAL_BUNDLES_MAX];
  int json = 0;
  cli_arg args[] = {{"heldout", 0, CLI_ARG_STRING, 0, &panel[PASCAL_RUNS_HELDOUT], 0, 0,
                     "PANEL[,PANEL...]", "bundles whose runs score the model as its held-out panel",
                     0},
                    {"offgrid", 0, CLI_ARG_STRING, 0, &panel[PASCAL_RUNS_OFFGRID], 0, 0,
                     "PANEL[,PANEL...]", "bundles whose runs score it off the calibration grid", 0},
                    {"json", 0, CLI_ARG_FLAG, 0, &json, 0, 0, NULL,
                     "print the JSON report instead of the table", 0}};
  size_t n = 0;
  int rc = cli_parse("evaluate", argc, argv, args, N_ARGS(args), paths, 1, EVAL_BUNDLES_MAX, &n);
  if (rc)
    return rc;
  for (int set = PASCAL_RUNS_HELDOUT; set < PASCAL_RUN_SETS; set++)
    if (panel[set] && (n != 1 || !panel_parts(panel[set]))) {
      pascal_error err = {0};
      const char *name = pascal_run_set_name((pascal_run_set)set);
      if (n != 1)
        pascal_error_set(&err, PASCAL_EINVAL, name, "--%s needs exactly one BUNDLE", name);
      else
        pascal_error_set(&err, PASCAL_EINVAL, name,
                         "takes 1 to %d bundle paths separated by commas", EVAL_PANEL_PARTS_MAX);
      return cli_arg_error("evaluate", args, N_ARGS(args), &err);
    }
  pascal_codec_bundle bundles[EVAL_BUNDLES_MAX];
  pascal_loko_report reports[EVAL_BUNDLES_MAX];
  size_t done = 0;
  for (size_t i = 0; i < n; i++)
    pascal_codec_bundle_init(&bundles[i]);
  for (; done < n && !rc; done++)
    rc = evaluate_one(paths[done], panel, &bundles[done], &reports[done]);
  if (rc)
    done--; /* the failed one holds no report */
  json_t *doc = NULL;
  pascal_error err = {0};
  if (!rc && encode_all(bundles, reports, n, &doc, &err))
    rc = cli_input_error("evaluate", paths[0], &err);
  if (!rc && json) {
    rc = cli_print(doc, 1);
  } else if (!rc) {
    print_table(json_object_get(doc, "table"));
    print_coverage(doc);
    print_latency(doc, "latency",
                  "the pipeline on measured peaks (the paper's protocol, nothing fitted)");
    print_latency(doc, "latency_calibrated",
                  "the time calibrated on each calibration's own kernel times");
    json_decref(doc);
  }
  for (size_t i = 0; i < done; i++)
    pascal_loko_report_free(&reports[i]);
  for (size_t i = 0; i < n; i++)
    pascal_codec_bundle_free(&bundles[i]);
  return rc;
}
