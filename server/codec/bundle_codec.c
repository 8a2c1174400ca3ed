/*
 * bundle_codec.c - calibration bundles `pascal-calibration/1`
 * (docs/bundle-format.md; issue 3 item 7): strict decoding into a
 * pascal_calibration, encoding of plain and frozen bundles (fitted curves of
 * paper Eq. trafficcurve, LOKO report of Eq. dynamic_selection) and the
 * the time fit of pascal/time_model.h under "model", and the
 * content hash: SHA-256 over the canonical serialisation of format, device,
 * workload, class_rule, gemm, measurements and the held-out panel (when it
 * has runs, so that bundles without one keep their hash). The device may
 * carry its measured peaks (device.peaks, for the latency pipeline of
 * pascal/latency.h), its capacity probe (device.capacity_probe) and its
 * static cluster experiment (device.static_experiment); each is hashed when
 * present, and a device without them hashes as before they existed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_util.h"
#include "pascal/time_model.h"
#include "pascal_codec.h"
#include "pascal_sha256.h"

#define HASH_PREFIX "sha256:"

static const char *const provenance_sources[] = {"cuda", "sim", "synthetic"};

void pascal_codec_bundle_init(pascal_codec_bundle *b)
{
  memset(b, 0, sizeof *b);
  pascal_calibration_init(&b->cal, PASCAL_WORKLOAD_SCAN);
}

void pascal_codec_bundle_free(pascal_codec_bundle *b)
{
  if (!b)
    return;
  pascal_calibration_free(&b->cal);
  json_decref(b->provenance);
  json_decref(b->model);
  json_decref(b->report);
  pascal_codec_bundle_init(b);
}

/* ---- decoding ------------------------------------------------------------ */

static pascal_status get_u32(const json_t *obj, const char *prefix, const char *key, int required,
                             uint32_t *out, int *present, pascal_error *err)
{
  uint64_t v = 0;
  pascal_status st = codec_get_uint(obj, prefix, key, required, 0, UINT32_MAX, &v, present, err);
  if (!st && (!present || *present))
    *out = (uint32_t)v;
  return st;
}

static pascal_status copy_name(const json_t *obj, const char *key, char *dst, size_t size,
                               pascal_error *err)
{
  const char *s;
  char field[PASCAL_ERROR_FIELD_MAX];
  codec_path(field, sizeof field, "device", key);
  pascal_status st = codec_get_string(obj, "device", key, 1, &s, err);
  if (st)
    return st;
  size_t len = strlen(s);
  if (len == 0 || len >= size)
    return pascal_error_set(err, PASCAL_EINVAL, field, "%s must have 1..%zu characters", field,
                            size - 1);
  memcpy(dst, s, len + 1);
  return PASCAL_OK;
}

/* Optional device.peaks: all five numbers, as pascal_peaks_check wants them. */
static pascal_status decode_peaks(const json_t *dev_obj, pascal_device *dev, pascal_error *err)
{
  json_t *obj;
  pascal_status st;
  if (!json_object_get(dev_obj, "peaks"))
    return PASCAL_OK;
  if ((st = codec_get_object(dev_obj, "device", "peaks", 1, &obj, err)) ||
      (st = codec_peaks_decode(obj, "device.peaks", &dev->peaks, err)))
    return st;
  dev->has_peaks = 1;
  return PASCAL_OK;
}

static pascal_status decode_device(const json_t *doc, pascal_device *dev, pascal_error *err)
{
  json_t *obj;
  pascal_status st;
  if ((st = codec_get_object(doc, "", "device", 1, &obj, err)) ||
      (st = copy_name(obj, "name", dev->name, sizeof dev->name, err)) ||
      (st = copy_name(obj, "arch", dev->arch, sizeof dev->arch, err)) ||
      (st = get_u32(obj, "device", "sm_count", 1, &dev->sm_count, NULL, err)) ||
      (st = get_u32(obj, "device", "capacity_blocks", 1, &dev->capacity_blocks, NULL, err)) ||
      (st = get_u32(obj, "device", "block_bytes", 1, &dev->block_bytes, NULL, err)) ||
      (st = decode_peaks(obj, dev, err)))
    return st;
  json_t *v = json_object_get(obj, "capacity_probe");
  if (v && (st = pascal_codec_capacity_probe_decode(v, "device.capacity_probe",
                                                    &dev->capacity_probe, err)))
    return st;
  dev->has_capacity_probe = v != NULL;
  v = json_object_get(obj, "static_experiment");
  if (v && (st = pascal_codec_static_table_decode(v, "device.static_experiment", &dev->static_table,
                                                  err)))
    return st;
  dev->has_static_table = v != NULL;
  uint64_t smem = 0;
  if ((st = codec_get_uint(obj, "device", "smem_per_sm", 0, 1, UINT64_MAX >> 1, &smem, NULL, err)))
    return st;
  dev->smem_per_sm = smem;
  return PASCAL_OK;
}

/* "impl" and its configuration (pascal/gemm_impl.h): absent is the own
 * kernel; "cublaslt" states algo, cta_swizzling and split_k, and may state
 * custom_option, inner_shape_id and cluster_shape_id (absent: 0, so bundles
 * from before them keep their hash); the own kernel states none of them
 * (pascal_calibration_check says so, naming the field). */
static pascal_status decode_gemm_impl(const json_t *obj, pascal_gemm_params *g, pascal_error *err)
{
  const char *impl = NULL;
  pascal_status st = codec_get_string(obj, "gemm", "impl", 0, &impl, err);
  if (st || (impl && (st = pascal_gemm_impl_parse(impl, "gemm.impl", &g->impl, err))))
    return st;
  const int cublaslt = g->impl == PASCAL_GEMM_IMPL_CUBLASLT;
  if ((st = get_u32(obj, "gemm", "algo", cublaslt, &g->algo, NULL, err)) ||
      (st = get_u32(obj, "gemm", "cta_swizzling", cublaslt, &g->cta_swizzling, NULL, err)) ||
      (st = get_u32(obj, "gemm", "split_k", cublaslt, &g->split_k, NULL, err)) ||
      (st = get_u32(obj, "gemm", "custom_option", 0, &g->custom_option, NULL, err)) ||
      (st = get_u32(obj, "gemm", "inner_shape_id", 0, &g->inner_shape_id, NULL, err)) ||
      (st = get_u32(obj, "gemm", "cluster_shape_id", 0, &g->cluster_shape_id, NULL, err)))
    return st;
  return PASCAL_OK;
}

static pascal_status decode_gemm(const json_t *doc, pascal_gemm_params *g, pascal_error *err)
{
  json_t *obj;
  pascal_status st;
  if ((st = codec_get_object(doc, "", "gemm", 1, &obj, err)) ||
      (st = get_u32(obj, "gemm", "tile_m", 1, &g->tile_m, NULL, err)) ||
      (st = get_u32(obj, "gemm", "tile_n", 1, &g->tile_n, NULL, err)) ||
      (st = get_u32(obj, "gemm", "tile_k", 1, &g->tile_k, NULL, err)) ||
      (st = get_u32(obj, "gemm", "elem_bytes", 1, &g->elem_bytes, NULL, err)) ||
      (st = get_u32(obj, "gemm", "resident_ctas", 1, &g->resident_ctas, NULL, err)) ||
      (st = get_u32(obj, "gemm", "stages", 0, &g->stages, NULL, err)) ||
      (st = get_u32(obj, "gemm", "group_m", 0, &g->group_m, NULL, err)) ||
      (st = decode_gemm_impl(obj, g, err)))
    return st;
  return PASCAL_OK;
}

/* "attention": the kernel's tiling (an attention bundle's, required). */
static pascal_status decode_attention(const json_t *doc, pascal_attention_params *a,
                                      pascal_error *err)
{
  json_t *obj;
  pascal_status st;
  if ((st = codec_get_object(doc, "", "attention", 1, &obj, err)) ||
      (st = get_u32(obj, "attention", "block_q", 1, &a->block_q, NULL, err)) ||
      (st = get_u32(obj, "attention", "block_kv", 1, &a->block_kv, NULL, err)) ||
      (st = get_u32(obj, "attention", "head_dim", 1, &a->head_dim, NULL, err)) ||
      (st = get_u32(obj, "attention", "elem_bytes", 1, &a->elem_bytes, NULL, err)))
    return st;
  return PASCAL_OK;
}

static pascal_status decode_provenance(const json_t *doc, json_t **out, pascal_error *err)
{
  json_t *obj;
  const char *source;
  pascal_status st;
  if ((st = codec_get_object(doc, "", "provenance", 1, &obj, err)) ||
      (st = codec_get_string(obj, "provenance", "source", 1, &source, err)))
    return st;
  for (size_t i = 0; i < sizeof provenance_sources / sizeof *provenance_sources; i++)
    if (strcmp(source, provenance_sources[i]) == 0) {
      *out = json_incref(obj);
      return PASCAL_OK;
    }
  return pascal_error_set(err, PASCAL_EINVAL, "provenance.source",
                          "provenance.source must be \"cuda\", \"sim\" or \"synthetic\", "
                          "got \"%.40s\"",
                          source);
}

/* The optional "repeat" and "kernel_ns" of a run. */
static pascal_status decode_optionals(const json_t *obj, const char *field, bool *has_repeat,
                                      uint32_t *repeat, bool *has_kernel_ns, double *kernel_ns,
                                      pascal_error *err)
{
  int present;
  pascal_status st = get_u32(obj, field, "repeat", 0, repeat, &present, err);
  if (st)
    return st;
  *has_repeat = present;
  if ((st = codec_get_number(obj, field, "kernel_ns", 0, 0, kernel_ns, &present, err)))
    return st;
  *has_kernel_ns = present;
  return PASCAL_OK;
}

static pascal_status decode_scan_run(const json_t *obj, const char *field, pascal_run_set set,
                                     pascal_calibration *cal, pascal_error *err)
{
  pascal_scan_run r;
  const char *path;
  char pf[PASCAL_ERROR_FIELD_MAX];
  pascal_status st;
  memset(&r, 0, sizeof r);
  codec_path(pf, sizeof pf, field, "path");
  if ((st = get_u32(obj, field, "o", 1, &r.key.o, NULL, err)) ||
      (st = codec_get_string(obj, field, "path", 1, &path, err)) ||
      (st = pascal_path_parse(path, pf, &r.key.path, err)) ||
      (st = get_u32(obj, field, "d", 1, &r.key.d, NULL, err)) ||
      (st = get_u32(obj, field, "m", 1, &r.key.m, NULL, err)) ||
      (st = get_u32(obj, field, "N", 1, &r.N, NULL, err)) ||
      (st = get_u32(obj, field, "W", 1, &r.W, NULL, err)) ||
      (st = codec_get_number(obj, field, "fill_bytes", 1, 0, &r.fill_bytes, NULL, err)) ||
      (st = decode_optionals(obj, field, &r.has_repeat, &r.repeat, &r.has_kernel_ns, &r.kernel_ns,
                             err)))
    return st;
  return pascal_calibration_append_scan_to(cal, set, &r, err);
}

static pascal_status decode_gemm_run(const json_t *obj, const char *field, pascal_run_set set,
                                     pascal_calibration *cal, pascal_error *err)
{
  pascal_gemm_run r;
  pascal_status st;
  memset(&r, 0, sizeof r);
  if ((st = get_u32(obj, field, "Mg", 1, &r.shape.Mg, NULL, err)) ||
      (st = get_u32(obj, field, "Ng", 1, &r.shape.Ng, NULL, err)) ||
      (st = get_u32(obj, field, "Kg", 1, &r.shape.Kg, NULL, err)) ||
      (st = codec_get_number(obj, field, "fill_bytes", 1, 0, &r.fill_bytes, NULL, err)) ||
      (st = decode_optionals(obj, field, &r.has_repeat, &r.repeat, &r.has_kernel_ns, &r.kernel_ns,
                             err)))
    return st;
  return pascal_calibration_append_gemm_to(cal, set, &r, err);
}

/* "configurations" (GEMM only, optional): timed runs of other
 * configurations, {tile_m, tile_n, tile_k, elem_bytes, stages, group_m, Mg,
 * Ng, Kg, fill_bytes, kernel_ns[, repeat]} each. */
static pascal_status decode_config_runs(const json_t *doc, pascal_calibration *cal,
                                        pascal_error *err)
{
  json_t *arr;
  pascal_status st = codec_get_array(doc, "", "configurations", 0, &arr, err);
  if (st || !arr)
    return st;
  if (cal->workload != PASCAL_WORKLOAD_GEMM)
    return pascal_error_set(err, PASCAL_EINVAL, "configurations",
                            "configurations belong to a gemm bundle");
  for (size_t i = 0; i < json_array_size(arr); i++) {
    char field[PASCAL_ERROR_FIELD_MAX];
    codec_path_index(field, sizeof field, "configurations", i);
    json_t *obj = json_array_get(arr, i);
    if (!json_is_object(obj))
      return pascal_error_set(err, PASCAL_EFORMAT, field, "%s must be an object", field);
    pascal_gemm_config_run r;
    memset(&r, 0, sizeof r);
    if ((st = codec_config_decode(obj, field, 1, &r.config, NULL, err)) ||
        (st = get_u32(obj, field, "Mg", 1, &r.run.shape.Mg, NULL, err)) ||
        (st = get_u32(obj, field, "Ng", 1, &r.run.shape.Ng, NULL, err)) ||
        (st = get_u32(obj, field, "Kg", 1, &r.run.shape.Kg, NULL, err)) ||
        (st = codec_get_number(obj, field, "fill_bytes", 1, 0, &r.run.fill_bytes, NULL, err)) ||
        (st = decode_optionals(obj, field, &r.run.has_repeat, &r.run.repeat, &r.run.has_kernel_ns,
                               &r.run.kernel_ns, err)) ||
        (st = pascal_calibration_append_config_run(cal, &r, err)))
      return st;
  }
  return PASCAL_OK;
}

/* The run array of set `set`: "measurements" (required), "heldout" or
 * "offgrid" (optional). */
static pascal_status decode_runs(const json_t *doc, pascal_run_set set, pascal_calibration *cal,
                                 pascal_error *err)
{
  json_t *arr;
  const char *key = pascal_run_set_name(set);
  pascal_status st = codec_get_array(doc, "", key, set == PASCAL_RUNS_FIT, &arr, err);
  if (st || !arr)
    return st;
  for (size_t i = 0; i < json_array_size(arr); i++) {
    char field[PASCAL_ERROR_FIELD_MAX];
    codec_path_index(field, sizeof field, key, i);
    json_t *run = json_array_get(arr, i);
    if (!json_is_object(run))
      return pascal_error_set(err, PASCAL_EFORMAT, field, "%s must be an object", field);
    st = cal->workload == PASCAL_WORKLOAD_GEMM ? decode_gemm_run(run, field, set, cal, err)
                                               : decode_scan_run(run, field, set, cal, err);
    if (st)
      return st;
  }
  return PASCAL_OK;
}

/* "model", "report" and "content_hash" of a frozen bundle. The hash must be
 * the one of the decoded content; the model is kept as JSON for
 * pascal_codec_bundle_check_model(). */
static pascal_status decode_frozen(const json_t *doc, pascal_codec_bundle *b, pascal_error *err)
{
  const char *hash;
  json_t *model, *report = json_object_get(doc, "report");
  pascal_status st = codec_get_string(doc, "", "content_hash", 0, &hash, err);
  if (st)
    return st;
  if (!hash) {
    if (json_object_get(doc, "model") || report)
      return pascal_error_set(err, PASCAL_EFORMAT, "content_hash",
                              "a bundle with a model or report is frozen and needs content_hash");
    return PASCAL_OK;
  }
  if ((st = codec_get_object(doc, "", "model", 1, &model, err)))
    return st;
  if (report && !json_is_object(report) && !json_is_null(report))
    return pascal_error_set(err, PASCAL_EFORMAT, "report", "report must be an object or null");
  char want[PASCAL_CODEC_HASH_LEN + 1];
  if ((st = pascal_codec_bundle_hash(&b->cal, want, err)))
    return st;
  if (strcmp(hash, want) != 0)
    return pascal_error_set(err, PASCAL_EFORMAT, "content_hash",
                            "content_hash does not match the bundle's content (expected %s): "
                            "the bundle was changed after it was frozen",
                            want);
  memcpy(b->content_hash, want, sizeof want);
  b->frozen = 1;
  b->model = json_incref(model);
  b->report = report && json_is_object(report) ? json_incref(report) : NULL;
  return PASCAL_OK;
}

pascal_status pascal_codec_bundle_decode(const json_t *doc, pascal_codec_bundle *out,
                                         pascal_error *err)
{
  pascal_codec_bundle b;
  const char *format, *workload, *rule;
  pascal_workload wl;
  pascal_status st;
  pascal_codec_bundle_init(&b);
  if (!json_is_object(doc)) {
    st = pascal_error_set(err, PASCAL_EFORMAT, "bundle", "a bundle must be a JSON object");
    goto fail;
  }
  if ((st = codec_get_string(doc, "", "format", 1, &format, err)))
    goto fail;
  if (strcmp(format, PASCAL_BUNDLE_FORMAT) != 0) {
    st = pascal_error_set(err, PASCAL_EFORMAT, "format",
                          "unknown format \"%.60s\" (this build reads " PASCAL_BUNDLE_FORMAT ")",
                          format);
    goto fail;
  }
  if ((st = codec_get_string(doc, "", "workload", 1, &workload, err)) ||
      (st = pascal_workload_parse(workload, "workload", &wl, err)))
    goto fail;
  pascal_calibration_init(&b.cal, wl);
  if ((st = decode_device(doc, &b.cal.device, err)) ||
      (st = codec_get_string(doc, "", "class_rule", 1, &rule, err)) ||
      (st = pascal_class_rule_parse(rule, "class_rule", &b.cal.class_rule, err)))
    goto fail;
  if (wl == PASCAL_WORKLOAD_GEMM) {
    if ((st = decode_gemm(doc, &b.cal.gemm, err)))
      goto fail;
  } else if (json_object_get(doc, "gemm")) {
    st = pascal_error_set(err, PASCAL_EFORMAT, "gemm", "a %s bundle has no gemm object",
                          pascal_workload_name(wl));
    goto fail;
  }
  if (wl == PASCAL_WORKLOAD_ATTENTION) {
    if ((st = decode_attention(doc, &b.cal.attention, err)))
      goto fail;
  } else if (json_object_get(doc, "attention")) {
    st = pascal_error_set(err, PASCAL_EFORMAT, "attention", "a %s bundle has no attention object",
                          pascal_workload_name(wl));
    goto fail;
  }
  if ((st = pascal_calibration_check(&b.cal, err)) ||
      (st = decode_provenance(doc, &b.provenance, err)) ||
      (st = decode_runs(doc, PASCAL_RUNS_FIT, &b.cal, err)) ||
      (st = decode_runs(doc, PASCAL_RUNS_HELDOUT, &b.cal, err)) ||
      (st = decode_runs(doc, PASCAL_RUNS_OFFGRID, &b.cal, err)) ||
      (st = decode_config_runs(doc, &b.cal, err)) || (st = decode_frozen(doc, &b, err)))
    goto fail;
  *out = b;
  return PASCAL_OK;
fail:
  pascal_codec_bundle_free(&b);
  return st;
}

/* ---- encoding ------------------------------------------------------------ */

static pascal_status encode_optionals(json_t *obj, bool has_repeat, uint32_t repeat,
                                      bool has_kernel_ns, double kernel_ns, pascal_error *err)
{
  pascal_status st = PASCAL_OK;
  if (has_repeat)
    st = codec_set(obj, "repeat", codec_uint(repeat), err);
  if (!st && has_kernel_ns)
    st = codec_set(obj, "kernel_ns", codec_real(kernel_ns), err);
  return st;
}

static pascal_status encode_run(const pascal_calibration *cal, pascal_run_set set, size_t i,
                                json_t *obj, pascal_error *err)
{
  pascal_status st;
  const pascal_scan_run *scan;
  const pascal_gemm_run *gemm;
  pascal_calibration_runs_of(cal, set, &scan, &gemm);
  if (cal->workload == PASCAL_WORKLOAD_GEMM) {
    const pascal_gemm_run *r = &gemm[i];
    if ((st = codec_set(obj, "Mg", codec_uint(r->shape.Mg), err)) ||
        (st = codec_set(obj, "Ng", codec_uint(r->shape.Ng), err)) ||
        (st = codec_set(obj, "Kg", codec_uint(r->shape.Kg), err)) ||
        (st = codec_set(obj, "fill_bytes", codec_real(r->fill_bytes), err)))
      return st;
    return encode_optionals(obj, r->has_repeat, r->repeat, r->has_kernel_ns, r->kernel_ns, err);
  }
  const pascal_scan_run *r = &scan[i];
  if ((st = codec_set_scan_key(obj, &r->key, err)) ||
      (st = codec_set(obj, "N", codec_uint(r->N), err)) ||
      (st = codec_set(obj, "W", codec_uint(r->W), err)) ||
      (st = codec_set(obj, "fill_bytes", codec_real(r->fill_bytes), err)))
    return st;
  return encode_optionals(obj, r->has_repeat, r->repeat, r->has_kernel_ns, r->kernel_ns, err);
}

/* doc[name of set] = the runs of the set: the measurements always, a panel
 * only when it has runs (a bundle without it hashes as before it existed). */
static pascal_status encode_runs(json_t *doc, const pascal_calibration *cal, pascal_run_set set,
                                 pascal_error *err)
{
  size_t n = pascal_calibration_runs_of(cal, set, NULL, NULL);
  if (n == 0 && set != PASCAL_RUNS_FIT)
    return PASCAL_OK;
  const char *key = pascal_run_set_name(set);
  json_t *arr = json_array();
  pascal_status st = codec_set(doc, key, arr, err);
  for (size_t i = 0; !st && i < n; i++) {
    char field[PASCAL_ERROR_FIELD_MAX];
    codec_path_index(field, sizeof field, key, i);
    json_t *run = json_object();
    if (!(st = codec_append(arr, run, field, err)))
      st = encode_run(cal, set, i, run, err);
  }
  return st;
}

/* doc["configurations"], only when the calibration has configuration runs
 * (a bundle without them hashes as before they existed). */
static pascal_status encode_config_runs(json_t *doc, const pascal_calibration *cal,
                                        pascal_error *err)
{
  if (cal->n_config_runs == 0)
    return PASCAL_OK;
  json_t *arr = json_array();
  pascal_status st = codec_set(doc, "configurations", arr, err);
  for (size_t i = 0; !st && i < cal->n_config_runs; i++) {
    pascal_gemm_config_run r = cal->config_runs[i];
    json_t *obj = json_object();
    st = codec_append(arr, obj, "configurations", err);
    if (st || (st = codec_config_encode(obj, &r.config, err)) ||
        (st = codec_set(obj, "Mg", codec_uint(r.run.shape.Mg), err)) ||
        (st = codec_set(obj, "Ng", codec_uint(r.run.shape.Ng), err)) ||
        (st = codec_set(obj, "Kg", codec_uint(r.run.shape.Kg), err)) ||
        (st = codec_set(obj, "fill_bytes", codec_real(r.run.fill_bytes), err)))
      break;
    st = encode_optionals(obj, r.run.has_repeat, r.run.repeat, r.run.has_kernel_ns, r.run.kernel_ns,
                          err);
  }
  return st;
}

static pascal_status encode_device(json_t *doc, const pascal_device *dev, pascal_error *err)
{
  json_t *obj = json_object();
  pascal_status st;
  if ((st = codec_set(doc, "device", obj, err)) ||
      (st = codec_set(obj, "name", json_string(dev->name), err)) ||
      (st = codec_set(obj, "arch", json_string(dev->arch), err)) ||
      (st = codec_set(obj, "sm_count", codec_uint(dev->sm_count), err)) ||
      (st = codec_set(obj, "capacity_blocks", codec_uint(dev->capacity_blocks), err)) ||
      (st = codec_set(obj, "block_bytes", codec_uint(dev->block_bytes), err)))
    return st;
  /* Each optional part is written only when present: a device without it
   * has the object, and so the hash, it had before the part existed. */
  json_t *v = NULL;
  if (dev->has_peaks &&
      ((st = codec_peaks_encode(&dev->peaks, &v, err)) || (st = codec_set(obj, "peaks", v, err))))
    return st;
  if (dev->has_capacity_probe &&
      ((st = pascal_codec_capacity_probe_encode(&dev->capacity_probe, &v, err)) ||
       (st = codec_set(obj, "capacity_probe", v, err))))
    return st;
  if (dev->has_static_table &&
      ((st = pascal_codec_static_table_encode(&dev->static_table, &v, err)) ||
       (st = codec_set(obj, "static_experiment", v, err))))
    return st;
  if (dev->smem_per_sm && (st = codec_set(obj, "smem_per_sm", codec_uint(dev->smem_per_sm), err)))
    return st;
  return PASCAL_OK;
}

static pascal_status encode_gemm(json_t *doc, const pascal_gemm_params *g, pascal_error *err)
{
  json_t *obj = json_object();
  pascal_status st;
  if ((st = codec_set(doc, "gemm", obj, err)) ||
      (st = codec_set(obj, "tile_m", codec_uint(g->tile_m), err)) ||
      (st = codec_set(obj, "tile_n", codec_uint(g->tile_n), err)) ||
      (st = codec_set(obj, "tile_k", codec_uint(g->tile_k), err)) ||
      (st = codec_set(obj, "elem_bytes", codec_uint(g->elem_bytes), err)) ||
      (st = codec_set(obj, "resident_ctas", codec_uint(g->resident_ctas), err)) ||
      /* stages and group_m 0 (not stated) are written as absent:
       * a bundle from before they existed keeps its object, and so its hash */
      (g->stages != 0 && (st = codec_set(obj, "stages", codec_uint(g->stages), err))) ||
      (g->group_m != 0 && (st = codec_set(obj, "group_m", codec_uint(g->group_m), err))))
    return st;
  /* the own kernel writes no "impl": bundles from before it keep their hash */
  if (g->impl != PASCAL_GEMM_IMPL_OWN &&
      ((st = codec_set(obj, "impl", json_string(pascal_gemm_impl_name(g->impl)), err)) ||
       (st = codec_set(obj, "algo", codec_uint(g->algo), err)) ||
       (st = codec_set(obj, "cta_swizzling", codec_uint(g->cta_swizzling), err)) ||
       (st = codec_set(obj, "split_k", codec_uint(g->split_k), err)) ||
       (g->custom_option != 0 &&
        (st = codec_set(obj, "custom_option", codec_uint(g->custom_option), err))) ||
       (g->inner_shape_id != 0 &&
        (st = codec_set(obj, "inner_shape_id", codec_uint(g->inner_shape_id), err))) ||
       (g->cluster_shape_id != 0 &&
        (st = codec_set(obj, "cluster_shape_id", codec_uint(g->cluster_shape_id), err)))))
    return st;
  return PASCAL_OK;
}

static pascal_status encode_attention(json_t *doc, const pascal_attention_params *a,
                                      pascal_error *err)
{
  json_t *obj = json_object();
  pascal_status st;
  if ((st = codec_set(doc, "attention", obj, err)) ||
      (st = codec_set(obj, "block_q", codec_uint(a->block_q), err)) ||
      (st = codec_set(obj, "block_kv", codec_uint(a->block_kv), err)) ||
      (st = codec_set(obj, "head_dim", codec_uint(a->head_dim), err)) ||
      (st = codec_set(obj, "elem_bytes", codec_uint(a->elem_bytes), err)))
    return st;
  return PASCAL_OK;
}

/* The hashed content: format, device, workload, class_rule, gemm (GEMM only),
 * attention (attention only), measurements, heldout and offgrid (each panel
 * only when it has runs) and configurations (GEMM, only when it has some),
 * in this key order. `provenance` (borrowed, may be
 * NULL) is inserted before measurements when given. */
static pascal_status encode_content(const pascal_calibration *cal, const json_t *provenance,
                                    json_t **out, pascal_error *err)
{
  json_t *doc = json_object();
  pascal_status st;
  if ((st = codec_set(doc, "format", json_string(PASCAL_BUNDLE_FORMAT), err)) ||
      (st = encode_device(doc, &cal->device, err)) ||
      (st = codec_set(doc, "workload", json_string(pascal_workload_name(cal->workload)), err)) ||
      (st =
           codec_set(doc, "class_rule", json_string(pascal_class_rule_name(cal->class_rule)), err)))
    goto fail;
  if (cal->workload == PASCAL_WORKLOAD_GEMM && (st = encode_gemm(doc, &cal->gemm, err)))
    goto fail;
  if (cal->workload == PASCAL_WORKLOAD_ATTENTION &&
      (st = encode_attention(doc, &cal->attention, err)))
    goto fail;
  if (provenance && (st = codec_set(doc, "provenance", json_deep_copy(provenance), err)))
    goto fail;
  for (int set = 0; set < PASCAL_RUN_SETS; set++)
    if ((st = encode_runs(doc, cal, (pascal_run_set)set, err)))
      goto fail;
  if ((st = encode_config_runs(doc, cal, err)))
    goto fail;
  *out = doc;
  return PASCAL_OK;
fail:
  json_decref(doc);
  return st;
}

pascal_status pascal_codec_bundle_hash(const pascal_calibration *cal,
                                       char hash[PASCAL_CODEC_HASH_LEN + 1], pascal_error *err)
{
  json_t *content;
  pascal_status st = encode_content(cal, NULL, &content, err);
  if (st)
    return st;
  char *text = json_dumps(content, JSON_COMPACT | JSON_SORT_KEYS | JSON_REAL_PRECISION(17));
  json_decref(content);
  if (!text)
    return pascal_error_set(err, PASCAL_ENOMEM, "content_hash", "cannot serialise the bundle");
  memcpy(hash, HASH_PREFIX, sizeof HASH_PREFIX - 1);
  pascal_sha256_hex(text, strlen(text), hash + sizeof HASH_PREFIX - 1);
  free(text);
  return PASCAL_OK;
}

/* "time" of the model object: the time fit of pascal/time_model.h when the
 * model carries one. Scan: "cost_s" and "fixed_s", one per curve in the
 * curves' order; GEMM: "ctas_per_sm", "fixed_s", "iteration_s",
 * "sm_iteration_s" and, when not 0, "step_overhead_s". */
static pascal_status encode_model_time(const pascal_model *model, json_t *doc, pascal_error *err)
{
  if (!pascal_model_time_calibrated(model))
    return PASCAL_OK;
  json_t *t = json_object();
  pascal_status st = codec_set(doc, "time", t, err);
  if (st)
    return st;
  if (pascal_model_workload(model) == PASCAL_WORKLOAD_GEMM) {
    pascal_gemm_time_fit f;
    if ((st = pascal_model_time_gemm(model, &f, err)) ||
        (st = codec_set(t, "ctas_per_sm", codec_uint(f.ctas_per_sm), err)) ||
        (st = codec_set(t, "fixed_s", codec_real(f.fixed_s), err)) ||
        (st = codec_set(t, "iteration_s", codec_real(f.iteration_s), err)) ||
        (st = codec_set(t, "sm_iteration_s", codec_real(f.sm_iteration_s), err)) ||
        (f.step_overhead_s != 0 &&
         (st = codec_set(t, "step_overhead_s", codec_real(f.step_overhead_s), err))))
      return st;
    return PASCAL_OK;
  }
  size_t n = pascal_model_curve_count(model);
  double *v = malloc(2 * (n ? n : 1) * sizeof *v);
  if (!v)
    return pascal_error_set(err, PASCAL_ENOMEM, "model.time", "out of memory");
  for (size_t i = 0; !st && i < n; i++)
    st = pascal_model_time_scan_ref(model, i, &v[i], &v[n + i], err);
  if (!st && !(st = codec_set_real_array(t, "cost_s", v, n, err)))
    st = codec_set_real_array(t, "fixed_s", v + n, n, err);
  free(v);
  return st;
}

/* `key` ("between", "between_static", "between_silent", "beyond" or "graph") of the model object: a
 * reading the calibration chose and the folds that chose it (pascal_reading_choice). */
static pascal_status encode_model_reading(const pascal_reading_choice *b, const char *key,
                                          json_t *doc, pascal_error *err)
{
  char field[PASCAL_ERROR_FIELD_MAX];
  json_t *o = json_object(), *names = json_array();
  pascal_status st = codec_set(doc, key, o, err);
  snprintf(field, sizeof field, "model.%s.candidates", key);
  if (!st)
    st = codec_set(o, "rule", json_string(pascal_reading_name(b->rule)), err);
  if (!st)
    st = codec_set(o, "candidates", names, err);
  else
    json_decref(names);
  for (int k = 0; !st && k < 2; k++)
    st = codec_append(names, json_string(pascal_reading_name(b->candidate[k])), field, err);
  if (!st)
    st = codec_set(o, "points", codec_uint(b->points), err);
  if (!st && b->points)
    st = codec_set_real_array(o, "fold_pct", b->fold_pct, 2, err);
  return st;
}

/* The "model" object of a frozen bundle: {"curves": [...], "between",
 * ["graph"] (scan), ["between_static", "between_silent", "beyond"] (GEMM),
 * ["time"]}, see
 * docs/bundle-format.md. */
static pascal_status model_encode(const pascal_model *model, json_t **out, pascal_error *err)
{
  json_t *doc = json_object(), *curves = json_array();
  int gemm = pascal_model_workload(model) == PASCAL_WORKLOAD_GEMM;
  pascal_status st = codec_set(doc, "curves", curves, err);
  size_t n = pascal_model_curve_count(model);
  for (size_t i = 0; !st && i < n; i++) {
    pascal_curve_view v;
    json_t *c = json_object();
    if ((st = codec_append(curves, c, "model.curves", err)) ||
        (st = pascal_model_curve(model, i, &v, err)))
      break;
    if (gemm) {
      if (!(st = codec_set(c, "n_r", codec_uint(v.n_r), err)))
        st = codec_set(c, "n_c", codec_uint(v.n_c), err);
    } else if (!(st = codec_set_scan_key(c, &v.key, err))) {
      st = codec_set(c, "N", codec_uint(v.N), err);
    }
    if (!st && !(st = codec_set_real_array(c, "x", v.curve->x, v.curve->n, err)) &&
        !(st = codec_set_real_array(c, "y", v.curve->y, v.curve->n, err)) &&
        !(st = codec_set_real_array(c, "slope", v.curve->d, v.curve->n, err)) && !gemm)
      st = codec_set(c, "onset", codec_real(v.curve->onset), err);
  }
  pascal_reading_choice between, between_static, between_silent, beyond, graph;
  pascal_model_between(model, &between);
  pascal_model_graph(model, &graph);
  pascal_model_between_static(model, &between_static);
  pascal_model_between_silent(model, &between_silent);
  pascal_model_beyond(model, &beyond);
  if (!st)
    st = encode_model_reading(&between, "between", doc, err);
  if (!st && pascal_model_workload(model) == PASCAL_WORKLOAD_SCAN)
    st = encode_model_reading(&graph, "graph", doc, err);
  if (!st && gemm)
    st = encode_model_reading(&between_static, "between_static", doc, err);
  if (!st && gemm)
    st = encode_model_reading(&between_silent, "between_silent", doc, err);
  if (!st && gemm)
    st = encode_model_reading(&beyond, "beyond", doc, err);
  if (!st)
    st = encode_model_time(model, doc, err);
  if (st) {
    json_decref(doc);
    return st;
  }
  *out = doc;
  return PASCAL_OK;
}

pascal_status pascal_codec_bundle_encode(const pascal_calibration *cal, const json_t *provenance,
                                         const pascal_model *model,
                                         const pascal_loko_report *report, json_t **out,
                                         pascal_error *err)
{
  json_t *doc = NULL, *part = NULL;
  char hash[PASCAL_CODEC_HASH_LEN + 1];
  pascal_status st;
  if (!json_is_object(provenance))
    return pascal_error_set(err, PASCAL_EINVAL, "provenance", "provenance must be an object");
  if ((st = encode_content(cal, provenance, &doc, err)))
    return st;
  if (model) {
    if ((st = model_encode(model, &part, err)) || (st = codec_set(doc, "model", part, err)))
      goto fail;
    part = NULL;
    if (report) {
      if ((st = pascal_codec_report_encode(cal, report, &part, err)) ||
          (st = codec_set(doc, "report", part, err)))
        goto fail;
    } else if ((st = codec_set(doc, "report", json_null(), err))) {
      goto fail;
    }
    if ((st = pascal_codec_bundle_hash(cal, hash, err)) ||
        (st = codec_set(doc, "content_hash", json_string(hash), err)))
      goto fail;
  }
  *out = doc;
  return PASCAL_OK;
fail:
  json_decref(doc);
  return st;
}

/* The first member of `want` that `have` lacks, at any depth (arrays are
 * compared item by item): 1 with its path in buf, or 0. */
static int first_missing(const json_t *want, const json_t *have, const char *prefix, char *buf,
                         size_t size)
{
  char sub[PASCAL_ERROR_FIELD_MAX];
  if (json_is_object(want) && json_is_object(have)) {
    const char *key;
    json_t *w;
    json_object_foreach((json_t *)want, key, w)
    {
      codec_path(sub, sizeof sub, prefix, key);
      json_t *h = json_object_get(have, key);
      if (!h) {
        snprintf(buf, size, "%s", sub);
        return 1;
      }
      if (first_missing(w, h, sub, buf, size))
        return 1;
    }
  } else if (json_is_array(want) && json_is_array(have)) {
    for (size_t i = 0; i < json_array_size(want) && i < json_array_size(have); i++) {
      codec_path_index(sub, sizeof sub, prefix, i);
      if (first_missing(json_array_get(want, i), json_array_get(have, i), sub, buf, size))
        return 1;
    }
  }
  return 0;
}

pascal_status pascal_codec_bundle_check_model(const pascal_codec_bundle *bundle,
                                              const pascal_model *model, pascal_error *err)
{
  if (!bundle->frozen)
    return PASCAL_OK;
  json_t *fitted;
  pascal_status st = model_encode(model, &fitted, err);
  if (st)
    return st;
  /* a bundle frozen before the time fit existed: its time is derived from
     its (hashed) kernel times, the curves must still match */
  if (!json_object_get(bundle->model, "time"))
    json_object_del(fitted, "time");
  /* nor before the readings between knots and beyond the grid were chosen
     per calibration: its curves must match, the readings are those chosen
     now */
  if (!json_object_get(bundle->model, "between"))
    json_object_del(fitted, "between");
  if (!json_object_get(bundle->model, "beyond"))
    json_object_del(fitted, "beyond");
  if (!json_object_get(bundle->model, "between_static"))
    json_object_del(fitted, "between_static");
  if (!json_object_get(bundle->model, "between_silent"))
    json_object_del(fitted, "between_silent");
  if (!json_object_get(bundle->model, "graph"))
    json_object_del(fitted, "graph");
  char absent[PASCAL_ERROR_FIELD_MAX];
  int same = json_equal(fitted, bundle->model);
  int missing = !same && first_missing(fitted, bundle->model, "model", absent, sizeof absent);
  json_decref(fitted);
  if (missing)
    return pascal_error_set(err, PASCAL_EMISSING, absent, "missing field %s", absent);
  if (!same)
    return pascal_error_set(err, PASCAL_EFORMAT, "model",
                            "the stored model differs from the curves fitted to the "
                            "measurements (edited, or written by an incompatible fit)");
  return PASCAL_OK;
}
