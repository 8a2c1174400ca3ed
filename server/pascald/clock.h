/*
 * clock.h - the daemon's two clocks. Every wait and duration inside the
 * process runs on CLOCK_MONOTONIC, which no wall-clock step moves: condition
 * variables are created on it and their deadlines read from it. Lease expiry
 * is kept in the store in wall time (it must outlive the process), so the
 * wall time handed to the lease logic comes from pd_wall_now(), which
 * notices a step of the wall clock against the monotonic one and moves every
 * live lease's expiry by the same step: a lease keeps its remaining time
 * whichever way the clock jumped.
 */
#ifndef PASCALD_CLOCK_H
#define PASCALD_CLOCK_H

#include <pthread.h>
#include <stdint.h>
#include <time.h>

struct pascal_store;

/* A step of at least this many seconds is handled (slewing stays below). */
#define PD_CLOCK_STEP_S 2

/* The wall clock's offset from the monotonic one, as last seen. */
typedef struct pd_wallclock {
  pthread_mutex_t mu;
  int known;         /* 0 until the first reading */
  int64_t offset_ns; /* CLOCK_REALTIME - CLOCK_MONOTONIC */
} pd_wallclock;

/* Initialise `c` on CLOCK_MONOTONIC. Returns 0 or -1. */
int pd_cond_init_monotonic(pthread_cond_t *c);
/* The CLOCK_MONOTONIC time `ms` milliseconds from now, for
 * pthread_cond_timedwait on a condition from pd_cond_init_monotonic. */
void pd_deadline_after_ms(struct timespec *at, uint64_t ms);

void pd_wallclock_init(pd_wallclock *w);
void pd_wallclock_destroy(pd_wallclock *w);
/* Wall time in seconds for the lease logic. On a step of PD_CLOCK_STEP_S or
 * more since the last call, every live lease in `store` is moved by the
 * step (pascal_store_leases_shift) and the step is logged. */
int64_t pd_wall_now(pd_wallclock *w, struct pascal_store *store);

#endif
