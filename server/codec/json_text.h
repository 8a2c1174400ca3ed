/*
 * json_text.h - a streaming JSON text writer, the codec's fast path for
 * documents written at high rates (predictions answered by pascald, batches
 * of 10,000 of them): compact text, members in the order written, no tree
 * and no allocation per value. It keeps the rules of the Jansson path
 * (pascal_codec.h): never NaN or Inf (a non-finite real is PASCAL_ERANGE
 * naming its key, or null through pascal_jtext_real_or_null), strings
 * checked as UTF-8 and escaped, reals always written as reals ("48.0",
 * "1e-05") in a short form that reads back to the same double
 * (pascal_json_real_format). Keys known when the program is compiled are
 * given as string literals rendered then ("K":, PASCAL_JTEXT_KEY), and a
 * real written lately is copied rather than formatted again (the memo).
 *
 * Errors are sticky: the first failing write records its status and key and
 * every later write is ignored, so an encoder writes straight through and
 * asks pascal_jtext_status() once at the end.
 */
#ifndef PASCAL_CODEC_JSON_TEXT_H
#define PASCAL_CODEC_JSON_TEXT_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "pascal/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Reals formatted lately, by their bits: an answer repeats some (a
 * reference's curve value at every level of its explanation, a family's
 * validation errors, the interval's level in every item of a batch), and a
 * repeat is copied instead of formatted again (about 20 instructions
 * against 400). Direct-mapped; a slot's length (memo_len, apart, so that
 * a writer empties its memo with two stores) is 0 while it is empty. */
#define PASCAL_JTEXT_MEMO      16
#define PASCAL_JTEXT_MEMO_TEXT 23 /* longer texts are not kept */
typedef struct pascal_jtext_memo {
  uint64_t bits;
  char text[PASCAL_JTEXT_MEMO_TEXT];
} pascal_jtext_memo;

/* Invariant: text[0..len) is the document so far, NUL-terminated once
 * anything was written; `comma` is 1 when the innermost open container (or
 * the top level) already holds a value, so the next value needs a ','. */
typedef struct pascal_jtext {
  char *text; /* malloc'd and owned, or the caller's (borrowed) */
  size_t len, cap;
  int comma;
  int borrowed;                       /* 1 while text is the buffer given to pascal_jtext_init_in */
  pascal_status status;               /* first failure, PASCAL_OK while none */
  char field[PASCAL_ERROR_FIELD_MAX]; /* its key ("" for array elements) */
  /* the "key": last given by pascal_jtext_key, until the next key or a
   * container opens or closes (an error in its value names it); or NULL */
  const char *key;
  size_t key_len;
  unsigned char memo_len[PASCAL_JTEXT_MEMO];
  pascal_jtext_memo memo[PASCAL_JTEXT_MEMO];
} pascal_jtext;

/* Longest text pascal_json_real_format writes, NUL included. */
#define PASCAL_JSON_REAL_MAX 32

/* Empty writer; `reserve` bytes are allocated up front (0: on first write). */
void pascal_jtext_init(pascal_jtext *w, size_t reserve);
/* Empty writer on the caller's buffer `buf` of `cap` bytes (cap >= 1),
 * which it never frees: a document that outgrows it moves to a malloc'd
 * copy. pascal_jtext_take then hands over `buf` itself while the document
 * fits (the caller tells by the pointer), else the malloc'd text. A server
 * answering from a buffer kept per connection saves an allocation and a
 * free per answer. */
void pascal_jtext_init_in(pascal_jtext *w, char *buf, size_t cap);
void pascal_jtext_free(pascal_jtext *w);
/* PASCAL_OK, or the first failure (copied into err with its field). */
pascal_status pascal_jtext_status(const pascal_jtext *w, pascal_error *err);
/* Hand the text over (malloc'd, NUL-terminated, the caller frees) and leave
 * the writer empty. NULL when the writer failed or holds nothing. */
char *pascal_jtext_take(pascal_jtext *w, size_t *len);

/* `key` names the member inside an object; NULL for an array element or a
 * top-level value. Keys are written escaped like strings. */
void pascal_jtext_open_slow(pascal_jtext *w, const char *key, char bracket);
/* '{' or '[', after `key` (copied as a string is) or, key NULL, as an array
 * element or after a key given apart (inline when there is room). */
static inline void pascal_jtext_open_value(pascal_jtext *w, const char *key, char bracket)
{
  if (!key && w->status == PASCAL_OK && w->cap - w->len > 2) {
    char *t = w->text + w->len;
    t[0] = ',';
    t[w->comma] = bracket;
    t[w->comma + 1] = '\0';
    w->len += (size_t)w->comma + 1;
    w->comma = 0;
    w->key = NULL;
    return;
  }
  pascal_jtext_open_slow(w, key, bracket);
}
static inline void pascal_jtext_object_begin(pascal_jtext *w, const char *key)
{
  pascal_jtext_open_value(w, key, '{');
}
static inline void pascal_jtext_array_begin(pascal_jtext *w, const char *key)
{
  pascal_jtext_open_value(w, key, '[');
}
/* '}' or ']' (inline when there is room, as most are). */
void pascal_jtext_close_slow(pascal_jtext *w, char bracket);
static inline void pascal_jtext_close(pascal_jtext *w, char bracket)
{
  if (w->status == PASCAL_OK && w->cap - w->len > 1) {
    w->text[w->len++] = bracket;
    w->text[w->len] = '\0';
    w->comma = 1;
    w->key = NULL;
    return;
  }
  pascal_jtext_close_slow(w, bracket);
}
static inline void pascal_jtext_object_end(pascal_jtext *w)
{
  pascal_jtext_close(w, '}');
}
static inline void pascal_jtext_array_end(pascal_jtext *w)
{
  pascal_jtext_close(w, ']');
}
/* Invalid UTF-8 in `s` is PASCAL_EFORMAT naming the key. */
void pascal_jtext_string(pascal_jtext *w, const char *key, const char *s);
void pascal_jtext_uint(pascal_jtext *w, const char *key, uint64_t v);
void pascal_jtext_int(pascal_jtext *w, const char *key, int64_t v);
void pascal_jtext_bool(pascal_jtext *w, const char *key, int v);
void pascal_jtext_null(pascal_jtext *w, const char *key);
/* A finite real; NaN or Inf is PASCAL_ERANGE naming the key. */
void pascal_jtext_real(pascal_jtext *w, const char *key, double v);
/* NaN (the core's "not applicable") is written as null; Inf is refused. */
void pascal_jtext_real_or_null(pascal_jtext *w, const char *key, double v);
/* `len` bytes of JSON text written as one value (trusted, not checked): a
 * value serialised elsewhere, or a run of comma-separated array elements. */
void pascal_jtext_raw(pascal_jtext *w, const char *key, const char *json, size_t len);
/* A Jansson value (any kind, nested), members in the tree's order; reals
 * as pascal_jtext_real. For small trees built elsewhere (error bodies). */
void pascal_jtext_json(pascal_jtext *w, const char *key, const json_t *v);
/* A member's key given apart from its value, for keys known when the
 * program is compiled: PASCAL_JTEXT_KEY(w, "K") takes a string literal
 * that needs no escape (every key the codecs write) and passes its text
 * with quotes and colon, "K":, and its length, both fixed at compile
 * time, so that the key is copied without being measured or checked. The
 * value follows through any writer above with key NULL (an error in it
 * names this key). PASCAL_JTEXT_REAL(w, "K", v) and its kin below are the
 * two calls in one. */
void pascal_jtext_key_slow(pascal_jtext *w, const char *text, size_t len);
/* Copy a fixed text after the comma a member needs (the caller checked the
 * room): the fast path of pascal_jtext_key and pascal_jtext_open. */
static inline void pascal_jtext_put_fixed(pascal_jtext *w, const char *text, size_t len)
{
  char *t = w->text + w->len;
  t[0] = ',';
  memcpy(t + w->comma, text, len);
  w->len += (size_t)w->comma + len;
  w->text[w->len] = '\0';
  w->comma = 0;
}
static inline void pascal_jtext_key(pascal_jtext *w, const char *text, size_t len)
{
  if (w->status != PASCAL_OK || w->cap - w->len <= len + 2) {
    pascal_jtext_key_slow(w, text, len);
    return;
  }
  pascal_jtext_put_fixed(w, text, len);
  w->key = text;
  w->key_len = len;
}
/* A key and the bracket that opens its value, "k":{ or "k":[, copied as
 * one text (PASCAL_JTEXT_OBJECT, PASCAL_JTEXT_ARRAY). */
void pascal_jtext_open_key_slow(pascal_jtext *w, const char *text, size_t len);
static inline void pascal_jtext_open(pascal_jtext *w, const char *text, size_t len)
{
  if (w->status != PASCAL_OK || w->cap - w->len <= len + 1) {
    pascal_jtext_open_key_slow(w, text, len);
    return;
  }
  pascal_jtext_put_fixed(w, text, len);
  w->key = NULL;
}
/* A value after a key given apart: an integer (as pascal_jtext_uint; one
 * digit inline), or a text known when compiled that needs no escape,
 * written as it is (PASCAL_JTEXT_LITERAL(w, "exact") writes "exact" with
 * its quotes). */
void pascal_jtext_uint(pascal_jtext *w, const char *key, uint64_t v);
void pascal_jtext_raw(pascal_jtext *w, const char *key, const char *json, size_t len);
static inline void pascal_jtext_uint_value(pascal_jtext *w, uint64_t v)
{
  if (v < 10 && w->status == PASCAL_OK && w->cap - w->len > 3) {
    char *t = w->text + w->len;
    t[0] = ',';
    t[w->comma] = (char)('0' + v);
    t[w->comma + 1] = '\0';
    w->len += (size_t)w->comma + 1;
    w->comma = 1;
    return;
  }
  pascal_jtext_uint(w, NULL, v);
}
static inline void pascal_jtext_literal(pascal_jtext *w, const char *text, size_t len)
{
  if (w->status == PASCAL_OK && w->cap - w->len > len + 1) {
    char *t = w->text + w->len;
    t[0] = ',';
    memcpy(t + w->comma, text, len);
    w->len += (size_t)w->comma + len;
    w->text[w->len] = '\0';
    w->comma = 1;
    return;
  }
  pascal_jtext_raw(w, NULL, text, len);
}
#define PASCAL_JTEXT_LITERAL(w, s) pascal_jtext_literal((w), "\"" s "\"", sizeof(s) + 1)
/* A real after a key given apart, NaN written as null (inline). */
void pascal_jtext_real(pascal_jtext *w, const char *key, double v);
static inline void pascal_jtext_real_or_null_value(pascal_jtext *w, double v)
{
  if (__builtin_isnan(v))
    pascal_jtext_literal(w, "null", 4);
  else
    pascal_jtext_real(w, NULL, v);
}
#define PASCAL_JTEXT_KEY(w, k)     pascal_jtext_key((w), "\"" k "\":", sizeof(k) + 2)
#define PASCAL_JTEXT_REAL(w, k, v) (PASCAL_JTEXT_KEY(w, k), pascal_jtext_real((w), NULL, (v)))
#define PASCAL_JTEXT_REAL_OR_NULL(w, k, v)                                                         \
  (PASCAL_JTEXT_KEY(w, k), pascal_jtext_real_or_null_value((w), (v)))
#define PASCAL_JTEXT_UINT(w, k, v)   (PASCAL_JTEXT_KEY(w, k), pascal_jtext_uint_value((w), (v)))
#define PASCAL_JTEXT_INT(w, k, v)    (PASCAL_JTEXT_KEY(w, k), pascal_jtext_int((w), NULL, (v)))
#define PASCAL_JTEXT_BOOL(w, k, v)   (PASCAL_JTEXT_KEY(w, k), pascal_jtext_bool((w), NULL, (v)))
#define PASCAL_JTEXT_NULL(w, k)      (PASCAL_JTEXT_KEY(w, k), pascal_jtext_null((w), NULL))
#define PASCAL_JTEXT_STRING(w, k, s) (PASCAL_JTEXT_KEY(w, k), pascal_jtext_string((w), NULL, (s)))
#define PASCAL_JTEXT_OBJECT(w, k)    pascal_jtext_open((w), "\"" k "\":{", sizeof(k) + 3)
#define PASCAL_JTEXT_ARRAY(w, k)     pascal_jtext_open((w), "\"" k "\":[", sizeof(k) + 3)

/* A newline after a complete document (replies end with one). */
void pascal_jtext_newline(pascal_jtext *w);

/* A position to come back to: pascal_jtext_rewind drops what was written
 * since the mark and clears a value error (PASCAL_ERANGE/EFORMAT) made
 * since; an allocation failure stays. For a batch item that fails half-way. */
typedef struct pascal_jtext_mark {
  size_t len;
  int comma;
} pascal_jtext_mark;
pascal_jtext_mark pascal_jtext_mark_get(const pascal_jtext *w);
void pascal_jtext_rewind(pascal_jtext *w, pascal_jtext_mark mark);

/* 1 when s[0..n) is valid UTF-8 (no overlong forms, surrogates or code
 * points above U+10FFFF): the rule the writer checks strings by, and
 * Jansson's. The bytes after s[n) must not be UTF-8 continuation bytes
 * (a NUL or a quote follows in every caller). */
int pascal_json_utf8_valid(const char *s, size_t n);

/* "00" "01" ... "99": a number's decimal digits are written two at a time. */
extern const char pascal_json_digit_pairs[201];

/* 10^0 .. 10^19. */
extern const uint64_t pascal_json_pow10[20];

/* The decimal digits of v (no sign, no NUL), most significant first,
 * written in place from the last pair back; returns their count (1..20),
 * found from v's bit length (1233 / 2^12 is just above log10(2)) and one
 * comparison. */
static inline size_t pascal_json_uint_digits(uint64_t v, char *out)
{
  if (v < 10) { /* the common small counts */
    out[0] = (char)('0' + v);
    return 1;
  }
  unsigned t = (unsigned)(64 - __builtin_clzll(v)) * 1233u >> 12; /* 1..19 */
  size_t n = t + (v >= pascal_json_pow10[t]);
  size_t k = n;
  while (v >= 100) {
    k -= 2;
    memcpy(out + k, pascal_json_digit_pairs + 2 * (v % 100), 2);
    v /= 100;
  }
  if (v >= 10)
    memcpy(out, pascal_json_digit_pairs + 2 * v, 2);
  else
    out[0] = (char)('0' + v);
  return n;
}

/* A finite double as a JSON real that reads back (strtod) as the same
 * double: the shortest such digit string and, among those as short, the one
 * closest to the double (ties to an even last digit); never more than 17
 * significant digits (Schubfach, json_real.c). Notation as printf's %g:
 * plain for decimal exponents -5 < X < 17, else d.ddde+XX; a ".0" is added
 * to integral plain numbers. Returns the length (NUL written after it); 0
 * (and "") when `v` is NaN or Inf. */
size_t pascal_json_real_format(double v, char out[PASCAL_JSON_REAL_MAX]);

#ifdef __cplusplus
}
#endif
#endif
