/* agent.c - the shared agent state's stop level and fatal outcome (agent.h). */
#include "agent.h"

#include <time.h>

#include "exitcode.h"

int agent_stop_level(agent_ctx *ctx)
{
  int signals = atomic_load(ctx->signals);
  if (signals >= 2)
    return 2;
  pthread_mutex_lock(&ctx->mu);
  int halted = ctx->halted;
  pthread_mutex_unlock(&ctx->mu);
  return (signals == 1 || halted) ? 1 : 0;
}

void agent_fatal(agent_ctx *ctx, int exit_code)
{
  pthread_mutex_lock(&ctx->mu);
  if (ctx->exit_code == AGENT_EXIT_OK)
    ctx->exit_code = exit_code;
  ctx->halted = 1;
  pthread_mutex_unlock(&ctx->mu);
}

void agent_sleep(agent_ctx *ctx, double seconds, int level)
{
  /* Slices of at most 50 ms so that a signal is noticed quickly. */
  while (seconds > 0.0 && agent_stop_level(ctx) < level) {
    double slice = seconds < 0.05 ? seconds : 0.05;
    struct timespec ts = {0, (long)(slice * 1e9)};
    nanosleep(&ts, NULL);
    seconds -= slice;
  }
}
