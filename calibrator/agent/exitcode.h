/*
 * exitcode.h - pascal-agent's process exit codes (documented in docs/agent.md;
 * scripts and systemd units rely on them, so they never change meaning).
 */
#ifndef PASCAL_AGENT_EXITCODE_H
#define PASCAL_AGENT_EXITCODE_H

enum agent_exit {
  AGENT_EXIT_OK = 0,          /* stopped cleanly, or --until-idle found no work left */
  AGENT_EXIT_FAILURE = 1,     /* internal failure (memory, threads) */
  AGENT_EXIT_USAGE = 2,       /* bad arguments, no token, unreadable token file */
  AGENT_EXIT_AUTH = 3,        /* the server refused the token (401) or its role (403) */
  AGENT_EXIT_DEVICE = 4,      /* device unknown to the server, or registered with other constants */
  AGENT_EXIT_UNREACHABLE = 5, /* network errors or 5xx answers outlasted every retry */
  AGENT_EXIT_BACKEND = 6,     /* backend not built in (cuda) or failed to open */
  AGENT_EXIT_PROTOCOL = 7     /* any other 4xx, or an answer that breaks the jobs API */
};

#endif
