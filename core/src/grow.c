/*
 * grow.c - the growable array (pascal/grow.h).
 */
#include "pascal/grow.h"

#include <stdint.h>
#include <stdlib.h>

pascal_status pascal_grow(void **array, size_t *cap, size_t need, size_t elem)
{
  if (need <= *cap)
    return PASCAL_OK;
  size_t next = *cap > SIZE_MAX / 2 ? SIZE_MAX : 2 * *cap;
  if (next < need)
    next = need;
  if (elem == 0 || next > SIZE_MAX / elem)
    return PASCAL_ENOMEM;
  void *p = realloc(*array, next * elem);
  if (!p)
    return PASCAL_ENOMEM;
  *array = p;
  *cap = next;
  return PASCAL_OK;
}
