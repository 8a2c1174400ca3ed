/*
 * clock.c - monotonic waits, and wall time with its steps detected and the
 * leases moved with them (clock.h).
 */
#include "clock.h"

#include <inttypes.h>
#include <stdio.h>

#include "pascal_store.h"

static int64_t read_ns(clockid_t id)
{
  struct timespec t;
  clock_gettime(id, &t);
  return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

int pd_cond_init_monotonic(pthread_cond_t *c)
{
  pthread_condattr_t ca;
  if (pthread_condattr_init(&ca) != 0)
    return -1;
  int rc = pthread_condattr_setclock(&ca, CLOCK_MONOTONIC) || pthread_cond_init(c, &ca) ? -1 : 0;
  pthread_condattr_destroy(&ca);
  return rc;
}

void pd_deadline_after_ms(struct timespec *at, uint64_t ms)
{
  int64_t t = read_ns(CLOCK_MONOTONIC) + (int64_t)ms * 1000000;
  at->tv_sec = (time_t)(t / 1000000000);
  at->tv_nsec = (long)(t % 1000000000);
}

void pd_wallclock_init(pd_wallclock *w)
{
  pthread_mutex_init(&w->mu, NULL);
  w->known = 0;
  w->offset_ns = 0;
}

void pd_wallclock_destroy(pd_wallclock *w)
{
  pthread_mutex_destroy(&w->mu);
}

int64_t pd_wall_now(pd_wallclock *w, struct pascal_store *store)
{
  int64_t mono = read_ns(CLOCK_MONOTONIC), wall = read_ns(CLOCK_REALTIME);
  int64_t offset = wall - mono;
  pthread_mutex_lock(&w->mu);
  int64_t d = w->known ? offset - w->offset_ns : 0; /* rounded to whole seconds: */
  int64_t step_s = (d + (d < 0 ? -500000000 : 500000000)) / 1000000000;
  if (!w->known || step_s <= -PD_CLOCK_STEP_S || step_s >= PD_CLOCK_STEP_S) {
    /* under the lock, so that two requests never move the leases twice */
    int64_t moved = 0;
    pascal_error err;
    pascal_error_clear(&err);
    if (step_s && pascal_store_leases_shift(store, step_s, &moved, &err) != PASCAL_STORE_OK)
      fprintf(stderr, "pascald: the wall clock stepped by %+" PRId64 " s; leases not moved: %s\n",
              step_s, err.message);
    else {
      if (step_s)
        fprintf(stderr,
                "pascald: the wall clock stepped by %+" PRId64 " s; %" PRId64
                " live lease(s) moved with it\n",
                step_s, moved);
      w->offset_ns = offset;
      w->known = 1;
    }
  }
  pthread_mutex_unlock(&w->mu);
  return wall / 1000000000;
}
