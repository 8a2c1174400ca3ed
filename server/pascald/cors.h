/*
 * cors.h - Cross-Origin Resource Sharing for browser clients of the API.
 * Off unless the configuration lists allowed origins (`cors_origins`, exact
 * "scheme://host[:port]" values separated by commas). For an allowed Origin
 * every answer carries Access-Control-Allow-Origin; an OPTIONS preflight is
 * answered 204 with the path's methods, the request headers the API reads
 * and a max-age. No wildcard: reads are open by default, so "*" would let any
 * web page a user visits query a daemon on their machine.
 */
#ifndef PASCALD_CORS_H
#define PASCALD_CORS_H

#include <stddef.h>

#define PD_CORS_ORIGINS_MAX   16
#define PD_CORS_ALLOW_HEADERS "Authorization, Content-Type"

/* Validate a comma-separated origin list and write it to out without
 * blanks ("" for an empty list: CORS off). Returns 0, or -1 with msg naming
 * the offending origin. */
int pd_cors_parse_origins(const char *list, char *out, size_t outlen, char *msg, size_t msglen);

/* 1 when `origin` (an Origin request header) is in the normalized list. */
int pd_cors_origin_allowed(const char *origins, const char *origin);

#endif
