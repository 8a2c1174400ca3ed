/*
 * auth.h - bearer tokens: generation (>= 128 random bits from getrandom; the
 * same random hex makes the jobs' lease tokens), hashing for storage
 * (SHA-256, hex), and checking a request's Authorization header against the
 * daemon's table of tokens (reads, tokens.h) or the store (writes) with a
 * constant-time comparison.
 */
#ifndef PASCALD_AUTH_H
#define PASCALD_AUTH_H

#include <stddef.h>
#include <stdint.h>

#include "ctx.h"

#define PD_TOKEN_PREFIX       "pasc_"
#define PD_TOKEN_RANDOM_BYTES 32                              /* 256 bits */
#define PD_TOKEN_LEN          (5 + 2 * PD_TOKEN_RANDOM_BYTES) /* prefix + hex */
#define PD_HASH_HEX           65                              /* 64 hex + NUL */

/* Write 2 * nbytes lowercase hex digits of getrandom() output and a NUL to
 * `out` (nbytes <= 64; bearer tokens, lease tokens). 0, or -1 when the kernel
 * gives no randomness. */
int pd_random_hex(size_t nbytes, char *out);
/* Fill `out` (PD_TOKEN_LEN + 1 bytes) with a fresh token. 0 or -1. */
int pd_token_generate(char *out);
/* Hex SHA-256 of the token: what the store keeps. */
void pd_token_hash(const char *token, char out[PD_HASH_HEX]);

typedef enum pd_auth_result {
  PD_AUTH_ABSENT = 0,  /* no Authorization header */
  PD_AUTH_INVALID,     /* malformed, unknown or revoked token */
  PD_AUTH_UNAVAILABLE, /* the store could not be read: say 503, not 401, so
                          that clients retry instead of giving up on the token */
  PD_AUTH_OK
} pd_auth_result;

/* Check the request's Authorization header; on PD_AUTH_OK sets role and
 * token id in req. `read`: the route only reads, so the token may be
 * answered from the table of tokens (it never waits for the store's mutex
 * once the token is known there). */
pd_auth_result pd_auth_check(pd_ctx *ctx, pd_request *req, const char *header, int read);

#endif
