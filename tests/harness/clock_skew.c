/*
 * clock_skew.c - an LD_PRELOAD library that steps the wall clock of one
 * process without touching the machine's: CLOCK_REALTIME (clock_gettime,
 * gettimeofday, time) reads as the real time plus the whole seconds written
 * in the file named by PASCAL_TEST_CLOCK_SKEW_FILE (re-read at every call;
 * missing or unreadable: 0). CLOCK_MONOTONIC is left alone, as a real step
 * leaves it. Used by tests/api/test_clock_steps.py.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/time.h>
#include <time.h>

int clock_gettime(clockid_t id, struct timespec *ts);
int gettimeofday(struct timeval *restrict tv, void *restrict tz);
time_t time(time_t *out);

static long long skew(void)
{
  const char *path = getenv("PASCAL_TEST_CLOCK_SKEW_FILE");
  FILE *f = path ? fopen(path, "r") : NULL;
  long long s = 0;
  if (f) {
    if (fscanf(f, "%lld", &s) != 1)
      s = 0;
    fclose(f);
  }
  return s;
}

static int real_clock(clockid_t id, struct timespec *ts)
{
  static int (*real)(clockid_t, struct timespec *);
  if (!real)
    real = (int (*)(clockid_t, struct timespec *))dlsym(RTLD_NEXT, "clock_gettime");
  return real(id, ts);
}

int clock_gettime(clockid_t id, struct timespec *ts)
{
  int rc = real_clock(id, ts);
  if (rc == 0 && (id == CLOCK_REALTIME || id == CLOCK_REALTIME_COARSE))
    ts->tv_sec += (time_t)skew();
  return rc;
}

int gettimeofday(struct timeval *restrict tv, void *restrict tz)
{
  (void)tz;
  struct timespec ts;
  int rc = clock_gettime(CLOCK_REALTIME, &ts);
  if (rc == 0) {
    tv->tv_sec = ts.tv_sec;
    tv->tv_usec = ts.tv_nsec / 1000;
  }
  return rc;
}

time_t time(time_t *out)
{
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  if (out)
    *out = ts.tv_sec;
  return ts.tv_sec;
}
