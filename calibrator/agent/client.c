/* client.c - retries and exit-code mapping for pascald calls (client.h). */
#include "client.h"

#include "backoff.h"
#include "exitcode.h"

int agent_client_init(agent_client *c, agent_ctx *ctx, uint64_t seed)
{
  c->ctx = ctx;
  c->rng = seed ? seed : 0x9E3779B97F4A7C15ULL;
  return agent_http_init(&c->http, ctx->args->server, ctx->token);
}

void agent_client_free(agent_client *c)
{
  agent_http_free(&c->http);
}

void agent_client_call(agent_client *c, const char *what, const char *method, const char *path,
                       json_t *body, int give_up_level, agent_reply *out)
{
  const agent_args *a = c->ctx->args;
  for (unsigned attempt = 0;; attempt++) {
    agent_http_call(&c->http, method, path, body, out);
    if (!agent_reply_retryable(out) || attempt >= a->retries ||
        agent_stop_level(c->ctx) >= give_up_level)
      return;
    double delay = agent_backoff_delay(attempt, a->backoff_base_s, a->backoff_cap_s,
                                       agent_rng_uniform(&c->rng));
    agent_ui_log(&c->ctx->ui, "%s: %s%s; retry %u/%u in %.2f s", what,
                 out->status ? "server error " : "server unreachable: ", out->reason, attempt + 1,
                 a->retries, delay);
    agent_reply_free(out);
    agent_sleep(c->ctx, delay, give_up_level);
  }
}

int agent_client_fatal(agent_client *c, const char *what, const agent_reply *r, int device_call)
{
  agent_ui *ui = &c->ctx->ui;
  const char *server = c->ctx->args->server;
  if (agent_reply_retryable(r) && agent_stop_level(c->ctx) > 0) {
    /* retries were cut short because the agent is stopping: not a failure */
    agent_ui_log(ui, "%s: server unreachable (%s); stopping as asked", what, r->reason);
    return AGENT_EXIT_OK;
  }
  if (agent_reply_retryable(r)) {
    agent_ui_log(ui, "%s: server %s unreachable after %u retries (%s%s)", what, server,
                 c->ctx->args->retries, r->status ? "last answer: " : "", r->reason);
    return AGENT_EXIT_UNREACHABLE;
  }
  if (r->status == 401) {
    agent_ui_log(ui,
                 "%s: the server refused the token (401 %s); check --token-file or PASCAL_TOKEN",
                 what, r->reason);
    return AGENT_EXIT_AUTH;
  }
  if (r->status == 403) {
    agent_ui_log(
        ui, "%s: the token's role may not do this (403 %s); agents need an agent or admin token",
        what, r->reason);
    return AGENT_EXIT_AUTH;
  }
  if (device_call && (r->status == 404 || r->status == 409)) {
    agent_ui_log(ui, "%s: device '%s' %s (%ld %s)", what, c->ctx->args->device,
                 r->status == 404 ? "is not registered at the server; register it with an admin "
                                    "token (pascal-agent --token-file ADMIN, or POST /v1/devices)"
                                  : "is registered with other constants",
                 r->status, r->reason);
    return AGENT_EXIT_DEVICE;
  }
  agent_ui_log(ui, "%s: unexpected answer %ld (%s)", what, r->status, r->reason);
  return AGENT_EXIT_PROTOCOL;
}
