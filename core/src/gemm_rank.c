/*
 * gemm_rank.c - a matmul autotuner's question in one call
 * (pascal/gemm_config.h pascal_gemm_rank): every candidate configuration
 * answered on the problem in whole tiles of its own tile, ordered by the
 * answer's time_s (pascal/answer.h, gemm_config.h "Time"). Beyond the
 * paper, which answers one tiling.
 */
#include <math.h>
#include <stdlib.h>

#include "pascal/answer.h"
#include "pascal/gemm_config.h"

/* v rounded up to a multiple of tile (tile >= 1); 0 when it overflows. */
static uint32_t round_up(uint32_t v, uint32_t tile)
{
  uint64_t r = ((uint64_t)v + tile - 1) / tile * tile;
  return r > UINT32_MAX ? 0 : (uint32_t)r;
}

/* Timed first, by time; then the caller's order. */
static int by_time(const void *pa, const void *pb)
{
  const pascal_gemm_ranked *a = pa, *b = pb;
  if (a->time_s != b->time_s)
    return a->time_s < b->time_s ? -1 : 1;
  return a->index < b->index ? -1 : a->index > b->index;
}

pascal_status pascal_gemm_rank(const pascal_model *model, const pascal_gemm_shape *problem,
                               const pascal_gemm_config *configs, size_t n, pascal_gemm_ranked *out,
                               pascal_error *err)
{
  const char *zero = !problem->Mg ? "Mg" : !problem->Ng ? "Ng" : !problem->Kg ? "Kg" : NULL;
  if (zero)
    return pascal_error_set(err, PASCAL_EINVAL, zero, "%s must be at least 1", zero);
  const pascal_gemm_params *g = pascal_model_gemm(model);
  for (size_t i = 0; i < n; i++) {
    pascal_gemm_config c;
    pascal_gemm_config_resolve(g, &configs[i], &c);
    pascal_gemm_ranked *r = &out[i];
    r->index = i;
    r->time_s = INFINITY;
    r->shape = (pascal_gemm_shape){round_up(problem->Mg, c.tile_m), round_up(problem->Ng, c.tile_n),
                                   round_up(problem->Kg, c.tile_k)};
    pascal_query q = pascal_query_gemm(&r->shape, &configs[i]);
    pascal_answer a;
    r->status = pascal_query_check(&q, NULL, NULL);
    if (r->status == PASCAL_OK)
      r->status = pascal_answer_query(model, NULL, &q, &a, NULL);
    if (r->status == PASCAL_OK && !a.timed)
      r->status = PASCAL_ENOTFOUND;
    if (r->status == PASCAL_OK)
      r->time_s = a.time.time_s;
  }
  qsort(out, n, sizeof *out, by_time);
  return PASCAL_OK;
}
