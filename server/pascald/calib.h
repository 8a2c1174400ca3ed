/*
 * calib.h - the calibration life cycle inside the daemon: startup loading of
 * frozen calibrations into the registry (and the first-run import of the
 * shipped bundles), freezing (fit + LOKO report + bundle + store + registry)
 * and importing a pascal-calibration/1 bundle.
 */
#ifndef PASCALD_CALIB_H
#define PASCALD_CALIB_H

#include "ctx.h"

/* Load every frozen calibration into memory; on a database with no
 * calibration at all, import the *.json files of cfg.bundles_dir first. */
int pd_calib_startup(pd_ctx *ctx, char *msg, size_t msglen);

#endif
