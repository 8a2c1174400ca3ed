/* static_exp.c - the static cluster experiment through a backend (static_exp.h). */
#include "static_exp.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>

#include "exitcode.h"
#include "pascal/cluster_exp.h"
#include "pascal_codec.h"

static const uint32_t block_sizes[] = {4096, 8192, 16384}; /* smallest first */

typedef struct mape_sum {
  double gap_law, sdcm, che;
  size_t n;
} mape_sum;

static int fail(const char *what, const pascal_error *err)
{
  fprintf(stderr, "pascal-agent: --static: %s: %s%s%s\n", what, err->message,
          err->field[0] ? " - field " : "", err->field);
  return AGENT_EXIT_BACKEND;
}

/* One block size: every cluster count, rows appended to `rows`. */
static int one_size(pascal_backend *b, const pascal_backend_ops *ops, uint32_t m, uint64_t n,
                    uint64_t c_blocks, uint32_t block, uint64_t h, json_t *rows,
                    pascal_static_table *table, mape_sum *sum, FILE *out)
{
  uint32_t counts[PASCAL_CLUSTER_COUNTS];
  size_t n_counts = 0;
  pascal_error err;
  pascal_error_clear(&err);
  uint64_t *phases = malloc(m * sizeof *phases);
  if (!phases)
    return AGENT_EXIT_FAILURE;
  int rc = AGENT_EXIT_OK;
  if (pascal_cluster_counts(m, counts, &n_counts, &err) != PASCAL_OK)
    rc = fail("cluster counts", &err);
  for (size_t i = 0; i < n_counts && rc == AGENT_EXIT_OK; i++) {
    pascal_cluster_expect e;
    pascal_backend_result r;
    pascal_backend_static run = {n, m, phases, h, block, (uint32_t)c_blocks};
    if (pascal_cluster_phases(n, m, counts[i], phases, &err) != PASCAL_OK ||
        pascal_cluster_expectations(n, c_blocks, phases, m, &e, &err) != PASCAL_OK) {
      rc = fail("expectations", &err);
      break;
    }
    if (ops->run_static(b, &run, &r, &err) != PASCAL_OK) {
      rc = fail("static run", &err);
      break;
    }
    const double k = r.fill_bytes / ((double)block * (double)h);
    sum->gap_law += fabs(e.gap_law / k - 1.0);
    sum->sdcm += fabs(e.sdcm / k - 1.0);
    sum->che += fabs(e.che / k - 1.0);
    sum->n++;
    if (table->n_rows < PASCAL_STATIC_ROWS_MAX)
      table->rows[table->n_rows++] =
          (pascal_static_row){block, (uint32_t)c_blocks, counts[i], k, e.gap_law, e.sdcm, e.che};
    fprintf(out, "%6u %7llu %4u %10.4f %9.4f %9.4f %9.4f %12.1f\n", block,
            (unsigned long long)c_blocks, counts[i], k, e.gap_law, e.sdcm, e.che,
            r.kernel_ns / 1e3);
    json_array_append_new(rows, json_pack("{s:I, s:I, s:I, s:f, s:f, s:f, s:f, s:f}", "block_bytes",
                                          (json_int_t)block, "C", (json_int_t)c_blocks, "clusters",
                                          (json_int_t)counts[i], "K", k, "gap_law", e.gap_law,
                                          "sdcm", e.sdcm, "che", e.che, "kernel_ns", r.kernel_ns));
  }
  free(phases);
  return rc;
}

/* The "static table:" line: the rows as POST /v1/devices takes them
 * (member static_experiment, docs/http-api.md). */
static void print_table(const pascal_static_table *table, FILE *out)
{
  json_t *obj = NULL;
  char *text = pascal_codec_static_table_encode(table, &obj, NULL) == PASCAL_OK
                   ? json_dumps(obj, JSON_COMPACT | JSON_REAL_PRECISION(17))
                   : NULL;
  if (text)
    fprintf(out, "static table: %s\n", text);
  free(text);
  json_decref(obj);
}

int agent_static_experiment(const agent_args *args, const pascal_backend_ops *ops,
                            const pascal_backend_device *dev, FILE *out)
{
  const uint64_t h = args->rounds;
  const uint64_t c_bytes = (uint64_t)dev->capacity_blocks * dev->block_bytes;
  pascal_backend *b = NULL;
  pascal_error err;
  pascal_error_clear(&err);
  if (ops->open(args->profile, &b, &err) != PASCAL_OK)
    return fail("backend open", &err);
  uint64_t ring;
  if (pascal_cluster_scan_blocks(dev->l2_bytes, block_sizes[0], &ring, &err) != PASCAL_OK) {
    ops->close(b);
    return fail("scan length", &err);
  }
  json_t *rows = json_array(), *skipped = json_array();
  mape_sum sum = {0, 0, 0, 0};
  pascal_static_table table = {.M = dev->sm_count, .N = (uint32_t)ring, .H = h};
  int rc = AGENT_EXIT_OK;
  fprintf(out, "static cluster experiment: M = %u, N = %llu, H = %llu, C = %llu bytes\n",
          dev->sm_count, (unsigned long long)ring, (unsigned long long)h,
          (unsigned long long)c_bytes);
  fprintf(out, "%6s %7s %4s %10s %9s %9s %9s %12s\n", "block", "C", "c", "K", "gap_law", "sdcm",
          "che", "kernel_us");
  for (size_t i = 0; i < sizeof block_sizes / sizeof *block_sizes && rc == AGENT_EXIT_OK; i++) {
    const uint64_t c_blocks = c_bytes / block_sizes[i];
    if (c_blocks < 1 || c_blocks >= ring) { /* the gap law needs 1 <= C < N */
      fprintf(out, "%6u: skipped, C = %llu blocks is not in [1, N)\n", block_sizes[i],
              (unsigned long long)c_blocks);
      json_array_append_new(skipped,
                            json_pack("{s:I, s:I, s:s}", "block_bytes", (json_int_t)block_sizes[i],
                                      "C", (json_int_t)c_blocks, "reason", "C is not below N"));
      continue;
    }
    rc =
        one_size(b, ops, dev->sm_count, ring, c_blocks, block_sizes[i], h, rows, &table, &sum, out);
  }
  ops->close(b);
  if (rc == AGENT_EXIT_OK) {
    const double n = sum.n ? (double)sum.n : NAN;
    json_t *doc = json_pack(
        "{s:s, s:s, s:I, s:I, s:I, s:I, s:o, s:o, s:{s:f, s:f, s:f}}", "device", dev->name, "arch",
        dev->arch, "M", (json_int_t)dev->sm_count, "N", (json_int_t)ring, "H", (json_int_t)h,
        "capacity_bytes", (json_int_t)c_bytes, "rows", rows, "skipped", skipped, "mape", "gap_law",
        100.0 * sum.gap_law / n, "sdcm", 100.0 * sum.sdcm / n, "che", 100.0 * sum.che / n);
    char *text = doc && sum.n ? json_dumps(doc, JSON_COMPACT) : NULL;
    if (text) {
      fprintf(out, "MAPE over %zu rows: gap law %.2f %%, SDCM-FA %.2f %%, Che %.2f %%\n", sum.n,
              100.0 * sum.gap_law / n, 100.0 * sum.sdcm / n, 100.0 * sum.che / n);
      fprintf(out, "static json: %s\n", text);
      print_table(&table, out);
    } else {
      fprintf(stderr, "pascal-agent: --static: no configuration had C below N = %llu\n",
              (unsigned long long)ring);
      rc = AGENT_EXIT_BACKEND;
    }
    free(text);
    json_decref(doc);
  } else {
    json_decref(rows);
    json_decref(skipped);
  }
  return rc;
}
