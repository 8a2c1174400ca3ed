/*
 * jobs_codec.c - the JSON of the jobs protocol (pascal_codec_jobs.h): the
 * four request bodies and the replies, each written here once for both
 * pascald and pascal-agent, and the error body the agent reads from a
 * refusal. A job's run goes through the plan codec, so a
 * run pascald hands out and a run the agent accepts obey the same
 * pascal/plan.h limits.
 */
#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "json_util.h"
#include "pascal_codec.h"
#include "pascal_codec_jobs.h"

const char *const *pascal_codec_jobs_request_keys(pascal_codec_jobs_request kind)
{
  static const char *const claim[] = {"device", "agent", NULL};
  static const char *const heartbeat[] = {"lease_token", NULL};
  static const char *const result[] = {"lease_token", "fill_bytes", "kernel_ns", NULL};
  static const char *const fail[] = {"lease_token", "message", NULL};
  switch (kind) {
  case PASCAL_CODEC_CLAIM: return claim;
  case PASCAL_CODEC_HEARTBEAT: return heartbeat;
  case PASCAL_CODEC_RESULT: return result;
  case PASCAL_CODEC_FAIL: return fail;
  }
  return heartbeat;
}

int pascal_codec_name_valid(const char *name)
{
  size_t n = strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-");
  return name[n] == '\0' && n >= 1 && n <= PASCAL_CODEC_NAME_MAX;
}

/* ---- reading ------------------------------------------------------------ */

/* Member `key` of a request body into *v, which must be of the JSON type
 * `is_type` accepts ("a string", ...); a JSON null reads as absent, as in
 * every body pascald reads. Absent: *v = NULL, EMISSING when required. */
static pascal_status member(const json_t *obj, const char *key, int required,
                            int (*is_type)(const json_t *), const char *type, const json_t **v,
                            pascal_error *err)
{
  *v = json_object_get(obj, key);
  if (json_is_null(*v))
    *v = NULL;
  if (!*v)
    return required ? pascal_error_set(err, PASCAL_EMISSING, key, "field '%s' is required", key)
                    : PASCAL_OK;
  if (!is_type(*v))
    return pascal_error_set(err, PASCAL_EFORMAT, key, "field '%s' must be %s", key, type);
  return PASCAL_OK;
}

static int is_string(const json_t *v)
{
  return json_is_string(v);
}
static int is_number(const json_t *v)
{
  return json_is_number(v);
}

/* A string member of 1..max bytes (no NUL inside) into out[max + 1].
 * PASCAL_OK with out = "" when absent and optional. */
static pascal_status read_text(const json_t *obj, const char *key, int required, size_t max,
                               char *out, pascal_error *err)
{
  const json_t *v;
  out[0] = '\0';
  pascal_status st = member(obj, key, required, is_string, "a string", &v, err);
  if (st || !v)
    return st;
  size_t n = json_string_length(v);
  if (n == 0 || n > max || strlen(json_string_value(v)) != n)
    return pascal_error_set(err, PASCAL_ERANGE, key, "field '%s' must be 1..%zu characters", key,
                            max);
  memcpy(out, json_string_value(v), n + 1);
  return PASCAL_OK;
}

/* A name: [A-Za-z0-9._-]{1,63}. */
static pascal_status read_name(const json_t *obj, const char *key, char *out, pascal_error *err)
{
  pascal_status st = read_text(obj, key, 1, PASCAL_CODEC_NAME_MAX, out, err);
  if (st)
    return st;
  if (!pascal_codec_name_valid(out))
    return pascal_error_set(err, PASCAL_EINVAL, key,
                            "field '%s' must be 1-63 characters of A-Z a-z 0-9 . _ -", key);
  return PASCAL_OK;
}

/* A finite number >= 0 (> 0 when `above`); `dflt` when absent and optional. */
static pascal_status read_amount(const json_t *obj, const char *key, int required, int above,
                                 const char *why, double dflt, double *out, pascal_error *err)
{
  const json_t *v;
  *out = dflt;
  pascal_status st = member(obj, key, required, is_number, "a number", &v, err);
  if (st || !v)
    return st;
  double x = json_number_value(v);
  if (!isfinite(x) || x < 0 || (above && !(x > 0)))
    return pascal_error_set(err, PASCAL_ERANGE, key, "field '%s' must be %s 0%s", key,
                            above ? ">" : ">=", why);
  *out = x;
  return PASCAL_OK;
}

pascal_status pascal_codec_claim_decode(const json_t *body, pascal_codec_claim *out,
                                        pascal_error *err)
{
  pascal_codec_claim c;
  pascal_status st;
  if ((st = read_name(body, "device", c.device, err)) ||
      (st = read_name(body, "agent", c.agent, err)))
    return st;
  *out = c;
  return PASCAL_OK;
}

pascal_status pascal_codec_lease_request_decode(pascal_codec_jobs_request kind, const json_t *body,
                                                pascal_codec_lease_request *out, pascal_error *err)
{
  pascal_codec_lease_request r;
  memset(&r, 0, sizeof r);
  pascal_status st = read_text(body, "lease_token", 1, PASCAL_CODEC_LEASE_MAX, r.lease_token, err);
  if (st)
    return st;
  size_t n = strspn(r.lease_token, "0123456789abcdef");
  if (r.lease_token[n] != '\0' || n < PASCAL_CODEC_LEASE_MIN)
    return pascal_error_set(err, PASCAL_EINVAL, "lease_token",
                            "lease_token must be %d to %d lower-case hex digits",
                            PASCAL_CODEC_LEASE_MIN, PASCAL_CODEC_LEASE_MAX);
  if (kind == PASCAL_CODEC_RESULT &&
      ((st = read_amount(body, "fill_bytes", 1, 1, " (a failed measurement is reported with /fail)",
                         0, &r.fill_bytes, err)) ||
       (st = read_amount(body, "kernel_ns", 0, 0, "", 0, &r.kernel_ns, err))))
    return st;
  if (kind == PASCAL_CODEC_FAIL &&
      (st = read_text(body, "message", 0, PASCAL_PLAN_MAX_MESSAGE, r.message, err)))
    return st;
  *out = r;
  return PASCAL_OK;
}

static pascal_status read_workload(const json_t *job, pascal_plan_workload *out, pascal_error *err)
{
  const char *w = json_string_value(json_object_get(job, "workload"));
  if (pascal_plan_workload_parse(w, "job.workload", out, NULL))
    return pascal_error_set(err, PASCAL_EINVAL, "job.workload",
                            "job.workload must be \"scan\", \"gemm\" or \"attention\"");
  return PASCAL_OK;
}

/* The members of a claimed job after its id and lease token. */
static pascal_status decode_job_body(const json_t *job, pascal_codec_job *j, pascal_error *err)
{
  pascal_status st;
  uint64_t bb;
  if ((st = codec_get_number(job, "job", "lease_seconds", 1, 1, &j->lease_seconds, NULL, err)) ||
      (st = codec_get_uint(job, "job", "block_bytes", 1, 1, PASCAL_PLAN_MAX_BLOCK_BYTES, &bb, NULL,
                           err)) ||
      (st = read_workload(job, &j->run.workload, err)))
    return st;
  j->block_bytes = (uint32_t)bb;
  json_t *run;
  if ((st = codec_get_object(job, "job", "run", 1, &run, err)))
    return st;
  return codec_plan_run_decode(run, "job.run", j->run.workload, &j->run, err);
}

static pascal_status decode_job(const json_t *job, pascal_codec_job *out, pascal_error *err)
{
  pascal_codec_job j;
  memset(&j, 0, sizeof j);
  memset(out, 0, sizeof *out);
  uint64_t id;
  const char *lease;
  pascal_status st;
  if (!json_is_object(job))
    return pascal_error_set(err, PASCAL_EFORMAT, "job", "job must be an object or null");
  if ((st = codec_get_uint(job, "job", "id", 1, 1, INT64_MAX, &id, NULL, err)) ||
      (st = codec_get_string(job, "job", "lease_token", 1, &lease, err)))
    return st;
  if (lease[0] == '\0' || strlen(lease) > PASCAL_CODEC_LEASE_MAX)
    return pascal_error_set(err, PASCAL_ERANGE, "job.lease_token",
                            "job.lease_token must be 1..%d characters", PASCAL_CODEC_LEASE_MAX);
  j.id = (int64_t)id;
  snprintf(j.lease_token, sizeof j.lease_token, "%s", lease);
  /* From here on a failure still leaves id and lease for a /fail report. */
  out->id = j.id;
  memcpy(out->lease_token, j.lease_token, sizeof j.lease_token);
  if ((st = decode_job_body(job, &j, err)))
    return st;
  *out = j;
  return PASCAL_OK;
}

pascal_status pascal_codec_progress_decode(const json_t *reply, pascal_codec_progress *out,
                                           pascal_error *err)
{
  json_t *p;
  uint64_t done, total;
  pascal_status st;
  if ((st = codec_get_object(reply, "", "progress", 1, &p, err)) ||
      (st = codec_get_uint(p, "progress", "done", 1, 0, INT64_MAX, &done, NULL, err)) ||
      (st = codec_get_uint(p, "progress", "total", 1, done, INT64_MAX, &total, NULL, err)))
    return st;
  out->done = (int64_t)done;
  out->total = (int64_t)total;
  return PASCAL_OK;
}

pascal_status pascal_codec_claim_reply_decode(const json_t *reply, pascal_codec_job *job,
                                              int *claimed, pascal_codec_progress *progress,
                                              pascal_error *err)
{
  pascal_codec_progress p;
  pascal_status st = pascal_codec_progress_decode(reply, &p, err);
  if (st)
    return st;
  json_t *j = json_object_get(reply, "job");
  if (!j)
    return pascal_error_set(err, PASCAL_EMISSING, "job", "missing field job");
  *progress = p;
  *claimed = !json_is_null(j);
  return *claimed ? decode_job(j, job, err) : PASCAL_OK;
}

/* ---- writing ------------------------------------------------------------ */

/* Finish an encoder: hand over `obj`, or release it after a failure. */
static pascal_status finish(json_t *obj, pascal_status st, json_t **out)
{
  if (st) {
    json_decref(obj);
    return st;
  }
  *out = obj;
  return PASCAL_OK;
}

static json_t *progress_object(const pascal_codec_progress *p)
{
  assert(p->done >= 0 && p->done <= p->total); /* what pascal_codec_progress_decode takes */
  return json_pack("{s:I,s:I}", "done", (json_int_t)p->done, "total", (json_int_t)p->total);
}

pascal_status pascal_codec_claim_encode(const pascal_codec_claim *claim, json_t **out,
                                        pascal_error *err)
{
  json_t *obj = json_object();
  pascal_status st = codec_set(obj, "device", json_string(claim->device), err);
  if (!st)
    st = codec_set(obj, "agent", json_string(claim->agent), err);
  return finish(obj, st, out);
}

pascal_status pascal_codec_lease_request_encode(pascal_codec_jobs_request kind,
                                                const pascal_codec_lease_request *req, json_t **out,
                                                pascal_error *err)
{
  json_t *obj = json_object();
  pascal_status st = codec_set(obj, "lease_token", json_string(req->lease_token), err);
  if (!st && kind == PASCAL_CODEC_RESULT &&
      !(st = codec_set(obj, "fill_bytes", codec_real(req->fill_bytes), err)))
    st = codec_set(obj, "kernel_ns", codec_real(req->kernel_ns), err);
  if (!st && kind == PASCAL_CODEC_FAIL && req->message[0]) {
    json_t *m = json_string(req->message);
    st = m ? codec_set(obj, "message", m, err)
           : pascal_error_set(err, PASCAL_EINVAL, "message", "message is not valid UTF-8");
  }
  return finish(obj, st, out);
}

/* A whole number of seconds (pascald's leases) is written as an integer. */
static json_t *seconds_value(double s)
{
  double whole = floor(s);
  return whole == s && whole >= 0 && whole < 9e15 ? codec_uint((uint64_t)whole) : codec_real(s);
}

static pascal_status encode_job(const pascal_codec_job *j, json_t **out, pascal_error *err)
{
  /* The protocol's limits hold for what pascald sends: the agent's decoder
   * (decode_job) takes every job this writes. */
  assert(j->id >= 1 && j->calibration >= 1);
  assert(strlen(j->lease_token) >= PASCAL_CODEC_LEASE_MIN &&
         strlen(j->lease_token) <= PASCAL_CODEC_LEASE_MAX);
  assert(isfinite(j->lease_seconds) && j->lease_seconds > 0);
  assert(j->block_bytes >= 1 && j->block_bytes <= PASCAL_PLAN_MAX_BLOCK_BYTES);
  json_t *obj = json_object(), *run = NULL;
  pascal_status st;
  if ((st = codec_set(obj, "id", codec_uint((uint64_t)j->id), err)) ||
      (st = codec_set(obj, "calibration", codec_uint((uint64_t)j->calibration), err)) ||
      (st = codec_set(obj, "lease_token", json_string(j->lease_token), err)) ||
      (st = codec_set(obj, "lease_expires_at", json_string(j->lease_expires_at), err)) ||
      (st = codec_set(obj, "lease_seconds", seconds_value(j->lease_seconds), err)) ||
      (st = codec_set(obj, "attempt", codec_uint(j->attempt), err)) ||
      (st = codec_set(obj, "workload", json_string(pascal_plan_workload_name(j->run.workload)),
                      err)) ||
      (st = codec_set(obj, "block_bytes", codec_uint(j->block_bytes), err)) ||
      (st = pascal_codec_plan_run_encode(&j->run, &run, err)))
    return finish(obj, st, out);
  return finish(obj, codec_set(obj, "run", run, err), out);
}

pascal_status pascal_codec_claim_reply_encode(const pascal_codec_job *job,
                                              const pascal_codec_progress *progress, json_t **out,
                                              pascal_error *err)
{
  json_t *obj = json_object(), *j = NULL;
  pascal_status st = job ? encode_job(job, &j, err) : PASCAL_OK;
  if (!st)
    st = codec_set(obj, "job", job ? j : json_null(), err);
  if (!st)
    st = codec_set(obj, "progress", progress_object(progress), err);
  return finish(obj, st, out);
}

pascal_status pascal_codec_heartbeat_reply_encode(const char *lease_expires_at,
                                                  uint64_t lease_seconds, json_t **out,
                                                  pascal_error *err)
{
  json_t *obj = json_object();
  pascal_status st = codec_set(obj, "lease_expires_at", json_string(lease_expires_at), err);
  if (!st)
    st = codec_set(obj, "lease_seconds", codec_uint(lease_seconds), err);
  return finish(obj, st, out);
}

pascal_status pascal_codec_outcome_reply_encode(int64_t id, const char *state,
                                                const pascal_codec_progress *progress, json_t **out,
                                                pascal_error *err)
{
  json_t *obj = json_object();
  pascal_status st =
      codec_set(obj, "job", json_pack("{s:I,s:s}", "id", (json_int_t)id, "state", state), err);
  if (!st)
    st = codec_set(obj, "progress", progress_object(progress), err);
  return finish(obj, st, out);
}

/* A string member copied into dst (cut to fit); "" when null. */
static pascal_status copy_text(const json_t *obj, const char *prefix, const char *key, int required,
                               char *dst, size_t size, pascal_error *err)
{
  const char *s = NULL;
  pascal_status st = json_is_null(json_object_get(obj, key))
                         ? PASCAL_OK
                         : codec_get_string(obj, prefix, key, required, &s, err);
  snprintf(dst, size, "%s", s ? s : "");
  return st;
}

pascal_status pascal_codec_api_error_decode(const json_t *body, pascal_codec_api_error *out,
                                            pascal_error *err)
{
  json_t *e;
  pascal_codec_api_error a;
  pascal_status st;
  if ((st = codec_get_object(body, "", "error", 1, &e, err)) ||
      (st = copy_text(e, "error", "code", 1, a.code, sizeof a.code, err)) ||
      (st = copy_text(e, "error", "message", 1, a.message, sizeof a.message, err)) ||
      (st = copy_text(e, "error", "field", 0, a.field, sizeof a.field, err)))
    return st;
  *out = a;
  return PASCAL_OK;
}
