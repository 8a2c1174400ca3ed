/*
 * h_jobs.c - the agent side of a calibration: claim (lease), heartbeat,
 * result, fail (the jobs contract in BRIEF.md). Lease tokens are 128 random
 * bits; the store enforces expiry, staleness (409 stale_lease), idempotent
 * identical re-uploads and bounded attempts, each in one transaction.
 */
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
  if (pd_json_strict(req->json, allowed, NULL, rep) ||
      pd_get_name(req->json, "device", 1, device, sizeof device, NULL, rep) ||
      pd_get_name(req->json, "agent", 1, agent, sizeof agent, NULL, rep))
    return;
  char lease[2 * LEASE_BYTES + 1];
  if (pd_random_hex(LEASE_BYTES, lease)) {
    pd_reply_error(rep, 503, "unavailable", NULL, "no randomness for a lease token");
    return;
  }
  pascal_store_job job;
  int claimed = 0;
  pascal_error err;
  pascal_error_clear(&err);
  int st = pascal_store_job_claim(ctx->store, device, agent, lease, (int64_t)time(NULL),
                                  ctx->cfg.lease_seconds, &job, &claimed, &err);
  if (st != PASCAL_STORE_OK) {
    pd_reply_store_error(rep, st, &err);
    return;
  }
  pd_reply_json(rep, 200,
                json_pack("{s:o,s:o}", "job",
                          claimed ? pd_view_job(&job, lease, ctx->cfg.lease_seconds) : json_null(),
                          "progress", job_progress(ctx, device)));
}

/* Common prologue of heartbeat/result/fail: job id from the path and the
 * lease token from the body. Returns the id or -1 after replying. */
static int64_t lease_request(pd_request *req, pd_reply *rep, const char *const *allowed,
                             char lease[PASCAL_STORE_LEASE_MAX]) {
  int64_t id = pd_parse_id(req->params[0]);
  if (id < 0) {
    pd_reply_error(rep, 404, "not_found", "id", "no job '%.64s'", req->params[0]);
    return -1;
  }
  if (pd_json_strict(req->json, allowed, NULL, rep) ||
      pd_get_str(req->json, "lease_token", 1, lease, PASCAL_STORE_LEASE_MAX, NULL, rep))
    return -1;
  return id;
}

void pd_h_job_heartbeat(pd_ctx *ctx, pd_request *req, pd_reply *rep) {
  static const char *const allowed[] = {"lease_token", NULL};
  char lease[PASCAL_STORE_LEASE_MAX];
  int64_t id = lease_request(req, rep, allowed, lease);
  if (id < 0) return;
  int64_t expires = 0;
  pascal_error err;
  pascal_error_clear(&err);
  int st = pascal_store_job_heartbeat(ctx->store, id, lease, (int64_t)time(NULL),
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
  char lease[PASCAL_STORE_LEASE_MAX];
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
  int st = pascal_store_job_result(ctx->store, id, lease, fill, kns, (int64_t)time(NULL), &err);
  if (st != PASCAL_STORE_OK) {
    pd_reply_store_error(rep, st, &err);
    return;
  }
  job_reply(ctx, rep, id, "done");
}

void pd_h_job_fail(pd_ctx *ctx, pd_request *req, pd_reply *rep) {
  static const char *const allowed[] = {"lease_token", "message", NULL};
  char lease[PASCAL_STORE_LEASE_MAX], message[PASCAL_STORE_MESSAGE_MAX] = "";
  int64_t id = lease_request(req, rep, allowed, lease);
  if (id < 0) return;
  if (pd_get_str(req->json, "message", 0, message, sizeof message, NULL, rep) < 0) return;
  pascal_store_job_state state = PASCAL_STORE_QUEUED;
  pascal_error err;
  pascal_error_clear(&err);
  int st = pascal_store_job_fail(ctx->store, id, lease, message[0] ? message : NULL,
                                 (int64_t)time(NULL), &state, &err);
  if (st != PASCAL_STORE_OK) {
    pd_reply_store_error(rep, st, &err);
    return;
  }
  job_reply(ctx, rep, id, pascal_store_job_state_name(state));
}
