/*
 * time_model.c - the time of an answer (pascal/time_model.h,
 * docs/time-model.md): the calibrated time fitted by time_fit.c, read for a
 * scan through K's own transfer (pc_scan_transfer of predict_scan.c) and
 * for a GEMM through its waves, tails and CTAs per SM, with the fills as a
 * DRAM roofline; the bound the fit found; and the pipeline on measured
 * peaks (pascal/predict_time.h, the paper's protocol, section "End-to-end
 * latency with TileSight") where no calibrated time exists.
 */
#include <math.h>

#include "model_internal.h"
#include "pascal/predict_time.h"

const char *pascal_time_source_name(pascal_time_source source)
{
  switch (source) {
  case PASCAL_TIME_CALIBRATED: return "calibrated";
  case PASCAL_TIME_PEAKS: return "peaks";
  }
  return "unknown";
}

bool pascal_model_time_calibrated(const pascal_model *model)
{
  return model->timed;
}

pascal_status pascal_model_time_gemm(const pascal_model *model, pascal_gemm_time_fit *out,
                                     pascal_error *err)
{
  if (model->workload != PASCAL_WORKLOAD_GEMM)
    return pascal_error_set(err, PASCAL_EINVAL, "workload", "this is a scan model, not a GEMM");
  if (!model->timed)
    return pascal_error_set(err, PASCAL_ENOTFOUND, "time", "the model has no calibrated time");
  *out = model->gemm_time;
  return PASCAL_OK;
}

pascal_status pascal_model_time_scan_ref(const pascal_model *model, size_t index, double *cost_s,
                                         double *fixed_s, pascal_error *err)
{
  if (!pascal_workload_scans(model->workload))
    return pascal_error_set(err, PASCAL_EINVAL, "workload", "this is a GEMM model, not a scan");
  if (!model->timed)
    return pascal_error_set(err, PASCAL_ENOTFOUND, "time", "the model has no calibrated time");
  if (index >= model->n_refs)
    return pascal_error_set(err, PASCAL_ENOTFOUND, "index", "curve %zu does not exist (%zu curves)",
                            index, model->n_refs);
  *cost_s = exp(model->refs[index].log_cost);
  *fixed_s = model->refs[index].fixed;
  return PASCAL_OK;
}

/* The bound of a step of `step` seconds whose DRAM, L2 and tensor work at
 * the peak rates take the given times. */
static pascal_bound name_bound(double step, double dram, double l2, double tensor)
{
  pascal_bound b = PASCAL_BOUND_DRAM;
  double t = dram;
  if (l2 > t) {
    b = PASCAL_BOUND_L2;
    t = l2;
  }
  if (tensor > t) {
    b = PASCAL_BOUND_COMPUTE;
    t = tensor;
  }
  return t >= PASCAL_TIME_BOUND_SHARE * step ? b : PASCAL_BOUND_LATENCY;
}

static pascal_status check_common(const pascal_model *model, double fill_bytes,
                                  const pascal_peaks **peaks, pascal_error *err)
{
  const pascal_device *dev = &model->device;
  if (!dev->has_peaks)
    return pascal_error_set(err, PASCAL_ENOTFOUND, "peaks", "device '%s' has no measured peaks",
                            dev->name);
  if (!isfinite(fill_bytes) || fill_bytes < 0)
    return pascal_error_set(err, PASCAL_EINVAL, "fill_bytes", "must be finite and >= 0");
  *peaks = &dev->peaks;
  return PASCAL_OK;
}

static pascal_status check_waves(double W, pascal_error *err)
{
  if (!(W >= 1 && W <= 1e12 && W == floor(W)))
    return pascal_error_set(err, PASCAL_EINVAL, "W",
                            "a horizon of %g is not a whole number of CTA waves", W);
  return PASCAL_OK;
}

/* The pipeline's answer in the terms of pascal_time. */
void pc_time_from_pipeline(const pascal_peaks *peaks, const pascal_latency *lat,
                           const pascal_pipeline_kernel *k, pascal_time *out)
{
  double step = fmax(fmax(lat->dram_iter_s, lat->l2_iter_s), lat->compute_iter_s);
  double in_flight = (double)k->tiles_per_sm * k->stages * k->l2_bytes_per_iter;
  *out = (pascal_time){.time_s = lat->time_s,
                       .bound = lat->bound,
                       .source = PASCAL_TIME_PEAKS,
                       .rule = PASCAL_RULE_EXACT,
                       .ctas_per_sm = k->tiles_per_sm,
                       .full_waves = lat->full_waves,
                       .tail_ctas = lat->tail_tiles,
                       .step_s = step,
                       .fixed_s = peaks->launch_s,
                       .in_flight_bytes_per_sm = in_flight,
                       .latency_s = step * k->stages};
}

/* The calibrated time of a scan; fill_bytes checked by the caller. */
static pascal_status scan_calibrated(const pascal_model *md, const pascal_peaks *peaks,
                                     const pascal_scan_key *key, uint32_t N, double W,
                                     double fill_bytes, pascal_time *out, pascal_error *err)
{
  static const pc_ref_value values[2] = {PC_VALUE_LOG_COST, PC_VALUE_FIXED};
  pascal_scan_explanation why[2];
  pascal_status st = pc_scan_transfer(md, key, N, NAN, values, 2, why, NULL, err);
  if (st)
    return st;
  double cost = exp(why[0].a);
  pascal_rule rule = why[0].rule;
  double fixed = why[1].a, rounds = W * (double)N, b = md->device.block_bytes;
  double M = (double)md->device.sm_count * key->o;
  double dram = fill_bytes / rounds / peaks->dram_bytes_per_s;
  double step = fmax(cost, dram);
  double in_flight = (double)key->o * (key->d > 1 ? key->d : 1) * b;
  *out =
      (pascal_time){.time_s = fixed + rounds * step,
                    .bound = name_bound(step, dram, M * b / peaks->l2_bytes_per_s,
                                        M * key->m * PASCAL_SCAN_MMA_FLOPS / peaks->tensor_flops),
                    .source = PASCAL_TIME_CALIBRATED,
                    .rule = rule,
                    .ctas_per_sm = key->o,
                    .full_waves = (uint64_t)W,
                    .tail_ctas = 0,
                    .step_s = step,
                    .fixed_s = fixed,
                    .in_flight_bytes_per_sm = in_flight,
                    /* Little's law: the SM moves o b per step */
                    .latency_s = in_flight / (key->o * b / step)};
  return PASCAL_OK;
}

pascal_status pascal_time_scan_from(const pascal_model *model, pascal_time_source source,
                                    const pascal_scan_key *key, uint32_t N, double W,
                                    double fill_bytes, pascal_time *out, pascal_error *err)
{
  const pascal_peaks *peaks = NULL; /* set by check_common */
  pascal_status st;
  if ((st = pc_scan_query_check(model, key, N, W, err)) ||
      (st = check_common(model, fill_bytes, &peaks, err)) || (st = check_waves(W, err)))
    return st;
  if (source == PASCAL_TIME_CALIBRATED) {
    if (!model->timed)
      return pascal_error_set(err, PASCAL_ENOTFOUND, "time", "the model has no calibrated time");
    return scan_calibrated(model, peaks, key, N, W, fill_bytes, out, err);
  }
  pascal_latency lat;
  pascal_pipeline_kernel k;
  if ((st = pascal_predict_time_scan(model, key, N, W, fill_bytes, &lat, &k, err)))
    return st;
  pc_time_from_pipeline(peaks, &lat, &k, out);
  return PASCAL_OK;
}

pascal_status pascal_time_scan(const pascal_model *model, const pascal_scan_key *key, uint32_t N,
                               double W, double fill_bytes, pascal_time *out, pascal_error *err)
{
  return pascal_time_scan_from(model, model->timed ? PASCAL_TIME_CALIBRATED : PASCAL_TIME_PEAKS,
                               key, N, W, fill_bytes, out, err);
}

/* One k-iteration of a wave of `ctas` CTAs whose busiest SM runs c: the
 * fitted time, and the DRAM roofline of the wave's fills. */
static double wave_iteration(const pascal_gemm_time_fit *f, uint32_t c, double ctas,
                             double fill_per_iter, const pascal_peaks *peaks)
{
  return fmax(fmax(f->iteration_s, c * f->sm_iteration_s),
              ctas * fill_per_iter / peaks->dram_bytes_per_s);
}

static pascal_status gemm_calibrated(const pascal_model *md, const pascal_peaks *peaks,
                                     const pascal_gemm_prediction *g, double fill_bytes,
                                     pascal_time *out)
{
  const pascal_gemm_time_fit *f = &md->gemm_time;
  const pascal_gemm_params *p = &md->gemm;
  uint32_t sm = md->device.sm_count, c_tail;
  uint64_t tiles = (uint64_t)g->n_r * g->n_c, full, tail;
  pc_gemm_waves(tiles, sm, f->ctas_per_sm, &full, &tail, &c_tail);
  double fill_iter = fill_bytes / ((double)tiles * g->n_k);
  double slots = (double)sm * f->ctas_per_sm;
  double t_full = wave_iteration(f, f->ctas_per_sm, slots, fill_iter, peaks);
  double t_tail = tail ? wave_iteration(f, c_tail, (double)tail, fill_iter, peaks) : 0;
  /* the first wave names the bound: full if there is one, else the tail */
  uint32_t c1 = full ? f->ctas_per_sm : c_tail;
  double ctas1 = full ? slots : (double)tail, step = full ? t_full : t_tail;
  double bytes = (double)p->tile_k * ((double)p->tile_m + p->tile_n) * p->elem_bytes;
  double flops = 2.0 * p->tile_m * (double)p->tile_n * p->tile_k;
  double in_flight = c1 * bytes;
  *out = (pascal_time){.time_s = f->fixed_s + g->n_k * ((double)full * t_full + t_tail),
                       .bound = name_bound(step, ctas1 * fill_iter / peaks->dram_bytes_per_s,
                                           ctas1 * bytes / peaks->l2_bytes_per_s,
                                           c1 * flops / (peaks->tensor_flops / sm)),
                       .source = PASCAL_TIME_CALIBRATED,
                       .rule = PASCAL_RULE_EXACT,
                       .ctas_per_sm = c1,
                       .full_waves = full,
                       .tail_ctas = tail,
                       .step_s = step,
                       .fixed_s = f->fixed_s,
                       .in_flight_bytes_per_sm = in_flight,
                       /* Little's law: the SM moves c1 iterations' operands per step */
                       .latency_s = in_flight / (c1 * bytes / step)};
  return PASCAL_OK;
}

pascal_status pascal_time_gemm_from(const pascal_model *model, pascal_time_source source,
                                    const pascal_gemm_shape *shape, double fill_bytes,
                                    pascal_time *out, pascal_error *err)
{
  const pascal_peaks *peaks = NULL; /* set by check_common */
  pascal_gemm_prediction g;
  pascal_status st;
  if (model->workload != PASCAL_WORKLOAD_GEMM)
    return pascal_error_set(err, PASCAL_EINVAL, "workload",
                            "this calibration is for a scan, not GEMM");
  if ((st = pascal_gemm_geometry(&model->gemm, shape, &g, err)) ||
      (st = check_common(model, fill_bytes, &peaks, err)))
    return st;
  if (source == PASCAL_TIME_CALIBRATED) {
    if (!model->timed)
      return pascal_error_set(err, PASCAL_ENOTFOUND, "time", "the model has no calibrated time");
    return gemm_calibrated(model, peaks, &g, fill_bytes, out);
  }
  pascal_latency lat;
  pascal_pipeline_kernel k;
  if ((st = pascal_predict_time_gemm(model, shape, fill_bytes, &lat, &k, err)))
    return st;
  pc_time_from_pipeline(peaks, &lat, &k, out);
  return PASCAL_OK;
}

pascal_status pascal_time_gemm(const pascal_model *model, const pascal_gemm_shape *shape,
                               double fill_bytes, pascal_time *out, pascal_error *err)
{
  return pascal_time_gemm_from(model, model->timed ? PASCAL_TIME_CALIBRATED : PASCAL_TIME_PEAKS,
                               shape, fill_bytes, out, err);
}
