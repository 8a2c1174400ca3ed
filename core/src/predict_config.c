/*
 * predict_config.c - a GEMM answer for any configuration a device can run
 * (pascal/gemm_config.h "Transfer"): the calibrated prediction (paper
 * section 4.5, App. C "GEMM instantiation"; predict_gemm.c) and time
 * (time_model.c) at the anchor, carried to the query's tile, element size,
 * stages and raster by the static reference of each raster (gemm_raster.c)
 * and by the rounds of co-resident CTAs of each configuration, timed on
 * the device's peaks like the terms of the paper's section "End-to-end
 * latency with TileSight". Beyond the paper, which answers the one tiling
 * it measured.
 */
#include <math.h>

#include "model_internal.h"
#include "pascal/gemm_config.h"

/* The multiple of `tile` nearest to v, at least one tile, at most the
 * largest multiple a uint32_t holds. */
static uint32_t nearest_multiple(uint32_t v, uint32_t tile)
{
  uint64_t n = ((uint64_t)v + tile / 2) / tile;
  uint64_t most = UINT32_MAX / tile;
  n = n < 1 ? 1 : n > most ? most : n;
  return (uint32_t)(n * tile);
}

static unsigned differences(const pascal_gemm_config *a, const pascal_gemm_config *b)
{
  return (a->tile_m != b->tile_m || a->tile_n != b->tile_n || a->tile_k != b->tile_k
              ? PASCAL_GEMM_TRANSFER_TILE
              : 0) |
         (a->elem_bytes != b->elem_bytes ? PASCAL_GEMM_TRANSFER_ELEM_BYTES : 0) |
         (a->stages != b->stages ? PASCAL_GEMM_TRANSFER_STAGES : 0) |
         (a->group_m != b->group_m ? PASCAL_GEMM_TRANSFER_GROUP_M : 0);
}

/* The configuration, its occupancy and its anchor (no prediction yet). */
static pascal_status resolve(const pascal_model *md, const pascal_gemm_query *q,
                             pascal_gemm_config_answer *ca, pascal_error *err)
{
  const pascal_gemm_params *g = pascal_model_gemm(md);
  const pascal_device *dev = pascal_model_device(md);
  uint32_t measured = g->resident_ctas / dev->sm_count;
  measured = measured ? measured : 1;
  pascal_gemm_config_of(g, &ca->calibrated);
  pascal_gemm_config_resolve(g, &q->config, &ca->config);
  ca->transferred = differences(&ca->config, &ca->calibrated);
  ca->smem_per_sm = pascal_gemm_smem_per_sm(dev);
  ca->static_fills = ca->anchor_static_fills = NAN;
  pascal_status st =
      pascal_gemm_ctas_per_sm(ca->smem_per_sm, &ca->config, measured, &ca->ctas_per_sm, err);
  if (st)
    return st;
  ca->occupancy = ca->smem_per_sm ? PASCAL_OCCUPANCY_RESOURCES : PASCAL_OCCUPANCY_ASSUMED;
  if (!ca->transferred) { /* the kernel measured: its own occupancy */
    ca->ctas_per_sm = measured;
    ca->occupancy = PASCAL_OCCUPANCY_MEASURED;
  }
  ca->anchor = (pascal_gemm_shape){nearest_multiple(q->shape.Mg, g->tile_m),
                                   nearest_multiple(q->shape.Ng, g->tile_n),
                                   nearest_multiple(q->shape.Kg, g->tile_k)};
  if (ca->anchor.Mg != q->shape.Mg || ca->anchor.Ng != q->shape.Ng || ca->anchor.Kg != q->shape.Kg)
    ca->transferred |= PASCAL_GEMM_TRANSFER_SHAPE;
  return PASCAL_OK;
}

pascal_status pc_gemm_predict_config(const pascal_model *md, const pascal_gemm_query *q,
                                     pascal_gemm_prediction *out, pascal_gemm_config_answer *ca,
                                     pascal_error *err)
{
  pascal_status st;
  if ((st = resolve(md, q, ca, err)))
    return st;
  const pascal_device *dev = pascal_model_device(md);
  pascal_gemm_prediction anchor;
  if ((st = pascal_model_predict_gemm(md, &ca->anchor, &anchor, err)))
    return st;
  ca->anchor_fills = anchor.fill_bytes;
  if (!ca->transferred) {
    *out = anchor;
    return PASCAL_OK;
  }
  pascal_gemm_params qp = pascal_gemm_params_of(&ca->config, ca->ctas_per_sm * dev->sm_count);
  pascal_gemm_prediction p;
  if ((st = pascal_gemm_geometry(&qp, &q->shape, &p, err)))
    return st;
  double capacity = (double)dev->capacity_blocks * dev->block_bytes;
  if ((st = pascal_gemm_static_fills(&q->shape, &ca->config, p.M, capacity, &ca->static_fills,
                                     err)) ||
      (st = pascal_gemm_static_fills(&ca->anchor, &ca->calibrated, anchor.M, capacity,
                                     &ca->anchor_static_fills, err)))
    return st;
  double v = anchor.fill_bytes * (ca->static_fills / ca->anchor_static_fills);
  p.fill_bytes = fmin(fmax(v, p.B0), p.Q);
  p.kappa = p.fill_bytes / p.B0;
  p.K = p.M * p.fill_bytes / p.Q;
  p.rho = p.K / p.M;
  p.why = anchor.why;
  p.extrapolated = anchor.extrapolated;
  p.expected = anchor.expected;
  p.transfers = anchor.transfers;
  *out = p;
  return PASCAL_OK;
}

/* The time of configuration `c` on `shape` with `fills` and c_sm CTAs per
 * SM, up to the anchor's factor (pascal/gemm_config.h "Time"): rounds of
 * c_sm co-resident CTAs per SM, each k-iteration of a round the largest of
 * its c_sm CTAs' compute and step overhead, L2 reads and share of the DRAM
 * fills on the peaks and of one CTA's latency over its stages. */
static void config_time(const pascal_device *dev, const pascal_gemm_config *c,
                        const pascal_gemm_shape *shape, uint32_t c_sm, double fills,
                        double overhead_s, double latency_s, pascal_time *out)
{
  const pascal_peaks *pk = &dev->peaks;
  double sm = dev->sm_count;
  uint64_t n_r = shape->Mg / c->tile_m, n_c = shape->Ng / c->tile_n, n_k = shape->Kg / c->tile_k;
  uint64_t tiles = n_r * n_c, batches = (tiles + c_sm - 1) / c_sm;
  double rounds = ceil((double)batches / sm);
  double flops = 2.0 * c->tile_m * (double)c->tile_n * c->tile_k;
  double bytes = (double)c->tile_k * ((double)c->tile_m + c->tile_n) * c->elem_bytes;
  double work = flops / (pk->tensor_flops / sm) + overhead_s; /* one CTA's, on the pipes */
  double compute = c_sm * work;
  double l2 = c_sm * bytes / (pk->l2_bytes_per_s / sm);
  double dram = c_sm * fills / ((double)tiles * n_k) / (pk->dram_bytes_per_s / sm);
  double lat = (work + latency_s) / c->stages;
  double step = fmax(fmax(compute, l2), fmax(dram, lat));
  pascal_bound bound = step == compute ? PASCAL_BOUND_COMPUTE
                       : step == l2    ? PASCAL_BOUND_L2
                       : step == dram  ? PASCAL_BOUND_DRAM
                                       : PASCAL_BOUND_LATENCY;
  uint64_t wave = (uint64_t)sm * c_sm;
  *out = (pascal_time){.time_s = n_k * step * rounds,
                       .bound = bound,
                       .rule = PASCAL_RULE_EXACT,
                       .ctas_per_sm = c_sm,
                       .full_waves = tiles / wave,
                       .tail_ctas = tiles % wave,
                       .step_s = step,
                       .in_flight_bytes_per_sm = (double)c_sm * c->stages * bytes,
                       .latency_s = latency_s};
}

pascal_status pascal_gemm_time_config(const pascal_model *md, const pascal_gemm_query *q,
                                      const pascal_gemm_config_answer *ca, double fill_bytes,
                                      double anchor_fill_bytes, pascal_time *out, pascal_error *err)
{
  pascal_status st;
  pascal_time anchor;
  if ((st = pascal_time_gemm(md, &ca->anchor, anchor_fill_bytes, &anchor, err)))
    return st;
  if (!ca->transferred) {
    *out = anchor;
    return PASCAL_OK;
  }
  const pascal_device *dev = pascal_model_device(md);
  const pascal_gemm_params *g = pascal_model_gemm(md);
  uint32_t c_cal = g->resident_ctas / dev->sm_count;
  /* a CTA's latency per k-iteration beyond its compute and step overhead,
   * from the calibrated time of a CTA alone (0 without one: the peaks see
   * no latency) */
  double flops = 2.0 * g->tile_m * (double)g->tile_n * g->tile_k;
  double o = md->timed ? md->gemm_time.step_overhead_s : 0;
  double latency = md->timed ? fmax(0, md->gemm_time.iteration_s - o -
                                           flops / (dev->peaks.tensor_flops / dev->sm_count))
                             : 0;
  pascal_time ta;
  config_time(dev, &ca->calibrated, &ca->anchor, c_cal ? c_cal : 1, anchor_fill_bytes, o, latency,
              &ta);
  config_time(dev, &ca->config, &q->shape, ca->ctas_per_sm, fill_bytes, o, latency, out);
  out->time_s = anchor.time_s * (out->time_s / ta.time_s);
  out->fixed_s = anchor.fixed_s;
  out->source = anchor.source;
  return PASCAL_OK;
}
