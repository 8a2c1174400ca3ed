/*
 * jsonpar.c - parse a large request body on several threads.
 *
 * A 10,000-query batch is about 1 MB of JSON, and Jansson parses it on one
 * core in about as long as the predictions take. Such a body is one object
 * whose bulk is one array (`"queries":[...]`, `"measurements":[...]`), so:
 *   1. one string-aware scan finds, at depth 1, the array value spanning most
 *      of the body and splits it at element commas into k slices;
 *   2. each slice "[e_i, ..., e_j]" is parsed by Jansson on its own thread,
 *      and so is the rest of the body (the array replaced by []), through
 *      the request fan-out of fanout.h;
 *   3. the slices' elements are joined into one array set in place.
 * The result is the tree the serial parse gives: every piece is parsed by
 * Jansson with the same flags, splits fall on ASCII commas between elements
 * (never inside a string or a UTF-8 sequence), depth is checked on the whole
 * body first, duplicate keys at depth 1 are still seen by the outer parse.
 * Whenever anything does not fit this shape, or any piece fails, the body is
 * parsed serially instead, so error messages (line and column) are those of
 * the serial parse.
 */
#include "jsonpar.h"

#include <stdlib.h>
#include <string.h>

#include "fanout.h"
#include "jsonin.h"

#define SLICES_MAX 8
_Static_assert(SLICES_MAX + 1 <= PD_FANOUT_MAX, "the slices and the rest run at once");

typedef struct span {
  size_t open, close;         /* '[' and its ']' */
  size_t cut[SLICES_MAX + 1]; /* slice j holds the elements in (cut[j], cut[j+1]) */
  size_t k;
} span;

/* Find the largest array value at depth 1 and up to `parts` cut points at its
 * element commas, near equal byte fractions. Returns 0 when the body has
 * that shape and the array spans at least half of it. */
static int find_split(const char *b, size_t len, size_t parts, span *sp)
{
  pd_json_scan sc = {0, 0};
  int depth = 0;
  size_t best_open = 0, best_close = 0, open = 0;
  for (size_t i = 0; i < len; i++) {
    char c = b[i];
    if (pd_json_scan_string(&sc, c))
      continue;
    if (c == '{' || c == '[') {
      if (depth == 1 && c == '[')
        open = i;
      depth++;
    } else if (c == '}' || c == ']') {
      depth--;
      if (depth == 1 && c == ']' && i - open > best_close - best_open) {
        best_open = open;
        best_close = i;
      }
    }
  }
  if (best_close == 0 || 2 * (best_close - best_open) < len)
    return -1;
  sp->open = best_open;
  sp->close = best_close;
  sp->k = 0;
  sp->cut[0] = best_open;
  size_t step = (best_close - best_open) / parts;
  sc = (pd_json_scan){0, 0};
  depth = 0; /* relative to the split array's elements */
  for (size_t i = best_open + 1; i < best_close && sp->k + 1 < parts; i++) {
    char c = b[i];
    if (pd_json_scan_string(&sc, c))
      continue;
    if (c == '{' || c == '[')
      depth++;
    else if (c == '}' || c == ']')
      depth--;
    else if (c == ',' && depth == 0 && i >= best_open + step * (sp->k + 1))
      sp->cut[++sp->k] = i;
  }
  sp->cut[++sp->k] = best_close;
  return sp->k >= 2 ? 0 : -1;
}

typedef struct slice_job {
  char *text; /* "[" + elements + "]", or the rest of the body */
  size_t len;
  json_t *arr; /* what Jansson made of it, or NULL */
} slice_job;

static void *slice_parse(void *arg)
{
  slice_job *j = arg;
  j->arr = j->text ? json_loadb(j->text, j->len, JSON_REJECT_DUPLICATES, NULL) : NULL;
  return NULL;
}

/* Copy b[from..to) between a prefix and a suffix into a new buffer. */
static char *splice(const char *pre, const char *b, size_t from, size_t to, const char *post,
                    size_t *outlen)
{
  size_t pl = strlen(pre), sl = strlen(post), n = pl + (to - from) + sl;
  char *t = malloc(n + 1);
  if (!t)
    return NULL;
  memcpy(t, pre, pl);
  memcpy(t + pl, b + from, to - from);
  memcpy(t + pl + (to - from), post, sl);
  t[n] = '\0';
  *outlen = n;
  return t;
}

/* The parallel path; NULL when it does not apply or a piece fails. */
static json_t *parse_split(const char *b, size_t len, size_t parts)
{
  span sp;
  if (parts > SLICES_MAX)
    parts = SLICES_MAX;
  if (find_split(b, len, parts, &sp))
    return NULL;
  /* jobs[0..k): the slices; jobs[k]: the rest of the body, the array
   * emptied: b[0..open] + b[close..] = "[]" */
  slice_job jobs[SLICES_MAX + 1];
  memset(jobs, 0, sizeof jobs);
  int ok = 1;
  for (size_t j = 0; j < sp.k && ok; j++)
    ok = (jobs[j].text = splice("[", b, sp.cut[j] + 1, sp.cut[j + 1], "]", &jobs[j].len)) != NULL;
  slice_job *rest = &jobs[sp.k];
  rest->len = sp.open + 1 + (len - sp.close);
  if (ok && (rest->text = malloc(rest->len + 1))) {
    memcpy(rest->text, b, sp.open + 1);
    memcpy(rest->text + sp.open + 1, b + sp.close, len - sp.close);
    pd_fanout(sp.k + 1, slice_parse, jobs, sizeof *jobs);
  }
  json_t *outer = rest->arr, *all = json_array();
  free(rest->text);
  /* join: every slice must be a non-empty array (a trailing comma would
   * otherwise slip through as an empty last slice) */
  for (size_t j = 0; j < sp.k; j++) {
    ok = ok && jobs[j].arr && json_array_size(jobs[j].arr) > 0 && all &&
         json_array_extend(all, jobs[j].arr) == 0;
    json_decref(jobs[j].arr);
    free(jobs[j].text);
  }
  /* put the joined array where the empty one is */
  const char *key = NULL;
  json_t *v = NULL;
  int placed = 0;
  if (ok && json_is_object(outer)) {
    json_object_foreach(outer, key, v)
    {
      if (json_is_array(v) && json_array_size(v) == 0 && !placed) {
        placed = json_array_extend(v, all) == 0;
      } else if (json_is_array(v) && json_array_size(v) == 0) {
        placed = 0; /* two empty arrays: which one was split is ambiguous */
        break;
      }
    }
  }
  json_decref(all);
  if (!placed) {
    json_decref(outer);
    return NULL;
  }
  return outer;
}

int pd_json_parse_large(const char *buf, size_t len, int depth_max, unsigned threads, json_t **out,
                        pd_reply *rep)
{
  if (threads > 1 && len >= PD_JSON_PARALLEL_MIN && !pd_json_too_deep(buf, len, depth_max)) {
    json_t *root = parse_split(buf, len, threads);
    if (root) {
      *out = root;
      return 0;
    }
  }
  return pd_json_parse(buf, len, depth_max, out, rep); /* also the error path */
}
