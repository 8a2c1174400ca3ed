/*
 * runs.h - the conversions between the run structs pascald holds: a plan's
 * expanded run (pascal_plan_run, core), the store's row of a job or a
 * measurement (pascal_store_run) and a claimed job on the wire
 * (pascal_codec_job). They describe the same run; each differs for a reason
 * of its own layer, stated in docs/design.md ("One run, three structs"), and
 * every conversion between them is here.
 */
#ifndef PASCALD_RUNS_H
#define PASCALD_RUNS_H

#include "pascal/plan.h"
#include "pascal_codec_jobs.h"
#include "pascal_store.h"

/* A plan's run as the store keeps it (`heldout`: a run of the held-out
 * panel). */
void pd_run_from_plan(const pascal_plan_run *r, int heldout, pascal_store_run *out);
/* The inverse (the held-out flag is not part of a plan run). */
void pd_run_to_plan(const pascal_store_run *r, pascal_store_workload workload,
                    pascal_plan_run *out);
/* A leased job as the claim reply carries it; out->lease_token, the secret
 * the store never sees, is left as it is. */
void pd_job_to_codec(const pascal_store_job *j, unsigned lease_seconds, pascal_codec_job *out);

#endif
