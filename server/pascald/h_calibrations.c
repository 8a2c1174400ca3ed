/*
 * h_calibrations.c - calibrations over HTTP: create from a pascal-plan/1
 * (expanded into one job per run, plan.h order) and an optional held-out
 * panel (a second pascal-plan/1, or an array of parts, whose jobs are
 * flagged held-out: measured like the others, never fitted), list, get with
 * progress and report, freeze, export as a pascal-calibration/1 bundle,
 * import a bundle.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "calib.h"
#include "ctx.h"
#include "handlers.h"
#include "jsonin.h"
#include "page.h"
#include "pascal/plan.h"
#include "pascal/plan_gen.h"
#include "pascal_codec.h"
#include "reply.h"
#include "routes.h"
#include "runs.h"
#include "views.h"

/* Jobs one calibration may create (a plan may expand to far more runs than
 * its body size suggests, through a grid). */
#define PD_PLAN_RUNS_MAX 100000u

static void reply_calibration(pd_ctx *ctx, pd_reply *rep, int64_t id, unsigned status)
{
  pascal_store_calibration c;
  memset(&c, 0, sizeof c);
  pascal_error err;
  pascal_error_clear(&err);
  int st = pascal_store_calibration_get(ctx->store, id, &c, &err);
  if (st != PASCAL_STORE_OK)
    pd_reply_store_error(rep, st, &err);
  else if (status == 201)
    pd_reply_created(rep, pd_view_calibration(&c, 1), "/v1/calibrations/%lld", (long long)id);
  else
    pd_reply_json(rep, status, pd_view_calibration(&c, 1));
  pascal_store_calibration_clear(&c);
}

static int64_t path_id(pd_request *req, pd_reply *rep)
{
  int64_t id = pd_parse_id(req->params[0]);
  if (id < 0)
    pd_reply_error(rep, 404, "not_found", "id", "no calibration '%.64s'", req->params[0]);
  return id;
}

/* Append the expansion of `plan` to *runs (*n entries so far), flagged
 * `heldout`. The total stays at most PD_PLAN_RUNS_MAX. */
static pascal_status plan_runs(const pascal_plan *plan, int heldout, pascal_store_run **runs,
                               size_t *n, pascal_error *err)
{
  pascal_plan_run *pr = NULL;
  size_t np = 0;
  pascal_status st = pascal_plan_expand(plan, &pr, &np, err);
  if (st)
    return st;
  if (np > PD_PLAN_RUNS_MAX - *n) {
    free(pr);
    return pascal_error_set(err, PASCAL_EINVAL, "", "plan expands to %zu runs (at most %u in all)",
                            np + *n, PD_PLAN_RUNS_MAX);
  }
  pascal_store_run *sr = realloc(*runs, (*n + np ? *n + np : 1) * sizeof *sr);
  if (!sr) {
    free(pr);
    return pascal_error_set(err, PASCAL_ENOMEM, "", "out of memory expanding the plan");
  }
  for (size_t i = 0; i < np; i++)
    pd_run_from_plan(&pr[i], heldout, &sr[*n + i]);
  free(pr);
  *runs = sr;
  *n += np;
  return PASCAL_OK;
}

/* Decode, expand and canonicalise one plan document; errors are replied
 * under `field` ("plan", "heldout"). */
static int take_plan(const json_t *doc, const char *field, int heldout, pascal_plan *plan,
                     pascal_store_run **runs, size_t *n, json_t **canon, pd_reply *rep)
{
  pascal_error err;
  pascal_error_clear(&err);
  if (pascal_codec_plan_decode(doc, plan, &err) || plan_runs(plan, heldout, runs, n, &err) ||
      pascal_codec_plan_encode(plan, canon, &err)) {
    pd_reply_pascal_error_in(rep, &err, field);
    return -1;
  }
  return 0;
}

/* Parts a held-out panel may have (the paper's scan panel has two: a plan
 * is one cross product of sizes and horizons). */
#define PD_PANEL_PARTS_MAX 16u

/* The held-out panel: the body's "heldout" or the plan's own "heldout"
 * member (not both), a pascal-plan/1 of the plan's workload or a non-empty
 * array of them (parts expanded in order); NULL if none. *field names it. */
static int heldout_doc(const json_t *body, const json_t *plan, const json_t **out,
                       const char **field, pd_reply *rep)
{
  const json_t *outer = json_object_get(body, "heldout"), *inner = json_object_get(plan, "heldout");
  if (outer && inner) {
    pd_reply_error(rep, 400, "invalid_value", "heldout",
                   "give the held-out panel either in the body or in the plan, not both");
    return -1;
  }
  *out = outer ? outer : inner;
  *field = outer ? "heldout" : "plan.heldout";
  if (!*out)
    return 0;
  size_t n = json_is_array(*out) ? json_array_size(*out) : 1;
  if (!json_is_object(*out) && !json_is_array(*out)) {
    pd_reply_error(rep, 400, "invalid_type", *field,
                   "heldout must be a pascal-plan/1 object or an array of them");
    return -1;
  }
  if (n == 0 || n > PD_PANEL_PARTS_MAX) {
    pd_reply_error(rep, 400, "invalid_value", *field, "a held-out panel has 1 to %u parts, got %zu",
                   PD_PANEL_PARTS_MAX, n);
    return -1;
  }
  return 0;
}

/* Expand every part of the held-out panel `hj` (named `field`) after the
 * plan's runs: same workload as `plan`, sizes above the device's C. The
 * canonical panel (an object, or an array for an array) goes to *canon. */
static int take_panel(const json_t *hj, const char *field, const pascal_plan *plan,
                      uint64_t capacity, pascal_store_run **runs, size_t *n, json_t **canon,
                      pd_reply *rep)
{
  int array = json_is_array(hj);
  size_t parts = array ? json_array_size(hj) : 1;
  *canon = array ? json_array() : NULL;
  for (size_t i = 0; i < parts; i++) {
    char name[48];
    if (array)
      snprintf(name, sizeof name, "%s[%zu]", field, i);
    else
      snprintf(name, sizeof name, "%s", field);
    pascal_plan panel;
    pascal_plan_init(&panel);
    json_t *part = NULL;
    pascal_error err;
    pascal_error_clear(&err);
    const json_t *doc = array ? json_array_get(hj, i) : hj;
    int bad = !json_is_object(doc);
    if (bad)
      pd_reply_error(rep, 400, "invalid_type", name,
                     "a held-out part must be a pascal-plan/1 object");
    else
      bad = take_plan(doc, name, 1, &panel, runs, n, &part, rep);
    if (!bad && panel.workload != plan->workload) {
      snprintf(name + strlen(name), sizeof name - strlen(name), ".workload");
      pd_reply_error(rep, 400, "invalid_value", name,
                     "the held-out panel must have the plan's workload");
      bad = 1;
    } else if (!bad && pascal_plan_check_capacity(&panel, capacity, &err)) {
      pd_reply_pascal_error_in(rep, &err, name);
      bad = 1;
    }
    pascal_plan_free(&panel);
    if (bad) {
      json_decref(part);
      return -1;
    }
    if (!array)
      *canon = part;
    else if (json_array_append_new(*canon, part)) {
      pd_reply_error(rep, 500, "internal", NULL, "out of memory");
      return -1;
    }
  }
  return 0;
}

/* "base": the id of a frozen GEMM calibration of `device` that the plan's
 * runs extend (measure.sh's configs phase: configuration runs after the
 * GEMM calibration froze, docs/http-api.md), into *base (0: none). A plan
 * with configurations needs one: its runs alone fit no calibration. The
 * store checks the state again, atomically. */
static int take_base(pd_ctx *ctx, const json_t *body, const char *device, const pascal_plan *plan,
                     int64_t *base, pd_reply *rep)
{
  const json_t *bj = json_object_get(body, "base");
  if (!bj) {
    if (plan->n_configs == 0)
      return 0;
    pd_reply_error(rep, 400, "missing_field", "base",
                   "a plan with configurations extends a frozen gemm calibration: give its id "
                   "as base");
    return -1;
  }
  if (!json_is_integer(bj) || json_integer_value(bj) < 1) {
    pd_reply_error(rep, 400, "invalid_type", "base",
                   "base must be the id of a frozen gemm calibration");
    return -1;
  }
  *base = (int64_t)json_integer_value(bj);
  pascal_store_calibration bc;
  memset(&bc, 0, sizeof bc);
  pascal_error err;
  pascal_error_clear(&err);
  int st = pascal_store_calibration_get(ctx->store, *base, &bc, &err);
  if (st != PASCAL_STORE_OK) {
    snprintf(err.field, sizeof err.field, "base");
    pd_reply_store_error(rep, st, &err);
    return -1;
  }
  const char *why = bc.state != PASCAL_STORE_FROZEN ? "is not frozen"
                    : strcmp(bc.device, device)     ? "belongs to another device"
                    : bc.workload != PASCAL_STORE_GEMM || plan->workload != PASCAL_PLAN_GEMM
                        ? "and the plan must both be gemm"
                        : NULL;
  pascal_store_calibration_clear(&bc);
  if (why) {
    pd_reply_error(rep, 409, "conflict", "base", "calibration %lld %s", (long long)*base, why);
    return -1;
  }
  return 0;
}

void pd_h_calibrations_post(pd_ctx *ctx, pd_request *req, pd_reply *rep)
{
  static const char *const allowed[] = {"device", "plan", "heldout", "base", NULL};
  char device[64];
  if (pd_json_strict(req->json, allowed, NULL, rep) ||
      pd_get_name(req->json, "device", 1, device, sizeof device, NULL, rep))
    return;
  json_t *pj = json_object_get(req->json, "plan");
  if (!json_is_object(pj)) {
    pd_reply_error(rep, 400, pj ? "invalid_type" : "missing_field", "plan",
                   "plan must be a pascal-plan/1 object");
    return;
  }
  const json_t *hj = NULL;
  const char *panel_field = NULL;
  pascal_plan plan;
  pascal_plan_init(&plan);
  pascal_store_run *runs = NULL;
  size_t n = 0;
  json_t *canon = NULL, *canon_panel = NULL;
  char *text = NULL;
  pascal_error err;
  pascal_error_clear(&err);
  if (heldout_doc(req->json, pj, &hj, &panel_field, rep) ||
      take_plan(pj, "plan", 0, &plan, &runs, &n, &canon, rep))
    goto done;
  /* Scan sizes must exceed the device's C (plan_gen.h); the device's
   * existence is checked again, atomically, by the store's create. */
  pascal_store_device dev;
  int dst = pascal_store_device_get(ctx->store, device, &dev, &err);
  if (dst != PASCAL_STORE_OK) {
    if (dst == PASCAL_STORE_NOT_FOUND && !err.field[0])
      snprintf(err.field, sizeof err.field, "device");
    pd_reply_store_error(rep, dst, &err);
    goto done;
  }
  if (pascal_plan_check_capacity(&plan, dev.capacity_blocks, &err)) {
    pd_reply_pascal_error_in(rep, &err, "plan");
    goto done;
  }
  if (hj && take_panel(hj, panel_field, &plan, dev.capacity_blocks, &runs, &n, &canon_panel, rep))
    goto done;
  int64_t base = 0;
  if (take_base(ctx, req->json, device, &plan, &base, rep))
    goto done;
  if (pd_calib_check_runs(&dev,
                          plan.workload == PASCAL_PLAN_GEMM ? PASCAL_STORE_GEMM : PASCAL_STORE_SCAN,
                          runs, n, &err)) {
    pd_reply_pascal_error(rep, &err); /* 400 out_of_range, field "plan" */
    goto done;
  }
  if (canon_panel)
    json_object_set(canon, "heldout", canon_panel);
  text = pascal_codec_dump(canon, 0);
  if (!text) {
    pd_reply_error(rep, 500, "internal", NULL, "out of memory");
    goto done;
  }
  int64_t id = 0;
  int st =
      base ? pascal_store_calibration_extend(ctx->store, base, text, runs, n, ctx->cfg.max_attempts,
                                             (int64_t)time(NULL), &id, &err)
           : pascal_store_calibration_create(ctx->store, device,
                                             pd_plan_store_workload(plan.workload), text, runs, n,
                                             ctx->cfg.max_attempts, (int64_t)time(NULL), &id, &err);
  if (st != PASCAL_STORE_OK) {
    if (st == PASCAL_STORE_NOT_FOUND && !err.field[0])
      snprintf(err.field, sizeof err.field, "device");
    pd_reply_store_error(rep, st, &err);
    goto done;
  }
  reply_calibration(ctx, rep, id, 201);
done:
  free(text);
  json_decref(canon);
  json_decref(canon_panel);
  free(runs);
  pascal_plan_free(&plan);
}

void pd_h_calibrations_list(pd_ctx *ctx, pd_request *req, pd_reply *rep)
{
  static const char *const strings[] = {"device", PD_PAGE_STRING_KEYS, NULL};
  static const char *const allowed[] = {"device", PD_PAGE_KEYS, NULL};
  json_t *q = NULL;
  char device[64] = "";
  pd_page pg;
  if (pd_query_object(req->conn, strings, &q, rep))
    return;
  int bad = pd_json_strict(q, allowed, NULL, rep) ||
            pd_get_name(q, "device", 0, device, sizeof device, NULL, rep) < 0 ||
            pd_page_parse(q, "calibrations", 0, &pg, rep);
  json_decref(q);
  if (bad)
    return;
  pascal_store_calibration *list = NULL;
  size_t n = 0;
  pascal_error err;
  pascal_error_clear(&err);
  int st = pascal_store_calibration_list(ctx->store, device[0] ? device : NULL, &list, &n, &err);
  if (st != PASCAL_STORE_OK) {
    pd_reply_store_error(rep, st, &err);
    return;
  }
  json_t *arr = json_array();
  int64_t generation = 0;
  for (size_t i = 0; i < n; i++) {
    json_array_append_new(arr, pd_view_calibration(&list[i], 0));
    if (list[i].id > generation)
      generation = list[i].id;
  }
  pascal_store_calibration_array_free(list, n);
  json_t *next = pd_page_apply(&pg, arr); /* generation: of the whole list */
  /* which database answers, and how far its history goes: a replica notices
   * from these that its primary was rebuilt or restored (replica.c) */
  char instance[PASCAL_STORE_META_MAX] = "";
  (void)pascal_store_meta_get(ctx->store, "instance", instance, sizeof instance, NULL);
  pd_reply_json(rep, 200,
                json_pack("{s:o,s:{s:s,s:I},s:o}", "calibrations", arr, "database", "instance",
                          instance, "generation", (json_int_t)generation, "next_cursor", next));
}

void pd_h_calibration_get(pd_ctx *ctx, pd_request *req, pd_reply *rep)
{
  int64_t id = path_id(req, rep);
  if (id < 0)
    return;
  reply_calibration(ctx, rep, id, 200);
}

static void reply_outcome_error(pd_reply *rep, const pd_calib_outcome *o, pascal_error *err)
{
  if (o->store_status)
    pd_reply_store_error(rep, o->store_status, err);
  else
    pd_reply_pascal_error(rep, err);
}

void pd_h_calibration_freeze(pd_ctx *ctx, pd_request *req, pd_reply *rep)
{
  int64_t id = path_id(req, rep);
  if (id < 0)
    return;
  static const char *const allowed[] = {NULL};
  if (req->json && pd_json_strict(req->json, allowed, NULL, rep))
    return;
  pd_calib_outcome o;
  pascal_error err;
  pascal_error_clear(&err);
  if (pd_calib_freeze(ctx, id, &o, &err) != PASCAL_OK) {
    /* the measurements could not be fitted: the input is valid, the model refuses */
    if (!o.store_status && err.status != PASCAL_ENOMEM) {
      pd_reply_error(rep, 422, "unfittable", err.field, "%s", err.message);
      return;
    }
    reply_outcome_error(rep, &o, &err);
    return;
  }
  reply_calibration(ctx, rep, id, 200);
}

void pd_h_calibration_export(pd_ctx *ctx, pd_request *req, pd_reply *rep)
{
  int64_t id = path_id(req, rep);
  if (id < 0)
    return;
  pascal_store_calibration c;
  memset(&c, 0, sizeof c);
  pascal_error err;
  pascal_error_clear(&err);
  int st = pascal_store_calibration_get(ctx->store, id, &c, &err);
  if (st != PASCAL_STORE_OK) {
    pd_reply_store_error(rep, st, &err);
  } else if (c.state != PASCAL_STORE_FROZEN || !c.bundle_json) {
    pd_reply_error(rep, 409, "not_frozen", "id",
                   "calibration %lld is %s; only frozen calibrations export", (long long)id,
                   pascal_store_cal_state_name(c.state));
  } else {
    json_t *doc = json_loads(c.bundle_json, 0, NULL);
    if (doc)
      pd_reply_json(rep, 200, doc);
    else
      pd_reply_error(rep, 500, "internal", NULL, "stored bundle of %lld is unreadable",
                     (long long)id);
  }
  pascal_store_calibration_clear(&c);
}

void pd_h_calibration_import(pd_ctx *ctx, pd_request *req, pd_reply *rep)
{
  pd_calib_outcome o;
  pascal_error err;
  pascal_error_clear(&err);
  if (pd_calib_import(ctx, req->json, 0, &o, &err) != PASCAL_OK) {
    reply_outcome_error(rep, &o, &err);
    return;
  }
  reply_calibration(ctx, rep, o.id, o.created ? 201 : 200);
}
