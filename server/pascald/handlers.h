/*
 * handlers.h - every route handler. Each fills the pd_reply it is given
 * (through reply.h helpers) and never touches MHD responses.
 */
#ifndef PASCALD_HANDLERS_H
#define PASCALD_HANDLERS_H

#include "pascald.h"
#include "qfields.h"

/* h_meta.c */
void pd_h_healthz(pd_ctx *ctx, pd_request *req, pd_reply *rep);
void pd_h_version(pd_ctx *ctx, pd_request *req, pd_reply *rep);
void pd_h_schema(pd_ctx *ctx, pd_request *req, pd_reply *rep);
void pd_h_stats(pd_ctx *ctx, pd_request *req, pd_reply *rep);
void pd_h_metrics(pd_ctx *ctx, pd_request *req, pd_reply *rep);
/* h_predict.c */
void pd_h_predict_get(pd_ctx *ctx, pd_request *req, pd_reply *rep);
void pd_h_predict_post(pd_ctx *ctx, pd_request *req, pd_reply *rep);
/* h_bounds.c; pd_bounds_keys_init builds the key table of a bounds
 * question (ctx->bounds_keys): 0, or -1 when it does not fit */
int pd_bounds_keys_init(pd_keys *k);
void pd_h_bounds_get(pd_ctx *ctx, pd_request *req, pd_reply *rep);
void pd_h_bounds_post(pd_ctx *ctx, pd_request *req, pd_reply *rep);
void pd_h_coherence_get(pd_ctx *ctx, pd_request *req, pd_reply *rep);
void pd_h_coherence_post(pd_ctx *ctx, pd_request *req, pd_reply *rep);
void pd_h_feedback_get(pd_ctx *ctx, pd_request *req, pd_reply *rep);
void pd_h_feedback_post(pd_ctx *ctx, pd_request *req, pd_reply *rep);
/* h_devices.c */
void pd_h_devices_list(pd_ctx *ctx, pd_request *req, pd_reply *rep);
void pd_h_devices_post(pd_ctx *ctx, pd_request *req, pd_reply *rep);
void pd_h_device_get(pd_ctx *ctx, pd_request *req, pd_reply *rep);
/* h_calibrations.c */
void pd_h_calibrations_list(pd_ctx *ctx, pd_request *req, pd_reply *rep);
void pd_h_calibrations_post(pd_ctx *ctx, pd_request *req, pd_reply *rep);
void pd_h_calibration_get(pd_ctx *ctx, pd_request *req, pd_reply *rep);
void pd_h_calibration_freeze(pd_ctx *ctx, pd_request *req, pd_reply *rep);
void pd_h_calibration_export(pd_ctx *ctx, pd_request *req, pd_reply *rep);
void pd_h_calibration_import(pd_ctx *ctx, pd_request *req, pd_reply *rep);
/* h_ui.c */
void pd_h_ui_index(pd_ctx *ctx, pd_request *req, pd_reply *rep);
void pd_h_ui_file(pd_ctx *ctx, pd_request *req, pd_reply *rep);
/* h_plots.c */
void pd_h_calibration_plot(pd_ctx *ctx, pd_request *req, pd_reply *rep);
/* h_jobs.c */
void pd_h_jobs_claim(pd_ctx *ctx, pd_request *req, pd_reply *rep);
void pd_h_job_heartbeat(pd_ctx *ctx, pd_request *req, pd_reply *rep);
void pd_h_job_result(pd_ctx *ctx, pd_request *req, pd_reply *rep);
void pd_h_job_fail(pd_ctx *ctx, pd_request *req, pd_reply *rep);
/* admin: an operator's re-queue or exclusion of a collecting calibration's run */
void pd_h_job_requeue(pd_ctx *ctx, pd_request *req, pd_reply *rep);
void pd_h_job_exclude(pd_ctx *ctx, pd_request *req, pd_reply *rep);
/* h_lists.c: paged listings */
void pd_h_jobs_list(pd_ctx *ctx, pd_request *req, pd_reply *rep);
void pd_h_tokens_list(pd_ctx *ctx, pd_request *req, pd_reply *rep);
/* h_replication.c */
void pd_h_replication_sync(pd_ctx *ctx, pd_request *req, pd_reply *rep);

#endif
