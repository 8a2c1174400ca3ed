/*
 * schema_codec.c - what GET /v1/schema answers: the fields of each
 * workload's query (pascal/query.h), the evaluation methods in the
 * columns of the comparison table (PASCAL_METHODS, pascal/evaluate.h) and
 * the level and bounds of every answer's interval (pascal/interval.h), so
 * that clients and the dashboard build their forms, table headings and
 * readers from the tables the daemon itself reads and writes with.
 */
#include <stdlib.h>

#include "json_util.h"
#include "pascal/interval.h"
#include "pascal_codec.h"

/* A number of field `f` (its range ends, its example) as JSON. */
static json_t *number(const pascal_query_field *f, double v)
{
  return f->type == PASCAL_QUERY_UINT ? codec_uint((uint64_t)v) : codec_real(v);
}

/* {"name","type","required","minimum","maximum" | "enum","example",
 *  "calibration_default","doc"} */
static pascal_status encode_field(json_t *arr, const pascal_query_field *f, pascal_error *err)
{
  static const char *const types[] = {[PASCAL_QUERY_UINT] = "integer",
                                      [PASCAL_QUERY_REAL] = "number",
                                      [PASCAL_QUERY_PATH] = "string"};
  json_t *o = json_object();
  int text = f->type == PASCAL_QUERY_PATH;
  pascal_status st;
  if ((st = codec_append(arr, o, "queries", err)) ||
      (st = codec_set(o, "name", json_string(f->name), err)) ||
      (st = codec_set(o, "type", json_string(types[f->type]), err)) ||
      (st = codec_set(o, "required", json_boolean(f->required), err)))
    return st;
  if (text)
    st = codec_set(
        o, "enum",
        json_pack("[s,s]", pascal_path_name(PASCAL_PATH_SYNC), pascal_path_name(PASCAL_PATH_TMA)),
        err);
  else if (!(st = codec_set(o, "minimum", number(f, f->lo), err)))
    st = codec_set(o, "maximum", number(f, f->hi), err);
  if (!st)
    st = codec_set(o, "example",
                   text ? json_string(f->example) : number(f, strtod(f->example, NULL)), err);
  if (!st)
    st = codec_set(o, "calibration_default", json_boolean(f->calibration_default), err);
  if (!st)
    st = codec_set(o, "doc", json_string(f->doc), err);
  return st;
}

pascal_status pascal_codec_schema_encode(json_t **out, pascal_error *err)
{
  static const pascal_workload workloads[] = {PASCAL_WORKLOAD_SCAN, PASCAL_WORKLOAD_GEMM,
                                              PASCAL_WORKLOAD_ATTENTION};
  json_t *doc = json_object(), *queries = json_object(), *methods = json_array();
  pascal_status st;
  if ((st = codec_set(doc, "queries", queries, err)) ||
      (st = codec_set(doc, "methods", methods, err)) ||
      (st = codec_set(doc, "interval",
                      json_pack("{s:o,s:[s,s,s,s,s,s],s:s}", "level",
                                codec_real(PASCAL_INTERVAL_LEVEL), "bounds", "K_low", "K_high",
                                "fill_bytes_low", "fill_bytes_high", "time_s_low", "time_s_high",
                                "doc",
                                "every answer's interval holds the measured value at this level "
                                "(docs/expected-error.md); time_s_low and time_s_high only "
                                "where time_s is answered"),
                      err)))
    goto fail;
  for (size_t w = 0; w < sizeof workloads / sizeof *workloads; w++) {
    const pascal_query_field *f;
    size_t n = pascal_query_fields(workloads[w], &f);
    json_t *arr = json_array();
    if ((st = codec_set(queries, pascal_workload_name(workloads[w]), arr, err)))
      goto fail;
    for (size_t i = 0; i < n; i++)
      if ((st = encode_field(arr, &f[i], err)))
        goto fail;
  }
  for (unsigned c = 0; c < PASCAL_METHOD_COUNT; c++) {
    const pascal_method_info *m = pascal_method_info_of(pascal_method_at_column(c));
    if ((st = codec_append(methods,
                           json_pack("{s:s,s:s,s:s,s:s}", "key", m->key, "name", m->name, "title",
                                     m->title, "label", m->label),
                           "methods", err)))
      goto fail;
  }
  *out = doc;
  return PASCAL_OK;
fail:
  json_decref(doc);
  return st;
}
