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
 * check, and a result's plausibility check, which reads the job and its
 * device first): the store answers it with the device's progress. A result
 * outside what its run can physically measure is refused with 422
 * (pascal/plausible.h). An admin may re-queue or exclude a run of a
 * collecting calibration (audited in the log), so that one bad upload never
 * costs a whole calibration.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "auth.h"
#include "calib.h"
#include "ctx.h"
#include "handlers.h"
#include "jsonin.h"
#include "pascal_codec_jobs.h"
#include "reply.h"
#include "runs.h"

/* Agents not seen for this long are forgotten (stats, metrics, and the
 * count of names a token may have: cfg.agents_per_token). */
#define PD_AGENT_KEEP_S (7 * 86400)

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
  char prefix[sizeof req->token_name + 1];
  snprintf(prefix, sizeof prefix, "%s/", req->token_name);
  int64_t now = pd_wall_now(&ctx->wall, ctx->store);
  int st = pascal_store_agent_admit(ctx->store, prefix, owner, now, PD_AGENT_KEEP_S,
                                    ctx->cfg.agents_per_token, &err);
  if (st == PASCAL_STORE_OK)
    st = pascal_store_job_claim(ctx->store, in.device, owner, lease_hash, req->token_id, now,
                                ctx->cfg.lease_seconds, &row, &claimed, &outcome, &err);
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
  int st = pascal_store_job_heartbeat_limited(
      ctx->store, id, lease, req->token_id, pd_wall_now(&ctx->wall, ctx->store),
      ctx->cfg.lease_seconds, ctx->cfg.job_time_limit_s, &expires, &err);
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

/* A result outside what the job's run can physically measure is refused
 * (422 `implausible` naming the field) before it can reach the fit, where
 * one such value would spoil the whole calibration. The store judges it
 * through this check inside the upload's transaction, once the lease is
 * known to be live, so that 403 and 409 keep their precedence. */
typedef struct result_check {
  pascal_store_device dev; /* the job's device, read before the upload */
  int refused;             /* 1 once the check refused the values */
} result_check;

static pascal_store_status check_result(const pascal_store_job *job, double fill_bytes,
                                        double kernel_ns, void *arg, pascal_error *err)
{
  result_check *rc = arg;
  if (pd_calib_check_result(&rc->dev, job, fill_bytes, kernel_ns, err) == PASCAL_OK)
    return PASCAL_STORE_OK;
  rc->refused = err->status == PASCAL_EREFUSED;
  return PASCAL_STORE_INVALID;
}

/* The upload of a result: the job's device first (NOT_FOUND for no job),
 * then the checked store call. */
static pascal_store_status upload_result(pd_ctx *ctx, int64_t id,
                                         const pascal_codec_lease_request *in, const char *lease,
                                         int64_t holder, int64_t now,
                                         pascal_store_job_outcome *outcome, result_check *rc,
                                         pascal_error *err)
{
  pascal_store_job job;
  pascal_store_status st = pascal_store_job_get(ctx->store, id, &job, err);
  if (st == PASCAL_STORE_OK)
    st = pascal_store_device_get(ctx->store, job.device, &rc->dev, err);
  if (st == PASCAL_STORE_OK)
    st = pascal_store_job_result_checked(ctx->store, id, lease, holder, in->fill_bytes,
                                         in->kernel_ns, now, check_result, rc, outcome, err);
  return st;
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
  int64_t now = pd_wall_now(&ctx->wall, ctx->store);
  result_check rc = {.refused = 0};
  pascal_store_status st =
      kind == PASCAL_CODEC_RESULT
          ? upload_result(ctx, id, &in, lease, req->token_id, now, &outcome, &rc, &err)
          : pascal_store_job_fail(ctx->store, id, lease, req->token_id,
                                  in.message[0] ? in.message : NULL, now, &outcome, &err);
  if (rc.refused) {
    pd_reply_error(rep, 422, "implausible", err.field, "%s", err.message);
    return;
  }
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

/* An operator's correction of a collecting calibration's run (admin;
 * pascal_store_job_requeue and _exclude), with an optional "reason", and
 * audited in the log with the token that made it. */
static void job_correct(pd_ctx *ctx, pd_request *req, pd_reply *rep, int requeue)
{
  int64_t id = pd_parse_id(req->params[0]);
  if (id < 0) {
    pd_reply_error(rep, 404, "not_found", "id", "no job '%.64s'", req->params[0]);
    return;
  }
  static const char *const allowed[] = {"reason", NULL};
  if (req->json && pd_json_strict(req->json, allowed, NULL, rep))
    return;
  json_t *r = req->json ? json_object_get(req->json, "reason") : NULL;
  if (r && (!json_is_string(r) || json_string_length(r) == 0 ||
            json_string_length(r) >= PASCAL_STORE_MESSAGE_MAX ||
            strlen(json_string_value(r)) != json_string_length(r))) {
    pd_reply_error(rep, 400, "invalid", "reason",
                   "reason must be a string of 1 to %d bytes without NUL",
                   PASCAL_STORE_MESSAGE_MAX - 1);
    return;
  }
  pascal_store_job job;
  pascal_error err;
  pascal_error_clear(&err);
  const char *reason = r ? json_string_value(r) : NULL;
  int64_t now = pd_wall_now(&ctx->wall, ctx->store);
  int st = requeue ? pascal_store_job_requeue(ctx->store, id, reason, now, &job, &err)
                   : pascal_store_job_exclude(ctx->store, id, reason, now, &job, &err);
  if (st != PASCAL_STORE_OK) {
    pd_reply_store_error(rep, st, &err);
    return;
  }
  fprintf(stderr, "pascald: audit: token %lld (%s) %s job %lld of calibration %lld: %s\n",
          (long long)req->token_id, req->token_name, requeue ? "re-queued" : "excluded",
          (long long)id, (long long)job.calibration, job.last_error);
  pd_reply_json(rep, 200,
                json_pack("{s:I,s:I,s:s,s:b,s:I,s:s}", "id", (json_int_t)job.id, "calibration",
                          (json_int_t)job.calibration, "state",
                          pascal_store_job_state_name(job.state), "excluded", job.excluded,
                          "attempts", (json_int_t)job.attempts, "last_error", job.last_error));
}

void pd_h_job_requeue(pd_ctx *ctx, pd_request *req, pd_reply *rep)
{
  job_correct(ctx, req, rep, 1);
}

void pd_h_job_exclude(pd_ctx *ctx, pd_request *req, pd_reply *rep)
{
  job_correct(ctx, req, rep, 0);
}
