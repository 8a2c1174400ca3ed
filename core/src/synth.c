/*
 * synth.c - synthetic calibrations from the documented response laws of
 * pascal/synth.h (issue 3 item 8): smooth within an execution class of
 * section 4.3, with seeded log-normal measurement noise, kept within the
 * physically possible range of each run (pascal/plausible.h).
 */
#include "pascal/synth.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "pascal/plausible.h"
#include "pascal/predict.h"

/* Law parameters by name, with their domains. */
typedef struct law_param {
  const char *name;
  size_t offset;
  bool positive; /* > 0 (scales); otherwise >= 0 (gains, noise) */
} law_param;

static const law_param law_params[] = {
    {"amp", offsetof(pascal_synth_law, amp), false},
    {"class0", offsetof(pascal_synth_law, class_gain[0]), false},
    {"class1", offsetof(pascal_synth_law, class_gain[1]), false},
    {"class2", offsetof(pascal_synth_law, class_gain[2]), false},
    {"depth_gain", offsetof(pascal_synth_law, depth_gain), false},
    {"occ_exp", offsetof(pascal_synth_law, occ_exp), false},
    {"m_scale", offsetof(pascal_synth_law, m_scale), true},
    {"size_exp", offsetof(pascal_synth_law, size_exp), false},
    {"w_half", offsetof(pascal_synth_law, w_half), true},
    {"sync_gain", offsetof(pascal_synth_law, sync_gain), false},
    {"gemm_amp", offsetof(pascal_synth_law, gemm_amp), false},
    {"nk_half", offsetof(pascal_synth_law, nk_half), true},
    {"grid_half", offsetof(pascal_synth_law, grid_half), true},
    {"noise", offsetof(pascal_synth_law, noise), false},
};
#define N_LAW_PARAMS (sizeof law_params / sizeof law_params[0])

static double *param_slot(pascal_synth_law *law, const law_param *p)
{
  return (double *)((char *)law + p->offset);
}

static double param_value(const pascal_synth_law *law, const law_param *p)
{
  return *(const double *)((const char *)law + p->offset);
}

static bool param_ok(const law_param *p, double v)
{
  return isfinite(v) && (p->positive ? v > 0 : v >= 0);
}

void pascal_synth_law_default(pascal_workload workload, pascal_synth_law *law)
{
  memset(law, 0, sizeof *law);
  law->workload = workload;
  snprintf(law->device.name, sizeof law->device.name, "synthetic-gb10");
  snprintf(law->device.arch, sizeof law->device.arch, "sim");
  law->device.sm_count = 48;
  law->device.capacity_blocks = 1280;
  law->device.block_bytes = 16384;
  law->gemm = (pascal_gemm_params){.tile_m = 128,
                                   .tile_n = 128,
                                   .tile_k = 64,
                                   .elem_bytes = 2,
                                   .resident_ctas = 48,
                                   .stages = 1,
                                   .group_m = 1};
  law->amp = 1.5;
  law->class_gain[0] = 1.0;
  law->class_gain[1] = 0.4;
  law->class_gain[2] = 0.7;
  law->depth_gain = 0.5;
  law->occ_exp = 1.0;
  law->m_scale = 12;
  law->size_exp = 1.0;
  law->w_half = 8;
  law->sync_gain = 0.2;
  law->gemm_amp = 1.0;
  law->nk_half = 32;
  law->grid_half = 64;
  law->noise = 0.02;
  law->seed = 1;
}

pascal_status pascal_synth_law_set(pascal_synth_law *law, const char *name, double value,
                                   pascal_error *err)
{
  if (name && strcmp(name, "seed") == 0) {
    if (!(value >= 0 && value <= 9007199254740992.0) || value != floor(value))
      return pascal_error_set(err, PASCAL_EINVAL, "seed", "seed must be an integer in [0, 2^53]");
    law->seed = (uint64_t)value;
    return PASCAL_OK;
  }
  for (size_t i = 0; name && i < N_LAW_PARAMS; i++) {
    if (strcmp(name, law_params[i].name) != 0)
      continue;
    if (!param_ok(&law_params[i], value))
      return pascal_error_set(err, PASCAL_EINVAL, name, "%s must be finite and %s (got %g)", name,
                              law_params[i].positive ? "> 0" : ">= 0", value);
    *param_slot(law, &law_params[i]) = value;
    return PASCAL_OK;
  }
  return pascal_error_set(err, PASCAL_EINVAL, name ? name : "",
                          "unknown law parameter (known: amp, class0, class1, class2, depth_gain, "
                          "occ_exp, m_scale, size_exp, w_half, sync_gain, gemm_amp, nk_half, "
                          "grid_half, noise, seed)");
}

static pascal_status check_law(const pascal_synth_law *law, pascal_error *err)
{
  for (size_t i = 0; i < N_LAW_PARAMS; i++)
    if (!param_ok(&law_params[i], param_value(law, &law_params[i])))
      return pascal_error_set(err, PASCAL_EINVAL, law_params[i].name, "%s must be finite and %s",
                              law_params[i].name, law_params[i].positive ? "> 0" : ">= 0");
  return PASCAL_OK;
}

static const pascal_scan_key default_keys[] = {
#define FAMILY(o, p, d)                                                                            \
  {o, p, d, 0}, {o, p, d, 1}, {o, p, d, 2}, {o, p, d, 3}, {o, p, d, 5}, {o, p, d, 8},              \
      {o, p, d, 9}, {o, p, d, 14},                                                                 \
  {                                                                                                \
    o, p, d, 16                                                                                    \
  }
    FAMILY(1, PASCAL_PATH_SYNC, 0), FAMILY(2, PASCAL_PATH_SYNC, 0), FAMILY(1, PASCAL_PATH_TMA, 1),
    FAMILY(1, PASCAL_PATH_TMA, 2),  FAMILY(1, PASCAL_PATH_TMA, 4),  FAMILY(2, PASCAL_PATH_TMA, 2),
    FAMILY(2, PASCAL_PATH_TMA, 4),
#undef FAMILY
};
static const uint32_t default_sizes[] = {2048, 3072, 5120};
static const uint32_t default_horizons[] = {1, 4, 16, 64};
static const pascal_gemm_shape default_shapes[] = {
#define ROW(mg, kg)                                                                                \
  {mg, 256, kg}, {mg, 512, kg}, {mg, 1024, kg}, {mg, 2048, kg},                                    \
  {                                                                                                \
    mg, 4096, kg                                                                                   \
  }
#define SHAPE(mg) ROW(mg, 1024), ROW(mg, 2048), ROW(mg, 4096), ROW(mg, 8192)
    SHAPE(256), SHAPE(512), SHAPE(1024), SHAPE(2048), SHAPE(4096), SHAPE(8192),
#undef SHAPE
#undef ROW
};

void pascal_synth_plan_default(pascal_workload workload, pascal_synth_plan *plan)
{
  memset(plan, 0, sizeof *plan);
  plan->repeats = 1;
  if (workload == PASCAL_WORKLOAD_GEMM) {
    plan->shapes = default_shapes;
    plan->n_shapes = sizeof default_shapes / sizeof default_shapes[0];
  } else {
    plan->keys = default_keys;
    plan->n_keys = sizeof default_keys / sizeof default_keys[0];
    plan->sizes = default_sizes;
    plan->n_sizes = sizeof default_sizes / sizeof default_sizes[0];
    plan->horizons = default_horizons;
    plan->n_horizons = sizeof default_horizons / sizeof default_horizons[0];
  }
}

static pascal_status check_key(const pascal_scan_key *key, const char *prefix, pascal_error *err)
{
  char field[PASCAL_ERROR_FIELD_MAX + 8]; /* prefix + name; the error keeps what fits */
  const char *bad = NULL, *why = NULL;
  if (key->o == 0)
    bad = "o", why = "o must be at least 1";
  else if (key->path != PASCAL_PATH_SYNC && key->path != PASCAL_PATH_TMA)
    bad = "path", why = "path must be sync or tma";
  else if (key->path == PASCAL_PATH_SYNC && key->d != 0)
    bad = "d", why = "a sync key has d = 0";
  if (!bad)
    return PASCAL_OK;
  snprintf(field, sizeof field, "%s%s", prefix, bad);
  return pascal_error_set(err, PASCAL_EINVAL, field, "%s", why);
}

pascal_status pascal_synth_scan_k(const pascal_synth_law *law, const pascal_scan_key *key,
                                  uint32_t N, double W, double *out_k, pascal_error *err)
{
  pascal_status st;
  if ((st = check_law(law, err)) || (st = check_key(key, "", err)))
    return st;
  if (N == 0)
    return pascal_error_set(err, PASCAL_EINVAL, "N", "N must be at least 1");
  if (!isfinite(W) || W <= 0)
    return pascal_error_set(err, PASCAL_EINVAL, "W", "W must be positive and finite");
  unsigned chi = pascal_class_rule_apply(PASCAL_CLASS_MOD4_MIN2, key->m);
  double g_path = key->path == PASCAL_PATH_TMA ? 1.0 : law->sync_gain;
  double e = law->amp * g_path * (1 + law->depth_gain * key->d) * pow(key->o, law->occ_exp) *
             law->class_gain[chi] * exp(-(double)key->m / law->m_scale) *
             pow((double)law->device.capacity_blocks / N, law->size_exp) * W / (W + law->w_half);
  double M = (double)law->device.sm_count * key->o;
  *out_k = fmin(M, 1 + e);
  return PASCAL_OK;
}

pascal_status pascal_synth_gemm_k(const pascal_synth_law *law, const pascal_gemm_shape *shape,
                                  double *out_k, pascal_error *err)
{
  pascal_status st;
  pascal_gemm_prediction g;
  if ((st = check_law(law, err)) || (st = pascal_gemm_geometry(&law->gemm, shape, &g, err)))
    return st;
  double grid = (double)g.n_r * g.n_c;
  double kappa =
      1 + law->gemm_amp * g.n_k / (g.n_k + law->nk_half) * grid / (grid + law->grid_half);
  *out_k = fmin(g.M, g.K0 * kappa);
  return PASCAL_OK;
}

/* splitmix64: a tiny seeded generator; the state lives in the caller. */
static uint64_t splitmix64(uint64_t *state)
{
  uint64_t z = (*state += UINT64_C(0x9E3779B97F4A7C15));
  z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
  z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
  return z ^ (z >> 31);
}

#define TWO_PI 6.283185307179586476925286766559

/* Standard normal by Box-Muller from two uniforms in (0, 1]. */
static double normal(uint64_t *state)
{
  double u1 = ((splitmix64(state) >> 11) + 1) * 0x1.0p-53;
  double u2 = ((splitmix64(state) >> 11) + 1) * 0x1.0p-53;
  return sqrt(-2 * log(u1)) * cos(TWO_PI * u2);
}

/* A noisy measurement kept where a real one can lie (pascal/plausible.h):
 * no run fills less than its cold bytes nor more than M fills per
 * reference. */
static double within(double fill_bytes, double cold, double most)
{
  return fill_bytes < cold ? cold : fill_bytes > most ? most : fill_bytes;
}

static pascal_status check_plan_u32(const uint32_t *v, size_t n, const char *name,
                                    pascal_error *err)
{
  char field[PASCAL_ERROR_FIELD_MAX];
  if (n == 0)
    return pascal_error_set(err, PASCAL_EINVAL, name, "the plan needs at least one %s value", name);
  for (size_t i = 0; i < n; i++)
    if (v[i] == 0) {
      snprintf(field, sizeof field, "%s[%zu]", name, i);
      return pascal_error_set(err, PASCAL_EINVAL, field, "must be at least 1");
    }
  return PASCAL_OK;
}

static pascal_status synth_scan(const pascal_synth_law *law, const pascal_synth_plan *plan,
                                uint64_t *rng, pascal_calibration *cal, pascal_error *err)
{
  pascal_status st;
  char prefix[PASCAL_ERROR_FIELD_MAX];
  if (plan->n_keys == 0)
    return pascal_error_set(err, PASCAL_EINVAL, "keys", "the plan needs at least one key");
  for (size_t i = 0; i < plan->n_keys; i++) {
    snprintf(prefix, sizeof prefix, "keys[%zu].", i);
    if ((st = check_key(&plan->keys[i], prefix, err)))
      return st;
  }
  if ((st = check_plan_u32(plan->sizes, plan->n_sizes, "sizes", err)) ||
      (st = check_plan_u32(plan->horizons, plan->n_horizons, "horizons", err)))
    return st;
  for (size_t s = 0; s < plan->n_sizes; s++)
    for (size_t k = 0; k < plan->n_keys; k++)
      for (size_t h = 0; h < plan->n_horizons; h++)
        for (uint32_t r = 0; r < plan->repeats; r++) {
          pascal_scan_run run = {.key = plan->keys[k],
                                 .N = plan->sizes[s],
                                 .W = plan->horizons[h],
                                 .has_repeat = true,
                                 .repeat = r};
          double K, cold, most;
          if ((st = pascal_synth_scan_k(law, &run.key, run.N, run.W, &K, err)) ||
              (st = pascal_plausible_scan_fills(&law->device, &run.key, run.N, run.W, &cold, &most,
                                                err)))
            return st;
          run.fill_bytes = within(K * law->device.block_bytes * (double)run.W * run.N *
                                      exp(law->noise * normal(rng)),
                                  cold, most);
          if ((st = pascal_calibration_append_scan(cal, &run, err)))
            return st;
        }
  return PASCAL_OK;
}

static pascal_status synth_gemm(const pascal_synth_law *law, const pascal_synth_plan *plan,
                                uint64_t *rng, pascal_calibration *cal, pascal_error *err)
{
  pascal_status st;
  char field[PASCAL_ERROR_FIELD_MAX + 32];
  if (plan->n_shapes == 0)
    return pascal_error_set(err, PASCAL_EINVAL, "shapes", "the plan needs at least one shape");
  for (size_t i = 0; i < plan->n_shapes; i++) {
    pascal_gemm_prediction g;
    pascal_error shape_err;
    if (pascal_gemm_geometry(&law->gemm, &plan->shapes[i], &g, &shape_err)) {
      snprintf(field, sizeof field, "shapes[%zu].%s", i, shape_err.field);
      return pascal_error_set(err, shape_err.status, field, "%s", shape_err.message);
    }
  }
  for (size_t i = 0; i < plan->n_shapes; i++)
    for (uint32_t r = 0; r < plan->repeats; r++) {
      pascal_gemm_run run = {.shape = plan->shapes[i], .has_repeat = true, .repeat = r};
      pascal_gemm_prediction g;
      double K;
      if ((st = pascal_synth_gemm_k(law, &run.shape, &K, err)) ||
          (st = pascal_gemm_geometry(&law->gemm, &run.shape, &g, err)))
        return st;
      double cold, most;
      if ((st = pascal_plausible_gemm_fills(&law->gemm, &run.shape, &cold, &most, err)))
        return st;
      run.fill_bytes = within(K * g.Q / g.M * exp(law->noise * normal(rng)), cold, most);
      if ((st = pascal_calibration_append_gemm(cal, &run, err)))
        return st;
    }
  return PASCAL_OK;
}

pascal_status pascal_synth_calibration(const pascal_synth_law *law, const pascal_synth_plan *plan,
                                       pascal_calibration *out, pascal_error *err)
{
  pascal_status st;
  uint64_t rng = law->seed;
  pascal_calibration_init(out, law->workload);
  out->device = law->device;
  out->gemm = law->gemm;
  if ((st = check_law(law, err)) || (st = pascal_calibration_check(out, err)))
    return st;
  if (plan->repeats == 0)
    return pascal_error_set(err, PASCAL_EINVAL, "repeats", "repeats must be at least 1");
  if (law->workload == PASCAL_WORKLOAD_GEMM)
    return synth_gemm(law, plan, &rng, out, err);
  return synth_scan(law, plan, &rng, out, err);
}
