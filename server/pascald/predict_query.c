/*
 * predict_query.c - one /v1/predict query (predict_query.h): its fields read
 * through the workload's field table (pascal/query.h) with the typed getters
 * of qfields.h, checked by pascal_query_check, and answered by
 * pascal_answer_query from the calibration the registry holds for it.
 */
#include "predict_query.h"

#include <stdio.h>
#include <string.h>

#include "ctx.h"
#include "device_ref.h"
#include "registry.h"
#include "reply.h"

/* What a text field's value may hold ("sync", "tma"). */
#define TEXT_MAX 8

static const pascal_workload workloads[] = {PASCAL_WORKLOAD_SCAN, PASCAL_WORKLOAD_GEMM,
                                            PASCAL_WORKLOAD_ATTENTION};

/* The fields of a query, with a 64-bit filter of their keys' first two
 * bytes: pascal_query_workload asks for every marking field of every
 * workload, and most are absent (a scan query is asked for a dozen GEMM
 * and attention fields); the filter answers those without a look at the
 * keys. */
typedef struct given_fields {
  const pd_fields *fs;
  uint64_t filter;
} given_fields;

static unsigned key_bit(unsigned char c0, unsigned char c1)
{
  return (c0 * 31u + c1) & 63u;
}

static int field_given(const char *name, void *arg)
{
  const given_fields *g = arg;
  unsigned char c0 = (unsigned char)name[0], c1 = c0 ? (unsigned char)name[1] : 0;
  if (!((g->filter >> key_bit(c0, c1)) & 1))
    return 0;
  return pd_fields_get(g->fs, name) != NULL;
}

/* A query error from libpascal as the API words it. */
static void reply_query_error(pd_reply *rep, const pascal_error *err)
{
  const char *code = err->status == PASCAL_EMISSING ? "missing_field"
                     : err->status == PASCAL_ERANGE ? "out_of_range"
                                                    : "invalid_value";
  pd_reply_error(rep, 400, code, err->field, "%s", err->message);
}

/* Refuse a key that is neither "device", "calibration" nor a field of the
 * workload (400 unknown_field). */
static int strict(const pd_fields *fs, pascal_workload wl, const char *prefix, pd_reply *rep)
{
  const char *allowed[3 + PASCAL_QUERY_FIELDS_MAX] = {"device", "calibration"};
  const pascal_query_field *f;
  size_t n = pascal_query_fields(wl, &f);
  for (size_t i = 0; i < n; i++)
    allowed[2 + i] = f[i].name;
  return pd_fields_strict(fs, allowed, prefix, rep);
}

/* Each field of the workload's table in order, with its getter, then the
 * query built from what they read (pascal_query_build: a bad path and the
 * rules between fields are reported after every missing or mistyped
 * field). *read counts the fields present. */
static int read_fields(const pd_fields *fs, pascal_workload wl, const char *prefix, pd_query *out,
                       size_t *read, pd_reply *rep)
{
  int cal;
  if (pd_field_str(fs, "device", 1, out->device, sizeof out->device, prefix, rep) ||
      (cal = pd_field_i64(fs, "calibration", 0, 1, INT64_MAX, &out->calibration, prefix, rep)) < 0)
    return -1;
  *read = 1 + (cal == 0);
  const pascal_query_field *f;
  size_t n = pascal_query_fields(wl, &f);
  pascal_query_value v[PASCAL_QUERY_FIELDS_MAX];
  char text[PASCAL_QUERY_FIELDS_MAX][TEXT_MAX];
  uint32_t given = 0;
  for (size_t i = 0; i < n; i++) {
    int rc =
        f[i].type == PASCAL_QUERY_UINT
            ? pd_field_u64(fs, f[i].name, f[i].required, (uint64_t)f[i].lo, (uint64_t)f[i].hi,
                           &v[i].u, prefix, rep)
        : f[i].type == PASCAL_QUERY_REAL
            ? pd_field_num(fs, f[i].name, f[i].required, f[i].lo, f[i].hi, &v[i].r, prefix, rep)
            : pd_field_str(fs, f[i].name, f[i].required, text[i], TEXT_MAX, prefix, rep);
    if (rc < 0)
      return -1;
    if (rc == 0) {
      v[i].text = text[i];
      given |= UINT32_C(1) << i;
      (*read)++;
    }
  }
  pascal_error err;
  if (pascal_query_build(wl, v, given, prefix, &out->q, &err)) {
    reply_query_error(rep, &err);
    return -1;
  }
  return 0;
}

int pd_query_read(const pd_fields *fs, const char *prefix, pd_query *out, pd_reply *rep)
{
  pascal_workload wl;
  pascal_error err;
  given_fields g = {fs, 0};
  for (size_t i = 0; i < fs->n; i++) { /* a key's bytes past klen read as NUL */
    const pd_field *f = &fs->f[i];
    unsigned char c0 = f->klen ? (unsigned char)f->key[0] : 0;
    unsigned char c1 = f->klen > 1 ? (unsigned char)f->key[1] : 0;
    g.filter |= UINT64_C(1) << key_bit(c0, c1);
  }
  if (pascal_query_workload(field_given, &g, prefix, &wl, &err)) {
    pd_reply_error(rep, 400, "mixed_query", err.field, "%s", err.message);
    return -1;
  }
  out->calibration = 0;
  size_t read = 0;
  int rc = read_fields(fs, wl, prefix, out, &read, rep);
  /* An unknown key is refused before anything else is reported; the keys
   * are compared with the allowed ones only when a field failed or there
   * are more keys than fields read (the comparison was a quarter of a
   * batch item's time). */
  if ((rc || read != fs->n) && strict(fs, wl, prefix, rep))
    return -1;
  return rc;
}

int pd_query_answer(pd_ctx *ctx, const pd_query *q, const char *prefix, pascal_answer *a,
                    pascal_codec_origin *origin, pd_reply *rep)
{
  char named[PASCAL_STORE_NAME_MAX];
  const char *device = pd_device_for_prediction(ctx, q->device, named, rep);
  if (!device)
    return -1;
  pascal_workload wl = q->q.workload;
  const pd_reg_entry *e;
  if (q->calibration) {
    e = pd_registry_by_id(ctx->registry, q->calibration);
    if (!e) {
      pd_reply_error(rep, 404, "not_found", "calibration",
                     "no frozen calibration %lld (collecting or unknown)",
                     (long long)q->calibration);
      return -1;
    }
    if (strcmp(e->device->name, device) != 0 || e->workload != wl) {
      pd_reply_error(rep, 422, "calibration_mismatch", "calibration",
                     "calibration %lld is a %s calibration of device '%s'",
                     (long long)q->calibration, pascal_workload_name(e->workload), e->device->name);
      return -1;
    }
  } else {
    int any = 0;
    e = pd_registry_newest(ctx->registry, device, wl, &any);
    if (!e) {
      pd_reply_error(rep, 404, "not_found", "device",
                     any ? "device '%s' has no frozen %s calibration"
                         : "device '%s' has no frozen calibration",
                     device, pascal_workload_name(wl));
      return -1;
    }
  }
  origin->device = e->device->name;
  origin->calibration = e->id;
  pascal_error err;
  pascal_error_clear(&err);
  if (pascal_answer_query(e->model, &e->validation, &q->q, a, &err)) {
    pd_reply_pascal_error_in(rep, &err, prefix); /* names the item: "queries[3].m" */
    return -1;
  }
  return 0;
}

void pd_query_string_keys(const char *keys[PD_QUERY_STRING_KEYS_MAX])
{
  size_t n = 0;
  keys[n++] = "device";
  keys[n++] = "explain";
  for (size_t w = 0; w < sizeof workloads / sizeof *workloads; w++) {
    const pascal_query_field *f;
    size_t nf = pascal_query_fields(workloads[w], &f);
    for (size_t i = 0; i < nf; i++)
      if (f[i].type == PASCAL_QUERY_PATH)
        keys[n++] = f[i].name;
  }
  keys[n] = NULL;
}
