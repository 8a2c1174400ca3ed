/*
 * test_baselines.c - the comparison models (pascal/baselines.h): SDCM's
 * exact binomial against hand-computed values, PPT-GPU's two normal forms
 * (values and the large-distance defect), TileSight's mixed exact/normal
 * SDCM on hand-worked values of each branch, Che for uniform rates (hit rate
 * C/N) and for two rate classes against an independent Newton solve, the
 * scan and GEMM fill-equivalent K on hand-worked runs, and error paths.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "../../core/src/gemm_distances.h"
#include "check.h"
#include "pascal/baselines.h"
#include "pascal/simulate.h"

static double hit(pascal_hit_model model, uint64_t rd, uint64_t ways, uint64_t sets)
{
  pascal_cache_geometry g = {ways, sets};
  double p = -1.0;
  CHECK(pascal_hit_probability(model, rd, &g, &p, NULL) == PASCAL_OK);
  return p;
}

static void test_sdcm(void)
{
  CHECK_NEAR(hit(PASCAL_HIT_SDCM, 2, 1, 2), 0.25, 1e-15);          /* (1/2)^2 */
  CHECK_NEAR(hit(PASCAL_HIT_SDCM, 3, 2, 2), 0.5, 1e-15);           /* (1+3)/8 */
  CHECK_NEAR(hit(PASCAL_HIT_SDCM, 4, 2, 4), 189.0 / 256.0, 1e-15); /* 81+108 */
  CHECK_NEAR(hit(PASCAL_HIT_SDCM, 1, 1, 3), 2.0 / 3.0, 1e-15);
  CHECK_NEAR(hit(PASCAL_HIT_SDCM, 99, 8, 10), 0.21523670392871702, 1e-12);
  CHECK(hit(PASCAL_HIT_SDCM, 0, 1, 7) == 1.0);
  CHECK(hit(PASCAL_HIT_SDCM, 7, 8, 100) == 1.0); /* fewer than A lines */
  CHECK(hit(PASCAL_HIT_SDCM, PASCAL_RD_COLD, 8, 2) == 0.0);
  /* fully associative: exact LRU rule rd < C */
  CHECK(hit(PASCAL_HIT_SDCM, 4, 5, 1) == 1.0);
  CHECK(hit(PASCAL_HIT_SDCM, 5, 5, 1) == 0.0);
  /* huge distance: no overflow, probability vanishes */
  double far = hit(PASCAL_HIT_SDCM, UINT64_C(1) << 40, 16, 64);
  CHECK(far >= 0.0 && far < 1e-300);
  uint64_t rd[] = {0, 5, PASCAL_RD_COLD, 2};
  pascal_cache_geometry fa = {5, 1};
  double misses;
  CHECK(pascal_expected_misses(PASCAL_HIT_SDCM, rd, 4, &fa, &misses, NULL) == PASCAL_OK);
  CHECK_NEAR(misses, 2.0, 0);
}

static void test_ppt(void)
{
  /* r = 8, A = 2, S = 4: mu = 2, sigma = sqrt(1.5) */
  CHECK_NEAR(hit(PASCAL_HIT_PPT_PUBLISHED, 8, 2, 4), 0.7928919108787374, 1e-12);
  CHECK_NEAR(hit(PASCAL_HIT_PPT_CORRECTED, 8, 2, 4), 0.3415456991548043, 1e-12);
  /* the defect: a distance far beyond the cache still "hits" */
  CHECK(hit(PASCAL_HIT_PPT_PUBLISHED, 1000000, 8, 16) > 0.99);
  CHECK(hit(PASCAL_HIT_PPT_CORRECTED, 1000000, 8, 16) < 1e-12);
  for (uint64_t r = 1; r < 2000; r += 37) /* published never drops below 1/2 */
    CHECK(hit(PASCAL_HIT_PPT_PUBLISHED, r, 8, 16) >= 0.5);
  CHECK(hit(PASCAL_HIT_PPT_PUBLISHED, 0, 8, 16) == 1.0);
  CHECK(hit(PASCAL_HIT_PPT_CORRECTED, 0, 8, 16) == 1.0);
  /* one set: published is 1, corrected is the exact rule */
  CHECK(hit(PASCAL_HIT_PPT_PUBLISHED, 50, 8, 1) == 1.0);
  CHECK(hit(PASCAL_HIT_PPT_CORRECTED, 7, 8, 1) == 1.0);
  CHECK(hit(PASCAL_HIT_PPT_CORRECTED, 8, 8, 1) == 0.0);
}

/* Independent Che solve for two classes by Newton: n1 items at rate q1,
 * n2 at q2 (normalised), n1 (1 - e^{-q1 T}) + n2 (1 - e^{-q2 T}) = C. */
static double che_two_classes(double n1, double q1, double n2, double q2, double c)
{
  double total = n1 * q1 + n2 * q2, t = 1.0;
  q1 /= total;
  q2 /= total;
  for (int i = 0; i < 200; i++) {
    double f = n1 * (1 - exp(-q1 * t)) + n2 * (1 - exp(-q2 * t)) - c;
    double df = n1 * q1 * exp(-q1 * t) + n2 * q2 * exp(-q2 * t);
    double next = t - f / df;
    t = next > 0 ? next : t / 2;
  }
  return n1 * q1 * (1 - exp(-q1 * t)) + n2 * q2 * (1 - exp(-q2 * t));
}

/* TileSight's arithmetic, A = 8 ways. The values are worked by hand from
 * the rule in pascal/baselines.h, not from the implementation:
 *  - D <= 7: hit; D >= 1e8: miss; one set: hit iff D < A;
 *  - D = 8 takes the exact binomial: P(X <= 7) = 1 - p^8, so with S = 2
 *    (p = 1/2) 1 - 2^-8 = 0.99609375 (the normal branch would differ);
 *  - D = 9, S = 2: mu = 4.5, sigma = 1.5, x = (7.5 - 4.5)/1.5 = 2 and the
 *    Zelen-Severo value 1 - phi(2) t (a1 + a2 t + a3 t^2), t = 1/(1 +
 *    0.33267 * 2), is 0.97724118988464; the exact normal Phi(2) =
 *    0.97724986805182 differs by 8.7e-6, so the polynomial is what is used;
 *  - D = 99, S = 10: x = (7.5 - 9.9)/sqrt(8.91) = -0.80403025, Zelen-Severo
 *    0.21069192590654 (exact SDCM gives 0.21523670392872 there). */
static void test_tilesight(void)
{
  CHECK(hit(PASCAL_HIT_TILESIGHT, 0, 8, 16) == 1.0);
  CHECK(hit(PASCAL_HIT_TILESIGHT, 7, 8, 16) == 1.0);
  CHECK(hit(PASCAL_HIT_TILESIGHT, PASCAL_RD_COLD, 8, 16) == 0.0);
  CHECK(hit(PASCAL_HIT_TILESIGHT, 100000000, 8, 2) == 0.0);
  CHECK(hit(PASCAL_HIT_TILESIGHT, 7, 8, 1) == 1.0);
  CHECK(hit(PASCAL_HIT_TILESIGHT, 8, 8, 1) == 0.0);
  CHECK_NEAR(hit(PASCAL_HIT_TILESIGHT, 8, 8, 2), 0.99609375, 1e-15);
  CHECK_NEAR(hit(PASCAL_HIT_TILESIGHT, 8, 8, 4), 1.0 - 1.0 / 65536, 1e-15);
  double x2 = hit(PASCAL_HIT_TILESIGHT, 9, 8, 2);
  CHECK_NEAR(x2, 0.97724118988464, 1e-13);
  CHECK(fabs(x2 - 0.97724986805182) > 5e-6);
  CHECK_NEAR(hit(PASCAL_HIT_TILESIGHT, 99, 8, 10), 0.21069192590654, 1e-13);
  /* the scan run of test_scan_runs with ways 8, sets 10: the leader's
   * distance 99 misses with 1 - 0.21069192590654 */
  pascal_baseline_scan run = {100, 4, 8, 80, 8, 10};
  pascal_baseline_k st, whole;
  CHECK(pascal_baseline_scan_k(&run, &st, &whole, NULL) == PASCAL_OK);
  CHECK_NEAR(st.tilesight, 0.78930807409346, 1e-13);
  CHECK_NEAR(whole.tilesight, (1 + 3 * 0.78930807409346) / 4, 1e-13);
}

static void test_che(void)
{
  double rates[300], t, h;
  for (int i = 0; i < 100; i++)
    rates[i] = 2.5;
  CHECK(pascal_che_characteristic_time(rates, 100, 37.0, &t, &h, NULL) == PASCAL_OK);
  CHECK_NEAR(h, 0.37, 1e-9); /* uniform rates: C / N */
  CHECK_NEAR(t, -100.0 * log(1.0 - 0.37), 1e-6);
  CHECK(pascal_che_scan(100, 37, &h, NULL) == PASCAL_OK);
  CHECK_NEAR(h, 0.37, 0);
  CHECK(pascal_che_scan(100, 150, &h, NULL) == PASCAL_OK);
  CHECK(h == 1.0);
  for (int i = 0; i < 300; i++)
    rates[i] = i < 100 ? 5.0 : 1.0;
  CHECK(pascal_che_characteristic_time(rates, 300, 60.0, &t, &h, NULL) == PASCAL_OK);
  CHECK_NEAR(h, che_two_classes(100, 5, 200, 1, 60), 1e-9);
  rates[5] = 0.0; /* an unrequested item never needs space */
  CHECK(pascal_che_characteristic_time(rates, 300, 299.0, &t, &h, NULL) == PASCAL_OK);
  CHECK(isinf(t) && h == 1.0);
}

static void test_static_phases(void)
{
  /* N=8, phases (0,4): exact distances (6, 7) */
  uint64_t phases[] = {0, 4};
  pascal_baseline_k k;
  CHECK(pascal_baseline_static_k(8, 7, phases, 2, 0, 0, &k, NULL) == PASCAL_OK);
  CHECK(k.aligned == 1.0);
  CHECK_NEAR(k.che, 2.0 * (1.0 - 7.0 / 8.0), 1e-15);
  CHECK_NEAR(k.sdcm, 1.0, 0); /* SDCM-FA = exact LRU: only distance 7 misses */
  CHECK_NEAR(k.ppt_corrected, 1.0, 0);
  CHECK_NEAR(k.ppt_published, 0.0, 0);
  CHECK(pascal_baseline_static_k(8, 4, phases, 2, 2, 2, &k, NULL) == PASCAL_OK);
  /* P(Bin(6,1/2) < 2) = 7/64, P(Bin(7,1/2) < 2) = 8/128 */
  CHECK_NEAR(k.sdcm, 2.0 - 7.0 / 64.0 - 8.0 / 128.0, 1e-15);
  pascal_error err;
  CHECK(pascal_baseline_static_k(8, 8, phases, 2, 0, 0, &k, &err) == PASCAL_EINVAL);
  CHECK(strcmp(err.field, "C") == 0);
  CHECK(pascal_baseline_static_k(4, 2, phases, 2, 0, 0, &k, &err) == PASCAL_EINVAL);
  CHECK(strcmp(err.field, "phases[1]") == 0);
  CHECK(pascal_baseline_static_k(8, 2, phases, 0, 0, 0, &k, &err) == PASCAL_EINVAL);
  CHECK(strcmp(err.field, "M") == 0);
  CHECK(pascal_baseline_static_k(0, 2, phases, 2, 0, 0, &k, &err) == PASCAL_EINVAL);
  CHECK(strcmp(err.field, "N") == 0);
}

static void test_scan_runs(void)
{
  pascal_baseline_scan run = {100, 4, 8, 25, 0, 0};
  pascal_baseline_k st, whole;
  CHECK(pascal_baseline_scan_k(&run, &st, &whole, NULL) == PASCAL_OK);
  CHECK(st.aligned == 1.0 && whole.aligned == 1.0);
  CHECK_NEAR(st.che, 8 * 0.75, 1e-15); /* M (1 - C/N) */
  CHECK_NEAR(whole.che, 0.25 + (8 - 0.25) * 0.75, 1e-15);
  CHECK_NEAR(st.sdcm, 1.0, 0); /* rd N-1 >= C: the leader misses */
  CHECK_NEAR(whole.sdcm, 1.0, 0);
  CHECK_NEAR(st.ppt_corrected, 1.0, 0);
  CHECK_NEAR(st.ppt_published, 0.0, 0); /* one set: the published form hits */
  run.ways = 8;
  run.sets = 10;
  run.c = 80;
  CHECK(pascal_baseline_scan_k(&run, &st, &whole, NULL) == PASCAL_OK);
  CHECK_NEAR(st.sdcm, 1.0 - 0.21523670392871702, 1e-12);
  CHECK_NEAR(whole.sdcm, (1.0 + 3.0 * st.sdcm) / 4.0, 1e-12);
  pascal_baseline_scan fits = {100, 5, 8, 100, 0, 0};
  CHECK(pascal_baseline_scan_k(&fits, &st, &whole, NULL) == PASCAL_OK);
  CHECK(st.sdcm == 0.0 && st.che == 0.0);
  CHECK_NEAR(whole.sdcm, 0.2, 1e-15); /* only the cold pass: 1/W */
  CHECK_NEAR(whole.che, 0.2, 1e-15);
}

static void test_gemm_runs(void)
{
  /* 2x2 tiles, n_k = 1: trace A0 B0 A0 B1 A1 B0 A1 B1 with distances
   * cold cold 1 cold cold 3 1 2 */
  pascal_baseline_gemm run = {2, 2, 1, 4, 2, 0, 0};
  pascal_baseline_k k;
  double k0;
  CHECK(pascal_baseline_gemm_k(&run, &k, &k0, NULL) == PASCAL_OK);
  CHECK_NEAR(k0, 4.0 * 4.0 / (2.0 * 4.0), 1e-15); /* M (n_r + n_c) / (2 n_r n_c) */
  CHECK_NEAR(k.aligned, k0, 1e-15);
  CHECK_NEAR(k.sdcm, 6.0 * 4.0 / 8.0, 1e-15); /* 4 cold + distances 3, 2 */
  CHECK_NEAR(k.che, 6.0 * 4.0 / 8.0, 1e-9);   /* 4 equal-rate tiles, h = 1/2 */
  run.c = 4;
  CHECK(pascal_baseline_gemm_k(&run, &k, NULL, NULL) == PASCAL_OK);
  CHECK_NEAR(k.sdcm, 2.0, 1e-15);
  CHECK_NEAR(k.che, 2.0, 1e-15);
  run.m = 1; /* one CTA at a time: same order, a quarter of the units */
  run.c = 2;
  CHECK(pascal_baseline_gemm_k(&run, &k, &k0, NULL) == PASCAL_OK);
  CHECK_NEAR(k.sdcm, 6.0 / 8.0, 1e-15);
  CHECK_NEAR(k0, 0.5, 1e-15);
}

/* The distance counts of the uniform-advance GEMM trace against the
 * distance tree run over the whole trace, built here from its definition
 * (waves of M CTAs in raster order, lockstep over k, A(i, k) then B(k, j)),
 * for every shape up to 6 x 6 tiles, n_k up to 9 and every M up to one
 * wave: equal counts everywhere, and beyond n_k = 3 from the affine form,
 * never the whole walk. Checked to fail: with c2's sign flipped, the counts
 * differ once the n_k = 3 check is dropped, and with the check kept the
 * shapes fall back to the whole walk (walked > 0); so does reading n_k = 3's
 * distances at n_k = 2's wave offsets. */
static void test_gemm_distance_counts(void)
{
  enum { MAX_TILES = 6, MAX_K = 9, MAX_LEN = 2 * MAX_TILES * MAX_TILES * MAX_K };
  static uint64_t trace[MAX_LEN], rd[MAX_LEN];
  uint64_t want[2 * MAX_TILES * MAX_K + 1], got[2 * MAX_TILES * MAX_K + 1];
  int shapes = 0, differ = 0, walked = 0;
  for (uint64_t n_r = 1; n_r <= MAX_TILES; n_r++)
    for (uint64_t n_c = 1; n_c <= MAX_TILES; n_c++)
      for (uint64_t n_k = 1; n_k <= MAX_K; n_k++)
        for (uint64_t M = 1; M <= n_r * n_c + 1; M++) {
          uint64_t tiles = (n_r + n_c) * n_k, len = 0;
          for (uint64_t first = 0; first < n_r * n_c; first += M)
            for (uint64_t k = 0; k < n_k; k++)
              for (uint64_t id = first; id < first + M && id < n_r * n_c; id++) {
                trace[len++] = (id / n_c) * n_k + k;           /* A(i, k) */
                trace[len++] = n_r * n_k + k * n_c + id % n_c; /* B(k, j) */
              }
          memset(want, 0, sizeof want);
          memset(got, 0, sizeof got);
          if (pascal_trace_reuse_distance_compute(trace, len, tiles, rd, NULL) != PASCAL_OK) {
            differ++;
            continue;
          }
          for (uint64_t i = 0; i < len; i++)
            want[rd[i] == PASCAL_RD_COLD ? tiles : rd[i]]++;
          pascal_baseline_gemm run = {n_r, n_c, n_k, (size_t)M, 1, 0, 0};
          bool whole = true;
          if (pc_gemm_distance_counts(&run, got, &whole, NULL) != PASCAL_OK ||
              memcmp(want, got, (tiles + 1) * sizeof *got) != 0)
            differ++;
          walked += n_k > 3 && whole;
          shapes++;
        }
  CHECK_INT(shapes, 4293);
  CHECK_INT(differ, 0);
  CHECK_INT(walked, 0);
}

static void test_errors(void)
{
  pascal_cache_geometry g = {0, 4};
  double p;
  pascal_error err;
  CHECK(pascal_hit_probability(PASCAL_HIT_SDCM, 3, &g, &p, &err) == PASCAL_EINVAL);
  CHECK(strcmp(err.field, "ways") == 0);
  g.ways = 4;
  g.sets = 0;
  CHECK(pascal_hit_probability(PASCAL_HIT_SDCM, 3, &g, &p, &err) == PASCAL_EINVAL);
  CHECK(strcmp(err.field, "sets") == 0);
  g.ways = UINT64_MAX / 2;
  g.sets = 3;
  CHECK(pascal_hit_probability(PASCAL_HIT_SDCM, 3, &g, &p, &err) == PASCAL_ERANGE);
  g.ways = PASCAL_SDCM_WAYS_MAX + 1;
  g.sets = 2;
  CHECK(pascal_hit_probability(PASCAL_HIT_SDCM, 3, &g, &p, &err) == PASCAL_ERANGE);
  CHECK(strcmp(err.field, "ways") == 0);
  g.ways = 2;
  CHECK(pascal_hit_probability((pascal_hit_model)9, 3, &g, &p, &err) == PASCAL_EINVAL);
  CHECK(strcmp(err.field, "model") == 0);
  CHECK(pascal_expected_misses(PASCAL_HIT_SDCM, NULL, 3, &g, &p, &err) == PASCAL_EINVAL);
  double rates[] = {1.0, -1.0}, t;
  CHECK(pascal_che_characteristic_time(rates, 2, 1.0, &t, &p, &err) == PASCAL_EINVAL);
  CHECK(strcmp(err.field, "rates[1]") == 0);
  rates[1] = NAN;
  CHECK(pascal_che_characteristic_time(rates, 2, 1.0, &t, &p, &err) == PASCAL_EINVAL);
  rates[0] = rates[1] = 0.0;
  CHECK(pascal_che_characteristic_time(rates, 2, 1.0, &t, &p, &err) == PASCAL_EINVAL);
  CHECK(strcmp(err.field, "rates") == 0);
  rates[0] = 1.0;
  CHECK(pascal_che_characteristic_time(rates, 2, 0.0, &t, &p, &err) == PASCAL_EINVAL);
  CHECK(strcmp(err.field, "C") == 0);
  CHECK(pascal_che_scan(0, 1, &p, &err) == PASCAL_EINVAL);
  CHECK(strcmp(err.field, "N") == 0);
  pascal_baseline_k k;
  pascal_baseline_scan bad[] = {{0, 1, 1, 1, 0, 0},
                                {8, 0, 1, 1, 0, 0},
                                {8, 1, 0, 1, 0, 0},
                                {8, 1, 1, 0, 0, 0},
                                {8, 1, 1, 4, 4, 0}};
  const char *fields[] = {"N", "W", "M", "C", "sets"};
  for (int i = 0; i < 5; i++) {
    CHECK(pascal_baseline_scan_k(&bad[i], &k, NULL, &err) == PASCAL_EINVAL);
    CHECK(strcmp(err.field, fields[i]) == 0);
  }
  pascal_baseline_gemm gemm = {2, 2, 0, 4, 2, 0, 0};
  CHECK(pascal_baseline_gemm_k(&gemm, &k, NULL, &err) == PASCAL_EINVAL);
  CHECK(strcmp(err.field, "n_k") == 0);
  pascal_baseline_gemm big = {1u << 12, 1u << 12, 1u << 12, 4, 2, 0, 0};
  CHECK(pascal_baseline_gemm_k(&big, &k, NULL, &err) == PASCAL_ERANGE);
  pascal_baseline_gemm no_m = {2, 2, 2, 0, 2, 0, 0};
  CHECK(pascal_baseline_gemm_k(&no_m, &k, NULL, &err) == PASCAL_EINVAL);
  CHECK(strcmp(err.field, "M") == 0);
}

int main(void)
{
  test_sdcm();
  test_ppt();
  test_tilesight();
  test_che();
  test_static_phases();
  test_scan_runs();
  test_gemm_runs();
  test_gemm_distance_counts();
  test_errors();
  return check_summary();
}
