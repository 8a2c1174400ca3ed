/*
 * h_replication.c - POST /v1/replication/sync (admin): a replica syncs from
 * its primary now and answers what it did (replica.h). 200 when the sync
 * succeeded, 502 sync_failed with the first error otherwise (what was held
 * stays held); 409 not_a_replica on a primary.
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
  pd_sync_result res;
  if (pd_replica_sync(ctx, &res)) {
    pd_reply_error(rep, 502, "sync_failed", NULL, "%u error(s); first: %s", res.errors, res.error);
    return;
  }
  pd_reply_json(rep, 200,
                json_pack("{s:I,s:I,s:I,s:o}", "devices", (json_int_t)res.devices, "imported",
                          (json_int_t)res.imported, "held", (json_int_t)res.held, "replica",
                          pd_replica_status(ctx)));
}
