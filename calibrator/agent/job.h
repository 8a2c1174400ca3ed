/*
 * job.h - a claimed job as the agent holds it: the job as the jobs protocol
 * carries it (decoded by the shared codec, pascal_codec_jobs.h) and the run
 * the backend measures, converted from it in one place; plus the request
 * bodies the agent sends about it. Unit-tested in tests/agent/test_agent_job.c.
 */
#ifndef PASCAL_AGENT_JOB_H
#define PASCAL_AGENT_JOB_H

#include <jansson.h>
#include <stddef.h>

#include "../backend.h"
#include "pascal_codec_jobs.h"

typedef struct agent_job {
  pascal_codec_job claimed; /* id, lease, run as pascald sent them */
  pascal_backend_job run;   /* claimed.run and block_bytes for the backend */
} agent_job;

/* Read a claim reply (pascal_codec_claim_reply_decode) and convert the job
 * for the backend. On failure job->claimed.id and .lease_token are set when
 * those two were readable (id 0 otherwise), for a /fail report. */
pascal_status agent_job_read(const json_t *reply, agent_job *job, int *claimed,
                             pascal_codec_progress *progress, pascal_error *err);

/* "job 7 scan o=1 tma d=4 m=8 N=4096 W=16 repeat 0" */
void agent_job_describe(const agent_job *job, char *buf, size_t buflen);

/* The body of a heartbeat, result (`res`) or fail (`message`) request about
 * `job`; NULL when out of memory or for a message that is not valid UTF-8. */
json_t *agent_job_body(const agent_job *job, pascal_codec_jobs_request kind,
                       const pascal_backend_result *res, const char *message);

#endif
