/*
 * page.h - pagination of the list routes (calibrations, devices, jobs,
 * tokens): `?limit=N` (1..PD_PAGE_LIMIT_MAX; absent: everything) and
 * `?cursor=C`, the opaque `next_cursor` of the page before. A list is
 * ordered by its key (an id, or a device's name); a cursor names the list
 * and the last key its page held, so that the next page starts after it and
 * rows added meanwhile are neither skipped nor repeated. Clients must not
 * build cursors: their form (hex of "LIST:KEY") may change.
 */
#ifndef PASCALD_PAGE_H
#define PASCALD_PAGE_H

#include <stddef.h>
#include <stdint.h>

#include "pascald.h"

#define PD_PAGE_LIMIT_MAX 1000u

typedef struct pd_page {
  const char *list; /* "calibrations", "devices", "jobs", "tokens" */
  int by_name;      /* keyed by "name" (devices), else by "id" */
  size_t limit;     /* 0: no limit asked, the whole list */
  int after_set;    /* a cursor was given */
  int64_t after_id; /* lists by id: the last id of the page before */
  char after_name[64];
} pd_page;

/* The query keys a list route adds to its own (for pd_query_object's
 * string keys and pd_json_strict's allowed keys): "cursor". "limit" is a
 * number. */
#define PD_PAGE_STRING_KEYS "cursor"
#define PD_PAGE_KEYS        "limit", "cursor"

/* Read `limit` and `cursor` from the query object `q` for the list `list`
 * (ordered by id, or by name when by_name). 0, or -1 after a 400 naming
 * the field ("limit": not an integer in 1..1000; "cursor": not one this
 * list gave). */
int pd_page_parse(json_t *q, const char *list, int by_name, pd_page *pg, pd_reply *rep);

/* Keep only the page of `arr` (views ordered by their "id" or "name"
 * member, whichever the list is keyed by): the elements after the cursor,
 * at most limit of them. Returns the page's next_cursor as a new JSON
 * string, or JSON null when the list ends with this page. */
json_t *pd_page_apply(const pd_page *pg, json_t *arr);

/* next_cursor of a page whose last row has id `id` (the list goes on), as a
 * new JSON string. */
json_t *pd_page_cursor_id(const pd_page *pg, int64_t id);

#endif
