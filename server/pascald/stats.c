/*
 * stats.c - lock-free request accounting (C11 atomics, relaxed). Rendering
 * for /v1/stats and /metrics lives in h_meta.c.
 */
#include "stats.h"

#include <math.h>
#include <string.h>

const double pd_stats_bucket_le[PD_STATS_BUCKETS] = {0.00005, 0.0001, 0.00025, 0.0005, 0.001,
                                                     0.0025,  0.005,  0.01,    0.025,  0.05,
                                                     0.1,     0.25,   1.0,     5.0,    INFINITY};

const unsigned pd_stats_status_codes[PD_STATS_STATUSES - 1] = {
    200, 201, 202, 400, 401, 403, 404, 405, 409, 413, 415, 421, 422, 500, 502, 503, 0};

uint64_t pd_now_ns(void)
{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

int pd_stats_init(pd_stats *s, const char *const *names, size_t n)
{
  memset(s, 0, sizeof *s);
  if (n + 1 > PD_STATS_ROUTES_MAX)
    return -1;
  clock_gettime(CLOCK_MONOTONIC, &s->started);
  s->started_wall = time(NULL);
  for (size_t i = 0; i < n; i++)
    s->route_names[i] = names[i];
  s->route_names[n] = "unmatched";
  s->nroutes = n + 1;
  for (size_t r = 0; r < PD_STATS_ROUTES_MAX; r++) {
    for (size_t k = 0; k < PD_STATS_STATUSES; k++)
      atomic_init(&s->routes[r].by_status[k], 0);
    for (size_t k = 0; k < PD_STATS_BUCKETS; k++)
      atomic_init(&s->routes[r].latency[k], 0);
    atomic_init(&s->routes[r].latency_sum_ns, 0);
  }
  atomic_init(&s->predictions, 0);
  atomic_init(&s->predictions_refused, 0);
  atomic_init(&s->inflight, 0);
  return 0;
}

static size_t status_slot(unsigned status)
{
  for (size_t k = 0; k + 1 < PD_STATS_STATUSES; k++)
    if (pd_stats_status_codes[k] == status)
      return k;
  return PD_STATS_STATUSES - 1;
}

void pd_stats_record(pd_stats *s, size_t route, unsigned status, uint64_t ns)
{
  if (route >= s->nroutes)
    route = s->nroutes - 1;
  pd_route_stats *r = &s->routes[route];
  atomic_fetch_add_explicit(&r->by_status[status_slot(status)], 1, memory_order_relaxed);
  double sec = (double)ns * 1e-9;
  size_t b = 0;
  while (b + 1 < PD_STATS_BUCKETS && sec > pd_stats_bucket_le[b])
    b++;
  atomic_fetch_add_explicit(&r->latency[b], 1, memory_order_relaxed);
  atomic_fetch_add_explicit(&r->latency_sum_ns, ns, memory_order_relaxed);
}

double pd_stats_uptime(const pd_stats *s)
{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)(t.tv_sec - s->started.tv_sec) + 1e-9 * (double)(t.tv_nsec - s->started.tv_nsec);
}
