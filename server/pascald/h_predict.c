/*
 * h_predict.c - POST /v1/predict (one scan or GEMM query, or a batch
 * {"queries":[...]}) and GET /v1/predict?device=..&o=.. for curl.
 *
 * Answers come only from the in-memory registry of frozen models through
 * libpascal's one path from a query to its answer (pascal_answer_query,
 * paper Algorithm predict): the calibration named by "calibration", else the
 * device's newest frozen calibration of the query's workload. A query is
 * read by predict_query.c, a batch by predict_batch.c (item by item; a bad
 * item gets its own error object and does not fail the others; at most
 * cfg.batch_max items, 413 above; the body cap, 1 MiB, allows about 100
 * bytes per query for a full batch).
 *
 * A single query is answered with the codec's full answer document (with
 * its explanation, identical to `pascal predict --json`), or, with
 * "explain": false (GET: explain=false), with the compact answer {workload,
 * K, rho, fill_bytes, M, rule, expected_error_pct, extrapolated, device,
 * calibration}: what an autotuner ranks by. When the calibration's device
 * carries measured peaks, both forms end with time_s, bound and
 * time_source (calibrated on the calibration's own kernel times, or the
 * pipeline on peaks: pascal/time_model.h). Batch items are compact by default; "explain": true in
 * the batch gives every item the full document. Every answer is streamed as text by the codec's
 * writer (pascal_codec_answer_write, json_text.h): no Jansson tree and no allocation per answered
 * item (only a refused item builds its small error object through reply.h).
 *
 * Queries are read without a tree either: the query string into flat
 * fields (qfields.h), a body from its text (jread.h), a batch item by item
 * after counting its items, so that an oversized batch is refused before
 * any item is read. A body of any other shape is parsed by Jansson and its
 * members become the same flat fields: one reader (pd_query_read) for every
 * source, so every error reads the same whichever way it came.
 */
#include <string.h>

#include "ctx.h"
#include "handlers.h"
#include "jread.h"
#include "jsonin.h"
#include "jsonpar.h"
#include "predict_batch.h"
#include "predict_query.h"
#include "registry.h"
#include "reply.h"

#define PD_ANSWER_RESERVE 3072 /* bytes: an explained answer fits without regrowth */

/* Read and remove the single query's "explain" (default true): a boolean or
 * 0/1, or, as a query string carries it, "true"/"false"/"1"/"0". Fields
 * read into the predict key table (a query string) have its slot. */
static int take_explain(pd_ctx *ctx, pd_fields *q, int *explain, pd_reply *rep)
{
  pd_field *f = q->keys != &ctx->query_keys.k          ? pd_fields_get(q, "explain")
                : (q->present >> PD_QUERY_EXPLAIN) & 1 ? &q->f[q->at[PD_QUERY_EXPLAIN]]
                                                       : NULL;
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
  if (f)
    pd_fields_del(q, f);
  return 0;
}

static void predict_single(pd_ctx *ctx, pd_fields *fields, pd_reply *rep)
{
  pd_query q;
  pascal_answer a;
  pascal_codec_origin origin;
  int explain;
  if (take_explain(ctx, fields, &explain, rep))
    return;
  pd_registry_rdlock(ctx->registry);
  int failed = pd_query_read(fields, &ctx->query_keys, NULL, &q, rep) ||
               pd_query_answer(ctx, &q, NULL, &a, &origin, rep);
  pd_registry_unlock(ctx->registry);
  if (failed) {
    pd_predict_count(ctx, 0, 1);
    return;
  }
  pascal_jtext w;
  pascal_error err;
  if (rep->room && rep->room_cap >= PD_ANSWER_RESERVE)
    pascal_jtext_init_in(&w, rep->room, rep->room_cap); /* the connection's: sent in place */
  else
    pascal_jtext_init(&w, PD_ANSWER_RESERVE);
  pascal_codec_answer_write(&w, &q.q, &a, &origin,
                            explain ? PASCAL_CODEC_EXPLAINED : PASCAL_CODEC_COMPACT);
  pascal_jtext_newline(&w);
  int ok = pascal_jtext_status(&w, &err) == PASCAL_OK;
  pd_predict_count(ctx, ok, !ok);
  if (!ok) {
    pascal_jtext_free(&w);
    pd_reply_pascal_error(rep, &err);
    return;
  }
  size_t len = 0;
  char *text = pascal_jtext_take(&w, &len);
  pd_reply_text(rep, 200, text, len, "application/json");
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
    int slot;
    pd_value v;
    if (top.n == PD_FIELDS_INLINE || pd_jread_key(&r, &top, &k, &klen, &slot))
      return 0;
    if (klen == 7 && !memcmp(k, "queries", 7)) {
      const pd_field *ex = pd_fields_get(&top, "explain");
      if (top.n > (ex != NULL) || (ex && ex->v.kind != PD_V_BOOL))
        return 0;
      return pd_batch_from_text(ctx, &r, ex && ex->v.i, rep);
    }
    if (pd_jread_scalar(&r, &v))
      return 0;
    pd_fields_push(&top, k, klen, &v, slot);
    if (!pd_jread_take(&r, ','))
      break;
  }
  if ((!empty && !pd_jread_take(&r, '}')) || !pd_jread_at_end(&r))
    return 0;
  predict_single(ctx, &top, rep);
  return 1;
}

static void post_from_tree(pd_ctx *ctx, pd_request *req, pd_reply *rep)
{
  json_t *body = NULL;
  if (pd_json_parse_large(req->body, req->body_len, ctx->cfg.json_depth_max, ctx->cfg.threads,
                          &body, rep))
    return;
  if (json_object_get(body, "queries")) {
    pd_batch_from_tree(ctx, body, rep);
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
  pd_fields fs;
  pd_fields_init(&fs);
  pd_fields_index(&fs, &ctx->query_keys.k); /* read into the table's slots */
  if (pd_fields_from_args(req->conn, NULL, &fs, rep) == 0)
    predict_single(ctx, &fs, rep);
  pd_fields_free(&fs);
}
