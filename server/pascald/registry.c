/*
 * registry.c - the in-memory set of frozen models (see registry.h). The entry
 * array only grows (or is emptied whole, for a replica's sync from scratch); a lookup is a short
 * linear scan (tens of calibrations).
 */
#define _GNU_SOURCE /* pthread_rwlockattr_setkind_np (glibc) */
#include "registry.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "pascal/grow.h"

struct pd_registry {
  pthread_rwlock_t lock;
  pd_reg_entry *entries;
  size_t n, cap;
};

int pd_registry_new(pd_registry **out)
{
  pd_registry *r = calloc(1, sizeof *r);
  pthread_rwlockattr_t attr;
  if (!r || pthread_rwlockattr_init(&attr) != 0) {
    free(r);
    return -1;
  }
  /* glibc's default rwlock prefers readers: with prediction threads always
   * overlapping (every batch item takes the read lock), a freeze or import
   * could wait for the write lock without bound. Prefer the writer; this is
   * safe because no thread ever takes the read lock twice. */
  int ok =
      pthread_rwlockattr_setkind_np(&attr, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP) == 0 &&
      pthread_rwlock_init(&r->lock, &attr) == 0;
  pthread_rwlockattr_destroy(&attr);
  if (!ok) {
    free(r);
    return -1;
  }
  *out = r;
  return 0;
}

void pd_registry_free(pd_registry *r)
{
  if (!r)
    return;
  for (size_t i = 0; i < r->n; i++) {
    pascal_model_free(r->entries[i].model);
    pascal_validation_free(&r->entries[i].validation);
  }
  free(r->entries);
  pthread_rwlock_destroy(&r->lock);
  free(r);
}

void pd_registry_clear(pd_registry *r)
{
  pthread_rwlock_wrlock(&r->lock);
  for (size_t i = 0; i < r->n; i++) {
    pascal_model_free(r->entries[i].model);
    pascal_validation_free(&r->entries[i].validation);
  }
  r->n = 0;
  pthread_rwlock_unlock(&r->lock);
}

int pd_registry_add(pd_registry *r, int64_t id, pascal_model *model, pascal_validation *validation)
{
  int rc = 0;
  pthread_rwlock_wrlock(&r->lock);
  for (size_t i = 0; i < r->n && rc == 0; i++)
    if (r->entries[i].id == id)
      rc = 1;
  if (rc == 0 && pascal_grow((void **)&r->entries, &r->cap, r->n + 1, sizeof *r->entries))
    rc = -1;
  if (rc == 0) {
    pd_reg_entry *e = &r->entries[r->n++];
    e->id = id;
    e->model = model;
    e->workload = pascal_model_workload(model);
    e->device = pascal_model_device(model);
    e->validation = *validation;
    memset(validation, 0, sizeof *validation);
  }
  pthread_rwlock_unlock(&r->lock);
  return rc;
}

void pd_registry_rdlock(pd_registry *r)
{
  pthread_rwlock_rdlock(&r->lock);
}
void pd_registry_unlock(pd_registry *r)
{
  pthread_rwlock_unlock(&r->lock);
}

const pd_reg_entry *pd_registry_by_id(const pd_registry *r, int64_t id)
{
  for (size_t i = 0; i < r->n; i++)
    if (r->entries[i].id == id)
      return &r->entries[i];
  return NULL;
}

const pd_reg_entry *pd_registry_newest(const pd_registry *r, const char *device,
                                       pascal_workload workload, int *any_device)
{
  const pd_reg_entry *best = NULL;
  int any = 0;
  for (size_t i = 0; i < r->n; i++) {
    const pd_reg_entry *e = &r->entries[i];
    if (strcmp(e->device->name, device) != 0)
      continue;
    any = 1;
    if (e->workload == workload && (!best || e->id > best->id))
      best = e;
  }
  if (any_device)
    *any_device = any;
  return best;
}

size_t pd_registry_count(pd_registry *r)
{
  pthread_rwlock_rdlock(&r->lock);
  size_t n = r->n;
  pthread_rwlock_unlock(&r->lock);
  return n;
}
