/*
 * replica.c - read-replica mode (replica.h): the sync of devices and frozen
 * calibrations from the primary, the polling thread, the write refusal and
 * the lag report. The calibrations themselves are immutable and
 * content-hashed (docs/bundle-format.md), so a replica that holds the same
 * id and hash holds exactly the primary's calibration.
 */
#include "replica.h"

#include <curl/curl.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "calib.h"
#include "clock.h"
#include "ctx.h"
#include "device_ref.h"
#include "pascal_codec_jobs.h"
#include "pascal_store.h"
#include "plot_cache.h"
#include "primary.h"
#include "registry.h"
#include "reply.h"

struct pd_replica {
  pthread_t thread;
  int thread_started;
  atomic_int stop;         /* set by pd_replica_stop; aborts transfers */
  pthread_mutex_t sync_mu; /* one sync at a time */
  pthread_mutex_t mu;      /* guards wake and everything below */
  pthread_cond_t wake;
  double last_success_mono;           /* CLOCK_MONOTONIC seconds; 0: none yet */
  int64_t last_success, last_attempt; /* unix seconds; 0: none yet */
  int64_t newest_id;                  /* newest frozen calibration held; 0: none */
  uint64_t syncs_ok, syncs_failed, imported_total;
  uint64_t started; /* syncs begun; the k-th is over once ok + failed >= k */
  int requested;    /* POST /v1/replication/sync asked for one more */
  char last_error[600];
  uint64_t resyncs;                             /* syncs from scratch */
  int64_t last_resync;                          /* unix seconds; 0: none yet */
  char last_resync_why[300];                    /* what had changed */
  char primary_instance[PASCAL_STORE_META_MAX]; /* as last listed; "" unknown */
};

static double mono_now(void)
{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* "host", "host:port" or "[v6]:port" up to the first '/' after the scheme. */
static int authority_valid(const char *a, size_t len)
{
  const char *end = memchr(a, '/', len);
  size_t alen = end ? (size_t)(end - a) : len;
  const char *colon = NULL;
  for (size_t i = 0; i < alen; i++)
    if (a[i] == ':')
      colon = a + i;
  if (a[0] == '[' && colon && colon[-1] != ']')
    colon = NULL; /* a v6 address, no port */
  if (alen == 0 || colon == a)
    return 0;
  if (!colon)
    return 1;
  size_t plen = alen - (size_t)(colon + 1 - a);
  if (plen == 0 || plen > 5 || strspn(colon + 1, "0123456789") < plen)
    return 0;
  return atoi(colon + 1) >= 1 && atoi(colon + 1) <= 65535;
}

int pd_replica_url_set(char *dst, size_t n, const char *value)
{
  size_t len = strlen(value);
  while (len > 0 && value[len - 1] == '/')
    len--;
  size_t scheme = !strncmp(value, "http://", 7) ? 7 : !strncmp(value, "https://", 8) ? 8 : 0;
  if (!*value) { /* "" turns replica mode off */
    dst[0] = '\0';
    return 0;
  }
  if (!scheme || len <= scheme || len >= n || !authority_valid(value + scheme, len - scheme))
    return -1;
  for (size_t i = 0; i < len; i++)
    if (value[i] <= ' ' || value[i] > '~')
      return -1;
  memcpy(dst, value, len);
  dst[len] = '\0';
  return 0;
}

/* Keep the first error of a sync; count them all. */
static void sync_error(pd_sync_result *res, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void sync_error(pd_sync_result *res, const char *fmt, ...)
{
  if (!res->errors++) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(res->error, sizeof res->error, fmt, ap);
    va_end(ap);
  }
}

/* A device as GET /v1/devices lists it, read by the codec as pascal-agent
 * reads it; its identity is what the replica registers (the store checks
 * the values). */
static int device_from_json(const json_t *o, pascal_store_device *d)
{
  pascal_codec_device c;
  if (!json_is_object(o) || pascal_codec_device_decode(o, &c, NULL) != PASCAL_OK)
    return -1;
  memset(d, 0, sizeof *d);
  snprintf(d->name, sizeof d->name, "%s", c.name);
  snprintf(d->arch, sizeof d->arch, "%s", c.arch);
  snprintf(d->cuda_name, sizeof d->cuda_name, "%s", c.cuda_name);
  d->sm_count = c.sm_count;
  d->capacity_blocks = c.capacity_blocks;
  d->block_bytes = c.block_bytes;
  d->cc_major = c.cc_major;
  d->cc_minor = c.cc_minor;
  d->l2_bytes = c.l2_bytes;
  return 0;
}

/* The list in member `key` of GET `path`, or NULL (error recorded). */
static json_t *get_list(pd_primary *p, const char *path, const char *key, json_t **doc,
                        pd_sync_result *res)
{
  char why[512];
  if (pd_primary_get(p, path, doc, why, sizeof why)) {
    sync_error(res, "%s", why);
    return NULL;
  }
  json_t *arr = json_object_get(*doc, key);
  if (!json_is_array(arr))
    sync_error(res, "GET %s: no \"%s\" array in the answer", path, key);
  return json_is_array(arr) ? arr : NULL;
}

static void sync_devices(pd_ctx *ctx, pd_primary *p, pd_sync_result *res)
{
  json_t *doc = NULL, *arr = get_list(p, "/v1/devices", "devices", &doc, res);
  size_t i;
  json_t *o;
  json_array_foreach(arr, i, o)
  {
    pascal_store_device d;
    pascal_error err;
    pascal_error_clear(&err);
    int created = 0;
    if (device_from_json(o, &d)) {
      sync_error(res, "GET /v1/devices: device %zu is not a device record", i);
      continue;
    }
    res->devices++;
    if (pascal_store_device_create(ctx->store, &d, (int64_t)time(NULL), &created, &err) !=
        PASCAL_STORE_OK)
      sync_error(res, "device '%s' refused: %s", d.name, err.message);
  }
  json_decref(doc);
}

/* The local calibration with this id, or NULL (list sorted by id). */
static const pascal_store_calibration *local_by_id(const pascal_store_calibration *l, size_t n,
                                                   int64_t id)
{
  size_t lo = 0, hi = n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (l[mid].id == id)
      return &l[mid];
    if (l[mid].id < id)
      lo = mid + 1;
    else
      hi = mid;
  }
  return NULL;
}

/* Export calibration `id` from the primary, check its hash against the
 * listed one and import it under the same id. */
static void import_one(pd_ctx *ctx, pd_primary *p, int64_t id, const char *hash,
                       pd_sync_result *res)
{
  char path[64], why[512];
  snprintf(path, sizeof path, "/v1/calibrations/%" PRId64 "/export", id);
  json_t *doc = NULL;
  if (pd_primary_get(p, path, &doc, why, sizeof why)) {
    sync_error(res, "%s", why);
    return;
  }
  const char *got = json_string_value(json_object_get(doc, "content_hash"));
  pd_calib_outcome o;
  pascal_error err;
  pascal_error_clear(&err);
  if (!got || strncmp(got, "sha256:", 7) || strcmp(got + 7, hash)) {
    sync_error(res,
               "calibration %" PRId64 " refused: its bundle's content_hash %.80s is not "
               "the listed sha256:%s",
               id, got ? got : "(none)", hash);
  } else if (pd_calib_import(ctx, doc, id, &o, &err) != PASCAL_OK) {
    sync_error(res, "calibration %" PRId64 " refused: %s%s%s", id, err.message,
               err.field[0] ? " at " : "", err.field);
  } else if (o.id != id) {
    sync_error(res,
               "calibration %" PRId64 " is held here as calibration %" PRId64
               " (this database did not start empty)",
               id, o.id);
  } else {
    res->imported += (unsigned)o.created;
    res->held++;
  }
  json_decref(doc);
}

/* The listed entry with this id, or NULL. */
static const json_t *listed(const json_t *arr, int64_t id)
{
  size_t i;
  json_t *o;
  json_array_foreach(arr, i, o)
  {
    json_t *jid = json_object_get(o, "id");
    if (json_is_integer(jid) && json_integer_value(jid) == id)
      return o;
  }
  return NULL;
}

/* 1 when the listing has at least one frozen calibration. */
static int lists_frozen(const json_t *arr)
{
  size_t i;
  json_t *o;
  json_array_foreach(arr, i, o)
  {
    const char *state = json_string_value(json_object_get(o, "state"));
    if (state && !strcmp(state, "frozen"))
      return 1;
  }
  return 0;
}

/* Has the primary's history changed under what this replica holds? Another
 * database (its instance id differs from the one last seen), a history that
 * went back (a lower generation: a restored backup), or a frozen
 * calibration held here that the primary no longer lists with the same hash.
 * 1 with the reason in why. */
static int primary_changed(pd_ctx *ctx, const json_t *doc, const json_t *arr,
                           const pascal_store_calibration *local, size_t nlocal, char *why,
                           size_t n)
{
  const json_t *db = json_object_get(doc, "database");
  const char *inst = json_string_value(json_object_get(db, "instance"));
  json_t *jgen = json_object_get(db, "generation");
  char seen[PASCAL_STORE_META_MAX] = "", seen_gen[32] = "";
  (void)pascal_store_meta_get(ctx->store, "primary_instance", seen, sizeof seen, NULL);
  (void)pascal_store_meta_get(ctx->store, "primary_generation", seen_gen, sizeof seen_gen, NULL);
  if (inst && seen[0] && strcmp(inst, seen) != 0) {
    snprintf(why, n, "the primary's database is another one (instance %.32s, was %.32s)", inst,
             seen);
    return 1;
  }
  if (json_is_integer(jgen) && seen_gen[0] && json_integer_value(jgen) < atoll(seen_gen)) {
    snprintf(why, n, "the primary's history went back (generation %lld, was %s)",
             (long long)json_integer_value(jgen), seen_gen);
    return 1;
  }
  for (size_t k = 0; k < nlocal; k++) {
    if (local[k].state != PASCAL_STORE_FROZEN)
      continue;
    const json_t *o = listed(arr, local[k].id);
    const char *hash = o ? json_string_value(json_object_get(o, "content_hash")) : NULL;
    if (!hash || strcmp(hash, local[k].content_hash) != 0) {
      snprintf(why, n, "calibration %lld held here is %s on the primary", (long long)local[k].id,
               o ? "another one" : "no longer");
      return 1;
    }
  }
  return 0;
}

/* Start over: empty the store and the in-memory models, then sync the
 * devices again (the calibrations follow in the same sync). */
static int resync_from_scratch(pd_ctx *ctx, pd_primary *p, const char *why, pd_sync_result *res)
{
  pd_replica *r = ctx->replica;
  pascal_error err;
  pascal_error_clear(&err);
  fprintf(stderr, "pascald: replica of %s: %s; syncing again from scratch\n", ctx->cfg.replica_of,
          why);
  if (pascal_store_mirror_reset(ctx->store, &err) != PASCAL_STORE_OK) {
    sync_error(res, "cannot start over (%s): %s", why, err.message);
    return -1;
  }
  pd_registry_clear(ctx->registry);
  pd_plot_cache_clear(ctx->plots);
  pthread_mutex_lock(&r->mu);
  r->resyncs++;
  r->last_resync = (int64_t)time(NULL);
  snprintf(r->last_resync_why, sizeof r->last_resync_why, "%s", why);
  r->newest_id = 0;
  pthread_mutex_unlock(&r->mu);
  sync_devices(ctx, p, res);
  return 0;
}

/* Remember the primary's database as listed, for the next comparison. */
static void remember_primary(pd_ctx *ctx, const json_t *doc)
{
  const json_t *db = json_object_get(doc, "database");
  const char *inst = json_string_value(json_object_get(db, "instance"));
  json_t *jgen = json_object_get(db, "generation");
  char gen[32];
  if (!inst || !json_is_integer(jgen))
    return; /* a primary that does not say */
  snprintf(gen, sizeof gen, "%lld", (long long)json_integer_value(jgen));
  (void)pascal_store_meta_set(ctx->store, "primary_instance", inst, NULL);
  (void)pascal_store_meta_set(ctx->store, "primary_generation", gen, NULL);
  pthread_mutex_lock(&ctx->replica->mu);
  snprintf(ctx->replica->primary_instance, sizeof ctx->replica->primary_instance, "%s", inst);
  pthread_mutex_unlock(&ctx->replica->mu);
}

static void sync_calibrations(pd_ctx *ctx, pd_primary *p, pd_sync_result *res)
{
  json_t *doc = NULL, *arr = get_list(p, "/v1/calibrations", "calibrations", &doc, res);
  pascal_store_calibration *local = NULL;
  size_t nlocal = 0, i;
  pascal_error err;
  pascal_error_clear(&err);
  if (arr &&
      pascal_store_calibration_list(ctx->store, NULL, &local, &nlocal, &err) != PASCAL_STORE_OK) {
    sync_error(res, "cannot list local calibrations: %s", err.message);
    arr = NULL;
  }
  char why[256];
  if (arr && primary_changed(ctx, doc, arr, local, nlocal, why, sizeof why)) {
    if (!lists_frozen(arr)) {
      /* a primary started on a wrong or empty database must not empty its
       * replicas: hold what is here until it lists calibrations again */
      sync_error(res, "%s, but the primary lists no frozen calibration: holding what is here", why);
      arr = NULL;
    } else {
      pascal_store_calibration_array_free(local, nlocal);
      local = NULL;
      nlocal = 0;
      if (resync_from_scratch(ctx, p, why, res))
        arr = NULL;
    }
  }
  if (arr)
    remember_primary(ctx, doc);
  json_t *o;
  json_array_foreach(arr, i, o)
  {
    const char *state = json_string_value(json_object_get(o, "state"));
    const char *hash = json_string_value(json_object_get(o, "content_hash"));
    json_t *jid = json_object_get(o, "id");
    if (!state || strcmp(state, "frozen"))
      continue; /* collecting ones stay on the primary */
    if (!json_is_integer(jid) || json_integer_value(jid) <= 0 || !hash || strlen(hash) != 64 ||
        strspn(hash, "0123456789abcdef") != 64) {
      sync_error(res, "GET /v1/calibrations: entry %zu has no valid id and content_hash", i);
      continue;
    }
    int64_t id = json_integer_value(jid);
    const pascal_store_calibration *mine = local_by_id(local, nlocal, id);
    if (!mine)
      import_one(ctx, p, id, hash, res);
    else if (mine->state == PASCAL_STORE_FROZEN && !strcmp(mine->content_hash, hash))
      res->held++;
    else /* collecting here: this database did not start empty */
      sync_error(res,
                 "calibration %" PRId64 " here is not the primary's (content hash "
                 "or state differs)",
                 id);
  }
  pascal_store_calibration_array_free(local, nlocal);
  json_decref(doc);
}

/* Newest frozen calibration in the store, 0 when none (or unreadable). */
static int64_t newest_frozen(pd_ctx *ctx)
{
  pascal_store_calibration *l = NULL;
  size_t n = 0;
  int64_t best = 0;
  if (pascal_store_calibration_list(ctx->store, NULL, &l, &n, NULL) == PASCAL_STORE_OK)
    for (size_t i = 0; i < n; i++)
      if (l[i].state == PASCAL_STORE_FROZEN && l[i].id > best)
        best = l[i].id;
  pascal_store_calibration_array_free(l, n);
  return best;
}

int pd_replica_sync(pd_ctx *ctx, pd_sync_result *res)
{
  pd_replica *r = ctx->replica;
  memset(res, 0, sizeof *res);
  pthread_mutex_lock(&r->sync_mu);
  pthread_mutex_lock(&r->mu);
  r->started++;
  r->requested = 0; /* this sync serves every request made so far */
  pthread_mutex_unlock(&r->mu);
  pd_primary p;
  /* Shutdown aborts a transfer at once: `stopping` comes first (HTTP stops,
   * a sync a request asked for included), `stop` then ends the thread. */
  const atomic_int *abort_if[2] = {&ctx->stopping, &r->stop};
  if (pd_primary_open(&p, ctx->cfg.replica_of, abort_if, res->error, sizeof res->error)) {
    res->errors = 1;
  } else {
    sync_devices(ctx, &p, res);
    if (res->devices || !res->errors) /* the primary answered: go on */
      sync_calibrations(ctx, &p, res);
    pd_primary_close(&p);
  }
  int64_t newest = newest_frozen(ctx);
  pthread_mutex_lock(&r->mu);
  r->last_attempt = (int64_t)time(NULL);
  r->newest_id = newest;
  r->imported_total += res->imported;
  if (res->errors) {
    r->syncs_failed++;
    snprintf(r->last_error, sizeof r->last_error, "%u error(s); first: %s", res->errors,
             res->error);
  } else {
    r->syncs_ok++;
    r->last_success = r->last_attempt;
    r->last_success_mono = mono_now();
    r->last_error[0] = '\0';
  }
  pthread_mutex_unlock(&r->mu);
  pthread_mutex_unlock(&r->sync_mu);
  return res->errors ? -1 : 0;
}

static void *poll_main(void *arg)
{
  pd_ctx *ctx = arg;
  pd_replica *r = ctx->replica;
  char said[512] = "";
  while (!atomic_load(&r->stop)) {
    pd_sync_result res;
    pd_replica_sync(ctx, &res);
    if (strcmp(said, res.error)) /* each new error once, and the recovery */
      fprintf(stderr, "pascald: replica sync from %s: %s\n", ctx->cfg.replica_of,
              res.error[0] ? res.error : "ok again");
    snprintf(said, sizeof said, "%s", res.error);
    struct timespec until;
    pd_deadline_after_ms(&until, 1000 * (uint64_t)ctx->cfg.replica_interval_s);
    pthread_mutex_lock(&r->mu);
    while (!atomic_load(&r->stop) && !r->requested &&
           pthread_cond_timedwait(&r->wake, &r->mu, &until) == 0) {
    }
    pthread_mutex_unlock(&r->mu);
  }
  return NULL;
}

int pd_replica_start(pd_ctx *ctx, char *msg, size_t msglen)
{
  if (!ctx->cfg.replica_of[0])
    return 0;
  if (ctx->cfg.read_only) {
    snprintf(msg, msglen,
             "replica_of and read_only exclude each other (a replica writes what "
             "it syncs into its database)");
    return -1;
  }
  pd_replica *r = calloc(1, sizeof *r);
  if (!r || curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
    free(r);
    snprintf(msg, msglen, "cannot start replica mode (memory or libcurl)");
    return -1;
  }
  atomic_init(&r->stop, 0);
  pthread_mutex_init(&r->sync_mu, NULL);
  pthread_mutex_init(&r->mu, NULL);
  pd_cond_init_monotonic(&r->wake); /* a wall-clock step never stretches the wait */
  r->newest_id = newest_frozen(ctx);
  (void)pascal_store_meta_get(ctx->store, "primary_instance", r->primary_instance,
                              sizeof r->primary_instance, NULL);
  ctx->replica = r;
  if (pthread_create(&r->thread, NULL, poll_main, ctx) != 0) {
    snprintf(msg, msglen, "cannot start the replication thread");
    pd_replica_stop(ctx);
    return -1;
  }
  r->thread_started = 1;
  return 0;
}

uint64_t pd_replica_request_sync(pd_ctx *ctx)
{
  pd_replica *r = ctx->replica;
  pthread_mutex_lock(&r->mu);
  uint64_t k = r->started + 1;
  r->requested = 1;
  pthread_cond_signal(&r->wake);
  pthread_mutex_unlock(&r->mu);
  return k;
}

void pd_replica_stop(pd_ctx *ctx)
{
  pd_replica *r = ctx->replica;
  if (!r)
    return;
  atomic_store(&r->stop, 1);
  pthread_mutex_lock(&r->mu);
  pthread_cond_broadcast(&r->wake);
  pthread_mutex_unlock(&r->mu);
  if (r->thread_started)
    pthread_join(r->thread, NULL);
  pthread_cond_destroy(&r->wake);
  pthread_mutex_destroy(&r->mu);
  pthread_mutex_destroy(&r->sync_mu);
  free(r);
  ctx->replica = NULL;
  curl_global_cleanup();
}

int pd_replica_refuses(pd_ctx *ctx, const pd_route *route, pd_reply *rep)
{
  /* the /v1/replication/ routes are the replica's own (sync from its primary);
   * jobs, agents and tokens live on the primary only, so their listings are
   * refused like writes rather than answered empty */
  if (!ctx->replica) /* a primary refuses nothing: no comparison per request */
    return 0;
  int primary_only = route->access == PD_ACCESS_AGENT || route->access == PD_ACCESS_ADMIN ||
                     strncmp(route->pattern, "/v1/jobs", 8) == 0;
  if (strncmp(route->pattern, "/v1/replication/", 16) == 0 || !primary_only)
    return 0;
  pd_reply_error(rep, 421, "read_only_replica", NULL,
                 "this daemon is a read replica; send %s %s to the primary %s", route->method,
                 route->pattern, ctx->cfg.replica_of);
  json_t *e = rep->json ? json_object_get(rep->json, "error") : NULL;
  if (e)
    json_object_set_new(e, "primary", json_string(ctx->cfg.replica_of));
  return 1;
}

/* Seconds since the last successful sync; +Inf before the first one. */
static double lag_locked(const pd_replica *r)
{
  return r->last_success_mono > 0 ? mono_now() - r->last_success_mono : INFINITY;
}

json_t *pd_replica_status(pd_ctx *ctx)
{
  pd_replica *r = ctx->replica;
  if (!r)
    return NULL;
  pthread_mutex_lock(&r->mu);
  json_t *resync = r->last_resync ? json_pack("{s:o,s:s}", "at", pd_json_time(r->last_resync),
                                              "why", r->last_resync_why)
                                  : json_null();
  json_t *v =
      json_pack("{s:s,s:I,s:o,s:o,s:o,s:o,s:{s:I,s:I},s:I,s:o,s:o,s:I,s:o}", "primary",
                ctx->cfg.replica_of, "interval_seconds", (json_int_t)ctx->cfg.replica_interval_s,
                "lag_seconds", pd_json_real(lag_locked(r)), "last_sync_at",
                r->last_success ? pd_json_time(r->last_success) : json_null(), "last_attempt_at",
                r->last_attempt ? pd_json_time(r->last_attempt) : json_null(), "newest_calibration",
                r->newest_id ? json_integer(r->newest_id) : json_null(), "syncs", "ok",
                (json_int_t)r->syncs_ok, "failed", (json_int_t)r->syncs_failed, "imported",
                (json_int_t)r->imported_total, "last_error",
                r->last_error[0] ? json_string(r->last_error) : json_null(), "primary_instance",
                r->primary_instance[0] ? json_string(r->primary_instance) : json_null(), "resyncs",
                (json_int_t)r->resyncs, "last_resync", resync);
  pthread_mutex_unlock(&r->mu);
  return v;
}

void pd_replica_metrics(pd_ctx *ctx, pd_sbuf *b)
{
  pd_replica *r = ctx->replica;
  if (!r)
    return;
  pthread_mutex_lock(&r->mu);
  double lag = lag_locked(r);
  pd_sbuf_printf(b, "# HELP pascal_replica_lag_seconds Seconds since the last successful sync "
                    "from the primary (+Inf before the first).\n"
                    "# TYPE pascal_replica_lag_seconds gauge\n");
  if (isinf(lag))
    pd_sbuf_printf(b, "pascal_replica_lag_seconds +Inf\n");
  else
    pd_sbuf_printf(b, "pascal_replica_lag_seconds %.3f\n", lag);
  pd_sbuf_printf(b,
                 "# HELP pascal_replica_newest_calibration Id of the newest frozen "
                 "calibration held (0: none).\n"
                 "# TYPE pascal_replica_newest_calibration gauge\n"
                 "pascal_replica_newest_calibration %" PRId64 "\n",
                 r->newest_id);
  pd_sbuf_printf(b,
                 "# HELP pascal_replica_syncs_total Syncs from the primary by result.\n"
                 "# TYPE pascal_replica_syncs_total counter\n"
                 "pascal_replica_syncs_total{result=\"ok\"} %" PRIu64 "\n"
                 "pascal_replica_syncs_total{result=\"failed\"} %" PRIu64 "\n",
                 r->syncs_ok, r->syncs_failed);
  pd_sbuf_printf(b,
                 "# HELP pascal_replica_imported_total Calibrations imported from the "
                 "primary.\n# TYPE pascal_replica_imported_total counter\n"
                 "pascal_replica_imported_total %" PRIu64 "\n",
                 r->imported_total);
  pthread_mutex_unlock(&r->mu);
}
