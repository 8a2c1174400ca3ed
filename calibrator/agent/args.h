/*
 * args.h - pascal-agent's command line: the options, their defaults and the
 * checks on them. Pure (no I/O, no environment): unit-tested in
 * tests/agent/test_agent_args.c.
 */
#ifndef PASCAL_AGENT_ARGS_H
#define PASCAL_AGENT_ARGS_H

#include <stddef.h>

typedef struct agent_args {
  const char *server;       /* base URL, "http://host:port" or "https://..." (no trailing '/') */
  const char *token_file;   /* NULL: token from env PASCAL_TOKEN */
  const char *device;       /* device name registered with pascald */
  const char *backend;      /* "sim" or "cuda" */
  const char *profile;      /* backend profile file or NULL */
  const char *name;         /* agent name; NULL: "<hostname>-<pid>" chosen by main */
  unsigned concurrency;     /* jobs run at once, 1..64 */
  int until_idle;           /* exit 0 once no job is left and done == total */
  unsigned retries;         /* retries after a network error or 5xx, 0..1000 */
  double backoff_base_s;    /* first retry delay (before jitter), > 0 */
  double backoff_cap_s;     /* largest retry delay, >= backoff_base_s */
  double poll_s;            /* wait between claims when no job is queued, > 0 */
  int probe;                /* --probe: describe the device and exit (no server) */
  unsigned capacity_blocks; /* --capacity-blocks: C from an earlier probe; 0: ask pascald,
                               else let the backend measure it */
  int static_exp;           /* --static: the static cluster experiment, then exit */
  unsigned rounds;          /* --rounds: rounds H of each static run (default 4000) */
  const char *lock;         /* --lock FILE: the device lock (devlock.h); NULL: the
                               default file for cuda, none for sim */
} agent_args;

typedef enum agent_args_result {
  AGENT_ARGS_OK = 0,
  AGENT_ARGS_HELP = 1,   /* --help: print agent_args_usage() and exit 0 */
  AGENT_ARGS_ERROR = 2,  /* `msg` says which option is wrong and why */
  AGENT_ARGS_VERSION = 3 /* --version: print the version and exit 0 */
} agent_args_result;

/* Parse argv (argv[0] is skipped). `--opt VALUE` and `--opt=VALUE` are both
 * accepted. On AGENT_ARGS_ERROR `msg` holds one line naming the option.
 * Strings in `out` point into argv (argv must outlive `out`). */
agent_args_result agent_args_parse(int argc, char *const argv[], agent_args *out, char *msg,
                                   size_t msglen);

/* The usage text (static storage). */
const char *agent_args_usage(void);

#endif
