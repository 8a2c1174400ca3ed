/*
 * h_meta.c - health, version, the query and method schema, /v1/stats (JSON)
 * and /metrics (Prometheus text
 * exposition format 0.0.4: pascal_ prefix, _total counters, cumulative
 * histogram buckets ending with le="+Inf").
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "conns.h"
#include "ctx.h"
#include "handlers.h"
#include "pascal/version.h"
#include "pascal_codec.h"
#include "pascal_store.h"
#include "registry.h"
#include "replica.h"
#include "reply.h"
#include "sbuf.h"

/* 200 while the daemon can serve everything; 503 "degraded" when the
 * database file it holds was unlinked or replaced (writes are refused then,
 * pascal_store_file_check): predictions still answer, but nothing written
 * could be kept, so a monitor must see it. */
void pd_h_healthz(pd_ctx *ctx, pd_request *req, pd_reply *rep)
{
  (void)req;
  pascal_error err;
  pascal_error_clear(&err);
  int lost = pascal_store_file_check(ctx->store, &err) != PASCAL_STORE_OK;
  json_t *store = json_pack("{s:b,s:s*}", "writable", !lost, "error", lost ? err.message : NULL);
  pd_reply_json(rep, lost ? 503 : 200,
                json_pack("{s:s,s:I,s:o,s:o,s:o*}", "status", lost ? "degraded" : "ok",
                          "calibrations_loaded", (json_int_t)pd_registry_count(ctx->registry),
                          "uptime_seconds", pd_json_real(pd_stats_uptime(&ctx->stats)), "store",
                          store, "replica", pd_replica_status(ctx)));
}

void pd_h_version(pd_ctx *ctx, pd_request *req, pd_reply *rep)
{
  (void)ctx;
  (void)req;
  pd_reply_json(rep, 200,
                json_pack("{s:s,s:s,s:s,s:s,s:[s,s]}", "name", "pascald", "version",
                          pascal_version(), "release", PASCAL_VERSION, "api", "v1", "formats",
                          "pascal-calibration/1", "pascal-plan/1"));
}

/* The fields of every workload's query and the evaluation methods, as the
 * daemon reads and writes them (pascal_codec_schema_encode). */
void pd_h_schema(pd_ctx *ctx, pd_request *req, pd_reply *rep)
{
  (void)ctx;
  (void)req;
  json_t *doc = NULL;
  pascal_error err;
  if (pascal_codec_schema_encode(&doc, &err) != PASCAL_OK) {
    pd_reply_pascal_error(rep, &err);
    return;
  }
  pd_reply_json(rep, 200, doc);
}

/* Store-side counts and agents; on failure the stats still answer without them. */
typedef struct store_view {
  int ok;
  pascal_store_counts counts;
  pascal_store_agent *agents;
  size_t nagents;
} store_view;

static void store_view_load(pd_ctx *ctx, store_view *v)
{
  memset(v, 0, sizeof *v);
  v->ok = pascal_store_counts_get(ctx->store, &v->counts, NULL) == PASCAL_STORE_OK &&
          pascal_store_agent_list(ctx->store, &v->agents, &v->nagents, NULL) == PASCAL_STORE_OK;
}

static uint64_t ld(atomic_uint_fast64_t *a)
{
  return atomic_load_explicit(a, memory_order_relaxed);
}

static json_t *histogram_json(const uint64_t *counts, uint64_t sum_ns)
{
  json_t *b = json_array();
  uint64_t cum = 0;
  for (size_t k = 0; k < PD_STATS_BUCKETS; k++) {
    cum += counts[k];
    json_t *le =
        isinf(pd_stats_bucket_le[k]) ? json_string("+Inf") : json_real(pd_stats_bucket_le[k]);
    json_array_append_new(b, json_pack("{s:o,s:I}", "le", le, "count", (json_int_t)cum));
  }
  return json_pack("{s:I,s:o,s:o}", "count", (json_int_t)cum, "sum_seconds",
                   pd_json_real((double)sum_ns * 1e-9), "buckets", b);
}

void pd_h_stats(pd_ctx *ctx, pd_request *req, pd_reply *rep)
{
  (void)req;
  pd_stats *s = &ctx->stats;
  json_t *routes = json_array();
  uint64_t total = 0, errors = 0, all_lat[PD_STATS_BUCKETS] = {0}, all_sum = 0;
  for (size_t r = 0; r < s->nroutes; r++) {
    pd_route_stats *rs = &s->routes[r];
    json_t *by = json_object();
    uint64_t rt = 0, re = 0, lat[PD_STATS_BUCKETS], sum = ld(&rs->latency_sum_ns);
    for (size_t k = 0; k < PD_STATS_STATUSES; k++) {
      uint64_t c = ld(&rs->by_status[k]);
      if (!c)
        continue;
      unsigned code = k + 1 < PD_STATS_STATUSES ? pd_stats_status_codes[k] : 0;
      char key[16];
      snprintf(key, sizeof key, code ? "%u" : "other", code);
      json_object_set_new(by, key, json_integer((json_int_t)c));
      rt += c;
      if (!code || code >= 400)
        re += c;
    }
    for (size_t k = 0; k < PD_STATS_BUCKETS; k++) {
      lat[k] = ld(&rs->latency[k]);
      all_lat[k] += lat[k];
    }
    all_sum += sum;
    total += rt;
    errors += re;
    json_array_append_new(routes, json_pack("{s:s,s:I,s:I,s:o,s:o}", "route", s->route_names[r],
                                            "requests", (json_int_t)rt, "errors", (json_int_t)re,
                                            "by_status", by, "latency", histogram_json(lat, sum)));
  }
  store_view v;
  store_view_load(ctx, &v);
  json_t *cals = json_object(), *jobs = json_object(), *agents = json_array();
  if (v.ok) {
    for (int k = 0; k < PASCAL_STORE_CAL_STATES; k++)
      json_object_set_new(cals, pascal_store_cal_state_name((pascal_store_cal_state)k),
                          json_integer(v.counts.calibrations[k]));
    for (int k = 0; k < PASCAL_STORE_JOB_STATES; k++)
      json_object_set_new(jobs, pascal_store_job_state_name((pascal_store_job_state)k),
                          json_integer(v.counts.jobs[k]));
    int64_t now = (int64_t)time(NULL);
    for (size_t i = 0; i < v.nagents; i++)
      json_array_append_new(agents,
                            json_pack("{s:s,s:o,s:I}", "name", v.agents[i].name, "last_seen",
                                      pd_json_time(v.agents[i].last_seen), "seconds_ago",
                                      (json_int_t)(now - v.agents[i].last_seen)));
  }
  free(v.agents);
  json_object_set_new(cals, "loaded", json_integer((json_int_t)pd_registry_count(ctx->registry)));
  pd_reply_json(rep, 200,
                json_pack("{s:o,s:o,s:I,s:{s:I,s:I,s:o,s:o},s:{s:I,s:I},s:o,s:o,s:o,s:o*}",
                          "uptime_seconds", pd_json_real(pd_stats_uptime(s)), "started_at",
                          pd_json_time(s->started_wall), "in_flight", (json_int_t)ld(&s->inflight),
                          "requests", "total", (json_int_t)total, "errors", (json_int_t)errors,
                          "latency", histogram_json(all_lat, all_sum), "by_route", routes,
                          "predictions", "served", (json_int_t)ld(&s->predictions), "refused",
                          (json_int_t)ld(&s->predictions_refused), "calibrations", cals, "jobs",
                          jobs, "agents", agents, "replica", pd_replica_status(ctx)));
}

/* --- Prometheus text ------------------------------------------------------ */

/* Label values escape backslash, double quote and newline. */
static void label_escape(const char *in, char *out, size_t n)
{
  size_t j = 0;
  for (; *in && j + 3 < n; in++) {
    if (*in == '\\' || *in == '"') {
      out[j++] = '\\';
      out[j++] = *in;
    } else if (*in == '\n') {
      out[j++] = '\\';
      out[j++] = 'n';
    } else
      out[j++] = *in;
  }
  out[j] = '\0';
}

static void metric_head(pd_sbuf *b, const char *name, const char *type, const char *help)
{
  pd_sbuf_printf(b, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* A route's stats name ("GET /v1/predict") as the labels method="GET",
 * path="/v1/predict"; the slot of requests no route matched is
 * method="other", path="unmatched". */
static void route_labels(const char *name, char *out, size_t n)
{
  const char *sp = strchr(name, ' ');
  char esc[160];
  label_escape(sp ? sp + 1 : "unmatched", esc, sizeof esc);
  snprintf(out, n, "method=\"%.*s\",path=\"%s\"", sp ? (int)(sp - name) : 5, sp ? name : "other",
           esc);
}

void pd_h_metrics(pd_ctx *ctx, pd_request *req, pd_reply *rep)
{
  (void)req;
  pd_stats *s = &ctx->stats;
  pd_sbuf b = {0};
  char labels[200];
  metric_head(&b, "pascal_build_info", "gauge",
              "Always 1; the labels name the build: version, release, API.");
  pd_sbuf_printf(&b, "pascal_build_info{version=\"%s\",release=\"%s\",api=\"v1\"} 1\n",
                 pascal_version(), PASCAL_VERSION);
  metric_head(&b, "pascal_http_requests_total", "counter",
              "HTTP requests by route (method and path pattern) and status.");
  for (size_t r = 0; r < s->nroutes; r++) {
    route_labels(s->route_names[r], labels, sizeof labels);
    for (size_t k = 0; k < PD_STATS_STATUSES; k++) {
      uint64_t c = ld(&s->routes[r].by_status[k]);
      unsigned code = k + 1 < PD_STATS_STATUSES ? pd_stats_status_codes[k] : 0;
      if (c && code)
        pd_sbuf_printf(&b, "pascal_http_requests_total{%s,status=\"%u\"} %" PRIu64 "\n", labels,
                       code, c);
      else if (c)
        pd_sbuf_printf(&b, "pascal_http_requests_total{%s,status=\"other\"} %" PRIu64 "\n", labels,
                       c);
    }
  }
  metric_head(&b, "pascal_http_request_duration_seconds", "histogram",
              "Time from request start to completion, by route (method and path pattern).");
  for (size_t r = 0; r < s->nroutes; r++) {
    uint64_t cum = 0;
    for (size_t k = 0; k < PD_STATS_BUCKETS; k++)
      cum += ld(&s->routes[r].latency[k]);
    if (!cum)
      continue;
    route_labels(s->route_names[r], labels, sizeof labels);
    cum = 0;
    for (size_t k = 0; k < PD_STATS_BUCKETS; k++) {
      cum += ld(&s->routes[r].latency[k]);
      if (isinf(pd_stats_bucket_le[k]))
        pd_sbuf_printf(&b,
                       "pascal_http_request_duration_seconds_bucket{%s,le=\"+Inf\"} %" PRIu64 "\n",
                       labels, cum);
      else
        pd_sbuf_printf(&b,
                       "pascal_http_request_duration_seconds_bucket{%s,le=\"%g\"} %" PRIu64 "\n",
                       labels, pd_stats_bucket_le[k], cum);
    }
    pd_sbuf_printf(&b, "pascal_http_request_duration_seconds_sum{%s} %.9f\n", labels,
                   (double)ld(&s->routes[r].latency_sum_ns) * 1e-9);
    pd_sbuf_printf(&b, "pascal_http_request_duration_seconds_count{%s} %" PRIu64 "\n", labels, cum);
  }
  metric_head(&b, "pascal_predictions_total", "counter", "Prediction items answered.");
  pd_sbuf_printf(&b, "pascal_predictions_total %" PRIu64 "\n", ld(&s->predictions));
  metric_head(&b, "pascal_predictions_refused_total", "counter",
              "Prediction items refused or rejected.");
  pd_sbuf_printf(&b, "pascal_predictions_refused_total %" PRIu64 "\n", ld(&s->predictions_refused));
  metric_head(&b, "pascal_http_requests_in_flight", "gauge", "Requests being processed.");
  pd_sbuf_printf(&b, "pascal_http_requests_in_flight %" PRIu64 "\n", ld(&s->inflight));
  unsigned open_conns;
  uint64_t refused, expired, evicted;
  pd_conns_counts(ctx->conns, &open_conns, &refused, &expired, &evicted);
  metric_head(&b, "pascal_http_connections", "gauge", "Open client connections.");
  pd_sbuf_printf(&b, "pascal_http_connections %u\n", open_conns);
  metric_head(&b, "pascal_http_connections_refused_total", "counter",
              "Connections closed at once because connection_limit was reached.");
  pd_sbuf_printf(&b, "pascal_http_connections_refused_total %" PRIu64 "\n", refused);
  metric_head(&b, "pascal_http_connections_expired_total", "counter",
              "Connections closed because a request missed request_deadline.");
  pd_sbuf_printf(&b, "pascal_http_connections_expired_total %" PRIu64 "\n", expired);
  metric_head(&b, "pascal_http_connections_evicted_total", "counter",
              "Connections shut down at connection_limit to make room for a new client.");
  pd_sbuf_printf(&b, "pascal_http_connections_evicted_total %" PRIu64 "\n", evicted);
  metric_head(&b, "pascal_uptime_seconds", "gauge", "Seconds since the daemon started.");
  pd_sbuf_printf(&b, "pascal_uptime_seconds %.3f\n", pd_stats_uptime(s));
  metric_head(&b, "pascal_calibrations_loaded", "gauge", "Frozen calibrations held in memory.");
  pd_sbuf_printf(&b, "pascal_calibrations_loaded %zu\n", pd_registry_count(ctx->registry));
  store_view v;
  store_view_load(ctx, &v);
  if (v.ok) {
    metric_head(&b, "pascal_calibrations", "gauge", "Calibrations by state.");
    for (int k = 0; k < PASCAL_STORE_CAL_STATES; k++)
      pd_sbuf_printf(&b, "pascal_calibrations{state=\"%s\"} %" PRId64 "\n",
                     pascal_store_cal_state_name((pascal_store_cal_state)k),
                     v.counts.calibrations[k]);
    metric_head(&b, "pascal_jobs", "gauge", "Calibration jobs by state.");
    for (int k = 0; k < PASCAL_STORE_JOB_STATES; k++)
      pd_sbuf_printf(&b, "pascal_jobs{state=\"%s\"} %" PRId64 "\n",
                     pascal_store_job_state_name((pascal_store_job_state)k), v.counts.jobs[k]);
    metric_head(&b, "pascal_agent_last_seen_timestamp_seconds", "gauge",
                "Unix time an agent last claimed or heartbeat.");
    for (size_t i = 0; i < v.nagents; i++) {
      char esc[160];
      label_escape(v.agents[i].name, esc, sizeof esc);
      pd_sbuf_printf(&b, "pascal_agent_last_seen_timestamp_seconds{agent=\"%s\"} %" PRId64 "\n",
                     esc, v.agents[i].last_seen);
    }
  }
  free(v.agents);
  pd_replica_metrics(ctx, &b);
  if (b.failed || !b.p) {
    pd_sbuf_free(&b);
    pd_reply_error(rep, 500, "internal", NULL, "out of memory rendering metrics");
    return;
  }
  pd_reply_text(rep, 200, b.p, b.len, "text/plain; version=0.0.4; charset=utf-8");
}
