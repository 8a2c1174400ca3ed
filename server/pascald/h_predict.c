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
 * K, rho, fill_bytes, M, rule, device, calibration}: what an autotuner ranks
 * by, written without a Jansson tree. Batch items are compact by default;
 * "explain": true in the batch gives every item the full document.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctx.h"
#include "handlers.h"
#include "jsonin.h"
#include "pascal_codec.h"
#include "registry.h"
#include "reply.h"
#include "sbuf.h"

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

/* Validate one query object; `prefix` names it in errors ("queries[3]"). */
static int query_parse(json_t *q, const char *prefix, pd_query *out, pd_reply *rep) {
  memset(out, 0, sizeof *out);
  if (!json_is_object(q)) {
    pd_reply_error(rep, 400, "invalid_type", prefix, "each query must be a JSON object");
    return -1;
  }
  int gemm = json_object_get(q, "Mg") || json_object_get(q, "Ng") || json_object_get(q, "Kg");
  out->workload = gemm ? PASCAL_WORKLOAD_GEMM : PASCAL_WORKLOAD_SCAN;
  if (pd_json_strict(q, gemm ? gemm_keys : scan_keys, prefix, rep) ||
      pd_get_name(q, "device", 1, out->device, sizeof out->device, prefix, rep) ||
      pd_get_i64(q, "calibration", 0, 1, INT64_MAX, &out->calibration, prefix, rep) < 0)
    return -1;
  uint64_t a, b, c;
  if (gemm) {
    if (pd_get_u64(q, "Mg", 1, 1, UINT32_MAX, &a, prefix, rep) ||
        pd_get_u64(q, "Ng", 1, 1, UINT32_MAX, &b, prefix, rep) ||
        pd_get_u64(q, "Kg", 1, 1, UINT32_MAX, &c, prefix, rep))
      return -1;
    out->shape.Mg = (uint32_t)a;
    out->shape.Ng = (uint32_t)b;
    out->shape.Kg = (uint32_t)c;
    return 0;
  }
  char path[8];
  uint64_t d = 0, N;
  if (pd_get_u64(q, "o", 1, 1, PASCAL_PLAN_MAX_OCCUPANCY, &a, prefix, rep) ||
      pd_get_str(q, "path", 1, path, sizeof path, prefix, rep) ||
      pd_get_u64(q, "d", 0, 0, PASCAL_PLAN_MAX_DEPTH, &d, prefix, rep) < 0 ||
      pd_get_u64(q, "m", 1, 0, PASCAL_PLAN_MAX_COMPUTE, &b, prefix, rep) ||
      pd_get_u64(q, "N", 1, 1, UINT32_MAX, &N, prefix, rep) ||
      pd_get_num(q, "W", 1, 1e-9, 1e15, &out->W, prefix, rep))
    return -1;
  pascal_error err;
  if (pascal_path_parse(path, "path", &out->key.path, &err) != PASCAL_OK) {
    char f[96];
    snprintf(f, sizeof f, "%s%spath", prefix ? prefix : "", prefix ? "." : "");
    pd_reply_error(rep, 400, "invalid_value", f, "path must be \"sync\" or \"tma\"");
    return -1;
  }
  out->key.o = (uint32_t)a;
  out->key.d = (uint32_t)d;
  out->key.m = (uint32_t)b;
  out->N = (uint32_t)N;
  return 0;
}

/* A computed prediction, ready to be written either way. */
typedef struct pd_answer {
  int64_t calibration;
  const char *device; /* owned by the (never freed) model */
  pascal_scan_prediction scan;
  pascal_gemm_prediction gemm;
} pd_answer;

/* Look up the calibration and predict (read lock held by the caller). */
static int answer(pd_ctx *ctx, const pd_query *q, const char *prefix, pd_answer *a,
                  pd_reply *rep) {
  const pd_reg_entry *e;
  if (q->calibration) {
    e = pd_registry_by_id(ctx->registry, q->calibration);
    if (!e) {
      pd_reply_error(rep, 404, "not_found", "calibration",
                     "no frozen calibration %lld (collecting or unknown)",
                     (long long)q->calibration);
      return -1;
    }
    if (strcmp(e->device->name, q->device) != 0 || e->workload != q->workload) {
      pd_reply_error(rep, 422, "calibration_mismatch", "calibration",
                     "calibration %lld is a %s calibration of device '%s'",
                     (long long)q->calibration, pascal_workload_name(e->workload),
                     e->device->name);
      return -1;
    }
  } else {
    int any = 0;
    e = pd_registry_newest(ctx->registry, q->device, q->workload, &any);
    if (!e) {
      pd_reply_error(rep, 404, "not_found", "device",
                     any ? "device '%s' has no frozen %s calibration"
                         : "device '%s' has no frozen calibration",
                     q->device, pascal_workload_name(q->workload));
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
  return 0;
}

/* The full document: the codec's prediction (as `pascal predict --json`)
 * plus the device and calibration that answered. */
static json_t *answer_document(const pd_query *q, const pd_answer *a, pd_reply *rep) {
  json_t *out = NULL;
  pascal_error err;
  pascal_error_clear(&err);
  pascal_status st =
      q->workload == PASCAL_WORKLOAD_SCAN
          ? pascal_codec_scan_prediction_encode(&q->key, q->N, q->W, &a->scan, &out, &err)
          : pascal_codec_gemm_prediction_encode(&q->shape, &a->gemm, &out, &err);
  if (st != PASCAL_OK) {
    pd_reply_pascal_error(rep, &err);
    return NULL;
  }
  json_object_set_new(out, "device", json_string(a->device));
  json_object_set_new(out, "calibration", json_integer((json_int_t)a->calibration));
  return out;
}

/* Append an unsigned decimal without printf (hot path of large batches). */
static void put_u64(pd_sbuf *b, uint64_t v) {
  char d[24];
  size_t n = sizeof d;
  do {
    d[--n] = (char)('0' + v % 10);
    v /= 10;
  } while (v);
  pd_sbuf_put(b, d + n, sizeof d - n);
}

static void put_str(pd_sbuf *b, const char *s) { pd_sbuf_put(b, s, strlen(s)); }

/* "queries[i]", the name of batch item i in errors, without printf. */
static void item_prefix(char out[32], size_t i) {
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

/* The compact batch item, written straight into the reply text. Device
 * names are [A-Za-z0-9._-] (validated), so they need no JSON escaping. */
static void answer_compact(pd_sbuf *b, const pd_query *q, const pd_answer *a) {
  int scan = q->workload == PASCAL_WORKLOAD_SCAN;
  put_str(b, scan ? "{\"workload\":\"scan\",\"K\":" : "{\"workload\":\"gemm\",\"K\":");
  pd_sbuf_real(b, scan ? a->scan.K : a->gemm.K);
  put_str(b, ",\"rho\":");
  pd_sbuf_real(b, scan ? a->scan.rho : a->gemm.rho);
  put_str(b, ",\"fill_bytes\":");
  pd_sbuf_real(b, scan ? a->scan.fill_bytes : a->gemm.fill_bytes);
  put_str(b, ",\"M\":");
  put_u64(b, scan ? a->scan.M : a->gemm.M);
  put_str(b, ",\"rule\":\"");
  put_str(b, pascal_rule_name(scan ? a->scan.why.rule : a->gemm.why.rule));
  put_str(b, "\",\"device\":\"");
  put_str(b, a->device);
  put_str(b, "\",\"calibration\":");
  put_u64(b, (uint64_t)a->calibration);
  put_str(b, "}");
}

static void count(pd_ctx *ctx, uint64_t ok, uint64_t refused) {
  if (ok) atomic_fetch_add_explicit(&ctx->stats.predictions, ok, memory_order_relaxed);
  if (refused)
    atomic_fetch_add_explicit(&ctx->stats.predictions_refused, refused, memory_order_relaxed);
}

/* Parse and answer one query; 0 with *a filled, or -1 with rep filled. */
static int predict_one(pd_ctx *ctx, json_t *item, const char *prefix, pd_query *q, pd_answer *a,
                       pd_reply *rep) {
  if (query_parse(item, prefix, q, rep)) return -1;
  pd_registry_rdlock(ctx->registry);
  int rc = answer(ctx, q, prefix, a, rep);
  pd_registry_unlock(ctx->registry);
  return rc;
}

/* Read and remove the single query's "explain" (default true): a boolean,
 * or from a URL "true"/"false"/"1"/"0". */
static int take_explain(json_t *body, int *explain, pd_reply *rep) {
  json_t *v = json_object_get(body, "explain");
  const char *t = json_is_string(v) ? json_string_value(v) : NULL;
  if (!v) *explain = 1;
  else if (json_is_boolean(v)) *explain = json_is_true(v);
  else if (json_is_integer(v) && (json_integer_value(v) == 0 || json_integer_value(v) == 1))
    *explain = (int)json_integer_value(v);
  else if (t && (!strcmp(t, "true") || !strcmp(t, "false"))) *explain = !strcmp(t, "true");
  else {
    pd_reply_error(rep, 400, "invalid_type", "explain", "explain must be true or false");
    return -1;
  }
  json_object_del(body, "explain");
  return 0;
}

static void predict_single(pd_ctx *ctx, json_t *body, pd_reply *rep) {
  pd_query q;
  pd_answer a;
  int explain;
  if (take_explain(body, &explain, rep)) return;
  int ok = predict_one(ctx, body, NULL, &q, &a, rep) == 0;
  json_t *doc = ok && explain ? answer_document(&q, &a, rep) : NULL;
  ok = ok && (!explain || doc);
  count(ctx, ok, !ok);
  if (doc) {
    pd_reply_json(rep, 200, doc);
  } else if (ok) {
    pd_sbuf b = {0};
    answer_compact(&b, &q, &a);
    pd_sbuf_put(&b, "\n", 1);
    if (b.failed) {
      pd_sbuf_free(&b);
      pd_reply_error(rep, 500, "internal", NULL, "out of memory");
    } else {
      pd_reply_text(rep, 200, b.p, b.len, "application/json");
    }
  }
}

/* Append a JSON value as compact text. */
static void put_json(pd_sbuf *b, const json_t *v) {
  char *t = json_dumps(v, JSON_COMPACT | JSON_REAL_PRECISION(17));
  if (!t) {
    b->failed = 1;
    return;
  }
  pd_sbuf_put(b, t, strlen(t));
  free(t);
}

/* One slice [lo, hi) of a batch, answered into its own text buffer. Slices
 * only read the parsed body, the registry (read lock) and the models, so
 * they can run on several threads at once. */
typedef struct batch_slice {
  pd_ctx *ctx;
  json_t *qs;
  int explain;
  size_t lo, hi, ok;
  pd_sbuf out;
} batch_slice;

static void *slice_run(void *arg) {
  batch_slice *sl = arg;
  for (size_t i = sl->lo; i < sl->hi; i++) {
    char prefix[32];
    item_prefix(prefix, i);
    pd_reply item;
    memset(&item, 0, sizeof item);
    pd_query q;
    pd_answer a;
    json_t *doc = NULL;
    if (i > sl->lo) pd_sbuf_put(&sl->out, ",", 1);
    if (predict_one(sl->ctx, json_array_get(sl->qs, i), prefix, &q, &a, &item) == 0 &&
        (!sl->explain || (doc = answer_document(&q, &a, &item)))) {
      sl->ok++;
      if (doc) put_json(&sl->out, doc);
      else answer_compact(&sl->out, &q, &a);
    } else { /* the item's error body {"error":{...}} takes its place */
      json_object_set_new(item.json, "status", json_integer(item.status));
      put_json(&sl->out, item.json);
    }
    json_decref(doc);
    pd_reply_clear(&item);
  }
  return NULL;
}

#define PD_BATCH_SLICES_MAX 8
#define PD_BATCH_SLICE_MIN 1024 /* items per extra thread: below, one thread */

/* The batch answer is written as text directly (a Jansson tree for 10,000
 * items would cost more than the predictions), in up to cfg.threads slices
 * on as many threads, concatenated in order. */
static void predict_batch(pd_ctx *ctx, json_t *body, pd_reply *rep) {
  static const char *const allowed[] = {"queries", "explain", NULL};
  if (pd_json_strict(body, allowed, NULL, rep)) return;
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
  size_t n = json_array_size(qs);
  if (n > ctx->cfg.batch_max) {
    pd_reply_error(rep, 413, "batch_too_large", "queries",
                   "a batch holds at most %zu queries (got %zu)", ctx->cfg.batch_max, n);
    return;
  }
  size_t k = n / PD_BATCH_SLICE_MIN + 1;
  if (k > ctx->cfg.threads) k = ctx->cfg.threads;
  if (k > PD_BATCH_SLICES_MAX) k = PD_BATCH_SLICES_MAX;
  if (k < 1) k = 1;
  batch_slice sl[PD_BATCH_SLICES_MAX];
  pthread_t tid[PD_BATCH_SLICES_MAX];
  int started[PD_BATCH_SLICES_MAX] = {0};
  memset(sl, 0, sizeof sl);
  for (size_t j = 0; j < k; j++) {
    sl[j].ctx = ctx;
    sl[j].qs = qs;
    sl[j].explain = ex && json_is_true(ex);
    sl[j].lo = n * j / k;
    sl[j].hi = n * (j + 1) / k;
  }
  for (size_t j = 1; j < k; j++) started[j] = pthread_create(&tid[j], NULL, slice_run, &sl[j]) == 0;
  slice_run(&sl[0]);
  for (size_t j = 1; j < k; j++) {
    if (started[j]) pthread_join(tid[j], NULL);
    else slice_run(&sl[j]); /* no thread: answer it here */
  }
  pd_sbuf b = {0};
  size_t ok = 0;
  int failed = 0;
  pd_sbuf_put(&b, "{\"results\":[", 12);
  for (size_t j = 0; j < k; j++) {
    if (j > 0) pd_sbuf_put(&b, ",", 1); /* k > 1 only when every slice has items */
    if (sl[j].out.len) pd_sbuf_put(&b, sl[j].out.p, sl[j].out.len);
    failed |= sl[j].out.failed;
    ok += sl[j].ok;
    pd_sbuf_free(&sl[j].out);
  }
  pd_sbuf_printf(&b, "],\"count\":%zu,\"ok\":%zu,\"errors\":%zu}\n", n, ok, n - ok);
  count(ctx, ok, n - ok);
  if (b.failed || failed) {
    pd_sbuf_free(&b);
    pd_reply_error(rep, 500, "internal", NULL, "out of memory writing the batch answer");
    return;
  }
  pd_reply_text(rep, 200, b.p, b.len, "application/json");
}

void pd_h_predict_post(pd_ctx *ctx, pd_request *req, pd_reply *rep) {
  if (json_object_get(req->json, "queries")) predict_batch(ctx, req->json, rep);
  else predict_single(ctx, req->json, rep);
}

void pd_h_predict_get(pd_ctx *ctx, pd_request *req, pd_reply *rep) {
  static const char *const strings[] = {"device", "path", "explain", NULL};
  json_t *q = NULL;
  if (pd_query_object(req->conn, strings, &q, rep)) return;
  predict_single(ctx, q, rep);
  json_decref(q);
}
