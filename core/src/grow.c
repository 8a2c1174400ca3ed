/*
 * grow.c - the growable array and the prefault hint for large buffers
 * (pascal/grow.h).
 */
#define _DEFAULT_SOURCE /* madvise (glibc) */
#include "pascal/grow.h"

#include <stdint.h>
#include <stdlib.h>
#if defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>
#endif

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

void pascal_prefault(void *p, size_t n)
{
#if defined(__linux__) && defined(MADV_POPULATE_WRITE)
  if (!p || n < PASCAL_PREFAULT_MIN)
    return;
  uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
  uintptr_t lo = ((uintptr_t)p + page - 1) & ~(page - 1), hi = ((uintptr_t)p + n) & ~(page - 1);
  if (hi > lo) /* whole pages of the buffer only: its neighbours are not ours */
    (void)madvise((void *)lo, hi - lo, MADV_POPULATE_WRITE);
#else
  (void)p;
  (void)n;
#endif
}
