/*
 * jsonin.c - limits and typed access for request JSON (see jsonin.h).
 */
#include "jsonin.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <microhttpd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pascal_codec_jobs.h"
#include "reply.h"

/* Deepest nesting of arrays/objects, ignoring brackets inside strings. The
 * scan stops as soon as the limit is passed, so hostile input costs O(limit). */
int pd_json_too_deep(const char *buf, size_t len, int depth_max) {
  pd_json_scan sc = {0, 0};
  int depth = 0;
  for (size_t i = 0; i < len; i++) {
    char c = buf[i];
    if (pd_json_scan_string(&sc, c)) continue;
    if (c == '{' || c == '[') {
      if (++depth > depth_max) return 1;
    } else if (c == '}' || c == ']') {
      depth--;
    }
  }
  return 0;
}

int pd_json_parse(const char *buf, size_t len, int depth_max, json_t **out, pd_reply *rep) {
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

static void field_name(char *dst, size_t n, const char *prefix, const char *key) {
  if (prefix && *prefix) snprintf(dst, n, "%s.%s", prefix, key);
  else snprintf(dst, n, "%s", key);
}

int pd_json_strict(json_t *obj, const char *const *allowed, const char *prefix, pd_reply *rep) {
  const char *key;
  json_t *v;
  json_object_foreach(obj, key, v) {
    int ok = 0;
    for (size_t i = 0; allowed[i] && !ok; i++) ok = !strcmp(key, allowed[i]);
    if (!ok) {
      char f[160];
      field_name(f, sizeof f, prefix, key);
      pd_reply_error(rep, 400, "unknown_field", f, "unknown field '%s'", f);
      return -1;
    }
  }
  return 0;
}

/* Presence check shared by all getters: 0 present, 1 absent-optional, -1
 * error. The field name f is built only when needed (errors), keeping the
 * hot path (batch items) free of formatting. */
static int lookup(json_t *obj, const char *key, int required, json_t **v, pd_reply *rep,
                  const char *prefix) {
  *v = json_object_get(obj, key);
  if (*v && !json_is_null(*v)) return 0;
  if (!required) return 1;
  char f[160];
  field_name(f, sizeof f, prefix, key);
  pd_reply_error(rep, 400, "missing_field", f, "field '%s' is required", f);
  return -1;
}

/* 400 naming prefix.key: "field 'queries[3].N' must be an integer". */
static void field_fail(pd_reply *rep, const char *code, const char *prefix, const char *key,
                       const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static void field_fail(pd_reply *rep, const char *code, const char *prefix, const char *key,
                       const char *fmt, ...) {
  char f[160], what[160];
  field_name(f, sizeof f, prefix, key);
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  pd_reply_error(rep, 400, code, f, "field '%s' %s", f, what);
}

int pd_get_u64(json_t *obj, const char *key, int required, uint64_t lo, uint64_t hi,
               uint64_t *out, const char *prefix, pd_reply *rep) {
  int64_t x;
  int64_t ilo = lo > INT64_MAX ? INT64_MAX : (int64_t)lo;
  int64_t ihi = hi > INT64_MAX ? INT64_MAX : (int64_t)hi;
  int rc = pd_get_i64(obj, key, required, ilo, ihi, &x, prefix, rep);
  if (rc == 0) *out = (uint64_t)x;
  return rc;
}

int pd_get_i64(json_t *obj, const char *key, int required, int64_t lo, int64_t hi,
               int64_t *out, const char *prefix, pd_reply *rep) {
  json_t *v;
  int rc = lookup(obj, key, required, &v, rep, prefix);
  if (rc) return rc;
  json_int_t x;
  if (json_is_integer(v)) {
    x = json_integer_value(v);
  } else if (json_is_real(v) && json_real_value(v) == floor(json_real_value(v)) &&
             fabs(json_real_value(v)) < 9.0e15) {
    x = (json_int_t)json_real_value(v); /* 4096.0 is accepted as 4096 */
  } else {
    field_fail(rep, "invalid_type", prefix, key, "must be an integer");
    return -1;
  }
  if (x < lo || x > hi) {
    field_fail(rep, "out_of_range", prefix, key, "must be in [%lld, %lld]", (long long)lo,
               (long long)hi);
    return -1;
  }
  *out = x;
  return 0;
}

int pd_get_num(json_t *obj, const char *key, int required, double lo, double hi, double *out,
               const char *prefix, pd_reply *rep) {
  json_t *v;
  int rc = lookup(obj, key, required, &v, rep, prefix);
  if (rc) return rc;
  if (!json_is_number(v)) {
    field_fail(rep, "invalid_type", prefix, key, "must be a number");
    return -1;
  }
  double x = json_number_value(v);
  if (!isfinite(x) || x < lo || x > hi) {
    field_fail(rep, "out_of_range", prefix, key, "must be in [%g, %g]", lo, hi);
    return -1;
  }
  *out = x;
  return 0;
}

int pd_get_str(json_t *obj, const char *key, int required, char *out, size_t maxlen,
               const char *prefix, pd_reply *rep) {
  json_t *v;
  int rc = lookup(obj, key, required, &v, rep, prefix);
  if (rc) return rc;
  if (!json_is_string(v)) {
    field_fail(rep, "invalid_type", prefix, key, "must be a string");
    return -1;
  }
  size_t n = json_string_length(v);
  if (n == 0 || n >= maxlen || strlen(json_string_value(v)) != n) {
    field_fail(rep, "out_of_range", prefix, key, "must be 1..%zu characters", maxlen - 1);
    return -1;
  }
  memcpy(out, json_string_value(v), n + 1);
  return 0;
}

int pd_name_valid(const char *s) { return pascal_codec_name_valid(s); }

int pd_get_name(json_t *obj, const char *key, int required, char *out, size_t maxlen,
                const char *prefix, pd_reply *rep) {
  int rc = pd_get_str(obj, key, required, out, maxlen, prefix, rep);
  if (rc == 0 && !pd_name_valid(out)) {
    field_fail(rep, "invalid_name", prefix, key, "must be 1-63 characters of A-Z a-z 0-9 . _ -");
    return -1;
  }
  return rc;
}

typedef struct query_build {
  const char *const *string_keys;
  json_t *obj;
  pd_reply *rep;
  int failed;
} query_build;

/* 1 when s[0..n) is a number in JSON's grammar: -?(0|[1-9][0-9]*)(.[0-9]+)?
 * ([eE][+-]?[0-9]+)?. A query string is held to the same rule as a body, so
 * that "0x10", "+4", " 4", "4 " and "4abc" are refused instead of read in
 * part. *is_int is 1 when there is neither a fraction nor an exponent. */
static int json_number_text(const char *s, size_t n, int *is_int) {
  size_t i = 0;
  if (i < n && s[i] == '-') i++;
  if (i >= n || s[i] < '0' || s[i] > '9') return 0;
  if (s[i] == '0') i++;
  else
    while (i < n && s[i] >= '0' && s[i] <= '9') i++;
  *is_int = 1;
  if (i < n && s[i] == '.') {
    *is_int = 0;
    size_t d = ++i;
    while (i < n && s[i] >= '0' && s[i] <= '9') i++;
    if (i == d) return 0;
  }
  if (i < n && (s[i] == 'e' || s[i] == 'E')) {
    *is_int = 0;
    if (++i < n && (s[i] == '+' || s[i] == '-')) i++;
    size_t d = i;
    while (i < n && s[i] >= '0' && s[i] <= '9') i++;
    if (i == d) return 0;
  }
  return i == n;
}

/* A JSON value for one numeric query parameter, or NULL when the text is not
 * a finite number. Integers too large for int64 become reals, which the
 * handlers' range checks then refuse, as they would in a body. */
static json_t *query_number(const char *value, size_t len) {
  int is_int = 0;
  if (!json_number_text(value, len, &is_int)) return NULL;
  char *end = NULL;
  errno = 0;
  if (is_int) {
    long long ll = strtoll(value, &end, 10);
    if (!errno) return json_integer(ll);
    errno = 0;
  }
  double d = strtod(value, &end);
  return errno || !isfinite(d) ? NULL : json_real(d);
}

/* Query arguments are read with their lengths; one holding a NUL byte (%00)
 * never gets here: http.c refuses the request first (reqhead.c). */
static enum MHD_Result query_arg(void *cls, enum MHD_ValueKind kind, const char *key,
                                 size_t key_size, const char *value, size_t value_size) {
  query_build *qb = cls;
  (void)kind;
  (void)key_size;
  if (!value) value = "";
  int is_string = 0;
  for (size_t i = 0; qb->string_keys[i]; i++) is_string |= !strcmp(key, qb->string_keys[i]);
  json_t *v = is_string ? json_string(value) : query_number(value, value_size);
  if (!v) {
    pd_reply_error(qb->rep, 400, is_string ? "invalid_value" : "invalid_type", key,
                   is_string ? "query parameter '%s' is not valid UTF-8"
                             : "query parameter '%s' must be a decimal number as in JSON",
                   key);
    qb->failed = 1;
    return MHD_NO;
  }
  if (json_object_get(qb->obj, key)) {
    json_decref(v);
    pd_reply_error(qb->rep, 400, "duplicate_field", key, "query parameter '%s' given twice", key);
    qb->failed = 1;
    return MHD_NO;
  }
  /* Jansson refuses a key that is not UTF-8 (and consumes v): refuse the
   * request rather than drop the parameter unseen. */
  if (json_object_set_new(qb->obj, key, v) != 0) {
    pd_reply_error(qb->rep, 400, "invalid_value", NULL,
                   "a query parameter name is not valid UTF-8");
    qb->failed = 1;
    return MHD_NO;
  }
  return MHD_YES;
}

int pd_query_object(struct MHD_Connection *conn, const char *const *string_keys, json_t **out,
                    pd_reply *rep) {
  query_build qb = {string_keys, json_object(), rep, 0};
  if (!qb.obj) {
    pd_reply_error(rep, 500, "internal", NULL, "out of memory");
    return -1;
  }
  MHD_get_connection_values_n(conn, MHD_GET_ARGUMENT_KIND, query_arg, &qb);
  if (qb.failed) {
    json_decref(qb.obj);
    return -1;
  }
  *out = qb.obj;
  return 0;
}

int64_t pd_parse_id(const char *s) {
  if (!s || !*s || *s < '1' || *s > '9') return -1;
  errno = 0;
  char *end = NULL;
  long long v = strtoll(s, &end, 10);
  if (errno || *end || v <= 0) return -1;
  return v;
}
