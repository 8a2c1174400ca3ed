/*
 * client.h - pascald calls with pascal-agent's retry policy: transport
 * failures and 5xx answers are retried with capped exponential backoff and
 * jitter (backoff.h), at most --retries times; 2xx and 4xx answers are
 * returned at once (a 4xx is never retried: repeating it cannot help).
 * Also maps a final failed answer to the agent's exit code.
 */
#ifndef PASCAL_AGENT_CLIENT_H
#define PASCAL_AGENT_CLIENT_H

#include <stdint.h>

#include "agent.h"
#include "http.h"

typedef struct agent_client {
  agent_http http;
  agent_ctx *ctx;
  uint64_t rng; /* jitter draws; per client, so no shared state */
} agent_client;

int agent_client_init(agent_client *c, agent_ctx *ctx, uint64_t seed);
void agent_client_free(agent_client *c);

/* One call with retries. `what` names the call in log lines ("claim").
 * Retrying stops early once the stop level (agent.h) reaches `give_up_level`:
 * 1 for calls that hold nothing (claim, device), 2 for calls that report a
 * job's outcome (worth finishing after a first signal). `out` is always
 * filled (agent_reply_free it). */
void agent_client_call(agent_client *c, const char *what, const char *method, const char *path,
                       json_t *body, int give_up_level, agent_reply *out);

/* Exit code for a final answer that was not a success: 5 after retries ran
 * out (transport/5xx; 0 when they were cut short by a stop request), 3 for
 * 401/403, 4 for a device 404/409 (`device_call`), 7 for any other status.
 * Logs one line saying why. */
int agent_client_fatal(agent_client *c, const char *what, const agent_reply *r, int device_call);

#endif
