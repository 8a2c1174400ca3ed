/*
 * pascal/utf8.h - cutting text to a byte limit without splitting a UTF-8
 * character. A job's failure message crosses three programs (the agent
 * writes it, pascald decodes it, the store keeps it) under one byte limit
 * (PASCAL_PLAN_MAX_MESSAGE); each cut goes through this one function so
 * that valid UTF-8 stays valid.
 */
#ifndef PASCAL_UTF8_H
#define PASCAL_UTF8_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Length in bytes of the longest prefix of the NUL-terminated `text` that is
 * at most `max` bytes long and does not end inside a multi-byte UTF-8
 * sequence: strlen(text) when that is <= max. Reads at most max + 1 bytes. */
size_t pascal_utf8_prefix(const char *text, size_t max);

/* Copy the pascal_utf8_prefix(src, size - 1) bytes of src into dst[size]
 * and terminate it (size >= 1). */
void pascal_utf8_copy(char *dst, size_t size, const char *src);

#ifdef __cplusplus
}
#endif
#endif
