/*
 * fuzz_jread.c - the text reader of read requests (server/pascald/jread.c)
 * against Jansson, on any bytes: whenever the reader takes a flat object
 * (or, for input starting with '[', an array of them) Jansson must parse
 * the same text to the same members: same keys, same kinds, the same
 * integers, bit-identical doubles, the same string bytes. This is the
 * reader's one promise (it reads only what it reads exactly as Jansson
 * would, and leaves everything else to Jansson), so any difference aborts.
 * A whole array also checks pd_jread_count_objects (the batch's counter).
 */
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jread.h"
#include "qfields.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fail(const char *what, const char *text)
{
  fprintf(stderr, "fuzz_jread: %s on input %.200s\n", what, text);
  abort();
}

/* The fields the reader took must be the members of Jansson's object. */
static void same_object(const pd_fields *fs, const json_t *obj, const char *text)
{
  if (!json_is_object(obj) || json_object_size(obj) != fs->n)
    fail("member count differs", text);
  for (size_t i = 0; i < fs->n; i++) {
    const pd_field *f = &fs->f[i];
    char *key = malloc(f->klen + 1); /* keys of any length: the reader sets no limit */
    if (!key)
      abort();
    memcpy(key, f->key, f->klen);
    key[f->klen] = '\0';
    pd_value want;
    pd_value_from_json(json_object_get(obj, key), &want);
    free(key);
    const pd_value *got = &f->v;
    if (want.kind != got->kind)
      fail("kind differs", text);
    if ((got->kind == PD_V_INT || got->kind == PD_V_BOOL) && want.i != got->i)
      fail("integer differs", text);
    if (got->kind == PD_V_REAL && memcmp(&want.d, &got->d, sizeof want.d) != 0)
      fail("double differs", text);
    if (got->kind == PD_V_STRING && (want.len != got->len || memcmp(want.s, got->s, got->len) != 0))
      fail("string differs", text);
  }
}

/* An array of flat objects read by the reader: 0 when taken whole; with
 * `doc`, every item is compared with Jansson's. */
static int read_array(const char *text, size_t size, const json_t *doc, const char *shown)
{
  pd_jread r = {text, text + size};
  pd_fields fs;
  pd_fields_init(&fs);
  size_t n = 0;
  if (!pd_jread_take(&r, '['))
    return -1;
  if (!pd_jread_take(&r, ']')) {
    do {
      if (pd_jread_flat_object(&r, &fs))
        return -1;
      if (doc)
        same_object(&fs, json_array_get(doc, n), shown);
      n++;
    } while (pd_jread_take(&r, ','));
    if (!pd_jread_take(&r, ']'))
      return -1;
  }
  if (!pd_jread_at_end(&r))
    return -1;
  if (doc && json_array_size(doc) != n)
    fail("item count differs", shown);
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  char *text = malloc(size + 1);
  if (!text)
    return 0;
  memcpy(text, data, size);
  text[size] = '\0';
  pd_jread r = {text, text + size};
  pd_fields fs;
  pd_fields_init(&fs);
  json_error_t jerr;
  json_t *doc = json_loadb(text, size, JSON_REJECT_DUPLICATES, &jerr);
  if (json_is_array(doc)) {
    /* the batch's counter (which refuses an oversized batch before the
     * reader or Jansson reads it) counts Jansson's object items, escapes
     * and brackets in strings included, and stops one past its limit; the
     * starts it keeps are those items' '{', in order */
    size_t n = 0;
    for (size_t i = 0; i < json_array_size(doc); i++)
      n += json_is_object(json_array_get(doc, i));
    pd_jread whole = {text, text + size};
    while (whole.p < whole.end && *whole.p != '[')
      whole.p++;
    const char **starts = malloc((n + 1) * sizeof *starts);
    if (starts && (pd_jread_count_objects(&whole, SIZE_MAX, starts, n) != n ||
                   (n > 0 && pd_jread_count_objects(&whole, n - 1, NULL, 0) != n) ||
                   (n > 1 && pd_jread_count_objects(&whole, 0, NULL, 0) != 1)))
      fail("counted items differ", text);
    for (size_t i = 0; starts && i < n; i++)
      if (*starts[i] != '{' || starts[i] <= whole.p || (i > 0 && starts[i] <= starts[i - 1]))
        fail("an item's start is not its '{'", text);
    free(starts);
  }
  if (size > 0 && text[0] == '[') {
    /* the reader's verdict on the whole array first, then the items */
    if (read_array(text, size, NULL, NULL) == 0) {
      if (!json_is_array(doc))
        fail("reader took an array Jansson refuses", text);
      read_array(text, size, doc, text);
    }
  } else if (pd_jread_flat_object(&r, &fs) == 0 && pd_jread_at_end(&r)) {
    if (!doc)
      fail("reader took an object Jansson refuses", text);
    same_object(&fs, doc, text);
  }
  json_decref(doc);
  free(text);
  return 0;
}
