/*
 * pascal/plan.h - calibration plans and their deterministic expansion into
 * measured runs (docs/design.md §5; paper section 4.4, "Calibration
 * protocol": one fixed grid of keys x sizes x horizons, measured once per
 * device).
 *
 * A plan says which reference runs a calibration needs. Scan plans list the
 * sizes N_j, the configuration keys z = (o, path, d, m), the horizons W and a
 * repeat count; GEMM plans list problem shapes (Mg, Ng, Kg) and a repeat
 * count; attention plans are scan plans of K/V steps (pascal/attention.h:
 * N steps, W M CTAs of one query tile each, the default tiling, so every key
 * is on the tma path with m = 128). A GEMM plan may also list
 * configurations (tile, element size, stages, raster: pascal_gemm_config,
 * the keys of a bundle's "configurations" section); its runs are then timed
 * runs of those configurations, not of the calibration's own kernel. The JSON form is
 * `pascal-plan/1` (docs/bundle-format.md), read and written by server/codec; this header is the
 * pure-C model, no JSON.
 *
 * Expansion order is fixed and documented, so that run index i means the same
 * run to pascald, the agent and the tests:
 *   scan, attention: for each size (plan order), for each key (plan order), for each
 *         horizon (plan order), for each repeat 0..repeats-1;
 *   gemm: for each shape (plan order), for each configuration (plan order;
 *         none: the calibration's own), for each repeat.
 *
 * Ownership: a pascal_plan owns its arrays (malloc'd). pascal_plan_init()
 * zeroes one, pascal_plan_free() releases the arrays and zeroes it again.
 * Builders (the codec, tests) fill the arrays with malloc'd memory and then
 * call pascal_plan_validate().
 */
#ifndef PASCAL_PLAN_H
#define PASCAL_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include "pascal/calibration.h"
#include "pascal/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Limits every plan must respect; larger values are refused (PASCAL_EINVAL)
 * with the field named. They keep expansion small enough for a job queue. */
#define PASCAL_PLAN_MAX_RUNS      1000000u /* expanded runs per plan          */
#define PASCAL_PLAN_MAX_LIST      4096u    /* entries per list (sizes, keys...) */
#define PASCAL_PLAN_MAX_REPEATS   1000u
#define PASCAL_PLAN_MAX_OCCUPANCY 64u      /* o: resident CTAs per SM         */
#define PASCAL_PLAN_MAX_DEPTH     64u      /* d: TMA pipeline depth           */
#define PASCAL_PLAN_MAX_COMPUTE   1000000u /* m: compute operations per block */
#define PASCAL_PLAN_MAX_EXTENT                                                                     \
  UINT64_C(4294967295) /* N, W, Mg, Ng, Kg: what a                                                 \
                          calibration run holds */
#define PASCAL_PLAN_MAX_BLOCK_BYTES                                                                \
  (1u << 30) /* bytes per logical block of the                                                     \
               device a run is measured on */
#define PASCAL_PLAN_MAX_MESSAGE                                                                    \
  255u /* bytes of UTF-8 a failed run's message                                                    \
          keeps (longer ones are cut,                                                              \
          pascal/utf8.h) */

typedef enum pascal_plan_workload {
  PASCAL_PLAN_SCAN = 0,
  PASCAL_PLAN_GEMM = 1,
  PASCAL_PLAN_ATTENTION = 2 /* scan-shaped: sizes, keys, horizons */
} pascal_plan_workload;

/* The workload's name ("scan", "gemm", "attention"; NULL for another value)
 * and its parser (PASCAL_EINVAL naming `field`). */
const char *pascal_plan_workload_name(pascal_plan_workload workload);
pascal_status pascal_plan_workload_parse(const char *text, const char *field,
                                         pascal_plan_workload *out, pascal_error *err);

typedef enum pascal_plan_path {
  PASCAL_PLAN_SYNC = 0, /* synchronous loads; d must be 0            */
  PASCAL_PLAN_TMA = 1   /* TMA bulk copies into d >= 1 buffers         */
} pascal_plan_path;

/* A scan configuration key z = (o, path, d, m). Invariant after validation:
 * path == SYNC <=> d == 0; 1 <= o <= MAX_OCCUPANCY; m <= MAX_COMPUTE. */
typedef struct pascal_plan_key {
  uint32_t o;
  pascal_plan_path path;
  uint32_t d;
  uint32_t m;
} pascal_plan_key;

/* A GEMM problem shape (elements). */
typedef struct pascal_plan_shape {
  uint64_t Mg, Ng, Kg;
} pascal_plan_shape;

/* The "grid" form of a scan plan: the cross product o x path x d x m. Rows
 * with path SYNC take d = 0 whatever d lists; the product is deduplicated,
 * keeping the first occurrence in the loop order o, path, d, m (outer to
 * inner). Arrays are borrowed, not owned. */
typedef struct pascal_plan_grid {
  const uint32_t *o;
  size_t n_o;
  const pascal_plan_path *path;
  size_t n_path;
  const uint32_t *d;
  size_t n_d;
  const uint32_t *m;
  size_t n_m;
} pascal_plan_grid;

typedef struct pascal_plan {
  pascal_plan_workload workload;
  uint32_t repeats; /* >= 1 */
  /* scan */
  uint64_t *sizes; /* N_j, distinct, >= 1 */
  size_t n_sizes;
  uint64_t *horizons; /* W, distinct, >= 1 (default 1, 4, 16, 64) */
  size_t n_horizons;
  pascal_plan_key *keys; /* distinct keys */
  size_t n_keys;
  /* gemm */
  pascal_plan_shape *shapes; /* distinct shapes, every extent >= 1 */
  size_t n_shapes;
  /* gemm, optional: distinct configurations, every member set
   * (pascal_plan_config_validate); each shape is then a whole number of
   * every configuration's tiles */
  pascal_gemm_config *configs;
  size_t n_configs;
} pascal_plan;

/* One expanded run. For scan runs the shape and configuration are zero; for
 * GEMM runs the key, N and W are zero, and the configuration is zero for a
 * run of the calibration's own kernel. */
typedef struct pascal_plan_run {
  pascal_plan_workload workload;
  pascal_plan_key key;
  uint64_t N;
  uint64_t W;
  pascal_plan_shape shape;
  pascal_gemm_config config; /* all zero: the calibration's own */
  uint32_t repeat;           /* 0 .. repeats-1 */
} pascal_plan_run;

/* The horizons a plan gets when it names none: 1, 4, 16, 64. */
extern const uint64_t pascal_plan_default_horizons[4];

/* "sync" / "tma"; NULL for an invalid value. */
const char *pascal_plan_path_name(pascal_plan_path path);
/* Parse "sync" / "tma". PASCAL_EINVAL otherwise (field "path"). */
pascal_status pascal_plan_path_parse(const char *text, pascal_plan_path *out, pascal_error *err);

void pascal_plan_init(pascal_plan *plan);
void pascal_plan_free(pascal_plan *plan);

/* Check one key (the field name prefix, e.g. "keys[3]", is used in errors). */
pascal_status pascal_plan_key_validate(const pascal_plan_key *key, const char *field,
                                       pascal_error *err);

/* Check one GEMM configuration's members (errors name `field`.tile_m, ...):
 * tiles 1..PASCAL_QUERY_TILE_MAX, elem_bytes 1, 2, 4 or 8, stages
 * 1..PASCAL_GEMM_STAGES_MAX, group_m 1..PASCAL_QUERY_GROUP_MAX. Whether it
 * fits a device's shared memory is the device's question
 * (pascal_gemm_ctas_per_sm). */
pascal_status pascal_plan_config_validate(const pascal_gemm_config *config, const char *field,
                                          pascal_error *err);

/* Expand a grid into a deduplicated, validated key list. On success *keys is
 * a malloc'd array the caller owns (free()) with *n_keys entries. Errors name
 * "grid.o[2]", "grid.path", ... */
pascal_status pascal_plan_grid_expand(const pascal_plan_grid *grid, pascal_plan_key **keys,
                                      size_t *n_keys, pascal_error *err);

/* Check the whole plan: workload-specific lists present and non-empty,
 * entries in range and distinct, repeats in range, total runs at most
 * PASCAL_PLAN_MAX_RUNS. Errors name the field ("sizes[1]", "keys[4].d",
 * "shapes[0].Kg", "repeats"). */
pascal_status pascal_plan_validate(const pascal_plan *plan, pascal_error *err);

/* Number of runs the plan expands to. The plan must be valid. */
size_t pascal_plan_run_count(const pascal_plan *plan);

/* Run number `index` (0-based) of the expansion order above, without
 * allocating. PASCAL_ENOTFOUND if index >= pascal_plan_run_count(). */
pascal_status pascal_plan_run_get(const pascal_plan *plan, size_t index, pascal_plan_run *out,
                                  pascal_error *err);

/* Validate and expand the whole plan. On success *runs is a malloc'd array
 * (caller frees with free()) of *n_runs runs in expansion order. */
pascal_status pascal_plan_expand(const pascal_plan *plan, pascal_plan_run **runs, size_t *n_runs,
                                 pascal_error *err);

#ifdef __cplusplus
}
#endif
#endif
