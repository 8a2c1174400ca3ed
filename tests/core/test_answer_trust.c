/*
 * test_answer_trust.c - what an answer says about itself: the closed form
 * for a scan whose operand fits in the cache (checked against the LRU
 * simulator on random interleavings), the per-coordinate extrapolation
 * flags (scan and GEMM), Theorem coherence's advice (numbers by hand), and
 * the expected error looked up in a validation (hand-made entries, and one
 * built from a calibration against pascal_loko_run()).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "pascal/evaluate.h"
#include "pascal/predict.h"
#include "pascal/simulate.h"
#include "pascal/validation.h"

static void add_scan(pascal_calibration *cal, uint32_t o, pascal_path path, uint32_t d, uint32_t m,
                     uint32_t N, double W, double K)
{
  pascal_scan_run r = {.key = {o, path, d, m}, .N = N, .W = W};
  r.fill_bytes = K * cal->device.block_bytes * W * N;
  pascal_error err;
  if (pascal_calibration_append_scan(cal, &r, &err))
    printf("append failed: %s %s\n", err.field, err.message);
}

static void device(pascal_calibration *cal, uint32_t sm, uint32_t c)
{
  snprintf(cal->device.name, sizeof cal->device.name, "trust");
  cal->device.sm_count = sm;
  cal->device.capacity_blocks = c;
  cal->device.block_bytes = 16384;
}

/* Families (1,tma,2) and (1,tma,3), m = 0, 4, 8 (one class), at N = 2048
 * and 4096, horizons 1, 4, 16; K = 3 - m/8 (diverging), halved in excess at
 * the larger size. C = 1280, 48 SMs. */
static void trust_cal(pascal_calibration *cal)
{
  static const double horizons[] = {1, 4, 16};
  pascal_calibration_init(cal, PASCAL_WORKLOAD_SCAN);
  device(cal, 48, 1280);
  for (uint32_t d = 2; d <= 3; d++)
    for (uint32_t m = 0; m <= 8; m += 4)
      for (int h = 0; h < 3; h++) {
        add_scan(cal, 1, PASCAL_PATH_TMA, d, m, 2048, horizons[h], 3 - m / 8.0);
        add_scan(cal, 1, PASCAL_PATH_TMA, d, m, 4096, horizons[h], 2 - m / 16.0);
      }
}

static pascal_model *fit(const pascal_calibration *cal)
{
  pascal_model *md = NULL;
  pascal_error err;
  CHECK_INT(pascal_model_fit(cal, &md, &err), PASCAL_OK);
  return md;
}

/* N <= C: every block is filled once (cold), whatever the interleaving, so
 * K = N / (W N) = 1/W. The LRU simulator counts the misses of W scans by
 * each of M workers interleaved at random. */
static void resident_closed_form(void)
{
  pascal_calibration cal;
  pascal_calibration_init(&cal, PASCAL_WORKLOAD_SCAN);
  device(&cal, 4, 64); /* M = 4 at o = 1 */
  add_scan(&cal, 1, PASCAL_PATH_SYNC, 0, 0, 128, 1, 2);
  add_scan(&cal, 1, PASCAL_PATH_SYNC, 0, 0, 128, 4, 2);
  pascal_model *md = fit(&cal);
  pascal_calibration_free(&cal);
  if (!md)
    return;
  pascal_scan_key key = {1, PASCAL_PATH_SYNC, 0, 0};
  enum { M = 4, N = 64, W = 5 };
  uint64_t trace[M * W * N], lcg = 12345;
  for (int rep = 0; rep < 20; rep++) {
    uint32_t next[M] = {0};
    size_t len = 0;
    while (len < M * W * N) {
      lcg = lcg * 6364136223846793005u + 1442695040888963407u;
      size_t w = (size_t)(lcg >> 33) % M;
      if (next[w] < W * N)
        trace[len++] = next[w]++ % N;
    }
    pascal_sim_result sim;
    CHECK_INT(pascal_sim_lru_trace(trace, len, N, 64, NULL, &sim, NULL), PASCAL_OK);
    pascal_scan_prediction p;
    CHECK_INT(pascal_model_predict_scan(md, &key, N, W, &p, NULL), PASCAL_OK);
    CHECK_INT(p.why.rule, PASCAL_RULE_RESIDENT);
    CHECK_NEAR(p.K, (double)sim.misses / (W * N), 1e-15);
  }
  pascal_scan_prediction p;
  CHECK_INT(pascal_model_predict_scan(md, &key, 64, 0.1, &p, NULL), PASCAL_OK);
  CHECK_NEAR(p.K, 4, 0); /* 1/W = 10 capped at M: less than one pass per worker */
  CHECK_INT(pascal_model_predict_scan(md, &key, 10, 8, &p, NULL), PASCAL_OK);
  CHECK_NEAR(p.fill_bytes, 10 * 16384.0, 1e-9); /* b N: the cold fills */
  CHECK_NEAR(p.rho, 1.0 / 32, 1e-15);
  CHECK_INT(p.extrapolated.n, 0);
  CHECK(!p.advice.given);
  CHECK(strcmp(pascal_rule_name(p.why.rule), "resident") == 0);
  CHECK_INT(pascal_model_predict_scan(md, &key, 65, 8, &p, NULL), PASCAL_OK);
  CHECK(p.why.rule != PASCAL_RULE_RESIDENT); /* N = C + 1 reads the curve */
  pascal_model_free(md);
}

static pascal_scan_prediction scan(const pascal_model *md, uint32_t d, uint32_t m, uint32_t N,
                                   double W)
{
  pascal_scan_prediction p;
  memset(&p, 0, sizeof p);
  pascal_scan_key key = {1, PASCAL_PATH_TMA, d, m};
  CHECK_INT(pascal_model_predict_scan(md, &key, N, W, &p, NULL), PASCAL_OK);
  return p;
}

static void check_item(const pascal_extrapolation *e, pascal_coordinate c, double value, double lo,
                       double hi, pascal_extrapolation_action action)
{
  CHECK_INT(e->coordinate, c);
  CHECK_NEAR(e->value, value, 0);
  CHECK_NEAR(e->min, lo, 0);
  CHECK_NEAR(e->max, hi, 0);
  CHECK_INT(e->action, action);
}

static void scan_extrapolation(const pascal_model *md)
{
  pascal_scan_prediction p = scan(md, 2, 4, 3000, 8);
  CHECK_INT(p.extrapolated.n, 0);
  p = scan(md, 3, 8, 2048, 16); /* at the edges: still inside */
  CHECK_INT(p.extrapolated.n, 0);
  p = scan(md, 2, 20, 3000, 8);
  CHECK_INT(p.extrapolated.n, 1);
  check_item(&p.extrapolated.item[0], PASCAL_COORD_M, 20, 0, 8, PASCAL_EXTRAP_CLAMPED);
  p = scan(md, 5, 4, 3000, 8);
  CHECK_INT(p.why.rule, PASCAL_RULE_DEPTH_FALLBACK);
  CHECK_INT(p.extrapolated.n, 1);
  check_item(&p.extrapolated.item[0], PASCAL_COORD_D, 5, 2, 3, PASCAL_EXTRAP_CLAMPED);
  p = scan(md, 2, 4, 3000, 100);
  CHECK_INT(p.extrapolated.n, 1);
  check_item(&p.extrapolated.item[0], PASCAL_COORD_W, 100, 1, 16, PASCAL_EXTRAP_LINEAR);
  p = scan(md, 2, 4, 3000, 0.5);
  check_item(&p.extrapolated.item[0], PASCAL_COORD_W, 0.5, 1, 16, PASCAL_EXTRAP_HELD);
  p = scan(md, 2, 4, 9000, 4); /* read at the horizon 4 * 9000 / 4096, inside 1..16 */
  CHECK_INT(p.extrapolated.n, 1);
  check_item(&p.extrapolated.item[0], PASCAL_COORD_N, 9000, 2048, 4096, PASCAL_EXTRAP_SAME_SLOT);
  p = scan(md, 2, 4, 9000, 1);
  CHECK_INT(p.extrapolated.n, 1);
  check_item(&p.extrapolated.item[0], PASCAL_COORD_N, 9000, 2048, 4096, PASCAL_EXTRAP_CLAMPED);
  p = scan(md, 9, 32, 1500, 64); /* all four, in the order N, W, m, d */
  CHECK_INT(p.extrapolated.n, 4);
  check_item(&p.extrapolated.item[0], PASCAL_COORD_N, 1500, 2048, 4096, PASCAL_EXTRAP_LINEAR);
  check_item(&p.extrapolated.item[1], PASCAL_COORD_W, 64, 1, 16, PASCAL_EXTRAP_LINEAR);
  check_item(&p.extrapolated.item[2], PASCAL_COORD_M, 32, 0, 8, PASCAL_EXTRAP_CLAMPED);
  check_item(&p.extrapolated.item[3], PASCAL_COORD_D, 9, 2, 3, PASCAL_EXTRAP_CLAMPED);
  CHECK(strcmp(pascal_coordinate_name(PASCAL_COORD_M), "m") == 0);
  CHECK(strcmp(pascal_extrapolation_action_name(PASCAL_EXTRAP_HELD), "held-at-end") == 0);
  CHECK(strcmp(pascal_extrapolation_action_name(PASCAL_EXTRAP_LINEAR), "linear") == 0);
  /* below the smallest size: the excess carried on linearly in eta = C/N
   * from the two smallest sizes, whose own answers give their a (K > 1
   * there, so encode(log K) is their a); above the largest, the largest
   * size's curve at the same blocks per slot (flat in W here: its K).
   * Verified to fail with the clamp answering below the sizes. */
  pascal_scan_prediction p0 = scan(md, 2, 4, 2048, 8), p1 = scan(md, 2, 4, 4096, 8);
  CHECK(p0.K > 1.05 && p1.K > 1.05 && p0.K < p0.M && p1.K < p1.M);
  double a0 = pascal_excess_encode(log(p0.K)), a1 = pascal_excess_encode(log(p1.K));
  for (uint32_t N = 1300; N < 2048; N += 149) { /* C = 1280 */
    p = scan(md, 2, 4, N, 8);
    double t = (p.why.eta - p0.why.eta) / (p1.why.eta - p0.why.eta); /* < 0 */
    double want = pascal_excess_decode(a0 + t * (a1 - a0), 1, p.M);
    CHECK_NEAR(p.K, want, 1e-9 * want);
    CHECK_INT(p.why.n_sizes, 2);
    CHECK(p.why.size[0].weight > 1 && p.why.size[1].weight < 0);
    CHECK_INT(p.transfers.item[p.transfers.n - 1].coordinate, PASCAL_COORD_N);
    CHECK_INT(p.transfers.item[p.transfers.n - 1].kind, PASCAL_TRANSFER_EXTRAP);
  }
  p = scan(md, 2, 4, 9000, 8);
  CHECK_NEAR(p.K, p1.K, 1e-12 * p1.K);
}

/* The transfer of coordinate c in p (NULL: none). */
static const pascal_transfer *transfer_of(const pascal_scan_prediction *p, pascal_coordinate c)
{
  for (size_t i = 0; i < p->transfers.n; i++)
    if (p->transfers.item[i].coordinate == c)
      return &p->transfers.item[i];
  return NULL;
}

/* Above the largest size a scan is read off the largest size's curve at the
 * same blocks per slot W N: K(N, W) = K(N_max, W N / N_max) for W > 1, and
 * W = 1 as it is (docs/design.md 4.1). One key (1,tma,2), m = 0 and 8, at
 * N = 2048 and 4096, horizons 1, 4, 16, 64; at 4096 K = 1, 1.2, 1.6, 1.8
 * (log W K increasing, so PAVA leaves the knots and a knot reads back its
 * own K). Verified to fail with the largest size's curve read at W itself
 * (the clamp): K(8192, 8) read between 4 and 16 is 1.39, not 1.6, and the
 * W transfer of W = 3 is the one-pass segment's at log(4/3) (67 of 516 checks). */
static void scan_same_blocks_per_slot(void)
{
  static const double W[] = {1, 4, 16, 64}, K2[] = {1, 1.1, 1.4, 1.7}, K4[] = {1, 1.2, 1.6, 1.8};
  pascal_calibration cal;
  pascal_calibration_init(&cal, PASCAL_WORKLOAD_SCAN);
  device(&cal, 48, 1280);
  for (uint32_t m = 0; m <= 8; m += 8)
    for (int h = 0; h < 4; h++) {
      add_scan(&cal, 1, PASCAL_PATH_TMA, 2, m, 2048, W[h], K2[h]);
      add_scan(&cal, 1, PASCAL_PATH_TMA, 2, m, 4096, W[h], K4[h]);
    }
  pascal_model *md = fit(&cal);
  pascal_calibration_free(&cal);
  if (!md)
    return;
  for (int h = 1; h < 4; h++) { /* twice the size at half the horizon: the knots */
    pascal_scan_prediction p = scan(md, 2, 0, 8192, W[h] / 2);
    CHECK_NEAR(p.K, K4[h], 1e-12);
    CHECK_INT(p.extrapolated.n, 1);
    check_item(&p.extrapolated.item[0], PASCAL_COORD_N, 8192, 2048, 4096, PASCAL_EXTRAP_SAME_SLOT);
    CHECK(transfer_of(&p, PASCAL_COORD_W) == NULL); /* read at a knot */
  }
  pascal_scan_prediction p = scan(md, 2, 0, 8192, 1); /* one pass: as it is */
  CHECK_NEAR(p.K, 1, 1e-12);
  check_item(&p.extrapolated.item[0], PASCAL_COORD_N, 8192, 2048, 4096, PASCAL_EXTRAP_CLAMPED);
  static const double Wq[] = {1.25, 3, 5, 24, 40, 100};
  for (uint32_t N = 6144; N <= 12288; N += 6144)
    for (size_t i = 0; i < sizeof Wq / sizeof *Wq; i++) {
      double r = N / 4096.0;
      pascal_scan_prediction q = scan(md, 2, 0, N, Wq[i]), at = scan(md, 2, 0, 4096, Wq[i] * r);
      CHECK_NEAR(q.K, at.K, 1e-12 * at.K);
      CHECK_NEAR(q.fill_bytes, at.fill_bytes, 1e-9 * at.fill_bytes); /* same W N */
      const pascal_transfer *tq = transfer_of(&q, PASCAL_COORD_W),
                            *ta = transfer_of(&at, PASCAL_COORD_W);
      CHECK(tq && ta);
      if (tq && ta) {
        CHECK_INT(tq->kind, ta->kind);
        CHECK_NEAR(tq->distance, ta->distance, 1e-12);
      }
      const pascal_transfer *tn = transfer_of(&q, PASCAL_COORD_N);
      CHECK(tn && tn->kind == PASCAL_TRANSFER_EXTRAP && fabs(tn->distance - log(r)) < 1e-12);
      bool past = Wq[i] * r > 64; /* the W range is the horizons mapped back */
      CHECK_INT(q.extrapolated.n, past ? 2 : 1);
      if (past)
        check_item(&q.extrapolated.item[1], PASCAL_COORD_W, Wq[i], 1 / r, 64 / r,
                   PASCAL_EXTRAP_LINEAR);
    }
  p = scan(md, 2, 0, 8192, 3); /* read at 6: between 4 and 16, nearest 4 */
  const pascal_transfer *t = transfer_of(&p, PASCAL_COORD_W);
  CHECK(t && t->kind == PASCAL_TRANSFER_INTERP && fabs(t->distance - log(1.5)) < 1e-12);
  CHECK(strcmp(pascal_extrapolation_action_name(PASCAL_EXTRAP_SAME_SLOT), "same-blocks-per-slot") ==
        0);
  pascal_model_free(md);
}

static void gemm_extrapolation(void)
{
  pascal_calibration cal;
  pascal_calibration_init(&cal, PASCAL_WORKLOAD_GEMM);
  /* one resident CTA and a one-block cache: the static reference re-reads
   * every panel, its excess at the reference is Q - B_0 (over 0.1 B_0), so
   * the answer is carried; in 1280 blocks everything fits and the
   * reference's kappa is held (test_gemm.c) */
  device(&cal, 48, 1);
  cal.gemm.resident_ctas = 1;
  for (uint32_t r = 2; r <= 4; r *= 2)
    for (uint32_t c = 2; c <= 4; c *= 2)
      for (uint32_t k = 2; k <= 8; k *= 2) {
        pascal_gemm_run run = {.shape = {128 * r, 128 * c, 64 * k}};
        run.fill_bytes = 1.5 * 16384.0 * (r + c) * k; /* kappa = 1.5 */
        CHECK_INT(pascal_calibration_append_gemm(&cal, &run, NULL), PASCAL_OK);
      }
  pascal_model *md = fit(&cal);
  pascal_calibration_free(&cal);
  if (!md)
    return;
  pascal_gemm_prediction p;
  pascal_gemm_shape s = {128 * 3, 128 * 2, 64 * 4};
  CHECK_INT(pascal_model_predict_gemm(md, &s, &p, NULL), PASCAL_OK);
  CHECK_INT(p.extrapolated.n, 0);
  s = (pascal_gemm_shape){128 * 8, 128 * 1, 64 * 16};
  CHECK_INT(pascal_model_predict_gemm(md, &s, &p, NULL), PASCAL_OK);
  CHECK_INT(p.extrapolated.n, 3);
  /* carried by the static reference (its fills: test_gemm.c) */
  check_item(&p.extrapolated.item[0], PASCAL_COORD_N_R, 8, 2, 4, PASCAL_EXTRAP_STATIC_RATIO);
  check_item(&p.extrapolated.item[1], PASCAL_COORD_N_C, 1, 2, 4, PASCAL_EXTRAP_STATIC_RATIO);
  check_item(&p.extrapolated.item[2], PASCAL_COORD_N_K, 16, 2, 8, PASCAL_EXTRAP_STATIC_RATIO);
  CHECK(strcmp(pascal_extrapolation_action_name(PASCAL_EXTRAP_STATIC_RATIO), "static-ratio") == 0);
  pascal_model_free(md);
}

/* C = 1280: sigma_max = 640 (2 * 640 - 1 = 1279 <= C < 2 * 641 - 1). */
static void advice(const pascal_model *md)
{
  pascal_scan_prediction p = scan(md, 3, 0, 2048, 16);
  CHECK_NEAR(p.K, 3, 1e-12);
  CHECK(p.advice.given);
  CHECK_INT(p.advice.sigma_max, 640);
  CHECK_INT(p.advice.min_capacity, 1279);
  CHECK_INT(p.advice.checkpoint_blocks, 638); /* 640 - (d - 1) copies ahead */
  double E = 48.0 * 16 * 2048, k1 = 16384.0 * 16 * 2048;
  CHECK_NEAR(p.advice.K_coherent, 1 + 47 * 640 / E, 1e-15);
  CHECK_NEAR(p.advice.fill_bytes_at_k1, k1, 0);
  CHECK_NEAR(p.advice.fill_bytes_coherent, (1 + 47 * 640 / E) * k1, 1e-3);
  CHECK_NEAR(p.advice.fill_bytes_at_stake, 3 * k1 - (1 + 47 * 640 / E) * k1, 1e-3);
  p = scan(md, 2, 8, 4096, 16); /* K = 1.5 */
  CHECK(p.advice.given);
  CHECK_INT(p.advice.checkpoint_blocks, 639);
  /* no advice at K <= 1.05 */
  pascal_calibration cal;
  pascal_calibration_init(&cal, PASCAL_WORKLOAD_SCAN);
  device(&cal, 48, 1280);
  add_scan(&cal, 1, PASCAL_PATH_SYNC, 0, 0, 2048, 16, 1.04);
  add_scan(&cal, 1, PASCAL_PATH_SYNC, 0, 4, 2048, 16, 1.2);
  pascal_model *flat = fit(&cal);
  pascal_calibration_free(&cal);
  if (!flat)
    return;
  pascal_scan_key key = {1, PASCAL_PATH_SYNC, 0, 0};
  CHECK_INT(pascal_model_predict_scan(flat, &key, 2048, 16, &p, NULL), PASCAL_OK);
  CHECK(!p.advice.given);
  key.m = 4;
  CHECK_INT(pascal_model_predict_scan(flat, &key, 2048, 16, &p, NULL), PASCAL_OK);
  CHECK(p.advice.given);
  CHECK_INT(p.advice.checkpoint_blocks, 640); /* sync: nothing issued ahead */
  pascal_model_free(flat);
}

static void vadd(pascal_validation *v, uint32_t d, uint32_t m, pascal_error_source src,
                 pascal_rule rule, double pct)
{
  pascal_validated_key k = {
      .key = {1, PASCAL_PATH_TMA, d, m}, .source = src, .rule = rule, .error_pct = pct};
  CHECK_INT(pascal_validation_add(v, &k, NULL), PASCAL_OK);
}

static pascal_expected_error expect(const pascal_validation *v, uint32_t d, uint32_t m,
                                    pascal_rule rule)
{
  pascal_scan_prediction p;
  memset(&p, 0, sizeof p);
  p.why.rule = rule;
  pascal_scan_key key = {1, PASCAL_PATH_TMA, d, m};
  pascal_validation_expect_scan(v, &key, &p);
  return p.expected;
}

static void validation_lookup(void)
{
  pascal_validation v = {0};
  vadd(&v, 2, 0, PASCAL_ERRSRC_LOKO, PASCAL_RULE_CLAMP, 10);
  vadd(&v, 2, 2, PASCAL_ERRSRC_LOKO, PASCAL_RULE_GRAPH, 20);
  vadd(&v, 2, 6, PASCAL_ERRSRC_LOKO, PASCAL_RULE_GRAPH, 40);
  vadd(&v, 2, 10, PASCAL_ERRSRC_LOKO, PASCAL_RULE_CLAMP, 30);
  vadd(&v, 4, 3, PASCAL_ERRSRC_LOKO, PASCAL_RULE_GRAPH, 50);
  vadd(&v, 2, 2, PASCAL_ERRSRC_IN_SAMPLE, PASCAL_RULE_EXACT, 1);
  pascal_expected_error x = expect(&v, 2, 4, PASCAL_RULE_GRAPH);
  CHECK_NEAR(x.pct, 30, 0); /* m = 2 and m = 6 */
  CHECK_INT(x.source, PASCAL_ERRSRC_LOKO);
  CHECK_INT(x.widened, 0);
  CHECK_INT(x.n_keys, 2);
  CHECK_INT(x.key[0].m, 2);
  CHECK_INT(x.key[1].m, 6);
  x = expect(&v, 2, 12, PASCAL_RULE_CLAMP);
  CHECK_NEAR(x.pct, 30, 0);
  CHECK_INT(x.n_keys, 1);
  x = expect(&v, 3, 4, PASCAL_RULE_GRAPH); /* no key at d = 3: nearest depth, tie -> 2 */
  CHECK_NEAR(x.pct, 30, 0);
  CHECK_INT(x.widened, 1);
  x = expect(&v, 4, 9, PASCAL_RULE_GRAPH);
  CHECK_NEAR(x.pct, 50, 0);
  CHECK_INT(x.widened, 0);
  x = expect(&v, 3, 7, PASCAL_RULE_DEPTH_FALLBACK); /* no such rule: any rule at d = 2 */
  CHECK_NEAR(x.pct, 35, 0);                         /* m = 6 (40) and m = 10 (30) */
  CHECK_INT(x.widened, 2);
  x = expect(&v, 2, 2, PASCAL_RULE_EXACT);
  CHECK_NEAR(x.pct, 1, 0);
  CHECK_INT(x.source, PASCAL_ERRSRC_IN_SAMPLE);
  x = expect(&v, 2, 0, PASCAL_RULE_EXACT); /* no in-sample entry */
  CHECK(isnan(x.pct));
  CHECK_INT(x.source, PASCAL_ERRSRC_NONE);
  x = expect(&v, 2, 4, PASCAL_RULE_RESIDENT);
  CHECK(isnan(x.pct));
  /* a held-out panel, once there, is preferred over the folds */
  vadd(&v, 2, 5, PASCAL_ERRSRC_HELD_OUT, PASCAL_RULE_GRAPH, 7);
  x = expect(&v, 2, 4, PASCAL_RULE_GRAPH);
  CHECK_NEAR(x.pct, 7, 0);
  CHECK_INT(x.source, PASCAL_ERRSRC_HELD_OUT);
  /* another (o, path): nothing */
  pascal_scan_prediction p;
  memset(&p, 0, sizeof p);
  p.why.rule = PASCAL_RULE_GRAPH;
  pascal_scan_key other = {2, PASCAL_PATH_TMA, 2, 4};
  pascal_validation_expect_scan(&v, &other, &p);
  CHECK(isnan(p.expected.pct));
  pascal_validated_key bad = {.source = PASCAL_ERRSRC_LOKO, .error_pct = NAN};
  pascal_error err;
  CHECK_INT(pascal_validation_add(&v, &bad, &err), PASCAL_EINVAL);
  CHECK(strcmp(err.field, "error_pct") == 0);
  pascal_validation_free(&v);

  /* GEMM: the nearest grids in (log Mg, log Ng) with the same rule */
  pascal_validated_key g[] = {{.Mg = 256,
                               .Ng = 256,
                               .source = PASCAL_ERRSRC_LOKO,
                               .rule = PASCAL_RULE_GRAPH,
                               .error_pct = 10},
                              {.Mg = 512,
                               .Ng = 512,
                               .source = PASCAL_ERRSRC_LOKO,
                               .rule = PASCAL_RULE_GRAPH,
                               .error_pct = 20},
                              {.Mg = 4096,
                               .Ng = 4096,
                               .source = PASCAL_ERRSRC_LOKO,
                               .rule = PASCAL_RULE_GRAPH,
                               .error_pct = 90},
                              {.Mg = 1024,
                               .Ng = 1024,
                               .source = PASCAL_ERRSRC_LOKO,
                               .rule = PASCAL_RULE_CLAMP,
                               .error_pct = 40}};
  for (size_t i = 0; i < 4; i++)
    CHECK_INT(pascal_validation_add(&v, &g[i], NULL), PASCAL_OK);
  pascal_gemm_prediction gp;
  memset(&gp, 0, sizeof gp);
  gp.why.rule = PASCAL_RULE_GRAPH;
  pascal_gemm_shape s = {256, 512, 1024};
  pascal_validation_expect_gemm(&v, &s, &gp);
  CHECK_NEAR(gp.expected.pct, 15, 0);
  CHECK_INT(gp.expected.n_keys, 2);
  gp.why.rule = PASCAL_RULE_CLAMP;
  s = (pascal_gemm_shape){8192, 8192, 1024};
  pascal_validation_expect_gemm(&v, &s, &gp);
  CHECK_NEAR(gp.expected.pct, 40, 0);
  CHECK_INT(gp.expected.n_keys, 1);
  pascal_validation_free(&v);
}

/* Built from a calibration: one fold entry per key, equal to the LOKO
 * report's error and rule, and in-sample entries that reproduce exact
 * answers (the curves pass through the geometric means: error ~0). */
static void validation_build(const pascal_calibration *cal, const pascal_model *md)
{
  pascal_validation v;
  pascal_loko_report rep;
  CHECK_INT(pascal_validation_build(cal, md, NULL, &v, NULL), PASCAL_OK);
  CHECK_INT(pascal_loko_run(cal, &rep, NULL), PASCAL_OK);
  size_t loko = 0, in_sample = 0;
  for (size_t i = 0; i < v.n; i++) {
    const pascal_validated_key *k = &v.keys[i];
    if (k->source == PASCAL_ERRSRC_IN_SAMPLE) {
      in_sample++;
      CHECK(k->error_pct < 1e-9);
      continue;
    }
    CHECK_INT(k->source, PASCAL_ERRSRC_LOKO);
    const pascal_key_report *kr = &rep.keys[loko++];
    CHECK(kr->key.o == k->key.o && kr->key.d == k->key.d && kr->key.m == k->key.m);
    CHECK_NEAR(k->error_pct, kr->mape[PASCAL_METHOD_PASCAL], 0);
    CHECK_INT(k->rule, kr->rule);
    CHECK(k->rule != PASCAL_RULE_EXACT); /* a held-out key is never a reference */
  }
  CHECK_INT(loko, rep.n_keys);
  CHECK_INT(in_sample, rep.n_keys);
  /* an end key held out is clamped; a middle one is bracketed */
  CHECK_INT(rep.keys[0].rule, PASCAL_RULE_CLAMP);
  CHECK_INT(rep.keys[1].rule, PASCAL_RULE_GRAPH);
  /* passing the report in gives the same validation */
  pascal_validation w;
  CHECK_INT(pascal_validation_build(cal, md, &rep, &w, NULL), PASCAL_OK);
  CHECK_INT(w.n, v.n);
  for (size_t i = 0; i < v.n && i < w.n; i++)
    CHECK(w.keys[i].source == v.keys[i].source && w.keys[i].rule == v.keys[i].rule &&
          w.keys[i].key.m == v.keys[i].key.m && w.keys[i].key.d == v.keys[i].key.d &&
          w.keys[i].error_pct == v.keys[i].error_pct);
  pascal_validation_free(&w);
  pascal_loko_report_free(&rep);
  pascal_validation_free(&v);
}

int main(void)
{
  resident_closed_form();
  gemm_extrapolation();
  validation_lookup();
  scan_same_blocks_per_slot();
  pascal_calibration cal;
  trust_cal(&cal);
  pascal_model *md = fit(&cal);
  if (md) {
    scan_extrapolation(md);
    advice(md);
    validation_build(&cal, md);
  }
  pascal_model_free(md);
  pascal_calibration_free(&cal);
  return check_summary();
}
