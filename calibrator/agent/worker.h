/*
 * worker.h - one job loop of pascal-agent: claim a job, run it on this
 * worker's backend instance while heartbeating its lease, upload the result
 * (or report the failure), repeat. --concurrency N runs N of these.
 */
#ifndef PASCAL_AGENT_WORKER_H
#define PASCAL_AGENT_WORKER_H

#include "agent.h"

/* Run until stopped, idle (--until-idle), or a fatal answer (recorded with
 * agent_fatal). `index` seeds the jitter and names the worker in logs. */
void agent_worker_run(agent_ctx *ctx, unsigned index);

#endif
