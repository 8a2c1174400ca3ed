/*
 * qfields.c - one query's flat fields from a query string or a Jansson
 * object, and the typed checks every source shares (see qfields.h).
 */
#include "qfields.h"

#include <errno.h>
#include <math.h>
#include <microhttpd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_text.h"
#include "reply.h"

int pd_keys_add(pd_keys *k, const char *name, int is_string)
{
  size_t len = strlen(name);
  int s = pd_keys_slot(k, name, len);
  if (s >= 0 || k->n == PD_KEYS_MAX)
    return s;
  s = (int)k->n++;
  k->name[s] = name;
  k->len[s] = len;
  if (is_string)
    k->strings |= UINT64_C(1) << s;
  unsigned h = pd_keys_hash(name, len);
  while (k->hash[h]) /* never full: at most PD_KEYS_MAX of PD_KEYS_HASH */
    h = (h + 1) & (PD_KEYS_HASH - 1);
  k->hash[h] = (uint8_t)(s + 1);
  return s;
}

void pd_fields_init(pd_fields *fs)
{
  fs->n = 0;
  fs->cap = PD_FIELDS_INLINE;
  fs->f = fs->inline_f;
  fs->keys = NULL;
  fs->present = 0;
}

void pd_fields_clear(pd_fields *fs)
{
  fs->n = 0;
  fs->present = 0;
}

void pd_fields_index(pd_fields *fs, const pd_keys *keys)
{
  fs->keys = keys;
  fs->present = 0;
  for (size_t i = 0; i < fs->n; i++) {
    int s = pd_keys_slot(keys, fs->f[i].key, fs->f[i].klen);
    if (s >= 0) {
      fs->present |= UINT64_C(1) << s;
      fs->at[s] = (uint32_t)i;
    }
  }
}

void pd_fields_free(pd_fields *fs)
{
  if (fs->f != fs->inline_f)
    free(fs->f);
  pd_fields_init(fs);
}

/* Double the room for fields; -1 on OOM. */
static int fields_grow(pd_fields *fs)
{
  size_t cap = 2 * fs->cap;
  pd_field *f = malloc(cap * sizeof *f);
  if (!f)
    return -1;
  memcpy(f, fs->f, fs->n * sizeof *f);
  if (fs->f != fs->inline_f)
    free(fs->f);
  fs->f = f;
  fs->cap = cap;
  return 0;
}

/* pd_fields_has and pd_fields_push, inline in the query string's reader
 * (arg_read, once per argument). */
static inline int fields_has(const pd_fields *fs, const char *key, size_t klen, int *slot)
{
  *slot = fs->keys ? pd_keys_slot(fs->keys, key, klen) : -1;
  if (*slot >= 0)
    return (int)((fs->present >> *slot) & 1);
  for (size_t i = 0; i < fs->n; i++) {
    const pd_field *f = &fs->f[i];
    if (f->klen == klen && (klen == 0 || f->key[0] == key[0]) && memcmp(f->key, key, klen) == 0)
      return 1;
  }
  return 0;
}

static inline void fields_push(pd_fields *fs, const char *key, size_t klen, const pd_value *v,
                               int slot)
{
  if (slot >= 0) {
    fs->present |= UINT64_C(1) << slot;
    fs->at[slot] = (uint32_t)fs->n;
  }
  fs->f[fs->n++] = (pd_field){key, klen, *v};
}

int pd_fields_has(const pd_fields *fs, const char *key, size_t klen, int *slot)
{
  return fields_has(fs, key, klen, slot);
}

void pd_fields_push(pd_fields *fs, const char *key, size_t klen, const pd_value *v, int slot)
{
  fields_push(fs, key, klen, v, slot);
}

/* A field's key (klen bytes, not NUL-terminated) is the name `key`; key is
 * read no further than its own end, whatever the field's bytes are (the
 * readers refuse a NUL in a key today, but nothing here relies on that).
 * Byte by byte, without a library call: keys are a few bytes long, and
 * the first byte decides most comparisons. */
static int key_is(const pd_field *f, const char *key)
{
  for (size_t i = 0; i < f->klen; i++)
    if (key[i] != f->key[i] || key[i] == '\0')
      return 0;
  return key[f->klen] == '\0';
}

pd_field *pd_fields_get(const pd_fields *fs, const char *key)
{
  int s = fs->keys ? pd_keys_slot(fs->keys, key, strlen(key)) : -1;
  if (s >= 0)
    return (fs->present >> s) & 1 ? &fs->f[fs->at[s]] : NULL;
  for (size_t i = 0; i < fs->n; i++)
    if (key_is(&fs->f[i], key))
      return &fs->f[i];
  return NULL;
}

void pd_fields_del(pd_fields *fs, pd_field *f)
{
  int s = fs->keys ? pd_keys_slot(fs->keys, f->key, f->klen) : -1;
  size_t i = (size_t)(f - fs->f);
  memmove(f, f + 1, (fs->n - i - 1) * sizeof *f);
  fs->n--;
  if (s >= 0)
    fs->present &= ~(UINT64_C(1) << s);
  for (uint64_t m = fs->present; m; m &= m - 1) /* the fields after it moved down one */
    if (fs->at[__builtin_ctzll(m)] > i)
      fs->at[__builtin_ctzll(m)]--;
}

void pd_value_from_json(const json_t *j, pd_value *v)
{
  memset(v, 0, sizeof *v);
  if (!j)
    v->kind = PD_V_ABSENT;
  else if (json_is_null(j))
    v->kind = PD_V_NULL;
  else if (json_is_boolean(j))
    v->kind = PD_V_BOOL, v->i = json_is_true(j);
  else if (json_is_integer(j))
    v->kind = PD_V_INT, v->i = json_integer_value(j);
  else if (json_is_real(j))
    v->kind = PD_V_REAL, v->d = json_real_value(j);
  else if (json_is_string(j))
    v->kind = PD_V_STRING, v->s = json_string_value(j), v->len = json_string_length(j);
  else
    v->kind = PD_V_OTHER;
}

int pd_fields_from_json(json_t *obj, pd_fields *out, pd_reply *rep)
{
  const char *key;
  json_t *j;
  json_object_foreach(obj, key, j)
  {
    pd_value v;
    pd_value_from_json(j, &v);
    if (out->n == out->cap && fields_grow(out)) {
      pd_reply_error(rep, 500, "internal", NULL, "out of memory");
      return -1;
    }
    size_t klen = strlen(key);
    pd_fields_push(out, key, klen, &v, out->keys ? pd_keys_slot(out->keys, key, klen) : -1);
  }
  return 0;
}

/* "prefix.key", or "key" without a prefix. */
static void field_name(char *dst, size_t n, const char *prefix, const char *key, size_t klen)
{
  if (prefix && *prefix)
    snprintf(dst, n, "%s.%.*s", prefix, (int)klen, key);
  else
    snprintf(dst, n, "%.*s", (int)klen, key);
}

int pd_fields_strict(const pd_fields *fs, const char *const *allowed, const char *prefix,
                     pd_reply *rep)
{
  for (size_t k = 0; k < fs->n; k++) {
    int ok = 0;
    for (size_t i = 0; allowed[i] && !ok; i++)
      ok = key_is(&fs->f[k], allowed[i]);
    if (!ok) {
      char f[160];
      field_name(f, sizeof f, prefix, fs->f[k].key, fs->f[k].klen);
      pd_reply_error(rep, 400, "unknown_field", f, "unknown field '%s'", f);
      return -1;
    }
  }
  return 0;
}

/* Presence: 0 present, 1 absent (or null) and optional, -1 missing. The
 * field's name is formatted only on errors, keeping batch items fast. */
static int presence(const pd_value *v, const char *key, int required, const char *prefix,
                    pd_reply *rep)
{
  if (v->kind != PD_V_ABSENT && v->kind != PD_V_NULL)
    return 0;
  if (!required)
    return 1;
  char f[160];
  field_name(f, sizeof f, prefix, key, strlen(key));
  pd_reply_error(rep, 400, "missing_field", f, "field '%s' is required", f);
  return -1;
}

/* 400 naming prefix.key: "field 'queries[3].N' must be an integer". */
static void field_fail(pd_reply *rep, const char *code, const char *prefix, const char *key,
                       const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static void field_fail(pd_reply *rep, const char *code, const char *prefix, const char *key,
                       const char *fmt, ...)
{
  char f[160], what[160];
  field_name(f, sizeof f, prefix, key, strlen(key));
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  pd_reply_error(rep, 400, code, f, "field '%s' %s", f, what);
}

/* An integer in [lo, hi], written as one: 4096.0 and 4.096e3 are reals,
 * refused like 4096.5, so that a client's float never passes for a count. */
static int value_i64(const pd_value *v, const char *key, int required, int64_t lo, int64_t hi,
                     int64_t *out, const char *prefix, pd_reply *rep)
{
  int rc = presence(v, key, required, prefix, rep);
  if (rc)
    return rc;
  if (v->kind != PD_V_INT) {
    field_fail(rep, "invalid_type", prefix, key, "must be an integer");
    return -1;
  }
  int64_t x = v->i;
  if (x < lo || x > hi) {
    field_fail(rep, "out_of_range", prefix, key, "must be in [%lld, %lld]", (long long)lo,
               (long long)hi);
    return -1;
  }
  *out = x;
  return 0;
}

int pd_value_u64(const pd_value *v, const char *key, int required, uint64_t lo, uint64_t hi,
                 uint64_t *out, const char *prefix, pd_reply *rep)
{
  int64_t x;
  int64_t ilo = lo > INT64_MAX ? INT64_MAX : (int64_t)lo;
  int64_t ihi = hi > INT64_MAX ? INT64_MAX : (int64_t)hi;
  int rc = value_i64(v, key, required, ilo, ihi, &x, prefix, rep);
  if (rc == 0)
    *out = (uint64_t)x;
  return rc;
}

int pd_value_num(const pd_value *v, const char *key, int required, double lo, double hi,
                 double *out, const char *prefix, pd_reply *rep)
{
  int rc = presence(v, key, required, prefix, rep);
  if (rc)
    return rc;
  if (v->kind != PD_V_INT && v->kind != PD_V_REAL) {
    field_fail(rep, "invalid_type", prefix, key, "must be a number");
    return -1;
  }
  double x = v->kind == PD_V_INT ? (double)v->i : v->d;
  if (!isfinite(x) || x < lo || x > hi) {
    field_fail(rep, "out_of_range", prefix, key, "must be in [%g, %g]", lo, hi);
    return -1;
  }
  *out = x;
  return 0;
}

int pd_value_str(const pd_value *v, const char *key, int required, char *out, size_t maxlen,
                 const char *prefix, pd_reply *rep)
{
  int rc = presence(v, key, required, prefix, rep);
  if (rc)
    return rc;
  if (v->kind != PD_V_STRING) {
    field_fail(rep, "invalid_type", prefix, key, "must be a string");
    return -1;
  }
  int nul = 0; /* Jansson's strings may hold one; the few bytes looked at inline */
  for (size_t i = 0; i < v->len && v->len < maxlen; i++)
    nul |= v->s[i] == '\0';
  if (v->len == 0 || v->len >= maxlen || nul) {
    field_fail(rep, "out_of_range", prefix, key, "must be 1..%zu characters", maxlen - 1);
    return -1;
  }
  memcpy(out, v->s, v->len);
  out[v->len] = '\0';
  return 0;
}

const pd_value pd_value_absent = {PD_V_ABSENT, 0, 0.0, NULL, 0};

static const pd_value *value_of(const pd_fields *fs, const char *key)
{
  const pd_field *f = pd_fields_get(fs, key);
  return f ? &f->v : &pd_value_absent;
}

int pd_field_u64(const pd_fields *fs, const char *key, int required, uint64_t lo, uint64_t hi,
                 uint64_t *out, const char *prefix, pd_reply *rep)
{
  return pd_value_u64(value_of(fs, key), key, required, lo, hi, out, prefix, rep);
}

int pd_field_num(const pd_fields *fs, const char *key, int required, double lo, double hi,
                 double *out, const char *prefix, pd_reply *rep)
{
  return pd_value_num(value_of(fs, key), key, required, lo, hi, out, prefix, rep);
}

int pd_field_str(const pd_fields *fs, const char *key, int required, char *out, size_t maxlen,
                 const char *prefix, pd_reply *rep)
{
  return pd_value_str(value_of(fs, key), key, required, out, maxlen, prefix, rep);
}

/* --- query strings -------------------------------------------------------- */

/* 1 when s[0..n) is a number in JSON's grammar: -?(0|[1-9][0-9]*)(.[0-9]+)?
 * ([eE][+-]?[0-9]+)?. A query string is held to the same rule as a body, so
 * that "0x10", "+4", " 4", "4 " and "4abc" are refused instead of read in
 * part. *is_int is 1 when there is neither a fraction nor an exponent. */
static int json_number_text(const char *s, size_t n, int *is_int)
{
  size_t i = 0;
  if (i < n && s[i] == '-')
    i++;
  if (i >= n || s[i] < '0' || s[i] > '9')
    return 0;
  if (s[i] == '0')
    i++;
  else
    while (i < n && s[i] >= '0' && s[i] <= '9')
      i++;
  *is_int = 1;
  if (i < n && s[i] == '.') {
    *is_int = 0;
    size_t d = ++i;
    while (i < n && s[i] >= '0' && s[i] <= '9')
      i++;
    if (i == d)
      return 0;
  }
  if (i < n && (s[i] == 'e' || s[i] == 'E')) {
    *is_int = 0;
    if (++i < n && (s[i] == '+' || s[i] == '-'))
      i++;
    size_t d = i;
    while (i < n && s[i] >= '0' && s[i] <= '9')
      i++;
    if (i == d)
      return 0;
  }
  return i == n;
}

/* One numeric query parameter (NUL-terminated text): 0, or -1 when it is
 * not a finite number. Integers too large for int64 become reals, which the
 * handlers' range checks then refuse, as they would in a body. */
static int query_number(const char *text, size_t len, pd_value *v)
{
  int is_int = 0;
  if (!json_number_text(text, len, &is_int))
    return -1;
  if (is_int && len <= 18) { /* up to 18 digits (and a sign) fit an int64 */
    int neg = text[0] == '-';
    int64_t x = 0;
    for (size_t i = (size_t)neg; i < len; i++)
      x = 10 * x + (text[i] - '0');
    v->kind = PD_V_INT;
    v->i = neg ? -x : x;
    return 0;
  }
  errno = 0;
  if (is_int) {
    long long ll = strtoll(text, NULL, 10);
    if (!errno) {
      v->kind = PD_V_INT;
      v->i = ll;
      return 0;
    }
    errno = 0;
  }
  double d = strtod(text, NULL);
  if (errno || !isfinite(d))
    return -1;
  v->kind = PD_V_REAL;
  v->d = d;
  return 0;
}

typedef struct args_read {
  const char *const *string_keys;
  pd_fields *out;
  pd_reply *rep;
  int failed;
} args_read;

/* Query arguments are read with their lengths; one holding a NUL byte (%00)
 * never gets here: http.c refuses the request first (reqhead.c). */
static enum MHD_Result arg_read(void *cls, enum MHD_ValueKind kind, const char *key,
                                size_t key_size, const char *value, size_t value_size)
{
  args_read *ar = cls;
  (void)kind;
  if (!value)
    value = "";
  pd_fields *out = ar->out;
  int slot;
  int seen = fields_has(out, key, key_size, &slot);
  int is_string = 0;
  if (out->keys)
    is_string = slot >= 0 && ((out->keys->strings >> slot) & 1);
  else
    for (size_t i = 0; ar->string_keys[i]; i++)
      is_string |= key[0] == ar->string_keys[i][0] && !strcmp(key, ar->string_keys[i]);
  pd_value v = pd_value_absent;
  int bad = is_string ? !pascal_json_utf8_valid(value, value_size)
                      : query_number(value, value_size, &v) != 0;
  if (bad) {
    pd_reply_error(ar->rep, 400, is_string ? "invalid_value" : "invalid_type", key,
                   is_string ? "query parameter '%s' is not valid UTF-8"
                             : "query parameter '%s' must be a decimal number as in JSON",
                   key);
    goto fail;
  }
  if (is_string) {
    v.kind = PD_V_STRING;
    v.s = value;
    v.len = value_size;
  }
  if (seen) {
    pd_reply_error(ar->rep, 400, "duplicate_field", key, "query parameter '%s' given twice", key);
    goto fail;
  }
  /* refuse the request rather than carry a name no answer could quote (a
   * name of the key table is ASCII) */
  if (slot < 0 && !pascal_json_utf8_valid(key, key_size)) {
    pd_reply_error(ar->rep, 400, "invalid_value", NULL,
                   "a query parameter name is not valid UTF-8");
    goto fail;
  }
  if (out->n == out->cap && fields_grow(out)) {
    pd_reply_error(ar->rep, 500, "internal", NULL, "out of memory");
    goto fail;
  }
  fields_push(out, key, key_size, &v, slot);
  return MHD_YES;
fail:
  ar->failed = 1;
  return MHD_NO;
}

int pd_fields_from_args(struct MHD_Connection *conn, const char *const *string_keys, pd_fields *out,
                        pd_reply *rep)
{
  args_read ar = {string_keys, out, rep, 0};
  MHD_get_connection_values_n(conn, MHD_GET_ARGUMENT_KIND, arg_read, &ar);
  return ar.failed ? -1 : 0;
}
