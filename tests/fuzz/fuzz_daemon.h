/*
 * fuzz_daemon.h - a real pascald inside the fuzzing process: the daemon's own
 * code (pascald_lib) on 127.0.0.1 with a real SQLite file in a temporary
 * directory and the shipped sim-gb10 calibrations imported, plus a minimal HTTP/1.1
 * client over one kept-alive loopback connection. The HTTP harnesses send
 * each input through the whole request path (framing checks, routing, auth,
 * JSON limits, handler, store) and assert that no input gets a 5xx.
 */
#ifndef PASCAL_FUZZ_DAEMON_H
#define PASCAL_FUZZ_DAEMON_H

#include <stddef.h>

typedef struct fz_daemon fz_daemon;

/* The process-wide daemon, started on first use (aborts if it cannot). */
fz_daemon *fz_daemon_get(void);
/* Stop it and delete its database; the next fz_daemon_get() starts afresh
 * (a harness whose inputs keep adding calibrations bounds its memory so). */
void fz_daemon_reset(void);

/* The daemon's own store (thread-safe), to check what a request wrote. */
struct pascal_store *fz_store(fz_daemon *d);

/* Bearer tokens made at start: an admin and an agent. */
const char *fz_admin_token(fz_daemon *d);
const char *fz_agent_token(fz_daemon *d);

/* Send one request (`target` is the request target, sent as given; body may
 * be NULL) and read the answer. Returns the HTTP status, or 0 when the
 * daemon closed the connection without an answer. The body of the answer
 * is copied into out[outlen] (NUL-terminated, truncated) when out != NULL. */
unsigned fz_http(fz_daemon *d, const char *method, const char *target, const char *body, size_t len,
                 const char *token, char *out, size_t outlen);

/* abort() with the request and answer when status >= 500: the assertion of
 * every HTTP harness. */
void fz_require_no_5xx(unsigned status, const char *what, const char *answer);

#endif
