/*
 * h_jobs.c - the agent side of a calibration: claim (lease), heartbeat,
 * result, fail. Lease tokens are 128 random bits, handed to the claimer once
 * and kept by the store only as their SHA-256. A lease belongs to the API
 * token that claimed it (403 for any other token), and the agent recorded is
 * "<token name>/<agent>", so that no client can act under another's name.
 * The store enforces expiry, staleness (409 stale_lease), ownership,
 * idempotent identical re-uploads and bounded attempts, each in one
 * transaction.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "auth.h"
#include "ctx.h"
#include "handlers.h"
#include "jsonin.h"
#include "reply.h"
#include "routes.h"
#include "views.h"

#define LEASE_BYTES 16 /* 128 bits -> 32 hex digits */

/* Progress over the collecting calibrations of the job's device. */
static json_t *job_progress(pd_ctx *ctx, const char *device) {
  int64_t done = 0, total = 0;
  pascal_store_device_progress(ctx->store, device, &done, &total, NULL);
  return pd_view_progress(done, total);
}

static int job_device(pd_ctx *ctx, int64_t job, char device[PASCAL_STORE_NAME_MAX]) {
  pascal_store_job j;
  pascal_store_calibration c;
  memset(&c, 0, sizeof c);
  if (pascal_store_job_get(ctx->store, job, &j, NULL) != PASCAL_STORE_OK ||
      pascal_store_calibration_get(ctx->store, j.calibration, &c, NULL) != PASCAL_STORE_OK)
    return -1;
  memcpy(device, c.device, PASCAL_STORE_NAME_MAX);
  pascal_store_calibration_clear(&c);
  return 0;
}

void pd_h_jobs_claim(pd_ctx *ctx, pd_request *req, pd_reply *rep) {
  static const char *const allowed[] = {"device", "agent", NULL};
  char device[PASCAL_STORE_NAME_MAX], agent[PASCAL_STORE_NAME_MAX];
  char owner[PASCAL_STORE_NAME_MAX];
  if (pd_json_strict(req->json, allowed, NULL, rep) ||
      pd_get_name(req->json, "device", 1, device, sizeof device, NULL, rep) ||
      pd_get_name(req->json, "agent", 1, agent, sizeof agent, NULL, rep))
    return;
  if ((size_t)snprintf(owner, sizeof owner, "%s/%s", req->token_name, agent) >= sizeof owner) {
    pd_reply_error(rep, 400, "out_of_range", "agent",
                   "the agent is recorded as '%s/<agent>', which must fit in %d characters",
                   req->token_name, PASCAL_STORE_NAME_MAX - 1);
    return;
  }
  char lease[2 * LEASE_BYTES + 1], lease_hash[PD_HASH_HEX];
  if (pd_random_hex(LEASE_BYTES, lease)) {
    pd_reply_error(rep, 503, "unavailable", NULL, "no randomness for a lease token");
    return;
  }
  pd_token_hash(lease, lease_hash);
  pascal_store_job job;
  int claimed = 0;
  pascal_error err;
  pascal_error_clear(&err);
  int st = pascal_store_job_claim(ctx->store, device, owner, lease_hash, req->token_id,
                                  (int64_t)time(NULL), ctx->cfg.lease_seconds, &job, &claimed,
                                  &err);
  if (st != PASCAL_STORE_OK) {
    pd_reply_store_error(rep, st, &err);
    return;
  }
  pd_reply_json(rep, 200,
                json_pack("{s:o,s:o}", "job",
                          claimed ? pd_view_job(&job, lease, ctx->cfg.lease_seconds) : json_null(),
                          "progress", job_progress(ctx, device)));
}

/* 1 when s is 32..128 lower-case hex digits, the form of a lease token. */
static int lease_well_formed(const char *s) {
  size_t n = strspn(s, "0123456789abcdef");
  return s[n] == '\0' && n >= 2 * LEASE_BYTES && n < PASCAL_STORE_LEASE_MAX;
}

/* Common prologue of heartbeat/result/fail: job id from the path and the
 * lease token from the body, returned as the digest the store keeps.
 * Returns the id or -1 after replying. */
static int64_t lease_request(pd_request *req, pd_reply *rep, const char *const *allowed,
                             char lease_hash[PD_HASH_HEX]) {
  char lease[PASCAL_STORE_LEASE_MAX];
  int64_t id = pd_parse_id(req->params[0]);
  if (id < 0) {
    pd_reply_error(rep, 404, "not_found", "id", "no job '%.64s'", req->params[0]);
    return -1;
  }
  if (pd_json_strict(req->json, allowed, NULL, rep) ||
      pd_get_str(req->json, "lease_token", 1, lease, PASCAL_STORE_LEASE_MAX, NULL, rep))
    return -1;
  if (!lease_well_formed(lease)) {
    pd_reply_error(rep, 400, "invalid", "lease_token",
                   "lease_token must be 32 to 128 lower-case hex digits");
    return -1;
  }
  pd_token_hash(lease, lease_hash);
  return id;
}

void pd_h_job_heartbeat(pd_ctx *ctx, pd_request *req, pd_reply *rep) {
  static const char *const allowed[] = {"lease_token", NULL};
  char lease[PD_HASH_HEX];
  int64_t id = lease_request(req, rep, allowed, lease);
  if (id < 0) return;
  int64_t expires = 0;
  pascal_error err;
  pascal_error_clear(&err);
  int st = pascal_store_job_heartbeat(ctx->store, id, lease, req->token_id, (int64_t)time(NULL),
                                      ctx->cfg.lease_seconds, &expires, &err);
  if (st != PASCAL_STORE_OK) {
    pd_reply_store_error(rep, st, &err);
    return;
  }
  pd_reply_json(rep, 200, json_pack("{s:o,s:I}", "lease_expires_at", pd_json_time(expires),
                                    "lease_seconds", (json_int_t)ctx->cfg.lease_seconds));
}

static void job_reply(pd_ctx *ctx, pd_reply *rep, int64_t id, const char *state) {
  char device[PASCAL_STORE_NAME_MAX] = "";
  json_t *progress = job_device(ctx, id, device) == 0 ? job_progress(ctx, device)
                                                      : pd_view_progress(0, 0);
  pd_reply_json(rep, 200, json_pack("{s:{s:I,s:s},s:o}", "job", "id", (json_int_t)id, "state",
                                    state, "progress", progress));
}

void pd_h_job_result(pd_ctx *ctx, pd_request *req, pd_reply *rep) {
  static const char *const allowed[] = {"lease_token", "fill_bytes", "kernel_ns", NULL};
  char lease[PD_HASH_HEX];
  int64_t id = lease_request(req, rep, allowed, lease);
  if (id < 0) return;
  double fill = 0, kns = 0;
  if (pd_get_num(req->json, "fill_bytes", 1, 0, 1e300, &fill, NULL, rep) ||
      pd_get_num(req->json, "kernel_ns", 0, 0, 1e300, &kns, NULL, rep) < 0)
    return;
  if (!(fill > 0)) {
    pd_reply_error(rep, 400, "out_of_range", "fill_bytes",
                   "fill_bytes must be > 0 (a failed measurement is reported with /fail)");
    return;
  }
  pascal_error err;
  pascal_error_clear(&err);
  int st = pascal_store_job_result(ctx->store, id, lease, req->token_id, fill, kns,
                                   (int64_t)time(NULL), &err);
  if (st != PASCAL_STORE_OK) {
    pd_reply_store_error(rep, st, &err);
    return;
  }
  job_reply(ctx, rep, id, "done");
}

void pd_h_job_fail(pd_ctx *ctx, pd_request *req, pd_reply *rep) {
  static const char *const allowed[] = {"lease_token", "message", NULL};
  char lease[PD_HASH_HEX], message[PASCAL_STORE_MESSAGE_MAX] = "";
  int64_t id = lease_request(req, rep, allowed, lease);
  if (id < 0) return;
  if (pd_get_str(req->json, "message", 0, message, sizeof message, NULL, rep) < 0) return;
  pascal_store_job_state state = PASCAL_STORE_QUEUED;
  pascal_error err;
  pascal_error_clear(&err);
  int st = pascal_store_job_fail(ctx->store, id, lease, req->token_id, message[0] ? message : NULL,
                                 (int64_t)time(NULL), &state, &err);
  if (st != PASCAL_STORE_OK) {
    pd_reply_store_error(rep, st, &err);
    return;
  }
  job_reply(ctx, rep, id, pascal_store_job_state_name(state));
}
