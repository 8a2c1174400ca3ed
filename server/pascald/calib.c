/*
 * calib.c - the calibration life cycle in the daemon (docs/design.md §5):
 *   freeze  measurements (store) -> pascal_calibration (held-out panel
 *           apart) -> fitted model (paper section 4, Algorithm 1) + report
 *           (LOKO folds, section 4.4; held-out panel, section 5.4) ->
 *           frozen pascal-calibration/1 bundle -> store (one transaction,
 *           immutable afterwards) -> registry (predictions);
 *   import  bundle -> strict decode -> fit (and, for a frozen bundle, check
 *           the stored model bit for bit) + report (always recomputed) ->
 *           store (frozen on import) -> registry;
 *   startup frozen calibrations -> registry; first run: import the shipped
 *           bundles so that predictions work at once.
 * The model is always refitted from the measurements, never trusted from the
 * document, so what is served is exactly what libpascal computes.
 */
#include "calib.h"

#include <assert.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "device_data.h"
#include "pascal/evaluate.h"
#include "pascal/gemm_config.h"
#include "pascal/plausible.h"
#include "pascal/predict.h"
#include "pascal/validation.h"
#include "pascal_codec.h"
#include "pascal_store.h"
#include "registry.h"
#include "runs.h"

/* The store keeps the 64 hex digits of the codec's "sha256:<hex>". */
static const char *hash_hex(const char *codec_hash)
{
  return strncmp(codec_hash, "sha256:", 7) == 0 ? codec_hash + 7 : codec_hash;
}

static pascal_status store_fail(int st, pascal_error *err, pd_calib_outcome *o)
{
  o->store_status = st;
  return err && err->status != PASCAL_OK ? err->status : PASCAL_EINVAL;
}

/* LOKO report as JSON, or JSON null when the calibration has fewer than two
 * keys (nothing can be held out). */
static pascal_status loko_json(const pascal_calibration *cal, pascal_loko_report *rep, int *have,
                               json_t **out, pascal_error *err)
{
  *have = 0;
  pascal_error lerr;
  pascal_error_clear(&lerr);
  if (pascal_loko_run(cal, rep, &lerr) != PASCAL_OK) {
    *out = json_null();
    return PASCAL_OK;
  }
  *have = 1;
  return pascal_codec_report_encode(cal, rep, out, err);
}

/* Relative agreement of two numbers of a report (absolute below 1): the
 * baselines' sums differ in their last bits between builds and machines
 * (measured: 1e-12 relative), an edit by far more. */
#define PD_REPORT_TOLERANCE 1e-9

/* The first place where two JSON values differ, as a dotted path into
 * `path` ("" when they are equal); returns 1 when they differ. Numbers
 * compare by value within PD_REPORT_TOLERANCE. */
static int first_difference(const json_t *a, const json_t *b, char *path, size_t len)
{
  if (json_is_number(a) && json_is_number(b)) {
    double x = json_number_value(a), y = json_number_value(b);
    return !(fabs(x - y) <= PD_REPORT_TOLERANCE * fmax(1, fmax(fabs(x), fabs(y))));
  }
  if (json_typeof(a) != json_typeof(b))
    return 1;
  size_t used = strlen(path);
  if (json_is_object(a)) {
    const char *key;
    json_t *va;
    if (json_object_size(a) != json_object_size(b))
      return 1;
    json_object_foreach((json_t *)a, key, va)
    {
      snprintf(path + used, len - used, "%s%s", used ? "." : "", key);
      json_t *vb = json_object_get(b, key);
      if (!vb || first_difference(va, vb, path, len))
        return 1;
      path[used] = '\0';
    }
    return 0;
  }
  if (json_is_array(a)) {
    if (json_array_size(a) != json_array_size(b))
      return 1;
    for (size_t i = 0; i < json_array_size(a); i++) {
      snprintf(path + used, len - used, "[%zu]", i);
      if (first_difference(json_array_get(a, i), json_array_get(b, i), path, len))
        return 1;
      path[used] = '\0';
    }
    return 0;
  }
  return !json_equal((json_t *)a, (json_t *)b);
}

/* The device an import registers: the bundle's constants, and what its
 * device object knows besides them (peaks, the capacity scan, the static
 * experiment) where the stored device does not know it yet, so that the
 * device's facts agree with what its calibrations' plots draw. What the
 * store knows already is never contradicted: an import does not fail over
 * probe data measured another time. */
static pascal_status import_device(pd_ctx *ctx, const pascal_device *core, pascal_store_device *dev,
                                   pascal_error *err)
{
  pascal_store_device known;
  memset(dev, 0, sizeof *dev);
  memset(&known, 0, sizeof known);
  snprintf(dev->name, sizeof dev->name, "%s", core->name);
  snprintf(dev->arch, sizeof dev->arch, "%s", core->arch);
  dev->sm_count = core->sm_count;
  dev->capacity_blocks = core->capacity_blocks;
  dev->block_bytes = core->block_bytes;
  int exists = pascal_store_device_get(ctx->store, core->name, &known, NULL) == PASCAL_STORE_OK;
  pascal_device fill = *core;
  fill.has_capacity_probe &= !known.capacity_probe[0];
  fill.has_static_table &= !known.static_experiment[0];
  if (core->has_peaks && !(exists && known.has_peaks)) {
    dev->has_peaks = 1;
    dev->peaks = core->peaks;
  }
  return pd_device_data_from_core(&fill, dev, err);
}

/* A frozen bundle's report (NULL when it has none) must be the one its
 * measurements give (`ours`, JSON null when there is none): the content
 * hash does not cover it, and an edited report would be served and
 * exported as if measured. A report of a layout before "summary" or the
 * Origami column existed (docs/bundle-format.md: no "summary", or no
 * "origami" in "balanced_mape") cannot be compared member by member;
 * *replace = 1 says to keep ours in its place (nothing of theirs is kept). */
static pascal_status check_report(const json_t *theirs, const json_t *ours, int *replace,
                                  pascal_error *err)
{
  char path[256] = "", field[PASCAL_ERROR_FIELD_MAX];
  *replace = theirs && json_is_object(ours) &&
             (!json_object_get(theirs, "summary") ||
              !json_object_get(json_object_get(theirs, "balanced_mape"), "origami"));
  if (*replace ||
      (!theirs ? json_is_null(ours) : !first_difference(theirs, ours, path, sizeof path)))
    return PASCAL_OK;
  int w = snprintf(field, sizeof field, "report%s%s", path[0] ? "." : "", path);
  if (w < 0 || (size_t)w >= sizeof field)
    snprintf(field, sizeof field, "report");
  return pascal_error_set(err, PASCAL_EFORMAT, field,
                          "%s differs from the report the bundle's measurements give: the "
                          "bundle was changed after it was frozen",
                          field);
}

pascal_status pd_calib_import(pd_ctx *ctx, const json_t *doc, int64_t as_id, pd_calib_outcome *o,
                              pascal_error *err)
{
  memset(o, 0, sizeof *o);
  pascal_codec_bundle b;
  pascal_codec_bundle_init(&b);
  pascal_model *model = NULL;
  pascal_validation valid = {0};
  pascal_loko_report loko;
  int have_loko = 0;
  json_t *report = NULL, *frozen = NULL;
  char *bundle_text = NULL, *report_text = NULL, hash[PASCAL_CODEC_HASH_LEN + 1];
  pascal_store_measurement *ms = NULL;
  pascal_status st;
  if ((st = pascal_codec_bundle_decode(doc, &b, err)) ||
      (st = pascal_plausible_calibration(&b.cal, err)) ||
      (st = pascal_model_fit(&b.cal, &model, err)))
    goto done;
  /* The report is always recomputed, so that what is served has the current
   * layout whatever wrote the bundle (docs/bundle-format.md). */
  if ((st = loko_json(&b.cal, &loko, &have_loko, &report, err)) ||
      (st = pascal_validation_build(&b.cal, model, have_loko ? &loko : NULL, &valid, err)))
    goto done;
  if (b.frozen) { /* keep its text; the stored model and report must match ours */
    int replace = 0;
    if ((st = pascal_codec_bundle_check_model(&b, model, err)) ||
        (st = check_report(b.report, report, &replace, err)))
      goto done;
    frozen = replace ? json_deep_copy(doc) : json_incref((json_t *)doc);
    if (!frozen || (replace && json_object_set(frozen, "report", report))) {
      st = pascal_error_set(err, PASCAL_ENOMEM, "", "out of memory importing the bundle");
      goto done;
    }
    snprintf(hash, sizeof hash, "%s", b.content_hash);
  } else {
    if ((st = pascal_codec_bundle_encode(&b.cal, b.provenance, model, have_loko ? &loko : NULL,
                                         &frozen, err)) ||
        (st = pascal_codec_bundle_hash(&b.cal, hash, err)))
      goto done;
  }
  bundle_text = pascal_codec_dump(frozen, 0);
  report_text = pascal_codec_dump(report, 0);
  size_t n_fit = pascal_calibration_run_count(&b.cal);
  size_t n = n_fit + pascal_calibration_heldout_count(&b.cal);
  ms = calloc(n ? n : 1, sizeof *ms);
  if (!bundle_text || !report_text || !ms) {
    st = pascal_error_set(err, PASCAL_ENOMEM, "", "out of memory importing the bundle");
    goto done;
  }
  for (size_t i = 0; i < n; i++) {
    int held = i >= n_fit;
    size_t j = held ? i - n_fit : i;
    if (pascal_workload_scans(b.cal.workload))
      pd_measurement_from_scan(held ? &b.cal.heldout_scan_runs[j] : &b.cal.scan_runs[j], held,
                               &ms[i]);
    else
      pd_measurement_from_gemm(held ? &b.cal.heldout_gemm_runs[j] : &b.cal.gemm_runs[j], held,
                               &ms[i]);
  }
  pascal_store_device dev;
  if ((st = import_device(ctx, &b.cal.device, &dev, err)))
    goto done;
  int sst = pascal_store_calibration_import_as(
      ctx->store, as_id, &dev, pd_store_workload(b.cal.workload), NULL, ms, n, bundle_text,
      report_text, hash_hex(hash), (int64_t)time(NULL), &o->id, &o->created, err);
  if (sst != PASCAL_STORE_OK) {
    st = store_fail(sst, err, o);
    goto done;
  }
  if (pd_registry_add(ctx->registry, o->id, model, &valid) == 0)
    model = NULL; /* now owned */
done:
  pascal_validation_free(&valid);
  free(ms);
  free(bundle_text);
  free(report_text);
  json_decref(report);
  json_decref(frozen);
  if (have_loko)
    pascal_loko_report_free(&loko);
  pascal_model_free(model);
  pascal_codec_bundle_free(&b);
  return st;
}

/* The core device of a stored device, and the GEMM tiling pascald measures
 * on it (the defaults, one 128x128 output tile CTA resident per SM:
 * M = sm_count). A GEMM calibration of a device whose arch does not say its
 * shared memory per SM (the sim's "sim") states the registered compute
 * capability's (pascal_gemm_smem_of_arch), which the configurations it
 * answers are sized by (pascal/gemm_config.h). */
static pascal_status device_from_store(const pascal_store_device *dev, pascal_calibration *cal,
                                       pascal_error *err)
{
  snprintf(cal->device.name, sizeof cal->device.name, "%s", dev->name);
  snprintf(cal->device.arch, sizeof cal->device.arch, "%s", dev->arch);
  cal->device.sm_count = dev->sm_count;
  cal->device.capacity_blocks = dev->capacity_blocks;
  cal->device.block_bytes = dev->block_bytes;
  cal->device.has_peaks = dev->has_peaks; /* the bundle carries the device's peaks */
  cal->device.peaks = dev->peaks;
  cal->gemm.resident_ctas = dev->sm_count;
  if (cal->workload == PASCAL_WORKLOAD_GEMM && dev->cc_major &&
      !pascal_gemm_smem_per_sm(&cal->device)) {
    char arch[16];
    snprintf(arch, sizeof arch, "sm_%u%u", dev->cc_major, dev->cc_minor);
    cal->device.smem_per_sm = pascal_gemm_smem_of_arch(arch);
  }
  /* and its probe data, which the bundle carries too */
  return pd_device_data_to_core(dev, &cal->device, err);
}

/* Rebuild the core calibration of a collecting calibration from the store. */
static pascal_status calibration_from_store(pd_ctx *ctx, const pascal_store_calibration *c,
                                            pascal_calibration *cal, pd_calib_outcome *o,
                                            pascal_error *err)
{
  pascal_store_device dev;
  pascal_store_measurement *ms = NULL;
  size_t n = 0;
  int sst = pascal_store_device_get(ctx->store, c->device, &dev, err);
  if (sst == PASCAL_STORE_OK)
    sst = pascal_store_measurement_list(ctx->store, c->id, &ms, &n, err);
  if (sst != PASCAL_STORE_OK)
    return store_fail(sst, err, o);
  pascal_calibration_init(cal, pd_core_workload(c->workload));
  pascal_status st = device_from_store(&dev, cal, err);
  for (size_t i = 0; i < n && st == PASCAL_OK; i++)
    st = pd_measurement_append(&ms[i], c->workload, cal, err);
  free(ms);
  return st;
}

/* The fill range [*cold, *most] of run `r` of `workload` on `cal`'s device
 * and tiling, and its block reads (scan and attention; 0 for GEMM). */
static pascal_status run_range(const pascal_calibration *cal, pascal_store_workload workload,
                               const pascal_store_run *r, double *cold, double *most, double *reads,
                               pascal_error *err)
{
  *reads = 0;
  if (workload == PASCAL_STORE_GEMM) {
    pascal_gemm_shape shape = {(uint32_t)r->Mg, (uint32_t)r->Ng, (uint32_t)r->Kg};
    pascal_gemm_params tiling = cal->gemm;
    if (r->config.tile_m) { /* a configuration run reads in its own tiles and elements */
      tiling.tile_m = r->config.tile_m;
      tiling.tile_n = r->config.tile_n;
      tiling.tile_k = r->config.tile_k;
      tiling.elem_bytes = r->config.elem_bytes;
    }
    return r->Mg > UINT32_MAX || r->Ng > UINT32_MAX || r->Kg > UINT32_MAX
               ? pascal_error_set(err, PASCAL_ERANGE, "run", "GEMM shape beyond 2^32")
               : pascal_plausible_gemm_fills(&tiling, &shape, cold, most, err);
  }
  /* plans hold N and W up to 2^32 - 1 (PASCAL_PLAN_MAX_EXTENT) */
  assert(r->N <= UINT32_MAX && r->W <= UINT32_MAX);
  const pascal_scan_run run = {
      .key = {r->o, r->path_tma ? PASCAL_PATH_TMA : PASCAL_PATH_SYNC, r->d, r->m},
      .N = (uint32_t)r->N,
      .W = (uint32_t)r->W};
  pascal_status st = pascal_plausible_scan_run_fills(cal, &run, cold, most, err);
  *reads = *most / cal->device.block_bytes;
  return st;
}

pascal_status pd_calib_check_result(const pascal_store_device *dev, const pascal_store_job *job,
                                    double fill_bytes, double kernel_ns, pascal_error *err)
{
  pascal_calibration cal;
  pascal_calibration_init(&cal, pd_core_workload(job->workload));
  double cold = 0, most = 0, reads = 0;
  pascal_status st = device_from_store(dev, &cal, err);
  if (st == PASCAL_OK)
    st = run_range(&cal, job->workload, &job->run, &cold, &most, &reads, err);
  if (st == PASCAL_OK)
    st = pascal_plausible_result(&cal.device, cold, most, fill_bytes, kernel_ns, err);
  pascal_calibration_free(&cal);
  return st;
}

pascal_status pd_calib_check_runs(const pascal_store_device *dev, pascal_store_workload workload,
                                  const pascal_store_run *runs, size_t n, pascal_error *err)
{
  pascal_calibration cal;
  pascal_calibration_init(&cal, pd_core_workload(workload));
  pascal_status st = device_from_store(dev, &cal, err);
  for (size_t i = 0; i < n && st == PASCAL_OK; i++) {
    double cold = 0, most = 0, reads = 0;
    const pascal_store_run *r = &runs[i];
    st = run_range(&cal, workload, r, &cold, &most, &reads, err);
    uint32_t per_sm = 0;
    pascal_error fit;
    if (st == PASCAL_OK && r->config.tile_m &&
        pascal_gemm_ctas_per_sm(pascal_gemm_smem_per_sm(&cal.device), &r->config, 1, &per_sm,
                                &fit) != PASCAL_OK)
      st = pascal_error_set(err, PASCAL_EINVAL, "plan.configurations",
                            "configuration %ux%ux%u, %u bytes, stages %u, group_m %u cannot run "
                            "on device %s: %s",
                            r->config.tile_m, r->config.tile_n, r->config.tile_k,
                            r->config.elem_bytes, r->config.stages, r->config.group_m, dev->name,
                            fit.message);
    if (st == PASCAL_OK && pascal_plausible_run_size(most, reads, "plan", err) != PASCAL_OK) {
      char why[PASCAL_ERROR_MESSAGE_MAX];
      snprintf(why, sizeof why, "%s", err->message);
      st = workload == PASCAL_STORE_GEMM
               ? pascal_error_set(err, PASCAL_ERANGE, "plan",
                                  "run %zu (GEMM %llu x %llu x %llu): %s", i,
                                  (unsigned long long)r->Mg, (unsigned long long)r->Ng,
                                  (unsigned long long)r->Kg, why)
               : pascal_error_set(err, PASCAL_ERANGE, "plan", "run %zu (o=%u N=%llu W=%llu): %s", i,
                                  r->o, (unsigned long long)r->N, (unsigned long long)r->W, why);
    }
  }
  pascal_calibration_free(&cal);
  return st;
}

pascal_status pd_calib_freeze(pd_ctx *ctx, int64_t id, pd_calib_outcome *o, pascal_error *err)
{
  memset(o, 0, sizeof *o);
  o->id = id;
  pascal_store_calibration c;
  memset(&c, 0, sizeof c);
  pascal_calibration cal;
  pascal_calibration_init(&cal, PASCAL_WORKLOAD_SCAN);
  pascal_model *model = NULL;
  pascal_validation valid = {0};
  pascal_loko_report loko;
  int have_loko = 0;
  json_t *report = NULL, *frozen = NULL, *prov = NULL;
  char *bundle_text = NULL, *report_text = NULL, hash[PASCAL_CODEC_HASH_LEN + 1];
  pascal_status st;
  int sst = pascal_store_calibration_get(ctx->store, id, &c, err);
  if (sst != PASCAL_STORE_OK) {
    st = store_fail(sst, err, o);
    goto done;
  }
  if (c.state != PASCAL_STORE_COLLECTING || c.jobs[PASCAL_STORE_DONE] != c.jobs_total) {
    o->store_status = PASCAL_STORE_CONFLICT;
    st = c.state != PASCAL_STORE_COLLECTING
             ? pascal_error_set(err, PASCAL_EREFUSED, "state",
                                "calibration %lld is %s, not collecting", (long long)id,
                                pascal_store_cal_state_name(c.state))
             : pascal_error_set(err, PASCAL_EREFUSED, "jobs",
                                "calibration %lld has %lld of %lld jobs not done", (long long)id,
                                (long long)(c.jobs_total - c.jobs[PASCAL_STORE_DONE]),
                                (long long)c.jobs_total);
    goto done;
  }
  if ((st = calibration_from_store(ctx, &c, &cal, o, err)) ||
      (st = pascal_model_fit(&cal, &model, err)) ||
      (st = loko_json(&cal, &loko, &have_loko, &report, err)) ||
      (st = pascal_validation_build(&cal, model, have_loko ? &loko : NULL, &valid, err)))
    goto done;
  prov = json_pack("{s:s,s:s,s:I,s:s}", "source", strcmp(cal.device.arch, "sim") ? "cuda" : "sim",
                   "producer", "pascald", "calibration", (json_int_t)id, "device", cal.device.name);
  if ((st =
           pascal_codec_bundle_encode(&cal, prov, model, have_loko ? &loko : NULL, &frozen, err)) ||
      (st = pascal_codec_bundle_hash(&cal, hash, err)))
    goto done;
  bundle_text = pascal_codec_dump(frozen, 0);
  report_text = pascal_codec_dump(report, 0);
  if (!bundle_text || !report_text) {
    st = pascal_error_set(err, PASCAL_ENOMEM, "", "out of memory freezing");
    goto done;
  }
  sst = pascal_store_calibration_freeze(ctx->store, id, bundle_text, report_text, hash_hex(hash),
                                        (int64_t)time(NULL), err);
  if (sst != PASCAL_STORE_OK) {
    st = store_fail(sst, err, o);
    goto done;
  }
  if (pd_registry_add(ctx->registry, id, model, &valid) == 0)
    model = NULL;
  o->created = 1;
done:
  pascal_validation_free(&valid);
  free(bundle_text);
  free(report_text);
  json_decref(report);
  json_decref(frozen);
  json_decref(prov);
  if (have_loko)
    pascal_loko_report_free(&loko);
  pascal_model_free(model);
  pascal_calibration_free(&cal);
  pascal_store_calibration_clear(&c);
  return st;
}

/* Fit a stored frozen bundle and add it to the registry. */
static pascal_status load_frozen(pd_ctx *ctx, const pascal_store_calibration *c, pascal_error *err)
{
  json_t *doc = NULL;
  pascal_codec_bundle b;
  pascal_codec_bundle_init(&b);
  pascal_model *model = NULL;
  pascal_validation valid = {0};
  pascal_status st;
  if (!c->bundle_json)
    return pascal_error_set(err, PASCAL_EFORMAT, "bundle", "frozen calibration without bundle");
  if ((st = pascal_codec_parse(c->bundle_json, strlen(c->bundle_json), &doc, err)) ||
      (st = pascal_codec_bundle_decode(doc, &b, err)) ||
      (st = pascal_model_fit(&b.cal, &model, err)) ||
      (st = pascal_validation_build(&b.cal, model, NULL, &valid, err)))
    goto done;
  if (pd_registry_add(ctx->registry, c->id, model, &valid) == 0)
    model = NULL;
done:
  pascal_validation_free(&valid);
  pascal_model_free(model);
  pascal_codec_bundle_free(&b);
  json_decref(doc);
  return st;
}

static int json_name(const struct dirent *e)
{
  size_t n = strlen(e->d_name);
  return n > 5 && e->d_name[0] != '.' && strcmp(e->d_name + n - 5, ".json") == 0;
}

/* First run: import the shipped bundles. Problems are reported, not fatal. */
static void import_dir(pd_ctx *ctx, const char *dir)
{
  struct dirent **names = NULL;
  int n = scandir(dir, &names, json_name, alphasort);
  if (n < 0) {
    fprintf(stderr, "pascald: no bundles imported (cannot read %s)\n", dir);
    return;
  }
  for (int i = 0; i < n; i++) {
    char path[8192];
    snprintf(path, sizeof path, "%s/%s", dir, names[i]->d_name);
    json_t *doc = NULL;
    pascal_error err;
    pascal_error_clear(&err);
    pd_calib_outcome o;
    if (pascal_codec_load_file(path, &doc, &err) != PASCAL_OK ||
        pd_calib_import(ctx, doc, 0, &o, &err) != PASCAL_OK)
      fprintf(stderr, "pascald: bundle %s not imported: %s%s%s\n", path, err.message,
              err.field[0] ? " at " : "", err.field);
    else
      fprintf(stderr, "pascald: imported %s as calibration %lld\n", path, (long long)o.id);
    json_decref(doc);
    free(names[i]);
  }
  free(names);
}

int pd_calib_startup(pd_ctx *ctx, char *msg, size_t msglen)
{
  pascal_error err;
  pascal_error_clear(&err);
  pascal_store_calibration *list = NULL;
  size_t n = 0;
  if (pascal_store_calibration_list(ctx->store, NULL, &list, &n, &err) != PASCAL_STORE_OK) {
    snprintf(msg, msglen, "cannot list calibrations: %s", err.message);
    return -1;
  }
  pascal_store_calibration_array_free(list, n);
  /* Read-only recovery keeps the file as it is; a replica takes its
   * calibrations, ids included, from its primary only. */
  if (n == 0 && ctx->cfg.bundles_dir[0] && !ctx->cfg.read_only && !ctx->cfg.replica_of[0])
    import_dir(ctx, ctx->cfg.bundles_dir);
  if (pascal_store_frozen_list(ctx->store, &list, &n, &err) != PASCAL_STORE_OK) {
    snprintf(msg, msglen, "cannot list frozen calibrations: %s", err.message);
    return -1;
  }
  for (size_t i = 0; i < n; i++) {
    /* a bundle imported just now is already fitted and validated */
    pd_registry_rdlock(ctx->registry);
    int loaded = pd_registry_by_id(ctx->registry, list[i].id) != NULL;
    pd_registry_unlock(ctx->registry);
    if (loaded)
      continue;
    pascal_error_clear(&err);
    if (load_frozen(ctx, &list[i], &err) != PASCAL_OK)
      fprintf(stderr, "pascald: frozen calibration %lld not loaded: %s\n", (long long)list[i].id,
              err.message);
  }
  pascal_store_calibration_array_free(list, n);
  return 0;
}
