/*
 * qfields.h - the flat fields of one query (a predict query, a bounds
 * query), read from whichever source carried them: the URL's query string
 * (pd_fields_from_args), a flat JSON object read from the body text
 * (jread.h), or a Jansson object (pd_fields_from_json, the general path).
 * Handlers validate fields with the typed getters below; jsonin.h's getters
 * on Jansson objects go through the same checks, so every source gives the
 * same 400 with the same message naming the same field. A route that knows
 * its keys gives the fields a key table (pd_keys): each field then has a
 * slot, filled as it is read, and is found without a search.
 *
 * Getter convention (as jsonin.h): 0 when the value was read, 1 when an
 * optional field is absent or null (out untouched), -1 after filling `rep`.
 */
#ifndef PASCALD_QFIELDS_H
#define PASCALD_QFIELDS_H

#include <stddef.h>
#include <stdint.h>

#include "pascald.h"

typedef enum pd_vkind {
  PD_V_ABSENT = 0, /* no such field */
  PD_V_NULL,
  PD_V_BOOL,   /* i: 0 or 1 */
  PD_V_INT,    /* i */
  PD_V_REAL,   /* d, finite */
  PD_V_STRING, /* s[0..len), valid UTF-8; may hold NUL bytes (Jansson) */
  PD_V_OTHER   /* an array or an object */
} pd_vkind;

typedef struct pd_value {
  pd_vkind kind;
  int64_t i;
  double d;
  const char *s; /* borrowed from the source (request text, MHD, Jansson) */
  size_t len;
} pd_value;

typedef struct pd_field {
  const char *key; /* borrowed; klen bytes, not necessarily NUL-terminated */
  size_t klen;
  pd_value v;
} pd_field;

#define PD_FIELDS_INLINE 16
#define PD_KEYS_MAX      64
#define PD_KEYS_HASH     256

/* A fixed set of field names, each with a slot (its index, < PD_KEYS_MAX),
 * found by a hash of the name's length and first and last bytes: the keys
 * a route knows, so that its fields are read and looked up without a
 * comparison with every other key. Built once, then read-only. */
typedef struct pd_keys {
  size_t n;
  const char *name[PD_KEYS_MAX];
  size_t len[PD_KEYS_MAX];
  uint64_t strings;           /* bit s: slot s holds text (a query string's) */
  uint8_t hash[PD_KEYS_HASH]; /* slot + 1 (0: empty), linear probing */
} pd_keys;

/* Add `name` (static storage) with its kind: its slot (the existing one
 * when it is there already), or -1 when the table is full. */
int pd_keys_add(pd_keys *k, const char *name, int is_string);
static inline unsigned pd_keys_hash(const char *key, size_t len)
{
  unsigned c0 = len ? (unsigned char)key[0] : 0, cn = len ? (unsigned char)key[len - 1] : 0;
  return ((unsigned)len * 97u + c0 * 31u + cn) & (PD_KEYS_HASH - 1);
}

/* The slot of key[0..len), or -1 (inline: one per field read). */
static inline int pd_keys_slot(const pd_keys *k, const char *key, size_t len)
{
  for (unsigned h = pd_keys_hash(key, len);; h = (h + 1) & (PD_KEYS_HASH - 1)) {
    int s = k->hash[h] - 1;
    if (s < 0)
      return -1;
    if (k->len[s] != len)
      continue;
    size_t i = 0; /* names are a few bytes: compared without a call */
    while (i < len && k->name[s][i] == key[i])
      i++;
    if (i == len)
      return s;
  }
}

/* Fields in the order they were given; keys are unique. Up to
 * PD_FIELDS_INLINE live in the struct, more (a long query string) on the
 * heap: pd_fields_free releases them. With a key table (`keys`, set by
 * pd_fields_index or by pd_fields_from_args), bit s of `present` says the
 * key of slot s is there, as field at[s]. */
typedef struct pd_fields {
  size_t n, cap;
  pd_field *f;
  const pd_keys *keys;
  uint64_t present;
  uint32_t at[PD_KEYS_MAX];
  pd_field inline_f[PD_FIELDS_INLINE];
} pd_fields;

void pd_fields_init(pd_fields *fs);
/* Empty the fields, keeping their room and their key table. */
void pd_fields_clear(pd_fields *fs);
/* Index the fields by the slots of `keys` (one look-up per field). */
void pd_fields_index(pd_fields *fs, const pd_keys *keys);
/* The value of slot s of the table the fields are indexed by (PD_V_ABSENT
 * when not given). */
extern const pd_value pd_value_absent;
static inline const pd_value *pd_fields_at(const pd_fields *fs, int slot)
{
  return (fs->present >> slot) & 1 ? &fs->f[fs->at[slot]].v : &pd_value_absent;
}
void pd_fields_free(pd_fields *fs);
/* Whether the fields hold key[0..klen) already; *slot is its slot in their
 * key table (-1: not in it, or no table). */
int pd_fields_has(const pd_fields *fs, const char *key, size_t klen, int *slot);
/* Append a field whose key the caller found new (pd_fields_has gave its
 * slot) with room for it (n < cap). */
void pd_fields_push(pd_fields *fs, const char *key, size_t klen, const pd_value *v, int slot);
/* The field named `key`, or NULL. */
pd_field *pd_fields_get(const pd_fields *fs, const char *key);
/* Remove field f (one of fs, from pd_fields_get), keeping the others' order. */
void pd_fields_del(pd_fields *fs, pd_field *f);

/* The members of a Jansson object, values borrowed from it. -1 with a 500
 * only on allocation failure. */
int pd_fields_from_json(json_t *obj, pd_fields *out, pd_reply *rep);
/* The URL's query arguments, in one walk: keys in `string_keys` are strings
 * (valid UTF-8), every other argument must be a number in JSON's grammar
 * (an integer beyond int64 is read as a real, which range checks then
 * refuse). A repeated key, a key that is not UTF-8, bad text: -1 with a
 * 400. When `out` was given a key table (pd_fields_index on the empty
 * fields), string_keys is NULL: the table says which keys are strings, and
 * each argument is indexed as it is read. */
int pd_fields_from_args(struct MHD_Connection *conn, const char *const *string_keys, pd_fields *out,
                        pd_reply *rep);

/* Refuse a key not listed in `allowed` (400 unknown_field naming the first
 * one, in the fields' order). `prefix` names the object ("queries[3]"). */
int pd_fields_strict(const pd_fields *fs, const char *const *allowed, const char *prefix,
                     pd_reply *rep);

/* Checks of one value (v->kind PD_V_ABSENT when the field is not there),
 * naming the field prefix.key in errors. */
int pd_value_u64(const pd_value *v, const char *key, int required, uint64_t lo, uint64_t hi,
                 uint64_t *out, const char *prefix, pd_reply *rep);
int pd_value_num(const pd_value *v, const char *key, int required, double lo, double hi,
                 double *out, const char *prefix, pd_reply *rep);
int pd_value_str(const pd_value *v, const char *key, int required, char *out, size_t maxlen,
                 const char *prefix, pd_reply *rep);

/* The same checks on the field named `key` of `fs`. */
int pd_field_u64(const pd_fields *fs, const char *key, int required, uint64_t lo, uint64_t hi,
                 uint64_t *out, const char *prefix, pd_reply *rep);
int pd_field_num(const pd_fields *fs, const char *key, int required, double lo, double hi,
                 double *out, const char *prefix, pd_reply *rep);
int pd_field_str(const pd_fields *fs, const char *key, int required, char *out, size_t maxlen,
                 const char *prefix, pd_reply *rep);

/* A Jansson value as a pd_value (NULL: PD_V_ABSENT). */
void pd_value_from_json(const json_t *j, pd_value *v);

#endif
