/*
 * registry.h - frozen calibrations held in memory for predictions.
 *
 * Entries are added (freeze, import, startup load) and never removed or
 * changed: a frozen calibration is immutable, so its fitted model is too.
 * Readers hold a pthread read lock only while they look up and predict (the
 * models themselves are const and thread-safe, predict.h); writers take the
 * write lock only to append a ready entry. No SQLite on this path. The lock
 * prefers a waiting writer and is not recursive: never take it twice.
 */
#ifndef PASCALD_REGISTRY_H
#define PASCALD_REGISTRY_H

#include <stdint.h>

#include "pascal/calibration.h"
#include "pascal/predict.h"
#include "pascal/validation.h"

typedef struct pd_registry pd_registry;

typedef struct pd_reg_entry {
  int64_t id; /* calibration id in the store */
  pascal_workload workload;
  pascal_model *model;          /* owned, immutable */
  const pascal_device *device;  /* points into model */
  pascal_validation validation; /* owned: the expected error of its answers */
} pd_reg_entry;

int pd_registry_new(pd_registry **out);
void pd_registry_free(pd_registry *r);

/* Append; takes ownership of `model` and of the keys of `validation` (which
 * is then emptied) on success (0), not on failure (-1). Adding an id already
 * present is a no-op that frees nothing and returns 1. */
int pd_registry_add(pd_registry *r, int64_t id, pascal_model *model, pascal_validation *validation);

void pd_registry_rdlock(pd_registry *r);
void pd_registry_unlock(pd_registry *r);

/* Under the read lock: the entry of calibration `id`, or NULL. */
const pd_reg_entry *pd_registry_by_id(const pd_registry *r, int64_t id);
/* Under the read lock: the newest (highest id) entry of `device` with the
 * given workload, or NULL. *any_device (may be NULL) says whether the device
 * has any frozen calibration at all. */
const pd_reg_entry *pd_registry_newest(const pd_registry *r, const char *device,
                                       pascal_workload workload, int *any_device);
size_t pd_registry_count(pd_registry *r);
/* Drop every model (a replica that syncs from scratch; replica.c). Takes the
 * write lock: no entry pointer read before may be used after. */
void pd_registry_clear(pd_registry *r);

#endif
