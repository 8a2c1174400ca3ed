/* check.c - counters and failure messages for check.h. */
#include "check.h"

#include <math.h>
#include <stdio.h>

static long passed, failed;

void check_record(int ok, const char *file, int line, const char *expr)
{
  if (ok) {
    passed++;
    return;
  }
  failed++;
  if (failed <= 50)
    fprintf(stderr, "%s:%d: CHECK failed: %s\n", file, line, expr);
}

void check_record_near(double got, double want, double tol, const char *file, int line,
                       const char *expr)
{
  int ok = (isinf(got) && isinf(want) && (got > 0) == (want > 0)) || fabs(got - want) <= tol;
  if (!ok && failed < 50)
    fprintf(stderr, "%s:%d: got %.17g, want %.17g (tol %g)\n", file, line, got, want, tol);
  check_record(ok, file, line, expr);
}

void check_record_int(long long got, long long want, const char *file, int line, const char *expr)
{
  if (got != want && failed < 50)
    fprintf(stderr, "%s:%d: got %lld, want %lld\n", file, line, got, want);
  check_record(got == want, file, line, expr);
}

long check_failures(void)
{
  return failed;
}

int check_summary(void)
{
  printf("%ld passed, %ld failed\n", passed, failed);
  return failed ? 1 : 0;
}
