/*
 * origami.c - Origami's analytical GEMM model on NVIDIA (pascal/origami.h):
 * the grouped CTA mapping and its unique-tile counts, the two-timestep L2
 * hit rate and DRAM traffic, the per-CTA latency on the device's measured
 * peaks, and the selection. Reproduced from Origami's public sources
 * (ROCm/rocm-libraries, shared/origami), not copied; docs/origami.md names
 * the function each part follows and every adaptation to NVIDIA.
 */
#include "pascal/origami.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* Origami's constants (heuristics.hpp of the two-timestep model). */
#define ORI_L2_CAPACITY_SHARE 0.99  /* of C a timestep's panels may fill to be reused */
#define ORI_L2_MIN_HIT_RATE   0.5   /* stands in for a hit rate of exactly 0          */
#define ORI_DRAM_LATENCY_CY   200.0 /* main memory load latency, cycles              */
#define ORI_OCCUPANCY_DECAY   0.95  /* prologue/epilogue amortisation per CTA per SM  */
#define ORI_WEIGHT_PROLOGUE   1.5
#define ORI_WEIGHT_EPILOGUE   2.0
#define ORI_LOOP_OVERHEAD_CY  500.0   /* per main-loop iteration, cycles               */
#define ORI_SETUP_CY          1.0     /* workgroup setup, cycles                       */
#define ORI_K_PADDING_CY      50000.0 /* times the share of K in the padded last step  */
#define ORI_TIE_SHARE         0.01    /* selection: within 1 % of the fastest is a tie */
/* The memory transaction a row of a tile is rounded to: NVIDIA's 32-byte L2
 * sector (Origami rounds to AMD's 128-byte line). */
#define ORI_SECTOR_BYTES      32.0

static uint64_t ceil_div(uint64_t a, uint64_t b)
{
  return a / b + (a % b != 0);
}

static pascal_status check_grid(uint64_t grid_m, uint64_t grid_n, uint32_t group_m,
                                pascal_error *err)
{
  if (grid_m == 0)
    return pascal_error_set(err, PASCAL_EINVAL, "grid_m", "grid_m must be at least 1");
  if (grid_n == 0)
    return pascal_error_set(err, PASCAL_EINVAL, "grid_n", "grid_n must be at least 1");
  if (group_m == 0)
    return pascal_error_set(err, PASCAL_EINVAL, "group_m", "group_m must be at least 1");
  if (grid_m > PASCAL_ORIGAMI_TILES_MAX / grid_n)
    return pascal_error_set(err, PASCAL_ERANGE, "grid_m",
                            "grid_m x grid_n exceeds %llu output tiles",
                            (unsigned long long)PASCAL_ORIGAMI_TILES_MAX);
  return PASCAL_OK;
}

/* ---- mapping and unique tiles (gemm.cpp: wgm_to_grid, count_unique_range) -- */

/* The grid as Origami's slab decoding sees a negative WGM: slabs of
 * w = min(group_m, grid_m) tile rows; inside a slab the pid sweeps columns,
 * the row varying fastest; a last slab of fewer rows takes the rest. */
typedef struct slabs {
  uint64_t grid_m, grid_n, w;
  uint64_t per_slab; /* grid_n w                  */
  uint64_t full;     /* whole slabs: grid_m / w   */
} slabs;

static slabs slabs_of(uint64_t grid_m, uint64_t grid_n, uint32_t group_m)
{
  slabs s = {.grid_m = grid_m, .grid_n = grid_n, .w = group_m < grid_m ? group_m : grid_m};
  s.per_slab = grid_n * s.w;
  s.full = grid_m / s.w;
  return s;
}

static void decode(const slabs *s, uint64_t pid, uint64_t *row, uint64_t *col)
{
  uint64_t covered = s->full * s->per_slab;
  if (pid < covered) {
    uint64_t off = pid % s->per_slab;
    *col = off / s->w;
    *row = pid / s->per_slab * s->w + off % s->w;
  } else {
    uint64_t rest = s->grid_m - s->full * s->w, off = pid - covered;
    *col = off / rest;
    *row = s->full * s->w + off % rest;
  }
}

/* Rows in the slab that holds row `row`. */
static uint64_t slab_rows(const slabs *s, uint64_t row)
{
  uint64_t first = row / s->w * s->w, end = first + s->w;
  return (end < s->grid_m ? end : s->grid_m) - first;
}

pascal_status pascal_origami_tile_of(uint64_t grid_m, uint64_t grid_n, uint32_t group_m,
                                     uint64_t pid, uint64_t *row, uint64_t *col, pascal_error *err)
{
  pascal_status st = check_grid(grid_m, grid_n, group_m, err);
  if (st)
    return st;
  if (pid >= grid_m * grid_n)
    return pascal_error_set(err, PASCAL_EINVAL, "pid", "pid %llu is outside the %llu tiles",
                            (unsigned long long)pid, (unsigned long long)(grid_m * grid_n));
  slabs s = slabs_of(grid_m, grid_n, group_m);
  decode(&s, pid, row, col);
  return PASCAL_OK;
}

/* Origami's closed form from the first and last CTA of the range. In one
 * slab: the columns from the first to the last, and the slab's rows as soon
 * as two columns are touched (else the rows between). Across slabs: every
 * column once a whole slab lies between (else the two partial sweeps,
 * capped), and per slab the rows it reaches (a partial first slab whose
 * first CTA is in its last column, a partial last slab whose last CTA is in
 * its first column). */
static void unique_range(const slabs *s, uint64_t start, uint64_t count, uint64_t *rows,
                         uint64_t *cols)
{
  if (count >= s->grid_m * s->grid_n) {
    *rows = s->grid_m;
    *cols = s->grid_n;
    return;
  }
  uint64_t fr, fc, lr, lc;
  decode(s, start, &fr, &fc);
  decode(s, start + count - 1, &lr, &lc);
  uint64_t first_slab = fr / s->w, last_slab = lr / s->w;
  uint64_t r, c;
  if (first_slab == last_slab) {
    c = lc - fc + 1;
    r = c > 1 ? slab_rows(s, fr) : lr - fr + 1;
  } else {
    c = last_slab - first_slab > 1 ? s->grid_n : (s->grid_n - fc) + (lc + 1);
    uint64_t first_w = slab_rows(s, fr), last_w = slab_rows(s, lr);
    uint64_t r_first = fc < s->grid_n - 1 ? first_w : first_w - (fr - first_slab * s->w);
    uint64_t r_last = lc > 0 ? last_w : (lr - last_slab * s->w) + 1;
    uint64_t r_mid = (last_slab - first_slab - 1) * s->w;
    r = r_first + r_mid + r_last;
  }
  *rows = r < s->grid_m ? r : s->grid_m;
  *cols = c < s->grid_n ? c : s->grid_n;
}

pascal_status pascal_origami_unique_tiles(uint64_t grid_m, uint64_t grid_n, uint32_t group_m,
                                          uint64_t start, uint64_t count, uint64_t *rows,
                                          uint64_t *cols, pascal_error *err)
{
  pascal_status st = check_grid(grid_m, grid_n, group_m, err);
  if (st)
    return st;
  uint64_t total = grid_m * grid_n;
  if (count == 0 || start >= total || count > total - start)
    return pascal_error_set(err, PASCAL_EINVAL, "count",
                            "the range [%llu, %llu + %llu) is empty or leaves the %llu tiles",
                            (unsigned long long)start, (unsigned long long)start,
                            (unsigned long long)count, (unsigned long long)total);
  slabs s = slabs_of(grid_m, grid_n, group_m);
  unique_range(&s, start, count, rows, cols);
  return PASCAL_OK;
}

/* ---- the L2 model (gemm.cpp: estimate_cache_hit_rates, two timesteps) ---- */

static pascal_status check_config(const pascal_origami_config *c, const char *prefix,
                                  pascal_error *err)
{
  const struct {
    uint32_t v;
    const char *name;
  } f[] = {{c->tile_m, "tile_m"},         {c->tile_n, "tile_n"},   {c->tile_k, "tile_k"},
           {c->elem_bytes, "elem_bytes"}, {c->group_m, "group_m"}, {c->occupancy, "occupancy"}};
  for (size_t i = 0; i < sizeof f / sizeof *f; i++)
    if (f[i].v == 0) {
      char field[PASCAL_ERROR_FIELD_MAX];
      snprintf(field, sizeof field, "%s.%s", prefix, f[i].name);
      return pascal_error_set(err, PASCAL_EINVAL, field, "%s must be at least 1", field);
    }
  return PASCAL_OK;
}

static pascal_status check_inputs(const pascal_origami_device *dev, const pascal_gemm_shape *shape,
                                  pascal_error *err)
{
  if (dev->sm_count == 0)
    return pascal_error_set(err, PASCAL_EINVAL, "sm_count", "sm_count must be at least 1");
  if (!(dev->l2_bytes > 0) || !isfinite(dev->l2_bytes))
    return pascal_error_set(err, PASCAL_EINVAL, "l2_bytes", "l2_bytes must be positive and finite");
  const struct {
    uint32_t v;
    const char *name;
  } f[] = {{shape->Mg, "shape.Mg"}, {shape->Ng, "shape.Ng"}, {shape->Kg, "shape.Kg"}};
  for (size_t i = 0; i < 3; i++)
    if (f[i].v == 0)
      return pascal_error_set(err, PASCAL_EINVAL, f[i].name, "%s must be at least 1", f[i].name);
  return PASCAL_OK;
}

static pascal_status traffic_of(const pascal_origami_device *dev, const pascal_gemm_shape *shape,
                                const pascal_origami_config *c, pascal_origami_traffic *out,
                                pascal_error *err)
{
  pascal_origami_traffic t = {0};
  t.grid_m = ceil_div(shape->Mg, c->tile_m);
  t.grid_n = ceil_div(shape->Ng, c->tile_n);
  pascal_status st = check_grid(t.grid_m, t.grid_n, c->group_m, err);
  if (st)
    return st;
  uint64_t N = dev->sm_count;
  t.ctas = t.grid_m * t.grid_n;
  t.timesteps = ceil_div(t.ctas, N);
  t.active_sms = t.ctas < N ? t.ctas : N;
  t.a_panel = (double)c->tile_m * shape->Kg * c->elem_bytes;
  t.b_panel = (double)c->tile_n * shape->Kg * c->elem_bytes;
  double per_cta = t.a_panel + t.b_panel;
  t.requested_bytes = (double)t.ctas * per_cta;

  slabs s = slabs_of(t.grid_m, t.grid_n, c->group_m);
  uint64_t count0 = t.active_sms;
  unique_range(&s, 0, count0, &t.rows0, &t.cols0);
  double ws0 = t.rows0 * t.a_panel + t.cols0 * t.b_panel;
  double req0 = count0 * per_cta, hits0 = req0 - ws0;
  double req1 = 0, hits1 = 0;
  if (t.timesteps > 1) {
    uint64_t count1 = t.ctas - N < N ? t.ctas - N : N;
    unique_range(&s, N, count1, &t.rows1, &t.cols1);
    req1 = count1 * per_cta;
    /* Column reuse: the overlap of the [first, last] column ranges of the
     * two timesteps, each from its first CTA to the CTA count0 - 1 after it
     * (clamped to the grid: the second timestep may be partial). A range
     * whose last column precedes its first (it crosses a group) can pass
     * the test and give an empty intersection, where Origami's unsigned
     * arithmetic wraps: it counts as none. */
    uint64_t r, f0, l0, f1, l1, last1 = N + count0 - 1;
    decode(&s, 0, &r, &f0);
    decode(&s, count0 - 1, &r, &l0);
    decode(&s, N, &r, &f1);
    decode(&s, last1 < t.ctas ? last1 : t.ctas - 1, &r, &l1);
    uint64_t lo = f1 > f0 ? f1 : f0, hi = l1 < l0 ? l1 : l0;
    if (f1 <= l0 && l1 >= f0 && hi >= lo)
      t.cols_reused = hi - lo + 1;
    /* Row reuse: all rows, when both timesteps touch every row. */
    t.rows_reused = t.rows0 == t.grid_m && t.rows1 == t.grid_m ? t.grid_m : 0;
    double temporal = ws0 <= ORI_L2_CAPACITY_SHARE * dev->l2_bytes
                          ? t.rows_reused * t.a_panel + t.cols_reused * t.b_panel
                          : 0;
    double ws1 = t.rows1 * t.a_panel + t.cols1 * t.b_panel;
    hits1 = req1 - fmax(ws1 - temporal, 0);
  }
  double later = (double)(t.timesteps - 1);
  t.hit_rate = fmin(fmax((hits0 + later * hits1) / (req0 + later * req1), 0), 1);
  t.hit_rate_used = t.hit_rate == 0 ? ORI_L2_MIN_HIT_RATE : t.hit_rate;
  t.dram_bytes = (1 - t.hit_rate_used) * t.requested_bytes;
  *out = t;
  return PASCAL_OK;
}

void pascal_origami_device_of(const pascal_device *dev, pascal_origami_device *out)
{
  *out = (pascal_origami_device){
      .sm_count = dev->sm_count,
      .l2_bytes = (double)dev->capacity_blocks * dev->block_bytes,
  };
  if (dev->has_peaks)
    out->peaks = dev->peaks;
}

pascal_status pascal_origami_traffic_of(const pascal_origami_device *dev,
                                        const pascal_gemm_shape *shape,
                                        const pascal_origami_config *config,
                                        pascal_origami_traffic *out, pascal_error *err)
{
  pascal_status st;
  if ((st = check_inputs(dev, shape, err)) || (st = check_config(config, "config", err)))
    return st;
  return traffic_of(dev, shape, config, out, err);
}

/* ---- the time (gemm.cpp: compute_memory_latency, compute_tile_latency,
 *      compute_total_latency) --------------------------------------------- */

static double sectors(double bytes)
{
  return ceil(bytes / ORI_SECTOR_BYTES) * ORI_SECTOR_BYTES;
}

static pascal_status time_of(const pascal_origami_device *dev, const pascal_gemm_shape *shape,
                             const pascal_origami_config *c, pascal_origami_time *out,
                             pascal_error *err)
{
  pascal_origami_time r = {0};
  pascal_status st = traffic_of(dev, shape, c, &r.traffic, err);
  if (st)
    return st;
  const pascal_peaks *p = &dev->peaks;
  const pascal_origami_traffic *t = &r.traffic;
  double N = dev->sm_count, active = (double)t->active_sms, cycle = 1 / p->sm_clock_hz;
  uint64_t k_steps = ceil_div(shape->Kg, c->tile_k);
  double launched = (double)t->grid_m * c->tile_m * ((double)t->grid_n * c->tile_n) *
                    ((double)k_steps * c->tile_k);
  r.utilization = (double)shape->Mg * shape->Ng * (double)shape->Kg / launched;
  uint64_t occ = c->occupancy < t->timesteps ? c->occupancy : t->timesteps;
  r.occupancy_factor = pow(ORI_OCCUPANCY_DECAY, (double)occ);

  double tm = c->tile_m, tn = c->tile_n, tk = c->tile_k, eb = c->elem_bytes;
  r.compute_s = 2 * tm * tn * tk / (p->tensor_flops / N);
  double loads = active * (tm + tn) * sectors(tk * eb); /* one k-iteration, all active SMs */
  double share = fmin(active / N, 1);
  r.l2_s = loads / (p->l2_bytes_per_s * active / N);
  r.dram_s =
      (1 - t->hit_rate_used) * loads / (p->dram_bytes_per_s * share) + ORI_DRAM_LATENCY_CY * cycle;
  r.memory_s = fmax(r.l2_s, r.dram_s);
  r.iteration_s = fmax(r.compute_s, r.memory_s) / r.utilization;
  r.iterations = k_steps > 1 ? k_steps - 1 : 1;
  r.prologue_s = r.memory_s / r.utilization * r.occupancy_factor;
  double store = active * tm * sectors(tn * eb) / (p->dram_bytes_per_s * share);
  double k_pad = shape->Kg % c->tile_k
                     ? (double)(shape->Kg % c->tile_k) / shape->Kg * ORI_K_PADDING_CY * cycle
                     : 0;
  r.epilogue_s = (store + r.compute_s / r.utilization) * r.occupancy_factor + k_pad;
  r.cta_s = r.iteration_s * (double)r.iterations + ORI_WEIGHT_PROLOGUE * r.prologue_s +
            ORI_WEIGHT_EPILOGUE * r.epilogue_s + ORI_SETUP_CY * cycle +
            ORI_LOOP_OVERHEAD_CY * cycle * (double)r.iterations;
  r.time_s = r.cta_s * (double)t->timesteps;
  *out = r;
  return PASCAL_OK;
}

pascal_status pascal_origami_time_of(const pascal_origami_device *dev,
                                     const pascal_gemm_shape *shape,
                                     const pascal_origami_config *config, pascal_origami_time *out,
                                     pascal_error *err)
{
  pascal_status st;
  pascal_error perr;
  if ((st = check_inputs(dev, shape, err)) || (st = check_config(config, "config", err)))
    return st;
  if (pascal_peaks_check(&dev->peaks, &perr))
    return pascal_error_set(err, perr.status, "peaks", "peaks.%s: %s", perr.field, perr.message);
  return time_of(dev, shape, config, out, err);
}

/* ---- the selection (utils.cpp: select_best_macro_tile_size and its
 *      arithmetic-intensity tie breaker, a stable sort) --------------------- */

typedef struct ranked {
  size_t index;
  double time_s, intensity;
} ranked;

static int by_time(const void *pa, const void *pb)
{
  const ranked *a = pa, *b = pb;
  if (a->time_s != b->time_s)
    return a->time_s < b->time_s ? -1 : 1;
  return (a->index > b->index) - (a->index < b->index);
}

static int by_tie_break(const void *pa, const void *pb)
{
  const ranked *a = pa, *b = pb;
  if (a->intensity != b->intensity)
    return a->intensity > b->intensity ? -1 : 1;
  return by_time(pa, pb);
}

pascal_status pascal_origami_rank(const pascal_origami_device *dev, const pascal_gemm_shape *shape,
                                  const pascal_origami_config *configs, size_t n, size_t *order,
                                  double *time_s, pascal_error *err)
{
  if (n == 0)
    return pascal_error_set(err, PASCAL_EINVAL, "n", "no configuration to rank");
  pascal_status st;
  pascal_error perr;
  if ((st = check_inputs(dev, shape, err)))
    return st;
  if (pascal_peaks_check(&dev->peaks, &perr))
    return pascal_error_set(err, perr.status, "peaks", "peaks.%s: %s", perr.field, perr.message);
  for (size_t i = 0; i < n; i++) {
    char prefix[32];
    snprintf(prefix, sizeof prefix, "configs[%zu]", i);
    if ((st = check_config(&configs[i], prefix, err)))
      return st;
  }
  ranked *r = malloc(n * sizeof *r);
  if (!r)
    return pascal_error_set(err, PASCAL_ENOMEM, "n", "out of memory ranking %zu configurations", n);
  for (size_t i = 0; i < n; i++) {
    const pascal_origami_config *c = &configs[i];
    pascal_origami_time t;
    if ((st = time_of(dev, shape, c, &t, err)))
      goto fail;
    double tm = c->tile_m, tn = c->tile_n, tk = c->tile_k;
    r[i] = (ranked){i, t.time_s, 2 * tm * tn * tk / (tm * tk + tn * tk + tm * tn)};
  }
  qsort(r, n, sizeof *r, by_time);
  size_t ties = 1;
  while (ties < n && (r[ties].time_s - r[0].time_s) / r[0].time_s < ORI_TIE_SHARE)
    ties++;
  qsort(r, ties, sizeof *r, by_tie_break);
  for (size_t i = 0; i < n; i++) {
    order[i] = r[i].index;
    if (time_s)
      time_s[r[i].index] = r[i].time_s;
  }
fail:
  free(r);
  return st;
}
