/*
 * curve_driver.c - exposes the numerical pieces of the curve fit (paper
 * section 4.2, App. C Eq. trafficcurve; pascal/curve.h) to the SciPy oracle
 * test (test_scipy_oracle.py), which compares them with an independent
 * Python/SciPy computation.
 *
 * Reads cases from stdin, one per line, numbers in any strtod form:
 *   pchip N x_1..x_N y_1..y_N Q t_1..t_Q
 *       -> "slopes d_1..d_N" then "values S(t_1)..S(t_Q)"
 *   iso N y_1..y_N
 *       -> "iso v_1..v_N"
 *   curve N W_1..W_N K_1..K_N Q w_1..w_Q
 *       -> "curve L(w_1)..L(w_Q)", or "error STATUS FIELD" when the fit fails
 *   transfer N m_1..m_N K_1..K_N Q q_1..q_Q
 *       -> "transfer" then, per query m = q_j, four numbers: rule (0 exact,
 *          1 graph, 2 clamp, -1 refused), the pooled PCHIP p (nan unless
 *          graph), a_hat and the predicted K, for the one-family calibration
 *          (o=1, tma, d=2) whose reference m_i measured K_i at N = 2048,
 *          W = 16 on a 48-SM device with C = 1280 blocks of 16 KiB
 *   gemm N r_1..r_N c_1..c_N kappa_1..kappa_N Q qr_1..qr_Q qc_1..qc_Q
 *       -> "gemm" then, per query grid (qr_j, qc_j) tiles, five numbers: the
 *          least direct rule, the reference rows used, a_hat, K and K_0, for
 *          the calibration whose grid (r_i, c_i) measured kappa_i at n_k = 16
 *          (128 x 128 x 64 FP16 tiles, 48 resident CTAs), queried at n_k = 16
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

/* Largest N or Q of one case; the Python side stays far below it. */
#define DRIVER_MAX_POINTS 4096

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

static void read_doubles(reader *r, double *out, size_t n)
{
  for (size_t i = 0; i < n && r->ok; i++)
    out[i] = read_double(r);
}

static void print_doubles(const char *tag, const double *v, size_t n)
{
  fputs(tag, stdout);
  for (size_t i = 0; i < n; i++)
    printf(" %.17g", v[i]);
  putchar('\n');
}

/* Buffers of one case; static storage would be global state, so the caller
 * owns them. */
typedef struct driver_buffers {
  double a[DRIVER_MAX_POINTS], b[DRIVER_MAX_POINTS], c[DRIVER_MAX_POINTS];
  double q[DRIVER_MAX_POINTS], q2[DRIVER_MAX_POINTS], out[DRIVER_MAX_POINTS];
} driver_buffers;

/* "N a_1..a_N b_1..b_N Q q_1..q_Q" into buf->a, buf->b, buf->q; 0 if malformed. */
static int read_pairs_and_queries(reader *r, driver_buffers *buf, size_t *n, size_t *nq)
{
  *n = read_count(r);
  read_doubles(r, buf->a, *n);
  read_doubles(r, buf->b, *n);
  *nq = read_count(r);
  read_doubles(r, buf->q, *nq);
  return r->ok;
}

static int run_pchip(reader *r, driver_buffers *buf)
{
  size_t n, nq;
  if (!read_pairs_and_queries(r, buf, &n, &nq))
    return 0;
  pascal_pchip_slopes(buf->a, buf->b, n, buf->c);
  for (size_t i = 0; i < nq; i++)
    buf->out[i] = pascal_pchip_eval(buf->a, buf->b, buf->c, n, buf->q[i]);
  print_doubles("slopes", buf->c, n);
  print_doubles("values", buf->out, nq);
  return 1;
}

static int run_iso(reader *r, driver_buffers *buf)
{
  size_t n = read_count(r);
  read_doubles(r, buf->a, n);
  if (!r->ok)
    return 0;
  pascal_isotonic_fit(buf->a, n, buf->out);
  print_doubles("iso", buf->out, n);
  return 1;
}

static int run_curve(reader *r, driver_buffers *buf)
{
  size_t n, nq;
  if (!read_pairs_and_queries(r, buf, &n, &nq))
    return 0;
  pascal_curve curve;
  pascal_error err;
  pascal_error_clear(&err);
  pascal_status st = pascal_curve_fit(buf->a, buf->b, n, &curve, "runs", &err);
  if (st != PASCAL_OK) {
    printf("error %s %s\n", pascal_status_name(st), err.field);
    return 1;
  }
  for (size_t i = 0; i < nq; i++)
    buf->out[i] = pascal_curve_log_k(&curve, buf->q[i]);
  print_doubles("curve", buf->out, nq);
  return 1;
}

#define TRANSFER_N 2048
#define TRANSFER_W 16
#define GEMM_NK 16

/* Fit the calibration whose run i is, for a scan, compute m = x[i] of the
 * family (1, tma, 2) at N = 2048, W = 16 with K = value[i], or, for GEMM,
 * grid (x[i], y[i]) tiles at n_k = 16 with kappa = value[i]; the device has
 * 48 SMs (48 resident CTAs) and C = 1280 blocks of 16 KiB. NULL, with a
 * message on stderr, when libpascal refuses the calibration. */
static pascal_model *oracle_model(pascal_workload workload, const double *x, const double *y,
                                  const double *value, size_t n)
{
  pascal_calibration cal;
  pascal_model *md = NULL;
  pascal_error err;
  pascal_status st = PASCAL_OK;
  pascal_calibration_init(&cal, workload);
  snprintf(cal.device.name, sizeof cal.device.name, "oracle");
  cal.device.sm_count = 48;
  cal.device.capacity_blocks = 1280;
  cal.device.block_bytes = 16384;
  cal.gemm.resident_ctas = 48;
  for (size_t i = 0; i < n && st == PASCAL_OK; i++) {
    if (workload == PASCAL_WORKLOAD_SCAN) {
      pascal_scan_run run = {.key = {1, PASCAL_PATH_TMA, 2, (uint32_t)x[i]},
                             .N = TRANSFER_N,
                             .W = TRANSFER_W};
      run.fill_bytes = value[i] * cal.device.block_bytes * (double)TRANSFER_W * TRANSFER_N;
      st = pascal_calibration_append_scan(&cal, &run, &err);
    } else {
      uint32_t n_r = (uint32_t)x[i], n_c = (uint32_t)y[i];
      pascal_gemm_run run = {.shape = {128 * n_r, 128 * n_c, 64 * GEMM_NK}};
      run.fill_bytes = value[i] * 16384.0 * (n_r + n_c) * GEMM_NK; /* kappa B_0 */
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

/* v[0..n) are integers in [lo, hi] (hi <= UINT32_MAX): m or tile counts. */
static int integers_in_range(const double *v, size_t n, double lo, double hi)
{
  for (size_t i = 0; i < n; i++) /* the cast runs only on a value in range */
    if (!(v[i] >= lo && v[i] <= hi && v[i] == (double)(uint32_t)v[i]))
      return 0;
  return 1;
}

static int run_transfer(reader *r, driver_buffers *buf)
{
  size_t n, nq;
  if (!read_pairs_and_queries(r, buf, &n, &nq) || !integers_in_range(buf->a, n, 0, UINT32_MAX) ||
      !integers_in_range(buf->q, nq, 0, UINT32_MAX))
    return 0;
  pascal_model *md = oracle_model(PASCAL_WORKLOAD_SCAN, buf->a, NULL, buf->b, n);
  if (!md)
    return 0;
  fputs("transfer", stdout);
  for (size_t j = 0; j < nq; j++) {
    pascal_scan_key key = {1, PASCAL_PATH_TMA, 2, (uint32_t)buf->q[j]};
    pascal_scan_prediction p;
    if (pascal_model_predict_scan(md, &key, TRANSFER_N, TRANSFER_W, &p, NULL) != PASCAL_OK) {
      printf(" -1 nan nan nan");
      continue;
    }
    const pascal_family_step *s = &p.why.size[0].depth[0];
    printf(" %d %.17g %.17g %.17g", (int)s->rule, s->p, s->a, p.K);
  }
  putchar('\n');
  pascal_model_free(md);
  return 1;
}

static int run_gemm(reader *r, driver_buffers *buf)
{
  size_t n = read_count(r);
  read_doubles(r, buf->a, n);
  read_doubles(r, buf->b, n);
  read_doubles(r, buf->c, n);
  size_t nq = read_count(r);
  read_doubles(r, buf->q, nq);
  read_doubles(r, buf->q2, nq);
  /* tile counts up to 2^16 keep 128 n within uint32_t */
  if (!r->ok || !integers_in_range(buf->a, n, 1, 65536) || !integers_in_range(buf->b, n, 1, 65536) ||
      !integers_in_range(buf->q, nq, 1, 65536) || !integers_in_range(buf->q2, nq, 1, 65536))
    return 0;
  pascal_model *md = oracle_model(PASCAL_WORKLOAD_GEMM, buf->a, buf->b, buf->c, n);
  if (!md)
    return 0;
  fputs("gemm", stdout);
  for (size_t j = 0; j < nq; j++) {
    pascal_gemm_shape shape = {128 * (uint32_t)buf->q[j], 128 * (uint32_t)buf->q2[j],
                               64 * GEMM_NK};
    pascal_gemm_prediction p;
    if (pascal_model_predict_gemm(md, &shape, &p, NULL) != PASCAL_OK) {
      printf(" -1 nan nan nan nan");
      continue;
    }
    printf(" %d %zu %.17g %.17g %.17g", (int)p.why.rule, p.why.n_rows, p.why.a, p.K, p.K0);
  }
  putchar('\n');
  pascal_model_free(md);
  return 1;
}

int main(void)
{
  driver_buffers *buf = malloc(sizeof *buf);
  size_t cap = 1 << 16;
  char *line = malloc(cap);
  int status = 0;
  if (!buf || !line) {
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
    int ok = strcmp(op, "pchip") == 0   ? run_pchip(&r, buf)
             : strcmp(op, "iso") == 0   ? run_iso(&r, buf)
             : strcmp(op, "curve") == 0    ? run_curve(&r, buf)
             : strcmp(op, "transfer") == 0 ? run_transfer(&r, buf)
             : strcmp(op, "gemm") == 0     ? run_gemm(&r, buf)
                                           : 0;
    if (!ok) {
      fprintf(stderr, "curve_driver: line %ld: malformed case '%s'\n", line_no, op);
      status = 2;
      goto done;
    }
  }
done:
  free(line);
  free(buf);
  return status;
}
