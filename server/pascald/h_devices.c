/*
 * h_devices.c - GET/POST /v1/devices and GET /v1/devices/{name}. Registering
 * is idempotent: an identical re-post answers 200, different constants 409.
 * A device may carry its CUDA identity (cuda_name, compute_capability,
 * l2_bytes); the list filters by them, and {name} may be a CUDA name
 * (device_ref.h). It may also carry its measured peaks (the latency
 * pipeline's input), filled in when unknown and 409 naming peaks when they
 * differ; a calibration frozen on the device writes them into its bundle.
 * The probe's capacity scan and static cluster experiment (device_data.h)
 * are treated the same way.
 */
#include <float.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ctx.h"
#include "device_data.h"
#include "device_ref.h"
#include "handlers.h"
#include "jsonin.h"
#include "page.h"
#include "pascal/plan.h"
#include "pascal_codec_jobs.h"
#include "reply.h"
#include "views.h"

/* GET /v1/devices[?cuda_name=NAME][&cc=MAJOR.MINOR][&limit=N][&cursor=C]
 * (page.h). A cuda_name that no
 * device has is a 404 with the close matches; several devices may share one. */
void pd_h_devices_list(pd_ctx *ctx, pd_request *req, pd_reply *rep)
{
  static const char *const strings[] = {"cuda_name", "cc", PD_PAGE_STRING_KEYS, NULL};
  static const char *const allowed[] = {"cuda_name", "cc", PD_PAGE_KEYS, NULL};
  json_t *q = NULL;
  char cuda_name[PASCAL_STORE_NAME_MAX] = "", cc[8] = "";
  uint32_t major = 0, minor = 0;
  pd_page pg;
  if (pd_query_object(req->conn, strings, &q, rep))
    return;
  int bad = pd_json_strict(q, allowed, NULL, rep) ||
            pd_get_str(q, "cuda_name", 0, cuda_name, sizeof cuda_name, NULL, rep) < 0 ||
            pd_get_str(q, "cc", 0, cc, sizeof cc, NULL, rep) < 0 ||
            pd_page_parse(q, "devices", 1, &pg, rep);
  json_decref(q);
  if (bad)
    return;
  if (cc[0] && pascal_codec_cc_parse(cc, &major, &minor)) {
    pd_reply_error(rep, 400, "invalid_value", "cc",
                   "cc must be a compute capability MAJOR.MINOR such as 9.0 (got '%s')", cc);
    return;
  }
  pascal_store_device *d = NULL;
  size_t n = 0, named = 0;
  pascal_error err;
  pascal_error_clear(&err);
  int st = pascal_store_device_list(ctx->store, &d, &n, &err);
  if (st != PASCAL_STORE_OK) {
    pd_reply_store_error(rep, st, &err);
    return;
  }
  json_t *arr = json_array();
  for (size_t i = 0; i < n; i++) {
    if (cuda_name[0] && !pd_device_has_cuda_name(&d[i], cuda_name))
      continue;
    named++;
    if (cc[0] && (d[i].cc_major != major || d[i].cc_minor != minor))
      continue;
    json_array_append_new(arr, pd_view_device(&d[i]));
  }
  free(d);
  char unused[PASCAL_STORE_NAME_MAX];
  if (cuda_name[0] && !named) {
    json_decref(arr);
    pd_device_resolve(ctx, cuda_name, "cuda_name", 1, unused, rep); /* 404, candidates */
    return;
  }
  json_t *next = pd_page_apply(&pg, arr);
  pd_reply_json(rep, 200, json_pack("{s:o,s:o}", "devices", arr, "next_cursor", next));
}

/* Optional "peaks": all five numbers, rates > 0 and launch_s >= 0 (what
 * pascal_peaks_check accepts). 0 when absent or good, -1 with a 400. */
static int get_peaks(json_t *b, pascal_store_device *dev, pd_reply *rep)
{
  static const char *const keys[] = {"dram_bytes_per_s", "l2_bytes_per_s", "tensor_flops",
                                     "sm_clock_hz",      "launch_s",       NULL};
  double *slots[] = {&dev->peaks.dram_bytes_per_s, &dev->peaks.l2_bytes_per_s,
                     &dev->peaks.tensor_flops, &dev->peaks.sm_clock_hz, &dev->peaks.launch_s};
  json_t *p = json_object_get(b, "peaks");
  if (!p)
    return 0;
  if (!json_is_object(p)) {
    pd_reply_error(rep, 400, "invalid_type", "peaks", "peaks must be an object");
    return -1;
  }
  if (pd_json_strict(p, keys, "peaks", rep))
    return -1;
  for (size_t i = 0; keys[i]; i++)
    if (pd_get_num(p, keys[i], 1, i == 4 ? 0.0 : DBL_MIN, 1e30, slots[i], "peaks", rep) < 0)
      return -1;
  dev->has_peaks = 1;
  return 0;
}

void pd_h_devices_post(pd_ctx *ctx, pd_request *req, pd_reply *rep)
{
  static const char *const allowed[] = {
      "name",        "arch",           "sm_count",           "capacity_blocks",
      "block_bytes", "cuda_name",      "compute_capability", "l2_bytes",
      "peaks",       "capacity_probe", "static_experiment",  NULL};
  json_t *b = req->json;
  pascal_store_device dev;
  memset(&dev, 0, sizeof dev);
  uint64_t sm, cap, bb, l2 = 0;
  char cc[8] = "";
  if (pd_json_strict(b, allowed, NULL, rep) ||
      pd_get_name(b, "name", 1, dev.name, sizeof dev.name, NULL, rep) ||
      pd_get_str(b, "arch", 1, dev.arch, sizeof dev.arch, NULL, rep) ||
      pd_get_u64(b, "sm_count", 1, 1, 1u << 20, &sm, NULL, rep) ||
      pd_get_u64(b, "capacity_blocks", 1, 1, UINT32_MAX, &cap, NULL, rep) ||
      pd_get_u64(b, "block_bytes", 1, 1, PASCAL_PLAN_MAX_BLOCK_BYTES, &bb, NULL, rep) ||
      pd_get_str(b, "cuda_name", 0, dev.cuda_name, sizeof dev.cuda_name, NULL, rep) < 0 ||
      pd_get_str(b, "compute_capability", 0, cc, sizeof cc, NULL, rep) < 0 ||
      pd_get_u64(b, "l2_bytes", 0, 1, UINT64_C(1) << 53, &l2, NULL, rep) < 0 ||
      get_peaks(b, &dev, rep) < 0 || pd_device_data_take(b, &dev, rep))
    return;
  if (cc[0] && pascal_codec_cc_parse(cc, &dev.cc_major, &dev.cc_minor)) {
    pd_reply_error(rep, 400, "invalid_value", "compute_capability",
                   "compute_capability must be MAJOR.MINOR such as 9.0 (got '%s')", cc);
    return;
  }
  dev.l2_bytes = l2;
  dev.sm_count = (uint32_t)sm;
  dev.capacity_blocks = (uint32_t)cap;
  dev.block_bytes = (uint32_t)bb;
  pascal_error err;
  pascal_error_clear(&err);
  int created = 0;
  int st = pascal_store_device_create(ctx->store, &dev, (int64_t)time(NULL), &created, &err);
  if (st == PASCAL_STORE_OK)
    st = pascal_store_device_get(ctx->store, dev.name, &dev, &err);
  if (st != PASCAL_STORE_OK) {
    pd_reply_store_error(rep, st, &err);
    return;
  }
  if (created)
    pd_reply_created(rep, pd_view_device(&dev), "/v1/devices/%s", dev.name);
  else
    pd_reply_json(rep, 200, pd_view_device(&dev));
}

void pd_h_device_get(pd_ctx *ctx, pd_request *req, pd_reply *rep)
{
  char name[PASCAL_STORE_NAME_MAX];
  if (pd_device_resolve(ctx, req->params[0], "name", 0, name, rep))
    return;
  pascal_store_device dev;
  pascal_store_calibration *cals = NULL;
  size_t n = 0;
  pascal_error err;
  pascal_error_clear(&err);
  int st = pascal_store_device_get(ctx->store, name, &dev, &err);
  if (st == PASCAL_STORE_OK)
    st = pascal_store_calibration_list(ctx->store, name, &cals, &n, &err);
  if (st != PASCAL_STORE_OK) {
    pd_reply_store_error(rep, st, &err);
    return;
  }
  json_t *v = pd_view_device(&dev), *arr = json_array();
  for (size_t i = 0; i < n; i++)
    json_array_append_new(arr, pd_view_calibration(&cals[i], 0));
  pascal_store_calibration_array_free(cals, n);
  json_object_set_new(v, "calibrations", arr);
  pd_reply_json(rep, 200, v);
}
