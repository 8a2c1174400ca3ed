/* job.c - a claimed job's description and request bodies (job.h); the JSON
 * is the codec's (pascal_codec_jobs.h). */
#include "job.h"

#include <stdio.h>
#include <string.h>

#include "pascal/utf8.h"

void agent_job_describe(const pascal_codec_job *job, char *buf, size_t buflen)
{
  const pascal_plan_run *r = &job->run;
  long long id = (long long)job->id;
  if (r->workload != PASCAL_PLAN_GEMM)
    snprintf(buf, buflen, "job %lld %s o=%u %s d=%u m=%u N=%llu W=%llu repeat %u", id,
             pascal_plan_workload_name(r->workload), r->key.o, pascal_plan_path_name(r->key.path),
             r->key.d, r->key.m, (unsigned long long)r->N, (unsigned long long)r->W, r->repeat);
  else if (r->config.tile_m) /* a configuration run */
    snprintf(buf, buflen,
             "job %lld gemm %llux%llux%llu tile %ux%ux%u elem %u stages %u group_m %u repeat %u",
             id, (unsigned long long)r->shape.Mg, (unsigned long long)r->shape.Ng,
             (unsigned long long)r->shape.Kg, r->config.tile_m, r->config.tile_n, r->config.tile_k,
             r->config.elem_bytes, r->config.stages, r->config.group_m, r->repeat);
  else
    snprintf(buf, buflen, "job %lld gemm %llux%llux%llu repeat %u", id,
             (unsigned long long)r->shape.Mg, (unsigned long long)r->shape.Ng,
             (unsigned long long)r->shape.Kg, r->repeat);
}

json_t *agent_job_body(const pascal_codec_job *job, pascal_codec_jobs_request kind,
                       const pascal_backend_result *res, const char *message)
{
  pascal_codec_lease_request req;
  memset(&req, 0, sizeof req);
  memcpy(req.lease_token, job->lease_token, sizeof req.lease_token);
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
