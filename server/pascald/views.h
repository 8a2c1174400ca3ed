/*
 * views.h - JSON shapes of store records in the HTTP API (devices,
 * calibrations, progress). Core structs (bundles, plans, predictions)
 * and the jobs protocol are encoded by server/codec instead; these are the daemon's own resources.
 */
#ifndef PASCALD_VIEWS_H
#define PASCALD_VIEWS_H

#include <jansson.h>
#include <stdint.h>

#include "pascal_store.h"

json_t *pd_view_device(const pascal_store_device *d);
/* Summary (list) or full (get: adds the plan and the LOKO report) view.
 * Embedded JSON texts that fail to parse are shown as null. */
json_t *pd_view_calibration(const pascal_store_calibration *c, int full);

#endif
