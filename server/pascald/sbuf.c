/*
 * sbuf.c - growable text buffer (see sbuf.h).
 */
#include "sbuf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pascal/grow.h"

static int reserve(pd_sbuf *b, size_t more)
{
  if (b->failed)
    return -1;
  if (pascal_grow((void **)&b->p, &b->cap, b->len + more + 1, 1)) {
    b->failed = 1;
    return -1;
  }
  return 0;
}

void pd_sbuf_printf(pd_sbuf *b, const char *fmt, ...)
{
  if (reserve(b, 256))
    return; /* one pass when the text fits (the usual case) */
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
  va_end(ap);
  if (n < 0) {
    b->failed = 1;
    return;
  }
  if ((size_t)n >= b->cap - b->len) {
    if (reserve(b, (size_t)n))
      return;
    va_start(ap, fmt);
    vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
    va_end(ap);
  }
  b->len += (size_t)n;
}

void pd_sbuf_free(pd_sbuf *b)
{
  free(b->p);
  memset(b, 0, sizeof *b);
}
