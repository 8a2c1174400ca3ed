/*
 * validate.c - checks on every input of the store's public calls, so that a
 * bad value is refused with the name of its field before any SQL runs. The
 * schema's CHECK constraints repeat the structural rules as a second line.
 */
#include "store_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Largest `now` accepted: leaves room for now + lease_seconds in int64. */
#define STORE_TIME_MAX ((int64_t)1 << 40)

pascal_store_status store_check_text(const char *text, const char *field, pascal_error *err)
{
  if (!text || !*text)
    return store_fail(err, PASCAL_STORE_INVALID, field, "%s is empty", field);
  return PASCAL_STORE_OK;
}

static pascal_store_status check_chars(const char *name, const char *field, int (*allowed)(int),
                                       pascal_error *err)
{
  pascal_store_status status = store_check_text(name, field, err);
  if (status)
    return status;
  size_t len = strlen(name);
  if (len >= PASCAL_STORE_NAME_MAX)
    return store_fail(err, PASCAL_STORE_INVALID, field, "%s is longer than %d bytes", field,
                      PASCAL_STORE_NAME_MAX - 1);
  for (size_t i = 0; i < len; i++)
    if (!allowed((unsigned char)name[i]))
      return store_fail(err, PASCAL_STORE_INVALID, field,
                        "%s has a forbidden character at byte %zu", field, i);
  return PASCAL_STORE_OK;
}

static int device_char(int c)
{
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
         c == '_' || c == '-';
}

static int label_char(int c)
{
  return c >= 0x21 && c <= 0x7e;
}
static int text_char(int c)
{
  return c >= 0x20 && c <= 0x7e;
}

/* The CUDA identity of a device: every part optional (empty / 0). */
static pascal_store_status check_cuda(const pascal_store_device *dev, pascal_error *err)
{
  if (!memchr(dev->cuda_name, '\0', sizeof dev->cuda_name))
    return store_fail(err, PASCAL_STORE_INVALID, "device.cuda_name",
                      "device.cuda_name is not terminated");
  size_t n = strlen(dev->cuda_name);
  if (n) {
    pascal_store_status status = check_chars(dev->cuda_name, "device.cuda_name", text_char, err);
    if (status)
      return status;
    if (dev->cuda_name[0] == ' ' || dev->cuda_name[n - 1] == ' ')
      return store_fail(err, PASCAL_STORE_INVALID, "device.cuda_name",
                        "device.cuda_name starts or ends with a blank");
  }
  if (dev->cc_major > 99 || dev->cc_minor > 99 || (!dev->cc_major && dev->cc_minor))
    return store_fail(err, PASCAL_STORE_INVALID, "device.compute_capability",
                      "device.compute_capability must be MAJOR.MINOR with MAJOR 1..99, "
                      "MINOR 0..99");
  if (dev->l2_bytes > (uint64_t)INT64_MAX)
    return store_fail(err, PASCAL_STORE_INVALID, "device.l2_bytes", "device.l2_bytes is too large");
  if (!memchr(dev->capacity_probe, '\0', sizeof dev->capacity_probe) ||
      !memchr(dev->static_experiment, '\0', sizeof dev->static_experiment))
    return store_fail(err, PASCAL_STORE_INVALID,
                      memchr(dev->capacity_probe, '\0', sizeof dev->capacity_probe)
                          ? "device.static_experiment"
                          : "device.capacity_probe",
                      "the device's probe data is not a terminated string");
  pascal_error inner;
  if (dev->has_peaks && pascal_peaks_check(&dev->peaks, &inner) != PASCAL_OK) {
    char field[PASCAL_ERROR_FIELD_MAX + 16];
    snprintf(field, sizeof field, "device.peaks.%s", inner.field);
    return store_fail(err, PASCAL_STORE_INVALID, field, "%s %s", field, inner.message);
  }
  return PASCAL_STORE_OK;
}

pascal_store_status store_check_device_name(const char *name, const char *field, pascal_error *err)
{
  return check_chars(name, field, device_char, err);
}

pascal_store_status store_check_label(const char *name, const char *field, pascal_error *err)
{
  return check_chars(name, field, label_char, err);
}

pascal_store_status store_check_hex(const char *text, size_t min, size_t max, const char *field,
                                    pascal_error *err)
{
  pascal_store_status status = store_check_text(text, field, err);
  if (status)
    return status;
  size_t len = strnlen(text, max + 1);
  if (len < min || len > max)
    return store_fail(err, PASCAL_STORE_INVALID, field, "%s must be %zu to %zu hex digits", field,
                      min, max);
  for (size_t i = 0; i < len; i++)
    if (!((text[i] >= '0' && text[i] <= '9') || (text[i] >= 'a' && text[i] <= 'f')))
      return store_fail(err, PASCAL_STORE_INVALID, field, "%s must be lower-case hex digits",
                        field);
  return PASCAL_STORE_OK;
}

pascal_store_status store_check_time(int64_t now, pascal_error *err)
{
  if (now < 0 || now > STORE_TIME_MAX)
    return store_fail(err, PASCAL_STORE_INVALID, "now", "now must be unix seconds in [0, 2^40]");
  return PASCAL_STORE_OK;
}

pascal_store_status store_check_workload(pascal_store_workload w, pascal_error *err)
{
  if (w != PASCAL_STORE_SCAN && w != PASCAL_STORE_GEMM && w != PASCAL_STORE_ATTENTION)
    return store_fail(err, PASCAL_STORE_INVALID, "workload",
                      "workload must be scan, gemm or attention");
  return PASCAL_STORE_OK;
}

/* Names the sub-field "<prefix>.<name>" and fails. */
static pascal_store_status run_field(pascal_error *err, const char *prefix, const char *name,
                                     const char *why)
{
  char field[PASCAL_ERROR_FIELD_MAX];
  snprintf(field, sizeof field, "%s.%s", prefix, name);
  return store_fail(err, PASCAL_STORE_INVALID, field, "%s %s", field, why);
}

pascal_store_status store_check_run(const pascal_store_run *r, pascal_store_workload w,
                                    const char *field, pascal_error *err)
{
  const uint64_t big = (uint64_t)INT64_MAX;
  if (r->heldout != 0 && r->heldout != 1)
    return run_field(err, field, "heldout", "must be 0 or 1");
  const pascal_gemm_config none = {0, 0, 0, 0, 0, 0};
  const int configured = memcmp(&r->config, &none, sizeof none) != 0;
  if (configured && w != PASCAL_STORE_GEMM)
    return run_field(err, field, "tile_m", "a configuration belongs to a gemm run");
  if (configured && r->heldout)
    return run_field(err, field, "heldout", "a configuration run is not a held-out run");
  if (configured && pascal_plan_config_validate(&r->config, field, err))
    return PASCAL_STORE_INVALID;
  if (w != PASCAL_STORE_GEMM) { /* scan and attention runs are scans */
    if (r->o < 1)
      return run_field(err, field, "o", "must be at least 1");
    if (r->path_tma != 0 && r->path_tma != 1)
      return run_field(err, field, "path", "must be sync or tma");
    if (r->path_tma == 0 && r->d != 0)
      return run_field(err, field, "d", "must be 0 on the sync path");
    if (r->path_tma == 1 && r->d < 1)
      return run_field(err, field, "d", "must be at least 1 on the tma path");
    if (r->N < 1 || r->N > big)
      return run_field(err, field, "N", "must be in [1, 2^63)");
    if (r->W < 1 || r->W > big)
      return run_field(err, field, "W", "must be in [1, 2^63)");
    if (r->Mg || r->Ng || r->Kg)
      return run_field(err, field, "Mg", "must be 0 in a scan run");
  } else {
    if (r->Mg < 1 || r->Mg > big)
      return run_field(err, field, "Mg", "must be in [1, 2^63)");
    if (r->Ng < 1 || r->Ng > big)
      return run_field(err, field, "Ng", "must be in [1, 2^63)");
    if (r->Kg < 1 || r->Kg > big)
      return run_field(err, field, "Kg", "must be in [1, 2^63)");
    if (r->o || r->path_tma || r->d || r->m || r->N || r->W)
      return run_field(err, field, "o", "scan fields must be 0 in a gemm run");
  }
  return PASCAL_STORE_OK;
}

pascal_store_status store_check_result(double fill_bytes, double kernel_ns, const char *field,
                                       pascal_error *err)
{
  if (!isfinite(fill_bytes) || fill_bytes < 0)
    return run_field(err, field, "fill_bytes", "must be finite and >= 0");
  if (!isfinite(kernel_ns) || kernel_ns < 0)
    return run_field(err, field, "kernel_ns", "must be finite and >= 0");
  return PASCAL_STORE_OK;
}

pascal_store_status store_check_device(const pascal_store_device *dev, pascal_error *err)
{
  if (!dev)
    return store_fail(err, PASCAL_STORE_INVALID, "device", "device is NULL");
  if (!memchr(dev->name, '\0', sizeof dev->name) || !memchr(dev->arch, '\0', sizeof dev->arch))
    return store_fail(err, PASCAL_STORE_INVALID, "device", "device strings are not terminated");
  pascal_store_status status = store_check_device_name(dev->name, "device.name", err);
  if (!status)
    status = check_chars(dev->arch, "device.arch", label_char, err);
  if (status)
    return status;
  if (dev->sm_count < 1)
    return store_fail(err, PASCAL_STORE_INVALID, "device.sm_count",
                      "device.sm_count must be at least 1");
  if (dev->capacity_blocks < 1)
    return store_fail(err, PASCAL_STORE_INVALID, "device.capacity_blocks",
                      "device.capacity_blocks must be at least 1");
  if (dev->block_bytes < 1)
    return store_fail(err, PASCAL_STORE_INVALID, "device.block_bytes",
                      "device.block_bytes must be at least 1");
  return check_cuda(dev, err);
}
