/*
 * bench_matmul_rank.c - how well predicted times rank a matmul autotuner's
 * configurations (issue 31 item 8): for each problem shape, every
 * configuration of the grid the sim device can run is measured on the sim
 * (pascal_simdev_gemm_of_config: the kernel as a Triton matmul runs it, M,
 * N, K padded to whole tiles) and ranked by each predictor; per shape and
 * predictor it prints Kendall's tau-b between predicted and measured times,
 * the top-1 regret (measured time of the predicted best over the measured
 * best, minus 1) and whether the measured best is among the predicted four,
 * then the medians over shapes (and the top-4 hit rate).
 *
 * Predictors (a peer is one more row of `rankers`):
 *   pascal   time_s of pascal_gemm_rank (the daemon's answer): the
 *            calibration's time at the anchor, carried to the configuration
 *            by the static raster references and the rounds model with its
 *            fitted step overhead (pascal/gemm_config.h);
 *   aligned  the same transfer with aligned K = 1 fills: B_0 at the query
 *            and at the anchor (pascal_gemm_time_config);
 *   triton   triton.ops.matmul_perf_model.estimate_matmul_time's
 *            arithmetic (read in triton-lang/triton, not copied): max(compute
 *            at the tensor rate scaled by active warps, DRAM + L2 loads with
 *            80 % of repeated loads from L2) + store, on the profile's peaks.
 *
 * Grid: the tiles of Triton's tutorial autotune lists (2-byte: nine tiles,
 * today's 128x128x64 among them; 1-byte: eight), stages 2..5, GROUP_SIZE_M
 * 1 and 8. Shapes: square, skinny, large K and sizes off every tile, none of
 * them a shape of the calibration's grid (Mg, Ng in 256..8192, Kg in
 * 1024..8192, powers of two).
 *
 * usage: bench_matmul_rank BUNDLE [PROFILE] [--smem B] [--only TEXT]
 *   BUNDLE a GEMM calibration of the sim device (the shipped
 *   deploy/calibrations/sim-gb10-tiled-gemm.json), PROFILE its sim profile
 *   file (default: the built-in gb10-like); --smem gives the model the
 *   device's shared memory per SM when the bundle does not state it;
 *   --only runs the shapes whose name contains TEXT; BENCH_ROWS=1 prints
 *   every configuration's times.
 * Prints; asserts nothing. About 20 s of CPU on gb10-like.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pascal/answer.h"
#include "pascal/gemm_config.h"
#include "pascal/origami.h"
#include "pascal/simdev.h"
#include "pascal_codec.h"

#define MAX_CONFIGS 128
#define TOP_K       4

typedef struct tile {
  uint32_t m, n, k, warps;
} tile;

/* Triton's tutorial lists (03-matrix-multiplication, get_cuda_autotune_config). */
static const tile tiles2[] = {{128, 256, 64, 8}, {64, 256, 32, 4}, {128, 128, 32, 4},
                              {128, 64, 32, 4},  {64, 128, 32, 4}, {128, 32, 32, 4},
                              {64, 32, 32, 2},   {32, 64, 32, 2},  {128, 128, 64, 4}};
static const tile tiles1[] = {{128, 256, 128, 8}, {256, 128, 128, 8}, {256, 64, 128, 4},
                              {64, 256, 128, 4},  {128, 128, 128, 4}, {128, 64, 64, 4},
                              {64, 128, 64, 4},   {128, 32, 64, 4}};

typedef struct shape {
  const char *name;
  uint32_t M, N, K, elem_bytes;
} shape;

static const shape shapes[] = {
    {"square 1536", 1536, 1536, 1536, 2},
    {"square 3072", 3072, 3072, 3072, 2},
    {"skinny 384x6144", 384, 6144, 4096, 2},
    {"skinny 6144x384", 6144, 384, 3072, 2},
    {"large K 768", 768, 768, 16384, 2},
    {"off-tile 1000x3000", 1000, 3000, 2000, 2},
    {"large 8192x8192x4096", 8192, 8192, 4096, 2},
    {"fp8 square 3072", 3072, 3072, 3072, 1},
    {"fp8 off-tile 1000x2000", 1000, 2000, 4000, 1},
};

typedef struct config {
  pascal_gemm_config c;
  uint32_t warps;
} config;

typedef struct bench {
  const pascal_model *model;
  const pascal_simdev_profile *profile;
  pascal_simdev *dev;
} bench;

/* A predictor: the predicted time of configuration `cf` on the padded
 * shape `s` (M, N, K before padding in `sh`); PASCAL_OK or a refusal. */
typedef pascal_status (*ranker_fn)(const bench *b, const shape *sh, const pascal_gemm_shape *s,
                                   const config *cf, double *out);

static pascal_status answer(const bench *b, const pascal_gemm_shape *s, const config *cf,
                            pascal_answer *a)
{
  pascal_query q = pascal_query_gemm(s, &cf->c);
  return pascal_answer_query(b->model, NULL, &q, a, NULL);
}

/* What an autotuner calls: pascal_gemm_rank on the unpadded problem (it
 * pads to the configuration's tiles as `s` is). */
static pascal_status rank_pascal(const bench *b, const shape *sh, const pascal_gemm_shape *s,
                                 const config *cf, double *out)
{
  (void)s;
  pascal_gemm_shape problem = {sh->M, sh->N, sh->K};
  pascal_gemm_ranked r;
  pascal_status st = pascal_gemm_rank(b->model, &problem, &cf->c, 1, &r, NULL);
  if (!st && !(st = r.status))
    *out = r.time_s;
  return st;
}

static pascal_status rank_aligned(const bench *b, const shape *sh, const pascal_gemm_shape *s,
                                  const config *cf, double *out)
{
  (void)sh;
  pascal_answer a;
  pascal_status st = answer(b, s, cf, &a);
  if (st)
    return st;
  pascal_gemm_prediction anchor;
  pascal_time t;
  pascal_query q = pascal_query_gemm(s, &cf->c);
  if ((st = pascal_gemm_geometry(pascal_model_gemm(b->model), &a.gemm_config.anchor, &anchor,
                                 NULL)) ||
      (st = pascal_gemm_time_config(b->model, &q.gemm, &a.gemm_config, a.gemm.B0, anchor.B0, &t,
                                    NULL)))
    return st;
  *out = t.time_s;
  return PASCAL_OK;
}

/* estimate_matmul_time's arithmetic, its unit constants included (GOPS of
 * 2^30, MB of 2^20 over GB/s): the result is in its milliseconds. */
static pascal_status rank_triton(const bench *b, const shape *sh, const pascal_gemm_shape *s,
                                 const config *cf, double *out)
{
  (void)s;
  const pascal_simdev_profile *p = b->profile;
  double M = sh->M, N = sh->N, K = sh->K, eb = cf->c.elem_bytes;
  double cta_m = ceil(M / cf->c.tile_m), cta_n = ceil(N / cf->c.tile_n), ctas = cta_m * cta_n;
  double Mm = fmax(M, cf->c.tile_m), Nn = fmax(N, cf->c.tile_n);
  double subcores = 4.0 * p->sm_count;
  double warps = fmin(cf->warps, 4) * ctas;
  double tput = fmin(subcores, warps) / subcores * p->peaks.tensor_flops / 1e12; /* TOPS */
  double compute_ms = 2 * Mm * Nn * K / (1024.0 * 1024 * 1024) / tput;
  double dram_gbps = p->peaks.dram_bytes_per_s / 1e9;
  double bw = dram_gbps * (fmin(1, ctas / 32) * 0.95 + fmax(fmin(1, (ctas - 32) / 76), 0) * 0.05);
  double l2 = bw * 4;
  double a_dram = M * K * eb * (1 + 0.2 * (cta_n - 1)), a_l2 = M * K * eb * 0.8 * (cta_n - 1);
  double b_dram = N * K * eb * (1 + 0.2 * (cta_m - 1)), b_l2 = N * K * eb * 0.8 * (cta_m - 1);
  double load_ms = (a_dram + b_dram) / (1024.0 * 1024) / bw + (a_l2 + b_l2) / (1024.0 * 1024) / l2;
  double store_ms = M * N * eb / (1024.0 * 1024) / (bw * 0.6);
  *out = fmax(compute_ms, load_ms) + store_ms;
  return PASCAL_OK;
}

/* Origami (docs/origami.md): its own time of the configuration on the
 * bundle's device (sm_count, C, peaks), with the configuration's raster and
 * CTAs per SM, on the unpadded problem shape as tritonBLAS gives it (its
 * work utilisation charges the padding). */
static pascal_status rank_origami(const bench *b, const shape *sh, const pascal_gemm_shape *s,
                                  const config *cf, double *out)
{
  (void)s;
  const pascal_device *dev = pascal_model_device(b->model);
  pascal_origami_device d;
  pascal_origami_device_of(dev, &d);
  uint32_t ctas = 1;
  pascal_status st = pascal_gemm_ctas_per_sm(pascal_gemm_smem_per_sm(dev), &cf->c, 1, &ctas, NULL);
  if (st)
    return st;
  pascal_origami_config c = {cf->c.tile_m,     cf->c.tile_n,  cf->c.tile_k,
                             cf->c.elem_bytes, cf->c.group_m, ctas};
  pascal_gemm_shape p = {sh->M, sh->N, sh->K};
  pascal_origami_time t;
  if ((st = pascal_origami_time_of(&d, &p, &c, &t, NULL)))
    return st;
  *out = t.time_s;
  return PASCAL_OK;
}

/* The methods compared, one row each: a peer's estimator is one more row
 * (its name and its ranker_fn); every column below follows this table. */
static const struct {
  const char *name;
  ranker_fn fn;
} rankers[] = {
    {"pascal", rank_pascal},
    {"aligned", rank_aligned},
    {"triton", rank_triton},
    {"origami", rank_origami},
};
#define N_RANKERS (sizeof rankers / sizeof *rankers)

/* Kendall's tau-b of x and y (n pairs). */
static double kendall_tau_b(const double *x, const double *y, size_t n)
{
  double conc = 0, disc = 0, tx = 0, ty = 0;
  for (size_t i = 0; i < n; i++)
    for (size_t j = i + 1; j < n; j++) {
      double a = x[i] - x[j], b = y[i] - y[j];
      if (a == 0 && b == 0)
        continue;
      if (a == 0)
        tx++;
      else if (b == 0)
        ty++;
      else if ((a > 0) == (b > 0))
        conc++;
      else
        disc++;
    }
  double d = sqrt((conc + disc + tx) * (conc + disc + ty));
  return d > 0 ? (conc - disc) / d : NAN;
}

static int cmp_double(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static double median(double *v, size_t n)
{
  qsort(v, n, sizeof *v, cmp_double);
  return n == 0 ? NAN : n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static size_t grid(uint32_t elem_bytes, config *out)
{
  const tile *t = elem_bytes == 1 ? tiles1 : tiles2;
  size_t nt = elem_bytes == 1 ? sizeof tiles1 / sizeof *tiles1 : sizeof tiles2 / sizeof *tiles2;
  size_t n = 0;
  for (size_t i = 0; i < nt; i++)
    for (uint32_t s = 2; s <= 5; s++)
      for (uint32_t g = 1; g <= 8; g += 7)
        out[n++] = (config){{t[i].m, t[i].n, t[i].k, elem_bytes, s, g}, t[i].warps};
  return n;
}

static uint32_t round_up(uint32_t v, uint32_t b)
{
  return (v + b - 1) / b * b;
}

/* One shape: measure, predict, score. Returns the configurations ranked. */
static size_t one_shape(const bench *b, const shape *sh, double tau[N_RANKERS],
                        double regret[N_RANKERS], int hit[N_RANKERS], size_t *refused_mismatch)
{
  config cfg[MAX_CONFIGS];
  size_t n = grid(sh->elem_bytes, cfg), kept = 0;
  double meas[MAX_CONFIGS], pred[N_RANKERS][MAX_CONFIGS];
  for (size_t i = 0; i < n; i++) {
    const pascal_gemm_config *c = &cfg[i].c;
    pascal_gemm_shape s = {round_up(sh->M, c->tile_m), round_up(sh->N, c->tile_n),
                           round_up(sh->K, c->tile_k)};
    pascal_simdev_gemm run;
    pascal_simdev_stats st;
    int runs = pascal_simdev_gemm_of_config(b->profile, &s, c, 0, &run, NULL) == PASCAL_OK &&
               pascal_simdev_run_gemm(b->dev, &run, &st, NULL) == PASCAL_OK;
    int all = runs;
    double t[N_RANKERS];
    for (size_t r = 0; r < N_RANKERS; r++)
      if (rankers[r].fn(b, sh, &s, &cfg[i], &t[r]) != PASCAL_OK)
        all = 0;
    double dummy;
    if (runs != (rank_pascal(b, sh, &s, &cfg[i], &dummy) == PASCAL_OK))
      (*refused_mismatch)++;
    if (!all)
      continue;
    if (getenv("BENCH_ROWS")) { /* triton's unit is its own (milliseconds) */
      printf("  %ux%ux%u s%u g%u w%u ctas/sm %u: sim %.4g ms", c->tile_m, c->tile_n, c->tile_k,
             c->stages, c->group_m, cfg[i].warps, run.tiling.resident_ctas / b->profile->sm_count,
             st.kernel_ns * 1e-6);
      for (size_t r = 0; r < N_RANKERS; r++)
        printf("  %s %.4g", rankers[r].name, t[r]);
      printf("\n");
    }
    meas[kept] = st.kernel_ns;
    for (size_t r = 0; r < N_RANKERS; r++)
      pred[r][kept] = t[r];
    kept++;
  }
  size_t best = 0;
  for (size_t i = 1; i < kept; i++)
    if (meas[i] < meas[best])
      best = i;
  for (size_t r = 0; r < N_RANKERS; r++) {
    tau[r] = kendall_tau_b(pred[r], meas, kept);
    size_t pb = 0;
    for (size_t i = 1; i < kept; i++)
      if (pred[r][i] < pred[r][pb])
        pb = i;
    regret[r] = kept ? meas[pb] / meas[best] - 1 : NAN;
    /* the measured best among the first TOP_K of the predicted order, ties
     * in the grid's order (the stable sort of Triton's top_k) */
    size_t before = 0;
    for (size_t i = 0; i < kept; i++)
      before += pred[r][i] < pred[r][best] || (pred[r][i] == pred[r][best] && i < best);
    hit[r] = before < TOP_K;
  }
  return kept;
}

int main(int argc, char **argv)
{
  if (argc < 2) {
    fprintf(stderr, "usage: bench_matmul_rank BUNDLE [PROFILE] [--smem B] [--only TEXT]\n");
    return 2;
  }
  const char *profile_path = NULL, *only = NULL;
  uint64_t smem = 0;
  for (int i = 2; i < argc; i++) {
    if (strcmp(argv[i], "--smem") == 0 && i + 1 < argc)
      smem = strtoull(argv[++i], NULL, 10);
    else if (strcmp(argv[i], "--only") == 0 && i + 1 < argc)
      only = argv[++i];
    else
      profile_path = argv[i];
  }
  pascal_error err = {0};
  pascal_simdev_profile p;
  json_t *doc = NULL;
  pascal_codec_bundle bundle;
  pascal_model *model = NULL;
  pascal_simdev *dev = NULL;
  pascal_codec_bundle_init(&bundle);
  if (profile_path)
    pascal_simdev_profile_load(profile_path, &p, &err);
  else
    pascal_simdev_profile_default(&p);
  if (err.status || pascal_codec_load_file(argv[1], &doc, &err) ||
      pascal_codec_bundle_decode(doc, &bundle, &err)) {
    fprintf(stderr, "bench_matmul_rank: %s: %s\n", err.field, err.message);
    return 1;
  }
  if (smem)
    bundle.cal.device.smem_per_sm = smem;
  if (pascal_model_fit(&bundle.cal, &model, &err) || pascal_simdev_new(&p, &dev, &err)) {
    fprintf(stderr, "bench_matmul_rank: %s: %s\n", err.field, err.message);
    return 1;
  }
  bench b = {model, &p, dev};
  const size_t ns = sizeof shapes / sizeof *shapes;
  double tau[N_RANKERS][16], regret[N_RANKERS][16];
  int hits[N_RANKERS] = {0};
  size_t mismatch = 0;
  printf("%s on %s (smem per SM known to the model: %s)\n", argv[1], p.name,
         pascal_gemm_smem_per_sm(&bundle.cal.device) ? "yes" : "no");
  printf("%-24s %6s", "shape", "ranked");
  for (size_t r = 0; r < N_RANKERS; r++)
    printf("  %-8s tau  regret top4", rankers[r].name);
  printf("\n");
  size_t done = 0;
  for (size_t i = 0; i < ns; i++) {
    if (only && !strstr(shapes[i].name, only))
      continue;
    double t[N_RANKERS], g[N_RANKERS];
    int h[N_RANKERS];
    size_t kept = one_shape(&b, &shapes[i], t, g, h, &mismatch);
    printf("%-24s %6zu", shapes[i].name, kept);
    for (size_t r = 0; r < N_RANKERS; r++) {
      printf("  %13.3f %6.2f%% %4s", t[r], 100 * g[r], h[r] ? "yes" : "no");
      tau[r][done] = t[r];
      regret[r][done] = g[r];
      hits[r] += h[r];
    }
    printf("\n");
    done++;
  }
  printf("%-24s %6s", "median (hit rate)", "");
  for (size_t r = 0; r < N_RANKERS; r++)
    printf("  %13.3f %6.2f%% %3zu/%zu", median(tau[r], done), 100 * median(regret[r], done),
           (size_t)hits[r], done);
  printf("\nconfigurations the model and the sim disagree on running: %zu\n", mismatch);
  pascal_simdev_free(dev);
  pascal_model_free(model);
  pascal_codec_bundle_free(&bundle);
  json_decref(doc);
  return 0;
}
