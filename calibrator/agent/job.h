/*
 * job.h - a claimed job as the agent reads it and the request bodies it
 * sends about it, over the shared codec (pascal_codec_jobs.h): the codec's
 * job is the agent's, and its run (a pascal_plan_run) is what the backend
 * measures (pascal_backend_job). Unit-tested in tests/agent/test_agent_job.c.
 */
#ifndef PASCAL_AGENT_JOB_H
#define PASCAL_AGENT_JOB_H

#include <jansson.h>
#include <stddef.h>

#include "../backend.h"
#include "pascal_codec_jobs.h"

/* "job 7 scan o=1 tma d=4 m=8 N=4096 W=16 repeat 0" */
void agent_job_describe(const pascal_codec_job *job, char *buf, size_t buflen);

/* The body of a heartbeat, result (`res`) or fail (`message`, cut to
 * PASCAL_PLAN_MAX_MESSAGE bytes at a character boundary) request about
 * `job`; NULL when out of memory or for a message that is not valid UTF-8. */
json_t *agent_job_body(const pascal_codec_job *job, pascal_codec_jobs_request kind,
                       const pascal_backend_result *res, const char *message);

#endif
