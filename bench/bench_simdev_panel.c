/*
 * bench_simdev_panel.c - what the sim device's profiles look like on the
 * paper's evaluation layout (paper §6.1, "Experimental Evaluation"):
 *
 *   panel: the held-out scan panel of `pascal plan` (core/src/plan_gen.c):
 *          42 keys (the seven families `pascal plan` gives the profile's
 *          device, one per depth at the highest occupancy its smem_per_sm
 *          allows, each at the six compute values the plan leaves free:
 *          m = 3, 7, 8, 9, 10, 11),
 *          sizes from short to long work (N, W) = (16C/5, 1), (16C/5, 8),
 *          (16C/5, 64), (4C, 24), (4C, 80) (GB10: N = 4096 and 5120), two
 *          repeats (seeds 0 and 1) per (key, N, W): 420 runs. Prints the
 *          share of runs with K > 1.05 and the repeat-to-repeat floor: the
 *          MAPE of K when each run is predicted by its repeat (both
 *          directions; over runs, and balanced over keys).
 *   fade:  the plan's own grid (the same seven families,
 *          m in {0,1,2,4,5,6,12,13,14}, N in {12C/5, 16C/5, 24C/5} (GB10:
 *          3072, 4096, 6144), W in {1,4,16,64}), one repeat, K per family,
 *          size and horizon along m,
 *          and every place where K falls from >= 2 to <= 1.05 between
 *          adjacent m of the grid (divergence switching off in one step).
 *
 * usage: bench_simdev_panel PROFILE|- panel|fade [--sizes SHORT,LONG] [o path d]
 *   (`-` is the built-in gb10-like profile; --sizes runs the panel at these
 *   two N instead of 16C/5 and 4C, e.g. the paper's 4096,5120; o path d runs
 *   that one family instead of the plan's seven, which may be a family
 *   outside the plan). The panel also prints aligned K = 1's balanced MAPE
 *   on its runs (per key the mean of (K - 1) / K), as `pascal evaluate`
 *   computes it from the runs' K.
 * A full panel is ~5.3 G simulated requests on gb10-like (~8 CPU-minutes),
 * ~4.5 G on thor-like; the full fade ~5.4 G on gb10-like.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pascal/plan_gen.h"
#include "pascal/simdev.h"

typedef struct family {
  uint32_t o;
  int tma;
  uint32_t d;
} family;

#define NFAM 7u /* families of a paper plan (core/src/plan_gen.c) */

/* The families of the paper plan `pascal plan` writes for this profile's
 * device (its C, block size and shared memory per SM), in plan order: the
 * plan lists each family's keys together, NFAM blocks of equal size. */
static int plan_families(const pascal_simdev_profile *p, family out[NFAM])
{
  const pascal_plan_device pd = {p->capacity_blocks, p->block_bytes, p->smem_per_sm, 0};
  pascal_plan plan;
  pascal_error err;
  pascal_plan_init(&plan);
  if (pascal_plan_generate(&pd, PASCAL_PLAN_KIND_SCAN, 1, &plan, &err) != PASCAL_OK) {
    fprintf(stderr, "plan: %s\n", err.message);
    return -1;
  }
  for (size_t f = 0; f < NFAM; f++) {
    const pascal_plan_key *k = &plan.keys[f * (plan.n_keys / NFAM)];
    out[f] = (family){k->o, k->path == PASCAL_PLAN_TMA, k->d};
  }
  pascal_plan_free(&plan);
  return 0;
}

static const uint32_t PANEL_M[] = {3, 7, 8, 9, 10, 11};
/* (N as k C / 5, W), the plan's held-out sizes; the first three use the
 * panel's short size, the last two its long one (--sizes replaces both) */
static const uint64_t PANEL_NW[][2] = {{16, 1}, {16, 8}, {16, 64}, {20, 24}, {20, 80}};
#define PANEL_NM  (sizeof PANEL_M / sizeof PANEL_M[0])
#define PANEL_NNW (sizeof PANEL_NW / sizeof PANEL_NW[0])
#define DIVERGED  1.05

static const uint32_t PLAN_M[] = {0, 1, 2, 4, 5, 6, 12, 13, 14};
static const uint64_t PLAN_N[] = {12, 16, 24}; /* N = k C / 5 */
static const uint64_t PLAN_W[] = {1, 4, 16, 64};
#define PLAN_NM (sizeof PLAN_M / sizeof PLAN_M[0])

/* N = round(k C / 5), as `pascal plan` sizes scans for a device of capacity C */
static uint64_t plan_size(const pascal_simdev *dev, uint64_t k)
{
  return (k * pascal_simdev_profile_of(dev)->capacity_blocks * 2u + 5u) / 10u;
}

/* --sizes SHORT,LONG: the panel's two N instead of 16C/5 and 4C (0: none) */
static uint64_t panel_sizes[2];

/* N of a run: the panel's override for its k (16: short, 20: long), else
 * round(k C / 5) */
static uint64_t run_size(const pascal_simdev *dev, uint64_t k)
{
  if (panel_sizes[0] && (k == 16 || k == 20))
    return panel_sizes[k == 20];
  return plan_size(dev, k);
}

static int run_K(pascal_simdev *dev, const family *f, uint32_t m, uint64_t k, uint64_t W,
                 uint64_t seed, double *K)
{
  pascal_simdev_scan s = {f->o, f->tma, f->d, m, run_size(dev, k), W, seed, 0};
  pascal_simdev_stats st;
  pascal_error err;
  if (pascal_simdev_run_scan(dev, &s, &st, NULL, &err) != PASCAL_OK) {
    fprintf(stderr, "run_scan: %s\n", err.message);
    return -1;
  }
  *K = st.K;
  return 0;
}

static const char *path_name(const family *f)
{
  return f->tma ? "tma" : "sync";
}

static int panel(pascal_simdev *dev, const family *fams, size_t nfam)
{
  size_t runs = 0, diverged = 0, keys = 0;
  double err_sum = 0.0, key_err_sum = 0.0, aligned_sum = 0.0;
  printf("family        m  K per (N,W) for repeats 0/1 ...\n");
  for (size_t fi = 0; fi < nfam; fi++) {
    const family *f = &fams[fi];
    for (size_t mi = 0; mi < PANEL_NM; mi++) {
      double key_err = 0.0, key_aligned = 0.0;
      printf("o=%u %-4s d=%u %2u ", f->o, path_name(f), f->d, PANEL_M[mi]);
      for (size_t k = 0; k < PANEL_NNW; k++) {
        double a, b;
        if (run_K(dev, f, PANEL_M[mi], PANEL_NW[k][0], PANEL_NW[k][1], 0, &a) ||
            run_K(dev, f, PANEL_M[mi], PANEL_NW[k][0], PANEL_NW[k][1], 1, &b))
          return 1;
        printf(" %.3f/%.3f", a, b);
        diverged += (a > DIVERGED) + (b > DIVERGED);
        runs += 2;
        double e = fabs(a - b) / b + fabs(b - a) / a; /* b predicted by a, a by b */
        err_sum += e;
        key_err += e;
        key_aligned += fabs(a - 1.0) / a + fabs(b - 1.0) / b; /* aligned K = 1's error */
      }
      printf("\n");
      fflush(stdout);
      key_err_sum += key_err / (2.0 * PANEL_NNW);
      aligned_sum += key_aligned / (2.0 * PANEL_NNW);
      keys++;
    }
  }
  if (!runs)
    return 1;
  printf("panel: %zu keys, %zu runs; K > %.2f in %zu runs (%.1f%%); repeat-to-repeat floor: "
         "MAPE %.2f%% over runs, %.2f%% balanced over keys; aligned K = 1: balanced MAPE "
         "%.2f%%\n",
         keys, runs, DIVERGED, diverged, 100.0 * (double)diverged / (double)runs,
         100.0 * err_sum / (double)runs, 100.0 * key_err_sum / (double)keys,
         100.0 * aligned_sum / (double)keys);
  return 0;
}

static int fade(pascal_simdev *dev, const family *fams, size_t nfam)
{
  size_t steps = 0, cells = 0;
  for (size_t fi = 0; fi < nfam; fi++) {
    const family *f = &fams[fi];
    printf("family o=%u %s d=%u: K along m =", f->o, path_name(f), f->d);
    for (size_t mi = 0; mi < PLAN_NM; mi++)
      printf(" %5u", PLAN_M[mi]);
    printf("\n");
    for (size_t ni = 0; ni < sizeof PLAN_N / sizeof PLAN_N[0]; ni++)
      for (size_t wi = 0; wi < sizeof PLAN_W / sizeof PLAN_W[0]; wi++) {
        double K[PLAN_NM];
        printf("  N=%llu W=%-2llu             ", (unsigned long long)plan_size(dev, PLAN_N[ni]),
               (unsigned long long)PLAN_W[wi]);
        for (size_t mi = 0; mi < PLAN_NM; mi++) {
          if (run_K(dev, f, PLAN_M[mi], PLAN_N[ni], PLAN_W[wi], 0, &K[mi]))
            return 1;
          printf(" %5.2f", K[mi]);
          fflush(stdout);
        }
        for (size_t mi = 0; mi + 1 < PLAN_NM; mi++)
          if (K[mi] >= 2.0 && K[mi + 1] <= DIVERGED) {
            printf("  <- one-step drop m=%u->%u", PLAN_M[mi], PLAN_M[mi + 1]);
            steps++;
          }
        printf("\n");
        cells++;
      }
  }
  printf("fade: %zu (N, W) rows, %zu one-step drops from K >= 2 to K <= %.2f\n", cells, steps,
         DIVERGED);
  return 0;
}

int main(int argc, char **argv)
{
  if (argc >= 5 && strcmp(argv[3], "--sizes") == 0) { /* panel sizes instead of the plan's */
    unsigned long long a = 0, b = 0;
    char tail;
    if (sscanf(argv[4], "%llu,%llu%c", &a, &b, &tail) != 2 || a < 1 || b < 1 || a >= (1ull << 31) ||
        b >= (1ull << 31)) {
      fprintf(stderr, "--sizes SHORT,LONG: two block counts below 2^31\n");
      return 2;
    }
    panel_sizes[0] = a;
    panel_sizes[1] = b;
    for (int i = 3; i + 2 < argc; i++)
      argv[i] = argv[i + 2];
    argc -= 2;
  }
  if (argc != 3 && argc != 6) {
    fprintf(stderr,
            "usage: bench_simdev_panel PROFILE|- panel|fade [--sizes SHORT,LONG] [o sync|tma d]\n");
    return 2;
  }
  pascal_simdev_profile p;
  pascal_error err;
  if (strcmp(argv[1], "-") == 0) {
    pascal_simdev_profile_default(&p);
  } else if (pascal_simdev_profile_load(argv[1], &p, &err) != PASCAL_OK) {
    fprintf(stderr, "%s\n", err.message);
    return 1;
  }
  family only = {0, 0, 0};
  if (argc == 6) {
    char *end_o = NULL, *end_d = NULL;
    unsigned long o = strtoul(argv[3], &end_o, 10), d = strtoul(argv[5], &end_d, 10);
    int sync = strcmp(argv[4], "sync") == 0, tma = strcmp(argv[4], "tma") == 0;
    if (*end_o || *end_d || o < 1 || o > 64 || d > 64 || !(sync || tma) || (sync && d != 0) ||
        (tma && d < 1)) {
      fprintf(stderr, "family: o in [1, 64], path sync (d = 0) or tma (d in [1, 64])\n");
      return 2;
    }
    only.o = (uint32_t)o;
    only.tma = tma;
    only.d = (uint32_t)d;
  }
  pascal_simdev *dev = NULL;
  if (pascal_simdev_new(&p, &dev, &err) != PASCAL_OK) {
    fprintf(stderr, "simdev: %s\n", err.message);
    return 1;
  }
  printf("profile %s: %u SMs, C = %u blocks\n", p.name, p.sm_count, p.capacity_blocks);
  family planned[NFAM];
  if (argc != 6 && plan_families(&p, planned) != 0) {
    pascal_simdev_free(dev);
    return 1;
  }
  const family *fams = argc == 6 ? &only : planned;
  const size_t nfam = argc == 6 ? 1 : NFAM;
  int rc;
  if (strcmp(argv[2], "panel") == 0)
    rc = panel(dev, fams, nfam);
  else if (strcmp(argv[2], "fade") == 0)
    rc = fade(dev, fams, nfam);
  else {
    fprintf(stderr, "unknown mode %s (panel or fade)\n", argv[2]);
    rc = 2;
  }
  pascal_simdev_free(dev);
  return rc;
}
