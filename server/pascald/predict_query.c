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

int pd_query_keys_init(pd_query_keys *qk)
{
  memset(qk, 0, sizeof *qk);
  if (pd_keys_add(&qk->k, "device", 1) != PD_QUERY_DEVICE ||
      pd_keys_add(&qk->k, "calibration", 0) != PD_QUERY_CALIBRATION ||
      pd_keys_add(&qk->k, "explain", 1) != PD_QUERY_EXPLAIN)
    return -1;
  for (size_t w = 0; w < PD_QUERY_WORKLOADS; w++) {
    const pascal_query_field *f;
    size_t n = pascal_query_fields(workloads[w], &f);
    for (size_t i = 0; i < n; i++) {
      int s = pd_keys_add(&qk->k, f[i].name, f[i].type == PASCAL_QUERY_PATH);
      if (s < 0)
        return -1;
      qk->slot[w][i] = (uint8_t)s;
      if (f[i].marks)
        qk->marks[w] |= UINT64_C(1) << s;
    }
  }
  return 0;
}

static int field_given(const char *name, void *arg)
{
  return pd_fields_get(arg, name) != NULL;
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
static int read_fields(const pd_fields *fs, const pd_query_keys *qk, pascal_workload wl,
                       const char *prefix, pd_query *out, size_t *read, pd_reply *rep)
{
  uint64_t cal;
  if (pd_value_str(pd_fields_at(fs, PD_QUERY_DEVICE), "device", 1, out->device, sizeof out->device,
                   prefix, rep))
    return -1;
  int rc = pd_value_u64(pd_fields_at(fs, PD_QUERY_CALIBRATION), "calibration", 0, 1, INT64_MAX,
                        &cal, prefix, rep);
  if (rc < 0)
    return -1;
  if (rc == 0)
    out->calibration = (int64_t)cal;
  *read = 1 + (rc == 0);
  const pascal_query_field *f;
  size_t n = pascal_query_fields(wl, &f);
  const uint8_t *slot = qk->slot[wl];
  pascal_query_value v[PASCAL_QUERY_FIELDS_MAX];
  char text[PASCAL_QUERY_FIELDS_MAX][TEXT_MAX];
  uint32_t given = 0;
  for (size_t i = 0; i < n; i++) {
    const pd_value *fv = pd_fields_at(fs, slot[i]);
    rc = f[i].type == PASCAL_QUERY_UINT
             ? pd_value_u64(fv, f[i].name, f[i].required, (uint64_t)f[i].lo, (uint64_t)f[i].hi,
                            &v[i].u, prefix, rep)
         : f[i].type == PASCAL_QUERY_REAL
             ? pd_value_num(fv, f[i].name, f[i].required, f[i].lo, f[i].hi, &v[i].r, prefix, rep)
             : pd_value_str(fv, f[i].name, f[i].required, text[i], TEXT_MAX, prefix, rep);
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

int pd_query_read(pd_fields *fs, const pd_query_keys *qk, const char *prefix, pd_query *out,
                  pd_reply *rep)
{
  if (fs->keys != &qk->k)
    pd_fields_index(fs, &qk->k);
  /* The workload whose marking fields are given, scan when none is (as
   * pascal_query_workload decides); fields of two workloads are left to it,
   * which names the one to blame. */
  pascal_workload wl = PASCAL_WORKLOAD_SCAN;
  size_t marked = 0;
  for (size_t w = 0; w < PD_QUERY_WORKLOADS; w++)
    if (fs->present & qk->marks[w]) {
      wl = workloads[w];
      marked++;
    }
  pascal_error err;
  if (marked > 1 && pascal_query_workload(field_given, fs, prefix, &wl, &err)) {
    pd_reply_error(rep, 400, "mixed_query", err.field, "%s", err.message);
    return -1;
  }
  out->calibration = 0;
  size_t read = 0;
  int rc = read_fields(fs, qk, wl, prefix, out, &read, rep);
  /* An unknown key is refused before anything else is reported; the keys
   * are compared with the allowed ones only when a field failed or there
   * are more keys than fields read (the comparison was a quarter of a
   * batch item's time). */
  if ((rc || read != fs->n) && strict(fs, wl, prefix, rep))
    return -1;
  return rc;
}

static int answer_resolved(pd_ctx *ctx, const pd_query *q, const char *prefix, pascal_answer *a,
                           pascal_codec_origin *origin, pd_reply *rep);
static int answer_from(const pd_reg_entry *e, const pd_query *q, const char *prefix,
                       pascal_answer *a, pascal_codec_origin *origin, pd_reply *rep);

int pd_query_answer(pd_ctx *ctx, const pd_query *q, const char *prefix, pascal_answer *a,
                    pascal_codec_origin *origin, pd_reply *rep)
{
  pascal_workload wl = q->q.workload;
  const pd_reg_entry *e = NULL;
  int any = 0;
  /* A device named as registered with a frozen calibration of the
   * workload (the common query): its newest, found in one walk. Otherwise
   * the name is resolved first (an alias, a CUDA name) and every refusal
   * worded as it always was. */
  if (!q->calibration)
    e = pd_registry_newest(ctx->registry, q->device, wl, &any);
  if (!e)
    return answer_resolved(ctx, q, prefix, a, origin, rep);
  return answer_from(e, q, prefix, a, origin, rep);
}

/* The calibration the query names, or its device's newest of its workload,
 * after resolving the device's name (pd_device_for_prediction). */
static int answer_resolved(pd_ctx *ctx, const pd_query *q, const char *prefix, pascal_answer *a,
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
  return answer_from(e, q, prefix, a, origin, rep);
}

static int answer_from(const pd_reg_entry *e, const pd_query *q, const char *prefix,
                       pascal_answer *a, pascal_codec_origin *origin, pd_reply *rep)
{
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
