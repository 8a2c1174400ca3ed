/*
 * backend_sim.c - the "sim" measurement backend (calibrator/backend.h) over
 * the CPU sim device of core/simdev (pascal/simdev.h; docs/design.md §6).
 * Describing the device runs the probe's capacity scan on the sim (its C
 * stays the profile's). A scan job becomes one pascal_simdev_run_scan, a GEMM job one
 * pascal_simdev_run_gemm, an attention job one pascal_simdev_run_attention
 * (the default tiling, docs/attention.md), each with the job's repeat as the run seed, so a
 * repeat is a different but reproducible measurement. A GEMM job runs with
 * the tiling pascald fits it with: the default calibration tiling
 * (pascal_calibration_init), one resident CTA per SM, FP32 outputs, and a
 * k-step's compute the tile's FLOPs at the profile's matrix-instruction cost.
 * A configuration run (a GEMM job with a configuration, plan kind
 * gemm-configs) runs that configuration as `pascal sim gemm` does
 * (pascal_simdev_gemm_of_config: its tile, element size, stages and raster,
 * the CTAs per SM the profile's shared memory allows), seeded by its repeat.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../backend.h"
#include "pascal/calibration.h"
#include "pascal/simdev.h"

/* Bytes per output element: FP32 outputs, as the paper's GEMM binaries. */
#define SIM_GEMM_OUT_BYTES 4u

struct pascal_backend {
  pascal_simdev *dev; /* owned */
};

static pascal_status sim_open(const char *profile, pascal_backend **out, pascal_error *err)
{
  pascal_simdev_profile p;
  pascal_status st;
  if (profile) {
    st = pascal_simdev_profile_load(profile, &p, err);
  } else {
    pascal_simdev_profile_default(&p);
    st = pascal_simdev_profile_validate(&p, err);
  }
  if (st != PASCAL_OK)
    return st;
  pascal_backend *b = calloc(1, sizeof *b);
  if (!b)
    return pascal_error_set(err, PASCAL_ENOMEM, "", "out of memory opening the sim device");
  st = pascal_simdev_new(&p, &b->dev, err);
  if (st != PASCAL_OK) {
    free(b);
    return st;
  }
  *out = b;
  return PASCAL_OK;
}

/* The capacity scan of the probe (pascal/device_data.h) on the sim: a sync
 * one-CTA-per-SM open scan of PASCAL_CAPACITY_SCAN_WAVES waves at each size,
 * fill bytes over scanned bytes. The sim is deterministic, so one run per
 * size is the median of any number. */
static pascal_status sim_capacity_scan(pascal_backend *b, pascal_capacity_probe *out,
                                       pascal_error *err)
{
  const pascal_simdev_profile *p = pascal_simdev_profile_of(b->dev);
  uint64_t sizes[PASCAL_CAPACITY_SCAN_SIZES];
  pascal_status st = pascal_capacity_scan_sizes(p->l2_bytes / p->block_bytes, sizes, err);
  memset(out, 0, sizeof *out);
  out->waves = PASCAL_CAPACITY_SCAN_WAVES;
  for (size_t i = 0; i < PASCAL_CAPACITY_SCAN_SIZES && !st; i++) {
    pascal_simdev_scan scan = {.o = 1, .N = sizes[i], .W = PASCAL_CAPACITY_SCAN_WAVES};
    pascal_simdev_stats stats;
    st = pascal_simdev_run_scan(b->dev, &scan, &stats, NULL, err);
    out->size_blocks[i] = sizes[i];
    out->fill_ratio[i] = stats.fill_bytes / ((double)sizes[i] * p->block_bytes);
    out->n = i + 1;
  }
  return st;
}

static pascal_status sim_describe(pascal_backend *b, uint32_t known_capacity,
                                  pascal_backend_device *out, pascal_error *err)
{
  (void)known_capacity; /* the sim's C is its profile's */
  const pascal_simdev_profile *p = pascal_simdev_profile_of(b->dev);
  pascal_backend_device d;
  memset(&d, 0, sizeof d);
  snprintf(d.name, sizeof d.name, "%s", p->name);
  snprintf(d.arch, sizeof d.arch, "%s", p->arch);
  d.sm_count = p->sm_count;
  d.capacity_blocks = p->capacity_blocks;
  d.block_bytes = p->block_bytes;
  d.l2_bytes = p->l2_bytes;
  d.smem_per_sm = p->smem_per_sm;
  snprintf(d.cuda_name, sizeof d.cuda_name, "%s", p->cuda_name);
  d.cc_major = p->cc_major;
  d.cc_minor = p->cc_minor;
  d.has_peaks = pascal_simdev_profile_has_peaks(p);
  d.peaks = p->peaks;
  pascal_status st = sim_capacity_scan(b, &d.capacity_probe, err);
  if (st != PASCAL_OK)
    return st;
  d.has_capacity_probe = 1;
  *out = d;
  return PASCAL_OK;
}

static pascal_status sim_scan(pascal_backend *b, const pascal_backend_job *job,
                              pascal_simdev_stats *st, pascal_error *err)
{
  const pascal_plan_run *r = &job->run;
  pascal_simdev_scan scan = {.o = r->key.o,
                             .path_tma = r->key.path == PASCAL_PLAN_TMA,
                             .d = r->key.d,
                             .m = r->key.m,
                             .N = r->N,
                             .W = r->W,
                             .seed = r->repeat};
  return pascal_simdev_run_scan(b->dev, &scan, st, NULL, err);
}

static pascal_status sim_gemm(pascal_backend *b, const pascal_backend_job *job,
                              pascal_simdev_stats *st, pascal_error *err)
{
  const pascal_plan_shape *s = &job->run.shape;
  if (s->Mg > UINT32_MAX || s->Ng > UINT32_MAX || s->Kg > UINT32_MAX)
    return pascal_error_set(err, PASCAL_ERANGE, "Mg", "GEMM extents must be below 2^32");
  if (job->gemm.impl != PASCAL_GEMM_IMPL_OWN)
    return pascal_error_set(err, PASCAL_EINVAL, "impl",
                            "the sim device runs the project's GEMM kernel only (impl \"own\")");
  pascal_simdev_gemm g;
  if (job->run.config.tile_m) {
    const pascal_gemm_shape shape = {(uint32_t)s->Mg, (uint32_t)s->Ng, (uint32_t)s->Kg};
    pascal_status st_c = pascal_simdev_gemm_of_config(pascal_simdev_profile_of(b->dev), &shape,
                                                      &job->run.config, job->run.repeat, &g, err);
    return st_c ? st_c : pascal_simdev_run_gemm(b->dev, &g, st, err);
  }
  pascal_calibration cal;
  pascal_calibration_init(&cal, PASCAL_WORKLOAD_GEMM);
  g = (pascal_simdev_gemm){.shape = {(uint32_t)s->Mg, (uint32_t)s->Ng, (uint32_t)s->Kg},
                           .tiling = cal.gemm,
                           .m = pascal_simdev_gemm_step_m(&cal.gemm),
                           .out_elem_bytes = SIM_GEMM_OUT_BYTES,
                           .seed = job->run.repeat};
  g.tiling.resident_ctas = pascal_simdev_profile_of(b->dev)->sm_count;
  return pascal_simdev_run_gemm(b->dev, &g, st, err);
}

/* An attention plan's run (pascal/attention.h): W M CTAs of the default
 * tiling, as W query tiles of each of M heads sharing one K/V head of N
 * steps, at the run's occupancy and depth. */
static pascal_status sim_attention(pascal_backend *b, const pascal_backend_job *job,
                                   pascal_simdev_stats *st, pascal_error *err)
{
  const pascal_plan_run *r = &job->run;
  const pascal_attention_params a = PASCAL_ATTENTION_DEFAULT;
  const uint32_t M = pascal_simdev_profile_of(b->dev)->sm_count * r->key.o;
  if (pascal_attention_step_bytes(&a) != job->block_bytes)
    return pascal_error_set(err, PASCAL_EINVAL, "block_bytes",
                            "an attention run's K/V step (%.0f bytes) must be the block (%u)",
                            pascal_attention_step_bytes(&a), job->block_bytes);
  if (r->W * a.block_q > INT32_MAX || r->N * a.block_kv > INT32_MAX || M > 65536)
    return pascal_error_set(err, PASCAL_ERANGE, "N", "the run's sequences exceed 2^31 rows");
  pascal_simdev_attention run = {.shape = {.seq_q = (uint32_t)(r->W * a.block_q),
                                           .seq_kv = (uint32_t)(r->N * a.block_kv),
                                           .heads = M,
                                           .kv_heads = 1,
                                           .head_dim = a.head_dim,
                                           .block_q = a.block_q,
                                           .block_kv = a.block_kv,
                                           .stages = r->key.d,
                                           .elem_bytes = a.elem_bytes},
                                 .o = r->key.o,
                                 .seed = r->repeat};
  return pascal_simdev_run_attention(b->dev, &run, st, err);
}

static pascal_status sim_run(pascal_backend *b, const pascal_backend_job *job,
                             pascal_backend_result *out, pascal_error *err)
{
  const pascal_simdev_profile *p = pascal_simdev_profile_of(b->dev);
  if (job->block_bytes != p->block_bytes)
    return pascal_error_set(err, PASCAL_EINVAL, "block_bytes",
                            "job block_bytes %u differs from the sim profile's %u",
                            job->block_bytes, p->block_bytes);
  pascal_simdev_stats st;
  pascal_status s;
  switch (job->run.workload) {
  case PASCAL_PLAN_GEMM: s = sim_gemm(b, job, &st, err); break;
  case PASCAL_PLAN_ATTENTION: s = sim_attention(b, job, &st, err); break;
  default: s = sim_scan(b, job, &st, err); break;
  }
  if (s != PASCAL_OK)
    return s;
  if (!(st.fill_bytes > 0.0) || !(st.kernel_ns > 0.0))
    return pascal_error_set(err, PASCAL_ERANGE, "fill_bytes",
                            "sim run produced fill_bytes %g, kernel_ns %g", st.fill_bytes,
                            st.kernel_ns);
  out->fill_bytes = st.fill_bytes;
  out->kernel_ns = st.kernel_ns;
  return PASCAL_OK;
}

static pascal_status sim_run_static(pascal_backend *b, const pascal_backend_static *run,
                                    pascal_backend_result *out, pascal_error *err)
{
  pascal_simdev_static in = {.N = run->N,
                             .M = run->M,
                             .phases = run->phases,
                             .H = run->H,
                             .C = run->capacity_blocks,
                             .seed = 0};
  pascal_simdev_stats st;
  pascal_status s = pascal_simdev_run_static(b->dev, &in, &st, err);
  if (s != PASCAL_OK)
    return s;
  /* The sim counts blocks; a block here is run->block_bytes long. */
  out->fill_bytes = (double)st.fills * run->block_bytes;
  out->kernel_ns = st.kernel_ns;
  return PASCAL_OK;
}

static void sim_close(pascal_backend *b)
{
  if (!b)
    return;
  pascal_simdev_free(b->dev);
  free(b);
}

const pascal_backend_ops pascal_backend_sim_ops = {
    .name = "sim",
    .open = sim_open,
    .describe = sim_describe,
    .run = sim_run,
    .run_static = sim_run_static,
    .close = sim_close,
};
