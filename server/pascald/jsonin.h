/*
 * jsonin.h - reading untrusted input (JSON bodies, query arguments, path ids):
 * JSON parsing with limits (size is capped by
 * http.c, nesting depth here, duplicate keys and invalid UTF-8 rejected by
 * Jansson) and typed field getters that name the offending field in a 400.
 *
 * Getter convention: return 0 when the value was read, 1 when an optional
 * field is absent (out untouched), -1 after filling `rep` with a 400.
 */
#ifndef PASCALD_JSONIN_H
#define PASCALD_JSONIN_H

#include <stdint.h>

#include "pascald.h"

/* State of a byte scan that must skip string literals (the depth check here,
 * the split finder in jsonpar.c). pd_json_scan_string() takes the next byte
 * and returns 1 when it belongs to a string literal (its quotes included),
 * 0 when it is structural: only then can it be a bracket or a comma. */
typedef struct pd_json_scan {
  int in_str, esc;
} pd_json_scan;

static inline int pd_json_scan_string(pd_json_scan *s, char c)
{
  if (s->in_str) {
    if (s->esc)
      s->esc = 0;
    else if (c == '\\')
      s->esc = 1;
    else if (c == '"')
      s->in_str = 0;
    return 1;
  }
  s->in_str = c == '"';
  return s->in_str;
}

/* 1 if arrays/objects nest deeper than depth_max (strings ignored); the scan
 * stops as soon as the limit is passed. */
int pd_json_too_deep(const char *buf, size_t len, int depth_max);

/* Parse `buf`; on failure fill rep (400 bad_json) and return -1. */
int pd_json_parse(const char *buf, size_t len, int depth_max, json_t **out, pd_reply *rep);

/* Refuse keys of `obj` not listed in the NULL-terminated `allowed` (400
 * unknown_field). `prefix` names the object in messages ("queries[3]"). */
int pd_json_strict(json_t *obj, const char *const *allowed, const char *prefix, pd_reply *rep);

int pd_get_u64(json_t *obj, const char *key, int required, uint64_t lo, uint64_t hi, uint64_t *out,
               const char *prefix, pd_reply *rep);
/* Finite number (integer or real) in [lo, hi]. */
int pd_get_num(json_t *obj, const char *key, int required, double lo, double hi, double *out,
               const char *prefix, pd_reply *rep);
/* String of 1..maxlen-1 bytes copied into out[maxlen]. */
int pd_get_str(json_t *obj, const char *key, int required, char *out, size_t maxlen,
               const char *prefix, pd_reply *rep);
/* A name: [A-Za-z0-9._-], 1..63 chars (devices, agents, tokens). */
int pd_get_name(json_t *obj, const char *key, int required, char *out, size_t maxlen,
                const char *prefix, pd_reply *rep);

/* A path parameter that names a record ("{id}"): a positive decimal id, or
 * -1 if the segment is not one. */
int64_t pd_parse_id(const char *s);

/* Build an object from URL query arguments: keys in `string_keys` stay
 * strings, every other argument must be a number. Unknown keys are kept so
 * that the handler's strict check names them. Returns -1 with a 400. */
int pd_query_object(struct MHD_Connection *conn, const char *const *string_keys, json_t **out,
                    pd_reply *rep);

#endif
