/*
 * job.h - the jobs API's JSON as the agent reads and writes it: a claimed job
 * (id, lease, run parameters) turned into a pascal_backend_job, the progress
 * object, and the result/fail/heartbeat bodies. Pure (Jansson only):
 * unit-tested in tests/agent/test_agent_job.c.
 */
#ifndef PASCAL_AGENT_JOB_H
#define PASCAL_AGENT_JOB_H

#include <jansson.h>
#include <stddef.h>

#include "../backend.h"

typedef struct agent_job {
  long long id;
  char lease_token[160];
  double lease_seconds;       /* > 0 */
  pascal_backend_job run;
} agent_job;

/* Parse the "job" object of a claim answer. -1 with `msg` naming the field
 * when it is missing or out of range. Exception to the out-parameter rule:
 * on failure `out->id` and `out->lease_token` are still set when those two
 * were valid (id 0 otherwise), so that the job can be reported as failed. */
int agent_job_parse(json_t *job, agent_job *out, char *msg, size_t msglen);

/* "job 7 scan o=1 tma d=4 m=8 N=4096 W=16 repeat 0" */
void agent_job_describe(const agent_job *job, char *buf, size_t buflen);

/* Read {"progress":{"done":D,"total":T}} from an answer; -1 when absent or bad. */
int agent_progress_parse(json_t *answer, long *done, long *total);

/* Longest /fail message pascald accepts, in bytes (PASCAL_STORE_MESSAGE_MAX - 1);
 * agent_body_fail cuts a longer one. */
#define AGENT_FAIL_MESSAGE_MAX 255

/* Request bodies (new references; NULL when out of memory, or for a fail
 * message that is not valid UTF-8). */
json_t *agent_body_result(const agent_job *job, const pascal_backend_result *res);
json_t *agent_body_fail(const agent_job *job, const char *message);
json_t *agent_body_lease(const agent_job *job);

#endif
