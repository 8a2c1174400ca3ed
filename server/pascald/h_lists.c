/*
 * h_lists.c - GET /v1/jobs and GET /v1/tokens: paged listings (page.h) of
 * the records the agents and the operators leave, for the dashboard's
 * collection panel and for scripts. Jobs come from the store a page at a
 * time (a calibration may hold 100,000); tokens never show their hashes.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctx.h"
#include "handlers.h"
#include "jsonin.h"
#include "page.h"
#include "reply.h"
#include "views.h"

/* The job state named `s`, or -1. */
static int job_state(const char *s)
{
  for (int k = 0; k < PASCAL_STORE_JOB_STATES; k++)
    if (!strcmp(s, pascal_store_job_state_name((pascal_store_job_state)k)))
      return k;
  return -1;
}

/* GET /v1/jobs[?calibration=ID][&state=S][&limit=N][&cursor=C] */
void pd_h_jobs_list(pd_ctx *ctx, pd_request *req, pd_reply *rep)
{
  static const char *const strings[] = {"state", PD_PAGE_STRING_KEYS, NULL};
  static const char *const allowed[] = {"calibration", "state", PD_PAGE_KEYS, NULL};
  json_t *q = NULL;
  uint64_t cal = 0;
  char state_name[16] = "";
  int state = -1;
  pd_page pg;
  if (pd_query_object(req->conn, strings, &q, rep))
    return;
  int bad = pd_json_strict(q, allowed, NULL, rep) ||
            pd_get_u64(q, "calibration", 0, 1, INT64_MAX, &cal, NULL, rep) < 0 ||
            pd_get_str(q, "state", 0, state_name, sizeof state_name, NULL, rep) < 0 ||
            pd_page_parse(q, "jobs", 0, &pg, rep);
  json_decref(q);
  if (bad)
    return;
  if (state_name[0] && (state = job_state(state_name)) < 0) {
    pd_reply_error(rep, 400, "invalid_value", "state",
                   "state must be queued, leased, done or failed (got '%s')", state_name);
    return;
  }
  pascal_store_job *jobs = NULL;
  size_t n = 0;
  pascal_error err;
  pascal_error_clear(&err);
  /* one more than the page holds tells whether the list goes on */
  int st = pascal_store_job_list(ctx->store, (int64_t)cal, state, pg.after_id,
                                 pg.limit ? pg.limit + 1 : 0, &jobs, &n, &err);
  if (st == PASCAL_STORE_OK && n == 0 && cal) { /* nothing, or no such calibration? */
    pascal_store_calibration c;
    memset(&c, 0, sizeof c);
    st = pascal_store_calibration_get(ctx->store, (int64_t)cal, &c, &err);
    pascal_store_calibration_clear(&c);
    if (st == PASCAL_STORE_NOT_FOUND && !err.field[0])
      snprintf(err.field, sizeof err.field, "calibration");
  }
  if (st != PASCAL_STORE_OK) {
    free(jobs);
    pd_reply_store_error(rep, st, &err);
    return;
  }
  size_t shown = pg.limit && n > pg.limit ? pg.limit : n;
  json_t *arr = json_array();
  for (size_t i = 0; i < shown; i++)
    json_array_append_new(arr, pd_view_job(&jobs[i]));
  json_t *next = shown < n ? pd_page_cursor_id(&pg, jobs[shown - 1].id) : json_null();
  free(jobs);
  pd_reply_json(rep, 200, json_pack("{s:o,s:o}", "jobs", arr, "next_cursor", next));
}

/* GET /v1/tokens[?limit=N][&cursor=C] (admin): revoked ones too. */
void pd_h_tokens_list(pd_ctx *ctx, pd_request *req, pd_reply *rep)
{
  static const char *const strings[] = {PD_PAGE_STRING_KEYS, NULL};
  static const char *const allowed[] = {PD_PAGE_KEYS, NULL};
  json_t *q = NULL;
  pd_page pg;
  if (pd_query_object(req->conn, strings, &q, rep))
    return;
  int bad = pd_json_strict(q, allowed, NULL, rep) || pd_page_parse(q, "tokens", 0, &pg, rep);
  json_decref(q);
  if (bad)
    return;
  pascal_store_token *t = NULL;
  size_t n = 0;
  pascal_error err;
  pascal_error_clear(&err);
  int st = pascal_store_token_list(ctx->store, &t, &n, &err);
  if (st != PASCAL_STORE_OK) {
    pd_reply_store_error(rep, st, &err);
    return;
  }
  json_t *arr = json_array();
  for (size_t i = 0; i < n; i++)
    json_array_append_new(arr, pd_view_token(&t[i]));
  free(t);
  json_t *next = pd_page_apply(&pg, arr);
  pd_reply_json(rep, 200, json_pack("{s:o,s:o}", "tokens", arr, "next_cursor", next));
}
