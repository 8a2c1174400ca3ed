/*
 * sbuf.h - a growable text buffer with printf-style appends, for replies that
 * are written directly as text (Prometheus metrics, large batch answers)
 * instead of through a Jansson tree.
 */
#ifndef PASCALD_SBUF_H
#define PASCALD_SBUF_H

#include <stddef.h>

typedef struct pd_sbuf {
  char *p;      /* malloc'd, NUL-terminated while !failed */
  size_t len, cap;
  int failed;   /* an allocation failed: further appends are ignored */
} pd_sbuf;

void pd_sbuf_printf(pd_sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void pd_sbuf_put(pd_sbuf *b, const char *s, size_t n);
/* A JSON number for a finite double, as Jansson writes it with 17 digits
 * ("1.5", "48.0", "1.0000000000000001e-05"); null when not finite. */
void pd_sbuf_real(pd_sbuf *b, double x);
void pd_sbuf_free(pd_sbuf *b);

#endif
