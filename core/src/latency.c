/*
 * latency.c - the pipeline and wave model that turns a kernel's DRAM fills
 * into time (paper "PASCAL: A Progress Divergence-Aware Shared-Cache Model",
 * section "End-to-end latency with TileSight"; pascal/latency.h).
 *
 * The arithmetic reproduces TileSight's own (tile-ai/TileSight,
 * tilesight/modeling/_pipeline/pipeline_overlap.py: per-SM iteration times,
 * the pipelined tile latency with and without several resident CTAs;
 * wave_model.py: head penalty, full waves and the re-timed tail wave), read
 * to reproduce its equations, with every max-utilisation factor 1 and without
 * the shared-memory and L1.5 terms, for which no peak is measured here, and
 * without the doubled L2 traffic TileSight charges on A100/H100/B200 only.
 */
#include <math.h>
#include <stddef.h>

#include "pascal/latency.h"

const char *pascal_bound_name(pascal_bound bound)
{
  switch (bound) {
  case PASCAL_BOUND_DRAM: return "dram";
  case PASCAL_BOUND_L2: return "l2";
  case PASCAL_BOUND_COMPUTE: return "compute";
  case PASCAL_BOUND_LATENCY: return "latency";
  }
  return "unknown";
}

static int positive(double x)
{
  return isfinite(x) && x > 0;
}

pascal_status pascal_peaks_check(const pascal_peaks *p, pascal_error *err)
{
  if (!p)
    return pascal_error_set(err, PASCAL_EINVAL, "peaks", "peaks must not be NULL");
  if (!positive(p->dram_bytes_per_s))
    return pascal_error_set(err, PASCAL_EINVAL, "dram_bytes_per_s", "must be finite and > 0");
  if (!positive(p->l2_bytes_per_s))
    return pascal_error_set(err, PASCAL_EINVAL, "l2_bytes_per_s", "must be finite and > 0");
  if (!positive(p->tensor_flops))
    return pascal_error_set(err, PASCAL_EINVAL, "tensor_flops", "must be finite and > 0");
  if (!positive(p->sm_clock_hz))
    return pascal_error_set(err, PASCAL_EINVAL, "sm_clock_hz", "must be finite and > 0");
  if (!isfinite(p->launch_s) || p->launch_s < 0)
    return pascal_error_set(err, PASCAL_EINVAL, "launch_s", "must be finite and >= 0");
  return PASCAL_OK;
}

static pascal_status kernel_check(const pascal_pipeline_kernel *k, pascal_error *err)
{
  if (!k)
    return pascal_error_set(err, PASCAL_EINVAL, "kernel", "kernel must not be NULL");
  if (k->sm_count == 0)
    return pascal_error_set(err, PASCAL_EINVAL, "sm_count", "must be >= 1");
  if (k->tiles_per_sm == 0)
    return pascal_error_set(err, PASCAL_EINVAL, "tiles_per_sm", "must be >= 1");
  if (k->tiles == 0)
    return pascal_error_set(err, PASCAL_EINVAL, "tiles", "must be >= 1");
  if (k->iterations == 0)
    return pascal_error_set(err, PASCAL_EINVAL, "iterations", "must be >= 1");
  if (k->stages == 0)
    return pascal_error_set(err, PASCAL_EINVAL, "stages", "must be >= 1");
  const double *v[] = {&k->dram_bytes_per_iter, &k->l2_bytes_per_iter, &k->flops_per_iter,
                       &k->store_bytes};
  const char *names[] = {"dram_bytes_per_iter", "l2_bytes_per_iter", "flops_per_iter",
                         "store_bytes"};
  for (size_t i = 0; i < 4; i++)
    if (!isfinite(*v[i]) || *v[i] < 0)
      return pascal_error_set(err, PASCAL_EINVAL, names[i], "must be finite and >= 0");
  return PASCAL_OK;
}

/* Per-SM times of one iteration and of the store when `active` SMs share
 * DRAM and L2 (TileSight's _per_sm_iter_times / _per_sm_store_time). */
typedef struct sm_times {
  double dram, l2, mem, compute, store;
} sm_times;

static sm_times per_sm(const pascal_peaks *p, const pascal_pipeline_kernel *k, double active)
{
  sm_times t;
  t.dram = k->dram_bytes_per_iter / p->dram_bytes_per_s * active;
  t.l2 = k->l2_bytes_per_iter / p->l2_bytes_per_s * active;
  t.mem = fmax(t.dram, t.l2);
  t.compute = k->flops_per_iter / p->tensor_flops * k->sm_count;
  t.store = fmax(k->store_bytes / p->dram_bytes_per_s, k->store_bytes / p->l2_bytes_per_s) * active;
  return t;
}

/* One SM running `per_sm_tiles` CTAs (TileSight's
 * compute_pipeline_tile_latency[_with_occupancy]); writes the prologue. */
static double sm_latency(const pascal_pipeline_kernel *k, const sm_times *t, uint64_t per_sm_tiles,
                         double *prologue)
{
  double n = (double)k->iterations, s = (double)k->stages;
  if (per_sm_tiles <= 1) {
    if (k->stages <= 1) {
      *prologue = 0;
      return n * (t->mem + t->compute) + t->store;
    }
    double depth = s - 1;
    *prologue = depth * t->mem;
    return *prologue + fmax(n - depth, 0) * fmax(t->mem, t->compute) + depth * t->compute +
           t->store;
  }
  double tps = (double)per_sm_tiles, depth = s * tps - 1, total = n * tps;
  double fill = fmin(depth, total);
  *prologue = fill * t->mem;
  return *prologue + fmax(total - depth, 0) * fmax(t->mem, t->compute) + fill * t->compute +
         tps * t->store;
}

pascal_status pascal_latency_time(const pascal_peaks *p, const pascal_pipeline_kernel *k,
                                  pascal_latency *out, pascal_error *err)
{
  pascal_status st = pascal_peaks_check(p, err);
  if (st != PASCAL_OK || (st = kernel_check(k, err)) != PASCAL_OK)
    return st;
  if (!out)
    return pascal_error_set(err, PASCAL_EINVAL, "out", "out must not be NULL");
  uint64_t sm = k->sm_count, per_wave = sm * (uint64_t)k->tiles_per_sm;
  uint64_t full = k->tiles / per_wave, tail = k->tiles % per_wave;
  sm_times ft = per_sm(p, k, (double)sm);
  double prologue = 0, head = 1.0;
  double wave = sm_latency(k, &ft, k->tiles_per_sm, &prologue);
  if (prologue > 0)
    head = 1.0 + 0.1 * prologue / fmax(wave, 1e-30);
  double total = full >= 1 ? wave * head + (double)(full - 1) * wave : 0.0;
  if (tail > 0) {
    uint64_t active = tail <= sm ? tail : sm;
    uint64_t tps = tail <= sm ? 1 : (tail + sm - 1) / sm;
    if (tps > k->tiles_per_sm)
      tps = k->tiles_per_sm;
    sm_times tt = per_sm(p, k, (double)active);
    double tail_prologue;
    double tail_s = sm_latency(k, &tt, tps, &tail_prologue);
    total += full == 0 ? tail_s * head : tail_s;
  }
  out->waves_s = total;
  out->time_s = p->launch_s + total;
  out->sm_latency_s = wave;
  out->dram_iter_s = ft.dram;
  out->l2_iter_s = ft.l2;
  out->compute_iter_s = ft.compute;
  out->prologue_s = prologue;
  out->head_penalty = head;
  out->full_waves = full;
  out->tail_tiles = tail;
  /* the steady state decides, unless filling and draining the pipeline or the
     launch take longer than it does */
  double iters = (double)k->iterations * (double)k->tiles_per_sm;
  double depth = (double)k->stages * (double)k->tiles_per_sm - 1;
  double steady = fmax(iters - depth, 0) * fmax(ft.mem, ft.compute);
  if (p->launch_s > total || steady < wave - steady)
    out->bound = PASCAL_BOUND_LATENCY;
  else if (ft.compute > ft.mem)
    out->bound = PASCAL_BOUND_COMPUTE;
  else
    out->bound = ft.dram >= ft.l2 ? PASCAL_BOUND_DRAM : PASCAL_BOUND_L2;
  return PASCAL_OK;
}

pascal_status pascal_latency_gemm(uint64_t Mg, uint64_t Ng, uint64_t Kg, uint32_t tile_m,
                                  uint32_t tile_n, uint32_t tile_k, uint32_t elem_bytes,
                                  uint32_t sm_count, uint32_t tiles_per_sm, uint32_t stages,
                                  double fill_bytes, pascal_pipeline_kernel *out, pascal_error *err)
{
  if (!out)
    return pascal_error_set(err, PASCAL_EINVAL, "out", "out must not be NULL");
  if (tile_m == 0 || tile_n == 0 || tile_k == 0 || elem_bytes == 0)
    return pascal_error_set(err, PASCAL_EINVAL, "tile", "tile sizes and elem_bytes must be >= 1");
  if (Mg == 0 || Mg % tile_m)
    return pascal_error_set(err, PASCAL_EINVAL, "Mg", "must be a positive multiple of %u", tile_m);
  if (Ng == 0 || Ng % tile_n)
    return pascal_error_set(err, PASCAL_EINVAL, "Ng", "must be a positive multiple of %u", tile_n);
  if (Kg == 0 || Kg % tile_k)
    return pascal_error_set(err, PASCAL_EINVAL, "Kg", "must be a positive multiple of %u", tile_k);
  if (!isfinite(fill_bytes) || fill_bytes < 0)
    return pascal_error_set(err, PASCAL_EINVAL, "fill_bytes", "must be finite and >= 0");
  pascal_pipeline_kernel k;
  k.sm_count = sm_count;
  k.tiles_per_sm = tiles_per_sm;
  k.tiles = (Mg / tile_m) * (Ng / tile_n);
  k.iterations = Kg / tile_k;
  k.stages = stages;
  k.dram_bytes_per_iter = fill_bytes / ((double)k.tiles * (double)k.iterations);
  k.l2_bytes_per_iter = (double)tile_k * ((double)tile_m + tile_n) * elem_bytes;
  k.flops_per_iter = 2.0 * tile_m * (double)tile_n * tile_k;
  k.store_bytes = (double)tile_m * tile_n * elem_bytes;
  pascal_status st = kernel_check(&k, err);
  if (st == PASCAL_OK)
    *out = k;
  return st;
}

pascal_status pascal_latency_scan(uint32_t sm_count, uint32_t o, uint32_t d, uint32_t m, uint64_t N,
                                  uint64_t W, uint64_t block_bytes, double flops_per_mma,
                                  double fill_bytes, pascal_pipeline_kernel *out, pascal_error *err)
{
  if (!out)
    return pascal_error_set(err, PASCAL_EINVAL, "out", "out must not be NULL");
  if (o == 0)
    return pascal_error_set(err, PASCAL_EINVAL, "o", "must be >= 1");
  if (W == 0)
    return pascal_error_set(err, PASCAL_EINVAL, "W", "must be >= 1");
  if (block_bytes == 0)
    return pascal_error_set(err, PASCAL_EINVAL, "block_bytes", "must be >= 1");
  if (!isfinite(flops_per_mma) || flops_per_mma < 0)
    return pascal_error_set(err, PASCAL_EINVAL, "flops_per_mma", "must be finite and >= 0");
  if (!isfinite(fill_bytes) || fill_bytes < 0)
    return pascal_error_set(err, PASCAL_EINVAL, "fill_bytes", "must be finite and >= 0");
  pascal_pipeline_kernel k;
  k.sm_count = sm_count;
  k.tiles_per_sm = o;
  k.tiles = W * (uint64_t)sm_count * o;
  k.iterations = N;
  k.stages = d > 1 ? d : 1;
  k.dram_bytes_per_iter = k.tiles && N ? fill_bytes / ((double)k.tiles * (double)N) : 0;
  k.l2_bytes_per_iter = (double)block_bytes;
  k.flops_per_iter = (double)m * flops_per_mma;
  k.store_bytes = 0;
  pascal_status st = kernel_check(&k, err);
  if (st == PASCAL_OK)
    *out = k;
  return st;
}
