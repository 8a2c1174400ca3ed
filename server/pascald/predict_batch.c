/*
 * predict_batch.c - batches of /v1/predict queries (predict_batch.h). Items
 * are read into `batch_item`s (a read query, or the error the item gets);
 * the answers are written as text directly (a Jansson tree for 10,000 items
 * would cost more than the predictions), by up to cfg.threads slices on as
 * many threads (fanout.h), each slice holding the registry's read lock for
 * its items and writing them in order into its own text, concatenated in
 * slice order: the items come back in the order they were asked. A large
 * answer is streamed: written a chunk of items at a time as the client
 * reads it (pd_stream, reply.h), so that its memory is bounded per
 * connection however slowly the client reads; a streamed chunk's slice
 * texts are sent one after the other, never copied into one. A large
 * batch's items are read on as many threads too, each slice from where the
 * counter found its first item.
 */
#include "predict_batch.h"

#include <assert.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "ctx.h"
#include "fanout.h"
#include "jsonin.h"
#include "pascal/grow.h"
#include "predict_query.h"
#include "registry.h"
#include "reply.h"

/* Bytes of an answered item, as the shipped calibrations answer (a scan's
 * compact item with its interval, validation and an extrapolated
 * coordinate is about 600, explained about 2,050). */
#define PD_ITEM_RESERVE           640
#define PD_ITEM_RESERVE_EXPLAINED 2176
#define PD_BATCH_SLICES_MAX       8
#define PD_BATCH_SLICE_MIN        1024 /* items per extra thread: below, one thread */
/* A body at least this long has its items' starts kept while they are
 * counted, to be read apart (about 900 items). */
#define PD_BATCH_APART_BYTES      (64u * 1024u)
/* An answer estimated above PD_BATCH_INLINE_MAX bytes is streamed in chunks
 * of about PD_BATCH_CHUNK_BYTES (1,638 compact items, answered on two
 * threads; 481 explained): what a client that never reads holds
 * (docs/http-api.md, "Connections"). */
#define PD_BATCH_INLINE_MAX       (1u << 20)
#define PD_BATCH_CHUNK_BYTES      (1u << 20)
_Static_assert(PD_BATCH_SLICES_MAX <= PD_FANOUT_MAX, "every slice gets its thread");

typedef struct batch_item {
  pd_query q;
  json_t *error; /* the item's error body {"error":{...},"status":N}, or NULL */
} batch_item;

typedef struct batch {
  batch_item *items;
  size_t n, cap;
  pascal_codec_detail detail;
} batch;

void pd_predict_count(pd_ctx *ctx, uint64_t ok, uint64_t refused)
{
  if (ok)
    atomic_fetch_add_explicit(&ctx->stats.predictions, ok, memory_order_relaxed);
  if (refused)
    atomic_fetch_add_explicit(&ctx->stats.predictions_refused, refused, memory_order_relaxed);
}

static size_t item_reserve(const batch *b)
{
  return b->detail == PASCAL_CODEC_EXPLAINED ? PD_ITEM_RESERVE_EXPLAINED : PD_ITEM_RESERVE;
}

static void batch_free(batch *b)
{
  for (size_t i = 0; i < b->n; i++)
    json_decref(b->items[i].error);
  free(b->items);
  memset(b, 0, sizeof *b);
}

/* "queries[i]", the name of batch item i in errors, without printf. */
static void item_prefix(char out[32], size_t i)
{
  char d[24];
  size_t n = sizeof d;
  do {
    d[--n] = (char)('0' + i % 10);
    i /= 10;
  } while (i);
  memcpy(out, "queries[", 8);
  memcpy(out + 8, d + n, sizeof d - n);
  out[8 + sizeof d - n] = ']';
  out[9 + sizeof d - n] = '\0';
}

/* The error an item answers with: its error body, with its status. */
static json_t *item_error(pd_reply *r)
{
  json_t *e = r->json;
  r->json = NULL;
  json_object_set_new(e, "status", json_integer(r->status));
  return e;
}

static void batch_refuse(pd_ctx *ctx, pd_reply *rep)
{
  pd_reply_error(rep, 413, "batch_too_large", "queries",
                 "a batch holds at most %zu queries; this one holds more", ctx->cfg.batch_max);
}

/* Item i of the batch from its fields, or NULL when it is not a JSON
 * object: its query, or the error it answers with. */
static void item_read(pd_ctx *ctx, batch_item *it, size_t i, pd_fields *fields)
{
  char prefix[32];
  it->error = NULL;
  pd_reply r;
  memset(&r, 0, sizeof r);
  if (fields && pd_query_read(fields, &ctx->query_keys, NULL, &it->q, &r) == 0)
    return;
  /* The item's name is formatted only for an error: read it again, named. */
  pd_reply_clear(&r);
  item_prefix(prefix, i);
  if (!fields)
    pd_reply_error(&r, 400, "invalid_type", prefix, "each query must be a JSON object");
  else
    pd_query_read(fields, &ctx->query_keys, prefix, &it->q, &r);
  it->error = item_error(&r);
}

/* Add the next item (item_read). -1 with rep filled when the batch is
 * refused (too many items, memory). */
static int batch_add(pd_ctx *ctx, batch *b, pd_fields *fields, pd_reply *rep)
{
  if (b->n == ctx->cfg.batch_max) {
    batch_refuse(ctx, rep);
    return -1;
  }
  if (pascal_grow((void **)&b->items, &b->cap, b->n + 1, sizeof *b->items)) {
    pd_reply_error(rep, 500, "internal", NULL, "out of memory reading the batch");
    return -1;
  }
  item_read(ctx, &b->items[b->n], b->n, fields);
  b->n++;
  return 0;
}

/* One slice [lo, hi) of a batch, answered as comma-separated items into
 * `out`. Slices only read the items, the registry (read lock) and the
 * models. */
typedef struct batch_slice {
  pd_ctx *ctx;
  const batch *b;
  size_t lo, hi, ok;
  pascal_jtext *out;
} batch_slice;

static void *slice_run(void *arg)
{
  batch_slice *sl = arg;
  pd_registry_rdlock(sl->ctx->registry);
  for (size_t i = sl->lo; i < sl->hi; i++) {
    const batch_item *it = &sl->b->items[i];
    if (it->error) {
      pascal_jtext_json(sl->out, NULL, it->error);
      continue;
    }
    pd_reply item;
    memset(&item, 0, sizeof item);
    pascal_answer a;
    pascal_codec_origin origin;
    pascal_jtext_mark mark = pascal_jtext_mark_get(sl->out);
    pascal_error err;
    char prefix[32];
    if (pd_query_answer(sl->ctx, &it->q, NULL, &a, &origin, &item) == 0) {
      pascal_codec_answer_write(sl->out, &it->q.q, &a, &origin, sl->b->detail);
      if (pascal_jtext_status(sl->out, &err) == PASCAL_OK) {
        sl->ok++;
        continue;
      }
      pascal_jtext_rewind(sl->out, mark); /* a value the codec refuses */
      item_prefix(prefix, i);
      pd_reply_pascal_error_in(&item, &err, prefix);
    } else { /* the item's name is formatted only for an error: answer it again, named */
      pd_reply_clear(&item);
      item_prefix(prefix, i);
      pd_query_answer(sl->ctx, &it->q, prefix, &a, &origin, &item);
    }
    json_t *e = item_error(&item);
    pascal_jtext_json(sl->out, NULL, e);
    json_decref(e);
  }
  pd_registry_unlock(sl->ctx->registry);
  return NULL;
}

/* Items [lo, hi) of the batch answered by k slices (up to cfg.threads),
 * k in *k: slice 0 appends to parts[0], the document's writer inside its
 * "results" array; slice j > 0 writes into parts[j], emptied first (its
 * room kept) and set to continue the array, so that its text starts with
 * the comma that follows slice j - 1's items. The parts' texts in order
 * are the items' text. Returns how many items were answered (not
 * refused); *status: PASCAL_OK, or the first part's failure. */
static size_t answer_slices(pd_ctx *ctx, const batch *b, size_t lo, size_t hi,
                            pascal_jtext parts[PD_BATCH_SLICES_MAX], size_t *k,
                            pascal_status *status)
{
  size_t n = hi - lo, per_item = item_reserve(b);
  *k = n / PD_BATCH_SLICE_MIN + 1;
  if (*k > ctx->cfg.threads)
    *k = ctx->cfg.threads;
  if (*k > PD_BATCH_SLICES_MAX)
    *k = PD_BATCH_SLICES_MAX;
  if (*k < 1)
    *k = 1;
  batch_slice sl[PD_BATCH_SLICES_MAX];
  memset(sl, 0, sizeof sl);
  for (size_t j = 0; j < *k; j++) {
    sl[j].ctx = ctx;
    sl[j].b = b;
    sl[j].lo = lo + n * j / *k;
    sl[j].hi = lo + n * (j + 1) / *k;
    sl[j].out = &parts[j];
    if (j == 0)
      continue;
    if (parts[j].cap == 0)
      pascal_jtext_init(&parts[j], per_item * (sl[j].hi - sl[j].lo));
    parts[j].len = 0;
    parts[j].comma = 1; /* k > 1 only when every slice has items: slice j - 1 wrote some */
  }
  pd_fanout(*k, slice_run, sl, sizeof *sl);
  size_t ok = 0;
  *status = PASCAL_OK;
  for (size_t j = 0; j < *k; j++) {
    assert(j == 0 || sl[j].lo == sl[j - 1].hi); /* the slices tile the range in order */
    if (*status == PASCAL_OK)
      *status = pascal_jtext_status(&parts[j], NULL);
    ok += sl[j].ok;
  }
  assert(sl[*k - 1].hi == hi && ok <= n);
  return ok;
}

/* The end of the answer: the array closed, then "count", "ok", "errors". */
static void write_tail(pascal_jtext *w, size_t n, size_t ok)
{
  pascal_jtext_array_end(w);
  pascal_jtext_uint(w, "count", n);
  pascal_jtext_uint(w, "ok", ok);
  pascal_jtext_uint(w, "errors", n - ok);
  pascal_jtext_object_end(w);
  pascal_jtext_newline(w);
}

/* A batch answered while it is sent (pd_stream): a chunk of items at a
 * time, each chunk written once the previous one is sent, so that a client
 * that does not read holds pascald to one chunk of text. A chunk is sent
 * as its slices wrote it, part after part; the parts keep their room for
 * the next chunk. */
typedef struct batch_stream {
  pd_ctx *ctx;
  batch b;
  size_t chunk;    /* items per chunk */
  size_t next, ok; /* first item not written yet; answered so far */
  int done;        /* the tail is written */
  /* part[0]: the document's writer (its place kept between chunks);
   * part[j]: slice j's text of the chunk */
  pascal_jtext part[PD_BATCH_SLICES_MAX];
  size_t parts;     /* parts of the chunk being sent */
  size_t cur, sent; /* the part being sent; bytes of it sent */
} batch_stream;

static long stream_read(void *state, char *buf, size_t max)
{
  batch_stream *s = state;
  while (s->cur < s->parts && s->sent == s->part[s->cur].len) {
    s->cur++;
    s->sent = 0;
    if (s->cur < s->parts)
      continue;
    if (s->done)
      return 0;
    s->part[0].len = 0; /* the sent text dropped; the writer's place (comma) kept */
    s->cur = 0;
    pascal_status st = PASCAL_OK;
    if (s->next < s->b.n) {
      size_t hi = s->next + s->chunk < s->b.n ? s->next + s->chunk : s->b.n;
      s->ok += answer_slices(s->ctx, &s->b, s->next, hi, s->part, &s->parts, &st);
      s->next = hi;
    } else {
      write_tail(&s->part[0], s->b.n, s->ok);
      pd_predict_count(s->ctx, s->ok, s->b.n - s->ok);
      s->done = 1;
      s->parts = 1;
      st = pascal_jtext_status(&s->part[0], NULL);
    }
    if (st != PASCAL_OK)
      return -1;
  }
  const pascal_jtext *p = &s->part[s->cur];
  size_t k = p->len - s->sent < max ? p->len - s->sent : max;
  memcpy(buf, p->text + s->sent, k);
  s->sent += k;
  return (long)k;
}

static void stream_free(void *state)
{
  batch_stream *s = state;
  batch_free(&s->b);
  for (size_t j = 0; j < PD_BATCH_SLICES_MAX; j++)
    pascal_jtext_free(&s->part[j]);
  free(s);
}

/* Answer the batch: {"results":[...],"count","ok","errors"}, about
 * item_reserve() bytes per item. An answer that would pass
 * PD_BATCH_INLINE_MAX is streamed instead of built whole; the batch's items
 * move into the stream (b is left empty). */
static void batch_answer(pd_ctx *ctx, batch *b, pd_reply *rep)
{
  size_t n = b->n, per_item = item_reserve(b);
  int streamed = n * per_item > PD_BATCH_INLINE_MAX;
  pascal_jtext parts[PD_BATCH_SLICES_MAX];
  memset(parts, 0, sizeof parts);
  pascal_jtext_init(&parts[0], streamed ? PD_BATCH_CHUNK_BYTES : 64 + per_item * n);
  pascal_jtext_object_begin(&parts[0], NULL);
  pascal_jtext_array_begin(&parts[0], "results");
  if (streamed) {
    batch_stream *s = calloc(1, sizeof *s);
    pd_stream *st = malloc(sizeof *st);
    if (!s || !st) {
      free(s);
      free(st);
      pascal_jtext_free(&parts[0]);
      pd_reply_error(rep, 500, "internal", NULL, "out of memory streaming the batch answer");
      return;
    }
    s->ctx = ctx;
    s->chunk = PD_BATCH_CHUNK_BYTES / per_item;
    s->b = *b;
    memset(b, 0, sizeof *b);
    s->part[0] = parts[0];
    s->parts = 1; /* the document's head first */
    *st = (pd_stream){stream_read, stream_free, s};
    pd_reply_stream(rep, 200, "application/json", st);
    return;
  }
  pascal_status st = PASCAL_OK;
  size_t k = 1;
  size_t ok = answer_slices(ctx, b, 0, n, parts, &k, &st);
  pascal_jtext *w = &parts[0];
  for (size_t j = 1; j < k; j++) { /* each continues the array: its comma is the raw value's */
    if (st == PASCAL_OK) {
      assert(parts[j].len > 0 && parts[j].text[0] == ',');
      pascal_jtext_raw(w, NULL, parts[j].text + 1, parts[j].len - 1);
    }
    pascal_jtext_free(&parts[j]);
  }
  write_tail(w, n, ok);
  pd_predict_count(ctx, ok, n - ok);
  size_t len = 0;
  char *text = st == PASCAL_OK && pascal_jtext_status(w, NULL) == PASCAL_OK
                   ? pascal_jtext_take(w, &len)
                   : NULL;
  pascal_jtext_free(w);
  if (!text) {
    pd_reply_error(rep, 500, "internal", NULL, "out of memory writing the batch answer");
    return;
  }
  pd_reply_text(rep, 200, text, len, "application/json");
}

/* Items [lo, hi) of `n`, read apart: each from its start as the counter
 * found it, the text between two items exactly a comma (and whitespace),
 * as the reading in order takes it; ok 0 where it is not. `stop`: where
 * the reading stopped (after the last item, or at item hi's start). */
typedef struct read_slice {
  pd_ctx *ctx;
  batch *b;
  const char *const *starts;
  const char *end, *stop;
  size_t lo, hi, n;
  int ok;
} read_slice;

/* 1 when r reads a comma and whitespace and then stands at `start`. */
static int at_next_item(pd_jread *r, const char *start)
{
  if (!pd_jread_take(r, ','))
    return 0;
  pd_jread_ws(r);
  return r->p == start;
}

static void *read_slice_run(void *arg)
{
  read_slice *sl = arg;
  pd_fields item;
  pd_fields_init(&item);
  pd_fields_index(&item, &sl->ctx->query_keys.k);
  pd_jread r = {sl->starts[sl->lo], sl->end};
  for (size_t i = sl->lo; i < sl->hi; i++) /* whoever stops, every error NULL or set */
    sl->b->items[i].error = NULL;
  sl->ok = 1;
  for (size_t i = sl->lo; i < sl->hi && sl->ok; i++) {
    sl->ok = (i == sl->lo || at_next_item(&r, sl->starts[i])) && !pd_jread_flat_object(&r, &item);
    if (sl->ok)
      item_read(sl->ctx, &sl->b->items[i], i, &item);
  }
  if (sl->ok && sl->hi < sl->n)
    sl->ok = at_next_item(&r, sl->starts[sl->hi]);
  sl->stop = r.p;
  pd_fields_free(&item);
  return NULL;
}

/* The count items of the array read apart by up to cfg.threads slices
 * (r after its '['; b has room for them): 1 when read to the ']' (r after
 * it), 0 for a shape left to Jansson (b's items hold no query then, only
 * errors to free). */
static int items_apart(pd_ctx *ctx, pd_jread *r, batch *b, const char *const *starts, size_t count)
{
  pd_jread_ws(r);
  if (r->p != starts[0])
    return 0;
  b->n = count;
  size_t k = count / PD_BATCH_SLICE_MIN;
  k = k > ctx->cfg.threads ? ctx->cfg.threads : k;
  k = k > PD_BATCH_SLICES_MAX ? PD_BATCH_SLICES_MAX : k < 1 ? 1 : k;
  read_slice sl[PD_BATCH_SLICES_MAX];
  for (size_t j = 0; j < k; j++)
    sl[j] = (read_slice){.ctx = ctx,
                         .b = b,
                         .starts = starts,
                         .end = r->end,
                         .lo = count * j / k,
                         .hi = count * (j + 1) / k,
                         .n = count};
  pd_fanout(k, read_slice_run, sl, sizeof *sl);
  for (size_t j = 0; j < k; j++)
    if (!sl[j].ok)
      return 0;
  r->p = sl[k - 1].stop;
  return pd_jread_take(r, ']') ? 1 : 0;
}

/* The items of the "queries" array from its text: 1 when read to its ']',
 * -1 when the batch was refused (rep filled), 0 for a shape left to
 * Jansson. */
static int items_from_text(pd_ctx *ctx, pd_jread *r, batch *b, pd_reply *rep)
{
  if (!pd_jread_take(r, '['))
    return 0;
  r->p--; /* count from the '[' */
  const char **starts = NULL;
  size_t kept = ctx->cfg.batch_max + 1;
  if (ctx->cfg.threads > 1 && (size_t)(r->end - r->p) >= PD_BATCH_APART_BYTES)
    starts = malloc(kept * sizeof *starts);
  size_t count = pd_jread_count_objects(r, ctx->cfg.batch_max, starts, starts ? kept : 0);
  if (count > ctx->cfg.batch_max) {
    free(starts);
    batch_refuse(ctx, rep);
    return -1;
  }
  r->p++;
  /* the items' room at once (the count is exact for a well-formed array) */
  if (count && pascal_grow((void **)&b->items, &b->cap, count, sizeof *b->items) == PASCAL_OK)
    pascal_prefault(b->items, count * sizeof *b->items);
  if (starts && count >= 2 * PD_BATCH_SLICE_MIN && b->cap >= count) {
    int rc = items_apart(ctx, r, b, starts, count);
    free(starts);
    return rc;
  }
  free(starts);
  if (pd_jread_take(r, ']'))
    return 1;
  pd_fields item;
  pd_fields_init(&item);
  pd_fields_index(&item, &ctx->query_keys.k); /* each item read into the table's slots */
  do {
    if (pd_jread_flat_object(r, &item))
      return 0;
    if (batch_add(ctx, b, &item, rep))
      return -1;
  } while (pd_jread_take(r, ','));
  return pd_jread_take(r, ']') ? 1 : 0;
}

int pd_batch_from_text(pd_ctx *ctx, pd_jread *r, int explain, pd_reply *rep)
{
  batch b;
  memset(&b, 0, sizeof b);
  b.detail = explain ? PASCAL_CODEC_EXPLAINED : PASCAL_CODEC_COMPACT;
  int rc = items_from_text(ctx, r, &b, rep);
  if (rc == 1 && (!pd_jread_take(r, '}') || !pd_jread_at_end(r)))
    rc = 0;
  if (rc == 1)
    batch_answer(ctx, &b, rep);
  batch_free(&b);
  return rc != 0;
}

void pd_batch_from_tree(pd_ctx *ctx, json_t *body, pd_reply *rep)
{
  static const char *const allowed[] = {"queries", "explain", NULL};
  if (pd_json_strict(body, allowed, NULL, rep))
    return;
  json_t *ex = json_object_get(body, "explain");
  if (ex && !json_is_boolean(ex)) {
    pd_reply_error(rep, 400, "invalid_type", "explain", "explain must be true or false");
    return;
  }
  json_t *qs = json_object_get(body, "queries");
  if (!json_is_array(qs)) {
    pd_reply_error(rep, 400, "invalid_type", "queries", "queries must be an array");
    return;
  }
  if (json_array_size(qs) > ctx->cfg.batch_max) {
    batch_refuse(ctx, rep);
    return;
  }
  batch b;
  memset(&b, 0, sizeof b);
  b.detail = ex && json_is_true(ex) ? PASCAL_CODEC_EXPLAINED : PASCAL_CODEC_COMPACT;
  pd_fields item;
  pd_fields_init(&item);
  int failed = 0;
  for (size_t i = 0; i < json_array_size(qs) && !failed; i++) {
    json_t *q = json_array_get(qs, i);
    pd_fields_clear(&item);
    failed = json_is_object(q)
                 ? pd_fields_from_json(q, &item, rep) || batch_add(ctx, &b, &item, rep)
                 : batch_add(ctx, &b, NULL, rep);
  }
  pd_fields_free(&item);
  if (!failed)
    batch_answer(ctx, &b, rep);
  batch_free(&b);
}
