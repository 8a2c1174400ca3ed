/*
 * device_data.c - a device's probe data between the API, the store and a
 * bundle (device_data.h). The codec decodes and checks, then writes the
 * canonical text the store compares byte for byte, so re-registering the
 * same measurement is idempotent and a different one is a conflict.
 */
#include "device_data.h"

#include <stdlib.h>
#include <string.h>

#include "pascal_codec.h"

/* Canonical compact text of `obj` into out[0..cap). */
static pascal_status canonical(json_t *obj, const char *field, char *out, size_t cap,
                               pascal_error *err)
{
  char *text = json_dumps(obj, JSON_COMPACT | JSON_REAL_PRECISION(17));
  json_decref(obj);
  size_t len = text ? strlen(text) : 0;
  pascal_status st = PASCAL_OK;
  if (!text)
    st = pascal_error_set(err, PASCAL_ENOMEM, field, "out of memory");
  else if (len >= cap)
    st = pascal_error_set(err, PASCAL_ERANGE, field, "%s is too large to store", field);
  else
    memcpy(out, text, len + 1);
  free(text);
  return st;
}

static pascal_status take(const json_t *body, pascal_store_device *dev, pascal_error *err)
{
  pascal_device core;
  json_t *obj = NULL;
  pascal_status st = PASCAL_OK;
  json_t *v = json_object_get(body, "capacity_probe");
  if (v &&
      !(st = pascal_codec_capacity_probe_decode(v, "capacity_probe", &core.capacity_probe, err)) &&
      !(st = pascal_codec_capacity_probe_encode(&core.capacity_probe, &obj, err)))
    st = canonical(obj, "capacity_probe", dev->capacity_probe, sizeof dev->capacity_probe, err);
  v = json_object_get(body, "static_experiment");
  if (!st && v &&
      !(st = pascal_codec_static_table_decode(v, "static_experiment", &core.static_table, err)) &&
      !(st = pascal_codec_static_table_encode(&core.static_table, &obj, err)))
    st = canonical(obj, "static_experiment", dev->static_experiment, sizeof dev->static_experiment,
                   err);
  return st;
}

int pd_device_data_take(const json_t *body, pascal_store_device *dev, pd_reply *rep)
{
  pascal_error err;
  pascal_error_clear(&err);
  if (take(body, dev, &err) == PASCAL_OK)
    return 0;
  pd_reply_pascal_error(rep, &err);
  return -1;
}

pascal_status pd_device_data_to_core(const pascal_store_device *dev, pascal_device *core,
                                     pascal_error *err)
{
  pascal_status st = PASCAL_OK;
  json_t *probe = dev->capacity_probe[0] ? json_loads(dev->capacity_probe, 0, NULL) : NULL;
  json_t *table = dev->static_experiment[0] ? json_loads(dev->static_experiment, 0, NULL) : NULL;
  if ((dev->capacity_probe[0] && !probe) || (dev->static_experiment[0] && !table))
    st = pascal_error_set(err, PASCAL_EFORMAT, probe ? "static_experiment" : "capacity_probe",
                          "the stored probe data of device %s is not JSON", dev->name);
  if (!st && probe)
    st = pascal_codec_capacity_probe_decode(probe, "device.capacity_probe", &core->capacity_probe,
                                            err);
  if (!st && table)
    st = pascal_codec_static_table_decode(table, "device.static_experiment", &core->static_table,
                                          err);
  core->has_capacity_probe = !st && probe;
  core->has_static_table = !st && table;
  json_decref(probe);
  json_decref(table);
  return st;
}

pascal_status pd_device_data_from_core(const pascal_device *core, pascal_store_device *dev,
                                       pascal_error *err)
{
  json_t *obj = NULL;
  pascal_status st = PASCAL_OK;
  if (core->has_capacity_probe &&
      !(st = pascal_codec_capacity_probe_encode(&core->capacity_probe, &obj, err)))
    st = canonical(obj, "capacity_probe", dev->capacity_probe, sizeof dev->capacity_probe, err);
  if (!st && core->has_static_table &&
      !(st = pascal_codec_static_table_encode(&core->static_table, &obj, err)))
    st = canonical(obj, "static_experiment", dev->static_experiment, sizeof dev->static_experiment,
                   err);
  return st;
}

json_t *pd_device_data_view(const char *text)
{
  json_t *v = text[0] ? json_loads(text, 0, NULL) : NULL;
  return v ? v : json_null();
}
