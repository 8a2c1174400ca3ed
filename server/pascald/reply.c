/*
 * reply.c - reply construction: success bodies, the error body of the HTTP
 * contract, and the mapping from libpascal statuses to HTTP statuses.
 */
#include "reply.h"

#include "pascal_store.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

void pd_reply_clear(pd_reply *rep)
{
  json_decref(rep->json);
  if (rep->text != rep->room)
    free(rep->text);
  if (rep->stream) {
    rep->stream->free(rep->stream->state);
    free(rep->stream);
  }
  rep->json = NULL;
  rep->text = NULL;
  rep->text_len = 0;
  rep->stream = NULL;
}

void pd_reply_stream(pd_reply *rep, unsigned status, const char *ctype, pd_stream *s)
{
  pd_reply_clear(rep);
  rep->status = status;
  rep->content_type = ctype;
  rep->stream = s;
}

void pd_reply_json(pd_reply *rep, unsigned status, json_t *body)
{
  pd_reply_clear(rep);
  if (!body) {
    pd_reply_error(rep, 500, "internal", NULL, "out of memory building the reply");
    return;
  }
  rep->status = status;
  rep->json = body;
  rep->content_type = "application/json";
}

void pd_reply_created(pd_reply *rep, json_t *body, const char *fmt, ...)
{
  pd_reply_json(rep, 201, body);
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(rep->location, sizeof rep->location, fmt, ap);
  va_end(ap);
}

void pd_reply_error(pd_reply *rep, unsigned status, const char *code, const char *field,
                    const char *fmt, ...)
{
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  for (char *p = msg; *p; p++)
    if (*p == '\n' || *p == '\r')
      *p = ' '; /* one line */
  pd_reply_clear(rep);
  rep->status = status;
  rep->content_type = "application/json";
  rep->json = json_pack("{s:{s:s,s:s,s:s?}}", "error", "code", code, "message", msg, "field",
                        field && *field ? field : NULL);
  /* json_pack fails only on bad UTF-8 in msg/field (echoed input) or OOM */
  if (!rep->json)
    rep->json = json_pack("{s:{s:s,s:s,s:n}}", "error", "code", code, "message",
                          "request rejected (details not representable)", "field");
}

static unsigned status_for(pascal_status st)
{
  switch (st) {
  case PASCAL_ENOTFOUND: return 404;
  case PASCAL_EREFUSED: return 422;
  case PASCAL_ENOMEM: return 500;
  default: return 400;
  }
}

static const char *code_for(pascal_status st)
{
  switch (st) {
  case PASCAL_ENOTFOUND: return "not_found";
  case PASCAL_EREFUSED: return "refused";
  case PASCAL_ENOMEM: return "internal";
  case PASCAL_ERANGE: return "out_of_range";
  case PASCAL_EFORMAT: return "bad_format";
  case PASCAL_EMISSING: return "missing_field";
  default: return "invalid";
  }
}

void pd_reply_pascal_error(pd_reply *rep, const pascal_error *err)
{
  pd_reply_error(rep, status_for(err->status), code_for(err->status), err->field, "%s",
                 err->message[0] ? err->message : pascal_status_name(err->status));
}

void pd_reply_pascal_error_in(pd_reply *rep, const pascal_error *err, const char *prefix)
{
  if (!prefix || !*prefix) {
    pd_reply_pascal_error(rep, err);
    return;
  }
  char f[PASCAL_ERROR_FIELD_MAX + 96];
  snprintf(f, sizeof f, "%s%s%s", prefix, err->field[0] ? "." : "", err->field);
  pd_reply_error(rep, status_for(err->status), code_for(err->status), f, "%s",
                 err->message[0] ? err->message : pascal_status_name(err->status));
}

void pd_reply_text(pd_reply *rep, unsigned status, char *text, size_t len, const char *ctype)
{
  pd_reply_clear(rep);
  rep->status = status;
  rep->text = text;
  rep->text_len = len;
  rep->content_type = ctype;
}

json_t *pd_json_real(double x)
{
  return isfinite(x) ? json_real(x) : json_null();
}

void pd_rfc3339(int64_t t, char *out, size_t n)
{
  time_t tt = (time_t)t;
  struct tm tm;
  if (!gmtime_r(&tt, &tm) || strftime(out, n, "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
    snprintf(out, n, "1970-01-01T00:00:00Z");
}

json_t *pd_json_time(int64_t t)
{
  char buf[40];
  pd_rfc3339(t, buf, sizeof buf);
  return json_string(buf);
}

void pd_reply_store_error(pd_reply *rep, int st, const pascal_error *err)
{
  static const struct {
    int st;
    unsigned http;
    const char *code;
  } map[] = {
      {PASCAL_STORE_INVALID, 400, "invalid"},     {PASCAL_STORE_NOT_FOUND, 404, "not_found"},
      {PASCAL_STORE_CONFLICT, 409, "conflict"},   {PASCAL_STORE_STALE, 409, "stale_lease"},
      {PASCAL_STORE_FORBIDDEN, 403, "forbidden"}, {PASCAL_STORE_NOMEM, 500, "internal"},
      {PASCAL_STORE_IO, 503, "unavailable"},      {PASCAL_STORE_CORRUPT, 503, "unavailable"}};
  if (st == PASCAL_STORE_IO || st == PASCAL_STORE_CORRUPT) /* an operator must act */
    fprintf(stderr, "pascald: store unavailable: %s\n",
            err && err->message[0] ? err->message : pascal_store_status_name(st));
  for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
    if (map[i].st == st) {
      pd_reply_error(rep, map[i].http, map[i].code, err ? err->field : NULL, "%s",
                     err && err->message[0] ? err->message : pascal_store_status_name(st));
      return;
    }
  pd_reply_error(rep, 500, "internal", NULL, "unexpected store status %d", st);
}
