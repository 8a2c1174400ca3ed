/*
 * device_ref.c - device references by name or CUDA name, and the close
 * matches offered when a reference names no device or several (device_ref.h).
 * Close means: one contains the other (ignoring case), or an edit distance of
 * at most a third of the reference's length (at least 2); only the closest
 * tier (within one edit of the best) is offered. The device list is
 * read from the store, so this path is for lookups that missed the
 * in-memory registry, never for a prediction by exact device name.
 */
#include "device_ref.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ctx.h"
#include "registry.h"
#include "reply.h"

#define CANDIDATES_MAX 5

int pd_device_has_cuda_name(const pascal_store_device *d, const char *cuda_name)
{
  return d->cuda_name[0] && cuda_name && !strcasecmp(d->cuda_name, cuda_name);
}

/* Levenshtein distance of a and b, ASCII case ignored (both < 64 bytes). */
static size_t distance(const char *a, const char *b)
{
  size_t n = strlen(a), m = strlen(b), row[PASCAL_STORE_NAME_MAX + 1];
  if (n > PASCAL_STORE_NAME_MAX || m > PASCAL_STORE_NAME_MAX)
    return SIZE_MAX;
  for (size_t j = 0; j <= m; j++)
    row[j] = j;
  for (size_t i = 1; i <= n; i++) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= m; j++) {
      size_t up = row[j];
      size_t sub = diag + (tolower((unsigned char)a[i - 1]) != tolower((unsigned char)b[j - 1]));
      size_t best = up + 1 < row[j - 1] + 1 ? up + 1 : row[j - 1] + 1;
      row[j] = sub < best ? sub : best;
      diag = up;
    }
  }
  return row[m];
}

static int contains_nocase(const char *hay, const char *needle)
{
  size_t n = strlen(needle);
  if (n == 0)
    return 0;
  for (; *hay; hay++)
    if (!strncasecmp(hay, needle, n))
      return 1;
  return 0;
}

/* How close `ref` is to `text` ("" never is): 0 containment, else the edit
 * distance; SIZE_MAX when not close at all. */
static size_t closeness(const char *ref, const char *text)
{
  if (!text[0])
    return SIZE_MAX;
  if (strlen(ref) >= 3 && (contains_nocase(text, ref) || contains_nocase(ref, text)))
    return 0;
  size_t d = distance(ref, text), limit = strlen(ref) / 3;
  return d <= (limit < 2 ? 2 : limit) ? d : SIZE_MAX;
}

typedef struct candidate {
  size_t score;
  const pascal_store_device *dev;
} candidate;

static int by_score(const void *a, const void *b)
{
  const candidate *x = a, *y = b;
  if (x->score != y->score)
    return x->score < y->score ? -1 : 1;
  return strcmp(x->dev->name, y->dev->name);
}

/* 404 naming `field` with the candidates (at most CANDIDATES_MAX) in the
 * message and as error.candidates [{name, cuda_name}]. */
static void reply_candidates(pd_reply *rep, const char *field, const char *what, const candidate *c,
                             size_t n)
{
  char list[400] = "";
  size_t used = 0;
  json_t *arr = json_array();
  for (size_t i = 0; i < n && i < CANDIDATES_MAX; i++) {
    const pascal_store_device *d = c[i].dev;
    int w = snprintf(list + used, sizeof list - used, "%s'%s'%s%s%s", i ? ", " : "", d->name,
                     d->cuda_name[0] ? " (" : "", d->cuda_name, d->cuda_name[0] ? ")" : "");
    if (w > 0 && (size_t)w < sizeof list - used)
      used += (size_t)w;
    json_array_append_new(arr, json_pack("{s:s,s:s?}", "name", d->name, "cuda_name",
                                         d->cuda_name[0] ? d->cuda_name : NULL));
  }
  pd_reply_error(rep, 404, "not_found", field, "%s; %s%s", what,
                 n ? "close matches: " : "no device has a close name", n ? list : "");
  json_t *err = rep->json ? json_object_get(rep->json, "error") : NULL;
  if (err)
    json_object_set_new(err, "candidates", arr);
  else
    json_decref(arr);
}

int pd_device_resolve(pd_ctx *ctx, const char *ref, const char *field, int cuda_only, char *name,
                      pd_reply *rep)
{
  pascal_store_device *list = NULL;
  size_t n = 0;
  pascal_error err;
  pascal_error_clear(&err);
  int st = pascal_store_device_list(ctx->store, &list, &n, &err);
  if (st != PASCAL_STORE_OK) {
    pd_reply_store_error(rep, st, &err);
    return -1;
  }
  candidate *c = calloc(n ? n : 1, sizeof *c);
  if (!c) {
    free(list);
    pd_reply_error(rep, 500, "internal", NULL, "out of memory");
    return -1;
  }
  size_t exact = 0, same_cuda = 0, close = 0;
  const pascal_store_device *hit = NULL;
  for (size_t i = 0; i < n && !exact && !cuda_only; i++)
    if (!strcmp(list[i].name, ref))
      exact = 1, hit = &list[i];
  for (size_t i = 0; i < n && !exact; i++)
    if (pd_device_has_cuda_name(&list[i], ref)) {
      c[same_cuda++] = (candidate){0, &list[i]};
      hit = &list[i];
    }
  int rc = 0;
  if (exact || same_cuda == 1) {
    snprintf(name, PASCAL_STORE_NAME_MAX, "%s", hit->name);
  } else if (same_cuda > 1) {
    char what[200];
    snprintf(what, sizeof what, "the CUDA name '%.63s' names %zu devices; name one of them", ref,
             same_cuda);
    reply_candidates(rep, field, what, c, same_cuda);
    rc = -1;
  } else {
    for (size_t i = 0; i < n; i++) {
      size_t a = closeness(ref, list[i].name), b = closeness(ref, list[i].cuda_name);
      if (a != SIZE_MAX || b != SIZE_MAX)
        c[close++] = (candidate){a < b ? a : b, &list[i]};
    }
    qsort(c, close, sizeof *c, by_score);
    /* only the best tier: a containment hides mere typos of other names */
    size_t keep = 0;
    while (keep < close && c[keep].score <= c[0].score + 1)
      keep++;
    close = keep;
    char what[200];
    snprintf(what, sizeof what,
             cuda_only ? "no device has the CUDA name '%.63s'"
                       : "no device is named or CUDA-named '%.63s'",
             ref);
    reply_candidates(rep, field, what, c, close);
    rc = -1;
  }
  free(c);
  free(list);
  return rc;
}

const char *pd_device_for_prediction(pd_ctx *ctx, const char *ref, char *name, pd_reply *rep)
{
  int any = 0;
  (void)pd_registry_newest(ctx->registry, ref, PASCAL_WORKLOAD_SCAN, &any);
  if (any)
    return ref;
  return pd_device_resolve(ctx, ref, "device", 0, name, rep) ? NULL : name;
}
