/*
 * check.h - the smallest test harness that says what failed and where.
 *
 * A test program calls CHECK*() as often as it likes and ends with
 * `return check_summary();`, which prints "N passed, M failed" and returns
 * non-zero if anything failed. Failures print file:line and the values.
 */
#ifndef PASCAL_CHECK_H
#define PASCAL_CHECK_H

#include <stdint.h>

void check_record(int ok, const char *file, int line, const char *expr);
void check_record_near(double got, double want, double tol, const char *file, int line,
                       const char *expr);
void check_record_int(long long got, long long want, const char *file, int line, const char *expr);
int check_summary(void);
/* Number of failures so far: lets a loop stop after the first bad case. */
long check_failures(void);

#define CHECK(cond) check_record(!!(cond), __FILE__, __LINE__, #cond)
/* |got - want| <= tol, or both infinite with the same sign. */
#define CHECK_NEAR(got, want, tol)                                                                 \
  check_record_near((got), (want), (tol), __FILE__, __LINE__, #got " ~ " #want)
#define CHECK_INT(got, want)                                                                       \
  check_record_int((long long)(got), (long long)(want), __FILE__, __LINE__, #got " == " #want)

/* 1 in an AddressSanitizer build (gcc or clang): long runs check less there. */
#if defined(__SANITIZE_ADDRESS__)
#define SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SANITIZED 1
#endif
#endif
#ifndef SANITIZED
#define SANITIZED 0
#endif

#endif
