/*
 * device_data_codec.c - a device's capacity probe and static table as JSON
 * (pascal/device_data.h; the "capacity_probe" and "static_experiment"
 * objects of docs/bundle-format.md and of POST /v1/devices). Decoding is
 * strict (unknown keys refused) and checks the data as the core defines it;
 * every error names the full field path under the caller's prefix
 * ("device.capacity_probe.fill_ratio[3]").
 */
#include <stdio.h>
#include <string.h>

#include "json_util.h"
#include "pascal_codec.h"

/* EFORMAT naming the first key of `obj` not in `keys` (NULL-terminated). */
static pascal_status only_keys(const json_t *obj, const char *prefix, const char *const *keys,
                               pascal_error *err)
{
  const char *key;
  json_t *v;
  json_object_foreach((json_t *)obj, key, v)
  {
    size_t i = 0;
    while (keys[i] && strcmp(keys[i], key) != 0)
      i++;
    if (!keys[i]) {
      char field[PASCAL_ERROR_FIELD_MAX];
      codec_path(field, sizeof field, prefix, key);
      return pascal_error_set(err, PASCAL_EFORMAT, field, "unknown field %s", field);
    }
  }
  return PASCAL_OK;
}

/* The core check's error, its field placed under `prefix`. */
static pascal_status checked(pascal_status st, const pascal_error *inner, const char *prefix,
                             pascal_error *err)
{
  if (!st)
    return PASCAL_OK;
  char field[PASCAL_ERROR_FIELD_MAX];
  codec_path(field, sizeof field, prefix, inner->field);
  return pascal_error_set(err, st, field, "%s: %s", field, inner->message);
}

/* An array member of at most `max` elements; its length in *n. */
static pascal_status get_bounded_array(const json_t *obj, const char *prefix, const char *key,
                                       size_t max, json_t **arr, size_t *n, pascal_error *err)
{
  pascal_status st = codec_get_array(obj, prefix, key, 1, arr, err);
  if (st)
    return st;
  *n = json_array_size(*arr);
  if (*n > max) {
    char field[PASCAL_ERROR_FIELD_MAX];
    codec_path(field, sizeof field, prefix, key);
    return pascal_error_set(err, PASCAL_ERANGE, field, "%s has %zu elements, at most %zu", field,
                            *n, max);
  }
  return PASCAL_OK;
}

pascal_status pascal_codec_capacity_probe_decode(const json_t *obj, const char *prefix,
                                                 pascal_capacity_probe *out, pascal_error *err)
{
  static const char *const keys[] = {"waves", "size_blocks", "fill_ratio", NULL};
  pascal_capacity_probe p;
  memset(&p, 0, sizeof p);
  json_t *sizes, *ratios;
  size_t n_ratios;
  uint64_t waves;
  char field[PASCAL_ERROR_FIELD_MAX], at[PASCAL_ERROR_FIELD_MAX];
  pascal_status st;
  if (!json_is_object(obj))
    return pascal_error_set(err, PASCAL_EFORMAT, prefix, "%s must be an object", prefix);
  if ((st = only_keys(obj, prefix, keys, err)) ||
      (st = codec_get_uint(obj, prefix, "waves", 1, 1, UINT32_MAX, &waves, NULL, err)) ||
      (st = get_bounded_array(obj, prefix, "size_blocks", PASCAL_CAPACITY_PROBE_MAX, &sizes, &p.n,
                              err)) ||
      (st = get_bounded_array(obj, prefix, "fill_ratio", PASCAL_CAPACITY_PROBE_MAX, &ratios,
                              &n_ratios, err)))
    return st;
  p.waves = (uint32_t)waves;
  if (n_ratios != p.n) {
    codec_path(field, sizeof field, prefix, "fill_ratio");
    return pascal_error_set(err, PASCAL_EINVAL, field,
                            "%s has %zu values for %zu sizes; one per size", field, n_ratios, p.n);
  }
  for (size_t i = 0; i < p.n; i++) {
    codec_path(field, sizeof field, prefix, "size_blocks");
    codec_path_index(at, sizeof at, field, i);
    if ((st = codec_uint_value(json_array_get(sizes, i), at, 1, UINT64_C(1) << 53,
                               &p.size_blocks[i], err)))
      return st;
    json_t *r = json_array_get(ratios, i);
    codec_path(field, sizeof field, prefix, "fill_ratio");
    codec_path_index(at, sizeof at, field, i);
    if (!json_is_number(r))
      return pascal_error_set(err, PASCAL_EFORMAT, at, "%s must be a number", at);
    p.fill_ratio[i] = json_number_value(r);
  }
  pascal_error inner;
  if ((st = checked(pascal_capacity_probe_check(&p, &inner), &inner, prefix, err)))
    return st;
  *out = p;
  return PASCAL_OK;
}

pascal_status pascal_codec_capacity_probe_encode(const pascal_capacity_probe *p, json_t **out,
                                                 pascal_error *err)
{
  json_t *obj = json_object();
  pascal_status st;
  if (!obj)
    return pascal_error_set(err, PASCAL_ENOMEM, "capacity_probe", "out of memory");
  if ((st = codec_set(obj, "waves", codec_uint(p->waves), err)) ||
      (st = codec_set_uint_array(obj, "size_blocks", p->size_blocks, p->n, err)) ||
      (st = codec_set_real_array(obj, "fill_ratio", p->fill_ratio, p->n, err))) {
    json_decref(obj);
    return st;
  }
  *out = obj;
  return PASCAL_OK;
}

/* The row's numbers, in pascal_static_row order after the three counts. */
static const char *const row_reals[] = {"K", "gap_law", "sdcm", "che"};
static const char *const row_counts[] = {"block_bytes", "C", "clusters"};

static double *row_real(pascal_static_row *r, size_t i)
{
  double *slots[] = {&r->K, &r->gap_law, &r->sdcm, &r->che};
  return slots[i];
}

static uint32_t *row_count(pascal_static_row *r, size_t i)
{
  uint32_t *slots[] = {&r->block_bytes, &r->C, &r->clusters};
  return slots[i];
}

static pascal_status decode_row(const json_t *obj, const char *at, pascal_static_row *r,
                                pascal_error *err)
{
  static const char *const keys[] = {"block_bytes", "C",    "clusters", "K",
                                     "gap_law",     "sdcm", "che",      NULL};
  pascal_status st;
  if (!json_is_object(obj))
    return pascal_error_set(err, PASCAL_EFORMAT, at, "%s must be an object", at);
  if ((st = only_keys(obj, at, keys, err)))
    return st;
  for (size_t i = 0; i < 3; i++) {
    uint64_t v;
    if ((st = codec_get_uint(obj, at, row_counts[i], 1, 0, UINT32_MAX, &v, NULL, err)))
      return st;
    *row_count(r, i) = (uint32_t)v;
  }
  for (size_t i = 0; i < 4; i++)
    if ((st = codec_get_number(obj, at, row_reals[i], 1, 0, row_real(r, i), NULL, err)))
      return st;
  return PASCAL_OK;
}

pascal_status pascal_codec_static_table_decode(const json_t *obj, const char *prefix,
                                               pascal_static_table *out, pascal_error *err)
{
  static const char *const keys[] = {"M", "N", "H", "rows", NULL};
  pascal_static_table t;
  memset(&t, 0, sizeof t);
  uint64_t m, n;
  json_t *rows;
  pascal_status st;
  if (!json_is_object(obj))
    return pascal_error_set(err, PASCAL_EFORMAT, prefix, "%s must be an object", prefix);
  if ((st = only_keys(obj, prefix, keys, err)) ||
      (st = codec_get_uint(obj, prefix, "M", 1, 0, UINT32_MAX, &m, NULL, err)) ||
      (st = codec_get_uint(obj, prefix, "N", 1, 0, UINT32_MAX, &n, NULL, err)) ||
      (st = codec_get_uint(obj, prefix, "H", 1, 0, UINT64_C(1) << 53, &t.H, NULL, err)) ||
      (st = get_bounded_array(obj, prefix, "rows", PASCAL_STATIC_ROWS_MAX, &rows, &t.n_rows, err)))
    return st;
  t.M = (uint32_t)m;
  t.N = (uint32_t)n;
  for (size_t i = 0; i < t.n_rows; i++) {
    char field[PASCAL_ERROR_FIELD_MAX], at[PASCAL_ERROR_FIELD_MAX];
    codec_path(field, sizeof field, prefix, "rows");
    codec_path_index(at, sizeof at, field, i);
    if ((st = decode_row(json_array_get(rows, i), at, &t.rows[i], err)))
      return st;
  }
  pascal_error inner;
  if ((st = checked(pascal_static_table_check(&t, &inner), &inner, prefix, err)))
    return st;
  *out = t;
  return PASCAL_OK;
}

pascal_status pascal_codec_static_table_encode(const pascal_static_table *t, json_t **out,
                                               pascal_error *err)
{
  json_t *obj = json_object(), *rows;
  pascal_status st = PASCAL_OK;
  if (!obj)
    return pascal_error_set(err, PASCAL_ENOMEM, "static_experiment", "out of memory");
  if ((st = codec_set(obj, "M", codec_uint(t->M), err)) ||
      (st = codec_set(obj, "N", codec_uint(t->N), err)) ||
      (st = codec_set(obj, "H", codec_uint(t->H), err)) ||
      (st = codec_set(obj, "rows", rows = json_array(), err)))
    goto fail;
  for (size_t i = 0; i < t->n_rows; i++) {
    pascal_static_row r = t->rows[i];
    json_t *row = json_object();
    char at[PASCAL_ERROR_FIELD_MAX];
    codec_path_index(at, sizeof at, "rows", i);
    if ((st = codec_append(rows, row, at, err)))
      goto fail;
    for (size_t k = 0; k < 3 && !st; k++)
      st = codec_set(row, row_counts[k], codec_uint(*row_count(&r, k)), err);
    for (size_t k = 0; k < 4 && !st; k++)
      st = codec_set(row, row_reals[k], codec_real(*row_real(&r, k)), err);
    if (st)
      goto fail;
  }
  *out = obj;
  return PASCAL_OK;
fail:
  json_decref(obj);
  return st;
}
