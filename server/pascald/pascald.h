/*
 * pascald.h - the daemon's shared types: configuration, the request/reply pair
 * every handler sees, and the one context struct passed to everything (the only
 * mutable state of the process besides the signal flag).
 *
 * Request life cycle (http.c): MHD accepts -> body accumulated under the cap ->
 * route matched (routes.c) -> auth checked (auth.c) -> JSON parsed with limits
 * (jsonin.c) -> handler fills a pd_reply -> http.c turns it into the one MHD
 * response -> stats.c counts it. Handlers never touch MHD responses directly.
 */
#ifndef PASCALD_H
#define PASCALD_H

#include <jansson.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

struct MHD_Connection;
struct MHD_Daemon;

#define PD_PATH_PARAMS 2
#define PD_PARAM_MAX   128

/* --- configuration (config.c) -------------------------------------------- */
typedef struct pd_config {
  char listen_host[256];
  unsigned listen_port; /* 0: the kernel picks a free port */
  char db_path[4096];
  char bundles_dir[4096]; /* "" : no import on empty database */
  unsigned lease_seconds; /* job lease length */
  unsigned max_attempts;  /* job attempts before `failed` */
  unsigned threads;       /* MHD thread pool size (0: number of cores) */
  unsigned connection_limit;
  unsigned connection_timeout_s;    /* idle: MHD closes a connection silent this long */
  unsigned request_deadline_s;      /* a whole request (head and body) must arrive in this */
  unsigned connection_limit_per_ip; /* connections from one client address (0: no limit) */
  size_t connection_memory;         /* MHD per-connection memory (headers, buffers) */
  size_t body_max;                  /* request body cap in bytes (413 above it) */
  size_t batch_max;                 /* items in one predict batch */
  int json_depth_max;               /* nesting depth accepted in request bodies */
  int auth_reads;                   /* 1: reads need a token (any role) too */
  char cors_origins[1024];          /* allowed CORS origins, comma-separated; "" = CORS off */
  unsigned cors_max_age;            /* Access-Control-Max-Age of a preflight, seconds */
  char replica_of[512]; /* primary's base URL: this daemon is its read replica; "" = primary */
  unsigned replica_interval_s; /* seconds between two syncs of a replica */
  int read_only;               /* 1: recovery: open the database read-only, start
                                  even when PRAGMA quick_check fails */
  unsigned job_time_limit_s;   /* a job's lease is never extended past this many
                                  seconds from its claim (0: no limit) */
  unsigned agents_per_token;   /* distinct agent names one token may have in use
                                  (seen in the last PD_AGENT_KEEP_S) */
  char log_file[4096];         /* the log (stderr) goes to this file, reopened on
                                  SIGHUP (logfile.h); "" = stderr as inherited */
} pd_config;

/* --- roles and auth ------------------------------------------------------- */
typedef enum pd_role {
  PD_ROLE_NONE = 0, /* no valid token presented */
  PD_ROLE_AGENT = 1,
  PD_ROLE_ADMIN = 2
} pd_role;

/* What a route needs. */
typedef enum pd_access {
  PD_ACCESS_OPEN = 0, /* always open (health) */
  PD_ACCESS_READ,     /* open unless --auth-reads */
  PD_ACCESS_AGENT,    /* agent or admin token */
  PD_ACCESS_ADMIN     /* admin token */
} pd_access;

/* --- request and reply ---------------------------------------------------- */
typedef struct pd_request {
  struct MHD_Connection *conn;
  const char *method;
  const char *path;
  const char *body; /* NUL-terminated copy of the body (may be empty) */
  size_t body_len;
  json_t *json;                              /* parsed body object (borrowed), NULL when no body */
  char params[PD_PATH_PARAMS][PD_PARAM_MAX]; /* {name}/{id} path segments */
  pd_role role;
  int64_t token_id;    /* id of the token used, -1 if none */
  char token_name[64]; /* its name, "" if none */
} pd_request;

typedef struct pd_reply {
  unsigned status;
  json_t *json; /* owned; serialized by http.c */
  char *text;   /* owned; used when json is NULL (metrics) */
  size_t text_len;
  const char *content_type;
  char allow[32];           /* Allow header for 405 ("GET, POST"), or "" */
  char location[96];        /* Location of what a 201 created ("/v1/devices/x"), or "" */
  int www_authenticate;     /* 1: add WWW-Authenticate: Bearer */
  const char *cors_origin;  /* allowed Origin of the request (CORS), or NULL */
  int cors_preflight;       /* 1: answer a CORS preflight (204, allowed methods) */
  const char *csp;          /* Content-Security-Policy of a page or image, or NULL */
  struct pd_stream *stream; /* owned; an answer written as it is sent (reply.h) */
  /* A buffer the connection lends for this answer's text (http.c), or NULL:
   * `text` may point into it (then it is not freed, and libmicrohttpd sends
   * it in place: the connection keeps it until the request completes). */
  char *room;
  size_t room_cap;
} pd_reply;

typedef struct pd_ctx pd_ctx;
typedef void (*pd_handler)(pd_ctx *ctx, pd_request *req, pd_reply *rep);

#endif
