/*
 * jsonin.c - limits and typed access for request JSON (see jsonin.h).
 */
#include "jsonin.h"

#include <errno.h>
#include <math.h>
#include <microhttpd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pascal_codec_jobs.h"
#include "qfields.h"
#include "reply.h"

/* Deepest nesting of arrays/objects, ignoring brackets inside strings. The
 * scan stops as soon as the limit is passed, so hostile input costs O(limit). */
int pd_json_too_deep(const char *buf, size_t len, int depth_max)
{
  pd_json_scan sc = {0, 0};
  int depth = 0;
  for (size_t i = 0; i < len; i++) {
    char c = buf[i];
    if (pd_json_scan_string(&sc, c))
      continue;
    if (c == '{' || c == '[') {
      if (++depth > depth_max)
        return 1;
    } else if (c == '}' || c == ']') {
      depth--;
    }
  }
  return 0;
}

int pd_json_parse(const char *buf, size_t len, int depth_max, json_t **out, pd_reply *rep)
{
  if (len == 0) {
    pd_reply_error(rep, 400, "bad_json", NULL, "request body is empty; a JSON object is required");
    return -1;
  }
  if (pd_json_too_deep(buf, len, depth_max)) {
    pd_reply_error(rep, 400, "bad_json", NULL, "JSON nested deeper than %d levels", depth_max);
    return -1;
  }
  json_error_t jerr;
  json_t *root = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &jerr);
  if (!root) {
    pd_reply_error(rep, 400, "bad_json", NULL, "invalid JSON at line %d column %d: %s", jerr.line,
                   jerr.column, jerr.text);
    return -1;
  }
  if (!json_is_object(root)) {
    json_decref(root);
    pd_reply_error(rep, 400, "bad_json", NULL, "the request body must be a JSON object");
    return -1;
  }
  *out = root;
  return 0;
}

static void field_name(char *dst, size_t n, const char *prefix, const char *key)
{
  if (prefix && *prefix)
    snprintf(dst, n, "%s.%s", prefix, key);
  else
    snprintf(dst, n, "%s", key);
}

int pd_json_strict(json_t *obj, const char *const *allowed, const char *prefix, pd_reply *rep)
{
  const char *key;
  json_t *v;
  json_object_foreach(obj, key, v)
  {
    int ok = 0;
    for (size_t i = 0; allowed[i] && !ok; i++)
      ok = !strcmp(key, allowed[i]);
    if (!ok) {
      char f[160];
      field_name(f, sizeof f, prefix, key);
      pd_reply_error(rep, 400, "unknown_field", f, "unknown field '%s'", f);
      return -1;
    }
  }
  return 0;
}

/* The getters check the member's value as qfields.c checks any source's. */
int pd_get_u64(json_t *obj, const char *key, int required, uint64_t lo, uint64_t hi, uint64_t *out,
               const char *prefix, pd_reply *rep)
{
  pd_value v;
  pd_value_from_json(json_object_get(obj, key), &v);
  return pd_value_u64(&v, key, required, lo, hi, out, prefix, rep);
}

int pd_get_num(json_t *obj, const char *key, int required, double lo, double hi, double *out,
               const char *prefix, pd_reply *rep)
{
  pd_value v;
  pd_value_from_json(json_object_get(obj, key), &v);
  return pd_value_num(&v, key, required, lo, hi, out, prefix, rep);
}

int pd_get_str(json_t *obj, const char *key, int required, char *out, size_t maxlen,
               const char *prefix, pd_reply *rep)
{
  pd_value v;
  pd_value_from_json(json_object_get(obj, key), &v);
  return pd_value_str(&v, key, required, out, maxlen, prefix, rep);
}

int pd_get_name(json_t *obj, const char *key, int required, char *out, size_t maxlen,
                const char *prefix, pd_reply *rep)
{
  int rc = pd_get_str(obj, key, required, out, maxlen, prefix, rep);
  if (rc == 0 && !pascal_codec_name_valid(out)) {
    char f[160];
    field_name(f, sizeof f, prefix, key);
    pd_reply_error(rep, 400, "invalid_name", f,
                   "field '%s' must be 1-63 characters of A-Z a-z "
                   "0-9 . _ -",
                   f);
    return -1;
  }
  return rc;
}

int pd_query_object(struct MHD_Connection *conn, const char *const *string_keys, json_t **out,
                    pd_reply *rep)
{
  pd_fields fs;
  pd_fields_init(&fs);
  json_t *obj = NULL;
  if (pd_fields_from_args(conn, string_keys, &fs, rep))
    goto fail;
  obj = json_object();
  for (size_t i = 0; obj && i < fs.n; i++) {
    const pd_value *v = &fs.f[i].v;
    json_t *j = v->kind == PD_V_INT    ? json_integer(v->i)
                : v->kind == PD_V_REAL ? json_real(v->d)
                                       : json_stringn(v->s, v->len);
    if (json_object_set_new(obj, fs.f[i].key, j)) {
      json_decref(obj);
      obj = NULL;
    }
  }
  if (!obj) {
    pd_reply_error(rep, 500, "internal", NULL, "out of memory");
    goto fail;
  }
  pd_fields_free(&fs);
  *out = obj;
  return 0;
fail:
  pd_fields_free(&fs);
  return -1;
}

int64_t pd_parse_id(const char *s)
{
  if (!s || !*s || *s < '1' || *s > '9')
    return -1;
  errno = 0;
  char *end = NULL;
  long long v = strtoll(s, &end, 10);
  if (errno || *end || v <= 0)
    return -1;
  return v;
}
