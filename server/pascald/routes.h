/*
 * routes.h - the routing table: method + path pattern -> handler, with the
 * access level and body expectation of each route. Unknown path -> 404,
 * known path with another method -> 405 with an Allow header.
 */
#ifndef PASCALD_ROUTES_H
#define PASCALD_ROUTES_H

#include "pascald.h"
#include "stats.h"

typedef enum pd_body {
  PD_BODY_NONE = 0, /* no body expected (GET, or POST without input) */
  PD_BODY_JSON,     /* a JSON object is required */
  PD_BODY_OPTIONAL, /* a JSON object may be sent */
  PD_BODY_TEXT      /* a JSON object is required; the handler reads the text
                       itself (req->json is NULL; jread.h, jsonin.h) */
} pd_body;

/* Where a route runs (pool.h): memory-only routes on libmicrohttpd's
 * threads; a route that may wait (the store's lock, the network) on the
 * worker pool, its connection suspended meanwhile. */
typedef enum pd_work {
  PD_WORK_MEMORY = 0, /* reads memory only: never waits */
  PD_WORK_BLOCKING    /* reads or writes the store */
} pd_work;

typedef struct pd_route {
  const char *method;
  const char *pattern; /* segments; "{x}" matches one segment */
  pd_access access;
  pd_body body;
  pd_handler handler;
  pd_work work;
  const char *name; /* "POST /v1/predict", for stats */
} pd_route;

const pd_route *pd_routes(size_t *n);

/* pd_stats_init with one row per route, named as the route is; nonzero when
 * the table has more routes than PD_STATS_ROUTES_MAX. */
int pd_routes_stats_init(pd_stats *s);

#define PD_ROUTE_NOT_FOUND  (-1)
#define PD_ROUTE_BAD_METHOD (-2)
/* Match; fills req->params. On PD_ROUTE_BAD_METHOD `allow` lists the methods
 * of the path ("GET, POST"). */
int pd_route_match(const char *method, const char *path, pd_request *req, char *allow,
                   size_t allowlen);

#endif
