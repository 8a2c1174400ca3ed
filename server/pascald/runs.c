/* runs.c - conversions between pascald's run structs (runs.h). */
#include "runs.h"

#include <stdint.h>
#include <string.h>

#include "reply.h"

pascal_store_workload pd_store_workload(pascal_workload w)
{
  switch (w) {
  case PASCAL_WORKLOAD_SCAN: break;
  case PASCAL_WORKLOAD_GEMM: return PASCAL_STORE_GEMM;
  case PASCAL_WORKLOAD_ATTENTION: return PASCAL_STORE_ATTENTION;
  }
  return PASCAL_STORE_SCAN;
}

pascal_workload pd_core_workload(pascal_store_workload w)
{
  switch (w) {
  case PASCAL_STORE_SCAN: break;
  case PASCAL_STORE_GEMM: return PASCAL_WORKLOAD_GEMM;
  case PASCAL_STORE_ATTENTION: return PASCAL_WORKLOAD_ATTENTION;
  }
  return PASCAL_WORKLOAD_SCAN;
}

pascal_store_workload pd_plan_store_workload(pascal_plan_workload w)
{
  switch (w) {
  case PASCAL_PLAN_SCAN: break;
  case PASCAL_PLAN_GEMM: return PASCAL_STORE_GEMM;
  case PASCAL_PLAN_ATTENTION: return PASCAL_STORE_ATTENTION;
  }
  return PASCAL_STORE_SCAN;
}

/* The inverse, for the runs of a stored calibration. */
static pascal_plan_workload plan_workload(pascal_store_workload w)
{
  switch (w) {
  case PASCAL_STORE_SCAN: break;
  case PASCAL_STORE_GEMM: return PASCAL_PLAN_GEMM;
  case PASCAL_STORE_ATTENTION: return PASCAL_PLAN_ATTENTION;
  }
  return PASCAL_PLAN_SCAN;
}

void pd_run_from_plan(const pascal_plan_run *r, int heldout, pascal_store_run *out)
{
  memset(out, 0, sizeof *out);
  out->o = r->key.o;
  out->path_tma = r->key.path == PASCAL_PLAN_TMA;
  out->d = r->key.d;
  out->m = r->key.m;
  out->N = r->N;
  out->W = r->W;
  out->Mg = r->shape.Mg;
  out->Ng = r->shape.Ng;
  out->Kg = r->shape.Kg;
  out->repeat = r->repeat;
  out->heldout = heldout;
  out->config = r->config;
}

/* A store run as a plan run (the held-out flag is not part of a plan run). */
static void run_to_plan(const pascal_store_run *r, pascal_store_workload workload,
                        pascal_plan_run *out)
{
  memset(out, 0, sizeof *out);
  out->workload = plan_workload(workload);
  out->key.o = r->o;
  out->key.path = r->path_tma ? PASCAL_PLAN_TMA : PASCAL_PLAN_SYNC;
  out->key.d = r->d;
  out->key.m = r->m;
  out->N = r->N;
  out->W = r->W;
  out->shape.Mg = r->Mg;
  out->shape.Ng = r->Ng;
  out->shape.Kg = r->Kg;
  out->config = r->config;
  out->repeat = r->repeat;
}

void pd_job_to_codec(const pascal_store_job *j, unsigned lease_seconds, pascal_codec_job *out)
{
  out->id = j->id;
  out->calibration = j->calibration;
  pd_rfc3339(j->lease_expires, out->lease_expires_at, sizeof out->lease_expires_at);
  out->lease_seconds = lease_seconds;
  out->attempt = j->attempts;
  out->block_bytes = j->block_bytes;
  run_to_plan(&j->run, j->workload, &out->run);
}

void pd_measurement_from_scan(const pascal_scan_run *r, int heldout, pascal_store_measurement *m)
{
  memset(m, 0, sizeof *m);
  m->run.heldout = heldout;
  m->run.o = r->key.o;
  m->run.path_tma = r->key.path == PASCAL_PATH_TMA;
  m->run.d = r->key.d;
  m->run.m = r->key.m;
  m->run.N = r->N;
  m->run.W = r->W;
  m->run.repeat = r->has_repeat ? r->repeat : 0;
  m->fill_bytes = r->fill_bytes;
  m->kernel_ns = r->has_kernel_ns ? r->kernel_ns : 0;
}

void pd_measurement_from_gemm(const pascal_gemm_run *r, int heldout, pascal_store_measurement *m)
{
  memset(m, 0, sizeof *m);
  m->run.heldout = heldout;
  m->run.Mg = r->shape.Mg;
  m->run.Ng = r->shape.Ng;
  m->run.Kg = r->shape.Kg;
  m->run.repeat = r->has_repeat ? r->repeat : 0;
  m->fill_bytes = r->fill_bytes;
  m->kernel_ns = r->has_kernel_ns ? r->kernel_ns : 0;
}

pascal_status pd_measurement_append(const pascal_store_measurement *m,
                                    pascal_store_workload workload, pascal_calibration *cal,
                                    pascal_error *err)
{
  const pascal_store_run *r = &m->run;
  if (workload == PASCAL_STORE_GEMM) {
    if (r->Mg > UINT32_MAX || r->Ng > UINT32_MAX || r->Kg > UINT32_MAX)
      return pascal_error_set(err, PASCAL_ERANGE, "measurements", "GEMM shape beyond 2^32");
    pascal_gemm_run g = {{(uint32_t)r->Mg, (uint32_t)r->Ng, (uint32_t)r->Kg},
                         m->fill_bytes,
                         true,
                         r->repeat,
                         m->kernel_ns > 0,
                         m->kernel_ns};
    if (r->config.tile_m) { /* a configuration run: the bundle's "configurations" */
      const pascal_gemm_config_run c = {r->config, g};
      return pascal_calibration_append_config_run(cal, &c, err);
    }
    return r->heldout ? pascal_calibration_append_heldout_gemm(cal, &g, err)
                      : pascal_calibration_append_gemm(cal, &g, err);
  }
  if (r->N > UINT32_MAX || r->W > UINT32_MAX)
    return pascal_error_set(err, PASCAL_ERANGE, "measurements", "N or W beyond 2^32");
  pascal_scan_run s = {{r->o, r->path_tma ? PASCAL_PATH_TMA : PASCAL_PATH_SYNC, r->d, r->m},
                       (uint32_t)r->N,
                       (uint32_t)r->W,
                       m->fill_bytes,
                       true,
                       r->repeat,
                       m->kernel_ns > 0,
                       m->kernel_ns};
  return r->heldout ? pascal_calibration_append_heldout_scan(cal, &s, err)
                    : pascal_calibration_append_scan(cal, &s, err);
}
