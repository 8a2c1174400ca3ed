/*
 * gemm_impl.c - the GEMM implementations a calibration can name and the
 * table-driven encoding of a cuBLASLt configuration (pascal/gemm_impl.h):
 * tile_m x tile_n <-> CUBLASLT_ALGO_CONFIG_TILE_ID, tile_k x stages <->
 * CUBLASLT_ALGO_CONFIG_STAGES_ID, cta_swizzling and split_k as they are.
 * Beyond the paper (its GEMM is one tiled kernel, Appendix "GEMM
 * instantiation").
 */
#include "pascal/gemm_impl.h"

#include <stdio.h>
#include <string.h>

#include "pascal/calibration.h"

typedef struct tile_row {
  uint32_t m, n, id;
} tile_row;

typedef struct stages_row {
  uint32_t k, stages, id; /* stages 0: the library's choice (AUTO) */
} stages_row;

#define PC_TILE_ROW(M, N, ID)          {M, N, ID},
#define PC_STAGES_ROW(K, SNAME, S, ID) {K, S, ID},

static const tile_row kTiles[] = {PASCAL_CUBLASLT_TILES(PC_TILE_ROW)};
static const stages_row kStages[] = {PASCAL_CUBLASLT_STAGES(PC_STAGES_ROW)};

#define PC_COUNT(a) (sizeof(a) / sizeof((a)[0]))

static const char *const kImplNames[] = {"own", "cublaslt"};

const char *pascal_gemm_impl_name(pascal_gemm_impl impl)
{
  return (unsigned)impl < PC_COUNT(kImplNames) ? kImplNames[impl] : NULL;
}

pascal_status pascal_gemm_impl_parse(const char *text, const char *field, pascal_gemm_impl *out,
                                     pascal_error *err)
{
  for (size_t i = 0; text != NULL && i < PC_COUNT(kImplNames); i++)
    if (strcmp(text, kImplNames[i]) == 0) {
      *out = (pascal_gemm_impl)i;
      return PASCAL_OK;
    }
  return pascal_error_set(err, PASCAL_EINVAL, field,
                          "impl must be \"own\" or \"cublaslt\", got \"%.40s\"",
                          text != NULL ? text : "");
}

static const tile_row *tile_by_id(uint32_t id)
{
  for (size_t i = 0; i < PC_COUNT(kTiles); i++)
    if (kTiles[i].id == id)
      return &kTiles[i];
  return NULL;
}

static const stages_row *stages_by_id(uint32_t id)
{
  for (size_t i = 0; i < PC_COUNT(kStages); i++)
    if (kStages[i].id == id)
      return &kStages[i];
  return NULL;
}

pascal_status pascal_cublaslt_encode(const pascal_gemm_params *g, pascal_cublaslt_config *out,
                                     pascal_error *err)
{
  if (g->impl != PASCAL_GEMM_IMPL_CUBLASLT)
    return pascal_error_set(err, PASCAL_EINVAL, "gemm.impl",
                            "only a cuBLASLt configuration has cuBLASLt attributes");
  pascal_cublaslt_config c = {g->algo,
                              0,
                              0,
                              g->cta_swizzling,
                              (int32_t)g->split_k,
                              g->custom_option,
                              g->inner_shape_id,
                              g->cluster_shape_id};
  for (size_t i = 0; i < PC_COUNT(kTiles) && c.tile_id == 0; i++)
    if (kTiles[i].m == g->tile_m && kTiles[i].n == g->tile_n)
      c.tile_id = kTiles[i].id;
  if (c.tile_id == 0)
    return pascal_error_set(err, PASCAL_EINVAL, "gemm.tile_m",
                            "cuBLASLt has no tile %ux%u among those PASCAL names", g->tile_m,
                            g->tile_n);
  for (size_t i = 0; i < PC_COUNT(kStages) && c.stages_id == 0; i++)
    if (kStages[i].k == g->tile_k && kStages[i].stages == g->stages)
      c.stages_id = kStages[i].id;
  if (c.stages_id == 0)
    return pascal_error_set(err, PASCAL_EINVAL, "gemm.stages",
                            "cuBLASLt has no stages id for tile_k %u with %u stage(s)%s", g->tile_k,
                            g->stages, g->stages == 0 ? " (AUTO)" : "");
  if (g->cta_swizzling > 1)
    return pascal_error_set(err, PASCAL_EINVAL, "gemm.cta_swizzling",
                            "cta_swizzling must be 0 or 1, got %u", g->cta_swizzling);
  if (g->split_k < 1 || g->split_k > PASCAL_CUBLASLT_MAX_SPLIT_K)
    return pascal_error_set(err, PASCAL_EINVAL, "gemm.split_k", "split_k must be in 1..%u, got %u",
                            PASCAL_CUBLASLT_MAX_SPLIT_K, g->split_k);
  if (g->inner_shape_id > PASCAL_CUBLASLT_MAX_SHAPE_ID ||
      g->cluster_shape_id > PASCAL_CUBLASLT_MAX_SHAPE_ID)
    return pascal_error_set(
        err, PASCAL_EINVAL,
        g->inner_shape_id > PASCAL_CUBLASLT_MAX_SHAPE_ID ? "gemm.inner_shape_id"
                                                         : "gemm.cluster_shape_id",
        "inner_shape_id and cluster_shape_id must be at most %u", PASCAL_CUBLASLT_MAX_SHAPE_ID);
  *out = c;
  return PASCAL_OK;
}

pascal_status pascal_cublaslt_decode(const pascal_cublaslt_config *c, pascal_gemm_params *g,
                                     pascal_error *err)
{
  const tile_row *t = tile_by_id(c->tile_id);
  const stages_row *s = stages_by_id(c->stages_id);
  if (t == NULL)
    return pascal_error_set(err, PASCAL_EINVAL, "tile_id",
                            "tile id %u is not a cuBLASLt tile PASCAL names", c->tile_id);
  if (s == NULL)
    return pascal_error_set(err, PASCAL_EINVAL, "stages_id",
                            "stages id %u is not a cuBLASLt stages id PASCAL names", c->stages_id);
  if (c->cta_swizzling > 1)
    return pascal_error_set(err, PASCAL_EINVAL, "cta_swizzling",
                            "cta_swizzling must be 0 or 1, got %u", c->cta_swizzling);
  if (c->split_k < 1 || (uint32_t)c->split_k > PASCAL_CUBLASLT_MAX_SPLIT_K)
    return pascal_error_set(err, PASCAL_EINVAL, "split_k", "split_k must be in 1..%u, got %d",
                            PASCAL_CUBLASLT_MAX_SPLIT_K, c->split_k);
  if (c->inner_shape_id > PASCAL_CUBLASLT_MAX_SHAPE_ID ||
      c->cluster_shape_id > PASCAL_CUBLASLT_MAX_SHAPE_ID)
    return pascal_error_set(
        err, PASCAL_EINVAL,
        c->inner_shape_id > PASCAL_CUBLASLT_MAX_SHAPE_ID ? "inner_shape_id" : "cluster_shape_id",
        "inner_shape_id and cluster_shape_id must be at most %u", PASCAL_CUBLASLT_MAX_SHAPE_ID);
  g->impl = PASCAL_GEMM_IMPL_CUBLASLT;
  g->tile_m = t->m;
  g->tile_n = t->n;
  g->tile_k = s->k;
  g->stages = s->stages;
  g->algo = c->algo;
  g->cta_swizzling = c->cta_swizzling;
  g->split_k = (uint32_t)c->split_k;
  g->custom_option = c->custom_option;
  g->inner_shape_id = c->inner_shape_id;
  g->cluster_shape_id = c->cluster_shape_id;
  return PASCAL_OK;
}

pascal_status pascal_gemm_impl_check(const pascal_gemm_params *g, pascal_error *err)
{
  pascal_cublaslt_config c;
  switch (g->impl) {
  case PASCAL_GEMM_IMPL_OWN:
    if (g->algo != 0 || g->cta_swizzling != 0 || g->split_k != 0 || g->custom_option != 0 ||
        g->inner_shape_id != 0 || g->cluster_shape_id != 0)
      return pascal_error_set(err, PASCAL_EINVAL,
                              g->algo != 0             ? "gemm.algo"
                              : g->cta_swizzling != 0  ? "gemm.cta_swizzling"
                              : g->split_k != 0        ? "gemm.split_k"
                              : g->custom_option != 0  ? "gemm.custom_option"
                              : g->inner_shape_id != 0 ? "gemm.inner_shape_id"
                                                       : "gemm.cluster_shape_id",
                              "only a cuBLASLt configuration states algo, cta_swizzling, "
                              "split_k, custom_option, inner_shape_id and cluster_shape_id");
    return PASCAL_OK;
  case PASCAL_GEMM_IMPL_CUBLASLT: return pascal_cublaslt_encode(g, &c, err);
  }
  return pascal_error_set(err, PASCAL_EINVAL, "gemm.impl", "unknown GEMM implementation %d",
                          (int)g->impl);
}

void pascal_cublaslt_describe(const pascal_cublaslt_config *c, char *buf, size_t size)
{
  char tile[32], stages[32];
  const tile_row *t = tile_by_id(c->tile_id);
  const stages_row *s = stages_by_id(c->stages_id);
  if (t != NULL)
    snprintf(tile, sizeof tile, "tile %ux%u", t->m, t->n);
  else
    snprintf(tile, sizeof tile, "tile id %u", c->tile_id);
  if (s == NULL)
    snprintf(stages, sizeof stages, "stages id %u", c->stages_id);
  else if (s->stages == 0)
    snprintf(stages, sizeof stages, "stages %uxAUTO", s->k);
  else
    snprintf(stages, sizeof stages, "stages %ux%u", s->k, s->stages);
  if (size == 0)
    return;
  int n = snprintf(buf, size, "algo %u %s %s swizzle %u split-k %d", c->algo, tile, stages,
                   c->cta_swizzling, c->split_k);
  const struct {
    const char *name;
    uint32_t v;
  } extra[] = {{"custom-option", c->custom_option},
               {"inner-shape", c->inner_shape_id},
               {"cluster-shape", c->cluster_shape_id}};
  for (size_t i = 0; i < PC_COUNT(extra); i++)
    if (extra[i].v != 0 && n >= 0 && (size_t)n < size)
      n += snprintf(buf + n, size - (size_t)n, " %s %u", extra[i].name, extra[i].v);
}

pascal_status pascal_cublaslt_of_config(const pascal_gemm_config *c,
                                        const pascal_cublaslt_config *heuristic,
                                        pascal_gemm_params *out, pascal_error *err)
{
  if (c->elem_bytes != 2)
    return pascal_error_set(err, PASCAL_EINVAL, "configuration.elem_bytes",
                            "cuBLASLt runs configuration runs with FP16 operands here "
                            "(elem_bytes 2), not elem_bytes %u",
                            c->elem_bytes);
  if (c->group_m != 1)
    return pascal_error_set(err, PASCAL_EINVAL, "configuration.group_m",
                            "cuBLASLt cannot run group_m %u: its CTA swizzling is on or off, not "
                            "a grouped raster of G tile rows (group_m 1 only)",
                            c->group_m);
  pascal_gemm_params g;
  memset(&g, 0, sizeof g);
  g.impl = PASCAL_GEMM_IMPL_CUBLASLT;
  g.tile_m = c->tile_m;
  g.tile_n = c->tile_n;
  g.tile_k = c->tile_k;
  g.elem_bytes = c->elem_bytes;
  g.stages = c->stages;
  g.algo = heuristic->algo;
  g.split_k = 1;
  g.custom_option = heuristic->custom_option;
  g.inner_shape_id = heuristic->inner_shape_id;
  g.cluster_shape_id = heuristic->cluster_shape_id;
  pascal_cublaslt_config probe;
  pascal_error why;
  if (pascal_cublaslt_encode(&g, &probe, &why) != PASCAL_OK)
    return pascal_error_set(err, PASCAL_EINVAL,
                            strcmp(why.field, "gemm.tile_m") == 0 ? "configuration.tile_m"
                                                                  : "configuration.stages",
                            "%s", why.message);
  *out = g;
  return PASCAL_OK;
}

pascal_status pascal_gemm_own_runs_config(const pascal_gemm_config *c, pascal_error *err)
{
  if (c->tile_m != 128 || c->tile_n != 128 || c->tile_k != 64)
    return pascal_error_set(err, PASCAL_EINVAL, "configuration.tile_m",
                            "the project's own GEMM kernel has the 128x128x64 tile only, not "
                            "%ux%ux%u",
                            c->tile_m, c->tile_n, c->tile_k);
  if (c->elem_bytes != 2)
    return pascal_error_set(err, PASCAL_EINVAL, "configuration.elem_bytes",
                            "the project's own GEMM kernel reads FP16 (elem_bytes 2), not %u",
                            c->elem_bytes);
  if (c->stages < 1 || c->stages > PASCAL_GEMM_OWN_STAGES_MAX || c->group_m < 1)
    return pascal_error_set(err, PASCAL_EINVAL,
                            c->group_m < 1 ? "configuration.group_m" : "configuration.stages",
                            "the project's own GEMM kernel buffers 1..%u stages with group_m >= 1 "
                            "(got stages %u, group_m %u)",
                            PASCAL_GEMM_OWN_STAGES_MAX, c->stages, c->group_m);
  return PASCAL_OK;
}
