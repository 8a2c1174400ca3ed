/*
 * page.c - `limit` and the opaque `cursor` of the list routes (page.h): a
 * cursor is the hex of "LIST:KEY", checked on the way back in, so that a
 * cursor of another list, a forged key or a truncated copy is a 400 naming
 * "cursor", never a silently different page.
 */
#include "page.h"

#include <stdio.h>
#include <string.h>

#include "jsonin.h"
#include "pascal_codec_jobs.h"
#include "reply.h"

/* "LIST:KEY" of at most this many bytes (a 63-byte name, the longest list) */
#define PAGE_TEXT_MAX 96

static const char hexdigits[] = "0123456789abcdef";

static json_t *cursor_json(const pd_page *pg, const char *key)
{
  char text[PAGE_TEXT_MAX], hex[2 * PAGE_TEXT_MAX + 1];
  int n = snprintf(text, sizeof text, "%s:%s", pg->list, key);
  if (n < 0 || (size_t)n >= sizeof text)
    return json_null();
  for (int i = 0; i < n; i++) {
    hex[2 * i] = hexdigits[(unsigned char)text[i] >> 4];
    hex[2 * i + 1] = hexdigits[(unsigned char)text[i] & 15];
  }
  hex[2 * n] = '\0';
  return json_string(hex);
}

json_t *pd_page_cursor_id(const pd_page *pg, int64_t id)
{
  char key[24];
  snprintf(key, sizeof key, "%lld", (long long)id);
  return cursor_json(pg, key);
}

static int hexval(char c)
{
  const char *p = c ? strchr(hexdigits, c) : NULL;
  return p ? (int)(p - hexdigits) : -1;
}

/* Decode `hex` into text[] and check it is "<list>:KEY" with a valid KEY. */
static int cursor_decode(const char *hex, pd_page *pg)
{
  char text[PAGE_TEXT_MAX];
  size_t n = strlen(hex);
  if (n == 0 || n % 2 || n / 2 >= sizeof text)
    return -1;
  for (size_t i = 0; i < n / 2; i++) {
    int hi = hexval(hex[2 * i]), lo = hexval(hex[2 * i + 1]);
    if (hi < 0 || lo < 0)
      return -1;
    text[i] = (char)(hi << 4 | lo);
  }
  text[n / 2] = '\0';
  size_t ll = strlen(pg->list);
  if (strlen(text) != n / 2 || strncmp(text, pg->list, ll) || text[ll] != ':')
    return -1;
  const char *key = text + ll + 1;
  if (pg->by_name) {
    if (!pascal_codec_name_valid(key) || strlen(key) >= sizeof pg->after_name)
      return -1;
    strcpy(pg->after_name, key);
  } else {
    pg->after_id = pd_parse_id(key);
    if (pg->after_id < 0)
      return -1;
  }
  pg->after_set = 1;
  return 0;
}

int pd_page_parse(json_t *q, const char *list, int by_name, pd_page *pg, pd_reply *rep)
{
  memset(pg, 0, sizeof *pg);
  pg->list = list;
  pg->by_name = by_name;
  uint64_t limit = 0;
  char cursor[2 * PAGE_TEXT_MAX + 2];
  if (pd_get_u64(q, "limit", 0, 1, PD_PAGE_LIMIT_MAX, &limit, NULL, rep) < 0)
    return -1;
  pg->limit = (size_t)limit;
  int rc = pd_get_str(q, "cursor", 0, cursor, sizeof cursor, NULL, rep);
  if (rc < 0)
    return -1;
  if (rc == 0 && cursor_decode(cursor, pg)) {
    pd_reply_error(rep, 400, "invalid_value", "cursor",
                   "cursor is not one this list (%s) gave: pass a next_cursor unchanged", list);
    return -1;
  }
  return 0;
}

/* 1 when the view `v` comes after the cursor. */
static int after_cursor(const pd_page *pg, json_t *v)
{
  if (!pg->after_set)
    return 1;
  if (pg->by_name) {
    const char *name = json_string_value(json_object_get(v, "name"));
    return name && strcmp(name, pg->after_name) > 0;
  }
  return json_integer_value(json_object_get(v, "id")) > pg->after_id;
}

json_t *pd_page_apply(const pd_page *pg, json_t *arr)
{
  json_t *page = json_array(), *next = json_null();
  size_t n = json_array_size(arr);
  for (size_t i = 0; i < n; i++) {
    json_t *v = json_array_get(arr, i);
    if (!after_cursor(pg, v))
      continue;
    if (pg->limit && json_array_size(page) == pg->limit) {
      json_t *last = json_array_get(page, pg->limit - 1);
      json_decref(next);
      next = pg->by_name ? cursor_json(pg, json_string_value(json_object_get(last, "name")))
                         : pd_page_cursor_id(pg, json_integer_value(json_object_get(last, "id")));
      break;
    }
    json_array_append(page, v);
  }
  json_array_clear(arr);
  json_array_extend(arr, page);
  json_decref(page);
  return next;
}
