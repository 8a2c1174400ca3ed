/*
 * ctx.h - the daemon context: the only mutable state of pascald, created in
 * main.c and passed to every handler.
 *
 * Locking: the store has one SQLite connection guarded by store_lock (writes
 * are serialized by SQLite anyway); the prediction registry has its own
 * read-mostly lock (registry.h); stats are atomics.
 */
#ifndef PASCALD_CTX_H
#define PASCALD_CTX_H

#include <pthread.h>

#include "pascald.h"
#include "stats.h"

struct pascal_store;
typedef struct pd_registry pd_registry;

struct pd_ctx {
  pd_config cfg;
  pd_stats stats;
  struct MHD_Daemon *mhd;
  unsigned bound_port;
  struct pascal_store *store;
  pthread_mutex_t store_lock;
  pd_registry *registry;
};

#endif
