/*
 * h_replication.c - POST /v1/replication/sync (admin): a replica's own
 * thread syncs from its primary at once (replica.h). 202 with the number of
 * that sync ("sync": k; it is over once the replica status counts
 * syncs.ok + syncs.failed >= k, its outcome in last_error), so that the
 * request never waits on the primary; 409 not_a_replica on a primary.
 */
#include "ctx.h"
#include "handlers.h"
#include "replica.h"
#include "reply.h"

void pd_h_replication_sync(pd_ctx *ctx, pd_request *req, pd_reply *rep)
{
  (void)req;
  if (!ctx->replica) {
    pd_reply_error(rep, 409, "not_a_replica", NULL,
                   "this daemon is not a replica (start it with --replica-of URL)");
    return;
  }
  json_int_t k = (json_int_t)pd_replica_request_sync(ctx);
  pd_reply_json(rep, 202, json_pack("{s:I,s:o}", "sync", k, "replica", pd_replica_status(ctx)));
}
