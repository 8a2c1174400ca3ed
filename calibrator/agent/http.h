/*
 * http.h - one JSON-over-HTTP exchange with pascald (libcurl easy handle).
 * No retries here: a call reports either a transport failure (status 0, with
 * curl's reason) or the HTTP status and the parsed JSON body. The retry
 * policy lives in client.c. One agent_http per thread (curl handles are not
 * shared between threads).
 */
#ifndef PASCAL_AGENT_HTTP_H
#define PASCAL_AGENT_HTTP_H

#include <jansson.h>
#include <stddef.h>

#include "token.h"

typedef struct agent_http {
  void *curl;     /* CURL *, owned */
  void *headers;  /* struct curl_slist *, owned */
  char base[416]; /* server base URL */
} agent_http;

typedef struct agent_reply {
  long status;      /* HTTP status; 0 = transport failure (see `reason`) */
  json_t *body;     /* parsed JSON body or NULL (owned; agent_reply_free) */
  char reason[256]; /* transport failure text, or the server's error code and message */
} agent_reply;

/* Set up a handle for `base` with `Authorization: Bearer token`. Call
 * curl_global_init() once before the first agent_http_init. -1 on failure. */
int agent_http_init(agent_http *h, const char *base, const char *token);
void agent_http_free(agent_http *h);

/* `method` "GET" or "POST"; `body` is sent as JSON when not NULL (not
 * stolen). `out` is always filled and must be released with agent_reply_free.
 * On a 4xx/5xx with the contract's error body, `reason` holds
 * "code: message" (with the field when the server named one). */
void agent_http_call(agent_http *h, const char *method, const char *path, json_t *body,
                     agent_reply *out);
void agent_reply_free(agent_reply *r);

/* Transport failures and 5xx are worth retrying; 2xx/4xx are answers. */
int agent_reply_retryable(const agent_reply *r);

#endif
