/*
 * devices.c - the devices table: idempotent registration (identical constants
 * accepted again, different ones refused; a CUDA identity, measured peaks
 * or probe data not yet known are filled in), lookup, listing, and the job progress of a device's
 * collecting calibrations.
 */
#include "store_internal.h"

#include <string.h>

static void read_device(sqlite3_stmt *st, pascal_store_device *d)
{
  memset(d, 0, sizeof *d);
  store_column_copy(st, 0, d->name, sizeof d->name);
  store_column_copy(st, 1, d->arch, sizeof d->arch);
  d->sm_count = (uint32_t)sqlite3_column_int64(st, 2);
  d->capacity_blocks = (uint32_t)sqlite3_column_int64(st, 3);
  d->block_bytes = (uint32_t)sqlite3_column_int64(st, 4);
  d->created = sqlite3_column_int64(st, 5);
  store_column_copy(st, 6, d->cuda_name, sizeof d->cuda_name);
  d->cc_major = (uint32_t)sqlite3_column_int64(st, 7);
  d->cc_minor = (uint32_t)sqlite3_column_int64(st, 8);
  d->l2_bytes = (uint64_t)sqlite3_column_int64(st, 9);
  d->has_peaks = sqlite3_column_type(st, 10) != SQLITE_NULL;
  if (d->has_peaks) {
    d->peaks.dram_bytes_per_s = sqlite3_column_double(st, 10);
    d->peaks.l2_bytes_per_s = sqlite3_column_double(st, 11);
    d->peaks.tensor_flops = sqlite3_column_double(st, 12);
    d->peaks.sm_clock_hz = sqlite3_column_double(st, 13);
    d->peaks.launch_s = sqlite3_column_double(st, 14);
  }
  store_column_copy(st, 15, d->capacity_probe, sizeof d->capacity_probe);
  store_column_copy(st, 16, d->static_experiment, sizeof d->static_experiment);
}

/* Look a device up inside the caller's lock: *found = 0 if absent. */
static pascal_store_status find_device(pascal_store *s, const char *name, pascal_store_device *out,
                                       int *found, pascal_error *err)
{
  sqlite3_stmt *st = NULL;
  pascal_store_status status = store_row_by_text(s, ST_DEVICE_GET, name, &st, found, "device", err);
  if (status == PASCAL_STORE_OK && *found)
    read_device(st, out);
  sqlite3_reset(st);
  return status;
}

/* The first constant in which a and b differ, or NULL. */
static const char *differing_field(const pascal_store_device *a, const pascal_store_device *b)
{
  if (strcmp(a->arch, b->arch) != 0)
    return "arch";
  if (a->sm_count != b->sm_count)
    return "sm_count";
  if (a->capacity_blocks != b->capacity_blocks)
    return "capacity_blocks";
  if (a->block_bytes != b->block_bytes)
    return "block_bytes";
  if (a->cuda_name[0] && b->cuda_name[0] && strcmp(a->cuda_name, b->cuda_name) != 0)
    return "cuda_name";
  if (a->cc_major && b->cc_major && (a->cc_major != b->cc_major || a->cc_minor != b->cc_minor))
    return "compute_capability";
  if (a->l2_bytes && b->l2_bytes && a->l2_bytes != b->l2_bytes)
    return "l2_bytes";
  if (a->has_peaks && b->has_peaks && memcmp(&a->peaks, &b->peaks, sizeof a->peaks) != 0)
    return "peaks";
  if (a->capacity_probe[0] && b->capacity_probe[0] &&
      strcmp(a->capacity_probe, b->capacity_probe) != 0)
    return "capacity_probe";
  if (a->static_experiment[0] && b->static_experiment[0] &&
      strcmp(a->static_experiment, b->static_experiment) != 0)
    return "static_experiment";
  return NULL;
}

/* The CUDA identity and peaks of `old` completed with what `dev` knows; 1 if
 * they grew. */
static int learn(pascal_store_device *old, const pascal_store_device *dev)
{
  int grew = 0;
  if (!old->has_peaks && dev->has_peaks) {
    old->has_peaks = 1;
    old->peaks = dev->peaks;
    grew = 1;
  }
  if (!old->capacity_probe[0] && dev->capacity_probe[0]) {
    memcpy(old->capacity_probe, dev->capacity_probe, sizeof old->capacity_probe);
    grew = 1;
  }
  if (!old->static_experiment[0] && dev->static_experiment[0]) {
    memcpy(old->static_experiment, dev->static_experiment, sizeof old->static_experiment);
    grew = 1;
  }
  if (!old->cuda_name[0] && dev->cuda_name[0]) {
    memcpy(old->cuda_name, dev->cuda_name, sizeof old->cuda_name);
    grew = 1;
  }
  if (!old->cc_major && dev->cc_major) {
    old->cc_major = dev->cc_major;
    old->cc_minor = dev->cc_minor;
    grew = 1;
  }
  if (!old->l2_bytes && dev->l2_bytes) {
    old->l2_bytes = dev->l2_bytes;
    grew = 1;
  }
  return grew;
}

/* `text` at parameter `i`, NULL when empty. */
static int bind_text_or_null(sqlite3_stmt *st, int i, const char *text)
{
  return text[0] ? sqlite3_bind_text(st, i, text, -1, SQLITE_STATIC) : sqlite3_bind_null(st, i);
}

/* Bind the CUDA identity at parameters first..first+3, the peaks at
 * first+4..first+8 and the probe data at first+9..first+10 (NULL where
 * unknown). */
static int bind_known(sqlite3_stmt *st, int first, const pascal_store_device *d)
{
  int prc = bind_text_or_null(st, first + 9, d->capacity_probe);
  if (prc == SQLITE_OK)
    prc = bind_text_or_null(st, first + 10, d->static_experiment);
  if (prc != SQLITE_OK)
    return prc;
  const double peaks[] = {d->peaks.dram_bytes_per_s, d->peaks.l2_bytes_per_s, d->peaks.tensor_flops,
                          d->peaks.sm_clock_hz, d->peaks.launch_s};
  for (int i = 0; i < 5; i++) {
    int rc = d->has_peaks ? sqlite3_bind_double(st, first + 4 + i, peaks[i])
                          : sqlite3_bind_null(st, first + 4 + i);
    if (rc != SQLITE_OK)
      return rc;
  }
  int rc = bind_text_or_null(st, first, d->cuda_name);
  if (rc == SQLITE_OK)
    rc = d->cc_major ? sqlite3_bind_int64(st, first + 1, d->cc_major)
                     : sqlite3_bind_null(st, first + 1);
  if (rc == SQLITE_OK)
    rc = d->cc_major ? sqlite3_bind_int64(st, first + 2, d->cc_minor)
                     : sqlite3_bind_null(st, first + 2);
  if (rc == SQLITE_OK)
    rc = d->l2_bytes ? sqlite3_bind_int64(st, first + 3, (sqlite3_int64)d->l2_bytes)
                     : sqlite3_bind_null(st, first + 3);
  return rc;
}

pascal_store_status store_device_require(pascal_store *s, const char *device, pascal_error *err)
{
  pascal_store_device dev;
  int found = 0;
  pascal_store_status status = find_device(s, device, &dev, &found, err);
  if (status == PASCAL_STORE_OK && !found)
    status = store_fail(err, PASCAL_STORE_NOT_FOUND, "device", "no device %s", device);
  return status;
}

pascal_store_status store_device_ensure(pascal_store *s, const pascal_store_device *dev,
                                        int64_t now, int *created, pascal_error *err)
{
  pascal_store_device old;
  int found = 0;
  pascal_store_status status = find_device(s, dev->name, &old, &found, err);
  if (status)
    return status;
  if (found) {
    const char *field = differing_field(&old, dev);
    if (field)
      return store_fail(err, PASCAL_STORE_CONFLICT, field, "device %s exists with a different %s",
                        dev->name, field);
    *created = 0;
    if (!learn(&old, dev))
      return PASCAL_STORE_OK;
    sqlite3_stmt *up = store_stmt_get(s, ST_DEVICE_LEARN);
    if (sqlite3_bind_text(up, 1, old.name, -1, SQLITE_TRANSIENT) || bind_known(up, 2, &old))
      return store_sql_error(s->db, sqlite3_errcode(s->db), "device", err);
    return store_step_done(s, up, "device update", err);
  }
  sqlite3_stmt *st = store_stmt_get(s, ST_DEVICE_INSERT);
  if (sqlite3_bind_text(st, 1, dev->name, -1, SQLITE_STATIC) ||
      sqlite3_bind_text(st, 2, dev->arch, -1, SQLITE_STATIC) ||
      sqlite3_bind_int64(st, 3, dev->sm_count) || sqlite3_bind_int64(st, 4, dev->capacity_blocks) ||
      sqlite3_bind_int64(st, 5, dev->block_bytes) || sqlite3_bind_int64(st, 6, now) ||
      bind_known(st, 7, dev))
    return store_sql_error(s->db, sqlite3_errcode(s->db), "device", err);
  status = store_step_done(s, st, "device insert", err);
  if (status == PASCAL_STORE_OK)
    *created = 1;
  return status;
}

pascal_store_status pascal_store_device_create(pascal_store *s, const pascal_store_device *dev,
                                               int64_t now, int *created, pascal_error *err)
{
  pascal_store_status status = store_check_device(dev, err);
  if (!status)
    status = store_check_time(now, err);
  if (status)
    return status;
  status = store_begin(s, err);
  if (status)
    return status;
  int made = 0;
  status = store_end(s, store_device_ensure(s, dev, now, &made, err), err);
  if (status == PASCAL_STORE_OK && created)
    *created = made;
  return status;
}

pascal_store_status pascal_store_device_get(pascal_store *s, const char *name,
                                            pascal_store_device *out, pascal_error *err)
{
  pascal_store_status status = store_check_device_name(name, "device", err);
  if (status)
    return status;
  pascal_store_device dev;
  int found = 0;
  store_lock(s);
  status = find_device(s, name, &dev, &found, err);
  store_unlock(s);
  if (status)
    return status;
  if (!found)
    return store_fail(err, PASCAL_STORE_NOT_FOUND, "device", "no device %s", name);
  *out = dev;
  return PASCAL_STORE_OK;
}

static pascal_store_status device_reader(sqlite3_stmt *st, void *elem, pascal_error *err)
{
  read_device(st, elem);
  return PASCAL_STORE_OK;
}

pascal_store_status pascal_store_device_list(pascal_store *s, pascal_store_device **out,
                                             size_t *count, pascal_error *err)
{
  return store_list(s, ST_DEVICE_LIST, sizeof **out, device_reader, NULL, (void **)out, count, err);
}

pascal_store_status store_device_progress(pascal_store *s, const char *device, int64_t *done,
                                          int64_t *total, pascal_error *err)
{
  sqlite3_stmt *st = NULL;
  int row = 0;
  pascal_store_status status =
      store_row_by_text(s, ST_DEVICE_PROGRESS, device, &st, &row, "progress", err);
  if (status == PASCAL_STORE_OK && row) {
    *done = sqlite3_column_int64(st, 0);
    *total = sqlite3_column_int64(st, 1);
  }
  sqlite3_reset(st);
  return status;
}

pascal_store_status pascal_store_device_progress(pascal_store *s, const char *device, int64_t *done,
                                                 int64_t *total, pascal_error *err)
{
  pascal_store_status status = store_check_device_name(device, "device", err);
  if (status)
    return status;
  store_lock(s);
  status = store_device_require(s, device, err);
  if (status == PASCAL_STORE_OK)
    status = store_device_progress(s, device, done, total, err);
  store_unlock(s);
  return status;
}
