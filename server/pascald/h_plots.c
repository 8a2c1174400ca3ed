/*
 * h_plots.c - GET /v1/calibrations/{id}/plots/{kind}.svg: a chart of a frozen
 * calibration (server/plot/plots.h, docs/plots.md) with the choices of
 * `pascal plot` as query parameters (family, N, W, Kg). The stored bundle is
 * decoded and fitted once per distinct request; the SVG is then served
 * from the plot cache, since a frozen calibration never changes. The
 * device's probe data (capacity and static plots) is the bundle's, else the
 * device's as registered, so a plot and the device's row agree; a device's
 * probe data, once known, never changes either (it is only filled in).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctx.h"
#include "device_data.h"
#include "handlers.h"
#include "jsonin.h"
#include "pascal_codec.h"
#include "pascal_store.h"
#include "plot_cache.h"
#include "plots.h"
#include "reply.h"
#include "routes.h"

#define SVG_TYPE "image/svg+xml; charset=utf-8"
/* A chart opened on its own is a document: it may load nothing. */
#define SVG_CSP  "default-src 'none'; frame-ancestors 'none'"

/* Parse the query; family is kept as text until the workload is known. */
static int parse_query(pd_request *req, pascal_plot_request *q, char *family, size_t flen,
                       pd_reply *rep)
{
  static const char *const strings[] = {"family", NULL};
  static const char *const allowed[] = {"family", "N", "W", "Kg", NULL};
  json_t *o = NULL;
  uint64_t N = 0, Kg = 0;
  double W = 0;
  if (pd_query_object(req->conn, strings, &o, rep))
    return -1;
  int bad = pd_json_strict(o, allowed, NULL, rep) ||
            pd_get_str(o, "family", 0, family, flen, NULL, rep) < 0 ||
            pd_get_u64(o, "N", 0, 1, UINT32_MAX, &N, NULL, rep) < 0 ||
            pd_get_u64(o, "Kg", 0, 1, UINT32_MAX, &Kg, NULL, rep) < 0 ||
            pd_get_num(o, "W", 0, PASCAL_PREDICT_W_MIN, PASCAL_PREDICT_W_MAX, &W, NULL, rep) < 0;
  json_decref(o);
  q->N = (uint32_t)N;
  q->Kg = (uint32_t)Kg;
  q->W = W;
  return bad ? -1 : 0;
}

/* Probe data the bundle's device lacks, from the device as registered. */
static void device_data_fallback(pd_ctx *ctx, pascal_device *core)
{
  pascal_store_device dev;
  pascal_device known;
  memset(&known, 0, sizeof known);
  if ((core->has_capacity_probe && core->has_static_table) ||
      pascal_store_device_get(ctx->store, core->name, &dev, NULL) != PASCAL_STORE_OK ||
      pd_device_data_to_core(&dev, &known, NULL) != PASCAL_OK)
    return;
  if (!core->has_capacity_probe && known.has_capacity_probe) {
    core->capacity_probe = known.capacity_probe;
    core->has_capacity_probe = 1;
  }
  if (!core->has_static_table && known.has_static_table) {
    core->static_table = known.static_table;
    core->has_static_table = 1;
  }
}

/* Draw the plot of calibration `id` from its stored bundle. */
static void draw(pd_ctx *ctx, int64_t id, pascal_plot_request *q, const char *family,
                 const char *key, pd_reply *rep)
{
  pascal_store_calibration c;
  memset(&c, 0, sizeof c);
  pascal_error err;
  pascal_error_clear(&err);
  pascal_codec_bundle bundle;
  pascal_codec_bundle_init(&bundle);
  pascal_model *model = NULL;
  json_t *doc = NULL;
  char *svg = NULL;
  size_t len = 0;
  int st = pascal_store_calibration_get(ctx->store, id, &c, &err);
  if (st != PASCAL_STORE_OK) {
    pd_reply_store_error(rep, st, &err);
    goto done;
  }
  if (c.state != PASCAL_STORE_FROZEN || !c.bundle_json) {
    pd_reply_error(rep, 409, "not_frozen", "id",
                   "calibration %lld is %s; only frozen calibrations are plotted", (long long)id,
                   pascal_store_cal_state_name(c.state));
    goto done;
  }
  if (!(doc = json_loads(c.bundle_json, 0, NULL)) ||
      pascal_codec_bundle_decode(doc, &bundle, &err) ||
      pascal_model_fit(&bundle.cal, &model, &err)) {
    pd_reply_error(rep, 500, "internal", NULL, "stored bundle of %lld is unreadable",
                   (long long)id);
    goto done;
  }
  device_data_fallback(ctx, &bundle.cal.device);
  if ((family[0] && pascal_plot_family_parse(family, bundle.cal.workload, q, &err)) ||
      pascal_plot_render(&bundle.cal, model, q, &svg, &len, &err)) {
    pd_reply_pascal_error(rep, &err);
    goto done;
  }
  pd_plot_cache_put(ctx->plots, key, svg, len);
  pd_reply_text(rep, 200, svg, len, SVG_TYPE);
  rep->csp = SVG_CSP;
  svg = NULL;
done:
  free(svg);
  json_decref(doc);
  pascal_model_free(model);
  pascal_codec_bundle_free(&bundle);
  pascal_store_calibration_clear(&c);
}

void pd_h_calibration_plot(pd_ctx *ctx, pd_request *req, pd_reply *rep)
{
  int64_t id = pd_parse_id(req->params[0]);
  if (id < 0) {
    pd_reply_error(rep, 404, "not_found", "id", "no calibration '%.64s'", req->params[0]);
    return;
  }
  /* The route's last segment is "{kind}.svg": the matcher hands over the
   * whole segment. */
  char kind[PD_PARAM_MAX];
  size_t kl = strlen(req->params[1]);
  pascal_plot_kind k;
  pascal_error err;
  pascal_error_clear(&err);
  if (kl <= 4 || strcmp(req->params[1] + kl - 4, ".svg") != 0) {
    pd_reply_error(rep, 404, "not_found", "kind", "plots are named KIND.svg (got '%.64s')",
                   req->params[1]);
    return;
  }
  memcpy(kind, req->params[1], kl - 4);
  kind[kl - 4] = '\0';
  if (pascal_plot_kind_parse(kind, &k, &err)) {
    pd_reply_pascal_error(rep, &err);
    return;
  }
  pascal_plot_request q;
  pascal_plot_request_init(&q, k);
  char family[64] = "";
  if (parse_query(req, &q, family, sizeof family, rep))
    return;
  char key[256];
  snprintf(key, sizeof key, "%lld/%s?family=%s&N=%u&W=%.17g&Kg=%u", (long long)id, kind, family,
           q.N, q.W, q.Kg);
  size_t len;
  char *svg = pd_plot_cache_get(ctx->plots, key, &len);
  if (!svg) {
    draw(ctx, id, &q, family, key, rep);
    return;
  }
  pd_reply_text(rep, 200, svg, len, SVG_TYPE);
  rep->csp = SVG_CSP;
}
