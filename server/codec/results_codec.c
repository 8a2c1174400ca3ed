/*
 * results_codec.c - JSON form of leave-one-key-out reports (paper Eq.
 * dynamic_selection). Keys are documented in docs/cli.md; unavailable
 * values (NaN) are written as null. Predictions: prediction_codec.c.
 */
#include <stdio.h>
#include <string.h>

#include "json_util.h"
#include "pascal_codec.h"

/* A new object stored under `key` of `parent` (or appended when key is NULL). */
static pascal_status child(json_t *parent, const char *key, json_t **out, pascal_error *err)
{
  json_t *obj = json_object();
  *out = obj;
  return key ? codec_set(parent, key, obj, err) : codec_append(parent, obj, "keys", err);
}

/* {"pascal":..,"aligned":..,"sdcm":..,"ppt_gpu":..,"che":..}: method names
 * with '-' turned into '_' so the keys stay snake_case. */
static pascal_status encode_methods(json_t *parent, const char *key, const double *v,
                                    pascal_error *err)
{
  json_t *o;
  pascal_status st = child(parent, key, &o, err);
  for (int m = 0; !st && m < PASCAL_METHOD_COUNT; m++) {
    char name[32];
    snprintf(name, sizeof name, "%s", pascal_method_name((pascal_method)m));
    for (char *c = name; *c; c++)
      if (*c == '-')
        *c = '_';
    st = codec_set(o, name, codec_real_or_null(v[m]), err);
  }
  return st;
}

static pascal_status encode_key_report(json_t *arr, pascal_workload wl,
                                       const pascal_key_report *k, pascal_error *err)
{
  json_t *o;
  pascal_status st = child(arr, NULL, &o, err);
  if (st)
    return st;
  if (wl != PASCAL_WORKLOAD_GEMM)
    st = codec_set_scan_key(o, &k->key, err);
  else if (!(st = codec_set(o, "Mg", codec_uint(k->Mg), err)))
    st = codec_set(o, "Ng", codec_uint(k->Ng), err);
  if (st || (st = codec_set(o, "n_runs", codec_uint(k->n_runs), err)) ||
      (st = codec_set(o, "n_scored", codec_uint(k->n_scored), err)) ||
      (st = encode_methods(o, "mape", k->mape, err)) ||
      (st = codec_set(o, "refusal", k->refusal[0] ? json_string(k->refusal) : json_null(), err)))
    return st;
  return PASCAL_OK;
}

pascal_status pascal_codec_loko_encode(const pascal_loko_report *r, json_t **out,
                                       pascal_error *err)
{
  json_t *o = json_object(), *keys;
  pascal_status st;
  if ((st = codec_set(o, "workload", json_string(pascal_workload_name(r->workload)), err)) ||
      (st = codec_set(o, "n_keys", codec_uint(r->n_keys), err)) ||
      (st = codec_set(o, "n_runs", codec_uint(r->n_runs), err)) ||
      (st = codec_set(o, "n_scored", codec_uint(r->n_scored), err)) ||
      (st = codec_set(o, "n_refused", codec_uint(r->n_refused), err)) ||
      (st = codec_set(o, "n_keys_scored", codec_uint(r->n_keys_scored), err)) ||
      (st = encode_methods(o, "balanced_mape", r->balanced_mape, err)) ||
      (st = codec_set(o, "keys", keys = json_array(), err)))
    goto fail;
  for (size_t i = 0; i < r->n_keys; i++)
    if ((st = encode_key_report(keys, r->workload, &r->keys[i], err)))
      goto fail;
  *out = o;
  return PASCAL_OK;
fail:
  json_decref(o);
  return st;
}
