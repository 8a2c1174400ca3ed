/*
 * views.h - JSON shapes of store records in the HTTP API (devices,
 * calibrations, progress, jobs, tokens). Core structs (bundles, plans, predictions)
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
/* A job as GET /v1/jobs lists it: state, run, who holds or held its lease
 * and when, when it finished; never its lease secret. */
json_t *pd_view_job(const pascal_store_job *j);
/* A token as GET /v1/tokens lists it: id, name, role, times; never its hash. */
json_t *pd_view_token(const pascal_store_token *t);

#endif
