/*
 * predict_queries.c - `pascal predict --queries FILE`: many queries against
 * one bundle in one process (docs/cli.md). The bundle's model and its
 * validation are fitted once and every query is answered from them, as
 * pascald answers a batch (docs/http-api.md "Batch"): each item on its own,
 * in order, a bad item an error object that does not stop the others.
 *
 * FILE (or "-", standard input) holds a batch body, {"queries": [...]} (with
 * "explain": true or without it), or the array alone; a query is an object of its workload's fields
 * (pascal/query.h), plus optionally "device" naming the bundle's device, so
 * that a daemon's batch replays here unchanged.
 */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "output.h"
#include "pascal/answer.h"
#include "pascal/query.h"
#include "pascal_codec.h"

/* The JSON member `name` of query `item`: present or not. */
static int member_given(const char *name, void *item)
{
  return json_object_get(item, name) != NULL;
}

/* One field's JSON value as pascal_query_build takes it (0), or -1 for a
 * value of another type; the type is checked here, the range there. */
static int field_value(const pascal_query_field *f, const json_t *x, pascal_query_value *v)
{
  switch (f->type) {
  case PASCAL_QUERY_UINT:
    if (!json_is_integer(x))
      break;
    /* a negative one is out of range there, as the largest */
    v->u = json_integer_value(x) < 0 ? UINT64_MAX : (uint64_t)json_integer_value(x);
    return 0;
  case PASCAL_QUERY_REAL:
    if (!json_is_number(x))
      break;
    v->r = json_number_value(x);
    return 0;
  case PASCAL_QUERY_PATH:
    if (!json_is_string(x))
      break;
    v->text = json_string_value(x);
    return 0;
  }
  return -1;
}

/* Query `item` for a bundle of workload `wl` on device `device`: its members
 * are that workload's fields and "device"; an error names prefix.member,
 * and *code is pascald's error code for the two it has of its own (a member
 * of no field, a value of another type), else stays NULL. */
static pascal_status item_query(const json_t *item, pascal_workload wl, const char *device,
                                const char *prefix, pascal_query *q, const char **code,
                                pascal_error *err)
{
  if (!json_is_object(item))
    return pascal_error_set(err, PASCAL_EINVAL, prefix, "a query must be an object");
  pascal_workload asked;
  pascal_status st = pascal_query_workload(member_given, (void *)item, prefix, &asked, err);
  if (st)
    return st;
  const pascal_query_field *f;
  pascal_query_fields(wl, &f);
  pascal_query_value v[PASCAL_QUERY_FIELDS_MAX];
  uint32_t given = 0;
  const char *key;
  json_t *x;
  json_object_foreach((json_t *)item, key, x)
  {
    char field[PASCAL_ERROR_FIELD_MAX];
    snprintf(field, sizeof field, "%s.%s", prefix, key);
    if (strcmp(key, "device") == 0) {
      if (!json_is_string(x) || strcmp(json_string_value(x), device) != 0)
        return pascal_error_set(err, PASCAL_EINVAL, field, "the bundle is for device %s", device);
      continue;
    }
    int i = pascal_query_field_index(wl, key, strlen(key));
    if (i < 0) {
      *code = "unknown_field";
      return asked != wl ? pascal_error_set(err, PASCAL_EINVAL, field,
                                            "unknown field '%s': the bundle is a %s calibration",
                                            field, pascal_workload_name(wl))
                         : pascal_error_set(err, PASCAL_EINVAL, field, "unknown field '%s'", field);
    }
    if (field_value(&f[i], x, &v[i])) {
      *code = "invalid_type";
      return pascal_error_set(err, PASCAL_EINVAL, field, "field '%s' must be %s", field,
                              f[i].type == PASCAL_QUERY_PATH   ? "a string"
                              : f[i].type == PASCAL_QUERY_UINT ? "an integer"
                                                               : "a number");
    }
    given |= UINT32_C(1) << i;
  }
  return pascal_query_build(wl, v, given, prefix, q, err);
}

/* The error object of a failed item, as pascald writes a batch item's;
 * `code` NULL: the one the status gives. */
static json_t *item_error(const pascal_error *err, const char *code)
{
  if (!code)
    code = err->status == PASCAL_EREFUSED   ? "refused"
           : err->status == PASCAL_EMISSING ? "missing_field"
           : err->status == PASCAL_ERANGE   ? "out_of_range"
                                            : "invalid_value";
  return json_pack("{s:{s:s,s:s,s:s}}", "error", "code", code, "message", err->message, "field",
                   err->field);
}

/* The queries of document `doc`: the array itself or its "queries" (a
 * daemon's "explain" may be there: true, as every answer here is explained). */
static pascal_status queries_of(const json_t *doc, const json_t **out, pascal_error *err)
{
  if (json_is_object(doc)) {
    const char *key;
    json_t *x;
    json_object_foreach((json_t *)doc, key, x)
    {
      if (strcmp(key, "explain") == 0 && !json_is_true(x))
        return pascal_error_set(err, PASCAL_EINVAL, key,
                                "must be true or absent: the answers here are explained");
      if (strcmp(key, "queries") != 0 && strcmp(key, "explain") != 0)
        return pascal_error_set(err, PASCAL_EINVAL, key,
                                "a batch holds only \"queries\" (and \"explain\": true)");
    }
    doc = json_object_get(doc, "queries");
  }
  if (!json_is_array(doc))
    return pascal_error_set(err, PASCAL_EINVAL, "queries",
                            "must be an array of queries, or an object holding one");
  *out = doc;
  return PASCAL_OK;
}

static pascal_status load_queries(const char *path, json_t **doc, pascal_error *err)
{
  if (strcmp(path, "-") != 0)
    return pascal_codec_load_file(path, doc, err);
  json_error_t je;
  if (!(*doc = json_loadf(stdin, 0, &je)))
    return pascal_error_set(err, PASCAL_EFORMAT, "", "standard input: line %d, column %d: %s",
                            je.line, je.column, je.text);
  return PASCAL_OK;
}

int cli_predict_queries(const char *path, const pascal_codec_bundle *bundle,
                        const pascal_model *model, pascal_validation *valid, int json)
{
  pascal_error err = {0};
  json_t *doc = NULL, *results = json_array();
  const json_t *queries = NULL;
  pascal_status st = load_queries(path, &doc, &err);
  if (st || (st = queries_of(doc, &queries, &err))) {
    json_decref(doc);
    json_decref(results);
    if (st != PASCAL_EINVAL)
      return cli_input_error("predict", path, &err);
    fprintf(stderr, "pascal predict: %s: %s: %s\n", path, err.field, err.message);
    return CLI_EXIT_USAGE;
  }
  if (!results || (st = pascal_validation_build(&bundle->cal, model, NULL, valid, &err))) {
    json_decref(doc);
    json_decref(results);
    return cli_input_error("predict", "validation", &err);
  }
  pascal_workload wl = pascal_model_workload(model);
  size_t i, ok = 0, invalid = 0;
  json_t *item;
  json_array_foreach(queries, i, item)
  {
    char prefix[32];
    snprintf(prefix, sizeof prefix, "queries[%zu]", i);
    pascal_query q;
    pascal_answer a;
    json_t *one = NULL;
    const char *code = NULL;
    pascal_error_clear(&err);
    if (!(st = item_query(item, wl, bundle->cal.device.name, prefix, &q, &code, &err)) &&
        !(st = pascal_answer_query(model, valid, &q, &a, &err)))
      st = pascal_codec_answer_encode(&q, &a, NULL, &one, &err);
    if (st) {
      if (strncmp(err.field, prefix, strlen(prefix)) != 0) { /* the model's own field */
        char field[2 * PASCAL_ERROR_FIELD_MAX];
        snprintf(field, sizeof field, "%s%s%s", prefix, err.field[0] ? "." : "", err.field);
        snprintf(err.field, sizeof err.field, "%.*s", PASCAL_ERROR_FIELD_MAX - 1, field);
      }
      fprintf(stderr, "pascal predict: %s: %s\n", err.field, err.message);
      one = item_error(&err, code);
      invalid += st != PASCAL_EREFUSED;
    } else {
      ok++;
    }
    if (!one || json_array_append_new(results, one)) {
      json_decref(doc);
      json_decref(results);
      fprintf(stderr, "pascal predict: out of memory\n");
      return CLI_EXIT_FAILURE;
    }
  }
  size_t count = json_array_size(queries);
  json_decref(doc);
  json_t *out = json_pack("{s:o,s:I,s:I,s:I}", "results", results, "count", (json_int_t)count, "ok",
                          (json_int_t)ok, "errors", (json_int_t)(count - ok));
  int rc = out ? cli_print(out, json) : CLI_EXIT_FAILURE;
  if (rc)
    return rc;
  return invalid ? CLI_EXIT_USAGE : ok < count ? CLI_EXIT_REFUSED : CLI_EXIT_OK;
}
