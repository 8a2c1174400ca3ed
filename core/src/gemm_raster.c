/*
 * gemm_raster.c - the raster of a tiled GEMM's CTAs and its static
 * reference (pascal/gemm_config.h): which output tile each CTA runs in
 * Triton's grouped order, and the fills of the raster's waves in lock step
 * under LRU. Beyond the paper, whose B_0 assumes every input tile read once
 * (App. C "GEMM instantiation"); here B_0 is the value of a cache that
 * holds the whole input, and V_s says what a smaller one refetches.
 *
 * The order is pascal/gemm_raster.h's (Triton's tutorial matmul), shared
 * with the CUDA kernel.
 *
 * V_s walks the waves (CTAs wM .. wM + M - 1) once. A panel is an A row
 * panel (tile row i, all k) or a B column panel (tile column j, all k). A
 * wave reads each of its distinct panels, then its CTAs write their output
 * tiles, which are never read again; a panel read by an earlier wave u is
 * a hit when the bytes of the distinct panels whose last reader lies in
 * waves u .. w - 1 (the panel itself among them) and of the output tiles
 * those waves wrote fit in the capacity: the stack distance of LRU at
 * panel granularity, kept in a Fenwick tree over waves. The outputs decide
 * where a raster's reuse fits the cache only just: a 3072^2 FP16 GEMM of
 * 128 x 128 tiles keeps all of B (18.9 MB) and a wave's two A panels
 * (1.6 MB) in a 21 MB cache, not with the wave's 3.1 MB of FP32 outputs
 * as well (the direct raster then reads B once per wave).
 * O(tiles + panels log waves) time, O(panels + waves) memory; in practice
 * near O(tiles): the outputs of a few full waves usually fill the cache,
 * so a panel last read further back misses without a look into the tree
 * (within()), and the tree forgets it.
 */
#include <assert.h>
#include <stdbool.h>
#include <stdlib.h>

#include "pascal/gemm_config.h"
#include "pascal/gemm_raster.h"

void pascal_gemm_raster_tile(uint32_t n_r, uint32_t n_c, uint32_t group_m, uint64_t pid,
                             uint32_t *i, uint32_t *j)
{
  pascal_gemm_raster_ij(n_r, n_c, group_m, pid, i, j);
}

/* The raster's tiles in pid order without a division per tile: pid's
 * tile is (first + row, j), first the group's first tile row, rows the
 * group's height; pascal_gemm_raster_ij's order, checked at each wave. */
typedef struct raster_cursor {
  uint32_t n_r, n_c, group_m;
  uint32_t first, rows, row, j;
} raster_cursor;

/* The height of the group whose first tile row is at->first. */
static uint32_t group_rows(const raster_cursor *at)
{
  return at->n_r - at->first < at->group_m ? at->n_r - at->first : at->group_m;
}

static raster_cursor raster_start(uint32_t n_r, uint32_t n_c, uint32_t group_m)
{
  raster_cursor at = {.n_r = n_r, .n_c = n_c, .group_m = group_m};
  at.rows = group_rows(&at);
  return at;
}

static void raster_step(raster_cursor *at)
{
  if (++at->row < at->rows)
    return;
  at->row = 0;
  if (++at->j < at->n_c)
    return;
  at->j = 0;
  at->first += at->group_m;
  at->rows = group_rows(at);
}

static inline bool raster_is(const raster_cursor *at, uint64_t pid)
{
  uint32_t i, j;
  pascal_gemm_raster_ij(at->n_r, at->n_c, at->group_m, pid, &i, &j);
  return i == at->first + at->row && j == at->j;
}

/* Whether a panel of `bytes` last read `lag` waves ago can still be in the
 * cache: the outputs of those full waves alone (wave_out bytes each) fill
 * it otherwise. Where they do, no later read of the panel is a hit either,
 * so its bytes need not leave the wave that read it. */
static bool within(uint64_t lag, double bytes, double wave_out, double capacity)
{
  return (double)lag * wave_out + bytes <= capacity;
}

/* Fenwick tree of bytes over waves 0 .. n-1. */
static void fen_add(double *t, uint64_t n, uint64_t w, double v)
{
  for (uint64_t x = w + 1; x <= n; x += x & (~x + 1))
    t[x - 1] += v;
}

static double fen_prefix(const double *t, uint64_t w) /* waves 0 .. w-1 */
{
  double s = 0;
  for (uint64_t x = w; x > 0; x -= x & (~x + 1))
    s += t[x - 1];
  return s;
}

static pascal_status check_dim(uint32_t v, uint32_t tile, const char *name, pascal_error *err)
{
  if (v == 0 || tile == 0 || v % tile)
    return pascal_error_set(err, PASCAL_EINVAL, name, "%s (%u) is not a positive multiple of %u",
                            name, v, tile);
  return PASCAL_OK;
}

pascal_status pascal_gemm_static_fills(const pascal_gemm_shape *shape, const pascal_gemm_config *c,
                                       uint32_t M, double capacity_bytes, double *out,
                                       pascal_error *err)
{
  pascal_status st;
  if ((st = check_dim(shape->Mg, c->tile_m, "Mg", err)) ||
      (st = check_dim(shape->Ng, c->tile_n, "Ng", err)) ||
      (st = check_dim(shape->Kg, c->tile_k, "Kg", err)))
    return st;
  if (M == 0 || c->group_m == 0)
    return pascal_error_set(err, PASCAL_EINVAL, M == 0 ? "M" : "group_m", "must be at least 1");
  uint32_t n_r = shape->Mg / c->tile_m, n_c = shape->Ng / c->tile_n;
  uint64_t tiles = (uint64_t)n_r * n_c, waves = (tiles + M - 1) / M;
  if (tiles > PASCAL_GEMM_STATIC_TILES_MAX)
    return pascal_error_set(
        err, PASCAL_ERANGE, "Mg", "%llu output tiles: the static reference walks at most %llu",
        (unsigned long long)tiles, (unsigned long long)PASCAL_GEMM_STATIC_TILES_MAX);
  uint64_t panels = (uint64_t)n_r + n_c;
  double row_bytes = (double)shape->Kg * c->tile_m * c->elem_bytes;
  double col_bytes = (double)shape->Kg * c->tile_n * c->elem_bytes;
  double out_bytes = (double)c->tile_m * c->tile_n * PASCAL_GEMM_OUT_ELEM_BYTES;
  int64_t *last = malloc(panels * sizeof *last);  /* wave of the last read, -1: none */
  uint64_t *seen = malloc(panels * sizeof *seen); /* wave + 1 that listed it */
  uint64_t *list = malloc((panels < 2ull * M ? panels : 2ull * M) * sizeof *list);
  double *fen = calloc(waves, sizeof *fen);
  if (!last || !seen || !list || !fen) {
    st = pascal_error_set(err, PASCAL_ENOMEM, "Mg", "cannot allocate the static reference");
    goto done;
  }
  for (uint64_t p = 0; p < panels; p++) {
    last[p] = -1;
    seen[p] = 0;
  }
  double fills = 0;
  raster_cursor at = raster_start(n_r, n_c, c->group_m);
  for (uint64_t w = 0; w < waves; w++) {
    size_t n = 0;
    uint64_t end = (w + 1) * M < tiles ? (w + 1) * M : tiles;
    assert(raster_is(&at, w * M)); /* in step once a wave */
    for (uint64_t pid = w * M; pid < end; pid++, raster_step(&at)) {
      uint64_t ps[2] = {at.first + at.row, (uint64_t)n_r + at.j};
      for (int q = 0; q < 2; q++)
        if (seen[ps[q]] != w + 1) {
          seen[ps[q]] = w + 1;
          list[n++] = ps[q];
        }
    }
    /* every panel of the wave is read at once: decide all, then move them */
    double before_w = fen_prefix(fen, w), wave_out = (double)M * out_bytes;
    for (size_t q = 0; q < n; q++) {
      uint64_t p = list[q];
      double bytes = p < n_r ? row_bytes : col_bytes;
      if (last[p] < 0 || !within(w - (uint64_t)last[p], bytes, wave_out, capacity_bytes) ||
          before_w - fen_prefix(fen, (uint64_t)last[p]) > capacity_bytes)
        fills += bytes;
    }
    double wave_bytes = (double)(end - w * M) * out_bytes;
    for (size_t q = 0; q < n; q++) {
      uint64_t p = list[q];
      double bytes = p < n_r ? row_bytes : col_bytes;
      if (last[p] >= 0 && within(w - (uint64_t)last[p], 0, wave_out, capacity_bytes))
        fen_add(fen, waves, (uint64_t)last[p], -bytes);
      last[p] = (int64_t)w;
      wave_bytes += bytes;
    }
    fen_add(fen, waves, w, wave_bytes); /* its panels and its outputs */
  }
  *out = fills;
  st = PASCAL_OK;
done:
  free(last);
  free(seen);
  free(list);
  free(fen);
  return st;
}
