/*
 * curve_driver.c - exposes the numerical pieces of the dynamic predictor to
 * the SciPy oracle test (test_scipy_oracle.py), which recomputes them
 * independently in Python/SciPy: the curve fit of paper section 4.2 / App. C
 * Eq. trafficcurve (pascal/curve.h) and the transfer rules of section 4.3,
 * Eq. graph, and section 4.5 (pascal/predict.h).
 *
 * Reads cases from stdin, one per line: an operation, N, the N-long input
 * columns, then (except iso) Q and the Q-long query columns; numbers in any
 * strtod form.
 *   pchip N x y Q t      -> "slopes d_1..d_N" then "values S(t_1)..S(t_Q)"
 *   iso N y              -> "iso v_1..v_N" (isotonic regression)
 *   curve N W K Q w      -> "curve L(w_1)..L(w_Q)", or "error STATUS FIELD"
 *                           when the fit refuses the runs
 *   scan N d m size K Q qd qm qsize
 *       -> "scan", the calibration's reading in m between same-class
 *          references (model.graph: 0 anchored, 1 pooled), then, per query
 *          (qd, qm, qsize), four numbers: the
 *          least direct rule (0 exact, 1 graph, 2 clamp, 3 depth-fallback,
 *          4 resident, -1 refused), the reference sizes used, a_hat and K; run i is key
 *          (o = 1, tma, d_i, m_i) at N = size_i, W = 16 with K = K_i
 *   gemm N r c kappa Q qr qc
 *       -> "gemm" then, per query grid (qr, qc) tiles, five numbers: the
 *          least direct rule, the reference rows used, a_hat, K and K_0; run
 *          i is grid (r_i, c_i) at n_k = 16 with kappa = kappa_i
 * The device of scan and gemm has 48 SMs (48 resident CTAs), C = 1280
 * blocks of 16 KiB, 128 x 128 x 64 FP16 tiles; queries use W = 16, n_k = 16.
 * Every number is printed with 17 significant digits (round-trips exactly).
 * A malformed line ends the program with status 2 and a message on stderr.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pascal/curve.h"
#include "pascal/predict.h"
#include "test_device.h"

/* Largest N or Q of one case; the Python side stays far below it. */
#define DRIVER_MAX_POINTS  4096
#define DRIVER_MAX_COLUMNS 4
#define QUERY_W            16
#define QUERY_NK           16

/* The GEMM cases' cache (16 GiB) holds every panel: the static reference
 * of any query is its B_0. */
#define GEMM_CAPACITY_BLOCKS (1u << 20)

/* One parsed case: in[c][i] is input column c of point i, q[c][j] query
 * column c of query j. Owned by main (heap), reused line after line. */
typedef struct driver_case {
  size_t n, nq;
  double in[DRIVER_MAX_COLUMNS][DRIVER_MAX_POINTS];
  double q[DRIVER_MAX_COLUMNS][DRIVER_MAX_POINTS];
  double out[DRIVER_MAX_POINTS];
} driver_case;

typedef struct reader {
  char *cursor;
  int ok;
} reader;

static double read_double(reader *r)
{
  char *end;
  double v = strtod(r->cursor, &end); /* "nan", "inf" and overflow are cases too */
  if (end == r->cursor)
    r->ok = 0;
  r->cursor = end;
  return v;
}

static size_t read_count(reader *r)
{
  char *end;
  errno = 0;
  unsigned long v = strtoul(r->cursor, &end, 10);
  if (end == r->cursor || errno != 0 || v == 0 || v > DRIVER_MAX_POINTS)
    r->ok = 0;
  r->cursor = end;
  return r->ok ? (size_t)v : 0;
}

/* N, `cols` columns of N numbers, then (when qcols > 0) Q and `qcols`
 * columns of Q numbers. 0 if malformed. */
static int read_case(reader *r, driver_case *c, int cols, int qcols)
{
  c->n = read_count(r);
  for (int k = 0; k < cols; k++)
    for (size_t i = 0; i < c->n && r->ok; i++)
      c->in[k][i] = read_double(r);
  c->nq = qcols > 0 ? read_count(r) : 0;
  for (int k = 0; k < qcols; k++)
    for (size_t j = 0; j < c->nq && r->ok; j++)
      c->q[k][j] = read_double(r);
  return r->ok;
}

/* v[0..n) are integers in [lo, hi] (hi <= UINT32_MAX). */
static int integers_in_range(const double *v, size_t n, double lo, double hi)
{
  for (size_t i = 0; i < n; i++) /* the cast runs only on a value in range */
    if (!(v[i] >= lo && v[i] <= hi && v[i] == (double)(uint32_t)v[i]))
      return 0;
  return 1;
}

static void print_doubles(const char *tag, const double *v, size_t n)
{
  fputs(tag, stdout);
  for (size_t i = 0; i < n; i++)
    printf(" %.17g", v[i]);
  putchar('\n');
}

static int run_pchip(reader *r, driver_case *c)
{
  double d[DRIVER_MAX_POINTS];
  if (!read_case(r, c, 2, 1))
    return 0;
  pascal_pchip_slopes(c->in[0], c->in[1], c->n, d);
  for (size_t j = 0; j < c->nq; j++)
    c->out[j] = pascal_pchip_eval(c->in[0], c->in[1], d, c->n, c->q[0][j]);
  print_doubles("slopes", d, c->n);
  print_doubles("values", c->out, c->nq);
  return 1;
}

static int run_iso(reader *r, driver_case *c)
{
  if (!read_case(r, c, 1, 0))
    return 0;
  pascal_isotonic_fit(c->in[0], c->n, c->out);
  print_doubles("iso", c->out, c->n);
  return 1;
}

static int run_curve(reader *r, driver_case *c)
{
  if (!read_case(r, c, 2, 1))
    return 0;
  pascal_curve curve;
  pascal_error err;
  pascal_error_clear(&err);
  pascal_status st = pascal_curve_fit(c->in[0], c->in[1], c->n, &curve, "runs", &err);
  if (st != PASCAL_OK) {
    printf("error %s %s\n", pascal_status_name(st), err.field);
    return 1;
  }
  for (size_t j = 0; j < c->nq; j++)
    c->out[j] = pascal_curve_log_k(&curve, c->q[0][j]);
  print_doubles("curve", c->out, c->nq);
  return 1;
}

/* The model of the case's runs (scan columns d, m, size, K; GEMM columns
 * r, c, kappa). NULL, with a message on stderr, when libpascal refuses it. */
static pascal_model *case_model(pascal_workload workload, const driver_case *c)
{
  pascal_calibration cal;
  pascal_model *md = NULL;
  pascal_error err;
  pascal_status st = PASCAL_OK;
  test_device_calibration(&cal, workload, "oracle");
  cal.gemm.resident_ctas = 48;
  if (workload == PASCAL_WORKLOAD_GEMM)
    cal.device.capacity_blocks = GEMM_CAPACITY_BLOCKS;
  for (size_t i = 0; i < c->n && st == PASCAL_OK; i++) {
    if (workload == PASCAL_WORKLOAD_SCAN) {
      pascal_scan_run run = {
          .key = {1, PASCAL_PATH_TMA, (uint32_t)c->in[0][i], (uint32_t)c->in[1][i]},
          .N = (uint32_t)c->in[2][i],
          .W = QUERY_W};
      run.fill_bytes = c->in[3][i] * cal.device.block_bytes * (double)QUERY_W * run.N;
      st = pascal_calibration_append_scan(&cal, &run, &err);
    } else {
      uint32_t n_r = (uint32_t)c->in[0][i], n_c = (uint32_t)c->in[1][i];
      pascal_gemm_run run = {.shape = {128 * n_r, 128 * n_c, 64 * QUERY_NK}};
      run.fill_bytes = c->in[2][i] * 16384.0 * (n_r + n_c) * QUERY_NK; /* kappa B_0 */
      st = pascal_calibration_append_gemm(&cal, &run, &err);
    }
  }
  if (st == PASCAL_OK)
    st = pascal_model_fit(&cal, &md, &err);
  if (st != PASCAL_OK)
    fprintf(stderr, "curve_driver: %s calibration: %s: %s\n", pascal_workload_name(workload),
            err.field, err.message);
  pascal_calibration_free(&cal);
  return md;
}

static int run_scan(reader *r, driver_case *c)
{
  if (!read_case(r, c, 4, 3) || !integers_in_range(c->in[0], c->n, 1, UINT32_MAX) ||
      !integers_in_range(c->in[1], c->n, 0, UINT32_MAX) ||
      !integers_in_range(c->in[2], c->n, 1, 1 << 20) ||
      !integers_in_range(c->q[0], c->nq, 1, UINT32_MAX) ||
      !integers_in_range(c->q[1], c->nq, 0, UINT32_MAX) ||
      !integers_in_range(c->q[2], c->nq, 1, UINT32_MAX))
    return 0;
  pascal_model *md = case_model(PASCAL_WORKLOAD_SCAN, c);
  if (!md)
    return 0;
  pascal_reading_choice graph;
  pascal_model_graph(md, &graph);
  printf("scan %d", graph.rule == PASCAL_READ_POOLED);
  for (size_t j = 0; j < c->nq; j++) {
    pascal_scan_key key = {1, PASCAL_PATH_TMA, (uint32_t)c->q[0][j], (uint32_t)c->q[1][j]};
    pascal_scan_prediction p;
    if (pascal_model_predict_scan(md, &key, (uint32_t)c->q[2][j], QUERY_W, &p, NULL) != PASCAL_OK)
      printf(" -1 0 nan nan");
    else
      printf(" %d %zu %.17g %.17g", (int)p.why.rule, p.why.n_sizes, p.why.a, p.K);
  }
  putchar('\n');
  pascal_model_free(md);
  return 1;
}

static int run_gemm(reader *r, driver_case *c)
{
  /* tile counts up to 2^16 keep 128 n within uint32_t */
  if (!read_case(r, c, 3, 2) || !integers_in_range(c->in[0], c->n, 1, 65536) ||
      !integers_in_range(c->in[1], c->n, 1, 65536) ||
      !integers_in_range(c->q[0], c->nq, 1, 65536) || !integers_in_range(c->q[1], c->nq, 1, 65536))
    return 0;
  pascal_model *md = case_model(PASCAL_WORKLOAD_GEMM, c);
  if (!md)
    return 0;
  fputs("gemm", stdout);
  for (size_t j = 0; j < c->nq; j++) {
    pascal_gemm_shape shape = {128 * (uint32_t)c->q[0][j], 128 * (uint32_t)c->q[1][j],
                               64 * QUERY_NK};
    pascal_gemm_prediction p;
    if (pascal_model_predict_gemm(md, &shape, &p, NULL) != PASCAL_OK)
      printf(" -1 0 nan nan nan");
    else
      printf(" %d %zu %.17g %.17g %.17g", (int)p.why.rule, p.why.n_rows, p.why.a, p.K, p.K0);
  }
  putchar('\n');
  pascal_model_free(md);
  return 1;
}

int main(void)
{
  driver_case *c = malloc(sizeof *c);
  size_t cap = 1 << 16;
  char *line = malloc(cap);
  int status = 0;
  if (!c || !line) {
    fputs("curve_driver: out of memory\n", stderr);
    status = 2;
    goto done;
  }
  long line_no = 0;
  while (fgets(line, (int)cap, stdin)) {
    line_no++;
    if (!strchr(line, '\n') && !feof(stdin)) {
      fprintf(stderr, "curve_driver: line %ld is longer than %zu bytes\n", line_no, cap);
      status = 2;
      goto done;
    }
    reader r = {line, 1};
    char op[16];
    int used = 0;
    if (sscanf(line, "%15s%n", op, &used) != 1)
      continue; /* blank line */
    r.cursor += used;
    int ok = strcmp(op, "pchip") == 0   ? run_pchip(&r, c)
             : strcmp(op, "iso") == 0   ? run_iso(&r, c)
             : strcmp(op, "curve") == 0 ? run_curve(&r, c)
             : strcmp(op, "scan") == 0  ? run_scan(&r, c)
             : strcmp(op, "gemm") == 0  ? run_gemm(&r, c)
                                        : 0;
    if (!ok) {
      fprintf(stderr, "curve_driver: line %ld: malformed case '%s'\n", line_no, op);
      status = 2;
      goto done;
    }
  }
done:
  free(line);
  free(c);
  return status;
}
