/*
 * pascal/grow.h - the one growable array of the project: every buffer that
 * grows as it is filled (a run list, a JSON text, a request body, a chart's
 * points, a list of rows) makes its room through pascal_grow(), so that the
 * doubling and its overflow check are written once.
 *
 * The capacity at least doubles on each growth, so appending n elements one
 * at a time costs O(n) copies in all; a first allocation is exactly what was
 * asked for (at least `need`).
 */
#ifndef PASCAL_GROW_H
#define PASCAL_GROW_H

#include <stddef.h>

#include "pascal/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Make room for `need` elements of `elem` bytes (elem >= 1) in *array,
 * whose capacity is *cap elements: nothing to do when need <= *cap; else
 * *array is reallocated to max(need, 2 *cap) elements and *cap says so.
 * PASCAL_ENOMEM (the size overflows or realloc fails) leaves *array and *cap
 * as they were; the caller names what it was growing in its own error. */
pascal_status pascal_grow(void **array, size_t *cap, size_t need, size_t elem);

/* A hint for a large buffer about to be written: map the whole pages inside
 * [p, p + n) in one call where the system can (Linux's
 * MADV_POPULATE_WRITE). Otherwise each fresh page faults on its first
 * write, which costs microseconds a page on a virtual machine (a 700 KB
 * request body: about a millisecond). Does nothing for n under
 * PASCAL_PREFAULT_MIN (such a buffer is mostly mapped already and the call
 * would cost more than it saves), where the call is not available, or when
 * it fails: the pages then fault as they would have. */
#define PASCAL_PREFAULT_MIN (64u * 1024u)
void pascal_prefault(void *p, size_t n);

#ifdef __cplusplus
}
#endif
#endif
