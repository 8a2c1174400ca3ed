/*
 * plan.c - calibration plans (pascal/plan.h): validation, grid expansion and
 * the deterministic run order of docs/design.md §5 (sizes, keys, horizons,
 * repeats; GEMM: shapes, configurations, repeats; attention as a scan whose keys are the
 * default tiling's, pascal/attention.h). Pure C, no allocation except where
 * the caller asks for an expanded array.
 */
#include "pascal/plan.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pascal/attention.h"
#include "pascal/query.h"

const uint64_t pascal_plan_default_horizons[4] = {1, 4, 16, 64};

const char *pascal_plan_path_name(pascal_plan_path path)
{
  switch (path) {
  case PASCAL_PLAN_SYNC: return "sync";
  case PASCAL_PLAN_TMA: return "tma";
  }
  return NULL;
}

static const char *const workload_names[] = {"scan", "gemm", "attention"};

const char *pascal_plan_workload_name(pascal_plan_workload workload)
{
  return (unsigned)workload < 3 ? workload_names[workload] : NULL;
}

pascal_status pascal_plan_workload_parse(const char *text, const char *field,
                                         pascal_plan_workload *out, pascal_error *err)
{
  for (unsigned i = 0; text && i < 3; i++)
    if (strcmp(text, workload_names[i]) == 0) {
      *out = (pascal_plan_workload)i;
      return PASCAL_OK;
    }
  return pascal_error_set(err, PASCAL_EINVAL, field,
                          "workload must be \"scan\", \"gemm\" or \"attention\"");
}

pascal_status pascal_plan_path_parse(const char *text, pascal_plan_path *out, pascal_error *err)
{
  if (text && strcmp(text, "sync") == 0) {
    *out = PASCAL_PLAN_SYNC;
    return PASCAL_OK;
  }
  if (text && strcmp(text, "tma") == 0) {
    *out = PASCAL_PLAN_TMA;
    return PASCAL_OK;
  }
  return pascal_error_set(err, PASCAL_EINVAL, "path", "path must be \"sync\" or \"tma\"");
}

void pascal_plan_init(pascal_plan *plan)
{
  memset(plan, 0, sizeof *plan);
  plan->workload = PASCAL_PLAN_SCAN;
  plan->repeats = 1;
}

void pascal_plan_free(pascal_plan *plan)
{
  if (!plan)
    return;
  free(plan->sizes);
  free(plan->horizons);
  free(plan->keys);
  free(plan->shapes);
  free(plan->configs);
  pascal_plan_init(plan);
}

static int key_equal(const pascal_plan_key *a, const pascal_plan_key *b)
{
  return a->o == b->o && a->path == b->path && a->d == b->d && a->m == b->m;
}

static int shape_equal(const pascal_plan_shape *a, const pascal_plan_shape *b)
{
  return a->Mg == b->Mg && a->Ng == b->Ng && a->Kg == b->Kg;
}

pascal_status pascal_plan_config_validate(const pascal_gemm_config *config, const char *field,
                                          pascal_error *err)
{
  const struct {
    const char *name;
    uint32_t v, hi;
  } range[] = {{"tile_m", config->tile_m, PASCAL_QUERY_TILE_MAX},
               {"tile_n", config->tile_n, PASCAL_QUERY_TILE_MAX},
               {"tile_k", config->tile_k, PASCAL_QUERY_TILE_MAX},
               {"stages", config->stages, PASCAL_GEMM_STAGES_MAX},
               {"group_m", config->group_m, PASCAL_QUERY_GROUP_MAX}};
  char name[PASCAL_ERROR_FIELD_MAX];
  for (size_t i = 0; i < sizeof range / sizeof *range; i++)
    if (range[i].v < 1 || range[i].v > range[i].hi) {
      snprintf(name, sizeof name, "%s.%s", field, range[i].name);
      return pascal_error_set(err, PASCAL_EINVAL, name, "%s must be in [1, %u] (got %u)",
                              range[i].name, range[i].hi, range[i].v);
    }
  const uint32_t e = config->elem_bytes;
  if (e != 1 && e != 2 && e != 4 && e != 8) {
    snprintf(name, sizeof name, "%s.elem_bytes", field);
    return pascal_error_set(err, PASCAL_EINVAL, name, "elem_bytes must be 1, 2, 4 or 8 (got %u)",
                            e);
  }
  return PASCAL_OK;
}

pascal_status pascal_plan_key_validate(const pascal_plan_key *key, const char *field,
                                       pascal_error *err)
{
  char name[PASCAL_ERROR_FIELD_MAX];
  if (key->o < 1 || key->o > PASCAL_PLAN_MAX_OCCUPANCY) {
    snprintf(name, sizeof name, "%s.o", field);
    return pascal_error_set(err, PASCAL_EINVAL, name,
                            "o (resident CTAs per SM) must be 1..%u, got %u",
                            PASCAL_PLAN_MAX_OCCUPANCY, key->o);
  }
  if (!pascal_plan_path_name(key->path)) {
    snprintf(name, sizeof name, "%s.path", field);
    return pascal_error_set(err, PASCAL_EINVAL, name, "path must be \"sync\" or \"tma\"");
  }
  if (key->path == PASCAL_PLAN_SYNC && key->d != 0) {
    snprintf(name, sizeof name, "%s.d", field);
    return pascal_error_set(err, PASCAL_EINVAL, name,
                            "the sync path has no prefetch pipeline: d must be 0, got %u", key->d);
  }
  if (key->path == PASCAL_PLAN_TMA && (key->d < 1 || key->d > PASCAL_PLAN_MAX_DEPTH)) {
    snprintf(name, sizeof name, "%s.d", field);
    return pascal_error_set(err, PASCAL_EINVAL, name,
                            "the tma path needs a depth d of 1..%u, got %u", PASCAL_PLAN_MAX_DEPTH,
                            key->d);
  }
  if (key->m > PASCAL_PLAN_MAX_COMPUTE) {
    snprintf(name, sizeof name, "%s.m", field);
    return pascal_error_set(err, PASCAL_EINVAL, name,
                            "m (compute per block) must be at most %u, got %u",
                            PASCAL_PLAN_MAX_COMPUTE, key->m);
  }
  return PASCAL_OK;
}

/* Every entry of a grid list must be in range on its own, so that the error
 * names the list entry rather than a key the user never wrote. */
static pascal_status grid_check_list(const uint32_t *v, size_t n, const char *list, uint32_t lo,
                                     uint32_t hi, pascal_error *err)
{
  char name[PASCAL_ERROR_FIELD_MAX];
  if (n == 0 || !v) {
    snprintf(name, sizeof name, "grid.%s", list);
    return pascal_error_set(err, PASCAL_EINVAL, name, "grid.%s must not be empty", list);
  }
  for (size_t i = 0; i < n; i++) {
    if (v[i] < lo || v[i] > hi) {
      snprintf(name, sizeof name, "grid.%s[%zu]", list, i);
      return pascal_error_set(err, PASCAL_EINVAL, name, "grid.%s values must be %u..%u, got %u",
                              list, lo, hi, v[i]);
    }
  }
  return PASCAL_OK;
}

static int grid_has_tma(const pascal_plan_grid *g)
{
  for (size_t i = 0; i < g->n_path; i++)
    if (g->path[i] == PASCAL_PLAN_TMA)
      return 1;
  return 0;
}

pascal_status pascal_plan_grid_expand(const pascal_plan_grid *grid, pascal_plan_key **keys,
                                      size_t *n_keys, pascal_error *err)
{
  pascal_status st;
  if (grid->n_path == 0 || !grid->path)
    return pascal_error_set(err, PASCAL_EINVAL, "grid.path", "grid.path must not be empty");
  for (size_t i = 0; i < grid->n_path; i++) {
    if (!pascal_plan_path_name(grid->path[i])) {
      char name[PASCAL_ERROR_FIELD_MAX];
      snprintf(name, sizeof name, "grid.path[%zu]", i);
      return pascal_error_set(err, PASCAL_EINVAL, name, "path must be \"sync\" or \"tma\"");
    }
  }
  int tma = grid_has_tma(grid);
  if ((st = grid_check_list(grid->o, grid->n_o, "o", 1, PASCAL_PLAN_MAX_OCCUPANCY, err)) ||
      (st = grid_check_list(grid->m, grid->n_m, "m", 0, PASCAL_PLAN_MAX_COMPUTE, err)))
    return st;
  /* d only matters for tma rows; a sync-only grid may omit it. */
  if (tma && (st = grid_check_list(grid->d, grid->n_d, "d", 1, PASCAL_PLAN_MAX_DEPTH, err)))
    return st;
  size_t n_d = grid->n_d ? grid->n_d : 1;

  /* Raw product size, bounded list by list so it cannot overflow. */
  size_t raw = 1;
  size_t dims[4] = {grid->n_o, grid->n_path, n_d, grid->n_m};
  for (int i = 0; i < 4; i++) {
    if (dims[i] > PASCAL_PLAN_MAX_LIST || raw * dims[i] > PASCAL_PLAN_MAX_LIST)
      return pascal_error_set(err, PASCAL_EINVAL, "grid",
                              "the grid's cross product exceeds %u keys", PASCAL_PLAN_MAX_LIST);
    raw *= dims[i];
  }
  pascal_plan_key *out = malloc(raw * sizeof *out);
  if (!out)
    return pascal_error_set(err, PASCAL_ENOMEM, "grid", "out of memory expanding the grid");
  size_t n = 0;
  for (size_t io = 0; io < grid->n_o; io++)
    for (size_t ip = 0; ip < grid->n_path; ip++)
      for (size_t id = 0; id < n_d; id++)
        for (size_t im = 0; im < grid->n_m; im++) {
          pascal_plan_key k = {grid->o[io], grid->path[ip], 0, grid->m[im]};
          /* Invariant: sync rows have d = 0, whatever grid.d says. */
          if (k.path == PASCAL_PLAN_TMA)
            k.d = grid->d[id];
          int seen = 0;
          /* O(n^2) over at most MAX_LIST keys: fine, and keeps first-seen order. */
          for (size_t j = 0; j < n && !seen; j++)
            seen = key_equal(&out[j], &k);
          if (!seen)
            out[n++] = k;
        }
  *keys = out;
  *n_keys = n;
  return PASCAL_OK;
}

/* The length rule of every plan list: present, not empty (the message is
 * `empty`, or "LIST must not be empty" when NULL), at most MAX_LIST entries. */
static pascal_status check_length(const void *v, size_t n, const char *list, const char *empty,
                                  pascal_error *err)
{
  if (n == 0 || !v)
    return empty ? pascal_error_set(err, PASCAL_EINVAL, list, "%s", empty)
                 : pascal_error_set(err, PASCAL_EINVAL, list, "%s must not be empty", list);
  if (n > PASCAL_PLAN_MAX_LIST)
    return pascal_error_set(err, PASCAL_EINVAL, list, "%s has more than %u entries", list,
                            PASCAL_PLAN_MAX_LIST);
  return PASCAL_OK;
}

/* A list of distinct extents, each 1..MAX_EXTENT. */
static pascal_status check_extents(const uint64_t *v, size_t n, const char *list, pascal_error *err)
{
  char name[PASCAL_ERROR_FIELD_MAX];
  pascal_status st = check_length(v, n, list, NULL, err);
  if (st)
    return st;
  for (size_t i = 0; i < n; i++) {
    snprintf(name, sizeof name, "%s[%zu]", list, i);
    if (v[i] < 1 || v[i] > PASCAL_PLAN_MAX_EXTENT)
      return pascal_error_set(err, PASCAL_EINVAL, name, "%s must be 1..4294967295, got %llu", name,
                              (unsigned long long)v[i]);
    for (size_t j = 0; j < i; j++)
      if (v[j] == v[i])
        return pascal_error_set(err, PASCAL_EINVAL, name, "%s repeats %s[%zu] (%llu)", name, list,
                                j, (unsigned long long)v[i]);
  }
  return PASCAL_OK;
}

static pascal_status check_keys(const pascal_plan *plan, pascal_error *err)
{
  char name[PASCAL_ERROR_FIELD_MAX];
  pascal_status st =
      check_length(plan->keys, plan->n_keys, "keys", "a scan plan needs keys or a grid", err);
  if (st)
    return st;
  for (size_t i = 0; i < plan->n_keys; i++) {
    snprintf(name, sizeof name, "keys[%zu]", i);
    st = pascal_plan_key_validate(&plan->keys[i], name, err);
    if (st)
      return st;
    for (size_t j = 0; j < i; j++)
      if (key_equal(&plan->keys[j], &plan->keys[i]))
        return pascal_error_set(err, PASCAL_EINVAL, name, "%s repeats keys[%zu]", name, j);
  }
  return PASCAL_OK;
}

/* An attention plan measures the default tiling: every key streams K/V on
 * the tma path with its m. */
static pascal_status check_attention_keys(const pascal_plan *plan, pascal_error *err)
{
  const uint32_t m = pascal_attention_m(&PASCAL_ATTENTION_DEFAULT);
  for (size_t i = 0; i < plan->n_keys; i++) {
    char name[PASCAL_ERROR_FIELD_MAX];
    if (plan->keys[i].path != PASCAL_PLAN_TMA) {
      snprintf(name, sizeof name, "keys[%zu].path", i);
      return pascal_error_set(err, PASCAL_EINVAL, name,
                              "%s: an attention plan streams K/V on the tma path", name);
    }
    if (plan->keys[i].m != m) {
      snprintf(name, sizeof name, "keys[%zu].m", i);
      return pascal_error_set(err, PASCAL_EINVAL, name,
                              "%s must be %u, the attention tiling's tensor work per step", name,
                              m);
    }
  }
  return PASCAL_OK;
}

static pascal_status check_shapes(const pascal_plan *plan, pascal_error *err)
{
  char name[PASCAL_ERROR_FIELD_MAX];
  pascal_status st =
      check_length(plan->shapes, plan->n_shapes, "shapes", "a gemm plan needs shapes", err);
  if (st)
    return st;
  for (size_t i = 0; i < plan->n_shapes; i++) {
    const pascal_plan_shape *s = &plan->shapes[i];
    const uint64_t ext[3] = {s->Mg, s->Ng, s->Kg};
    static const char *const dim[3] = {"Mg", "Ng", "Kg"};
    for (int k = 0; k < 3; k++) {
      if (ext[k] < 1 || ext[k] > PASCAL_PLAN_MAX_EXTENT) {
        snprintf(name, sizeof name, "shapes[%zu].%s", i, dim[k]);
        return pascal_error_set(err, PASCAL_EINVAL, name, "%s must be 1..4294967295, got %llu",
                                name, (unsigned long long)ext[k]);
      }
    }
    for (size_t j = 0; j < i; j++)
      if (shape_equal(&plan->shapes[j], s)) {
        snprintf(name, sizeof name, "shapes[%zu]", i);
        return pascal_error_set(err, PASCAL_EINVAL, name, "%s repeats shapes[%zu]", name, j);
      }
  }
  return PASCAL_OK;
}

/* A GEMM plan's configurations (optional): each valid, distinct, and every
 * shape a whole number of its tiles (a configuration run is measured on
 * whole tiles, as a bundle's "configurations" keeps it). */
static pascal_status check_configs(const pascal_plan *plan, pascal_error *err)
{
  char name[PASCAL_ERROR_FIELD_MAX];
  if (!plan->n_configs)
    return PASCAL_OK;
  pascal_status st = check_length(plan->configs, plan->n_configs, "configurations",
                                  "configurations must not be empty", err);
  if (st)
    return st;
  for (size_t i = 0; i < plan->n_configs; i++) {
    const pascal_gemm_config *c = &plan->configs[i];
    snprintf(name, sizeof name, "configurations[%zu]", i);
    if ((st = pascal_plan_config_validate(c, name, err)))
      return st;
    for (size_t j = 0; j < i; j++)
      if (!memcmp(&plan->configs[j], c, sizeof *c))
        return pascal_error_set(err, PASCAL_EINVAL, name, "%s repeats configurations[%zu]", name,
                                j);
    for (size_t k = 0; k < plan->n_shapes; k++) {
      const pascal_plan_shape *s = &plan->shapes[k];
      if (s->Mg % c->tile_m || s->Ng % c->tile_n || s->Kg % c->tile_k) {
        snprintf(name, sizeof name, "shapes[%zu]", k);
        return pascal_error_set(err, PASCAL_EINVAL, name,
                                "%s (%llu x %llu x %llu) is not a whole number of "
                                "configurations[%zu]'s %u x %u x %u tiles",
                                name, (unsigned long long)s->Mg, (unsigned long long)s->Ng,
                                (unsigned long long)s->Kg, i, c->tile_m, c->tile_n, c->tile_k);
      }
    }
  }
  return PASCAL_OK;
}

/* Product of the list lengths, refused above MAX_RUNS. Each factor is at most
 * MAX_LIST (or MAX_REPEATS), so the running product never overflows size_t
 * before the comparison. */
static pascal_status check_run_total(const pascal_plan *plan, pascal_error *err)
{
  size_t total = pascal_plan_run_count(plan);
  if (total > PASCAL_PLAN_MAX_RUNS)
    return pascal_error_set(err, PASCAL_EINVAL, "plan",
                            "the plan expands to %zu runs, more than %u", total,
                            PASCAL_PLAN_MAX_RUNS);
  return PASCAL_OK;
}

pascal_status pascal_plan_validate(const pascal_plan *plan, pascal_error *err)
{
  pascal_status st;
  if (plan->repeats < 1 || plan->repeats > PASCAL_PLAN_MAX_REPEATS)
    return pascal_error_set(err, PASCAL_EINVAL, "repeats", "repeats must be 1..%u, got %u",
                            PASCAL_PLAN_MAX_REPEATS, plan->repeats);
  switch (plan->workload) {
  case PASCAL_PLAN_SCAN:
  case PASCAL_PLAN_ATTENTION:
    if (plan->n_shapes || plan->n_configs)
      return pascal_error_set(err, PASCAL_EINVAL, plan->n_shapes ? "shapes" : "configurations",
                              "a %s plan has no %s", pascal_plan_workload_name(plan->workload),
                              plan->n_shapes ? "shapes" : "configurations");
    if ((st = check_extents(plan->sizes, plan->n_sizes, "sizes", err)) ||
        (st = check_extents(plan->horizons, plan->n_horizons, "horizons", err)) ||
        (st = check_keys(plan, err)))
      return st;
    if (plan->workload == PASCAL_PLAN_ATTENTION && (st = check_attention_keys(plan, err)))
      return st;
    break;
  case PASCAL_PLAN_GEMM:
    if (plan->n_sizes || plan->n_keys || plan->n_horizons)
      return pascal_error_set(err, PASCAL_EINVAL,
                              plan->n_sizes  ? "sizes"
                              : plan->n_keys ? "keys"
                                             : "horizons",
                              "a gemm plan has shapes, not sizes, keys or horizons");
    if ((st = check_shapes(plan, err)) || (st = check_configs(plan, err)))
      return st;
    break;
  default:
    return pascal_error_set(err, PASCAL_EINVAL, "workload",
                            "workload must be \"scan\", \"gemm\" or \"attention\"");
  }
  return check_run_total(plan, err);
}

size_t pascal_plan_run_count(const pascal_plan *plan)
{
  if (plan->workload == PASCAL_PLAN_GEMM)
    return plan->n_shapes * (plan->n_configs ? plan->n_configs : 1u) * (size_t)plan->repeats;
  return plan->n_sizes * plan->n_keys * plan->n_horizons * (size_t)plan->repeats;
}

pascal_status pascal_plan_run_get(const pascal_plan *plan, size_t index, pascal_plan_run *out,
                                  pascal_error *err)
{
  size_t total = pascal_plan_run_count(plan);
  if (index >= total)
    return pascal_error_set(err, PASCAL_ENOTFOUND, "index",
                            "run %zu does not exist (the plan has %zu runs)", index, total);
  pascal_plan_run r;
  memset(&r, 0, sizeof r);
  r.workload = plan->workload;
  /* Innermost first: repeat, then horizon, key, size (scan) or
   * configuration, shape (gemm). */
  r.repeat = (uint32_t)(index % plan->repeats);
  index /= plan->repeats;
  if (plan->workload == PASCAL_PLAN_GEMM) {
    if (plan->n_configs) {
      r.config = plan->configs[index % plan->n_configs];
      index /= plan->n_configs;
    }
    r.shape = plan->shapes[index];
  } else {
    r.W = plan->horizons[index % plan->n_horizons];
    index /= plan->n_horizons;
    r.key = plan->keys[index % plan->n_keys];
    r.N = plan->sizes[index / plan->n_keys];
  }
  *out = r;
  return PASCAL_OK;
}

pascal_status pascal_plan_expand(const pascal_plan *plan, pascal_plan_run **runs, size_t *n_runs,
                                 pascal_error *err)
{
  pascal_status st = pascal_plan_validate(plan, err);
  if (st)
    return st;
  size_t n = pascal_plan_run_count(plan);
  pascal_plan_run *out = malloc(n * sizeof *out);
  if (!out)
    return pascal_error_set(err, PASCAL_ENOMEM, "plan", "out of memory expanding %zu runs", n);
  assert(n >= 1 && n <= PASCAL_PLAN_MAX_RUNS);
  for (size_t i = 0; i < n; i++) {
    st = pascal_plan_run_get(plan, i, &out[i], err);
    if (st) {
      free(out);
      return st;
    }
    /* a validated plan only expands to runs inside every limit */
    assert(out[i].repeat < plan->repeats);
    assert(plan->workload == PASCAL_PLAN_GEMM ||
           (out[i].N >= 1 && out[i].N <= PASCAL_PLAN_MAX_EXTENT && out[i].W >= 1 &&
            out[i].W <= PASCAL_PLAN_MAX_EXTENT &&
            pascal_plan_key_validate(&out[i].key, "key", NULL) == PASCAL_OK));
  }
  *runs = out;
  *n_runs = n;
  return PASCAL_OK;
}
