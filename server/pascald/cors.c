/*
 * cors.c - the allowed-origin list of CORS (cors.h): validation of the
 * configured origins and the exact match of a request's Origin header. The
 * headers themselves are added where replies are sent (http.c).
 */
#include "cors.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

/* "http://host[:port]" or "https://host[:port]": host of letters, digits,
 * '.', '-' (or a bracketed IPv6 literal), port 1..65535, nothing after. */
static int origin_valid(const char *s, size_t n)
{
  size_t p;
  if (n > 7 && !strncmp(s, "http://", 7))
    p = 7;
  else if (n > 8 && !strncmp(s, "https://", 8))
    p = 8;
  else
    return 0;
  size_t host = p;
  if (s[p] == '[') {
    while (p < n && s[p] != ']') {
      if (!isxdigit((unsigned char)s[p]) && s[p] != ':' && s[p] != '[' && s[p] != '.')
        return 0;
      p++;
    }
    if (p == n)
      return 0;
    p++;
  } else {
    while (p < n && (isalnum((unsigned char)s[p]) || s[p] == '.' || s[p] == '-'))
      p++;
  }
  if (p == host)
    return 0;
  if (p == n)
    return 1;
  if (s[p] != ':' || p + 1 == n || n - p - 1 > 5)
    return 0;
  unsigned long port = 0;
  for (p++; p < n; p++) {
    if (!isdigit((unsigned char)s[p]))
      return 0;
    port = port * 10 + (unsigned long)(s[p] - '0');
  }
  return port >= 1 && port <= 65535;
}

int pd_cors_parse_origins(const char *list, char *out, size_t outlen, char *msg, size_t msglen)
{
  size_t used = 0, count = 0;
  out[0] = '\0';
  const char *s = list;
  while (*s) {
    while (*s == ' ' || *s == '\t' || *s == ',')
      s++;
    if (!*s)
      break;
    const char *e = s;
    while (*e && *e != ',' && *e != ' ' && *e != '\t')
      e++;
    size_t n = (size_t)(e - s);
    if (!origin_valid(s, n)) {
      snprintf(msg, msglen, "'%.*s' is not an origin (scheme://host[:port], no path, no '*')",
               (int)(n > 200 ? 200 : n), s);
      return -1;
    }
    if (++count > PD_CORS_ORIGINS_MAX) {
      snprintf(msg, msglen, "more than %d origins", PD_CORS_ORIGINS_MAX);
      return -1;
    }
    if (used + n + 2 > outlen) {
      snprintf(msg, msglen, "the origin list is longer than %zu characters", outlen - 1);
      return -1;
    }
    if (used)
      out[used++] = ',';
    memcpy(out + used, s, n);
    used += n;
    out[used] = '\0';
    s = e;
  }
  return 0;
}

int pd_cors_origin_allowed(const char *origins, const char *origin)
{
  if (!origins[0] || !origin || !origin[0])
    return 0;
  size_t n = strlen(origin);
  for (const char *s = origins; *s;) {
    const char *e = strchr(s, ',');
    size_t len = e ? (size_t)(e - s) : strlen(s);
    /* scheme and host are case-insensitive; the port is digits */
    if (len == n && !strncasecmp(s, origin, n))
      return 1;
    if (!e)
      break;
    s = e + 1;
  }
  return 0;
}
