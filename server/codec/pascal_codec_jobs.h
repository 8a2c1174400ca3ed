/*
 * pascal_codec_jobs.h - the protocol between pascald and pascal-agent
 * (docs/http-api.md "Jobs", api-spec/openapi.yaml claimJob, heartbeatJob,
 * uploadJobResult, failJob, registerDevice, getDevice, and the error body of
 * every refusal): every request and reply body in one JSON form, encoded by
 * the side that sends it and decoded by the side that reads it (the agent
 * sends requests and reads replies, pascald the reverse; a replica reads
 * the primary's devices the way the agent does).
 *
 * Limits: every number of a job's run is bounded by the core's plan limits
 * (pascal/plan.h, through pascal_codec_plan_run_decode), a failure message
 * by PASCAL_PLAN_MAX_MESSAGE bytes, names and lease tokens by the two
 * constants below; no other limit of the protocol exists.
 *
 * Decoders follow the codec's conventions (pascal_codec.h): errors name the
 * field ("lease_token", "job.run.d"); EMISSING for an absent field, EFORMAT
 * for a wrong JSON type, ERANGE for a value outside its range, EINVAL for a
 * malformed name or lease token. Extra keys are ignored: the daemon refuses
 * them itself with pascal_codec_jobs_request_keys().
 */
#ifndef PASCAL_CODEC_JOBS_H
#define PASCAL_CODEC_JOBS_H

#include <jansson.h>
#include <stdint.h>

#include "pascal/device_data.h"
#include "pascal/error.h"
#include "pascal/latency.h"
#include "pascal/plan.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Device and agent names: 1..63 characters of A-Z a-z 0-9 . _ - */
#define PASCAL_CODEC_NAME_MAX 63
int pascal_codec_name_valid(const char *name);
/* A lease token pascald hands out and takes back: 32..128 lower-case hex
 * digits. An agent echoes what it got (any 1..128 characters). */
#define PASCAL_CODEC_LEASE_MIN 32
#define PASCAL_CODEC_LEASE_MAX 128
/* "2026-11-21T10:00:00Z" and a NUL, with room to spare */
#define PASCAL_CODEC_TIME_MAX  32

/* The request bodies, by the route they go to. */
typedef enum pascal_codec_jobs_request {
  PASCAL_CODEC_CLAIM,     /* POST /v1/jobs/claim          {device, agent}   */
  PASCAL_CODEC_HEARTBEAT, /* POST /v1/jobs/{id}/heartbeat {lease_token}     */
  PASCAL_CODEC_RESULT,    /* POST /v1/jobs/{id}/result    {lease_token,
                             fill_bytes, kernel_ns?}                        */
  PASCAL_CODEC_FAIL       /* POST /v1/jobs/{id}/fail      {lease_token,
                             message?}                                      */
} pascal_codec_jobs_request;

/* The members a request body may have, NULL-terminated. */
const char *const *pascal_codec_jobs_request_keys(pascal_codec_jobs_request kind);

typedef struct pascal_codec_claim {
  char device[PASCAL_CODEC_NAME_MAX + 1];
  char agent[PASCAL_CODEC_NAME_MAX + 1];
} pascal_codec_claim;

/* Heartbeat, result and fail bodies: the lease token and what the kind
 * carries (the rest is zero / empty). */
typedef struct pascal_codec_lease_request {
  char lease_token[PASCAL_CODEC_LEASE_MAX + 1];
  double fill_bytes;                         /* result: finite, > 0 */
  double kernel_ns;                          /* result: finite, >= 0; 0 = not measured */
  char message[PASCAL_PLAN_MAX_MESSAGE + 1]; /* fail: UTF-8, "" = none; a
                                                longer text is cut to fit by
                                                pascal_utf8_copy */
} pascal_codec_lease_request;

/* A claimed job as the claim reply carries it. */
typedef struct pascal_codec_job {
  int64_t id;          /* >= 1 */
  int64_t calibration; /* >= 1; decoding leaves 0 (not read) */
  char lease_token[PASCAL_CODEC_LEASE_MAX + 1];
  char lease_expires_at[PASCAL_CODEC_TIME_MAX]; /* RFC 3339 UTC; not decoded */
  double lease_seconds;                         /* finite, > 0 */
  uint32_t attempt;                             /* decoding leaves 0 (not read) */
  uint32_t block_bytes;                         /* 1..PASCAL_PLAN_MAX_BLOCK_BYTES */
  pascal_plan_run run;                          /* its workload is the job's */
} pascal_codec_job;

/* Done and total jobs of the device's collecting calibrations. */
typedef struct pascal_codec_progress {
  int64_t done, total; /* 0 <= done <= total */
} pascal_codec_progress;

/* ---- requests: the agent encodes, pascald decodes ---------------------- */

pascal_status pascal_codec_claim_encode(const pascal_codec_claim *claim, json_t **out,
                                        pascal_error *err);
pascal_status pascal_codec_claim_decode(const json_t *body, pascal_codec_claim *out,
                                        pascal_error *err);

/* `kind` is HEARTBEAT, RESULT or FAIL. A fail message that is not valid
 * UTF-8 is refused (EINVAL, "message"); a longer text is cut into
 * req->message with pascal_utf8_copy (pascal/utf8.h). */
pascal_status pascal_codec_lease_request_encode(pascal_codec_jobs_request kind,
                                                const pascal_codec_lease_request *req, json_t **out,
                                                pascal_error *err);
pascal_status pascal_codec_lease_request_decode(pascal_codec_jobs_request kind, const json_t *body,
                                                pascal_codec_lease_request *out, pascal_error *err);

/* ---- replies: pascald encodes, the agent decodes ----------------------- */

/* {"job": job or null, "progress": {...}}; `job` NULL when none was queued. */
pascal_status pascal_codec_claim_reply_encode(const pascal_codec_job *job,
                                              const pascal_codec_progress *progress, json_t **out,
                                              pascal_error *err);
/* The inverse. The progress is read first ("progress" named when it is
 * bad); then *claimed says whether "job" holds a job, decoded into *job.
 * Exception to the out-parameter rule: when the job cannot be read but its
 * id and lease token could, job->id and job->lease_token are set (id 0
 * otherwise), so that the agent can report it as failed. */
pascal_status pascal_codec_claim_reply_decode(const json_t *reply, pascal_codec_job *job,
                                              int *claimed, pascal_codec_progress *progress,
                                              pascal_error *err);

/* {"lease_expires_at": text, "lease_seconds": n} */
pascal_status pascal_codec_heartbeat_reply_encode(const char *lease_expires_at,
                                                  uint64_t lease_seconds, json_t **out,
                                                  pascal_error *err);

/* Result and fail replies: {"job": {"id", "state"}, "progress": {...}}. */
pascal_status pascal_codec_outcome_reply_encode(int64_t id, const char *state,
                                                const pascal_codec_progress *progress, json_t **out,
                                                pascal_error *err);
/* The "progress" member of any jobs reply. */
pascal_status pascal_codec_progress_decode(const json_t *reply, pascal_codec_progress *out,
                                           pascal_error *err);

/* ---- devices: the agent registers its own and reads pascald's ----------- */

/* A device as POST /v1/devices takes it and GET /v1/devices/{name} gives it
 * back (docs/http-api.md "Devices"). The CUDA identity, the peaks and the
 * capacity probe are optional: "" / 0 / has_* = 0 when unknown. */
typedef struct pascal_codec_device {
  char name[PASCAL_CODEC_NAME_MAX + 1];
  char arch[32];
  uint32_t sm_count, capacity_blocks, block_bytes; /* >= 1 */
  char cuda_name[64];
  uint32_t cc_major, cc_minor; /* compute capability MAJOR.MINOR */
  uint64_t l2_bytes;
  int has_peaks;
  pascal_peaks peaks;
  int has_capacity_probe;
  pascal_capacity_probe capacity_probe;
} pascal_codec_device;

/* The registration body: name, arch, sm_count, capacity_blocks,
 * block_bytes, then cuda_name, compute_capability ("9.0"), l2_bytes, peaks
 * and capacity_probe where known. */
pascal_status pascal_codec_device_encode(const pascal_codec_device *dev, json_t **out,
                                         pascal_error *err);
/* A device reply, {"device": {...}} or the device itself. A null or absent
 * optional member is unknown; other members (created_at,
 * static_experiment) are ignored. */
pascal_status pascal_codec_device_decode(const json_t *reply, pascal_codec_device *out,
                                         pascal_error *err);
/* A compute capability "MAJOR.MINOR" (9.0, 12.1; one or two digits each,
 * major >= 1): 0, or -1. */
int pascal_codec_cc_parse(const char *s, uint32_t *major, uint32_t *minor);

/* ---- the error body of every refusal ------------------------------------ */

/* {"error": {"code", "message", "field"}}; field is "" when null. */
typedef struct pascal_codec_api_error {
  char code[64];
  char message[512];
  char field[128];
} pascal_codec_api_error;
pascal_status pascal_codec_api_error_decode(const json_t *body, pascal_codec_api_error *out,
                                            pascal_error *err);

#ifdef __cplusplus
}
#endif
#endif
