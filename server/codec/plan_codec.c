/*
 * plan_codec.c - JSON form of calibration plans, `pascal-plan/1`
 * (docs/bundle-format.md "Plans"): strict decoding into pascal_plan
 * (core/src/plan.c validates and expands) and canonical encoding.
 */
#include <stdlib.h>
#include <string.h>

#include "json_util.h"
#include "pascal_codec.h"

/* A zeroed array for the n entries of the JSON list `field`, refused above
 * PASCAL_PLAN_MAX_LIST entries (an empty list gets a 1-entry array; the plan
 * validation names it). */
static pascal_status list_alloc(size_t n, size_t elem, const char *field, void **out,
                                pascal_error *err)
{
  if (n > PASCAL_PLAN_MAX_LIST)
    return pascal_error_set(err, PASCAL_EINVAL, field, "%s has more than %u entries", field,
                            PASCAL_PLAN_MAX_LIST);
  *out = calloc(n ? n : 1, elem);
  if (!*out)
    return pascal_error_set(err, PASCAL_ENOMEM, field, "out of memory reading %s", field);
  return PASCAL_OK;
}

/* Read array `key` of integers in [lo, hi] into a malloc'd array. Absent and
 * not required: *out = NULL, *n = 0. An empty array is returned as such (the
 * plan validation names it). */
static pascal_status read_uint_list(const json_t *obj, const char *prefix, const char *key,
                                    int required, uint64_t lo, uint64_t hi, uint64_t **out,
                                    size_t *n, pascal_error *err)
{
  json_t *arr;
  pascal_status st = codec_get_array(obj, prefix, key, required, &arr, err);
  *out = NULL;
  *n = 0;
  if (st || !arr)
    return st;
  char field[PASCAL_ERROR_FIELD_MAX], item[PASCAL_ERROR_FIELD_MAX];
  codec_path(field, sizeof field, prefix, key);
  size_t len = json_array_size(arr);
  void *mem;
  if ((st = list_alloc(len, sizeof(uint64_t), field, &mem, err)))
    return st;
  uint64_t *v = mem;
  for (size_t i = 0; i < len; i++) {
    codec_path_index(item, sizeof item, field, i);
    if ((st = codec_uint_value(json_array_get(arr, i), item, lo, hi, &v[i], err))) {
      free(v);
      return st;
    }
  }
  *out = v;
  *n = len;
  return PASCAL_OK;
}

static pascal_status read_path(const json_t *v, const char *field, pascal_plan_path *out,
                               pascal_error *err)
{
  if (!json_is_string(v))
    return pascal_error_set(err, PASCAL_EFORMAT, field, "%s must be \"sync\" or \"tma\"", field);
  pascal_status st = pascal_plan_path_parse(json_string_value(v), out, err);
  if (st)
    pascal_error_set(err, st, field, "%s must be \"sync\" or \"tma\"", field);
  return st;
}

static pascal_status decode_key(const json_t *obj, const char *field, pascal_plan_key *k,
                                pascal_error *err)
{
  uint64_t o = 0, d = 0, m = 0;
  json_t *path;
  pascal_status st;
  if (!json_is_object(obj))
    return pascal_error_set(err, PASCAL_EFORMAT, field, "%s must be an object", field);
  if ((st = codec_get_uint(obj, field, "o", 1, 1, PASCAL_PLAN_MAX_OCCUPANCY, &o, NULL, err)))
    return st;
  char pf[PASCAL_ERROR_FIELD_MAX];
  codec_path(pf, sizeof pf, field, "path");
  path = json_object_get(obj, "path");
  if (!path)
    return pascal_error_set(err, PASCAL_EMISSING, pf, "missing field %s", pf);
  if ((st = read_path(path, pf, &k->path, err)))
    return st;
  /* d may be omitted for sync (it is 0 there); tma needs it. */
  if ((st = codec_get_uint(obj, field, "d", k->path == PASCAL_PLAN_TMA, 0, PASCAL_PLAN_MAX_DEPTH,
                           &d, NULL, err)) ||
      (st = codec_get_uint(obj, field, "m", 1, 0, PASCAL_PLAN_MAX_COMPUTE, &m, NULL, err)))
    return st;
  k->o = (uint32_t)o;
  k->d = (uint32_t)d;
  k->m = (uint32_t)m;
  return pascal_plan_key_validate(k, field, err);
}

static pascal_status decode_keys(const json_t *arr, pascal_plan *plan, pascal_error *err)
{
  size_t n = json_array_size(arr);
  void *mem;
  pascal_status st = list_alloc(n, sizeof *plan->keys, "keys", &mem, err);
  if (st)
    return st;
  plan->keys = mem;
  plan->n_keys = n;
  for (size_t i = 0; i < n; i++) {
    char field[PASCAL_ERROR_FIELD_MAX];
    codec_path_index(field, sizeof field, "keys", i);
    if ((st = decode_key(json_array_get(arr, i), field, &plan->keys[i], err)))
      return st;
  }
  return PASCAL_OK;
}

/* uint64 list -> uint32 list (values were range-checked below 2^32). */
static uint32_t *narrow(const uint64_t *v, size_t n)
{
  uint32_t *out = malloc((n ? n : 1) * sizeof *out);
  if (out)
    for (size_t i = 0; i < n; i++)
      out[i] = (uint32_t)v[i];
  return out;
}

static pascal_status decode_grid(const json_t *grid, pascal_plan *plan, pascal_error *err)
{
  uint64_t *o = NULL, *d = NULL, *m = NULL;
  uint32_t *o32 = NULL, *d32 = NULL, *m32 = NULL;
  pascal_plan_path *paths = NULL;
  size_t n_o, n_d, n_m;
  json_t *parr;
  pascal_status st;
  if ((st = read_uint_list(grid, "grid", "o", 1, 0, UINT32_MAX, &o, &n_o, err)) ||
      (st = read_uint_list(grid, "grid", "d", 0, 0, UINT32_MAX, &d, &n_d, err)) ||
      (st = read_uint_list(grid, "grid", "m", 1, 0, UINT32_MAX, &m, &n_m, err)) ||
      (st = codec_get_array(grid, "grid", "path", 1, &parr, err)))
    goto done;
  size_t n_path = json_array_size(parr);
  if (n_path > PASCAL_PLAN_MAX_LIST) {
    st = pascal_error_set(err, PASCAL_EINVAL, "grid.path", "grid.path is too long");
    goto done;
  }
  paths = malloc((n_path ? n_path : 1) * sizeof *paths);
  o32 = narrow(o, n_o);
  d32 = narrow(d, n_d);
  m32 = narrow(m, n_m);
  if (!paths || !o32 || !d32 || !m32) {
    st = pascal_error_set(err, PASCAL_ENOMEM, "grid", "out of memory reading grid");
    goto done;
  }
  for (size_t i = 0; i < n_path; i++) {
    char field[PASCAL_ERROR_FIELD_MAX];
    codec_path_index(field, sizeof field, "grid.path", i);
    if ((st = read_path(json_array_get(parr, i), field, &paths[i], err)))
      goto done;
  }
  pascal_plan_grid g = {o32, n_o, paths, n_path, d32, n_d, m32, n_m};
  st = pascal_plan_grid_expand(&g, &plan->keys, &plan->n_keys, err);
done:
  free(o);
  free(d);
  free(m);
  free(o32);
  free(d32);
  free(m32);
  free(paths);
  return st;
}

/* One element of an object list: `obj` (an object), named `field`, into
 * `elem`. */
typedef pascal_status (*decode_one)(const json_t *obj, const char *field, void *elem,
                                    pascal_error *err);

/* The list of objects under `key` (required or not; present, not empty)
 * into a malloc'd array of `size`-byte elements, *n of them. */
static pascal_status decode_objects(const json_t *doc, const char *key, int required, size_t size,
                                    void **out, size_t *n, decode_one one, pascal_error *err)
{
  json_t *arr;
  pascal_status st = codec_get_array(doc, "", key, required, &arr, err);
  if (st || !arr)
    return st;
  size_t count = json_array_size(arr);
  if (!required && count == 0) /* absent has a meaning; empty is a mistake */
    return pascal_error_set(err, PASCAL_EINVAL, key, "%s must not be empty (leave it out for none)",
                            key);
  void *mem;
  if ((st = list_alloc(count, size, key, &mem, err)))
    return st;
  *out = mem;
  *n = count;
  for (size_t i = 0; i < count; i++) {
    char field[PASCAL_ERROR_FIELD_MAX];
    codec_path_index(field, sizeof field, key, i);
    json_t *obj = json_array_get(arr, i);
    if (!json_is_object(obj))
      return pascal_error_set(err, PASCAL_EFORMAT, field, "%s must be an object", field);
    if ((st = one(obj, field, (char *)mem + i * size, err)))
      return st;
  }
  return PASCAL_OK;
}

static pascal_status decode_shape(const json_t *s, const char *field, void *elem, pascal_error *err)
{
  pascal_plan_shape *sh = elem;
  pascal_status st;
  if ((st = codec_get_uint(s, field, "Mg", 1, 1, PASCAL_PLAN_MAX_EXTENT, &sh->Mg, NULL, err)) ||
      (st = codec_get_uint(s, field, "Ng", 1, 1, PASCAL_PLAN_MAX_EXTENT, &sh->Ng, NULL, err)) ||
      (st = codec_get_uint(s, field, "Kg", 1, 1, PASCAL_PLAN_MAX_EXTENT, &sh->Kg, NULL, err)))
    return st;
  return PASCAL_OK;
}

/* A configuration: every member required; ranges, distinctness and whole
 * tiles are pascal_plan_validate's. */
static pascal_status decode_config(const json_t *c, const char *field, void *elem,
                                   pascal_error *err)
{
  return codec_config_decode(c, field, 1, elem, NULL, err);
}

/* "shapes" (required) and "configurations" (optional) of a gemm plan. */
static pascal_status decode_gemm(const json_t *doc, pascal_plan *plan, pascal_error *err)
{
  void *shapes = NULL, *configs = NULL;
  pascal_status st = decode_objects(doc, "shapes", 1, sizeof *plan->shapes, &shapes,
                                    &plan->n_shapes, decode_shape, err);
  plan->shapes = shapes; /* owned by the plan from here, also on failure */
  if (!st)
    st = decode_objects(doc, "configurations", 0, sizeof *plan->configs, &configs, &plan->n_configs,
                        decode_config, err);
  plan->configs = configs;
  return st;
}

static pascal_status decode_scan(const json_t *doc, pascal_plan *plan, pascal_error *err)
{
  json_t *keys = json_object_get(doc, "keys"), *grid = json_object_get(doc, "grid");
  pascal_status st;
  if ((st = read_uint_list(doc, "", "sizes", 1, 1, PASCAL_PLAN_MAX_EXTENT, &plan->sizes,
                           &plan->n_sizes, err)) ||
      (st = read_uint_list(doc, "", "horizons", 0, 1, PASCAL_PLAN_MAX_EXTENT, &plan->horizons,
                           &plan->n_horizons, err)))
    return st;
  if (!plan->horizons) {
    plan->horizons = malloc(sizeof pascal_plan_default_horizons);
    if (!plan->horizons)
      return pascal_error_set(err, PASCAL_ENOMEM, "horizons", "out of memory");
    memcpy(plan->horizons, pascal_plan_default_horizons, sizeof pascal_plan_default_horizons);
    plan->n_horizons = 4;
  }
  if (keys && grid)
    return pascal_error_set(err, PASCAL_EFORMAT, "grid", "give either keys or grid, not both");
  if (grid) {
    if (!json_is_object(grid))
      return pascal_error_set(err, PASCAL_EFORMAT, "grid", "grid must be an object");
    return decode_grid(grid, plan, err);
  }
  if ((st = codec_get_array(doc, "", "keys", 1, &keys, err)))
    return st;
  return decode_keys(keys, plan, err);
}

pascal_status pascal_codec_plan_decode(const json_t *doc, pascal_plan *out, pascal_error *err)
{
  pascal_plan plan;
  pascal_plan_init(&plan);
  const char *format, *workload;
  uint64_t repeats = 1;
  pascal_status st;
  if (!json_is_object(doc))
    return pascal_error_set(err, PASCAL_EFORMAT, "plan", "a plan must be a JSON object");
  if ((st = codec_get_string(doc, "", "format", 1, &format, err)) ||
      (st = codec_get_string(doc, "", "workload", 1, &workload, err)) ||
      (st = codec_get_uint(doc, "", "repeats", 0, 1, PASCAL_PLAN_MAX_REPEATS, &repeats, NULL, err)))
    goto fail;
  if (strcmp(format, PASCAL_PLAN_FORMAT) != 0) {
    st = pascal_error_set(err, PASCAL_EFORMAT, "format",
                          "unknown format \"%.60s\" (this build reads " PASCAL_PLAN_FORMAT ")",
                          format);
    goto fail;
  }
  plan.repeats = (uint32_t)repeats;
  if (strcmp(workload, "scan") == 0 || strcmp(workload, "attention") == 0) {
    plan.workload = workload[0] == 's' ? PASCAL_PLAN_SCAN : PASCAL_PLAN_ATTENTION;
    static const char *const gemm_only[] = {"shapes", "configurations"};
    for (size_t i = 0; i < 2; i++)
      if (json_object_get(doc, gemm_only[i])) {
        st = pascal_error_set(err, PASCAL_EFORMAT, gemm_only[i], "a %s plan has no %s", workload,
                              gemm_only[i]);
        goto fail;
      }
    st = decode_scan(doc, &plan, err);
  } else if (strcmp(workload, "gemm") == 0) {
    plan.workload = PASCAL_PLAN_GEMM;
    static const char *const scan_only[] = {"sizes", "horizons", "keys", "grid"};
    for (size_t i = 0; i < 4; i++)
      if (json_object_get(doc, scan_only[i])) {
        st = pascal_error_set(err, PASCAL_EFORMAT, scan_only[i], "a gemm plan has shapes, not %s",
                              scan_only[i]);
        goto fail;
      }
    st = decode_gemm(doc, &plan, err);
  } else {
    st = pascal_error_set(err, PASCAL_EINVAL, "workload",
                          "workload must be \"scan\", \"gemm\" or \"attention\", got \"%.40s\"",
                          workload);
  }
  if (st || (st = pascal_plan_validate(&plan, err)))
    goto fail;
  *out = plan;
  return PASCAL_OK;
fail:
  pascal_plan_free(&plan);
  return st;
}

static pascal_status encode_key_fields(json_t *obj, const pascal_plan_key *k, pascal_error *err)
{
  pascal_status st;
  if ((st = codec_set(obj, "o", codec_uint(k->o), err)) ||
      (st = codec_set(obj, "path", json_string(pascal_plan_path_name(k->path)), err)) ||
      (st = codec_set(obj, "d", codec_uint(k->d), err)) ||
      (st = codec_set(obj, "m", codec_uint(k->m), err)))
    return st;
  return PASCAL_OK;
}

static pascal_status encode_shape_fields(json_t *obj, const pascal_plan_shape *s, pascal_error *err)
{
  pascal_status st;
  if ((st = codec_set(obj, "Mg", codec_uint(s->Mg), err)) ||
      (st = codec_set(obj, "Ng", codec_uint(s->Ng), err)) ||
      (st = codec_set(obj, "Kg", codec_uint(s->Kg), err)))
    return st;
  return PASCAL_OK;
}

pascal_status pascal_codec_plan_encode(const pascal_plan *plan, json_t **out, pascal_error *err)
{
  pascal_status st = pascal_plan_validate(plan, err);
  if (st)
    return st;
  json_t *doc = json_object();
  int scan = plan->workload != PASCAL_PLAN_GEMM; /* scan-shaped: scan, attention */
  if ((st = codec_set(doc, "format", json_string(PASCAL_PLAN_FORMAT), err)) ||
      (st = codec_set(doc, "workload", json_string(pascal_plan_workload_name(plan->workload)),
                      err)) ||
      (st = codec_set(doc, "repeats", codec_uint(plan->repeats), err)))
    goto fail;
  json_t *arr = json_array();
  if ((st = codec_set(doc, scan ? "keys" : "shapes", arr, err)))
    goto fail;
  size_t n = scan ? plan->n_keys : plan->n_shapes;
  for (size_t i = 0; i < n; i++) {
    json_t *item = json_object();
    if ((st = codec_append(arr, item, scan ? "keys" : "shapes", err)) ||
        (st = scan ? encode_key_fields(item, &plan->keys[i], err)
                   : encode_shape_fields(item, &plan->shapes[i], err)))
      goto fail;
  }
  if (plan->n_configs) {
    json_t *configs = json_array();
    if ((st = codec_set(doc, "configurations", configs, err)))
      goto fail;
    for (size_t i = 0; i < plan->n_configs; i++) {
      json_t *item = json_object();
      if ((st = codec_append(configs, item, "configurations", err)) ||
          (st = codec_config_encode(item, &plan->configs[i], err)))
        goto fail;
    }
  }
  if (scan && ((st = codec_set_uint_array(doc, "sizes", plan->sizes, plan->n_sizes, err)) ||
               (st = codec_set_uint_array(doc, "horizons", plan->horizons, plan->n_horizons, err))))
    goto fail;
  *out = doc;
  return PASCAL_OK;
fail:
  json_decref(doc);
  return st;
}

pascal_status pascal_codec_plan_run_encode(const pascal_plan_run *run, json_t **out,
                                           pascal_error *err)
{
  json_t *obj = json_object();
  pascal_status st;
  if (!obj)
    return pascal_error_set(err, PASCAL_ENOMEM, "run", "out of memory");
  if (run->workload == PASCAL_PLAN_GEMM) {
    /* a configuration run carries its configuration; the calibration's own
     * kernel's run has none */
    if (!(st = encode_shape_fields(obj, &run->shape, err)) && run->config.tile_m)
      st = codec_config_encode(obj, &run->config, err);
  } else if (!(st = encode_key_fields(obj, &run->key, err)) &&
             !(st = codec_set(obj, "N", codec_uint(run->N), err)))
    st = codec_set(obj, "W", codec_uint(run->W), err);
  if (!st)
    st = codec_set(obj, "repeat", codec_uint(run->repeat), err);
  if (st) {
    json_decref(obj);
    return st;
  }
  *out = obj;
  return PASCAL_OK;
}

pascal_status pascal_codec_plan_run_decode(const json_t *obj, pascal_plan_workload workload,
                                           pascal_plan_run *out, pascal_error *err)
{
  return codec_plan_run_decode(obj, "run", workload, out, err);
}

pascal_status codec_plan_run_decode(const json_t *obj, const char *field,
                                    pascal_plan_workload workload, pascal_plan_run *out,
                                    pascal_error *err)
{
  pascal_plan_run r;
  uint64_t repeat = 0;
  int has_config = 0;
  pascal_status st;
  memset(&r, 0, sizeof r);
  r.workload = workload;
  if (!json_is_object(obj))
    return pascal_error_set(err, PASCAL_EFORMAT, field, "%s must be an object", field);
  if (workload == PASCAL_PLAN_GEMM) {
    if ((st = codec_get_uint(obj, field, "Mg", 1, 1, PASCAL_PLAN_MAX_EXTENT, &r.shape.Mg, NULL,
                             err)) ||
        (st = codec_get_uint(obj, field, "Ng", 1, 1, PASCAL_PLAN_MAX_EXTENT, &r.shape.Ng, NULL,
                             err)) ||
        (st = codec_get_uint(obj, field, "Kg", 1, 1, PASCAL_PLAN_MAX_EXTENT, &r.shape.Kg, NULL,
                             err)) ||
        (st = codec_config_decode(obj, field, 0, &r.config, &has_config, err)) ||
        (has_config && (st = pascal_plan_config_validate(&r.config, field, err))))
      return st;
  } else if ((st = decode_key(obj, field, &r.key, err)) ||
             (st =
                  codec_get_uint(obj, field, "N", 1, 1, PASCAL_PLAN_MAX_EXTENT, &r.N, NULL, err)) ||
             (st =
                  codec_get_uint(obj, field, "W", 1, 1, PASCAL_PLAN_MAX_EXTENT, &r.W, NULL, err))) {
    return st;
  }
  if ((st = codec_get_uint(obj, field, "repeat", 0, 0, PASCAL_PLAN_MAX_REPEATS - 1, &repeat, NULL,
                           err)))
    return st;
  r.repeat = (uint32_t)repeat;
  *out = r;
  return PASCAL_OK;
}
