/*
 * jread.c - flat JSON objects read from the text (see jread.h). Numbers
 * follow JSON's grammar and are converted by strtoll/strtod, as Jansson
 * converts them, so a value read here is the value the tree would hold.
 */
#include "jread.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "json_text.h"
#include "jsonin.h"

int pd_jread_at_end(pd_jread *r)
{
  pd_jread_ws(r);
  return r->p == r->end;
}

/* A string without escapes: s[0..len) borrowed from the text. */
static int jread_string(pd_jread *r, const char **s, size_t *len)
{
  if (!pd_jread_take(r, '"'))
    return -1;
  const char *b = r->p;
  const char *q = b;
  unsigned char high = 0; /* bit 7 set when a byte is not ASCII */
  /* printable ASCII but the quote and the backslash, and UTF-8 bytes:
   * control characters and escapes send the body to Jansson */
  while (q < r->end && *q != '"' && *q != '\\' && (unsigned char)*q >= 0x20)
    high |= (unsigned char)*q++;
  if (q == r->end || *q != '"')
    return -1;
  if ((high & 0x80) && !pascal_json_utf8_valid(b, (size_t)(q - b)))
    return -1;
  *s = b;
  *len = (size_t)(q - b);
  r->p = q + 1;
  return 0;
}

static int digits(pd_jread *r)
{
  const char *b = r->p;
  while (r->p < r->end && *r->p >= '0' && *r->p <= '9')
    r->p++;
  return r->p > b;
}

static int number(pd_jread *r, pd_value *v)
{
  const char *b = r->p;
  int is_int = 1;
  if (*r->p == '-')
    r->p++;
  if (r->p < r->end && *r->p == '0')
    r->p++;
  else if (!digits(r))
    return -1;
  if (r->p < r->end && *r->p == '.') {
    is_int = 0;
    r->p++;
    if (!digits(r))
      return -1;
  }
  if (r->p < r->end && (*r->p == 'e' || *r->p == 'E')) {
    is_int = 0;
    r->p++;
    if (r->p < r->end && (*r->p == '+' || *r->p == '-'))
      r->p++;
    if (!digits(r))
      return -1;
  }
  /* the grammar ends the number here; strtoll/strtod stop at the same
   * byte (neither reads "0x" or "inf" after a JSON number's first digit) */
  if (is_int) { /* strtoll's value and range, without its locale and base handling */
    const char *q = b + (*b == '-');
    uint64_t x = 0, lim = *b == '-' ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
    for (; q < r->p; q++) {
      unsigned dgt = (unsigned)(*q - '0');
      if (x > (lim - dgt) / 10)
        return -1; /* Jansson: "too big integer" */
      x = 10 * x + dgt;
    }
    v->kind = PD_V_INT;
    v->i = *b == '-' ? (int64_t)(0 - x) : (int64_t)x;
    return 0;
  }
  errno = 0;
  double d = strtod(b, NULL);
  if (errno || !isfinite(d))
    return -1; /* overflow, or an underflow Jansson may read otherwise */
  v->kind = PD_V_REAL;
  v->d = d;
  return 0;
}

static int literal(pd_jread *r, const char *word, size_t n)
{
  if ((size_t)(r->end - r->p) < n || memcmp(r->p, word, n) != 0)
    return -1;
  r->p += n;
  return 0;
}

int pd_jread_scalar(pd_jread *r, pd_value *v)
{
  memset(v, 0, sizeof *v);
  pd_jread_ws(r);
  if (r->p == r->end)
    return -1;
  switch (*r->p) {
  case '"': v->kind = PD_V_STRING; return jread_string(r, &v->s, &v->len);
  case 't': v->kind = PD_V_BOOL, v->i = 1; return literal(r, "true", 4);
  case 'f': v->kind = PD_V_BOOL, v->i = 0; return literal(r, "false", 5);
  case 'n': v->kind = PD_V_NULL; return literal(r, "null", 4);
  default:
    if (*r->p == '-' || (*r->p >= '0' && *r->p <= '9'))
      return number(r, v);
    return -1;
  }
}

int pd_jread_key(pd_jread *r, const pd_fields *seen, const char **k, size_t *klen, int *slot)
{
  if (jread_string(r, k, klen) || !pd_jread_take(r, ':'))
    return -1;
  return pd_fields_has(seen, *k, *klen, slot) ? -1 : 0;
}

int pd_jread_flat_object(pd_jread *r, pd_fields *out)
{
  pd_fields_clear(out); /* indexed as read when the caller gave a key table */
  if (!pd_jread_take(r, '{'))
    return -1;
  if (pd_jread_take(r, '}'))
    return 0;
  do {
    const char *k;
    size_t klen;
    int slot;
    pd_value v;
    if (out->n == PD_FIELDS_INLINE || pd_jread_key(r, out, &k, &klen, &slot) ||
        pd_jread_scalar(r, &v))
      return -1;
    pd_fields_push(out, k, klen, &v, slot);
  } while (pd_jread_take(r, ','));
  return pd_jread_take(r, '}') ? 0 : -1;
}

/* The item counter looks only at quotes, backslashes and brackets, eight
 * bytes at a time: each 64-bit word's such bytes are found by exact
 * per-byte comparisons (no branch per byte). In a word without a
 * backslash, which bytes lie inside a string follows from the quotes
 * before them (a running xor), so only its brackets outside strings are
 * visited; a word with a backslash is walked byte event by byte event. */
#define BYTES_1  UINT64_C(0x0101010101010101)
#define BYTES_7F UINT64_C(0x7f7f7f7f7f7f7f7f)

/* 0x80 in each byte of x equal to c, 0 in the others: (t & 0x7f) + 0x7f
 * sets bit 7 of a byte of t with any low bit set, without a carry into the
 * next byte, and t's own bit 7 covers the rest. */
static uint64_t bytes_equal(uint64_t x, unsigned char c)
{
  uint64_t t = x ^ (BYTES_1 * c);
  return ~(((t & BYTES_7F) + BYTES_7F) | t) & ~BYTES_7F;
}

/* Bit 7 of each byte: the xor of bit 7 of that byte and the ones before. */
static uint64_t running_xor(uint64_t m)
{
  m ^= m << 8;
  m ^= m << 16;
  return m ^ m << 32;
}

/* Bytes p[0..7] with p[i] in bits 8i..8i+7, whatever the machine's order. */
static uint64_t load_le(const unsigned char *p)
{
  return (uint64_t)p[0] | (uint64_t)p[1] << 8 | (uint64_t)p[2] << 16 | (uint64_t)p[3] << 24 |
         (uint64_t)p[4] << 32 | (uint64_t)p[5] << 40 | (uint64_t)p[6] << 48 | (uint64_t)p[7] << 56;
}

typedef struct counter {
  size_t n;
  int depth, in_string;
  const char **starts; /* where the first `cap` objects counted begin, or NULL */
  size_t cap;
} counter;

/* The byte at `at`, outside strings (brackets count, others not); 1 when
 * the array closed. */
static int count_bracket(counter *k, const unsigned char *at)
{
  unsigned char c = *at;
  if (c == '{' || c == '[') {
    if (k->depth++ == 1 && c == '{') {
      if (k->n < k->cap)
        k->starts[k->n] = (const char *)at;
      k->n++;
    }
  } else if (c == '}' || c == ']') {
    return --k->depth <= 0;
  }
  return 0;
}

/* The byte at `at`. Returns 0 to go on, 1 when the array closed, 2 when
 * the next byte is escaped (skip it). */
static int count_byte(counter *k, const unsigned char *at)
{
  unsigned char c = *at;
  if (k->in_string) {
    if (c == '"')
      k->in_string = 0;
    return c == '\\' ? 2 : 0;
  }
  if (c == '"') {
    k->in_string = 1;
    return 0;
  }
  return count_bracket(k, at);
}

size_t pd_jread_count_objects(const pd_jread *r, size_t limit, const char **starts, size_t cap)
{
  const unsigned char *q = (const unsigned char *)r->p, *end = (const unsigned char *)r->end;
  counter k = {0, 0, 0, starts, starts ? cap : 0};
  while (q < end && k.n <= limit) {
    if (end - q < 8) { /* the tail, byte by byte */
      int st = count_byte(&k, q);
      if (st == 1)
        break;
      q += st == 2 && end - q > 1 ? 2 : 1;
      continue;
    }
    const unsigned char *next = q + 8;
    uint64_t x = load_le(q), y = x | BYTES_1 * 0x20; /* '[', ']' as '{', '}' */
    uint64_t quotes = bytes_equal(x, '"'), brackets = bytes_equal(y, '{') | bytes_equal(y, '}');
    uint64_t backslashes = bytes_equal(x, '\\');
    if (!backslashes) {
      uint64_t inside = running_xor(quotes) ^ (k.in_string ? ~BYTES_7F : 0);
      for (uint64_t m = brackets & ~inside; m; m &= m - 1)
        if (count_bracket(&k, q + (__builtin_ctzll(m) >> 3)) || k.n > limit)
          return k.n;
      k.in_string = (int)(inside >> 63);
      q = next;
      continue;
    }
    for (uint64_t m = quotes | brackets | backslashes; m; m &= m - 1) {
      const unsigned char *at = q + (__builtin_ctzll(m) >> 3);
      int st = count_byte(&k, at);
      if (st == 1 || k.n > limit)
        return k.n;
      if (st == 2) { /* resume after the escaped byte */
        next = end - at > 1 ? at + 2 : end;
        break;
      }
    }
    q = next;
  }
  return k.n;
}
