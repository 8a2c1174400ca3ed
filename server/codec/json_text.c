/*
 * json_text.c - the streaming JSON text writer (json_text.h): a growable
 * buffer, comma bookkeeping, string escaping with UTF-8 validation, and
 * numbers written without printf (reals through json_real.c).
 */
#include "json_text.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pascal/grow.h"

/* An empty writer with no text: what a memset to 0 would make of every
 * field that is read (the error's field as "", the memo's slots empty),
 * without clearing the slots' bytes and the field's tail. */
static void empty(pascal_jtext *w)
{
  w->text = NULL;
  w->len = w->cap = 0;
  w->comma = 0;
  w->borrowed = 0;
  w->status = PASCAL_OK;
  w->field[0] = '\0';
  w->key = NULL;
  w->key_len = 0;
  memset(w->memo_len, 0, sizeof w->memo_len);
}

void pascal_jtext_init(pascal_jtext *w, size_t reserve)
{
  empty(w);
  if (reserve) {
    w->text = malloc(reserve);
    if (w->text) {
      w->cap = reserve;
      w->text[0] = '\0';
      pascal_prefault(w->text, reserve); /* the room reserved is to be written */
    } else {
      w->status = PASCAL_ENOMEM;
    }
  }
}

void pascal_jtext_init_in(pascal_jtext *w, char *buf, size_t cap)
{
  empty(w);
  w->text = buf;
  w->cap = cap;
  w->borrowed = 1;
  buf[0] = '\0';
}

void pascal_jtext_free(pascal_jtext *w)
{
  if (!w->borrowed)
    free(w->text);
  empty(w);
}

pascal_status pascal_jtext_status(const pascal_jtext *w, pascal_error *err)
{
  if (w->status == PASCAL_OK)
    return PASCAL_OK;
  if (w->status == PASCAL_ENOMEM)
    return pascal_error_set(err, PASCAL_ENOMEM, w->field, "out of memory writing JSON");
  if (w->status == PASCAL_EFORMAT)
    return pascal_error_set(err, PASCAL_EFORMAT, w->field, "'%s' is not valid UTF-8", w->field);
  return pascal_error_set(err, w->status, w->field, "'%s' is not a finite number", w->field);
}

char *pascal_jtext_take(pascal_jtext *w, size_t *len)
{
  char *t = w->status == PASCAL_OK && w->len ? w->text : NULL;
  if (t) {
    *len = w->len;
    w->text = NULL;
  }
  pascal_jtext_free(w);
  return t;
}

static void fail(pascal_jtext *w, pascal_status st, const char *key)
{
  if (w->status != PASCAL_OK)
    return;
  w->status = st;
  snprintf(w->field, sizeof w->field, "%s", key ? key : "");
}

/* A value's failure names its key: `key`, else the one pascal_jtext_key
 * gave ("key": without its quotes and colon), else "" (an array element). */
static void fail_value(pascal_jtext *w, pascal_status st, const char *key)
{
  if (key || !w->key)
    fail(w, st, key);
  else if (w->status == PASCAL_OK) {
    w->status = st;
    snprintf(w->field, sizeof w->field, "%.*s", (int)(w->key_len - 3), w->key + 1);
  }
}

/* Room for `more` bytes plus the NUL; 0 on success. The check is inline,
 * the growth out of line. */
static int grow(pascal_jtext *w, size_t more) __attribute__((noinline));
static inline int reserve(pascal_jtext *w, size_t more)
{
  if (w->status == PASCAL_OK && w->len + more < w->cap)
    return 0;
  return grow(w, more);
}

static int grow(pascal_jtext *w, size_t more)
{
  if (w->status != PASCAL_OK)
    return -1;
  if (w->len + more < w->cap)
    return 0;
  if (more > SIZE_MAX - 1 - w->len) {
    fail(w, PASCAL_ENOMEM, NULL);
    return -1;
  }
  if (w->borrowed) { /* the caller's buffer is full: on to a copy of our own */
    void *own = NULL;
    size_t cap = 0;
    size_t need = w->len + more + 1;
    if (pascal_grow(&own, &cap, need < 2 * w->cap ? 2 * w->cap : need, 1)) {
      fail(w, PASCAL_ENOMEM, NULL);
      return -1;
    }
    memcpy(own, w->text, w->len + 1);
    w->text = own;
    w->cap = cap;
    w->borrowed = 0;
    return 0;
  }
  size_t was = w->cap;
  if (pascal_grow((void **)&w->text, &w->cap, w->len + more + 1, 1)) {
    fail(w, PASCAL_ENOMEM, NULL);
    return -1;
  }
  pascal_prefault(w->text + was, w->cap - was); /* the new room is written next */
  return 0;
}

/* Caller reserved the room. */
static void put(pascal_jtext *w, const char *s, size_t n)
{
  memcpy(w->text + w->len, s, n);
  w->len += n;
  w->text[w->len] = '\0';
}

/* Length of the valid UTF-8 sequence at s (1..4), 0 when invalid
 * (overlong forms, surrogates and code points above U+10FFFF included). */
static size_t utf8_len(const unsigned char *s)
{
  unsigned c = s[0];
  size_t n;
  unsigned cp;
  if (c < 0x80)
    return 1;
  if (c >= 0xc2 && c <= 0xdf) {
    n = 2;
    cp = c & 0x1f;
  } else if (c >= 0xe0 && c <= 0xef) {
    n = 3;
    cp = c & 0x0f;
  } else if (c >= 0xf0 && c <= 0xf4) {
    n = 4;
    cp = c & 0x07;
  } else {
    return 0;
  }
  for (size_t i = 1; i < n; i++) {
    if ((s[i] & 0xc0) != 0x80)
      return 0;
    cp = (cp << 6) | (s[i] & 0x3f);
  }
  if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
      (cp >= 0xd800 && cp <= 0xdfff))
    return 0;
  return n;
}

int pascal_json_utf8_valid(const char *s, size_t n)
{
  const unsigned char *u = (const unsigned char *)s;
  for (size_t i = 0; i < n;) {
    if (u[i] < 0x80) { /* ASCII, most of every text: no call */
      i++;
      continue;
    }
    size_t k = utf8_len(u + i);
    if (k == 0 || k > n - i)
      return 0;
    i += k;
  }
  return 1;
}

/* Bytes that need no escape and no UTF-8 check: printable ASCII but '"'
 * and '\\' (1 in this table). Runs of them (keys, names, most strings) are
 * copied at once. */
#define PLAIN16(x) x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x
/* clang-format off */
static const unsigned char plain_byte[256] = {
    PLAIN16(0), PLAIN16(0),                         /* control characters */
    1, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, /* ' ' to '/': '"' escaped */
    PLAIN16(1), PLAIN16(1),                         /* '0' to 'O' */
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1, /* 'P' to '_': '\\' escaped */
    PLAIN16(1), PLAIN16(1),                         /* '`' to DEL */
    /* 0x80 and above: UTF-8, checked */
};
/* clang-format on */
#undef PLAIN16

static size_t plain_run(const unsigned char *p, size_t n)
{
  size_t i = 0;
  while (i < n && plain_byte[p[i]])
    i++;
  return i;
}

/* "s" with '"', '\\' and control characters escaped; `key` names the
 * member in an error. */
static void put_quoted(pascal_jtext *w, const char *s, const char *key)
{
  static const char hex[] = "0123456789abcdef";
  const unsigned char *p = (const unsigned char *)s;
  size_t n = strlen(s);
  if (reserve(w, n + 2)) /* enough unless something needs an escape */
    return;
  w->text[w->len++] = '"';
  for (size_t i = 0; i < n;) {
    size_t run = plain_run(p + i, n - i);
    memcpy(w->text + w->len, p + i, run);
    w->len += run;
    i += run;
    if (i == n)
      break;
    unsigned c = p[i];
    size_t u = c < 0x80 ? 1 : utf8_len(p + i);
    if (u == 0) {
      fail_value(w, PASCAL_EFORMAT, key);
      return;
    }
    if (c >= 0x80) { /* a valid multi-byte sequence, copied as is */
      memcpy(w->text + w->len, p + i, u);
      w->len += u;
    } else { /* '"', '\\' or a control character: up to 6 bytes for 1 */
      char esc = c == '"'    ? '"'
                 : c == '\\' ? '\\'
                 : c == '\n' ? 'n'
                 : c == '\r' ? 'r'
                 : c == '\t' ? 't'
                 : c == '\b' ? 'b'
                 : c == '\f' ? 'f'
                             : 0;
      if (reserve(w, 6 + (n - i) + 1))
        return;
      w->text[w->len++] = '\\';
      if (esc) {
        w->text[w->len++] = esc;
      } else {
        memcpy(w->text + w->len, "u00", 3);
        w->len += 3;
        w->text[w->len++] = hex[c >> 4];
        w->text[w->len++] = hex[c & 15];
      }
    }
    i += u;
  }
  w->text[w->len++] = '"';
  w->text[w->len] = '\0';
}

/* The plain bytes at the start of s, at most max of them, copied to t (the
 * NUL is not plain: it ends the copy); returns how many. */
static size_t copy_plain(char *t, const char *s, size_t max)
{
  size_t i = 0;
  while (i < max && plain_byte[(unsigned char)s[i]]) {
    t[i] = s[i];
    i++;
  }
  return i;
}

/* Longest key (or string) copied in one pass (longer ones take the general
 * path below). */
#define KEY_FAST_MAX 48

/* The ',' and "key": before a value of up to value_len bytes; 0 when the
 * value may follow. A key that needs no escape (every key the codecs
 * write) is copied in one pass that also finds its end, when the text has
 * room for the longest such key; otherwise it is measured, checked and
 * copied in turn. */
static int begin_value_slow(pascal_jtext *w, const char *key, size_t value_len);

/* The common case inline in every writer (no key: a value after
 * pascal_jtext_key, or an array element, with room for it); the others
 * in begin_value_slow. */
static inline int begin_value(pascal_jtext *w, const char *key, size_t value_len)
{
  if (!key && w->status == PASCAL_OK && w->cap - w->len > 1 + value_len) {
    w->text[w->len] = ',';
    w->len += (size_t)w->comma;
    w->comma = 1;
    return 0;
  }
  return begin_value_slow(w, key, value_len);
}

static int begin_value_slow(pascal_jtext *w, const char *key, size_t value_len)
{
  if (key && w->status == PASCAL_OK && w->cap - w->len > 1 + KEY_FAST_MAX + 3 + value_len) {
    char *t = w->text + w->len;
    size_t o = w->comma;
    t[0] = ',';
    t[o++] = '"';
    size_t i = copy_plain(t + o, key, KEY_FAST_MAX);
    if (key[i] == '\0') {
      o += i;
      t[o++] = '"';
      t[o++] = ':';
      w->len += o;
      w->comma = 1;
      return 0;
    } /* else: a key with an escape, or a long one; nothing was committed */
  }
  size_t klen = key ? strlen(key) : 0;
  if (reserve(w, 1 + klen + 3 + value_len))
    return -1;
  if (w->comma)
    w->text[w->len++] = ',';
  if (key && plain_run((const unsigned char *)key, klen) == klen) {
    char *t = w->text + w->len;
    t[0] = '"';
    memcpy(t + 1, key, klen);
    t[klen + 1] = '"';
    t[klen + 2] = ':';
    w->len += klen + 3;
  } else if (key) {
    put_quoted(w, key, key);
    if (reserve(w, 1 + value_len))
      return -1;
    w->text[w->len++] = ':';
  }
  w->comma = 1;
  return 0;
}

void pascal_jtext_key_slow(pascal_jtext *w, const char *text, size_t len)
{
  if (reserve(w, 1 + len))
    return;
  if (w->comma)
    w->text[w->len++] = ',';
  put(w, text, len);
  w->comma = 0;
  w->key = text;
  w->key_len = len;
}

static void put_value(pascal_jtext *w, const char *key, const char *text, size_t n)
{
  if (begin_value(w, key, n) == 0)
    put(w, text, n);
}

/* A key from pascal_jtext_key names its value in an error until the next
 * key, or until a container opens or closes (inside, or after it, values
 * have keys of their own, or none). */
static void container_open(pascal_jtext *w, const char *key, const char *bracket)
{
  put_value(w, key, bracket, 1);
  w->comma = 0;
  w->key = NULL;
}

void pascal_jtext_close_slow(pascal_jtext *w, char bracket)
{
  if (reserve(w, 1) == 0)
    put(w, &bracket, 1);
  w->comma = 1;
  w->key = NULL;
}

void pascal_jtext_open_key_slow(pascal_jtext *w, const char *text, size_t len)
{
  pascal_jtext_key_slow(w, text, len - 1);
  container_open(w, NULL, text + len - 1);
}

void pascal_jtext_open_slow(pascal_jtext *w, const char *key, char bracket)
{
  container_open(w, key, &bracket);
}

/* A short string without escapes (names, rules, units) is copied in one
 * pass, as begin_value copies keys; others are measured, checked and
 * escaped by put_quoted. */
void pascal_jtext_string(pascal_jtext *w, const char *key, const char *s)
{
  if (begin_value(w, key, KEY_FAST_MAX + 2) != 0)
    return;
  char *t = w->text + w->len;
  size_t i = copy_plain(t + 1, s, KEY_FAST_MAX);
  if (s[i] != '\0') {
    put_quoted(w, s, key);
    return;
  }
  t[0] = '"';
  t[i + 1] = '"';
  t[i + 2] = '\0';
  w->len += i + 2;
}

const uint64_t pascal_json_pow10[20] = {1u,
                                        10u,
                                        100u,
                                        1000u,
                                        10000u,
                                        100000u,
                                        1000000u,
                                        10000000u,
                                        100000000u,
                                        1000000000u,
                                        10000000000u,
                                        100000000000u,
                                        1000000000000u,
                                        10000000000000u,
                                        100000000000000u,
                                        1000000000000000u,
                                        10000000000000000u,
                                        100000000000000000u,
                                        1000000000000000000u,
                                        10000000000000000000u};

const char pascal_json_digit_pairs[201] =
    "00010203040506070809101112131415161718192021222324252627282930313233"
    "34353637383940414243444546474849505152535455565758596061626364656667"
    "6869707172737475767778798081828384858687888990919293949596979899";

/* -m when `negative`, else m, in decimal without printf, written in place
 * after its key. */
static void put_decimal(pascal_jtext *w, const char *key, uint64_t m, int negative)
{
  if (begin_value(w, key, 21) != 0) /* '-' and 20 digits */
    return;
  char *t = w->text + w->len;
  t[0] = '-';
  size_t n = (size_t)negative;
  n += pascal_json_uint_digits(m, t + n);
  t[n] = '\0';
  w->len += n;
}

void pascal_jtext_uint(pascal_jtext *w, const char *key, uint64_t v)
{
  put_decimal(w, key, v, 0);
}

void pascal_jtext_int(pascal_jtext *w, const char *key, int64_t v)
{
  put_decimal(w, key, v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v,
              v < 0); /* |INT64_MIN| fits */
}

void pascal_jtext_bool(pascal_jtext *w, const char *key, int v)
{
  put_value(w, key, v ? "true" : "false", v ? 4 : 5);
}

void pascal_jtext_null(pascal_jtext *w, const char *key)
{
  put_value(w, key, "null", 4);
}

/* The number is formatted in place, after its key. */
void pascal_jtext_real(pascal_jtext *w, const char *key, double v)
{
  if (!isfinite(v)) {
    fail_value(w, PASCAL_ERANGE, key);
    return;
  }
  if (begin_value(w, key, PASCAL_JSON_REAL_MAX) != 0)
    return;
  char *t = w->text + w->len; /* room for PASCAL_JSON_REAL_MAX bytes */
  uint64_t bits;
  memcpy(&bits, &v, sizeof bits);
  _Static_assert(PASCAL_JTEXT_MEMO == 16, "the slot is the hash's top 4 bits");
  _Static_assert(PASCAL_JTEXT_MEMO_TEXT < PASCAL_JSON_REAL_MAX,
                 "a slot's text fits the room reserved");
  size_t slot = (size_t)((bits * UINT64_C(0x9e3779b97f4a7c15)) >> 60);
  pascal_jtext_memo *m = &w->memo[slot];
  size_t kept = w->memo_len[slot];
  if (kept && m->bits == bits) {
    memcpy(t, m->text, PASCAL_JTEXT_MEMO_TEXT);
    t[kept] = '\0';
    w->len += kept;
    return;
  }
  size_t n = pascal_json_real_format(v, t); /* NUL-terminated */
  if (n <= PASCAL_JTEXT_MEMO_TEXT) {
    m->bits = bits;
    w->memo_len[slot] = (unsigned char)n;
    memcpy(m->text, t, PASCAL_JTEXT_MEMO_TEXT);
  }
  w->len += n;
}

void pascal_jtext_real_or_null(pascal_jtext *w, const char *key, double v)
{
  if (isnan(v))
    pascal_jtext_null(w, key);
  else
    pascal_jtext_real(w, key, v);
}

void pascal_jtext_raw(pascal_jtext *w, const char *key, const char *json, size_t len)
{
  put_value(w, key, json, len);
}

void pascal_jtext_json(pascal_jtext *w, const char *key, const json_t *v)
{
  const char *k;
  json_t *m;
  size_t i;
  switch (json_typeof(v)) {
  case JSON_OBJECT:
    pascal_jtext_object_begin(w, key);
    json_object_foreach((json_t *)v, k, m) pascal_jtext_json(w, k, m);
    pascal_jtext_object_end(w);
    break;
  case JSON_ARRAY:
    pascal_jtext_array_begin(w, key);
    json_array_foreach(v, i, m) pascal_jtext_json(w, NULL, m);
    pascal_jtext_array_end(w);
    break;
  case JSON_STRING: pascal_jtext_string(w, key, json_string_value(v)); break;
  case JSON_INTEGER: pascal_jtext_int(w, key, (int64_t)json_integer_value(v)); break;
  case JSON_REAL: pascal_jtext_real(w, key, json_real_value(v)); break;
  case JSON_TRUE:
  case JSON_FALSE: pascal_jtext_bool(w, key, json_is_true(v)); break;
  default: pascal_jtext_null(w, key); break;
  }
}

void pascal_jtext_newline(pascal_jtext *w)
{
  if (reserve(w, 1) == 0)
    put(w, "\n", 1);
}

pascal_jtext_mark pascal_jtext_mark_get(const pascal_jtext *w)
{
  pascal_jtext_mark m = {w->len, w->comma};
  return m;
}

void pascal_jtext_rewind(pascal_jtext *w, pascal_jtext_mark mark)
{
  if (w->status == PASCAL_ENOMEM || mark.len > w->len)
    return;
  w->status = PASCAL_OK;
  w->field[0] = '\0';
  w->len = mark.len;
  w->comma = mark.comma;
  w->key = NULL;
  if (w->text)
    w->text[w->len] = '\0';
}
