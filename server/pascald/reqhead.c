/*
 * reqhead.c - framing and NUL checks on a request head (see reqhead.h).
 * Headers and query arguments are read with their lengths, so that a NUL
 * byte inside a value is seen instead of ending it early.
 */
#include "reqhead.h"

#include <microhttpd.h>
#include <stdint.h>
#include <string.h>
#include <strings.h>

#include "conns.h"
#include "reply.h"

typedef struct head_scan {
  pd_reply *rep;
  pd_head *head;
  int failed;
  unsigned content_lengths, transfer_encodings, hosts;
  int te_chunked;
} head_scan;

static enum MHD_Result fail(head_scan *h, const char *field, const char *msg)
{
  pd_reply_error(h->rep, 400, "bad_request", field, "%s", msg);
  h->failed = 1;
  return MHD_NO;
}

/* RFC 9110 token characters: a field name with a space ("Content-Length :")
 * or a control byte is not a header pascald can read the same way as a
 * proxy would. */
/* RFC 9110 tchar: the visible ASCII characters (33..126) but the
 * separators "(),/:;<=>?@[\]{}, as one bit per character below 128 (bit c
 * of token_bits[c >> 6]). */
static const uint64_t token_bits[2] = {UINT64_C(0x03ff6cfa00000000), UINT64_C(0x57ffffffc7fffffe)};

static int is_token(const char *s, size_t n)
{
  if (n == 0)
    return 0;
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c >= 128 || !((token_bits[c >> 6] >> (c & 63)) & 1))
      return 0;
  }
  return 1;
}

static int all_digits(const char *s, size_t n)
{
  if (n == 0 || n > 19)
    return 0;
  for (size_t i = 0; i < n; i++)
    if (s[i] < '0' || s[i] > '9')
      return 0;
  return 1;
}

/* A header name (key_size bytes, NUL-free) is `name`, case aside; the
 * lengths are compared first, which spares most headers the comparison. */
static inline int name_is(const char *key, size_t key_size, const char *name)
{
  return key_size == strlen(name) && !strcasecmp(key, name);
}

static enum MHD_Result header(void *cls, enum MHD_ValueKind kind, const char *key, size_t key_size,
                              const char *value, size_t value_size)
{
  head_scan *h = cls;
  (void)kind;
  const char *given = value;
  if (!value)
    value = "";
  /* a NUL is not a token character: the name's own check finds one, and
   * only then is it told apart from another malformed name */
  int token = is_token(key, key_size);
  if (memchr(value, '\0', value_size) || (!token && memchr(key, '\0', key_size)))
    return fail(h, key, "a header contains a NUL byte");
  if (!token)
    return fail(h, NULL, "malformed header name");
  if (name_is(key, key_size, MHD_HTTP_HEADER_CONTENT_LENGTH)) {
    if (++h->content_lengths > 1)
      return fail(h, key, "Content-Length given more than once");
    if (!all_digits(value, value_size))
      return fail(h, key, "Content-Length must be a decimal number of bytes");
    h->head->content_length = given;
  } else if (name_is(key, key_size, MHD_HTTP_HEADER_AUTHORIZATION)) {
    if (!h->head->authorization)
      h->head->authorization = given;
  } else if (name_is(key, key_size, MHD_HTTP_HEADER_HOST)) {
    if (++h->hosts > 1)
      return fail(h, key, "Host given more than once");
  } else if (name_is(key, key_size, MHD_HTTP_HEADER_TRANSFER_ENCODING)) {
    if (++h->transfer_encodings > 1)
      return fail(h, key, "Transfer-Encoding given more than once");
    if (strcasecmp(value, "chunked") != 0)
      return fail(h, key, "the only Transfer-Encoding accepted is chunked");
  }
  return MHD_YES;
}

static enum MHD_Result argument(void *cls, enum MHD_ValueKind kind, const char *key,
                                size_t key_size, const char *value, size_t value_size)
{
  head_scan *h = cls;
  (void)kind;
  if (memchr(key, '\0', key_size) || (value && memchr(value, '\0', value_size)))
    return fail(h, key, "a query parameter contains a NUL byte (%00)");
  return MHD_YES;
}

int pd_reqhead_check(struct MHD_Connection *conn, const char *version, int nul_in_url,
                     int too_many_params, pd_head *head, pd_reply *rep)
{
  head->content_length = head->authorization = NULL;
  if (too_many_params) {
    pd_reply_error(rep, 414, "uri_too_long", NULL, "more than %d query parameters",
                   PD_QUERY_PARAMS_MAX);
    return -1;
  }
  head_scan h;
  memset(&h, 0, sizeof h);
  h.rep = rep;
  h.head = head;
  MHD_get_connection_values_n(conn, MHD_HEADER_KIND, header, &h);
  if (!h.failed && !h.hosts && version && !strcmp(version, MHD_HTTP_VERSION_1_1))
    fail(&h, MHD_HTTP_HEADER_HOST, "an HTTP/1.1 request needs a Host header (RFC 9112 3.2)");
  if (!h.failed && h.content_lengths && h.transfer_encodings)
    fail(&h, MHD_HTTP_HEADER_TRANSFER_ENCODING,
         "Content-Length and Transfer-Encoding together are ambiguous");
  /* The arguments are looked through only when the decoder met %00 (or
   * cannot tell): it decodes every argument, so without one none holds a
   * NUL, and a request's arguments are not walked twice for nothing. */
  if (!h.failed && nul_in_url)
    MHD_get_connection_values_n(conn, MHD_GET_ARGUMENT_KIND, argument, &h);
  /* %00 seen by the decoder and not in any argument: it is in the path */
  if (!h.failed && nul_in_url > 0)
    fail(&h, "path", "the URL path contains a NUL byte (%00)");
  return h.failed ? -1 : 0;
}
