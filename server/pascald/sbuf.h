/*
 * sbuf.h - a growable text buffer with printf-style appends, for the
 * Prometheus metrics reply, written as text instead of through a Jansson
 * tree. JSON text is written by the codec's writer (json_text.h).
 */
#ifndef PASCALD_SBUF_H
#define PASCALD_SBUF_H

#include <stddef.h>

typedef struct pd_sbuf {
  char *p; /* malloc'd, NUL-terminated while !failed */
  size_t len, cap;
  int failed; /* an allocation or vsnprintf failed: further appends are ignored */
} pd_sbuf;

void pd_sbuf_printf(pd_sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void pd_sbuf_free(pd_sbuf *b);

#endif
