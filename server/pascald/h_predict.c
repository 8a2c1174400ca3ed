/*
 * h_predict.c - POST /v1/predict (one scan or GEMM query, or a batch
 * {"queries":[...]}) and GET /v1/predict?device=..&o=.. for curl.
 *
 * Answers come only from the in-memory registry of frozen models (paper
 * Algorithm predict, through libpascal's pascal_model_predict_*): the
 * calibration named by "calibration", else the device's newest frozen
 * calibration of the query's workload. A batch answers item by item: a bad
 * item gets its own error object and does not fail the others. The batch size
 * is capped by cfg.batch_max (default 10,000 items; 413 above it) and by the
 * body cap (1 MiB: about 100 bytes per query for a full batch).
 *
 * A single query is answered with the codec's full prediction document (with
 * its explanation, identical to `pascal predict --json`), or, with
 * "explain": false (GET: explain=false), with the compact answer {workload,
 * K, rho, fill_bytes, M, rule, expected_error_pct, extrapolated, device,
 * calibration}: what an autotuner ranks by. When the calibration's device
 * carries measured peaks, both forms end with time_s and bound, the fills
 * run through the latency pipeline (pascal/latency.h). The expected error is looked up
 * in the validation the registry keeps beside each model (validation.h). Batch items are compact by
 * default; "explain": true in the batch gives every item the full document. Every answer is
 * streamed as text by the codec's writer (pascal_codec_*_prediction_write, json_text.h): no Jansson
 * tree and no allocation per answered item (only a refused item builds its
 * small error object through reply.h).
 *
 * Queries are read without a tree either: the query string into flat
 * fields (qfields.h), a body from its text (jread.h), a batch item by item
 * after counting its items, so that an oversized batch is refused before
 * any item is read. A body of any other shape is parsed by Jansson and its
 * members become the same flat fields: one validation (query_parse) for
 * every source, so every error reads the same whichever way it came.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctx.h"
#include "device_ref.h"
#include "handlers.h"
#include "jread.h"
#include "jsonin.h"
#include "jsonpar.h"
#include "pascal/grow.h"
#include "pascal/predict_time.h"
#include "pascal_codec.h"
#include "qfields.h"
#include "registry.h"
#include "reply.h"

static const char *const scan_keys[] = {"device", "calibration", "o", "path", "d",
                                        "m",      "N",           "W", NULL};
static const char *const gemm_keys[] = {"device", "calibration", "Mg", "Ng", "Kg", NULL};

typedef struct pd_query {
  char device[64];
  int64_t calibration; /* 0: newest frozen of the device */
  pascal_workload workload;
  pascal_scan_key key;
  uint32_t N;
  double W;
  pascal_gemm_shape shape;
} pd_query;

/* Read the fields of a query: 0, or -1 with rep filled. *read counts the
 * fields present (every required one, and the optional ones given), so
 * that the caller can tell whether any other key is there. */
static int query_fields(const pd_fields *q, int gemm, const char *prefix, pd_query *out,
                        size_t *read, pd_reply *rep)
{
  int cal;
  if (pd_field_str(q, "device", 1, out->device, sizeof out->device, prefix, rep) ||
      (cal = pd_field_i64(q, "calibration", 0, 1, INT64_MAX, &out->calibration, prefix, rep)) < 0)
    return -1;
  uint64_t a, b, c;
  if (gemm) {
    if (pd_field_u64(q, "Mg", 1, 1, UINT32_MAX, &a, prefix, rep) ||
        pd_field_u64(q, "Ng", 1, 1, UINT32_MAX, &b, prefix, rep) ||
        pd_field_u64(q, "Kg", 1, 1, UINT32_MAX, &c, prefix, rep))
      return -1;
    out->shape.Mg = (uint32_t)a;
    out->shape.Ng = (uint32_t)b;
    out->shape.Kg = (uint32_t)c;
    *read = 4 + (cal == 0);
    return 0;
  }
  char path[8];
  uint64_t d = 0, N;
  int d_absent;
  if (pd_field_u64(q, "o", 1, 1, PASCAL_PLAN_MAX_OCCUPANCY, &a, prefix, rep) ||
      pd_field_str(q, "path", 1, path, sizeof path, prefix, rep) ||
      (d_absent = pd_field_u64(q, "d", 0, 0, PASCAL_PLAN_MAX_DEPTH, &d, prefix, rep)) < 0 ||
      pd_field_u64(q, "m", 1, 0, PASCAL_PLAN_MAX_COMPUTE, &b, prefix, rep) ||
      pd_field_u64(q, "N", 1, 1, UINT32_MAX, &N, prefix, rep) ||
      pd_field_num(q, "W", 1, PASCAL_PREDICT_W_MIN, PASCAL_PREDICT_W_MAX, &out->W, prefix, rep))
    return -1;
  pascal_error err;
  char f[96];
  if (pascal_path_parse(path, "path", &out->key.path, &err) != PASCAL_OK) {
    snprintf(f, sizeof f, "%s%spath", prefix ? prefix : "", prefix ? "." : "");
    pd_reply_error(rep, 400, "invalid_value", f, "path must be \"sync\" or \"tma\"");
    return -1;
  }
  /* The depth belongs to the path: never a silent d = 0 for tma. (Its
   * name is formatted only for an error: this runs for every batch item.) */
  int d_ok = out->key.path == PASCAL_PATH_TMA ? !d_absent && d != 0 : d == 0;
  if (!d_ok)
    snprintf(f, sizeof f, "%s%sd", prefix ? prefix : "", prefix ? "." : "");
  if (out->key.path == PASCAL_PATH_TMA && d_absent) {
    pd_reply_error(rep, 400, "missing_field", f,
                   "field '%s' (prefetch depth >= 1) is required "
                   "for path tma",
                   f);
    return -1;
  }
  if (out->key.path == PASCAL_PATH_TMA && d == 0) {
    pd_reply_error(rep, 400, "invalid_value", f,
                   "field '%s' must be >= 1 for path tma "
                   "(d = 0 is the sync path)",
                   f);
    return -1;
  }
  if (out->key.path == PASCAL_PATH_SYNC && d != 0) {
    pd_reply_error(rep, 400, "invalid_value", f, "field '%s' must be 0 (or absent) for path sync",
                   f);
    return -1;
  }
  out->key.o = (uint32_t)a;
  out->key.d = (uint32_t)d;
  out->key.m = (uint32_t)b;
  out->N = (uint32_t)N;
  *read = 6 + (cal == 0) + (d_absent == 0);
  return 0;
}

/* Validate one query's fields, wherever they were read from; `prefix`
 * names the query in errors ("queries[3]"). An unknown key is refused
 * before anything else is reported, as if the keys were checked first;
 * they are only compared with the allowed list when a field fails or the
 * query holds more keys than were read (that comparison was a quarter of a
 * batch item's time). */
static int query_parse(const pd_fields *q, const char *prefix, pd_query *out, pd_reply *rep)
{
  memset(out, 0, sizeof *out);
  const char *gemm_field = pd_fields_get(q, "Mg")   ? "Mg"
                           : pd_fields_get(q, "Ng") ? "Ng"
                           : pd_fields_get(q, "Kg") ? "Kg"
                                                    : NULL;
  int gemm = gemm_field != NULL;
  for (size_t i = 2; gemm && scan_keys[i]; i++)
    if (pd_fields_get(q, scan_keys[i])) {
      char f[96];
      snprintf(f, sizeof f, "%s%s%s", prefix ? prefix : "", prefix ? "." : "", gemm_field);
      pd_reply_error(rep, 400, "mixed_query", f, PASCAL_PREDICT_MIXED_MESSAGE);
      return -1;
    }
  out->workload = gemm ? PASCAL_WORKLOAD_GEMM : PASCAL_WORKLOAD_SCAN;
  size_t read = 0;
  int rc = query_fields(q, gemm, prefix, out, &read, rep);
  if ((rc || read != q->n) && pd_fields_strict(q, gemm ? gemm_keys : scan_keys, prefix, rep))
    return -1;
  return rc;
}

/* A computed prediction, ready to be written either way. */
typedef struct pd_answer {
  int64_t calibration;
  const char *device; /* owned by the (never freed) model */
  pascal_scan_prediction scan;
  pascal_gemm_prediction gemm;
  int timed; /* 1: `time` holds the latency pipeline's answer */
  pascal_latency time;
} pd_answer;

/* time_s and the dominating bound, when the calibration's device carries
 * its peaks (pascal/predict_time.h); none for a fractional scan horizon. */
static void answer_time(const pd_reg_entry *e, const pd_query *q, pd_answer *a)
{
  pascal_status st =
      q->workload == PASCAL_WORKLOAD_SCAN
          ? pascal_predict_time_scan(e->model, &q->key, q->N, q->W, a->scan.fill_bytes, &a->time,
                                     NULL)
          : pascal_predict_time_gemm(e->model, &q->shape, a->gemm.fill_bytes, &a->time, NULL);
  a->timed = st == PASCAL_OK;
}

/* Look up the calibration and predict (read lock held by the caller). */
static int answer(pd_ctx *ctx, const pd_query *q, const char *prefix, pd_answer *a, pd_reply *rep)
{
  char named[PASCAL_STORE_NAME_MAX];
  const char *device = pd_device_for_prediction(ctx, q->device, named, rep);
  if (!device)
    return -1;
  const pd_reg_entry *e;
  if (q->calibration) {
    e = pd_registry_by_id(ctx->registry, q->calibration);
    if (!e) {
      pd_reply_error(rep, 404, "not_found", "calibration",
                     "no frozen calibration %lld (collecting or unknown)",
                     (long long)q->calibration);
      return -1;
    }
    if (strcmp(e->device->name, device) != 0 || e->workload != q->workload) {
      pd_reply_error(rep, 422, "calibration_mismatch", "calibration",
                     "calibration %lld is a %s calibration of device '%s'",
                     (long long)q->calibration, pascal_workload_name(e->workload), e->device->name);
      return -1;
    }
  } else {
    int any = 0;
    e = pd_registry_newest(ctx->registry, device, q->workload, &any);
    if (!e) {
      pd_reply_error(rep, 404, "not_found", "device",
                     any ? "device '%s' has no frozen %s calibration"
                         : "device '%s' has no frozen calibration",
                     device, pascal_workload_name(q->workload));
      return -1;
    }
  }
  a->calibration = e->id;
  a->device = e->device->name;
  pascal_error err;
  pascal_error_clear(&err);
  pascal_status st = q->workload == PASCAL_WORKLOAD_SCAN
                         ? pascal_model_predict_scan(e->model, &q->key, q->N, q->W, &a->scan, &err)
                         : pascal_model_predict_gemm(e->model, &q->shape, &a->gemm, &err);
  if (st != PASCAL_OK) {
    pd_reply_pascal_error_in(rep, &err, prefix); /* names the item: "queries[3].m" */
    return -1;
  }
  if (q->workload == PASCAL_WORKLOAD_SCAN)
    pascal_validation_expect_scan(&e->validation, &q->key, &a->scan);
  else
    pascal_validation_expect_gemm(&e->validation, &q->shape, &a->gemm);
  answer_time(e, q, a);
  return 0;
}

/* One answer as a JSON object: the codec's prediction members, then the
 * device and calibration that answered. On a value the codec refuses (a
 * non-finite number) the writer's status says so; the caller rewinds. */
static void write_answer(pascal_jtext *w, const pd_query *q, const pd_answer *a,
                         pascal_codec_detail detail)
{
  pascal_jtext_object_begin(w, NULL);
  if (q->workload == PASCAL_WORKLOAD_SCAN)
    pascal_codec_scan_prediction_write(w, &q->key, q->N, q->W, &a->scan, detail);
  else
    pascal_codec_gemm_prediction_write(w, &q->shape, &a->gemm, detail);
  pascal_jtext_string(w, "device", a->device);
  pascal_jtext_int(w, "calibration", a->calibration);
  if (a->timed) {
    pascal_jtext_real(w, "time_s", a->time.time_s);
    pascal_jtext_string(w, "bound", pascal_bound_name(a->time.bound));
  }
  pascal_jtext_object_end(w);
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

static void count(pd_ctx *ctx, uint64_t ok, uint64_t refused)
{
  if (ok)
    atomic_fetch_add_explicit(&ctx->stats.predictions, ok, memory_order_relaxed);
  if (refused)
    atomic_fetch_add_explicit(&ctx->stats.predictions_refused, refused, memory_order_relaxed);
}

/* Read and remove the single query's "explain" (default true): a boolean or
 * 0/1, or, as a query string carries it, "true"/"false"/"1"/"0". */
static int take_explain(pd_fields *q, int *explain, pd_reply *rep)
{
  const pd_field *f = pd_fields_get(q, "explain");
  const pd_value *v = f ? &f->v : NULL;
#define PD_IS_TEXT(t) (v->kind == PD_V_STRING && v->len == sizeof t - 1 && !memcmp(v->s, t, v->len))
  if (!v)
    *explain = 1;
  else if (v->kind == PD_V_BOOL)
    *explain = (int)v->i;
  else if (v->kind == PD_V_INT && (v->i == 0 || v->i == 1))
    *explain = (int)v->i;
  else if (PD_IS_TEXT("true") || PD_IS_TEXT("1"))
    *explain = 1;
  else if (PD_IS_TEXT("false") || PD_IS_TEXT("0"))
    *explain = 0;
  else {
    pd_reply_error(rep, 400, "invalid_type", "explain", "explain must be true or false");
    return -1;
  }
#undef PD_IS_TEXT
  pd_fields_del(q, "explain");
  return 0;
}

#define PD_ANSWER_RESERVE 3072 /* bytes: an explained answer fits without regrowth */
#define PD_ITEM_RESERVE   264  /* bytes: a compact batch item, expected error and time included */

static void predict_single(pd_ctx *ctx, pd_fields *fields, pd_reply *rep)
{
  pd_query q;
  pd_answer a;
  int explain;
  if (take_explain(fields, &explain, rep))
    return;
  pd_registry_rdlock(ctx->registry);
  int failed = query_parse(fields, NULL, &q, rep) || answer(ctx, &q, NULL, &a, rep);
  pd_registry_unlock(ctx->registry);
  if (failed) {
    count(ctx, 0, 1);
    return;
  }
  pascal_jtext w;
  pascal_error err;
  pascal_jtext_init(&w, PD_ANSWER_RESERVE);
  write_answer(&w, &q, &a, explain ? PASCAL_CODEC_EXPLAINED : PASCAL_CODEC_COMPACT);
  pascal_jtext_newline(&w);
  int ok = pascal_jtext_status(&w, &err) == PASCAL_OK;
  count(ctx, ok, !ok);
  if (!ok) {
    pascal_jtext_free(&w);
    pd_reply_pascal_error(rep, &err);
    return;
  }
  size_t len = 0;
  char *text = pascal_jtext_take(&w, &len);
  pd_reply_text(rep, 200, text, len, "application/json");
}

/* --- batches ----------------------------------------------------------------
 * A batch is read item by item into `batch_item`s (validated queries, or
 * the error an item gets), at most cfg.batch_max of them: the item after
 * the last allowed one refuses the batch (413) before anything is
 * predicted or the rest of the body is read. The predictions then run in
 * slices on up to cfg.threads threads. */

typedef struct batch_item {
  pd_query q;
  json_t *error; /* the item's error body {"error":{...},"status":N}, or NULL */
} batch_item;

typedef struct batch {
  batch_item *items;
  size_t n, cap;
  pascal_codec_detail detail;
} batch;

static void batch_free(batch *b)
{
  for (size_t i = 0; i < b->n; i++)
    json_decref(b->items[i].error);
  free(b->items);
  memset(b, 0, sizeof *b);
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

/* Add the next item: its fields, or NULL when it is not a JSON object.
 * -1 with rep filled when the batch is refused (too many items, memory). */
static int batch_add(pd_ctx *ctx, batch *b, const pd_fields *fields, pd_reply *rep)
{
  if (b->n == ctx->cfg.batch_max) {
    batch_refuse(ctx, rep);
    return -1;
  }
  if (pascal_grow((void **)&b->items, &b->cap, b->n + 1, sizeof *b->items)) {
    pd_reply_error(rep, 500, "internal", NULL, "out of memory reading the batch");
    return -1;
  }
  char prefix[32];
  item_prefix(prefix, b->n);
  batch_item *it = &b->items[b->n++];
  it->error = NULL;
  pd_reply r;
  memset(&r, 0, sizeof r);
  if (!fields)
    pd_reply_error(&r, 400, "invalid_type", prefix, "each query must be a JSON object");
  else if (query_parse(fields, prefix, &it->q, &r) == 0)
    return 0;
  it->error = item_error(&r);
  return 0;
}

/* One slice [lo, hi) of a batch, answered as comma-separated items into
 * `out` (slice 0 writes into the reply itself). Slices only read the
 * items, the registry (read lock) and the models, so they can run on
 * several threads at once. */
typedef struct batch_slice {
  pd_ctx *ctx;
  const batch *b;
  size_t lo, hi, ok;
  pascal_jtext *out;
  pascal_jtext own; /* the text of slices 1.. */
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
    char prefix[32];
    item_prefix(prefix, i);
    pd_reply item;
    memset(&item, 0, sizeof item);
    pd_answer a;
    pascal_jtext_mark mark = pascal_jtext_mark_get(sl->out);
    if (answer(sl->ctx, &it->q, prefix, &a, &item) == 0) {
      write_answer(sl->out, &it->q, &a, sl->b->detail);
      pascal_error err;
      if (pascal_jtext_status(sl->out, &err) == PASCAL_OK) {
        sl->ok++;
        continue;
      }
      pascal_jtext_rewind(sl->out, mark); /* a value the codec refuses */
      pd_reply_pascal_error_in(&item, &err, prefix);
    }
    json_t *e = item_error(&item);
    pascal_jtext_json(sl->out, NULL, e);
    json_decref(e);
  }
  pd_registry_unlock(sl->ctx->registry);
  return NULL;
}

#define PD_BATCH_SLICES_MAX 8
#define PD_BATCH_SLICE_MIN  1024 /* items per extra thread: below, one thread */

/* The batch answer is written as text directly (a Jansson tree for 10,000
 * items would cost more than the predictions), in up to cfg.threads slices
 * on as many threads, concatenated in order. */
static void batch_answer(pd_ctx *ctx, const batch *b, pd_reply *rep)
{
  size_t n = b->n;
  size_t k = n / PD_BATCH_SLICE_MIN + 1;
  if (k > ctx->cfg.threads)
    k = ctx->cfg.threads;
  if (k > PD_BATCH_SLICES_MAX)
    k = PD_BATCH_SLICES_MAX;
  if (k < 1)
    k = 1;
  /* the reply: {"results":[ slice 0, slice 1, ... ],"count","ok","errors"};
   * about PD_ITEM_RESERVE bytes per compact item */
  pascal_jtext w;
  pascal_jtext_init(&w, 64 + PD_ITEM_RESERVE * n);
  pascal_jtext_object_begin(&w, NULL);
  pascal_jtext_array_begin(&w, "results");
  batch_slice sl[PD_BATCH_SLICES_MAX];
  pthread_t tid[PD_BATCH_SLICES_MAX];
  int started[PD_BATCH_SLICES_MAX] = {0};
  memset(sl, 0, sizeof sl);
  for (size_t j = 0; j < k; j++) {
    sl[j].ctx = ctx;
    sl[j].b = b;
    sl[j].lo = n * j / k;
    sl[j].hi = n * (j + 1) / k;
    if (j > 0)
      pascal_jtext_init(&sl[j].own, PD_ITEM_RESERVE * (sl[j].hi - sl[j].lo));
    sl[j].out = j > 0 ? &sl[j].own : &w;
  }
  for (size_t j = 1; j < k; j++)
    started[j] = pthread_create(&tid[j], NULL, slice_run, &sl[j]) == 0;
  slice_run(&sl[0]);
  for (size_t j = 1; j < k; j++) {
    if (started[j])
      pthread_join(tid[j], NULL);
    else
      slice_run(&sl[j]); /* no thread: answer it here */
  }
  size_t ok = sl[0].ok;
  pascal_status st = PASCAL_OK;
  for (size_t j = 1; j < k; j++) { /* k > 1 only when every slice has items */
    if (st == PASCAL_OK)
      st = pascal_jtext_status(&sl[j].own, NULL);
    pascal_jtext_raw(&w, NULL, sl[j].own.text, sl[j].own.len);
    ok += sl[j].ok;
    pascal_jtext_free(&sl[j].own);
  }
  pascal_jtext_array_end(&w);
  pascal_jtext_uint(&w, "count", n);
  pascal_jtext_uint(&w, "ok", ok);
  pascal_jtext_uint(&w, "errors", n - ok);
  pascal_jtext_object_end(&w);
  pascal_jtext_newline(&w);
  count(ctx, ok, n - ok);
  size_t len = 0;
  char *text = st == PASCAL_OK ? pascal_jtext_take(&w, &len) : NULL;
  pascal_jtext_free(&w);
  if (!text) {
    pd_reply_error(rep, 500, "internal", NULL, "out of memory writing the batch answer");
    return;
  }
  pd_reply_text(rep, 200, text, len, "application/json");
}

/* --- bodies read from their text ---------------------------------------------- */

/* The "queries" array, read from the text: its items (flat objects) one by
 * one. 1 when it was read to its ']', -1 when the batch was refused (rep
 * filled), 0 when the text has a shape left to Jansson. */
static int batch_from_text(pd_ctx *ctx, pd_jread *r, batch *b, pd_reply *rep)
{
  if (!pd_jread_take(r, '['))
    return 0;
  r->p--; /* count from the '[' */
  if (pd_jread_count_objects(r, ctx->cfg.batch_max) > ctx->cfg.batch_max) {
    batch_refuse(ctx, rep);
    return -1;
  }
  r->p++;
  if (pd_jread_take(r, ']'))
    return 1;
  pd_fields item;
  pd_fields_init(&item);
  do {
    if (pd_jread_flat_object(r, &item))
      return 0;
    if (batch_add(ctx, b, &item, rep))
      return -1;
  } while (pd_jread_take(r, ','));
  return pd_jread_take(r, ']') ? 1 : 0;
}

/* A POST body read from its text: a single query (a flat object), or a
 * batch {"explain": bool (optional, first), "queries": [flat objects]}.
 * 1 when answered (or refused), 0 when the body has another shape (or is
 * not JSON): the caller parses it with Jansson and answers from the tree,
 * which gives every error its message. */
static int post_from_text(pd_ctx *ctx, pd_request *req, pd_reply *rep)
{
  if (ctx->cfg.json_depth_max < 3)
    return 0; /* the tree path refuses the nesting */
  pd_jread r = {req->body, req->body + req->body_len};
  pd_fields top;
  pd_fields_init(&top);
  if (!pd_jread_take(&r, '{'))
    return 0;
  int empty = pd_jread_take(&r, '}');
  while (!empty) {
    const char *k;
    size_t klen;
    pd_value v;
    if (top.n == PD_FIELDS_INLINE || pd_jread_key(&r, &top, &k, &klen))
      return 0;
    if (klen == 7 && !memcmp(k, "queries", 7)) {
      const pd_field *ex = pd_fields_get(&top, "explain");
      if (top.n > (ex != NULL) || (ex && ex->v.kind != PD_V_BOOL))
        return 0;
      batch b;
      memset(&b, 0, sizeof b);
      b.detail = ex && ex->v.i ? PASCAL_CODEC_EXPLAINED : PASCAL_CODEC_COMPACT;
      int rc = batch_from_text(ctx, &r, &b, rep);
      if (rc == 1 && (!pd_jread_take(&r, '}') || !pd_jread_at_end(&r)))
        rc = 0;
      if (rc == 1)
        batch_answer(ctx, &b, rep);
      batch_free(&b);
      return rc != 0;
    }
    if (pd_jread_scalar(&r, &v))
      return 0;
    top.f[top.n++] = (pd_field){k, klen, v};
    if (!pd_jread_take(&r, ','))
      break;
  }
  if ((!empty && !pd_jread_take(&r, '}')) || !pd_jread_at_end(&r))
    return 0;
  predict_single(ctx, &top, rep);
  return 1;
}

/* --- bodies read from a Jansson tree ------------------------------------------ */

static void batch_from_tree(pd_ctx *ctx, json_t *body, pd_reply *rep)
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
    item.n = 0;
    failed = json_is_object(q)
                 ? pd_fields_from_json(q, &item, rep) || batch_add(ctx, &b, &item, rep)
                 : batch_add(ctx, &b, NULL, rep);
  }
  pd_fields_free(&item);
  if (!failed)
    batch_answer(ctx, &b, rep);
  batch_free(&b);
}

static void post_from_tree(pd_ctx *ctx, pd_request *req, pd_reply *rep)
{
  json_t *body = NULL;
  if (pd_json_parse_large(req->body, req->body_len, ctx->cfg.json_depth_max, ctx->cfg.threads,
                          &body, rep))
    return;
  if (json_object_get(body, "queries")) {
    batch_from_tree(ctx, body, rep);
  } else {
    pd_fields fs;
    pd_fields_init(&fs);
    if (pd_fields_from_json(body, &fs, rep) == 0)
      predict_single(ctx, &fs, rep);
    pd_fields_free(&fs);
  }
  json_decref(body);
}

void pd_h_predict_post(pd_ctx *ctx, pd_request *req, pd_reply *rep)
{
  if (!post_from_text(ctx, req, rep))
    post_from_tree(ctx, req, rep);
}

void pd_h_predict_get(pd_ctx *ctx, pd_request *req, pd_reply *rep)
{
  static const char *const strings[] = {"device", "path", "explain", NULL};
  pd_fields fs;
  pd_fields_init(&fs);
  if (pd_fields_from_args(req->conn, strings, &fs, rep) == 0)
    predict_single(ctx, &fs, rep);
  pd_fields_free(&fs);
}
