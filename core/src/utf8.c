/* utf8.c - the UTF-8-safe cut of pascal/utf8.h. */
#include "pascal/utf8.h"

#include <assert.h>
#include <string.h>

size_t pascal_utf8_prefix(const char *text, size_t max)
{
  size_t len = strnlen(text, max + 1);
  if (len <= max)
    return len;
  len = max;
  /* text[len] is the first byte left out: while it continues a sequence
   * (10xxxxxx), the sequence began inside the prefix; cut before its lead. */
  while (len > 0 && ((unsigned char)text[len] & 0xC0) == 0x80)
    len--;
  return len;
}

void pascal_utf8_copy(char *dst, size_t size, const char *src)
{
  assert(size >= 1);
  size_t len = pascal_utf8_prefix(src, size - 1);
  memmove(dst, src, len);
  dst[len] = '\0';
}
