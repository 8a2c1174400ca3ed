/*
 * device_data.h - a device's probe data (the capacity scan and the static
 * cluster experiment, pascal/device_data.h) on its way between the API, the
 * store and a bundle: POST /v1/devices takes it as JSON objects checked by
 * the codec, the store keeps their canonical text, and a calibration frozen
 * on the device carries it in its bundle's device object.
 */
#ifndef PASCALD_DEVICE_DATA_H
#define PASCALD_DEVICE_DATA_H

#include <jansson.h>

#include "pascal/calibration.h"
#include "pascal_store.h"
#include "reply.h"

/* The optional members "capacity_probe" and "static_experiment" of a
 * registration body into dev's texts (canonical JSON). 0 when absent or
 * good; -1 with a 400 naming the field. */
int pd_device_data_take(const json_t *body, pascal_store_device *dev, pd_reply *rep);

/* The stored texts into the core device of a bundle (has_* 0 where none). */
pascal_status pd_device_data_to_core(const pascal_store_device *dev, pascal_device *core,
                                     pascal_error *err);

/* The other way: the probe data a bundle's core device carries into dev's
 * texts (those it does not carry are left as they are). */
pascal_status pd_device_data_from_core(const pascal_device *core, pascal_store_device *dev,
                                       pascal_error *err);

/* A stored text as a JSON value for a view: the object, or null. */
json_t *pd_device_data_view(const char *text);

#endif
