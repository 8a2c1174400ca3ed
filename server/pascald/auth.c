/*
 * auth.c - bearer-token generation, hashing and checking. Tokens are
 * "pasc_" + 64 hex digits of getrandom() output (256 bits); only their
 * SHA-256 is stored. A read looks the hash up in the daemon's table of
 * tokens (tokens.h) first; a write, or a read the table cannot answer, asks
 * the store, which looks it up by hash. The hash found is compared again in
 * constant time before the role is trusted.
 */
#include "auth.h"

#include <errno.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <time.h>

#include "pascal_sha256.h"
#include "pascal_store.h"
#include "tokens.h"

static void hex(const uint8_t *in, size_t n, char *out)
{
  static const char digits[] = "0123456789abcdef";
  for (size_t i = 0; i < n; i++) {
    out[2 * i] = digits[in[i] >> 4];
    out[2 * i + 1] = digits[in[i] & 15];
  }
  out[2 * n] = '\0';
}

int pd_random_hex(size_t nbytes, char *out)
{
  uint8_t raw[64];
  if (nbytes > sizeof raw)
    return -1;
  size_t got = 0;
  while (got < nbytes) {
    ssize_t r = getrandom(raw + got, nbytes - got, 0);
    if (r < 0 && errno == EINTR)
      continue;
    if (r <= 0)
      return -1;
    got += (size_t)r;
  }
  hex(raw, nbytes, out);
  return 0;
}

int pd_token_generate(char *out)
{
  memcpy(out, PD_TOKEN_PREFIX, 5);
  return pd_random_hex(PD_TOKEN_RANDOM_BYTES, out + 5);
}

void pd_token_hash(const char *token, char out[PD_HASH_HEX])
{
  pascal_sha256_hex(token, strlen(token), out);
}

/* Constant-time equality of two equal-length strings. */
static int ct_equal(const char *a, const char *b, size_t n)
{
  volatile unsigned char acc = 0;
  for (size_t i = 0; i < n; i++)
    acc |= (unsigned char)(a[i] ^ b[i]);
  return acc == 0;
}

static int token_well_formed(const char *t, size_t n)
{
  if (n != PD_TOKEN_LEN || strncmp(t, PD_TOKEN_PREFIX, 5) != 0)
    return 0;
  for (size_t i = 5; i < n; i++)
    if (!((t[i] >= '0' && t[i] <= '9') || (t[i] >= 'a' && t[i] <= 'f')))
      return 0;
  return 1;
}

pd_auth_result pd_auth_check(pd_ctx *ctx, pd_request *req, const char *header, int read)
{
  if (!header)
    return PD_AUTH_ABSENT;
  if (strncasecmp(header, "Bearer ", 7) != 0)
    return PD_AUTH_INVALID;
  const char *tok = header + 7;
  while (*tok == ' ')
    tok++;
  size_t n = strlen(tok);
  while (n > 0 && tok[n - 1] == ' ')
    n--;
  if (!token_well_formed(tok, n))
    return PD_AUTH_INVALID;
  char token[PD_TOKEN_LEN + 1];
  memcpy(token, tok, n);
  token[n] = '\0';
  char hash[PD_HASH_HEX];
  pd_token_hash(token, hash);
  pascal_store_token t;
  if (!read || !pd_tokens_find(ctx->tokens, hash, &t)) {
    pascal_store_status st = pascal_store_token_find(ctx->store, hash, &t, NULL);
    if (st == PASCAL_STORE_NOT_FOUND)
      return PD_AUTH_INVALID;
    if (st != PASCAL_STORE_OK)
      return PD_AUTH_UNAVAILABLE;
    if (read && t.revoked == 0 && strlen(t.hash) == 64)
      pd_tokens_learn(ctx->tokens, &t);
  }
  if (strlen(t.hash) != 64 || !ct_equal(t.hash, hash, 64) || t.revoked != 0)
    return PD_AUTH_INVALID;
  req->role = t.role == PASCAL_STORE_ROLE_ADMIN ? PD_ROLE_ADMIN : PD_ROLE_AGENT;
  req->token_id = t.id;
  snprintf(req->token_name, sizeof req->token_name, "%s", t.name);
  return PD_AUTH_OK;
}
