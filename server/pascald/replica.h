/*
 * replica.h - read-replica mode (docs/scale-out.md). A daemon started with
 * --replica-of URL mirrors its primary's device registrations and frozen
 * calibrations, ids included, into its own SQLite file: it lists them,
 * exports each one it lacks, checks the bundle against the content hash the
 * primary listed (the codec checks the hash against the content), and imports
 * it through the path of POST /v1/calibrations/import. It syncs on a thread
 * of its own every replica_interval seconds, and at once when
 * POST /v1/replication/sync asks (202: the request never waits on the
 * primary), one sync at a time. Every write route is refused with 421 naming the
 * primary. A primary that is down or answers garbage changes nothing here:
 * each import is one transaction, and the error is reported.
 */
#ifndef PASCALD_REPLICA_H
#define PASCALD_REPLICA_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "pascald.h"
#include "routes.h"
#include "sbuf.h"

typedef struct pd_replica pd_replica;

/* Validate a primary's base URL (http:// or https://, printable, no blank)
 * into dst without its trailing slashes. 0, or -1 when invalid. */
int pd_replica_url_set(char *dst, size_t n, const char *value);

/* Replica mode on (cfg.replica_of set): make ctx->replica and start the
 * polling thread; its first sync runs at once. Nothing to do on a primary. */
int pd_replica_start(pd_ctx *ctx, char *msg, size_t msglen);
/* Stop the thread (an ongoing transfer is aborted) and free ctx->replica. */
void pd_replica_stop(pd_ctx *ctx);

typedef struct pd_sync_result {
  unsigned devices;  /* device registrations the primary listed */
  unsigned imported; /* calibrations imported by this sync */
  unsigned held;     /* frozen calibrations of the primary held after it */
  unsigned errors;   /* devices or calibrations refused (first one in error) */
  char error[512];   /* "" when the sync succeeded */
} pd_sync_result;

/* One sync now (waits for one in progress). 0 when it succeeded. Run by
 * the replica's own thread only. */
int pd_replica_sync(pd_ctx *ctx, pd_sync_result *res);
/* Ask the replica's thread for a sync that begins after this call; returns
 * its number k: it is over once syncs.ok + syncs.failed >= k
 * (pd_replica_status), its outcome then in last_error. Never waits. */
uint64_t pd_replica_request_sync(pd_ctx *ctx);

/* On a replica, a write route gets 421 naming the primary: returns 1 with
 * the reply made. 0 otherwise, and for the /v1/replication/ routes, which
 * act on the replica itself. */
int pd_replica_refuses(pd_ctx *ctx, const pd_route *route, pd_reply *rep);

/* The replication state for /healthz and /v1/stats, or NULL on a primary. */
json_t *pd_replica_status(pd_ctx *ctx);
/* The same as Prometheus gauges and counters (nothing on a primary). */
void pd_replica_metrics(pd_ctx *ctx, pd_sbuf *b);

#endif
