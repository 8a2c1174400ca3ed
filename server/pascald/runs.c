/* runs.c - conversions between pascald's run structs (runs.h). */
#include "runs.h"

#include <string.h>

#include "reply.h"

void pd_run_from_plan(const pascal_plan_run *r, int heldout, pascal_store_run *out) {
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
}

void pd_run_to_plan(const pascal_store_run *r, pascal_store_workload workload,
                    pascal_plan_run *out) {
  memset(out, 0, sizeof *out);
  out->workload = workload == PASCAL_STORE_GEMM ? PASCAL_PLAN_GEMM : PASCAL_PLAN_SCAN;
  out->key.o = r->o;
  out->key.path = r->path_tma ? PASCAL_PLAN_TMA : PASCAL_PLAN_SYNC;
  out->key.d = r->d;
  out->key.m = r->m;
  out->N = r->N;
  out->W = r->W;
  out->shape.Mg = r->Mg;
  out->shape.Ng = r->Ng;
  out->shape.Kg = r->Kg;
  out->repeat = r->repeat;
}

void pd_job_to_codec(const pascal_store_job *j, unsigned lease_seconds, pascal_codec_job *out) {
  out->id = j->id;
  out->calibration = j->calibration;
  pd_rfc3339(j->lease_expires, out->lease_expires_at, sizeof out->lease_expires_at);
  out->lease_seconds = lease_seconds;
  out->attempt = j->attempts;
  out->block_bytes = j->block_bytes;
  pd_run_to_plan(&j->run, j->workload, &out->run);
}
