/*
 * h_devices.c - GET/POST /v1/devices and GET /v1/devices/{name}. Registering
 * is idempotent: an identical re-post answers 200, different constants 409.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ctx.h"
#include "handlers.h"
#include "jsonin.h"
#include "reply.h"
#include "views.h"

void pd_h_devices_list(pd_ctx *ctx, pd_request *req, pd_reply *rep) {
  (void)req;
  pascal_store_device *d = NULL;
  size_t n = 0;
  pascal_error err;
  pascal_error_clear(&err);
  int st = pascal_store_device_list(ctx->store, &d, &n, &err);
  if (st != PASCAL_STORE_OK) {
    pd_reply_store_error(rep, st, &err);
    return;
  }
  json_t *arr = json_array();
  for (size_t i = 0; i < n; i++) json_array_append_new(arr, pd_view_device(&d[i]));
  free(d);
  pd_reply_json(rep, 200, json_pack("{s:o}", "devices", arr));
}

void pd_h_devices_post(pd_ctx *ctx, pd_request *req, pd_reply *rep) {
  static const char *const allowed[] = {"name", "arch", "sm_count", "capacity_blocks",
                                        "block_bytes", NULL};
  json_t *b = req->json;
  pascal_store_device dev;
  memset(&dev, 0, sizeof dev);
  uint64_t sm, cap, bb;
  if (pd_json_strict(b, allowed, NULL, rep) ||
      pd_get_name(b, "name", 1, dev.name, sizeof dev.name, NULL, rep) ||
      pd_get_str(b, "arch", 1, dev.arch, sizeof dev.arch, NULL, rep) ||
      pd_get_u64(b, "sm_count", 1, 1, 1u << 20, &sm, NULL, rep) ||
      pd_get_u64(b, "capacity_blocks", 1, 1, UINT32_MAX, &cap, NULL, rep) ||
      pd_get_u64(b, "block_bytes", 1, 1, 1u << 30, &bb, NULL, rep))
    return;
  dev.sm_count = (uint32_t)sm;
  dev.capacity_blocks = (uint32_t)cap;
  dev.block_bytes = (uint32_t)bb;
  pascal_error err;
  pascal_error_clear(&err);
  int created = 0;
  int st = pascal_store_device_create(ctx->store, &dev, (int64_t)time(NULL), &created, &err);
  if (st == PASCAL_STORE_OK) st = pascal_store_device_get(ctx->store, dev.name, &dev, &err);
  if (st != PASCAL_STORE_OK) {
    pd_reply_store_error(rep, st, &err);
    return;
  }
  pd_reply_json(rep, created ? 201 : 200, pd_view_device(&dev));
}

void pd_h_device_get(pd_ctx *ctx, pd_request *req, pd_reply *rep) {
  const char *name = req->params[0];
  if (!pd_name_valid(name)) {
    pd_reply_error(rep, 404, "not_found", "name", "no device named '%.64s'", name);
    return;
  }
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
  for (size_t i = 0; i < n; i++) json_array_append_new(arr, pd_view_calibration(&cals[i], 0));
  pascal_store_calibration_array_free(cals, n);
  json_object_set_new(v, "calibrations", arr);
  pd_reply_json(rep, 200, v);
}
