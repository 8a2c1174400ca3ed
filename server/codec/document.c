/*
 * document.c - reading and writing JSON documents for pascal_codec: strict
 * parsing (duplicate keys rejected, nesting depth limited, size limited) and
 * output that round-trips every double (17 significant digits) and never
 * contains NaN or Inf (the constructors in json_util.c refuse them).
 */
#include "pascal_codec.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pascal/grow.h"

/* Deepest nesting of arrays/objects found in `text`, scanning outside
 * strings; stops counting once above `limit`. Done before Jansson parses so
 * that a hostile document cannot make the parser recurse deeply. */
static size_t nesting_depth(const char *text, size_t len, size_t limit)
{
  size_t depth = 0, max = 0;
  int in_string = 0;
  for (size_t i = 0; i < len && max <= limit; i++) {
    char c = text[i];
    if (in_string) {
      if (c == '\\')
        i++;
      else if (c == '"')
        in_string = 0;
    } else if (c == '"') {
      in_string = 1;
    } else if (c == '[' || c == '{') {
      if (++depth > max)
        max = depth;
    } else if ((c == ']' || c == '}') && depth > 0) {
      depth--;
    }
  }
  return max;
}

pascal_status pascal_codec_parse(const char *text, size_t len, json_t **out, pascal_error *err)
{
  if (len > PASCAL_CODEC_MAX_DOCUMENT)
    return pascal_error_set(err, PASCAL_EFORMAT, "document", "document is larger than %u bytes",
                            PASCAL_CODEC_MAX_DOCUMENT);
  if (nesting_depth(text, len, PASCAL_CODEC_MAX_DEPTH) > PASCAL_CODEC_MAX_DEPTH)
    return pascal_error_set(err, PASCAL_EFORMAT, "document", "document nests deeper than %u levels",
                            PASCAL_CODEC_MAX_DEPTH);
  json_error_t jerr;
  json_t *doc = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
  if (!doc)
    return pascal_error_set(err, PASCAL_EFORMAT, "document",
                            "invalid JSON at line %d column %d: %s", jerr.line, jerr.column,
                            jerr.text);
  *out = doc;
  return PASCAL_OK;
}

pascal_status pascal_codec_load_file(const char *path, json_t **out, pascal_error *err)
{
  FILE *f = fopen(path, "rb");
  if (!f)
    return pascal_error_set(err, PASCAL_ENOTFOUND, "file", "cannot open %s: %s", path,
                            strerror(errno));
  pascal_status st = PASCAL_OK;
  size_t cap = 0, len = 0;
  char *buf = NULL;
  for (;;) {
    if (len == cap) {
      if (cap > PASCAL_CODEC_MAX_DOCUMENT) {
        st = pascal_error_set(err, PASCAL_EFORMAT, "file", "%s is larger than %u bytes", path,
                              PASCAL_CODEC_MAX_DOCUMENT);
        goto done;
      }
      if (pascal_grow((void **)&buf, &cap, cap ? cap + 1 : 65536, 1)) {
        st = pascal_error_set(err, PASCAL_ENOMEM, "file", "out of memory reading %s", path);
        goto done;
      }
    }
    size_t got = fread(buf + len, 1, cap - len, f);
    len += got;
    if (got == 0)
      break;
  }
  if (ferror(f)) {
    st = pascal_error_set(err, PASCAL_EFORMAT, "file", "cannot read %s", path);
    goto done;
  }
  st = pascal_codec_parse(buf, len, out, err);
done:
  free(buf);
  fclose(f);
  return st;
}

char *pascal_codec_dump(const json_t *doc, int pretty)
{
  size_t flags =
      JSON_ENCODE_ANY | JSON_REAL_PRECISION(17) | (pretty ? JSON_INDENT(2) : JSON_COMPACT);
  return json_dumps(doc, flags);
}

pascal_status pascal_codec_write_file(const json_t *doc, const char *path, pascal_error *err)
{
  char *text = pascal_codec_dump(doc, 1);
  if (!text)
    return pascal_error_set(err, PASCAL_ENOMEM, "file", "cannot serialise the document");
  FILE *f = fopen(path, "wb");
  pascal_status st = PASCAL_OK;
  if (!f) {
    st = pascal_error_set(err, PASCAL_ENOTFOUND, "file", "cannot create %s: %s", path,
                          strerror(errno));
    goto done;
  }
  size_t n = strlen(text);
  int bad = fwrite(text, 1, n, f) != n || fputc('\n', f) == EOF;
  if (fclose(f) || bad)
    st = pascal_error_set(err, PASCAL_EFORMAT, "file", "cannot write %s", path);
done:
  free(text);
  return st;
}
