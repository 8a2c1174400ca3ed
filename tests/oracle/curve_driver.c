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
 * Every number is printed with 17 significant digits (round-trips exactly).
 * A malformed line ends the program with status 2 and a message on stderr.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pascal/curve.h"

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
  double q[DRIVER_MAX_POINTS], out[DRIVER_MAX_POINTS];
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
    char op[8];
    int used = 0;
    if (sscanf(line, "%7s%n", op, &used) != 1)
      continue; /* blank line */
    r.cursor += used;
    int ok = strcmp(op, "pchip") == 0   ? run_pchip(&r, buf)
             : strcmp(op, "iso") == 0   ? run_iso(&r, buf)
             : strcmp(op, "curve") == 0 ? run_curve(&r, buf)
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
