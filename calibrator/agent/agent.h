/*
 * agent.h - the state one pascal-agent process shares between its workers:
 * options, backend, token, output, the signal counter and the first fatal
 * outcome. Created by main.c, passed to every worker (no global state besides
 * the signal counter, which main.c owns).
 */
#ifndef PASCAL_AGENT_AGENT_H
#define PASCAL_AGENT_AGENT_H

#include <pthread.h>
#include <stdatomic.h>

#include "../backend.h"
#include "args.h"
#include "token.h"
#include "ui.h"

typedef struct agent_ctx {
  const agent_args *args;
  const pascal_backend_ops *ops;
  char token[AGENT_TOKEN_MAX];
  const char *name; /* agent name sent with claims */
  agent_ui ui;
  const atomic_int *signals; /* SIGTERM/SIGINT received so far (0..2;
                                written by main.c's signal handler) */
  pthread_mutex_t mu;        /* guards the three fields below */
  int exit_code;             /* first fatal outcome, AGENT_EXIT_OK if none */
  int halted;                /* a worker failed fatally: the others stop */
  int abandoned;             /* a runner thread was left inside the backend */
} agent_ctx;

/* How hard the agent is asked to stop:
 *   0  keep working;
 *   1  one signal, or another worker failed: finish the current job, claim no more;
 *   2  a second signal: release the current job now ("agent stopping") and exit. */
int agent_stop_level(agent_ctx *ctx);

/* Record a fatal outcome (the first one wins) and stop the other workers. */
void agent_fatal(agent_ctx *ctx, int exit_code);

/* Sleep up to `seconds`, waking early when the stop level reaches `level`. */
void agent_sleep(agent_ctx *ctx, double seconds, int level);

#endif
