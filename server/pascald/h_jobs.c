/*
 * h_jobs.c - the agent side of a calibration: claim (lease), heartbeat,
 * result, fail. Lease tokens are 128 random bits, handed to the claimer once
 * and kept by the store only as their SHA-256. A lease belongs to the API
 * token that claimed it (403 for any other token), and the agent recorded is
 * "<token name>/<agent>", so that no client can act under another's name.
 * The store enforces expiry, staleness (409 stale_lease), ownership,
 * idempotent identical re-uploads and bounded attempts, each in one
 * transaction. Bodies are read and written by the shared codec
 * (pascal_codec_jobs.h), the one definition of the protocol the agent uses
 * too. A claim, a result or a failure is one store call (besides the token
 * check): the store answers it with the device's progress.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "auth.h"
#include "ctx.h"
#include "handlers.h"
#include "jsonin.h"
#include "pascal_codec_jobs.h"
#include "reply.h"
#include "runs.h"

#define LEASE_BYTES 16 /* 128 bits -> 32 hex digits, PASCAL_CODEC_LEASE_MIN */

/* A request body the codec refused: 400 naming the field. The codes are
 * those of every other body pascald reads (jsonin.h); `invalid` is the code
 * of a malformed value (a name, a lease token). */
static void reply_decode_error(pd_reply *rep, const pascal_error *err, const char *invalid)
{
  const char *code = err->status == PASCAL_EMISSING  ? "missing_field"
                     : err->status == PASCAL_EFORMAT ? "invalid_type"
                     : err->status == PASCAL_ERANGE  ? "out_of_range"
                                                     : invalid;
  pd_reply_error(rep, 400, code, err->field, "%s", err->message);
}

/* Reply with an encoded body; an answer that cannot be encoded is the
 * daemon's fault (500). */
static void reply_encoded(pd_reply *rep, pascal_status st, json_t *body, const pascal_error *err)
{
  if (st)
    pd_reply_error(rep, 500, "internal", err->field, "cannot write the reply: %s", err->message);
  else
    pd_reply_json(rep, 200, body);
}

void pd_h_jobs_claim(pd_ctx *ctx, pd_request *req, pd_reply *rep)
{
  pascal_codec_claim in;
  char owner[PASCAL_STORE_NAME_MAX];
  pascal_error err;
  pascal_error_clear(&err);
  if (pd_json_strict(req->json, pascal_codec_jobs_request_keys(PASCAL_CODEC_CLAIM), NULL, rep))
    return;
  if (pascal_codec_claim_decode(req->json, &in, &err)) {
    reply_decode_error(rep, &err, "invalid_name");
    return;
  }
  if ((size_t)snprintf(owner, sizeof owner, "%s/%s", req->token_name, in.agent) >= sizeof owner) {
    pd_reply_error(rep, 400, "out_of_range", "agent",
                   "the agent is recorded as '%s/<agent>', which must fit in %d characters",
                   req->token_name, PASCAL_STORE_NAME_MAX - 1);
    return;
  }
  pascal_codec_job job;
  memset(&job, 0, sizeof job);
  char lease_hash[PD_HASH_HEX];
  if (pd_random_hex(LEASE_BYTES, job.lease_token)) {
    pd_reply_error(rep, 503, "unavailable", NULL, "no randomness for a lease token");
    return;
  }
  pd_token_hash(job.lease_token, lease_hash);
  pascal_store_job row;
  pascal_store_job_outcome outcome;
  int claimed = 0;
  int st = pascal_store_job_claim(ctx->store, in.device, owner, lease_hash, req->token_id,
                                  (int64_t)time(NULL), ctx->cfg.lease_seconds, &row, &claimed,
                                  &outcome, &err);
  if (st != PASCAL_STORE_OK) {
    pd_reply_store_error(rep, st, &err);
    return;
  }
  pascal_codec_progress progress = {outcome.done, outcome.total};
  if (claimed)
    pd_job_to_codec(&row, ctx->cfg.lease_seconds, &job);
  json_t *out = NULL;
  pascal_status cs = pascal_codec_claim_reply_encode(claimed ? &job : NULL, &progress, &out, &err);
  reply_encoded(rep, cs, out, &err);
}

/* Common prologue of heartbeat/result/fail: job id from the path and the
 * body, its lease token replaced by the digest the store keeps.
 * Returns the id or -1 after replying. */
static int64_t lease_request(pd_request *req, pd_reply *rep, pascal_codec_jobs_request kind,
                             pascal_codec_lease_request *in, char lease_hash[PD_HASH_HEX])
{
  int64_t id = pd_parse_id(req->params[0]);
  if (id < 0) {
    pd_reply_error(rep, 404, "not_found", "id", "no job '%.64s'", req->params[0]);
    return -1;
  }
  pascal_error err;
  pascal_error_clear(&err);
  if (pd_json_strict(req->json, pascal_codec_jobs_request_keys(kind), NULL, rep))
    return -1;
  if (pascal_codec_lease_request_decode(kind, req->json, in, &err)) {
    reply_decode_error(rep, &err, "invalid");
    return -1;
  }
  pd_token_hash(in->lease_token, lease_hash);
  return id;
}

void pd_h_job_heartbeat(pd_ctx *ctx, pd_request *req, pd_reply *rep)
{
  pascal_codec_lease_request in;
  char lease[PD_HASH_HEX];
  int64_t id = lease_request(req, rep, PASCAL_CODEC_HEARTBEAT, &in, lease);
  if (id < 0)
    return;
  int64_t expires = 0;
  pascal_error err;
  pascal_error_clear(&err);
  int st = pascal_store_job_heartbeat(ctx->store, id, lease, req->token_id, (int64_t)time(NULL),
                                      ctx->cfg.lease_seconds, &expires, &err);
  if (st != PASCAL_STORE_OK) {
    pd_reply_store_error(rep, st, &err);
    return;
  }
  char when[PASCAL_CODEC_TIME_MAX];
  pd_rfc3339(expires, when, sizeof when);
  json_t *out = NULL;
  pascal_status cs = pascal_codec_heartbeat_reply_encode(when, ctx->cfg.lease_seconds, &out, &err);
  reply_encoded(rep, cs, out, &err);
}

/* Result and fail: the store call that records the outcome, answered with
 * the job's new state and the progress the store read in the same
 * transaction. */
static void job_outcome(pd_ctx *ctx, pd_request *req, pd_reply *rep, pascal_codec_jobs_request kind)
{
  pascal_codec_lease_request in;
  char lease[PD_HASH_HEX];
  int64_t id = lease_request(req, rep, kind, &in, lease);
  if (id < 0)
    return;
  pascal_store_job_outcome outcome;
  pascal_error err;
  pascal_error_clear(&err);
  int64_t now = (int64_t)time(NULL);
  int st = kind == PASCAL_CODEC_RESULT
               ? pascal_store_job_result(ctx->store, id, lease, req->token_id, in.fill_bytes,
                                         in.kernel_ns, now, &outcome, &err)
               : pascal_store_job_fail(ctx->store, id, lease, req->token_id,
                                       in.message[0] ? in.message : NULL, now, &outcome, &err);
  if (st != PASCAL_STORE_OK) {
    pd_reply_store_error(rep, st, &err);
    return;
  }
  pascal_codec_progress progress = {outcome.done, outcome.total};
  json_t *out = NULL;
  pascal_status cs = pascal_codec_outcome_reply_encode(
      id, pascal_store_job_state_name(outcome.state), &progress, &out, &err);
  reply_encoded(rep, cs, out, &err);
}

void pd_h_job_result(pd_ctx *ctx, pd_request *req, pd_reply *rep)
{
  job_outcome(ctx, req, rep, PASCAL_CODEC_RESULT);
}

void pd_h_job_fail(pd_ctx *ctx, pd_request *req, pd_reply *rep)
{
  job_outcome(ctx, req, rep, PASCAL_CODEC_FAIL);
}
