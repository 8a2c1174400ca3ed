/*
 * http.c - libmicrohttpd glue. One access handler for every request:
 *   1st call     allocate per-request state; refuse an ambiguous framing or a
 *                NUL byte in the head (400 and close, reqhead.c) and a
 *                declared Content-Length above the cap (413): the body is
 *                never read
 *   data calls   accumulate the body; past the cap, keep discarding and answer
 *                413 at the end (memory stays bounded by the cap)
 *   final call   route (404/405; a CORS preflight is answered here, cors.h),
 *                auth (401/403), content type (415), JSON
 *                limits (400), then the handler; the reply is sent from here
 *                only (send_reply), and counted (and the request's memory
 *                released) when MHD reports completion.
 * A route that may wait (the store's lock) is run on pascald's worker pool
 * while its connection is suspended (pool.h), so that libmicrohttpd's
 * threads stay free for predictions.
 * MHD runs epoll with an internal thread pool sized to the cores, with an
 * explicit idle timeout, per-address limit and per-connection memory cap;
 * the total limit, the request deadline and the %00 detection in URLs are
 * pascald's own (conns.c).
 */
#include "http.h"

#include <malloc.h>
#include <microhttpd.h>
#include <netdb.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "auth.h"
#include "conns.h"
#include "cors.h"
#include "handlers.h"
#include "jsonin.h"
#include "jsonpar.h"
#include "pascal/grow.h"
#include "pool.h"
#include "replica.h"
#include "reply.h"
#include "reqhead.h"
#include "routes.h"

/* Bytes kept with each connection for its answers' text (pd_reply.room):
 * an explained answer (about 1.4-1.7 KB) is written there and sent in
 * place, without an allocation and a free per request; a longer one moves
 * to its own buffer as it grows. */
#define PD_ANSWER_ROOM 4096u

/* Bodies from this size on are followed by a malloc_trim (on_completed). */
#define PD_TRIM_AFTER_BODY (256u * 1024u)

typedef struct pd_conn {
  uint64_t t0;
  size_t route; /* stats slot: route index, or the "unmatched" slot */
  unsigned status;
  char *body;
  size_t len, cap;
  int too_large;
  int must_close; /* framing refused: the rest of the stream cannot be trusted */
  json_t *json;   /* parsed body; released when MHD reports completion, so that
                     freeing a large tree never delays the answer */
  /* A blocking route runs on the worker pool (pool.h) while the connection
   * is suspended; its answer waits in `rep` until MHD calls back. */
  int offloaded;
  pd_ctx *ctx;
  struct MHD_Connection *conn;
  const char *url, *method;
  pd_reply rep; /* the request's answer (also an early one) */
  /* The route, matched once per request (route_of): whether it blocks
   * decides where the request runs, then dispatch answers it. */
  int matched, idx; /* idx: a route, PD_ROUTE_NOT_FOUND or PD_ROUTE_BAD_METHOD */
  int own;          /* 1: allocated for this request, 0: the connection's room */
  char *answer;     /* the connection's PD_ANSWER_ROOM bytes after it, or NULL */
  int answering;    /* pd_conns_answering called for this request */
  pd_head head;     /* headers read in the head's check (reqhead.h) */
  /* Last, and not cleared per request (request_begin): params are read
   * only when params[0] is not empty (a parameter never is), allow only
   * after pd_route_match wrote it. */
  char params[PD_PATH_PARAMS][PD_PARAM_MAX];
  char allow[sizeof((pd_reply *)0)->allow];
} pd_conn;

/* A request's state as new: zero up to the path parameters. */
static void request_begin(pd_conn *c)
{
  memset(c, 0, offsetof(pd_conn, params));
  c->params[0][0] = '\0';
  c->allow[0] = '\0';
}

/* The request's route (pd_route_match), matched on the first call. */
static int route_of(pd_conn *c, const char *method, const char *url)
{
  if (!c->matched) {
    pd_request probe;
    c->idx = pd_route_match(method, url, &probe, c->allow, sizeof c->allow);
    if (c->idx >= 0 && probe.params[0][0]) /* c->params are zero otherwise */
      memcpy(c->params, probe.params, sizeof c->params);
    c->matched = 1;
  }
  return c->idx;
}

static int is_json_type(const char *ct)
{
  static const char want[] = "application/json";
  if (!ct || strncasecmp(ct, want, sizeof want - 1) != 0)
    return 0;
  char next = ct[sizeof want - 1];
  return next == '\0' || next == ';' || next == ' ' || next == '\t';
}

/* libmicrohttpd's side of a pd_stream (reply.h). */
static ssize_t stream_read(void *cls, uint64_t pos, char *buf, size_t max)
{
  pd_stream *s = cls;
  (void)pos;
  long n = s->read(s->state, buf, max);
  return n < 0    ? MHD_CONTENT_READER_END_WITH_ERROR
         : n == 0 ? MHD_CONTENT_READER_END_OF_STREAM
                  : (ssize_t)n;
}

static void stream_free(void *cls)
{
  pd_stream *s = cls;
  s->free(s->state);
  free(s);
}

/* Bytes libmicrohttpd asks a stream for at once. */
#define PD_STREAM_BLOCK (32u * 1024u)

static enum MHD_Result send_reply(pd_ctx *ctx, struct MHD_Connection *conn, pd_conn *c,
                                  pd_reply *rep)
{
  char *buf = NULL;
  size_t len = 0;
  int in_room = 0; /* buf is the connection's answer room: sent in place */
  struct MHD_Response *r = NULL;
  int has_body = rep->stream != NULL;
  if (rep->stream) {
    r = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, PD_STREAM_BLOCK, stream_read,
                                          rep->stream, stream_free);
    if (!r) {
      pd_reply_clear(rep); /* frees the stream */
      return MHD_NO;
    }
    rep->stream = NULL; /* libmicrohttpd's now */
    goto headers;
  }
  if (rep->json) {
    buf = json_dumps(rep->json, JSON_COMPACT | JSON_REAL_PRECISION(17));
    if (buf) {
      len = strlen(buf);
      char *grown = realloc(buf, len + 2);
      if (grown) {
        buf = grown;
        buf[len++] = '\n';
        buf[len] = '\0';
      }
    }
  } else if (rep->text) {
    buf = rep->text;
    len = rep->text_len;
    in_room = buf == rep->room;
    rep->text = NULL;
  }
  if (!buf && rep->status != 204) {
    static const char oom[] =
        "{\"error\":{\"code\":\"internal\",\"message\":\"out of memory\",\"field\":null}}\n";
    rep->status = 500;
    rep->content_type = "application/json";
    len = sizeof oom - 1;
    buf = malloc(len);
    if (!buf)
      return MHD_NO;
    memcpy(buf, oom, len);
  }
  r = MHD_create_response_from_buffer(len, buf,
                                      in_room ? MHD_RESPMEM_PERSISTENT : MHD_RESPMEM_MUST_FREE);
  if (!r) {
    if (!in_room)
      free(buf);
    return MHD_NO;
  }
  has_body = buf != NULL;
headers:
  if (has_body)
    MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE,
                            rep->content_type ? rep->content_type : "application/json");
  MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
  if (rep->allow[0])
    MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, rep->allow);
  if (rep->status == 201 && rep->location[0])
    MHD_add_response_header(r, MHD_HTTP_HEADER_LOCATION, rep->location);
  if (rep->csp) { /* the dashboard and plots: a browser renders them */
    MHD_add_response_header(r, "Content-Security-Policy", rep->csp);
    MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
  }
  if (rep->www_authenticate)
    MHD_add_response_header(r, MHD_HTTP_HEADER_WWW_AUTHENTICATE, "Bearer realm=\"pascald\"");
  if (ctx->cfg.cors_origins[0])
    MHD_add_response_header(r, MHD_HTTP_HEADER_VARY, "Origin");
  if (rep->cors_origin) {
    MHD_add_response_header(r, MHD_HTTP_HEADER_ACCESS_CONTROL_ALLOW_ORIGIN, rep->cors_origin);
    MHD_add_response_header(r, "Access-Control-Expose-Headers", "Location");
  }
  if (rep->cors_preflight) {
    char age[16];
    snprintf(age, sizeof age, "%u", ctx->cfg.cors_max_age);
    MHD_add_response_header(r, "Access-Control-Allow-Methods", rep->allow);
    MHD_add_response_header(r, "Access-Control-Allow-Headers", PD_CORS_ALLOW_HEADERS);
    MHD_add_response_header(r, "Access-Control-Max-Age", age);
  }
  /* Shutting down: no keep-alive, so that the connection closes once this
   * answer is sent and its client cannot start another request. */
  if (c->must_close || atomic_load_explicit(&ctx->stopping, memory_order_relaxed))
    MHD_add_response_header(r, MHD_HTTP_HEADER_CONNECTION, "close");
  c->status = rep->status;
  if (!c->answering) /* an answer before the whole request was in */
    pd_conns_answering(conn);
  enum MHD_Result ok = MHD_queue_response(conn, rep->status, r);
  MHD_destroy_response(r);
  pd_reply_clear(rep);
  return ok;
}

/* 401/403 by the route's access level, from the Authorization header `hdr`
 * (NULL: none). Returns 0 when the request may go on. */
static int check_access(pd_ctx *ctx, const pd_route *route, pd_request *req, const char *hdr,
                        pd_reply *rep)
{
  pd_access need = route->access;
  if (need == PD_ACCESS_OPEN)
    return 0;
  if (need == PD_ACCESS_READ && !ctx->cfg.auth_reads && !hdr)
    return 0;
  pd_auth_result a = pd_auth_check(ctx, req, hdr, need == PD_ACCESS_READ);
  if (a == PD_AUTH_UNAVAILABLE) {
    pd_reply_error(rep, 503, "unavailable", NULL, "the token store cannot be read; try again");
    return -1;
  }
  if (a != PD_AUTH_OK) {
    pd_reply_error(rep, 401, "unauthorized", NULL,
                   a == PD_AUTH_ABSENT ? "this route needs Authorization: Bearer <token>"
                                       : "the bearer token is invalid or revoked");
    rep->www_authenticate = 1;
    return -1;
  }
  int ok = need == PD_ACCESS_READ || (need == PD_ACCESS_AGENT && req->role >= PD_ROLE_AGENT) ||
           (need == PD_ACCESS_ADMIN && req->role == PD_ROLE_ADMIN);
  if (!ok) {
    pd_reply_error(rep, 403, "forbidden", NULL, "this route needs the %s role",
                   need == PD_ACCESS_ADMIN ? "admin" : "agent");
    return -1;
  }
  return 0;
}

/* CORS (cors.h): remember an allowed Origin for the answer's headers, and
 * answer a preflight (OPTIONS with Access-Control-Request-Method on a known
 * path) at once: 204 for an allowed origin, 403 naming it otherwise.
 * Returns 1 when the preflight was answered. */
static int cors(pd_ctx *ctx, struct MHD_Connection *conn, const char *method, int idx,
                pd_reply *rep)
{
  const char *origin = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Origin");
  if (pd_cors_origin_allowed(ctx->cfg.cors_origins, origin))
    rep->cors_origin = origin;
  if (idx != PD_ROUTE_BAD_METHOD || strcmp(method, "OPTIONS") != 0 || !origin ||
      !MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Access-Control-Request-Method"))
    return 0;
  if (rep->cors_origin) {
    rep->status = 204;
    rep->cors_preflight = 1;
  } else {
    rep->allow[0] = '\0';
    pd_reply_error(rep, 403, "forbidden", "Origin", "origin '%.200s' is not in cors_origins",
                   origin);
  }
  return 1;
}

static void dispatch(pd_ctx *ctx, struct MHD_Connection *conn, const char *url, const char *method,
                     pd_conn *c, pd_reply *rep)
{
  pd_request req; /* every field set here; params as c->params (route_of) */
  req.conn = conn;
  req.method = method;
  req.path = url;
  req.body = c->body ? c->body : "";
  req.body_len = c->len;
  req.json = NULL;
  req.role = PD_ROLE_NONE;
  req.token_id = -1;
  req.token_name[0] = '\0';
  int idx = route_of(c, method, url);
  if (c->params[0][0]) /* a route with parameters */
    memcpy(req.params, c->params, sizeof req.params);
  else
    req.params[0][0] = '\0';
  memcpy(rep->allow, c->allow, sizeof rep->allow);
  if (ctx->cfg.cors_origins[0] && cors(ctx, conn, method, idx, rep))
    return;
  if (idx == PD_ROUTE_NOT_FOUND) {
    pd_reply_error(rep, 404, "not_found", NULL, "no route %s %s", method, url);
    return;
  }
  if (idx == PD_ROUTE_BAD_METHOD) {
    pd_reply_error(rep, 405, "method_not_allowed", NULL, "%s is not allowed here (allowed: %s)",
                   method, rep->allow);
    return;
  }
  size_t n;
  const pd_route *route = &pd_routes(&n)[idx];
  c->route = (size_t)idx;
  if (c->too_large) {
    pd_reply_error(rep, 413, "body_too_large", NULL, "request body exceeds %zu bytes",
                   ctx->cfg.body_max);
    return;
  }
  if (pd_replica_refuses(ctx, route, rep))
    return; /* 421: writes go to the primary */
  if (check_access(ctx, route, &req, c->head.authorization, rep))
    return;
  json_t *root = NULL;
  int required = route->body == PD_BODY_JSON || route->body == PD_BODY_TEXT;
  if (route->body != PD_BODY_NONE && (c->len > 0 || required)) {
    const char *ct =
        MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_TYPE);
    if (c->len > 0 && !is_json_type(ct)) {
      pd_reply_error(rep, 415, "unsupported_media_type", NULL,
                     "Content-Type must be application/json (got %s)", ct ? ct : "none");
      return;
    }
    if (route->body != PD_BODY_TEXT &&
        pd_json_parse_large(req.body, req.body_len, ctx->cfg.json_depth_max, ctx->cfg.threads,
                            &root, rep))
      return;
  }
  req.json = c->json = root;
  route->handler(ctx, &req, rep);
}

/* 1 when the request's route may wait (the store, the network). */
static int blocking(pd_conn *c, const char *method, const char *url)
{
  size_t n;
  int idx = route_of(c, method, url);
  return idx >= 0 && pd_routes(&n)[idx].work == PD_WORK_BLOCKING;
}

/* On a worker of the pool: the request, then its connection resumed. */
static void run_offloaded(void *arg)
{
  pd_conn *c = arg;
  dispatch(c->ctx, c->conn, c->url, c->method, c, &c->rep);
  MHD_resume_connection(c->conn);
}

/* Suspend the connection and queue the request on the pool; -1 when it
 * cannot be queued (it then runs here). */
static int offload(pd_ctx *ctx, struct MHD_Connection *conn, const char *url, const char *method,
                   pd_conn *c)
{
  if (!ctx->pool)
    return -1;
  c->offloaded = 1;
  c->ctx = ctx;
  c->conn = conn;
  c->url = url;
  c->method = method;
  memset(&c->rep, 0, sizeof c->rep);
  MHD_suspend_connection(conn);
  if (pd_pool_submit(ctx->pool, run_offloaded, c) == 0)
    return 0;
  c->offloaded = 0;
  MHD_resume_connection(conn);
  return -1;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url,
                                  const char *method, const char *version, const char *upload_data,
                                  size_t *upload_data_size, void **con_cls)
{
  pd_ctx *ctx = cls;
  pd_conn *c = *con_cls;
  if (!c) {
    /* the connection's own room (one request at a time), else our own */
    int nul_in_url, too_many_params;
    c = pd_conns_request_start(conn, sizeof *c + PD_ANSWER_ROOM, &nul_in_url, &too_many_params);
    int own = !c;
    if (own && !(c = malloc(sizeof *c)))
      return MHD_NO;
    request_begin(c);
    c->own = own;
    c->answer = own ? NULL : (char *)(c + 1);
    c->t0 = pd_now_ns();
    c->route = ctx->stats.nroutes - 1;
    *con_cls = c;
    atomic_fetch_add_explicit(&ctx->stats.inflight, 1, memory_order_relaxed);
    pd_reply *rep = &c->rep; /* zero (request_begin): an early answer's */
    if (pd_reqhead_check(conn, version, nul_in_url, too_many_params, &c->head, rep)) {
      c->must_close = 1;
      return send_reply(ctx, conn, c, rep);
    }
    const char *cl = c->head.content_length;
    unsigned long long declared = cl ? strtoull(cl, NULL, 10) : 0;
    if (declared > ctx->cfg.body_max) {
      c->too_large = 1; /* answer now: the body is never read */
      rep->room = c->answer;
      rep->room_cap = c->answer ? PD_ANSWER_ROOM : 0;
      dispatch(ctx, conn, url, method, c, rep);
      return send_reply(ctx, conn, c, rep);
    }
    /* the declared body's room at once: no regrowth (and copy) as it comes */
    if (declared > 0 && pascal_grow((void **)&c->body, &c->cap, (size_t)declared + 1, 1))
      return MHD_NO;
    pascal_prefault(c->body, (size_t)declared + 1); /* it is all written next */
    return MHD_YES;
  }
  if (*upload_data_size > 0) {
    size_t n = *upload_data_size;
    *upload_data_size = 0;
    if (c->too_large || c->status)
      return MHD_YES;
    if (c->len + n > ctx->cfg.body_max) {
      c->too_large = 1; /* keep draining, answer 413 at the end */
      free(c->body);
      c->body = NULL;
      c->len = c->cap = 0;
      return MHD_YES;
    }
    if (pascal_grow((void **)&c->body, &c->cap, c->len + n + 1, 1))
      return MHD_NO;
    memcpy(c->body + c->len, upload_data, n);
    c->len += n;
    c->body[c->len] = '\0';
    return MHD_YES;
  }
  if (c->status)
    return MHD_YES; /* already answered (early 413) */
  if (c->offloaded) /* called back after the pool resumed the connection */
    return send_reply(ctx, conn, c, &c->rep);
  /* The whole request is in: the deadline stops here, so that a handler's
   * own work (a freeze, an import) never costs its answer. */
  pd_conns_answering(conn);
  c->answering = 1;
  if (blocking(c, method, url) && offload(ctx, conn, url, method, c) == 0)
    return MHD_YES;
  pd_reply *rep = &c->rep; /* zero: nothing answered yet (or offload() cleared it) */
  rep->room = c->answer;
  rep->room_cap = c->answer ? PD_ANSWER_ROOM : 0;
  dispatch(ctx, conn, url, method, c, rep);
  return send_reply(ctx, conn, c, rep);
}

static void on_completed(void *cls, struct MHD_Connection *conn, void **con_cls,
                         enum MHD_RequestTerminationCode toe)
{
  pd_ctx *ctx = cls;
  pd_conn *c = *con_cls;
  (void)toe;
  pd_conns_request_done(conn);
  if (!c)
    return;
  pd_stats_record(&ctx->stats, c->route, c->status, pd_now_ns() - c->t0);
  atomic_fetch_sub_explicit(&ctx->stats.inflight, 1, memory_order_relaxed);
  int large = c->cap >= PD_TRIM_AFTER_BODY;
  pd_reply_clear(&c->rep); /* an offloaded answer its client left before */
  json_decref(c->json);
  free(c->body);
  if (c->own)
    free(c);
  *con_cls = NULL;
  /* A large request's items, tree and answer are freed by now: give their
   * pages back. Measured 1 s after a 100,000-query batch, 12 MiB steady:
   * read from its text, 12 MiB (14 without the trim and the fixed mmap
   * threshold below); parsed by Jansson (a shape the text reader leaves to
   * it), 66 MiB (83 without; the tree's freed top of a thread's arena is
   * beyond malloc_trim's reach), where it stayed at 128-200 MiB before. */
  if (large)
    malloc_trim(0);
}

int pd_http_start(pd_ctx *ctx, char *msg, size_t msglen)
{
  if (pd_query_keys_init(&ctx->query_keys)) {
    snprintf(msg, msglen, "the predict query's fields do not fit its key table");
    return -1;
  }
  if (pd_bounds_keys_init(&ctx->bounds_keys)) {
    snprintf(msg, msglen, "the bounds question's fields do not fit its key table");
    return -1;
  }
  char port[16];
  snprintf(port, sizeof port, "%u", ctx->cfg.listen_port);
  struct addrinfo hints, *ai = NULL;
  memset(&hints, 0, sizeof hints);
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  int gai = getaddrinfo(ctx->cfg.listen_host, port, &hints, &ai);
  if (gai != 0 || !ai) {
    snprintf(msg, msglen, "cannot resolve listen address %s: %s", ctx->cfg.listen_host,
             gai_strerror(gai));
    return -1;
  }
  if (pd_pool_start(ctx->cfg.threads < 2 ? 2 : ctx->cfg.threads, &ctx->pool)) {
    freeaddrinfo(ai);
    snprintf(msg, msglen, "cannot start the worker pool");
    return -1;
  }
  if (pd_conns_new(ctx->cfg.connection_limit, ctx->cfg.request_deadline_s, &ctx->conns) ||
      pd_conns_start(ctx->conns)) {
    pd_pool_stop(ctx->pool);
    ctx->pool = NULL;
    freeaddrinfo(ai);
    pd_conns_free(ctx->conns);
    ctx->conns = NULL;
    snprintf(msg, msglen, "cannot start the connection sweeper");
    return -1;
  }
  /* Large buffers (bodies, batch answers) always get their own mapping,
   * returned to the system when freed: glibc would otherwise raise its
   * threshold after the first such free and serve the next ones from the
   * heap, which then stays at its high-water mark. */
  mallopt(M_MMAP_THRESHOLD, PD_TRIM_AFTER_BODY);
  unsigned flags =
      MHD_USE_EPOLL_INTERNAL_THREAD | MHD_USE_ERROR_LOG | MHD_USE_ITC | MHD_ALLOW_SUSPEND_RESUME;
  if (ai->ai_family == AF_INET6)
    flags |= MHD_USE_IPv6;
  /* MHD's own limit sits above pascald's (the accept policy refuses first
   * with an immediate close): at its own limit MHD stops accepting and
   * clients would wait in the kernel backlog. */
  unsigned mhd_limit = ctx->cfg.connection_limit + 16 * ctx->cfg.threads;
  ctx->mhd = MHD_start_daemon(
      flags, 0, pd_conns_accept, ctx->conns, on_request, ctx, MHD_OPTION_SOCK_ADDR, ai->ai_addr,
      MHD_OPTION_THREAD_POOL_SIZE, (unsigned int)ctx->cfg.threads, MHD_OPTION_CONNECTION_TIMEOUT,
      (unsigned int)ctx->cfg.connection_timeout_s, MHD_OPTION_CONNECTION_LIMIT, mhd_limit,
      MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned int)ctx->cfg.connection_limit_per_ip,
      MHD_OPTION_CONNECTION_MEMORY_LIMIT, ctx->cfg.connection_memory, MHD_OPTION_NOTIFY_CONNECTION,
      pd_conns_notify, ctx->conns, MHD_OPTION_UNESCAPE_CALLBACK, pd_conns_unescape, ctx->conns,
      MHD_OPTION_LISTENING_ADDRESS_REUSE, (unsigned int)1, MHD_OPTION_NOTIFY_COMPLETED,
      on_completed, ctx, MHD_OPTION_END);
  freeaddrinfo(ai);
  if (!ctx->mhd) {
    pd_pool_stop(ctx->pool);
    ctx->pool = NULL;
    pd_conns_free(ctx->conns);
    ctx->conns = NULL;
    snprintf(msg, msglen, "cannot listen on %s:%u (address in use or not allowed)",
             ctx->cfg.listen_host, ctx->cfg.listen_port);
    return -1;
  }
  const union MHD_DaemonInfo *info = MHD_get_daemon_info(ctx->mhd, MHD_DAEMON_INFO_BIND_PORT);
  ctx->bound_port = info && info->port ? info->port : ctx->cfg.listen_port;
  return 0;
}

void pd_http_stop(pd_ctx *ctx)
{
  if (!ctx->mhd)
    return;
  /* From here every answer closes its connection (send_reply): without it a
   * keep-alive client under load always has a request in flight and the
   * wait below would run to its 10 s limit, then cut requests mid-way. */
  atomic_store_explicit(&ctx->stopping, 1, memory_order_relaxed);
  /* No new connections. Not MHD_quiesce_daemon: in libmicrohttpd 0.9.75 it
   * removes the listening socket from each worker's epoll set while the
   * worker, seeing the quiesced flag, may remove it too; the loser's
   * epoll_ctl fails with ENOENT and MHD aborts the process (seen once in
   * CI as SIGABRT on SIGTERM). The accept policy closes newcomers instead,
   * and MHD_stop_daemon closes the listening socket. */
  pd_conns_close_door(ctx->conns);
  /* let in-flight requests finish: at most ~10 s */
  for (int i = 0; i < 1000 && atomic_load(&ctx->stats.inflight) > 0; i++) {
    struct timespec ts = {0, 10 * 1000 * 1000};
    nanosleep(&ts, NULL);
  }
  /* every offloaded request answered and its connection resumed: MHD must
   * not be stopped with a connection suspended */
  pd_pool_stop(ctx->pool);
  ctx->pool = NULL;
  pd_conns_stop(ctx->conns); /* no sweep while MHD closes its connections */
  MHD_stop_daemon(ctx->mhd);
  ctx->mhd = NULL;
  pd_conns_free(ctx->conns);
  ctx->conns = NULL;
}
