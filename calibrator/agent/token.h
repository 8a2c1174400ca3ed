/*
 * token.h - where pascal-agent's bearer token comes from: a file
 * (--token-file, first line, surrounding whitespace ignored) or the
 * environment variable PASCAL_TOKEN. Never the command line.
 */
#ifndef PASCAL_AGENT_TOKEN_H
#define PASCAL_AGENT_TOKEN_H

#include <stddef.h>

#define AGENT_TOKEN_MAX 256

/* Load the token into `out` (AGENT_TOKEN_MAX bytes). `file` wins when not
 * NULL; otherwise `env_value` (the caller's getenv("PASCAL_TOKEN")) is used.
 * Returns 0, or -1 with one line in `msg`: missing, unreadable, empty, too
 * long, or containing characters that cannot go in an HTTP header. */
int agent_token_load(const char *file, const char *env_value, char out[AGENT_TOKEN_MAX], char *msg,
                     size_t msglen);

#endif
