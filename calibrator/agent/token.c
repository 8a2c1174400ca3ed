/* token.c - reads and checks the bearer token (token.h). */
#include "token.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* Trim surrounding whitespace in place and check the token is visible ASCII
 * (what an Authorization header can carry). */
static int token_check(char *tok, const char *origin, char *msg, size_t msglen)
{
  size_t n = strlen(tok);
  while (n > 0 &&
         (tok[n - 1] == '\n' || tok[n - 1] == '\r' || tok[n - 1] == ' ' || tok[n - 1] == '\t'))
    tok[--n] = '\0';
  size_t lead = strspn(tok, " \t");
  memmove(tok, tok + lead, n - lead + 1);
  n -= lead;
  if (n == 0) {
    snprintf(msg, msglen, "the token from %s is empty", origin);
    return -1;
  }
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)tok[i];
    if (c <= 0x20 || c >= 0x7f) {
      snprintf(msg, msglen, "the token from %s contains a space or a non-printable character",
               origin);
      return -1;
    }
  }
  return 0;
}

int agent_token_load(const char *file, const char *env_value, char out[AGENT_TOKEN_MAX], char *msg,
                     size_t msglen)
{
  char buf[AGENT_TOKEN_MAX + 2];
  if (file) {
    FILE *f = fopen(file, "r");
    if (!f) {
      snprintf(msg, msglen, "--token-file %s: %s", file, strerror(errno));
      return -1;
    }
    char *line = fgets(buf, sizeof buf, f);
    int read_error = ferror(f);
    fclose(f);
    if (read_error) {
      snprintf(msg, msglen, "--token-file %s: read error", file);
      return -1;
    }
    if (!line)
      buf[0] = '\0';
    if (token_check(buf, "--token-file", msg, msglen) != 0)
      return -1;
  } else if (env_value) {
    snprintf(buf, sizeof buf, "%s", env_value);
    if (token_check(buf, "PASCAL_TOKEN", msg, msglen) != 0)
      return -1;
  } else {
    snprintf(msg, msglen, "no token: give --token-file FILE or set PASCAL_TOKEN");
    return -1;
  }
  /* buf holds up to AGENT_TOKEN_MAX + 1 characters, so an over-long token
   * (in a file or the environment) is still seen as too long here. */
  if (strlen(buf) >= AGENT_TOKEN_MAX) {
    snprintf(msg, msglen, "token longer than %d characters", AGENT_TOKEN_MAX - 1);
    return -1;
  }
  memcpy(out, buf, strlen(buf) + 1);
  return 0;
}
