/*
 * calibration.c - the calibration data model of pascal/calibration.h:
 * validated appends of measured runs (paper section 4.1-4.2), device and
 * tiling checks, the execution-class rule chi(m) = min(m mod 4, 2)
 * (section 4.3) and the stable names used by codecs.
 */
#include "pascal/calibration.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void pascal_calibration_init(pascal_calibration *cal, pascal_workload workload)
{
  memset(cal, 0, sizeof *cal);
  cal->workload = workload;
  cal->class_rule = PASCAL_CLASS_MOD4_MIN2;
  cal->gemm.tile_m = 128;
  cal->gemm.tile_n = 128;
  cal->gemm.tile_k = 64;
  cal->gemm.elem_bytes = 2;
  cal->gemm.resident_ctas = 0;
}

void pascal_calibration_free(pascal_calibration *cal)
{
  if (!cal)
    return;
  free(cal->scan_runs);
  free(cal->gemm_runs);
  cal->scan_runs = NULL;
  cal->gemm_runs = NULL;
  cal->n_scan_runs = 0;
  cal->n_gemm_runs = 0;
  cal->capacity = 0;
}

pascal_status pascal_calibration_copy(pascal_calibration *dst,
                                      const pascal_calibration *src,
                                      pascal_error *err)
{
  pascal_calibration tmp = *src;
  tmp.scan_runs = NULL;
  tmp.gemm_runs = NULL;
  tmp.capacity = 0;
  if (src->n_scan_runs) {
    tmp.scan_runs = malloc(src->n_scan_runs * sizeof *tmp.scan_runs);
    if (!tmp.scan_runs)
      return pascal_error_set(err, PASCAL_ENOMEM, "measurements", "out of memory copying a calibration");
    memcpy(tmp.scan_runs, src->scan_runs, src->n_scan_runs * sizeof *tmp.scan_runs);
    tmp.capacity = src->n_scan_runs;
  }
  if (src->n_gemm_runs) {
    tmp.gemm_runs = malloc(src->n_gemm_runs * sizeof *tmp.gemm_runs);
    if (!tmp.gemm_runs) {
      free(tmp.scan_runs);
      return pascal_error_set(err, PASCAL_ENOMEM, "measurements", "out of memory copying a calibration");
    }
    memcpy(tmp.gemm_runs, src->gemm_runs, src->n_gemm_runs * sizeof *tmp.gemm_runs);
    tmp.capacity = src->n_gemm_runs;
  }
  *dst = tmp;
  return PASCAL_OK;
}

static pascal_status check_positive(uint32_t v, const char *field, pascal_error *err)
{
  if (v == 0)
    return pascal_error_set(err, PASCAL_EINVAL, field, "%s must be at least 1", field);
  return PASCAL_OK;
}

pascal_status pascal_calibration_check(const pascal_calibration *cal, pascal_error *err)
{
  pascal_status st;
  if (cal->workload != PASCAL_WORKLOAD_SCAN && cal->workload != PASCAL_WORKLOAD_GEMM)
    return pascal_error_set(err, PASCAL_EINVAL, "workload", "workload must be scan or gemm");
  if (cal->class_rule != PASCAL_CLASS_MOD4_MIN2)
    return pascal_error_set(err, PASCAL_EINVAL, "class_rule", "unknown class rule");
  if (cal->device.name[0] == '\0' || !memchr(cal->device.name, '\0', sizeof cal->device.name))
    return pascal_error_set(err, PASCAL_EINVAL, "device.name", "device name must be a non-empty string");
  if (!memchr(cal->device.arch, '\0', sizeof cal->device.arch))
    return pascal_error_set(err, PASCAL_EINVAL, "device.arch", "device arch is not terminated");
  if ((st = check_positive(cal->device.sm_count, "device.sm_count", err)) ||
      (st = check_positive(cal->device.capacity_blocks, "device.capacity_blocks", err)) ||
      (st = check_positive(cal->device.block_bytes, "device.block_bytes", err)))
    return st;
  if (cal->workload == PASCAL_WORKLOAD_GEMM &&
      ((st = check_positive(cal->gemm.tile_m, "gemm.tile_m", err)) ||
       (st = check_positive(cal->gemm.tile_n, "gemm.tile_n", err)) ||
       (st = check_positive(cal->gemm.tile_k, "gemm.tile_k", err)) ||
       (st = check_positive(cal->gemm.elem_bytes, "gemm.elem_bytes", err)) ||
       (st = check_positive(cal->gemm.resident_ctas, "gemm.resident_ctas", err))))
    return st;
  return PASCAL_OK;
}

/* Checks shared by both run kinds: fill_bytes and the optional kernel_ns. */
static pascal_status check_common(size_t index, double fill_bytes, bool has_kernel_ns,
                                  double kernel_ns, pascal_error *err)
{
  char field[PASCAL_ERROR_FIELD_MAX];
  snprintf(field, sizeof field, "measurements[%zu].fill_bytes", index);
  if (!isfinite(fill_bytes) || fill_bytes <= 0)
    return pascal_error_set(err, PASCAL_EINVAL, field,
                            "fill_bytes must be a positive finite number (got %g)", fill_bytes);
  if (has_kernel_ns && (!isfinite(kernel_ns) || kernel_ns < 0)) {
    snprintf(field, sizeof field, "measurements[%zu].kernel_ns", index);
    return pascal_error_set(err, PASCAL_EINVAL, field,
                            "kernel_ns must be a finite number >= 0 (got %g)", kernel_ns);
  }
  return PASCAL_OK;
}

static pascal_status run_field_error(pascal_error *err, size_t index, const char *name,
                                     const char *message)
{
  char field[PASCAL_ERROR_FIELD_MAX];
  snprintf(field, sizeof field, "measurements[%zu].%s", index, name);
  return pascal_error_set(err, PASCAL_EINVAL, field, "%s", message);
}

static pascal_status check_scan_run(const pascal_scan_run *r, size_t index, pascal_error *err)
{
  if (r->key.o == 0)
    return run_field_error(err, index, "o", "o (resident CTAs per SM) must be at least 1");
  if (r->key.path != PASCAL_PATH_SYNC && r->key.path != PASCAL_PATH_TMA)
    return run_field_error(err, index, "path", "path must be sync or tma");
  if (r->key.path == PASCAL_PATH_SYNC && r->key.d != 0)
    return run_field_error(err, index, "d", "a sync run has prefetch depth d = 0");
  if (r->N == 0)
    return run_field_error(err, index, "N", "N (scan length in blocks) must be at least 1");
  if (r->W == 0)
    return run_field_error(err, index, "W", "W (scans per resident worker) must be at least 1");
  return check_common(index, r->fill_bytes, r->has_kernel_ns, r->kernel_ns, err);
}

static pascal_status check_dim(uint32_t v, uint32_t tile, size_t index, const char *name,
                               const char *tile_name, pascal_error *err)
{
  char field[PASCAL_ERROR_FIELD_MAX];
  snprintf(field, sizeof field, "measurements[%zu].%s", index, name);
  if (v == 0)
    return pascal_error_set(err, PASCAL_EINVAL, field, "%s must be at least 1", name);
  if (v % tile != 0)
    return pascal_error_set(err, PASCAL_EINVAL, field, "%s (%u) is not a multiple of %s (%u)",
                            name, v, tile_name, tile);
  return PASCAL_OK;
}

static pascal_status check_gemm_run(const pascal_calibration *cal, const pascal_gemm_run *r,
                                    size_t index, pascal_error *err)
{
  pascal_status st;
  const pascal_gemm_params *g = &cal->gemm;
  if (g->tile_m == 0 || g->tile_n == 0 || g->tile_k == 0)
    return pascal_error_set(err, PASCAL_EINVAL, "gemm", "set the GEMM tiling before appending runs");
  if ((st = check_dim(r->shape.Mg, g->tile_m, index, "Mg", "tile_m", err)) ||
      (st = check_dim(r->shape.Ng, g->tile_n, index, "Ng", "tile_n", err)) ||
      (st = check_dim(r->shape.Kg, g->tile_k, index, "Kg", "tile_k", err)))
    return st;
  return check_common(index, r->fill_bytes, r->has_kernel_ns, r->kernel_ns, err);
}

static uint32_t repeat_of(bool has_repeat, uint32_t repeat)
{
  return has_repeat ? repeat : 0;
}

static bool same_scan_run(const pascal_scan_run *a, const pascal_scan_run *b)
{
  return a->key.o == b->key.o && a->key.path == b->key.path && a->key.d == b->key.d &&
         a->key.m == b->key.m && a->N == b->N && a->W == b->W &&
         repeat_of(a->has_repeat, a->repeat) == repeat_of(b->has_repeat, b->repeat);
}

static bool same_gemm_run(const pascal_gemm_run *a, const pascal_gemm_run *b)
{
  return a->shape.Mg == b->shape.Mg && a->shape.Ng == b->shape.Ng &&
         a->shape.Kg == b->shape.Kg &&
         repeat_of(a->has_repeat, a->repeat) == repeat_of(b->has_repeat, b->repeat);
}

/* Make room for one more run in `*array` (element size `size`, `n` used). */
static pascal_status grow(void **array, size_t *capacity, size_t n, size_t size,
                          pascal_error *err)
{
  if (n < *capacity)
    return PASCAL_OK;
  size_t cap = *capacity ? *capacity * 2 : 64;
  void *p = realloc(*array, cap * size);
  if (!p)
    return pascal_error_set(err, PASCAL_ENOMEM, "measurements", "out of memory appending a run");
  *array = p;
  *capacity = cap;
  return PASCAL_OK;
}

static pascal_status duplicate_error(pascal_error *err, size_t index, size_t earlier)
{
  char field[PASCAL_ERROR_FIELD_MAX];
  snprintf(field, sizeof field, "measurements[%zu]", index);
  return pascal_error_set(err, PASCAL_EINVAL, field,
                          "duplicate of measurements[%zu] (same configuration and repeat)",
                          earlier);
}

pascal_status pascal_calibration_append_scan(pascal_calibration *cal,
                                             const pascal_scan_run *run, pascal_error *err)
{
  size_t index = cal->n_scan_runs;
  pascal_status st;
  if (cal->workload != PASCAL_WORKLOAD_SCAN)
    return pascal_error_set(err, PASCAL_EINVAL, "workload", "a scan run needs a scan calibration");
  if ((st = check_scan_run(run, index, err)))
    return st;
  for (size_t i = 0; i < index; i++)
    if (same_scan_run(&cal->scan_runs[i], run))
      return duplicate_error(err, index, i);
  if ((st = grow((void **)&cal->scan_runs, &cal->capacity, index, sizeof *run, err)))
    return st;
  cal->scan_runs[index] = *run;
  cal->n_scan_runs = index + 1;
  return PASCAL_OK;
}

pascal_status pascal_calibration_append_gemm(pascal_calibration *cal,
                                             const pascal_gemm_run *run, pascal_error *err)
{
  size_t index = cal->n_gemm_runs;
  pascal_status st;
  if (cal->workload != PASCAL_WORKLOAD_GEMM)
    return pascal_error_set(err, PASCAL_EINVAL, "workload", "a GEMM run needs a gemm calibration");
  if ((st = check_gemm_run(cal, run, index, err)))
    return st;
  for (size_t i = 0; i < index; i++)
    if (same_gemm_run(&cal->gemm_runs[i], run))
      return duplicate_error(err, index, i);
  if ((st = grow((void **)&cal->gemm_runs, &cal->capacity, index, sizeof *run, err)))
    return st;
  cal->gemm_runs[index] = *run;
  cal->n_gemm_runs = index + 1;
  return PASCAL_OK;
}

size_t pascal_calibration_run_count(const pascal_calibration *cal)
{
  return cal->workload == PASCAL_WORKLOAD_GEMM ? cal->n_gemm_runs : cal->n_scan_runs;
}

unsigned pascal_class_rule_apply(pascal_class_rule rule, uint32_t m)
{
  switch (rule) {
  case PASCAL_CLASS_MOD4_MIN2: {
    unsigned r = m % 4u;
    return r < 2u ? r : 2u;
  }
  }
  return 0;
}

unsigned pascal_calibration_class(const pascal_calibration *cal, uint32_t m)
{
  return pascal_class_rule_apply(cal->class_rule, m);
}

const char *pascal_workload_name(pascal_workload workload)
{
  return workload == PASCAL_WORKLOAD_GEMM ? "gemm" : "scan";
}

const char *pascal_path_name(pascal_path path)
{
  return path == PASCAL_PATH_TMA ? "tma" : "sync";
}

const char *pascal_class_rule_name(pascal_class_rule rule)
{
  (void)rule;
  return "mod4-min2";
}

pascal_status pascal_workload_parse(const char *name, const char *field,
                                    pascal_workload *out, pascal_error *err)
{
  if (name && strcmp(name, "scan") == 0)
    *out = PASCAL_WORKLOAD_SCAN;
  else if (name && strcmp(name, "gemm") == 0)
    *out = PASCAL_WORKLOAD_GEMM;
  else
    return pascal_error_set(err, PASCAL_EINVAL, field, "workload must be \"scan\" or \"gemm\"");
  return PASCAL_OK;
}

pascal_status pascal_path_parse(const char *name, const char *field, pascal_path *out,
                                pascal_error *err)
{
  if (name && strcmp(name, "sync") == 0)
    *out = PASCAL_PATH_SYNC;
  else if (name && strcmp(name, "tma") == 0)
    *out = PASCAL_PATH_TMA;
  else
    return pascal_error_set(err, PASCAL_EINVAL, field, "path must be \"sync\" or \"tma\"");
  return PASCAL_OK;
}

pascal_status pascal_class_rule_parse(const char *name, const char *field,
                                      pascal_class_rule *out, pascal_error *err)
{
  if (name && strcmp(name, "mod4-min2") == 0) {
    *out = PASCAL_CLASS_MOD4_MIN2;
    return PASCAL_OK;
  }
  return pascal_error_set(err, PASCAL_EINVAL, field, "unknown class rule (known: \"mod4-min2\")");
}

pascal_status pascal_calibration_check_runs(const pascal_calibration *cal, pascal_error *err)
{
  pascal_status st;
  if (cal->workload == PASCAL_WORKLOAD_GEMM) {
    for (size_t i = 0; i < cal->n_gemm_runs; i++)
      if ((st = check_gemm_run(cal, &cal->gemm_runs[i], i, err)))
        return st;
  } else {
    for (size_t i = 0; i < cal->n_scan_runs; i++)
      if ((st = check_scan_run(&cal->scan_runs[i], i, err)))
        return st;
  }
  return PASCAL_OK;
}
