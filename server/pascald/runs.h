/*
 * runs.h - every conversion between the run structs pascald holds: a plan's
 * expanded run (pascal_plan_run, core; also the jobs protocol's and the
 * backends'), the store's row of a job or a measurement (pascal_store_run,
 * pascal_store_measurement) and a measured run of a calibration
 * (pascal_scan_run, pascal_gemm_run, core). Why they differ is stated in
 * docs/design.md §5 ("One run, three structs").
 */
#ifndef PASCALD_RUNS_H
#define PASCALD_RUNS_H

#include "pascal/calibration.h"
#include "pascal/plan.h"
#include "pascal_codec_jobs.h"
#include "pascal_store.h"

/* A calibration's workload as the store names it, and back. */
pascal_store_workload pd_store_workload(pascal_workload w);
pascal_workload pd_core_workload(pascal_store_workload w);
/* A plan's workload as the store names its calibration's. */
pascal_store_workload pd_plan_store_workload(pascal_plan_workload w);

/* A plan's run as the store keeps it (`heldout`: a run of the held-out
 * panel). */
void pd_run_from_plan(const pascal_plan_run *r, int heldout, pascal_store_run *out);
/* A leased job as the claim reply carries it; out->lease_token, the secret
 * the store never sees, is left as it is. */
void pd_job_to_codec(const pascal_store_job *j, unsigned lease_seconds, pascal_codec_job *out);

/* A calibration's measured run as the store keeps it (`heldout`: a run of
 * the held-out panel). */
void pd_measurement_from_scan(const pascal_scan_run *r, int heldout, pascal_store_measurement *m);
void pd_measurement_from_gemm(const pascal_gemm_run *r, int heldout, pascal_store_measurement *m);
/* The inverse: append the stored measurement to `cal` (to its held-out
 * panel when it is marked so). PASCAL_ERANGE naming "measurements" for an
 * extent a calibration run cannot hold (2^32 and up), else what the append
 * says. */
pascal_status pd_measurement_append(const pascal_store_measurement *m,
                                    pascal_store_workload workload, pascal_calibration *cal,
                                    pascal_error *err);

#endif
