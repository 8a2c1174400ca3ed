/*
 * device_ref.h - naming a device the way its user knows it: by its pascald
 * name ("sim-gb10") or by the name CUDA reports for the GPU ("NVIDIA H100
 * 80GB HBM3", cudaDeviceProp.name, compared without case). A CUDA name must
 * name exactly one device; an unknown or ambiguous reference is a 404 whose
 * message and `error.candidates` list the close matches.
 */
#ifndef PASCALD_DEVICE_REF_H
#define PASCALD_DEVICE_REF_H

#include <stdint.h>

#include "pascal_store.h"
#include "pascald.h"

/* Resolve `ref` to a device name in name[PASCAL_STORE_NAME_MAX]: a device of
 * that name (unless `cuda_only`), else the one device with that CUDA name.
 * Returns 0, or -1 with rep filled (404 naming `field`; 503 when the store
 * cannot be read). */
int pd_device_resolve(pd_ctx *ctx, const char *ref, const char *field, int cuda_only, char *name,
                      pd_reply *rep);

/* The device a prediction for `ref` uses, under the registry read lock:
 * `ref` itself when a frozen calibration of that name is loaded (no store
 * access on that path), else pd_device_resolve() into name[]. NULL with rep
 * filled when `ref` names no device or several. */
const char *pd_device_for_prediction(pd_ctx *ctx, const char *ref, char *name, pd_reply *rep);

/* 1 when `d` has the CUDA name `cuda_name` (ASCII case ignored). */
int pd_device_has_cuda_name(const pascal_store_device *d, const char *cuda_name);

#endif
