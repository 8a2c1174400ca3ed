/*
 * views.c - JSON views of store records (see views.h).
 */
#include "views.h"

#include <stdio.h>
#include <string.h>

#include "device_data.h"
#include "pascal/validation.h"
#include "pascal_codec.h"
#include "reply.h"
#include "runs.h"

static json_t *view_peaks(const pascal_store_device *d)
{
  if (!d->has_peaks)
    return json_null();
  return json_pack("{s:f,s:f,s:f,s:f,s:f}", "dram_bytes_per_s", d->peaks.dram_bytes_per_s,
                   "l2_bytes_per_s", d->peaks.l2_bytes_per_s, "tensor_flops", d->peaks.tensor_flops,
                   "sm_clock_hz", d->peaks.sm_clock_hz, "launch_s", d->peaks.launch_s);
}

json_t *pd_view_device(const pascal_store_device *d)
{
  char cc[16];
  snprintf(cc, sizeof cc, "%u.%u", d->cc_major, d->cc_minor);
  return json_pack("{s:s,s:s,s:I,s:I,s:I,s:o,s:s?,s:s?,s:o,s:o,s:o,s:o}", "name", d->name, "arch",
                   d->arch, "sm_count", (json_int_t)d->sm_count, "capacity_blocks",
                   (json_int_t)d->capacity_blocks, "block_bytes", (json_int_t)d->block_bytes,
                   "created_at", pd_json_time(d->created), "cuda_name",
                   d->cuda_name[0] ? d->cuda_name : NULL, "compute_capability",
                   d->cc_major ? cc : NULL, "l2_bytes",
                   d->l2_bytes ? json_integer((json_int_t)d->l2_bytes) : json_null(), "peaks",
                   view_peaks(d), "capacity_probe", pd_device_data_view(d->capacity_probe),
                   "static_experiment", pd_device_data_view(d->static_experiment));
}

static json_t *view_progress(int64_t done, int64_t total)
{
  return json_pack("{s:I,s:I}", "done", (json_int_t)done, "total", (json_int_t)total);
}

static json_t *embedded(const char *text)
{
  if (!text)
    return json_null();
  json_t *v = json_loads(text, 0, NULL);
  return v ? v : json_null();
}

/* One line per family of the report's "losing_families" (where the folds
 * favour aligned K = 1), as `pascal fit` warns. */
static json_t *view_warnings(const json_t *report)
{
  json_t *out = json_array(), *f;
  const json_t *losses = json_object_get(report, "losing_families");
  const char *wl = json_string_value(json_object_get(report, "workload"));
  pascal_workload workload = PASCAL_WORKLOAD_SCAN;
  if (!wl || pascal_workload_parse(wl, "workload", &workload, NULL) != PASCAL_OK)
    return out; /* a report this build did not write */
  size_t i;
  json_array_foreach(losses, i, f)
  {
    pascal_family_loss l = {.family = {.o = (uint32_t)json_integer_value(json_object_get(f, "o")),
                                       .d = (uint32_t)json_integer_value(json_object_get(f, "d"))},
                            .n_keys = (size_t)json_integer_value(json_object_get(f, "n_keys")),
                            .pascal_pct = json_number_value(json_object_get(f, "pascal_pct")),
                            .aligned_pct = json_number_value(json_object_get(f, "aligned_pct"))};
    const char *path = json_string_value(json_object_get(f, "path"));
    if (pascal_workload_scans(workload) &&
        (!path || pascal_path_parse(path, "path", &l.family.path, NULL) != PASCAL_OK))
      continue; /* a report this build did not write */
    char line[256];
    pascal_family_loss_describe(&l, workload, line, sizeof line);
    json_array_append_new(out, json_string(line));
  }
  return out;
}

json_t *pd_view_calibration(const pascal_store_calibration *c, int full)
{
  json_t *jobs = json_object();
  for (int k = 0; k < PASCAL_STORE_JOB_STATES; k++)
    json_object_set_new(jobs, pascal_store_job_state_name((pascal_store_job_state)k),
                        json_integer(c->jobs[k]));
  json_t *v =
      json_pack("{s:I,s:s,s:s,s:s,s:o,s:o,s:o,s:o,s:o,s:I}", "id", (json_int_t)c->id, "device",
                c->device, "workload", pascal_store_workload_name(c->workload), "state",
                pascal_store_cal_state_name(c->state), "created_at", pd_json_time(c->created),
                "frozen_at", c->frozen_at ? pd_json_time(c->frozen_at) : json_null(),
                "content_hash", c->content_hash[0] ? json_string(c->content_hash) : json_null(),
                "progress", view_progress(c->jobs[PASCAL_STORE_DONE], c->jobs_total), "jobs", jobs,
                "measurements", (json_int_t)c->measurements);
  if (v && full) {
    json_object_set_new(v, "plan", embedded(c->plan_json));
    json_t *report = embedded(c->report_json);
    json_object_set_new(v, "warnings", view_warnings(report));
    json_object_set_new(v, "report", report);
  }
  return v;
}

/* A time, or null for 0 (never). */
static json_t *time_or_null(int64_t t)
{
  return t ? pd_json_time(t) : json_null();
}

json_t *pd_view_job(const pascal_store_job *j)
{
  pascal_codec_job cj;
  memset(&cj, 0, sizeof cj);
  pd_job_to_codec(j, 0, &cj);
  json_t *run = NULL;
  pascal_error err;
  if (pascal_codec_plan_run_encode(&cj.run, &run, &err))
    return NULL;
  int leased = j->state == PASCAL_STORE_LEASED;
  return json_pack(
      "{s:I,s:I,s:s,s:s,s:s,s:o,s:b,s:b,s:i,s:i,s:s?,s:o,s:o,s:o,s:s?}", "id", (json_int_t)j->id,
      "calibration", (json_int_t)j->calibration, "device", j->device, "workload",
      pascal_store_workload_name(j->workload), "state", pascal_store_job_state_name(j->state),
      "run", run, "heldout", j->run.heldout, "excluded", j->excluded, "attempts", (int)j->attempts,
      "max_attempts", (int)j->max_attempts, "agent", j->lease_owner[0] ? j->lease_owner : NULL,
      "lease_started_at", time_or_null(j->lease_started), "lease_expires_at",
      leased ? pd_json_time(j->lease_expires) : json_null(), "finished_at",
      time_or_null(j->finished), "last_error", j->last_error[0] ? j->last_error : NULL);
}

json_t *pd_view_token(const pascal_store_token *t)
{
  return json_pack("{s:I,s:s,s:s,s:o,s:o}", "id", (json_int_t)t->id, "name", t->name, "role",
                   pascal_store_role_name(t->role), "created_at", pd_json_time(t->created),
                   "revoked_at", time_or_null(t->revoked));
}
