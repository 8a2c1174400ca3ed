/*
 * pascal/synth.h - synthetic calibrations from a documented response law,
 * for tests, demos and `pascal synth` (issue 3 item 8).
 *
 * The laws are smooth within an execution class and jump between classes,
 * the situation section 4.3 is built for, so that a correct predictor
 * recovers held-out keys and refuses an unsampled class.
 *
 * Scan law (key z = (o, path, d, m), size N, horizon W, class chi = chi(m)):
 *   e(z, N, W) = amp * g_path * (1 + depth_gain d) * o^occ_exp
 *                * class_gain[chi] * exp(-m / m_scale)
 *                * (C / N)^size_exp * W / (W + w_half),
 *   g_path = 1 for tma, sync_gain for sync;
 *   K = min(M, 1 + e), M = sm_count * o;  V = K b W N.
 * W K is increasing in W, so cumulative traffic is nondecreasing.
 *
 * GEMM law (tile counts n_r, n_c, n_k, see predict.h):
 *   kappa = 1 + gemm_amp * n_k / (n_k + nk_half)
 *               * n_r n_c / (n_r n_c + grid_half),
 *   K = min(M, K_0 kappa), M = gemm.resident_ctas;  V = K Q / M.
 *
 * Noise: each measured V is multiplied by exp(noise * Z), Z standard normal
 * from a seeded generator (splitmix64 + Box-Muller): the same law, plan and
 * seed give the same calibration on every machine with IEEE doubles.
 */
#ifndef PASCAL_SYNTH_H
#define PASCAL_SYNTH_H

#include <stddef.h>
#include <stdint.h>

#include "pascal/calibration.h"
#include "pascal/error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pascal_synth_law {
  pascal_workload workload;
  pascal_device device;    /* default: "synthetic-gb10", "sim", 48 SMs,
                              C = 1280 blocks, b = 16384 bytes             */
  pascal_gemm_params gemm; /* default 128x128x64, 2 bytes, 48 resident CTAs */
  /* scan law, defaults in brackets */
  double amp;           /* [1.5]                                       */
  double class_gain[3]; /* [1.0, 0.4, 0.7] for chi = 0, 1, 2           */
  double depth_gain;    /* [0.5]                                       */
  double occ_exp;       /* [1.0]                                       */
  double m_scale;       /* [12]                                        */
  double size_exp;      /* [1.0]                                       */
  double w_half;        /* [8]                                         */
  double sync_gain;     /* [0.2]                                       */
  /* GEMM law */
  double gemm_amp;  /* [1.0]                                       */
  double nk_half;   /* [32]                                        */
  double grid_half; /* [64]                                        */
  /* measurement */
  double noise;  /* log-normal sigma of V [0.02]; 0 = exact      */
  uint64_t seed; /* [1]                                         */
} pascal_synth_law;

/* The defaults above for `workload`. */
void pascal_synth_law_default(pascal_workload workload, pascal_synth_law *law);

/* Set one law parameter by its name in the comments above ("amp", "class0",
 * "class1", "class2", "depth_gain", "occ_exp", "m_scale", "size_exp",
 * "w_half", "sync_gain", "gemm_amp", "nk_half", "grid_half", "noise",
 * "seed"), for CLIs. PASCAL_EINVAL (field = name) for an unknown name or a
 * value out of its domain: gains, amplitudes and noise finite >= 0, scales
 * and half-points finite > 0, seed an integer in [0, 2^53]. */
pascal_status pascal_synth_law_set(pascal_synth_law *law, const char *name, double value,
                                   pascal_error *err);

/* What to measure. Arrays are borrowed. Scan: every key at every size and
 * horizon; GEMM: every shape; each `repeats` times (repeat = 0..repeats-1). */
typedef struct pascal_synth_plan {
  const pascal_scan_key *keys;
  size_t n_keys;
  const uint32_t *sizes; /* N values */
  size_t n_sizes;
  const uint32_t *horizons; /* W values */
  size_t n_horizons;
  const pascal_gemm_shape *shapes;
  size_t n_shapes;
  uint32_t repeats; /* >= 1 */
} pascal_synth_plan;

/* Default plans (static read-only arrays):
 * scan: 63 keys = 7 families (o, path, d) in {(1,sync,0), (2,sync,0),
 *   (1,tma,1), (1,tma,2), (1,tma,4), (2,tma,2), (2,tma,4)} x 9 computes
 *   m in {0, 1, 2, 3, 5, 8, 9, 14, 16} (three of each class), sizes
 *   N in {2048, 3072, 5120}, horizons W in {1, 4, 16, 64}, 1 repeat: 756 runs;
 * gemm: Mg in {256, ..., 8192} (x2) x Ng in {256, ..., 4096} (x2) x
 *   Kg in {1024, ..., 8192} (x2): 120 shapes, 1 repeat. */
void pascal_synth_plan_default(pascal_workload workload, pascal_synth_plan *plan);

/* Noise-free K of the law (validates the key, N >= 1, W > 0). */
pascal_status pascal_synth_scan_k(const pascal_synth_law *law, const pascal_scan_key *key,
                                  uint32_t N, double W, double *out_k, pascal_error *err);
pascal_status pascal_synth_gemm_k(const pascal_synth_law *law, const pascal_gemm_shape *shape,
                                  double *out_k, pascal_error *err);

/* Generate the calibration of `plan` under `law` into *out, which this
 * function initialises (the caller frees it with pascal_calibration_free,
 * also after a failure). Errors name the plan entry or law field. */
pascal_status pascal_synth_calibration(const pascal_synth_law *law, const pascal_synth_plan *plan,
                                       pascal_calibration *out, pascal_error *err);

#ifdef __cplusplus
}
#endif
#endif
