/*
 * jread.h - reading the common shapes of read requests straight from the
 * body text, without a Jansson tree: flat objects of scalars ({"device":
 * "x","o":1,...}), such objects as the elements of an array, one at a time.
 *
 * The reader takes only what it reads exactly as Jansson would (the same
 * strings, integers and doubles); it answers -1 on anything else: invalid
 * JSON, but also valid JSON it does not handle (escapes in strings, nested
 * values, integers beyond int64, a duplicate key, more than
 * PD_FIELDS_INLINE members). The caller then parses the whole body with
 * Jansson (jsonin.h), so that every error keeps its message, line and
 * column.
 */
#ifndef PASCALD_JREAD_H
#define PASCALD_JREAD_H

#include <stddef.h>

#include "qfields.h"

typedef struct pd_jread {
  const char *p, *end; /* the text not yet read; *end is readable (NUL) */
} pd_jread;

/* Skip JSON whitespace. */
static inline void pd_jread_ws(pd_jread *r)
{
  while (r->p < r->end && (*r->p == ' ' || *r->p == '\n' || *r->p == '\r' || *r->p == '\t'))
    r->p++;
}

/* Skip JSON whitespace; then 1 when the next byte is `c` (and take it).
 * Inline: a batch item's reading takes about thirty. */
static inline int pd_jread_take(pd_jread *r, char c)
{
  pd_jread_ws(r);
  if (r->p < r->end && *r->p == c) {
    r->p++;
    return 1;
  }
  return 0;
}
/* 1 when only whitespace is left. */
int pd_jread_at_end(pd_jread *r);
/* A string, number, true, false or null; -1 at '{', '[' or bad text. */
int pd_jread_scalar(pd_jread *r, pd_value *v);
/* A member's key and its ':'; -1 also when `seen` already holds the key.
 * *slot is its slot in seen's key table (pd_fields_has). */
int pd_jread_key(pd_jread *r, const pd_fields *seen, const char **k, size_t *klen, int *slot);
/* The objects among the elements of the array that starts at r->p (its
 * '['), counted without reading them (strings skipped, nesting followed),
 * up to `limit` + 1: enough to refuse an oversized batch before reading it.
 * Where the first `cap` of them begin (their '{') goes to starts (NULL:
 * not kept), so that they can be read apart. Not a validation: other
 * elements are not counted, bad text may count anything; r is not
 * moved. */
size_t pd_jread_count_objects(const pd_jread *r, size_t limit, const char **starts, size_t cap);
/* A whole flat object, from its '{' to its '}', into `out` (emptied first;
 * indexed as read when it has a key table, qfields.h). */
int pd_jread_flat_object(pd_jread *r, pd_fields *out);

#endif
