/*
 * routes.c - the routing table, the segment matcher and the parsing of "{id}"
 * path parameters. Literal segments win over "{x}" segments because the
 * table lists literal routes first. HEAD takes the GET route of its path.
 */
#include "routes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "handlers.h"

#define R(m, p, a, b, h, w)                                                                        \
  {                                                                                                \
    m, p, a, b, h, w, m " " p                                                                      \
  }
#define MEM   PD_WORK_MEMORY
#define STORE PD_WORK_BLOCKING
static const pd_route route_table[] = {
    R("GET", "/", PD_ACCESS_OPEN, PD_BODY_NONE, pd_h_ui_index, MEM),
    R("GET", "/ui/{file}", PD_ACCESS_OPEN, PD_BODY_NONE, pd_h_ui_file, MEM),
    R("GET", "/healthz", PD_ACCESS_OPEN, PD_BODY_NONE, pd_h_healthz, MEM),
    R("GET", "/metrics", PD_ACCESS_READ, PD_BODY_NONE, pd_h_metrics, STORE),
    R("GET", "/v1/version", PD_ACCESS_OPEN, PD_BODY_NONE, pd_h_version, MEM),
    R("GET", "/v1/schema", PD_ACCESS_OPEN, PD_BODY_NONE, pd_h_schema, MEM),
    R("GET", "/v1/stats", PD_ACCESS_READ, PD_BODY_NONE, pd_h_stats, STORE),
    R("GET", "/v1/predict", PD_ACCESS_READ, PD_BODY_NONE, pd_h_predict_get, MEM),
    R("POST", "/v1/predict", PD_ACCESS_READ, PD_BODY_TEXT, pd_h_predict_post, MEM),
    R("GET", "/v1/bounds", PD_ACCESS_READ, PD_BODY_NONE, pd_h_bounds_get, MEM),
    R("POST", "/v1/bounds", PD_ACCESS_READ, PD_BODY_JSON, pd_h_bounds_post, MEM),
    R("GET", "/v1/bounds/coherence", PD_ACCESS_READ, PD_BODY_NONE, pd_h_coherence_get, MEM),
    R("POST", "/v1/bounds/coherence", PD_ACCESS_READ, PD_BODY_JSON, pd_h_coherence_post, MEM),
    R("GET", "/v1/bounds/feedback", PD_ACCESS_READ, PD_BODY_NONE, pd_h_feedback_get, MEM),
    R("POST", "/v1/bounds/feedback", PD_ACCESS_READ, PD_BODY_JSON, pd_h_feedback_post, MEM),
    R("GET", "/v1/devices", PD_ACCESS_READ, PD_BODY_NONE, pd_h_devices_list, STORE),
    R("POST", "/v1/devices", PD_ACCESS_ADMIN, PD_BODY_JSON, pd_h_devices_post, STORE),
    R("GET", "/v1/devices/{name}", PD_ACCESS_READ, PD_BODY_NONE, pd_h_device_get, STORE),
    R("GET", "/v1/calibrations", PD_ACCESS_READ, PD_BODY_NONE, pd_h_calibrations_list, STORE),
    R("POST", "/v1/calibrations", PD_ACCESS_ADMIN, PD_BODY_JSON, pd_h_calibrations_post, STORE),
    R("POST", "/v1/calibrations/import", PD_ACCESS_ADMIN, PD_BODY_JSON, pd_h_calibration_import,
      STORE),
    R("GET", "/v1/calibrations/{id}", PD_ACCESS_READ, PD_BODY_NONE, pd_h_calibration_get, STORE),
    R("POST", "/v1/calibrations/{id}/freeze", PD_ACCESS_ADMIN, PD_BODY_OPTIONAL,
      pd_h_calibration_freeze, STORE),
    R("GET", "/v1/calibrations/{id}/export", PD_ACCESS_READ, PD_BODY_NONE, pd_h_calibration_export,
      STORE),
    R("GET", "/v1/calibrations/{id}/plots/{kind}.svg", PD_ACCESS_READ, PD_BODY_NONE,
      pd_h_calibration_plot, STORE),
    R("GET", "/v1/jobs", PD_ACCESS_READ, PD_BODY_NONE, pd_h_jobs_list, STORE),
    R("POST", "/v1/jobs/claim", PD_ACCESS_AGENT, PD_BODY_JSON, pd_h_jobs_claim, STORE),
    R("POST", "/v1/jobs/{id}/heartbeat", PD_ACCESS_AGENT, PD_BODY_JSON, pd_h_job_heartbeat, STORE),
    R("POST", "/v1/jobs/{id}/result", PD_ACCESS_AGENT, PD_BODY_JSON, pd_h_job_result, STORE),
    R("POST", "/v1/jobs/{id}/fail", PD_ACCESS_AGENT, PD_BODY_JSON, pd_h_job_fail, STORE),
    R("POST", "/v1/jobs/{id}/requeue", PD_ACCESS_ADMIN, PD_BODY_OPTIONAL, pd_h_job_requeue, STORE),
    R("POST", "/v1/jobs/{id}/exclude", PD_ACCESS_ADMIN, PD_BODY_OPTIONAL, pd_h_job_exclude, STORE),
    R("GET", "/v1/tokens", PD_ACCESS_ADMIN, PD_BODY_NONE, pd_h_tokens_list, STORE),
    R("POST", "/v1/replication/sync", PD_ACCESS_ADMIN, PD_BODY_NONE, pd_h_replication_sync, STORE),
};
#undef R
#undef MEM
#undef STORE

const pd_route *pd_routes(size_t *n)
{
  *n = sizeof route_table / sizeof route_table[0];
  return route_table;
}

int pd_routes_stats_init(pd_stats *s)
{
  size_t n;
  const pd_route *routes = pd_routes(&n);
  const char *names[PD_STATS_ROUTES_MAX];
  for (size_t i = 0; i < n && i < PD_STATS_ROUTES_MAX; i++)
    names[i] = routes[i].name;
  return pd_stats_init(s, names, n);
}

/* The pattern's literal head (up to its first parameter) against the
 * path: -1 when they differ (no match, decided in a few byte comparisons:
 * most routes differ from a path within "/v1/" and one more byte), 1 when
 * a pattern without parameters is the path itself (a match: every pattern
 * of the table is '/' and segments without empty ones, which
 * pattern_match accepts when equal), 0 when a parameter is reached
 * (pattern_match decides). */
static int head_match(const char *p, const char *s)
{
  for (; *p != '{'; p++, s++)
    if (*p != *s)
      return -1;
    else if (*p == '\0')
      return 1;
  return 0;
}

/* Match one pattern against a path; path parameters go to params[]. */
static int pattern_match(const char *pattern, const char *path,
                         char params[PD_PATH_PARAMS][PD_PARAM_MAX])
{
  size_t np = 0;
  const char *p = pattern, *s = path;
  while (*p && *s) {
    if (*p != '/' || *s != '/')
      return 0;
    p++;
    s++;
    if (p[0] == '{' && p[1] && p[1] != '/') { /* "{name}": any non-empty segment */
      size_t sl = 0;
      while (s[sl] && s[sl] != '/')
        sl++;
      if (sl == 0 || sl >= PD_PARAM_MAX || np >= PD_PATH_PARAMS)
        return 0;
      memcpy(params[np], s, sl);
      params[np++][sl] = '\0';
      while (*p && *p != '/')
        p++;
      s += sl;
    } else { /* a literal segment: compared as far as it goes, both must end there */
      while (*p && *p != '/' && *p == *s) {
        p++;
        s++;
      }
      if ((*p && *p != '/') || (*s && *s != '/'))
        return 0;
    }
  }
  return *p == '\0' && *s == '\0';
}

int pd_route_match(const char *method, const char *path, pd_request *req, char *allow,
                   size_t allowlen)
{
  size_t n;
  const pd_route *t = pd_routes(&n);
  char params[PD_PATH_PARAMS][PD_PARAM_MAX];
  size_t used = 0;
  allow[0] = '\0';
  /* HEAD is a GET whose body is not sent (libmicrohttpd drops it) */
  const char *want = strcmp(method, "HEAD") ? method : "GET";
  int path_known = 0;
  for (size_t i = 0; i < n; i++) {
    int head = head_match(t[i].pattern, path);
    if (head < 0 || (head == 0 && !pattern_match(t[i].pattern, path, params)))
      continue;
    if (!strcmp(t[i].method, want)) {
      if (head == 1)
        req->params[0][0] = '\0'; /* no parameters (a parameter is never empty) */
      else
        memcpy(req->params, params, sizeof params);
      return (int)i;
    }
    path_known = 1;
  }
  if (!path_known)
    return PD_ROUTE_NOT_FOUND;
  /* No route of this method: the methods of the path's routes (Allow). */
  for (size_t i = 0; i < n; i++) {
    if (!pattern_match(t[i].pattern, path, params) || strstr(allow, t[i].method))
      continue;
    int w = snprintf(allow + used, allowlen - used, "%s%s", used ? ", " : "", t[i].method);
    if (w > 0 && (size_t)w < allowlen - used)
      used += (size_t)w;
  }
  return used ? PD_ROUTE_BAD_METHOD : PD_ROUTE_NOT_FOUND;
}
