/*
 * ctx.h - the daemon context: the only mutable state of pascald, created in
 * main.c and passed to every handler.
 *
 * Threads and locking (docs/threads.md): cfg and the stats route names are
 * written before MHD starts and only read afterwards; the store
 * serializes its callers on the mutex inside pascal_store (one SQLite
 * connection, locked for the whole of every store call); the prediction
 * registry has its own read-mostly lock (registry.h), so has the table of
 * tokens that authenticated reads (tokens.h); stats and `stopping`
 * are atomics; mhd and bound_port belong to the main thread; a replica's
 * sync thread shares only the store and the registry, and keeps its own
 * state behind its own mutex (replica.c).
 */
#ifndef PASCALD_CTX_H
#define PASCALD_CTX_H

#include <stdatomic.h>

#include "clock.h"
#include "pascald.h"
#include "predict_query.h"
#include "stats.h"

struct pascal_store;
typedef struct pd_registry pd_registry;
typedef struct pd_replica pd_replica;
typedef struct pd_plot_cache pd_plot_cache;
typedef struct pd_tokens pd_tokens;

struct pd_ctx {
  pd_config cfg;
  pd_stats stats;
  struct MHD_Daemon *mhd;
  struct pd_conns *conns; /* connection policy (conns.h); thread-safe */
  struct pd_pool *pool;   /* workers for blocking routes (pool.h); thread-safe */
  unsigned bound_port;
  struct pascal_store *store; /* thread-safe: locks itself (store/pascal_store.h) */
  pd_registry *registry;      /* thread-safe: rwlock inside (registry.h) */
  pd_replica *replica;        /* replica mode state (replica.h), NULL on a primary */
  pd_plot_cache *plots;       /* thread-safe: mutex inside (plot_cache.h) */
  pd_tokens *tokens;          /* thread-safe: rwlock inside (tokens.h); reads'
                                 tokens, revalidated by a thread of its own */
  pd_query_keys query_keys;   /* a predict query's key table, built by
                                 pd_http_start, then read-only */
  pd_keys bounds_keys;        /* a bounds question's (h_bounds.c), the same */
  pd_wallclock wall;          /* wall time for leases, steps detected (clock.h) */
  atomic_int stopping;        /* 1 once SIGTERM/SIGINT came: answers close their
                                 connections (http.c); set by the main thread */
};

#endif
