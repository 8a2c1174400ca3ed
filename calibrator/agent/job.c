/* job.c - a claimed job between the jobs protocol and the backend (job.h).
 * The JSON is the codec's (pascal_codec_jobs.h); what is here is the one
 * conversion from the protocol's run to the backend's. */
#include "job.h"

#include <stdio.h>
#include <string.h>

#include "pascal/utf8.h"

/* The backend's view of a run: the plan run's fields and the device's
 * block size (a plan run does not carry it; the job does). */
static void backend_job(const pascal_codec_job *j, pascal_backend_job *out)
{
  const pascal_plan_run *r = &j->run;
  memset(out, 0, sizeof *out);
  out->workload = r->workload == PASCAL_PLAN_GEMM ? PASCAL_BACKEND_GEMM : PASCAL_BACKEND_SCAN;
  out->o = r->key.o;
  out->path_tma = r->key.path == PASCAL_PLAN_TMA;
  out->d = r->key.d;
  out->m = r->key.m;
  out->N = r->N;
  out->W = r->W;
  out->Mg = r->shape.Mg;
  out->Ng = r->shape.Ng;
  out->Kg = r->shape.Kg;
  out->repeat = r->repeat;
  out->block_bytes = j->block_bytes;
}

pascal_status agent_job_read(const json_t *reply, agent_job *job, int *claimed,
                             pascal_codec_progress *progress, pascal_error *err)
{
  memset(job, 0, sizeof *job);
  pascal_status st = pascal_codec_claim_reply_decode(reply, &job->claimed, claimed, progress, err);
  if (st == PASCAL_OK && *claimed)
    backend_job(&job->claimed, &job->run);
  return st;
}

void agent_job_describe(const agent_job *job, char *buf, size_t buflen)
{
  const pascal_backend_job *r = &job->run;
  long long id = (long long)job->claimed.id;
  if (r->workload == PASCAL_BACKEND_SCAN)
    snprintf(buf, buflen, "job %lld scan o=%u %s d=%u m=%u N=%llu W=%llu repeat %u", id, r->o,
             r->path_tma ? "tma" : "sync", r->d, r->m, (unsigned long long)r->N,
             (unsigned long long)r->W, r->repeat);
  else
    snprintf(buf, buflen, "job %lld gemm %llux%llux%llu repeat %u", id,
             (unsigned long long)r->Mg, (unsigned long long)r->Ng, (unsigned long long)r->Kg,
             r->repeat);
}

json_t *agent_job_body(const agent_job *job, pascal_codec_jobs_request kind,
                       const pascal_backend_result *res, const char *message)
{
  pascal_codec_lease_request req;
  memset(&req, 0, sizeof req);
  memcpy(req.lease_token, job->claimed.lease_token, sizeof req.lease_token);
  if (res) {
    req.fill_bytes = res->fill_bytes;
    req.kernel_ns = res->kernel_ns;
  }
  /* pascald refuses a longer message, which would turn a plain backend
   * failure into a protocol error: cut it at a character boundary. */
  if (message)
    pascal_utf8_copy(req.message, sizeof req.message, message);
  json_t *body = NULL;
  return pascal_codec_lease_request_encode(kind, &req, &body, NULL) == PASCAL_OK ? body : NULL;
}
