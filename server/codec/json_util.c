/*
 * json_util.c - strict, path-naming JSON field access and NaN-proof number
 * constructors for pascal_codec, and the one JSON form of device peaks
 * (json_util.h).
 */
#include "json_util.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "pascal_codec.h"

void codec_path(char *buf, size_t size, const char *prefix, const char *key)
{
  if (prefix && *prefix)
    snprintf(buf, size, "%s.%s", prefix, key);
  else
    snprintf(buf, size, "%s", key);
}

void codec_path_index(char *buf, size_t size, const char *prefix, size_t index)
{
  snprintf(buf, size, "%s[%zu]", prefix, index);
}

static const char *type_name(const json_t *v)
{
  switch (json_typeof(v)) {
  case JSON_OBJECT: return "an object";
  case JSON_ARRAY: return "an array";
  case JSON_STRING: return "a string";
  case JSON_INTEGER: return "an integer";
  case JSON_REAL: return "a real number";
  case JSON_TRUE:
  case JSON_FALSE: return "a boolean";
  case JSON_NULL: return "null";
  }
  return "something else";
}

/* Fetch `key`; EFORMAT if required and absent or if present with a type for
 * which `type_ok` fails. */
static pascal_status get_typed(const json_t *obj, const char *prefix, const char *key, int required,
                               int (*type_ok)(const json_t *), const char *want, json_t **out,
                               pascal_error *err)
{
  char field[PASCAL_ERROR_FIELD_MAX];
  codec_path(field, sizeof field, prefix, key);
  json_t *v = json_object_get(obj, key);
  *out = v;
  if (!v) {
    if (required)
      return pascal_error_set(err, PASCAL_EMISSING, field, "missing field %s", field);
    return PASCAL_OK;
  }
  if (!type_ok(v))
    return pascal_error_set(err, PASCAL_EFORMAT, field, "%s must be %s, not %s", field, want,
                            type_name(v));
  return PASCAL_OK;
}

static int is_object(const json_t *v)
{
  return json_is_object(v);
}
static int is_array(const json_t *v)
{
  return json_is_array(v);
}
static int is_string(const json_t *v)
{
  return json_is_string(v);
}
static int is_integer(const json_t *v)
{
  return json_is_integer(v);
}
static int is_number(const json_t *v)
{
  return json_is_number(v);
}

pascal_status codec_get_object(const json_t *obj, const char *prefix, const char *key, int required,
                               json_t **out, pascal_error *err)
{
  return get_typed(obj, prefix, key, required, is_object, "an object", out, err);
}

pascal_status codec_get_array(const json_t *obj, const char *prefix, const char *key, int required,
                              json_t **out, pascal_error *err)
{
  return get_typed(obj, prefix, key, required, is_array, "an array", out, err);
}

pascal_status codec_get_string(const json_t *obj, const char *prefix, const char *key, int required,
                               const char **out, pascal_error *err)
{
  json_t *v;
  pascal_status st = get_typed(obj, prefix, key, required, is_string, "a string", &v, err);
  if (st)
    return st;
  *out = v ? json_string_value(v) : NULL;
  return PASCAL_OK;
}

pascal_status codec_uint_value(const json_t *v, const char *field, uint64_t lo, uint64_t hi,
                               uint64_t *out, pascal_error *err)
{
  if (!json_is_integer(v))
    return pascal_error_set(err, PASCAL_EFORMAT, field, "%s must be an integer, not %s", field,
                            type_name(v));
  json_int_t x = json_integer_value(v);
  if (x < 0 || (uint64_t)x < lo || (uint64_t)x > hi)
    return pascal_error_set(err, PASCAL_EINVAL, field, "%s must be %llu..%llu, got %lld", field,
                            (unsigned long long)lo, (unsigned long long)hi, (long long)x);
  *out = (uint64_t)x;
  return PASCAL_OK;
}

pascal_status codec_get_uint(const json_t *obj, const char *prefix, const char *key, int required,
                             uint64_t lo, uint64_t hi, uint64_t *out, int *present,
                             pascal_error *err)
{
  json_t *v;
  pascal_status st = get_typed(obj, prefix, key, required, is_integer, "an integer", &v, err);
  if (present)
    *present = v != NULL;
  if (st || !v)
    return st;
  char field[PASCAL_ERROR_FIELD_MAX];
  codec_path(field, sizeof field, prefix, key);
  return codec_uint_value(v, field, lo, hi, out, err);
}

pascal_status codec_get_number(const json_t *obj, const char *prefix, const char *key, int required,
                               int positive, double *out, int *present, pascal_error *err)
{
  json_t *v;
  pascal_status st = get_typed(obj, prefix, key, required, is_number, "a number", &v, err);
  if (present)
    *present = v != NULL;
  if (st || !v)
    return st;
  double x = json_number_value(v);
  char field[PASCAL_ERROR_FIELD_MAX];
  codec_path(field, sizeof field, prefix, key);
  if (!isfinite(x))
    return pascal_error_set(err, PASCAL_EINVAL, field, "%s must be finite", field);
  if (positive && !(x > 0))
    return pascal_error_set(err, PASCAL_EINVAL, field, "%s must be positive, got %.17g", field, x);
  *out = x;
  return PASCAL_OK;
}

json_t *codec_real(double v)
{
  return isfinite(v) ? json_real(v) : NULL;
}

json_t *codec_real_or_null(double v)
{
  return isnan(v) ? json_null() : codec_real(v);
}

json_t *codec_uint(uint64_t v)
{
  return v > (uint64_t)LLONG_MAX ? NULL : json_integer((json_int_t)v);
}

pascal_status codec_set(json_t *obj, const char *key, json_t *value, pascal_error *err)
{
  if (!value)
    return pascal_error_set(err, PASCAL_ERANGE, key,
                            "%s is not finite or not representable in JSON", key);
  if (json_object_set_new(obj, key, value))
    return pascal_error_set(err, PASCAL_ENOMEM, key, "out of memory writing %s", key);
  return PASCAL_OK;
}

pascal_status codec_append(json_t *arr, json_t *value, const char *field, pascal_error *err)
{
  if (!value)
    return pascal_error_set(err, PASCAL_ERANGE, field,
                            "%s is not finite or not representable in JSON", field);
  if (json_array_append_new(arr, value))
    return pascal_error_set(err, PASCAL_ENOMEM, field, "out of memory writing %s", field);
  return PASCAL_OK;
}

pascal_status codec_set_scan_key(json_t *obj, const pascal_scan_key *k, pascal_error *err)
{
  pascal_status st;
  if ((st = codec_set(obj, "o", codec_uint(k->o), err)) ||
      (st = codec_set(obj, "path", json_string(pascal_path_name(k->path)), err)) ||
      (st = codec_set(obj, "d", codec_uint(k->d), err)) ||
      (st = codec_set(obj, "m", codec_uint(k->m), err)))
    return st;
  return PASCAL_OK;
}

/* Element i of a C array as JSON (NULL: not representable). */
typedef json_t *(*codec_element)(const void *v, size_t i);

static json_t *uint_element(const void *v, size_t i)
{
  return codec_uint(((const uint64_t *)v)[i]);
}

static json_t *real_element(const void *v, size_t i)
{
  return codec_real(((const double *)v)[i]);
}

static pascal_status set_array(json_t *obj, const char *key, const void *v, size_t n,
                               codec_element element, pascal_error *err)
{
  json_t *arr = json_array();
  pascal_status st = codec_set(obj, key, arr, err);
  for (size_t i = 0; !st && i < n; i++)
    st = codec_append(arr, element(v, i), key, err);
  return st;
}

pascal_status codec_set_uint_array(json_t *obj, const char *key, const uint64_t *v, size_t n,
                                   pascal_error *err)
{
  return set_array(obj, key, v, n, uint_element, err);
}

pascal_status codec_set_real_array(json_t *obj, const char *key, const double *v, size_t n,
                                   pascal_error *err)
{
  return set_array(obj, key, v, n, real_element, err);
}

pascal_status codec_text_to_tree(const pascal_jtext *w, json_t **out, pascal_error *err)
{
  pascal_status st = pascal_jtext_status(w, err);
  if (st == PASCAL_OK)
    st = pascal_codec_parse(w->text, w->len, out, err);
  return st;
}

/* The peaks' keys, in pascal_peaks order. */
static const char *const peak_keys[] = {"dram_bytes_per_s", "l2_bytes_per_s", "tensor_flops",
                                        "sm_clock_hz", "launch_s"};

static double *peak_slot(pascal_peaks *p, size_t i)
{
  double *slots[] = {&p->dram_bytes_per_s, &p->l2_bytes_per_s, &p->tensor_flops, &p->sm_clock_hz,
                     &p->launch_s};
  return slots[i];
}

pascal_status codec_peaks_encode(const pascal_peaks *p, json_t **out, pascal_error *err)
{
  json_t *obj = json_object();
  pascal_peaks v = *p;
  pascal_status st =
      obj ? PASCAL_OK : pascal_error_set(err, PASCAL_ENOMEM, "peaks", "out of memory");
  for (size_t i = 0; !st && i < sizeof peak_keys / sizeof *peak_keys; i++)
    st = codec_set(obj, peak_keys[i], codec_real(*peak_slot(&v, i)), err);
  if (st) {
    json_decref(obj);
    return st;
  }
  *out = obj;
  return PASCAL_OK;
}

pascal_status codec_peaks_decode(const json_t *obj, const char *prefix, pascal_peaks *out,
                                 pascal_error *err)
{
  pascal_peaks p;
  pascal_status st;
  for (size_t i = 0; i < sizeof peak_keys / sizeof *peak_keys; i++)
    if ((st = codec_get_number(obj, prefix, peak_keys[i], 1, 0, peak_slot(&p, i), NULL, err)))
      return st;
  pascal_error inner;
  if (pascal_peaks_check(&p, &inner) != PASCAL_OK) {
    char field[PASCAL_ERROR_FIELD_MAX];
    codec_path(field, sizeof field, prefix, inner.field);
    return pascal_error_set(err, PASCAL_EINVAL, field, "%s %s", field, inner.message);
  }
  *out = p;
  return PASCAL_OK;
}

/* The members of a GEMM configuration, in pascal_gemm_config's order. */
static const char *const config_keys[] = {"tile_m",     "tile_n", "tile_k",
                                          "elem_bytes", "stages", "group_m"};
#define N_CONFIG_KEYS (sizeof config_keys / sizeof *config_keys)

static uint32_t *config_member(pascal_gemm_config *c, size_t i)
{
  uint32_t *m[N_CONFIG_KEYS] = {&c->tile_m,     &c->tile_n, &c->tile_k,
                                &c->elem_bytes, &c->stages, &c->group_m};
  return m[i];
}

pascal_status codec_config_decode(const json_t *obj, const char *prefix, int required,
                                  pascal_gemm_config *out, int *present, pascal_error *err)
{
  pascal_gemm_config c;
  memset(&c, 0, sizeof c);
  size_t seen = 0;
  for (size_t k = 0; k < N_CONFIG_KEYS; k++)
    seen += json_object_get(obj, config_keys[k]) != NULL;
  if (present)
    *present = seen > 0;
  if (!required && seen == 0)
    return PASCAL_OK;
  for (size_t k = 0; k < N_CONFIG_KEYS; k++) {
    uint64_t v = 0;
    pascal_status st = codec_get_uint(obj, prefix, config_keys[k], 1, 0, UINT32_MAX, &v, NULL, err);
    if (st)
      return st;
    *config_member(&c, k) = (uint32_t)v;
  }
  *out = c;
  return PASCAL_OK;
}

pascal_status codec_config_encode(json_t *obj, const pascal_gemm_config *c, pascal_error *err)
{
  pascal_gemm_config copy = *c;
  pascal_status st = PASCAL_OK;
  for (size_t k = 0; k < N_CONFIG_KEYS && !st; k++)
    st = codec_set(obj, config_keys[k], codec_uint(*config_member(&copy, k)), err);
  return st;
}
