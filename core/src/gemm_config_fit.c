/*
 * gemm_config_fit.c - the one parameter a GEMM's time across
 * configurations takes from measurement beyond the calibrated time: the
 * per-k-iteration overhead o of pascal/gemm_config.h "Time", fitted on the
 * calibration's timed runs of other configurations (bundle
 * "configurations"). Beyond the paper, which times the one tiling it
 * measures.
 *
 * o is what a k-iteration costs beyond its matrix work on the SM's pipes
 * (operand hand-off, barriers, loop issue: the same for every tile), and
 * it comes out of the calibrated iteration time, the rest of which the
 * stages overlap; so 0 <= o <= L - the calibration's compute per
 * iteration. The fit minimises sum_i log(T_i(o) / T_i)^2 over the runs,
 * T_i(o) the time pascal_gemm_time_config answers for run i's
 * configuration and shape with the model's predicted fills: the best of
 * 65 points spread evenly over that range, refined by golden-section
 * search between its neighbours. Runs of the calibration's own
 * configuration on whole tiles do not depend on o and only add a constant.
 */
#include <math.h>
#include <stdlib.h>

#include "model_internal.h"
#include "pascal/gemm_config.h"

#define GRID_POINTS  65
#define GOLDEN_STEPS 48

/* What a run's predicted time needs, computed once. */
typedef struct config_case {
  pascal_gemm_query q;
  pascal_gemm_config_answer ca;
  double fill_bytes; /* the model's prediction for the run */
  double T;          /* measured seconds */
} config_case;

static double sse_at(pascal_model *m, const config_case *cs, size_t n, double o)
{
  m->gemm_time.step_overhead_s = o;
  double sse = 0;
  for (size_t i = 0; i < n; i++) {
    pascal_time t;
    if (pascal_gemm_time_config(m, &cs[i].q, &cs[i].ca, cs[i].fill_bytes, cs[i].ca.anchor_fills, &t,
                                NULL))
      return INFINITY;
    double e = log(t.time_s / cs[i].T);
    sse += e * e;
  }
  return sse;
}

pascal_status pc_gemm_fit_step_overhead(pascal_model *m, const pascal_calibration *cal,
                                        pascal_error *err)
{
  m->gemm_time.step_overhead_s = 0;
  size_t n = cal->n_config_runs;
  if (!m->timed || n == 0 || m->workload != PASCAL_WORKLOAD_GEMM)
    return PASCAL_OK;
  config_case *cs = calloc(n, sizeof *cs);
  if (!cs)
    return pascal_error_set(err, PASCAL_ENOMEM, "configurations", "out of memory");
  pascal_status st = PASCAL_OK;
  for (size_t i = 0; i < n && !st; i++) {
    const pascal_gemm_config_run *r = &cal->config_runs[i];
    pascal_gemm_prediction p;
    cs[i].q = (pascal_gemm_query){.shape = r->run.shape, .config = r->config};
    cs[i].T = r->run.kernel_ns * 1e-9;
    st = pc_gemm_predict_config(m, &cs[i].q, &p, &cs[i].ca, err);
    cs[i].fill_bytes = p.fill_bytes;
  }
  if (st)
    goto done;
  const pascal_device *dev = &m->device;
  const pascal_gemm_params *g = &m->gemm;
  double compute =
      2.0 * g->tile_m * (double)g->tile_n * g->tile_k / (dev->peaks.tensor_flops / dev->sm_count);
  double hi = fmax(0, m->gemm_time.iteration_s - compute);
  size_t best = 0;
  double best_sse = INFINITY;
  for (size_t k = 0; k < GRID_POINTS; k++) {
    double e = sse_at(m, cs, n, hi * (double)k / (GRID_POINTS - 1));
    if (e < best_sse)
      best_sse = e, best = k;
  }
  double step = hi / (GRID_POINTS - 1);
  double a = best ? (best - 1) * step : 0, b = best + 1 < GRID_POINTS ? (best + 1) * step : hi;
  const double r = (sqrt(5.0) - 1) / 2;
  double x1 = b - r * (b - a), x2 = a + r * (b - a);
  double f1 = sse_at(m, cs, n, x1), f2 = sse_at(m, cs, n, x2);
  for (int k = 0; k < GOLDEN_STEPS; k++) {
    if (f1 <= f2)
      b = x2, x2 = x1, f2 = f1, x1 = b - r * (b - a), f1 = sse_at(m, cs, n, x1);
    else
      a = x1, x1 = x2, f1 = f2, x2 = a + r * (b - a), f2 = sse_at(m, cs, n, x2);
  }
  double o = f1 <= f2 ? x1 : x2, fo = fmin(f1, f2);
  m->gemm_time.step_overhead_s = fo <= best_sse ? o : best * step;
done:
  if (st)
    m->gemm_time.step_overhead_s = 0;
  free(cs);
  return st;
}
