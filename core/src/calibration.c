/*
 * calibration.c - the calibration data model of pascal/calibration.h:
 * validated appends of measured runs (paper section 4.1-4.2) and of the
 * held-out panel's runs (section 5.4), device and
 * tiling checks, the execution-class rule chi(m) = min(m mod 4, 2)
 * (section 4.3), the measured K of a scan run (section 4.2; query-adjusted
 * for attention, pascal/attention.h) and the stable names used by codecs;
 * a GEMM calibration's timed runs of other configurations (issue 31,
 * pascal/gemm_config.h).
 */
#include "pascal/calibration.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pascal/attention.h"
#include "pascal/gemm_config.h"
#include "pascal/grow.h"
#include "pascal/plan.h"
#include "pascal/query.h"

/* The bundle key and error prefix of the configuration runs. */
#define CONFIG_RUNS "configurations"

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
  cal->gemm.stages = 0;
  cal->gemm.group_m = 0;
  cal->attention = PASCAL_ATTENTION_DEFAULT;
}

void pascal_calibration_free(pascal_calibration *cal)
{
  if (!cal)
    return;
  free(cal->scan_runs);
  free(cal->gemm_runs);
  free(cal->heldout_scan_runs);
  free(cal->heldout_gemm_runs);
  free(cal->offgrid_scan_runs);
  free(cal->offgrid_gemm_runs);
  free(cal->config_runs);
  pascal_workload workload = cal->workload;
  pascal_calibration tmp = *cal;
  pascal_calibration_init(cal, workload);
  cal->device = tmp.device;
  cal->class_rule = tmp.class_rule;
  cal->gemm = tmp.gemm;
  cal->attention = tmp.attention;
}

/* malloc'd copy of n elements of `size` bytes at src (*dst = NULL for n = 0). */
static int copy_array(void **dst, const void *src, size_t n, size_t size)
{
  *dst = NULL;
  if (n == 0)
    return 0;
  *dst = malloc(n * size);
  if (!*dst)
    return -1;
  memcpy(*dst, src, n * size);
  return 0;
}

pascal_status pascal_calibration_copy(pascal_calibration *dst, const pascal_calibration *src,
                                      pascal_error *err)
{
  pascal_calibration tmp = *src;
  int bad =
      copy_array((void **)&tmp.scan_runs, src->scan_runs, src->n_scan_runs, sizeof *tmp.scan_runs);
  bad |=
      copy_array((void **)&tmp.gemm_runs, src->gemm_runs, src->n_gemm_runs, sizeof *tmp.gemm_runs);
  bad |= copy_array((void **)&tmp.heldout_scan_runs, src->heldout_scan_runs,
                    src->n_heldout_scan_runs, sizeof *tmp.heldout_scan_runs);
  bad |= copy_array((void **)&tmp.heldout_gemm_runs, src->heldout_gemm_runs,
                    src->n_heldout_gemm_runs, sizeof *tmp.heldout_gemm_runs);
  bad |= copy_array((void **)&tmp.offgrid_scan_runs, src->offgrid_scan_runs,
                    src->n_offgrid_scan_runs, sizeof *tmp.offgrid_scan_runs);
  bad |= copy_array((void **)&tmp.offgrid_gemm_runs, src->offgrid_gemm_runs,
                    src->n_offgrid_gemm_runs, sizeof *tmp.offgrid_gemm_runs);
  bad |= copy_array((void **)&tmp.config_runs, src->config_runs, src->n_config_runs,
                    sizeof *tmp.config_runs);
  if (bad) {
    pascal_calibration_free(&tmp);
    return pascal_error_set(err, PASCAL_ENOMEM, "measurements",
                            "out of memory copying a calibration");
  }
  tmp.capacity = src->n_scan_runs + src->n_gemm_runs;
  tmp.heldout_capacity = src->n_heldout_scan_runs + src->n_heldout_gemm_runs;
  tmp.offgrid_capacity = src->n_offgrid_scan_runs + src->n_offgrid_gemm_runs;
  tmp.config_capacity = src->n_config_runs;
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
  if (cal->workload != PASCAL_WORKLOAD_SCAN && cal->workload != PASCAL_WORKLOAD_GEMM &&
      cal->workload != PASCAL_WORKLOAD_ATTENTION)
    return pascal_error_set(err, PASCAL_EINVAL, "workload",
                            "workload must be scan, gemm or attention");
  if (cal->class_rule != PASCAL_CLASS_MOD4_MIN2)
    return pascal_error_set(err, PASCAL_EINVAL, "class_rule", "unknown class rule");
  if (cal->device.name[0] == '\0' || !memchr(cal->device.name, '\0', sizeof cal->device.name))
    return pascal_error_set(err, PASCAL_EINVAL, "device.name",
                            "device name must be a non-empty string");
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
       (st = check_positive(cal->gemm.resident_ctas, "gemm.resident_ctas", err)) ||
       (st = pascal_gemm_impl_check(&cal->gemm, err))))
    return st;
  if (cal->workload == PASCAL_WORKLOAD_GEMM && cal->gemm.stages > PASCAL_GEMM_STAGES_MAX)
    return pascal_error_set(err, PASCAL_ERANGE, "gemm.stages", "gemm.stages must be at most %u",
                            PASCAL_GEMM_STAGES_MAX);
  /* cuBLASLt orders its CTAs by cta_swizzling, not by Triton's groups. */
  if (cal->workload == PASCAL_WORKLOAD_GEMM && cal->gemm.impl != PASCAL_GEMM_IMPL_OWN &&
      cal->gemm.group_m > 1)
    return pascal_error_set(err, PASCAL_EINVAL, "gemm.group_m",
                            "a cuBLASLt calibration has no group_m (its raster is cta_swizzling), "
                            "got %u",
                            cal->gemm.group_m);
  /* The model's GEMM geometry is one CTA per output tile over the whole
   * reduction: split-K partial sums are traffic it does not know. */
  if (cal->workload == PASCAL_WORKLOAD_GEMM && cal->gemm.split_k > 1)
    return pascal_error_set(err, PASCAL_EINVAL, "gemm.split_k",
                            "a calibration measures split_k 1 (the model has no split-K "
                            "geometry), got %u",
                            cal->gemm.split_k);
  if (cal->workload == PASCAL_WORKLOAD_ATTENTION)
    return pascal_attention_params_check(&cal->attention, cal->device.block_bytes, err);
  return PASCAL_OK;
}

/* The error of member `name` of run `index` of `list`; the field is named
 * only here, on failure (checking a calibration's runs formats nothing). */
static pascal_status run_field_errorf(pascal_error *err, const char *list, size_t index,
                                      const char *name, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static pascal_status run_field_errorf(pascal_error *err, const char *list, size_t index,
                                      const char *name, const char *fmt, ...)
{
  char field[PASCAL_ERROR_FIELD_MAX], message[PASCAL_ERROR_MESSAGE_MAX];
  snprintf(field, sizeof field, "%s[%zu].%s", list, index, name);
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(message, sizeof message, fmt, ap);
  va_end(ap);
  return pascal_error_set(err, PASCAL_EINVAL, field, "%s", message);
}

static pascal_status run_field_error(pascal_error *err, const char *list, size_t index,
                                     const char *name, const char *message)
{
  return run_field_errorf(err, list, index, name, "%s", message);
}

/* Checks shared by both run kinds: fill_bytes and the optional kernel_ns. */
static pascal_status check_common(const char *list, size_t index, double fill_bytes,
                                  bool has_kernel_ns, double kernel_ns, pascal_error *err)
{
  if (!isfinite(fill_bytes) || fill_bytes <= 0)
    return run_field_errorf(err, list, index, "fill_bytes",
                            "fill_bytes must be a positive finite number (got %g)", fill_bytes);
  if (has_kernel_ns && (!isfinite(kernel_ns) || kernel_ns < 0))
    return run_field_errorf(err, list, index, "kernel_ns",
                            "kernel_ns must be a finite number >= 0 (got %g)", kernel_ns);
  return PASCAL_OK;
}

/* An attention run is a tma scan of its tiling's m whose fills cover its
 * query tiles (its K/V part, pascal_calibration_scan_k, is positive). */
static pascal_status check_attention_run(const pascal_calibration *cal, const pascal_scan_run *r,
                                         const char *list, size_t index, pascal_error *err)
{
  char msg[160];
  if (r->key.path != PASCAL_PATH_TMA)
    return run_field_error(err, list, index, "path",
                           "an attention run streams K/V on the tma path (d = stages >= 1)");
  uint32_t m = pascal_attention_m(&cal->attention);
  if (r->key.m != m) {
    snprintf(msg, sizeof msg, "an attention run's m is its tiling's tensor work per step, %u", m);
    return run_field_error(err, list, index, "m", msg);
  }
  double q = pascal_attention_run_q_bytes(&cal->attention, cal->device.sm_count, r);
  if (!(r->fill_bytes > q)) {
    snprintf(msg, sizeof msg, "fill_bytes (%g) must exceed the query tiles' bytes (%g)",
             r->fill_bytes, q);
    return run_field_error(err, list, index, "fill_bytes", msg);
  }
  return PASCAL_OK;
}

static pascal_status check_scan_run(const pascal_calibration *cal, const pascal_scan_run *r,
                                    const char *list, size_t index, pascal_error *err)
{
  if (r->key.o == 0)
    return run_field_error(err, list, index, "o", "o (resident CTAs per SM) must be at least 1");
  if (r->key.path != PASCAL_PATH_SYNC && r->key.path != PASCAL_PATH_TMA)
    return run_field_error(err, list, index, "path", "path must be sync or tma");
  if (r->key.path == PASCAL_PATH_SYNC && r->key.d != 0)
    return run_field_error(err, list, index, "d", "a sync run has prefetch depth d = 0");
  if (r->N == 0)
    return run_field_error(err, list, index, "N", "N (scan length in blocks) must be at least 1");
  if (r->W == 0)
    return run_field_error(err, list, index, "W",
                           "W (scans per resident worker) must be at least 1");
  pascal_status st = check_common(list, index, r->fill_bytes, r->has_kernel_ns, r->kernel_ns, err);
  if (st || cal->workload != PASCAL_WORKLOAD_ATTENTION)
    return st;
  return check_attention_run(cal, r, list, index, err);
}

static pascal_status check_dim(uint32_t v, uint32_t tile, const char *list, size_t index,
                               const char *name, const char *tile_name, pascal_error *err)
{
  if (v == 0)
    return run_field_errorf(err, list, index, name, "%s must be at least 1", name);
  if (v % tile != 0)
    return run_field_errorf(err, list, index, name, "%s (%u) is not a multiple of %s (%u)", name, v,
                            tile_name, tile);
  return PASCAL_OK;
}

static pascal_status check_gemm_run(const pascal_calibration *cal, const pascal_gemm_run *r,
                                    const char *list, size_t index, pascal_error *err)
{
  pascal_status st;
  const pascal_gemm_params *g = &cal->gemm;
  if (g->tile_m == 0 || g->tile_n == 0 || g->tile_k == 0)
    return pascal_error_set(err, PASCAL_EINVAL, "gemm",
                            "set the GEMM tiling before appending runs");
  if ((st = check_dim(r->shape.Mg, g->tile_m, list, index, "Mg", "tile_m", err)) ||
      (st = check_dim(r->shape.Ng, g->tile_n, list, index, "Ng", "tile_n", err)) ||
      (st = check_dim(r->shape.Kg, g->tile_k, list, index, "Kg", "tile_k", err)))
    return st;
  return check_common(list, index, r->fill_bytes, r->has_kernel_ns, r->kernel_ns, err);
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
  return a->shape.Mg == b->shape.Mg && a->shape.Ng == b->shape.Ng && a->shape.Kg == b->shape.Kg &&
         repeat_of(a->has_repeat, a->repeat) == repeat_of(b->has_repeat, b->repeat);
}

/* Make room for one more run in `*array` (element size `size`, `n` used). */
static pascal_status grow(void **array, size_t *capacity, size_t n, size_t size, pascal_error *err)
{
  if (pascal_grow(array, capacity, n + 1, size))
    return pascal_error_set(err, PASCAL_ENOMEM, "measurements", "out of memory appending a run");
  return PASCAL_OK;
}

static pascal_status duplicate_error(pascal_error *err, const char *list, size_t index,
                                     size_t earlier)
{
  char field[PASCAL_ERROR_FIELD_MAX];
  snprintf(field, sizeof field, "%s[%zu]", list, index);
  return pascal_error_set(err, PASCAL_EINVAL, field,
                          "duplicate of %s[%zu] (same configuration and repeat)", list, earlier);
}

/* Validate `run` and append it to one run list of `cal` (`list` names it in
 * errors). */
static pascal_status append_scan_to(pascal_calibration *cal, const char *list,
                                    pascal_scan_run **runs, size_t *n, size_t *capacity,
                                    const pascal_scan_run *run, pascal_error *err)
{
  size_t index = *n;
  pascal_status st;
  if (!pascal_workload_scans(cal->workload))
    return pascal_error_set(err, PASCAL_EINVAL, "workload",
                            "a scan run needs a scan or attention calibration");
  if ((st = check_scan_run(cal, run, list, index, err)))
    return st;
  for (size_t i = 0; i < index; i++)
    if (same_scan_run(&(*runs)[i], run))
      return duplicate_error(err, list, index, i);
  if ((st = grow((void **)runs, capacity, index, sizeof *run, err)))
    return st;
  (*runs)[index] = *run;
  *n = index + 1;
  return PASCAL_OK;
}

static pascal_status append_gemm_to(pascal_calibration *cal, const char *list,
                                    pascal_gemm_run **runs, size_t *n, size_t *capacity,
                                    const pascal_gemm_run *run, pascal_error *err)
{
  size_t index = *n;
  pascal_status st;
  if (cal->workload != PASCAL_WORKLOAD_GEMM)
    return pascal_error_set(err, PASCAL_EINVAL, "workload", "a GEMM run needs a gemm calibration");
  if ((st = check_gemm_run(cal, run, list, index, err)))
    return st;
  for (size_t i = 0; i < index; i++)
    if (same_gemm_run(&(*runs)[i], run))
      return duplicate_error(err, list, index, i);
  if ((st = grow((void **)runs, capacity, index, sizeof *run, err)))
    return st;
  (*runs)[index] = *run;
  *n = index + 1;
  return PASCAL_OK;
}

/* A configuration run's configuration: the ranges of a query's
 * (pascal/query.h), and one the device can run (pascal/gemm_config.h). */
static pascal_status check_config(const pascal_calibration *cal, const pascal_gemm_config *c,
                                  size_t index, pascal_error *err)
{
  const char *list = CONFIG_RUNS;
  char prefix[PASCAL_ERROR_FIELD_MAX];
  snprintf(prefix, sizeof prefix, "%s[%zu]", list, index);
  pascal_status st = pascal_plan_config_validate(c, prefix, err);
  if (st)
    return st;
  uint32_t per_sm;
  pascal_error why;
  if (pascal_gemm_ctas_per_sm(pascal_gemm_smem_per_sm(&cal->device), c, 1, &per_sm, &why)) {
    char name[16]; /* "stages", "tile_k" or "tile_m" */
    snprintf(name, sizeof name, "%.15s", why.field);
    return run_field_error(err, list, index, name, why.message);
  }
  return PASCAL_OK;
}

pascal_status pascal_calibration_append_config_run(pascal_calibration *cal,
                                                   const pascal_gemm_config_run *run,
                                                   pascal_error *err)
{
  size_t index = cal->n_config_runs;
  const pascal_gemm_config *c = &run->config;
  const pascal_gemm_run *r = &run->run;
  pascal_status st;
  if (cal->workload != PASCAL_WORKLOAD_GEMM)
    return pascal_error_set(err, PASCAL_EINVAL, CONFIG_RUNS,
                            "configuration runs belong to a gemm calibration");
  if ((st = check_config(cal, c, index, err)) ||
      (st = check_dim(r->shape.Mg, c->tile_m, CONFIG_RUNS, index, "Mg", "tile_m", err)) ||
      (st = check_dim(r->shape.Ng, c->tile_n, CONFIG_RUNS, index, "Ng", "tile_n", err)) ||
      (st = check_dim(r->shape.Kg, c->tile_k, CONFIG_RUNS, index, "Kg", "tile_k", err)) ||
      (st = check_common(CONFIG_RUNS, index, r->fill_bytes, r->has_kernel_ns, r->kernel_ns, err)))
    return st;
  if (!r->has_kernel_ns || !(r->kernel_ns > 0))
    return run_field_error(err, CONFIG_RUNS, index, "kernel_ns",
                           "a configuration run is timed: kernel_ns must be > 0");
  for (size_t i = 0; i < index; i++)
    if (!memcmp(&cal->config_runs[i].config, c, sizeof *c) &&
        same_gemm_run(&cal->config_runs[i].run, r))
      return duplicate_error(err, CONFIG_RUNS, index, i);
  if ((st = grow((void **)&cal->config_runs, &cal->config_capacity, index, sizeof *run, err)))
    return st;
  cal->config_runs[index] = *run;
  cal->n_config_runs = index + 1;
  return PASCAL_OK;
}

/* The arrays of run set `set`. */
typedef struct set_fields {
  pascal_scan_run **scan;
  size_t *n_scan;
  pascal_gemm_run **gemm;
  size_t *n_gemm;
  size_t *capacity;
} set_fields;

static set_fields fields_of(pascal_calibration *cal, pascal_run_set set)
{
  switch (set) {
  case PASCAL_RUNS_HELDOUT:
    return (set_fields){&cal->heldout_scan_runs, &cal->n_heldout_scan_runs, &cal->heldout_gemm_runs,
                        &cal->n_heldout_gemm_runs, &cal->heldout_capacity};
  case PASCAL_RUNS_OFFGRID:
    return (set_fields){&cal->offgrid_scan_runs, &cal->n_offgrid_scan_runs, &cal->offgrid_gemm_runs,
                        &cal->n_offgrid_gemm_runs, &cal->offgrid_capacity};
  case PASCAL_RUNS_FIT: break;
  }
  return (set_fields){&cal->scan_runs, &cal->n_scan_runs, &cal->gemm_runs, &cal->n_gemm_runs,
                      &cal->capacity};
}

const char *pascal_run_set_name(pascal_run_set set)
{
  switch (set) {
  case PASCAL_RUNS_FIT: return "measurements";
  case PASCAL_RUNS_HELDOUT: return "heldout";
  case PASCAL_RUNS_OFFGRID: return "offgrid";
  }
  return NULL;
}

pascal_status pascal_calibration_append_scan_to(pascal_calibration *cal, pascal_run_set set,
                                                const pascal_scan_run *run, pascal_error *err)
{
  set_fields f = fields_of(cal, set);
  return append_scan_to(cal, pascal_run_set_name(set), f.scan, f.n_scan, f.capacity, run, err);
}

pascal_status pascal_calibration_append_gemm_to(pascal_calibration *cal, pascal_run_set set,
                                                const pascal_gemm_run *run, pascal_error *err)
{
  set_fields f = fields_of(cal, set);
  return append_gemm_to(cal, pascal_run_set_name(set), f.gemm, f.n_gemm, f.capacity, run, err);
}

pascal_status pascal_calibration_append_scan(pascal_calibration *cal, const pascal_scan_run *run,
                                             pascal_error *err)
{
  return pascal_calibration_append_scan_to(cal, PASCAL_RUNS_FIT, run, err);
}

pascal_status pascal_calibration_append_gemm(pascal_calibration *cal, const pascal_gemm_run *run,
                                             pascal_error *err)
{
  return pascal_calibration_append_gemm_to(cal, PASCAL_RUNS_FIT, run, err);
}

pascal_status pascal_calibration_append_heldout_scan(pascal_calibration *cal,
                                                     const pascal_scan_run *run, pascal_error *err)
{
  return pascal_calibration_append_scan_to(cal, PASCAL_RUNS_HELDOUT, run, err);
}

pascal_status pascal_calibration_append_heldout_gemm(pascal_calibration *cal,
                                                     const pascal_gemm_run *run, pascal_error *err)
{
  return pascal_calibration_append_gemm_to(cal, PASCAL_RUNS_HELDOUT, run, err);
}

size_t pascal_calibration_runs_of(const pascal_calibration *cal, pascal_run_set set,
                                  const pascal_scan_run **scan, const pascal_gemm_run **gemm)
{
  set_fields f = fields_of((pascal_calibration *)cal, set);
  if (scan)
    *scan = *f.scan;
  if (gemm)
    *gemm = *f.gemm;
  return cal->workload == PASCAL_WORKLOAD_GEMM ? *f.n_gemm : *f.n_scan;
}

/* Where a panel's constants differ from the calibration's, or NULL. */
static const char *panel_mismatch(const pascal_calibration *cal, const pascal_calibration *panel)
{
  if (panel->workload != cal->workload)
    return "workload";
  if (panel->device.sm_count != cal->device.sm_count)
    return "device.sm_count";
  if (panel->device.capacity_blocks != cal->device.capacity_blocks)
    return "device.capacity_blocks";
  if (panel->device.block_bytes != cal->device.block_bytes)
    return "device.block_bytes";
  if (cal->workload == PASCAL_WORKLOAD_ATTENTION) {
    const pascal_attention_params *a = &cal->attention, *b = &panel->attention;
    if (a->block_q != b->block_q)
      return "attention.block_q";
    if (a->block_kv != b->block_kv)
      return "attention.block_kv";
    if (a->head_dim != b->head_dim)
      return "attention.head_dim";
    if (a->elem_bytes != b->elem_bytes)
      return "attention.elem_bytes";
    return NULL;
  }
  if (cal->workload != PASCAL_WORKLOAD_GEMM)
    return NULL;
  if (panel->gemm.tile_m != cal->gemm.tile_m)
    return "gemm.tile_m";
  if (panel->gemm.tile_n != cal->gemm.tile_n)
    return "gemm.tile_n";
  if (panel->gemm.tile_k != cal->gemm.tile_k)
    return "gemm.tile_k";
  if (panel->gemm.elem_bytes != cal->gemm.elem_bytes)
    return "gemm.elem_bytes";
  if (panel->gemm.resident_ctas != cal->gemm.resident_ctas)
    return "gemm.resident_ctas";
  if (panel->gemm.stages != cal->gemm.stages)
    return "gemm.stages";
  if (panel->gemm.group_m != cal->gemm.group_m)
    return "gemm.group_m";
  if (panel->gemm.impl != cal->gemm.impl || panel->gemm.algo != cal->gemm.algo ||
      panel->gemm.cta_swizzling != cal->gemm.cta_swizzling ||
      panel->gemm.split_k != cal->gemm.split_k ||
      panel->gemm.custom_option != cal->gemm.custom_option ||
      panel->gemm.inner_shape_id != cal->gemm.inner_shape_id ||
      panel->gemm.cluster_shape_id != cal->gemm.cluster_shape_id)
    return "gemm.impl";
  return NULL;
}

pascal_status pascal_calibration_set_panel(pascal_calibration *cal, pascal_run_set set,
                                           const pascal_calibration *const *parts, size_t n_parts,
                                           pascal_error *err)
{
  const char *what = set == PASCAL_RUNS_OFFGRID ? "off-grid" : "held-out";
  if (set != PASCAL_RUNS_HELDOUT && set != PASCAL_RUNS_OFFGRID)
    return pascal_error_set(err, PASCAL_EINVAL, "set", "only a panel can be set");
  if (n_parts == 0)
    return pascal_error_set(err, PASCAL_EINVAL, "measurements", "no %s panel given", what);
  for (size_t p = 0; p < n_parts; p++) {
    const char *field = panel_mismatch(cal, parts[p]);
    if (field)
      return pascal_error_set(err, PASCAL_EINVAL, field,
                              "the %s panel's %s differs from the calibration's (part %zu)", what,
                              field, p + 1);
    if (pascal_calibration_run_count(parts[p]) == 0)
      return pascal_error_set(err, PASCAL_EINVAL, "measurements",
                              "the %s panel has no run (part %zu)", what, p + 1);
  }
  pascal_calibration tmp = *cal; /* borrow the constants; own a fresh panel */
  set_fields f = fields_of(&tmp, set);
  *f.scan = NULL;
  *f.gemm = NULL;
  *f.n_scan = *f.n_gemm = *f.capacity = 0;
  pascal_status st = PASCAL_OK;
  for (size_t p = 0; !st && p < n_parts; p++) {
    for (size_t i = 0; !st && i < parts[p]->n_scan_runs; i++)
      st = pascal_calibration_append_scan_to(&tmp, set, &parts[p]->scan_runs[i], err);
    for (size_t i = 0; !st && i < parts[p]->n_gemm_runs; i++)
      st = pascal_calibration_append_gemm_to(&tmp, set, &parts[p]->gemm_runs[i], err);
  }
  if (st) {
    free(*f.scan);
    free(*f.gemm);
    return st;
  }
  set_fields old = fields_of(cal, set);
  free(*old.scan);
  free(*old.gemm);
  *old.scan = *f.scan;
  *old.gemm = *f.gemm;
  *old.n_scan = *f.n_scan;
  *old.n_gemm = *f.n_gemm;
  *old.capacity = *f.capacity;
  return PASCAL_OK;
}

pascal_status pascal_calibration_set_heldout(pascal_calibration *cal,
                                             const pascal_calibration *const *parts, size_t n_parts,
                                             pascal_error *err)
{
  return pascal_calibration_set_panel(cal, PASCAL_RUNS_HELDOUT, parts, n_parts, err);
}

size_t pascal_calibration_run_count(const pascal_calibration *cal)
{
  return cal->workload == PASCAL_WORKLOAD_GEMM ? cal->n_gemm_runs : cal->n_scan_runs;
}

size_t pascal_calibration_heldout_count(const pascal_calibration *cal)
{
  return pascal_calibration_runs_of(cal, PASCAL_RUNS_HELDOUT, NULL, NULL);
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

double pascal_calibration_scan_k(const pascal_calibration *cal, const pascal_scan_run *run)
{
  double v = run->fill_bytes;
  if (cal->workload == PASCAL_WORKLOAD_ATTENTION)
    v -= pascal_attention_run_q_bytes(&cal->attention, cal->device.sm_count, run);
  return v / ((double)cal->device.block_bytes * (double)run->W * (double)run->N);
}

const char *pascal_workload_name(pascal_workload workload)
{
  switch (workload) {
  case PASCAL_WORKLOAD_SCAN: return "scan";
  case PASCAL_WORKLOAD_GEMM: return "gemm";
  case PASCAL_WORKLOAD_ATTENTION: return "attention";
  }
  return "scan";
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

pascal_status pascal_workload_parse(const char *name, const char *field, pascal_workload *out,
                                    pascal_error *err)
{
  if (name && strcmp(name, "scan") == 0)
    *out = PASCAL_WORKLOAD_SCAN;
  else if (name && strcmp(name, "gemm") == 0)
    *out = PASCAL_WORKLOAD_GEMM;
  else if (name && strcmp(name, "attention") == 0)
    *out = PASCAL_WORKLOAD_ATTENTION;
  else
    return pascal_error_set(err, PASCAL_EINVAL, field,
                            "workload must be \"scan\", \"gemm\" or \"attention\"");
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

pascal_status pascal_class_rule_parse(const char *name, const char *field, pascal_class_rule *out,
                                      pascal_error *err)
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
  for (int set = 0; set < PASCAL_RUN_SETS; set++) {
    const pascal_scan_run *scan;
    const pascal_gemm_run *gemm;
    size_t n = pascal_calibration_runs_of(cal, (pascal_run_set)set, &scan, &gemm);
    const char *list = pascal_run_set_name((pascal_run_set)set);
    for (size_t i = 0; i < n; i++)
      if ((st = cal->workload == PASCAL_WORKLOAD_GEMM
                    ? check_gemm_run(cal, &gemm[i], list, i, err)
                    : check_scan_run(cal, &scan[i], list, i, err)))
        return st;
  }
  return PASCAL_OK;
}
