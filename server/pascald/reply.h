/*
 * reply.h - the one place that shapes replies: JSON success bodies and the
 * error body {"error":{"code","message","field"}} shared by every route.
 */
#ifndef PASCALD_REPLY_H
#define PASCALD_REPLY_H

#include <stdint.h>

#include "pascal/error.h"
#include "pascald.h"

/* Take ownership of `body` (may be NULL on allocation failure -> 500). */
void pd_reply_json(pd_reply *rep, unsigned status, json_t *body);

/* 201 Created with `body` (taken over, as pd_reply_json) and a Location
 * header: the path, formatted, where a GET reads what was created. */
void pd_reply_created(pd_reply *rep, json_t *body, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* `field` may be NULL (serialized as null). The message is one line. */
void pd_reply_error(pd_reply *rep, unsigned status, const char *code, const char *field,
                    const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* Map a libpascal error: not_found -> 404, refused -> 422, nomem -> 500,
 * everything else (invalid, range, format) -> 400. */
void pd_reply_pascal_error(pd_reply *rep, const pascal_error *err);
/* The same, naming the field inside `prefix` ("plan" + "sizes[1]" ->
 * "plan.sizes[1]"); prefix may be NULL. */
void pd_reply_pascal_error_in(pd_reply *rep, const pascal_error *err, const char *prefix);

/* Plain text (metrics). Takes ownership of `text` (malloc'd), or `text`
 * is rep->room (the connection's, never freed). */
void pd_reply_text(pd_reply *rep, unsigned status, char *text, size_t len, const char *ctype);

/* A JSON number that is never NaN/Inf: non-finite values become null. */
json_t *pd_json_real(double x);

/* An answer produced while it is sent, so that a client that does not read
 * holds only what `read` last made (http.c hands it to libmicrohttpd).
 * read: the next bytes into buf (at most max): their count, 0 at the end,
 * -1 on failure (the connection is closed: the status was sent already).
 * free: release `state` (called once, also when never read). */
typedef struct pd_stream {
  long (*read)(void *state, char *buf, size_t max);
  void (*free)(void *state);
  void *state;
} pd_stream;

/* Answer `status` with the stream `s` (taken over, freed with the reply). */
void pd_reply_stream(pd_reply *rep, unsigned status, const char *ctype, pd_stream *s);

void pd_reply_clear(pd_reply *rep);

/* Map a store failure: invalid -> 400, not_found -> 404, conflict -> 409
 * conflict, stale -> 409 stale_lease, nomem -> 500, io -> 503. `st` is a
 * pascal_store_status. */
void pd_reply_store_error(pd_reply *rep, int st, const pascal_error *err);

/* UTC time as RFC 3339 ("2026-11-21T09:30:00Z"); out has >= 32 bytes. */
void pd_rfc3339(int64_t t, char *out, size_t n);
/* pd_rfc3339 as a JSON string. */
json_t *pd_json_time(int64_t t);

#endif
