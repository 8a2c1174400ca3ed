/* job.c - jobs API JSON <-> agent_job (job.h). Field names follow the
 * contract of api-spec/openapi.yaml (POST /v1/jobs/claim and friends). */
#include "job.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* An integer member in [lo, hi]; -1 with `msg` naming it otherwise. */
static int get_int(json_t *obj, const char *where, const char *key, long long lo, long long hi,
                   long long *out, char *msg, size_t msglen)
{
  json_t *v = json_object_get(obj, key);
  if (!json_is_integer(v) || json_integer_value(v) < lo || json_integer_value(v) > hi) {
    snprintf(msg, msglen, "%s%s: %s integer in %lld..%lld", where, key,
             v ? "not an" : "missing", lo, hi);
    return -1;
  }
  *out = json_integer_value(v);
  return 0;
}

static int parse_scan(json_t *run, pascal_backend_job *j, char *msg, size_t msglen)
{
  long long o, d, m, n, w;
  const char *path = json_string_value(json_object_get(run, "path"));
  if (get_int(run, "job.run.", "o", 1, 64, &o, msg, msglen) ||
      get_int(run, "job.run.", "d", 0, 64, &d, msg, msglen) ||
      get_int(run, "job.run.", "m", 0, 1 << 20, &m, msg, msglen) ||
      get_int(run, "job.run.", "N", 1, (long long)1 << 32, &n, msg, msglen) ||
      get_int(run, "job.run.", "W", 1, 1 << 20, &w, msg, msglen))
    return -1;
  if (!path || (strcmp(path, "sync") != 0 && strcmp(path, "tma") != 0)) {
    snprintf(msg, msglen, "job.run.path: not \"sync\" or \"tma\"");
    return -1;
  }
  j->path_tma = strcmp(path, "tma") == 0;
  if (j->path_tma == (d == 0)) {
    snprintf(msg, msglen, "job.run.d: %lld does not fit path %s (sync needs d = 0, tma d >= 1)", d, path);
    return -1;
  }
  j->workload = PASCAL_BACKEND_SCAN;
  j->o = (uint32_t)o;
  j->d = (uint32_t)d;
  j->m = (uint32_t)m;
  j->N = (uint64_t)n;
  j->W = (uint64_t)w;
  return 0;
}

static int parse_gemm(json_t *run, pascal_backend_job *j, char *msg, size_t msglen)
{
  long long mg, ng, kg;
  const long long big = (long long)1 << 20;
  if (get_int(run, "job.run.", "Mg", 1, big, &mg, msg, msglen) ||
      get_int(run, "job.run.", "Ng", 1, big, &ng, msg, msglen) ||
      get_int(run, "job.run.", "Kg", 1, big, &kg, msg, msglen))
    return -1;
  j->workload = PASCAL_BACKEND_GEMM;
  j->Mg = (uint64_t)mg;
  j->Ng = (uint64_t)ng;
  j->Kg = (uint64_t)kg;
  return 0;
}

int agent_job_parse(json_t *job, agent_job *out, char *msg, size_t msglen)
{
  agent_job j;
  memset(&j, 0, sizeof j);
  memset(out, 0, sizeof *out);
  long long id, bb, rep;
  if (!json_is_object(job)) {
    snprintf(msg, msglen, "job: not an object");
    return -1;
  }
  if (get_int(job, "job.", "id", 1, INT64_MAX, &id, msg, msglen))
    return -1;
  j.id = id;
  const char *lease = json_string_value(json_object_get(job, "lease_token"));
  if (!lease || lease[0] == '\0' || strlen(lease) >= sizeof j.lease_token) {
    snprintf(msg, msglen, "job.lease_token: missing or longer than %zu", sizeof j.lease_token - 1);
    return -1;
  }
  snprintf(j.lease_token, sizeof j.lease_token, "%s", lease);
  /* From here on a failure still leaves id and lease for a /fail report. */
  out->id = j.id;
  memcpy(out->lease_token, j.lease_token, sizeof j.lease_token);
  json_t *ls = json_object_get(job, "lease_seconds");
  j.lease_seconds = json_is_number(ls) ? json_number_value(ls) : 0.0;
  if (!(j.lease_seconds > 0.0) || !isfinite(j.lease_seconds)) {
    snprintf(msg, msglen, "job.lease_seconds: missing or not positive");
    return -1;
  }
  if (get_int(job, "job.", "block_bytes", 1, 1 << 30, &bb, msg, msglen))
    return -1;
  j.run.block_bytes = (uint32_t)bb;
  json_t *run = json_object_get(job, "run");
  if (!json_is_object(run)) {
    snprintf(msg, msglen, "job.run: missing or not an object");
    return -1;
  }
  if (get_int(run, "job.run.", "repeat", 0, UINT32_MAX, &rep, msg, msglen))
    return -1;
  j.run.repeat = (uint32_t)rep;
  const char *workload = json_string_value(json_object_get(job, "workload"));
  int rc;
  if (workload && strcmp(workload, "scan") == 0) {
    rc = parse_scan(run, &j.run, msg, msglen);
  } else if (workload && strcmp(workload, "gemm") == 0) {
    rc = parse_gemm(run, &j.run, msg, msglen);
  } else {
    snprintf(msg, msglen, "job.workload: not \"scan\" or \"gemm\"");
    rc = -1;
  }
  if (rc == 0)
    *out = j;
  return rc;
}

void agent_job_describe(const agent_job *job, char *buf, size_t buflen)
{
  const pascal_backend_job *r = &job->run;
  if (r->workload == PASCAL_BACKEND_SCAN)
    snprintf(buf, buflen, "job %lld scan o=%u %s d=%u m=%u N=%llu W=%llu repeat %u", job->id,
             r->o, r->path_tma ? "tma" : "sync", r->d, r->m, (unsigned long long)r->N,
             (unsigned long long)r->W, r->repeat);
  else
    snprintf(buf, buflen, "job %lld gemm %llux%llux%llu repeat %u", job->id,
             (unsigned long long)r->Mg, (unsigned long long)r->Ng, (unsigned long long)r->Kg,
             r->repeat);
}

int agent_progress_parse(json_t *answer, long *done, long *total)
{
  json_t *p = json_object_get(answer, "progress");
  json_t *d = json_object_get(p, "done");
  json_t *t = json_object_get(p, "total");
  if (!json_is_integer(d) || !json_is_integer(t) || json_integer_value(d) < 0 ||
      json_integer_value(t) < json_integer_value(d))
    return -1;
  *done = (long)json_integer_value(d);
  *total = (long)json_integer_value(t);
  return 0;
}

json_t *agent_body_result(const agent_job *job, const pascal_backend_result *res)
{
  return json_pack("{s:s, s:f, s:f}", "lease_token", job->lease_token, "fill_bytes",
                   res->fill_bytes, "kernel_ns", res->kernel_ns);
}

json_t *agent_body_fail(const agent_job *job, const char *message)
{
  /* pascald refuses a longer message with 400, which would make a plain
   * backend failure fatal for the agent: cut it, at a UTF-8 boundary. */
  char cut[AGENT_FAIL_MESSAGE_MAX + 1];
  size_t n = strlen(message);
  if (n > AGENT_FAIL_MESSAGE_MAX) {
    n = AGENT_FAIL_MESSAGE_MAX;
    while (n > 0 && ((unsigned char)message[n] & 0xC0) == 0x80) /* inside a sequence */
      n--;
    memcpy(cut, message, n);
    cut[n] = '\0';
    message = cut;
  }
  return json_pack("{s:s, s:s}", "lease_token", job->lease_token, "message", message);
}

json_t *agent_body_lease(const agent_job *job)
{
  return json_pack("{s:s}", "lease_token", job->lease_token);
}
