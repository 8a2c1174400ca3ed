/*
 * h_bounds.c - static questions (paper section 3): POST/GET /v1/bounds (gap
 * law, LRU certificate and exact LRU, policy lower bound, baselines; Theorems
 * 1-3), POST/GET /v1/bounds/coherence (Theorem 4) and POST/GET
 * /v1/bounds/feedback (Theorem 5); GET takes the same fields as query
 * arguments and answers the same document. The codec computes and encodes, so the answers are the
 * same documents `pascal bounds` prints; this file only validates HTTP input.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ctx.h"
#include "handlers.h"
#include "jsonin.h"
#include "pascal_codec.h"
#include "qfields.h"
#include "reply.h"

/* Phases cap: bounded by the body size already; this bounds GET and batch. */
#define PD_PHASES_MAX 1000000u

static void reply_codec(pd_reply *rep, pascal_status st, json_t *out, const pascal_error *err)
{
  if (st == PASCAL_OK)
    pd_reply_json(rep, 200, out);
  else
    pd_reply_pascal_error(rep, err);
}

#define PD_BOUNDS_RESERVE 1024 /* bytes: an answer for a few phases fits without regrowth */

/* The answer is streamed as text by the codec's writer (no Jansson tree),
 * the same document pascal_codec_bounds builds. */
static void bounds_run(pd_reply *rep, uint64_t n, uint64_t c, const uint64_t *phases, size_t m,
                       uint64_t ways, uint64_t sets)
{
  pascal_codec_bounds_query q = {n, c, phases, m, ways, sets};
  pascal_jtext w;
  pascal_error err;
  pascal_error_clear(&err);
  pascal_jtext_init(&w, PD_BOUNDS_RESERVE);
  pascal_status st = pascal_codec_bounds_write(&w, &q, &err);
  pascal_jtext_newline(&w);
  size_t len = 0;
  char *text = st == PASCAL_OK ? pascal_jtext_take(&w, &len) : NULL;
  pascal_jtext_free(&w);
  if (st != PASCAL_OK)
    pd_reply_pascal_error(rep, &err);
  else if (!text)
    pd_reply_error(rep, 500, "internal", NULL, "out of memory writing the answer");
  else
    pd_reply_text(rep, 200, text, len, "application/json");
}

/* The keys of a bounds question, one slot each (qfields.h): "phases" is
 * text in a query string, the others numbers. */
enum { BOUNDS_N, BOUNDS_C, BOUNDS_PHASES, BOUNDS_WAYS, BOUNDS_SETS };

int pd_bounds_keys_init(pd_keys *k)
{
  memset(k, 0, sizeof *k);
  return pd_keys_add(k, "N", 0) != BOUNDS_N || pd_keys_add(k, "C", 0) != BOUNDS_C ||
                 pd_keys_add(k, "phases", 1) != BOUNDS_PHASES ||
                 pd_keys_add(k, "ways", 0) != BOUNDS_WAYS ||
                 pd_keys_add(k, "sets", 0) != BOUNDS_SETS
             ? -1
             : 0;
}

/* N, C, ways, sets: from a body (Jansson) or a query string, indexed by
 * the bounds keys; one check. */
static int common_fields(const pd_fields *b, uint64_t *n, uint64_t *c, uint64_t *ways,
                         uint64_t *sets, pd_reply *rep)
{
  return pd_value_u64(pd_fields_at(b, BOUNDS_N), "N", 1, 1, UINT64_C(1) << 62, n, NULL, rep) ||
         pd_value_u64(pd_fields_at(b, BOUNDS_C), "C", 1, 1, UINT64_C(1) << 62, c, NULL, rep) ||
         pd_value_u64(pd_fields_at(b, BOUNDS_WAYS), "ways", 0, 0, UINT64_C(1) << 62, ways, NULL,
                      rep) < 0 ||
         pd_value_u64(pd_fields_at(b, BOUNDS_SETS), "sets", 0, 0, UINT64_C(1) << 62, sets, NULL,
                      rep) < 0;
}

void pd_h_bounds_post(pd_ctx *ctx, pd_request *req, pd_reply *rep)
{
  static const char *const allowed[] = {"N", "C", "phases", "ways", "sets", NULL};
  json_t *b = req->json;
  uint64_t n, c, ways = 0, sets = 0;
  pd_fields fs;
  pd_fields_init(&fs);
  pd_fields_index(&fs, &ctx->bounds_keys);
  int bad = pd_json_strict(b, allowed, NULL, rep) || pd_fields_from_json(b, &fs, rep) ||
            common_fields(&fs, &n, &c, &ways, &sets, rep);
  pd_fields_free(&fs);
  if (bad)
    return;
  json_t *ph = json_object_get(b, "phases");
  if (!json_is_array(ph) || json_array_size(ph) == 0 || json_array_size(ph) > PD_PHASES_MAX) {
    pd_reply_error(rep, 400, ph ? "invalid_type" : "missing_field", "phases",
                   "phases must be an array of 1..%u integers in [0, N)", PD_PHASES_MAX);
    return;
  }
  size_t m = json_array_size(ph);
  uint64_t *phases = malloc(m * sizeof *phases);
  if (!phases) {
    pd_reply_error(rep, 500, "internal", NULL, "out of memory");
    return;
  }
  for (size_t i = 0; i < m; i++) {
    json_t *v = json_array_get(ph, i);
    if (!json_is_integer(v) || json_integer_value(v) < 0) {
      char f[32];
      snprintf(f, sizeof f, "phases[%zu]", i);
      pd_reply_error(rep, 400, "invalid_type", f, "%s must be a non-negative integer", f);
      free(phases);
      return;
    }
    phases[i] = (uint64_t)json_integer_value(v);
  }
  bounds_run(rep, n, c, phases, m, ways, sets);
  free(phases);
}

#define PD_PHASES_INLINE 64 /* a list this long is read without an allocation */

/* phases=0,4,9 (comma-separated decimal integers, each below 2^64) into
 * `small` when it fits, else into an allocation: *out is one or the other. */
static int parse_phase_list(const char *s, uint64_t small[PD_PHASES_INLINE], uint64_t **out,
                            size_t *m, pd_reply *rep)
{
  size_t cap = 1;
  for (const char *p = s; *p; p++)
    cap += *p == ',';
  if (cap > PD_PHASES_MAX) {
    pd_reply_error(rep, 400, "out_of_range", "phases", "at most %u phases", PD_PHASES_MAX);
    return -1;
  }
  uint64_t *v = cap <= PD_PHASES_INLINE ? small : malloc(cap * sizeof *v);
  if (!v) {
    pd_reply_error(rep, 500, "internal", NULL, "out of memory");
    return -1;
  }
  size_t n = 0;
  const char *p = s;
  while (*p >= '0' && *p <= '9') {
    uint64_t x = 0;
    int over = 0;
    for (; *p >= '0' && *p <= '9'; p++) {
      unsigned digit = (unsigned)(*p - '0');
      over |= x > (UINT64_MAX - digit) / 10;
      x = 10 * x + digit;
    }
    if (over)
      break;
    v[n++] = x;
    if (*p == '\0') {
      *out = v;
      *m = n;
      return 0;
    }
    if (*p != ',')
      break;
    p++;
  }
  if (v != small)
    free(v);
  pd_reply_error(rep, 400, "invalid_value", "phases",
                 "phases must be comma-separated non-negative integers, e.g. 0,4");
  return -1;
}

/* The query string is read straight into the bounds keys' slots (no
 * Jansson tree). */
void pd_h_bounds_get(pd_ctx *ctx, pd_request *req, pd_reply *rep)
{
  static const char *const allowed[] = {"N", "C", "phases", "ways", "sets", NULL};
  pd_fields fs;
  pd_fields_init(&fs);
  pd_fields_index(&fs, &ctx->bounds_keys);
  uint64_t n, c, ways = 0, sets = 0, small[PD_PHASES_INLINE], *phases = NULL;
  size_t m = 0;
  int bad = pd_fields_from_args(req->conn, NULL, &fs, rep) ||
            ((size_t)__builtin_popcountll(fs.present) != fs.n &&
             pd_fields_strict(&fs, allowed, NULL, rep)) ||
            common_fields(&fs, &n, &c, &ways, &sets, rep);
  const pd_value *ph = pd_fields_at(&fs, BOUNDS_PHASES);
  if (!bad && ph->kind == PD_V_ABSENT) {
    pd_reply_error(rep, 400, "missing_field", "phases", "field 'phases' is required");
    bad = 1;
  }
  if (!bad)
    bad = parse_phase_list(ph->s, small, &phases, &m, rep);
  pd_fields_free(&fs);
  if (bad)
    return;
  bounds_run(rep, n, c, phases, m, ways, sets);
  if (phases != small)
    free(phases);
}

/* The fields of a question from the JSON body (POST) or the query string
 * (GET), refused unless every key is `allowed`: one check for both. */
static int question_fields(pd_request *req, int from_query, const char *const *allowed,
                           pd_fields *fs, pd_reply *rep)
{
  static const char *const no_strings[] = {NULL};
  pd_fields_init(fs);
  int bad = from_query ? pd_fields_from_args(req->conn, no_strings, fs, rep)
                       : pd_fields_from_json(req->json, fs, rep);
  return bad || pd_fields_strict(fs, allowed, NULL, rep);
}

static void coherence(pd_request *req, int from_query, pd_reply *rep)
{
  static const char *const allowed[] = {"sigma", "C", "M", "E", NULL};
  uint64_t sigma, c, m, e;
  pd_fields fs;
  int bad = question_fields(req, from_query, allowed, &fs, rep) ||
            pd_field_u64(&fs, "sigma", 1, 1, UINT64_C(1) << 62, &sigma, NULL, rep) ||
            pd_field_u64(&fs, "C", 1, 1, UINT64_C(1) << 62, &c, NULL, rep) ||
            pd_field_u64(&fs, "M", 1, 2, UINT64_C(1) << 32, &m, NULL, rep) ||
            pd_field_u64(&fs, "E", 1, 1, UINT64_C(1) << 62, &e, NULL, rep);
  pd_fields_free(&fs);
  if (bad)
    return;
  json_t *out = NULL;
  pascal_error err;
  pascal_error_clear(&err);
  pascal_status st = pascal_codec_coherence(sigma, c, m, e, &out, &err);
  reply_codec(rep, st, out, &err);
}

static void feedback(pd_request *req, int from_query, pd_reply *rep)
{
  static const char *const allowed[] = {"alpha", "beta", "d", "lambda_hit", "lambda_miss", NULL};
  double alpha, beta, lh, lm;
  uint64_t d;
  pd_fields fs;
  int bad = question_fields(req, from_query, allowed, &fs, rep) ||
            pd_field_num(&fs, "alpha", 1, 0, 1e300, &alpha, NULL, rep) ||
            pd_field_num(&fs, "beta", 1, 0, 1e300, &beta, NULL, rep) ||
            pd_field_u64(&fs, "d", 1, 2, 1u << 20, &d, NULL, rep) ||
            pd_field_num(&fs, "lambda_hit", 1, 0, 1e300, &lh, NULL, rep) ||
            pd_field_num(&fs, "lambda_miss", 1, 0, 1e300, &lm, NULL, rep);
  pd_fields_free(&fs);
  if (bad)
    return;
  json_t *out = NULL;
  pascal_error err;
  pascal_error_clear(&err);
  pascal_status st = pascal_codec_feedback(alpha, beta, (uint32_t)d, lh, lm, &out, &err);
  reply_codec(rep, st, out, &err);
}

void pd_h_coherence_post(pd_ctx *ctx, pd_request *req, pd_reply *rep)
{
  coherence(req, 0, rep);
}

void pd_h_coherence_get(pd_ctx *ctx, pd_request *req, pd_reply *rep)
{
  coherence(req, 1, rep);
}

void pd_h_feedback_post(pd_ctx *ctx, pd_request *req, pd_reply *rep)
{
  feedback(req, 0, rep);
}

void pd_h_feedback_get(pd_ctx *ctx, pd_request *req, pd_reply *rep)
{
  feedback(req, 1, rep);
}
