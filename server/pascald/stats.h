/*
 * stats.h - request counters and latency histograms for /v1/stats and /metrics.
 *
 * Counters are C11 atomics updated with relaxed ordering: one fetch_add per
 * counter per request, no lock on the request path. Readers see a consistent
 * enough snapshot for monitoring (each counter is exact; counters may be read
 * a few requests apart from each other).
 */
#ifndef PASCALD_STATS_H
#define PASCALD_STATS_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#define PD_STATS_ROUTES_MAX 48 /* route table entries + 1 for "unmatched" */
#define PD_STATS_STATUSES   18 /* tracked HTTP statuses + "other" */
#define PD_STATS_BUCKETS    15 /* latency buckets, the last one is +Inf */

typedef struct pd_route_stats {
  atomic_uint_fast64_t by_status[PD_STATS_STATUSES];
  atomic_uint_fast64_t latency[PD_STATS_BUCKETS]; /* non-cumulative counts */
  atomic_uint_fast64_t latency_sum_ns;
} pd_route_stats;

typedef struct pd_stats {
  struct timespec started; /* CLOCK_MONOTONIC at start */
  time_t started_wall;
  size_t nroutes; /* routes in use, <= PD_STATS_ROUTES_MAX */
  const char *route_names[PD_STATS_ROUTES_MAX];
  pd_route_stats routes[PD_STATS_ROUTES_MAX];
  atomic_uint_fast64_t predictions; /* answered prediction items */
  atomic_uint_fast64_t predictions_refused;
  atomic_uint_fast64_t inflight; /* requests being processed */
} pd_stats;

/* Upper bounds of the latency buckets in seconds (last is +Inf). */
extern const double pd_stats_bucket_le[PD_STATS_BUCKETS];
/* Tracked statuses; slot PD_STATS_STATUSES-1 is "other". */
extern const unsigned pd_stats_status_codes[PD_STATS_STATUSES - 1];

/* `names[i]` labels route i ("POST /v1/predict"); the last slot is used for
 * requests that matched no route. Returns -1 if there are too many routes. */
int pd_stats_init(pd_stats *s, const char *const *names, size_t n);
void pd_stats_record(pd_stats *s, size_t route, unsigned status, uint64_t ns);
double pd_stats_uptime(const pd_stats *s);
uint64_t pd_now_ns(void);

#endif
