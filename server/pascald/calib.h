/*
 * calib.h - the calibration life cycle inside the daemon: startup loading of
 * frozen calibrations into the registry (and the first-run import of the
 * shipped bundles), freezing (fit + LOKO report + bundle + store + registry)
 * and importing a pascal-calibration/1 bundle.
 */
#ifndef PASCALD_CALIB_H
#define PASCALD_CALIB_H

#include <jansson.h>
#include <stdint.h>

#include "ctx.h"
#include "pascal/error.h"
#include "pascal_store.h"

/* What a freeze or import did. store_status != 0 (a pascal_store_status)
 * when the store refused, so that the reply can say 404/409/503 precisely;
 * otherwise the pascal_error describes a bad bundle or measurement. */
typedef struct pd_calib_outcome {
  int64_t id;
  int created; /* import: 0 when the same bundle was already there */
  int store_status;
} pd_calib_outcome;

/* Freeze collecting calibration `id`: every job must be done. */
pascal_status pd_calib_freeze(pd_ctx *ctx, int64_t id, pd_calib_outcome *o, pascal_error *err);

/* Import a pascal-calibration/1 document (frozen on import). as_id > 0:
 * the id it must take (a replica keeps its primary's ids), else 0. */
pascal_status pd_calib_import(pd_ctx *ctx, const json_t *doc, int64_t as_id, pd_calib_outcome *o,
                              pascal_error *err);

/* PASCAL_EREFUSED naming "fill_bytes" or "kernel_ns" when an agent's result
 * for `job` lies outside what its run can physically measure on its device
 * `dev` (pascal/plausible.h). Reads nothing from the store. */
pascal_status pd_calib_check_result(const pascal_store_device *dev, const pascal_store_job *job,
                                    double fill_bytes, double kernel_ns, pascal_error *err);

/* PASCAL_ERANGE when a planned run reads more than one run may
 * (PASCAL_RUN_BYTES_MAX, PASCAL_RUN_READS_MAX) on `dev`; the message names
 * the run, err->field is "plan". */
pascal_status pd_calib_check_runs(const pascal_store_device *dev, pascal_store_workload workload,
                                  const pascal_store_run *runs, size_t n, pascal_error *err);

/* Load every frozen calibration into memory; on a database with no
 * calibration at all, import the *.json files of cfg.bundles_dir first. */
int pd_calib_startup(pd_ctx *ctx, char *msg, size_t msglen);

#endif
