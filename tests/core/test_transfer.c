/*
 * test_transfer.c - the six ordered transfer rules of docs/design.md §4.3
 * (paper section 4.3, Eq. graph) and the eta interpolation across sizes, on
 * hand-built calibrations whose curves are constant in W (one horizon), so
 * that each reference's encoded value is a(K) = log([K - 1]_+ + eps) and
 * each rule's value follows from its formula by hand. Eq. graph weighs the
 * same-class line by the gamma the calibration's own folds chose
 * (model.graph): this calibration's choose the pooled PCHIP alone (gamma =
 * 0, graph_choice); the paper's gamma = 4 is worked by hand in the omegas,
 * and its answers are checked in test_graph_reading.c.
 *
 * Device: 48 SMs, C = 1280, b = 16384. Families at N = 2048:
 *   (1,tma,1): m = 0, 8, 16, 24 (class 0 only)
 *   (1,tma,2): m = 0, 1, 2, 4, 8, 9, 10 (classes 0, 1, 2)
 *   (1,tma,4): m = 0, 5, 8 (classes 0, 1), also at N = 4096
 *   (2,sync,0): m = 0, 2, 4, 8, 16 (classes 0, 2)
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "pascal/predict.h"
#include "test_device.h"

#define W_REF 16

static double a_of(double K)
{
  return log((K > 1 ? K - 1 : 0) + PASCAL_EXCESS_EPS);
}

static void add(pascal_calibration *cal, uint32_t o, pascal_path path, uint32_t d, uint32_t m,
                uint32_t N, double K)
{
  pascal_scan_run r = {.key = {o, path, d, m}, .N = N, .W = W_REF};
  r.fill_bytes = K * cal->device.block_bytes * (double)W_REF * N;
  pascal_error err;
  if (pascal_calibration_append_scan(cal, &r, &err))
    printf("append failed: %s %s\n", err.field, err.message);
}

static const uint32_t m_t1[] = {0, 8, 16, 24};
static const double k_t1[] = {3, 2.5, 2, 1.8};
static const uint32_t m_t2[] = {0, 1, 2, 4, 8, 9, 10};
static const double k_t2[] = {3.0, 1.5, 2.2, 2.6, 1.8, 1.3, 1.6};
static const uint32_t m_t4[] = {0, 5, 8};
static const double k_t4[] = {4, 3, 2};
static const double k_t4_big[] = {2, 1.5, 1.2}; /* the same keys at N = 4096 */
static const uint32_t m_s[] = {0, 2, 4, 8, 16};
static const double k_s[] = {0.5, 1.1, 1.3, 1.2, 500};

static pascal_model *build(void)
{
  pascal_calibration cal;
  pascal_model *model = NULL;
  pascal_error err;
  test_device_calibration(&cal, PASCAL_WORKLOAD_SCAN, "test");
  for (int i = 0; i < 4; i++)
    add(&cal, 1, PASCAL_PATH_TMA, 1, m_t1[i], 2048, k_t1[i]);
  for (int i = 0; i < 7; i++)
    add(&cal, 1, PASCAL_PATH_TMA, 2, m_t2[i], 2048, k_t2[i]);
  for (int i = 0; i < 3; i++) {
    add(&cal, 1, PASCAL_PATH_TMA, 4, m_t4[i], 2048, k_t4[i]);
    add(&cal, 1, PASCAL_PATH_TMA, 4, m_t4[i], 4096, k_t4_big[i]);
  }
  for (int i = 0; i < 5; i++)
    add(&cal, 2, PASCAL_PATH_SYNC, 0, m_s[i], 2048, k_s[i]);
  CHECK_INT(pascal_model_fit(&cal, &model, &err), PASCAL_OK);
  pascal_calibration_free(&cal);
  return model;
}

static pascal_scan_prediction predict(const pascal_model *md, uint32_t o, pascal_path path,
                                      uint32_t d, uint32_t m, uint32_t N, pascal_status want)
{
  pascal_scan_prediction p;
  memset(&p, 0, sizeof p);
  pascal_error err;
  pascal_scan_key key = {o, path, d, m};
  pascal_status st = pascal_model_predict_scan(md, &key, N, 32, &p, &err);
  CHECK_INT(st, want);
  if (st != want)
    printf("  query (%u,%d,%u,%u) N=%u: %s\n", o, path, d, m, N, err.message);
  return p;
}

/* Pooled PCHIP of a over the family (m_t2) at m, computed on full arrays. */
static double pooled_t2(double m)
{
  double x[7], y[7], dd[7];
  for (int i = 0; i < 7; i++) {
    x[i] = m_t2[i];
    y[i] = a_of(k_t2[i]);
  }
  pascal_pchip_slopes(x, y, 7, dd);
  return pascal_pchip_eval(x, y, dd, 7, m);
}

/* The weight gamma of the same-class line in Eq. graph that a
 * calibration's own folds chose (model.graph, docs/design.md 4.3): the
 * paper's 4, or 0 for the pooled PCHIP alone. */
static double graph_gamma(const pascal_model *md)
{
  pascal_reading_choice g;
  pascal_model_graph(md, &g);
  return g.rule == PASCAL_READ_ANCHORED ? PASCAL_GRAPH_GAMMA : 0;
}

/* omega of Eq. graph: g / (c0 + g) with g = gamma (1/hL + 1/hR). */
static double omega_of(double gamma, double hl, double hr, double c0)
{
  double g = gamma * (1 / hl + 1 / hr);
  return g / (c0 + g);
}

static double graph_t2_m5(double gamma)
{
  /* m = 5, class 1: same-class bracket 1 and 9 (hL = hR = 4), adjacent
   * references 4 and 8: c0 = 1/1 + 1/3 = 4/3; with the paper's gamma,
   * gamma (1/4 + 1/4) = 2 and omega = 2 / (2 + 4/3) = 0.6. */
  double a_lin = (a_of(1.5) + a_of(1.3)) / 2, w = omega_of(gamma, 4, 4, 4.0 / 3);
  return (1 - w) * pooled_t2(5) + w * a_lin;
}

static void rule_exact(const pascal_model *md)
{
  pascal_scan_prediction p = predict(md, 1, PASCAL_PATH_TMA, 2, 4, 2048, PASCAL_OK);
  CHECK_NEAR(p.K, 2.6, 1e-12);
  CHECK_INT(p.why.rule, PASCAL_RULE_EXACT);
  CHECK_INT(p.M, 48);
  CHECK_NEAR(p.rho, 2.6 / 48, 1e-12);
  CHECK_NEAR(p.fill_bytes, 2.6 * 16384 * 32 * 2048, 1e-3);
  CHECK_INT(p.why.n_sizes, 1);
  CHECK_INT(p.why.size[0].N, 2048);
  CHECK_NEAR(p.why.size[0].weight, 1, 0);
}

/* This calibration's folds: five references have same-class references on
 * both sides among the rest of their family ((1,tma,1) m = 8 and 16,
 * (1,tma,2) m = 4, (2,sync,0) m = 4 and 8); read back from the rest, the
 * pooled PCHIP errs less (the same-class line reads (2,sync,0)'s m = 8
 * from m = 16, K = 500), so the answers take gamma = 0. The paper's
 * arithmetic with gamma = 4 is checked by hand too, in the omegas below. */
static void graph_choice(const pascal_model *md)
{
  pascal_reading_choice g;
  pascal_model_graph(md, &g);
  CHECK_INT(g.points, 5);
  CHECK_INT(g.rule, PASCAL_READ_POOLED);
  CHECK(g.fold_pct[1] < g.fold_pct[0]);
  CHECK_NEAR(omega_of(4, 4, 4, 4.0 / 3), 0.6, 1e-15);
  CHECK_NEAR(omega_of(4, 4, 4, 1), 2.0 / 3, 1e-15);
  CHECK_NEAR(omega_of(4, 4, 4, 0.5), 0.8, 1e-15);
}

static void rule_graph(const pascal_model *md)
{
  double gamma = graph_gamma(md);
  pascal_scan_prediction p = predict(md, 1, PASCAL_PATH_TMA, 2, 5, 2048, PASCAL_OK);
  const pascal_family_step *s = &p.why.size[0].depth[0];
  CHECK_INT(p.why.rule, PASCAL_RULE_GRAPH);
  CHECK_INT(p.why.class_id, 1);
  CHECK_INT(s->m_left, 1);
  CHECK_INT(s->m_right, 9);
  CHECK_INT(s->m_minus, 4);
  CHECK_INT(s->m_plus, 8);
  CHECK_NEAR(s->c0, 4.0 / 3, 1e-14);
  CHECK_NEAR(s->omega, omega_of(gamma, 4, 4, 4.0 / 3), 1e-14);
  CHECK_NEAR(s->p, pooled_t2(5), 1e-13);
  CHECK_NEAR(s->a, graph_t2_m5(gamma), 1e-13);
  CHECK_NEAR(p.K, pascal_excess_decode(graph_t2_m5(gamma), 1, 48), 1e-12);

  /* m = 6, class 2: bracket 2 and 10 (hL = hR = 4), adjacent 4 and 8:
   * c0 = 1/2 + 1/2 = 1, omega = 2/3 with the paper's gamma. */
  p = predict(md, 1, PASCAL_PATH_TMA, 2, 6, 2048, PASCAL_OK);
  double w = omega_of(gamma, 4, 4, 1);
  double want = (1 - w) * pooled_t2(6) + w * (a_of(2.2) + a_of(1.6)) / 2;
  CHECK_INT(p.why.rule, PASCAL_RULE_GRAPH);
  CHECK_NEAR(p.why.size[0].depth[0].omega, w, 1e-14);
  CHECK_NEAR(p.why.a, want, 1e-13);
}

static void graph_single_class(const pascal_model *md)
{
  /* (1,tma,1) has class 0 only: at m = 12 the same-class bracket 8, 16 is
   * also the adjacent pair, so c0 = 1/4 + 1/4 and, with the paper's
   * gamma, omega = 4/5: a = (p + 4 a_lin)/5. */
  double x[4], y[4], dd[4];
  for (int i = 0; i < 4; i++) {
    x[i] = m_t1[i];
    y[i] = a_of(k_t1[i]);
  }
  pascal_pchip_slopes(x, y, 4, dd);
  double p = pascal_pchip_eval(x, y, dd, 4, 12);
  double a_lin = (a_of(2.5) + a_of(2)) / 2;
  pascal_scan_prediction q = predict(md, 1, PASCAL_PATH_TMA, 1, 12, 2048, PASCAL_OK);
  double w = omega_of(graph_gamma(md), 4, 4, 0.5);
  CHECK_INT(q.why.rule, PASCAL_RULE_GRAPH);
  CHECK_NEAR(q.why.size[0].depth[0].omega, w, 1e-14);
  CHECK_NEAR(q.why.a, (1 - w) * p + w * a_lin, 1e-13);
}

static void rule_clamp(const pascal_model *md)
{
  /* m = 12, class 0 in (1,tma,2): class-0 references 0, 4, 8 all lie left:
   * the nearest, m = 8, K = 1.8. m = 13, class 1: nearest is 9, K = 1.3. */
  pascal_scan_prediction p = predict(md, 1, PASCAL_PATH_TMA, 2, 12, 2048, PASCAL_OK);
  CHECK_INT(p.why.rule, PASCAL_RULE_CLAMP);
  CHECK_INT(p.why.size[0].depth[0].m_left, 8);
  CHECK_NEAR(p.K, 1.8, 1e-12);
  p = predict(md, 1, PASCAL_PATH_TMA, 2, 13, 2048, PASCAL_OK);
  CHECK_NEAR(p.K, 1.3, 1e-12);
  /* Left of every reference of the class: (2,sync,0) m = 2 is exact, m = 3
   * (class 2) has only m = 2 on its left -> 1.1. */
  p = predict(md, 2, PASCAL_PATH_SYNC, 0, 3, 2048, PASCAL_OK);
  CHECK_INT(p.why.rule, PASCAL_RULE_CLAMP);
  CHECK_NEAR(p.K, 1.1, 1e-12);
}

static void rule_depth_fallback(const pascal_model *md)
{
  /* (1,tma,1) lacks class 1: m = 5 borrows from the nearest depth with the
   * class, d = 2 (none below), clamped: the graph value of (1,tma,2). */
  pascal_scan_prediction p = predict(md, 1, PASCAL_PATH_TMA, 1, 5, 2048, PASCAL_OK);
  CHECK_INT(p.why.rule, PASCAL_RULE_DEPTH_FALLBACK);
  CHECK_INT(p.why.size[0].n_depths, 1);
  CHECK_INT(p.why.size[0].depth[0].d, 2);
  CHECK_NEAR(p.why.a, graph_t2_m5(graph_gamma(md)), 1e-13);

  /* Uncalibrated depth 3: halfway between d = 2 (graph) and d = 4 (exact
   * reference m = 5, K = 3). */
  p = predict(md, 1, PASCAL_PATH_TMA, 3, 5, 2048, PASCAL_OK);
  CHECK_INT(p.why.rule, PASCAL_RULE_DEPTH_FALLBACK);
  CHECK_INT(p.why.size[0].n_depths, 2);
  CHECK_NEAR(p.why.size[0].depth_weight[0], 0.5, 1e-15);
  CHECK_INT(p.why.size[0].depth[1].rule, PASCAL_RULE_EXACT);
  CHECK_NEAR(p.why.a, 0.5 * graph_t2_m5(graph_gamma(md)) + 0.5 * a_of(3), 1e-13);

  /* Depth 7 is past the last calibrated depth: clamped to d = 4. */
  p = predict(md, 1, PASCAL_PATH_TMA, 7, 0, 2048, PASCAL_OK);
  CHECK_INT(p.why.rule, PASCAL_RULE_DEPTH_FALLBACK);
  CHECK_INT(p.why.size[0].depth[0].d, 4);
  CHECK_NEAR(p.K, 4, 1e-12);
}

/* Off-centre depths: the class is calibrated at d = 1 and d = 4 only (exact
 * references m = 5), so d = 2 weighs d = 1 by 2/3 and d = 3 weighs it by 1/3.
 * Weights swapped (interpolating the wrong way) or frozen at 1/2 give other
 * values; the case halfway between two depths cannot tell them apart. */
static void depth_fallback_off_centre(void)
{
  static const uint32_t ms[] = {0, 1, 5};
  static const double k1[] = {3, 2, 1.5}, k4[] = {4, 3.5, 2.5};
  pascal_calibration cal;
  pascal_model *md = NULL;
  test_device_calibration(&cal, PASCAL_WORKLOAD_SCAN, "test");
  for (int i = 0; i < 3; i++) {
    add(&cal, 1, PASCAL_PATH_TMA, 1, ms[i], 2048, k1[i]);
    add(&cal, 1, PASCAL_PATH_TMA, 4, ms[i], 2048, k4[i]);
  }
  CHECK_INT(pascal_model_fit(&cal, &md, NULL), PASCAL_OK);
  pascal_calibration_free(&cal);
  if (!md)
    return;
  for (uint32_t d = 2; d <= 3; d++) {
    double w4 = (d - 1) / 3.0; /* weight of the deeper reference */
    pascal_scan_prediction p = predict(md, 1, PASCAL_PATH_TMA, d, 5, 2048, PASCAL_OK);
    CHECK_INT(p.why.rule, PASCAL_RULE_DEPTH_FALLBACK);
    CHECK_INT(p.why.size[0].n_depths, 2);
    CHECK_INT(p.why.size[0].depth[0].d, 1);
    CHECK_INT(p.why.size[0].depth[1].d, 4);
    CHECK_NEAR(p.why.size[0].depth_weight[0], 1 - w4, 1e-15);
    CHECK_NEAR(p.why.size[0].depth_weight[1], w4, 1e-15);
    CHECK_NEAR(p.why.a, (1 - w4) * a_of(1.5) + w4 * a_of(2.5), 1e-13);
    CHECK_NEAR(p.K, 1 + exp(p.why.a) - PASCAL_EXCESS_EPS, 1e-12);
  }
  pascal_model_free(md);
}

static void rule_refuse(const pascal_model *md)
{
  pascal_scan_key key = {2, PASCAL_PATH_SYNC, 0, 5}; /* class 1: no depth has it */
  pascal_scan_prediction p;
  pascal_error err;
  CHECK_INT(pascal_model_predict_scan(md, &key, 2048, 4, &p, &err), PASCAL_EREFUSED);
  CHECK(strstr(err.message, "unidentifiable") != NULL);
  CHECK(strcmp(err.field, "m") == 0);
  key = (pascal_scan_key){3, PASCAL_PATH_TMA, 2, 4}; /* unknown occupancy */
  CHECK_INT(pascal_model_predict_scan(md, &key, 2048, 4, &p, &err), PASCAL_EREFUSED);
  CHECK(strstr(err.message, "o=3") != NULL);
  key = (pascal_scan_key){2, PASCAL_PATH_TMA, 2, 4}; /* (2, tma) never measured */
  CHECK_INT(pascal_model_predict_scan(md, &key, 2048, 4, &p, &err), PASCAL_EREFUSED);
  /* (2,sync) exists at N = 2048 only: N = 3072 needs N = 4096 too. */
  key = (pascal_scan_key){2, PASCAL_PATH_SYNC, 0, 4};
  CHECK_INT(pascal_model_predict_scan(md, &key, 3072, 4, &p, &err), PASCAL_EREFUSED);
  CHECK(strstr(err.message, "N=4096") != NULL);
}

static void sizes_eta(const pascal_model *md)
{
  /* N = 3072 between 2048 (eta 0.625) and 4096 (eta 0.3125), eta = 0.41667:
   * weight of 4096 = (0.625 - 0.41667)/0.3125 = 2/3. */
  pascal_scan_prediction p = predict(md, 1, PASCAL_PATH_TMA, 4, 5, 3072, PASCAL_OK);
  CHECK_INT(p.why.n_sizes, 2);
  CHECK_NEAR(p.why.size[1].weight, 2.0 / 3, 1e-14);
  CHECK_NEAR(p.why.size[0].eta, 0.625, 1e-15);
  CHECK_NEAR(p.why.a, a_of(3) / 3 + 2 * a_of(1.5) / 3, 1e-13);
  /* Below the calibrated sizes (C < N < 2048) the excess is carried on
   * linearly in eta from the two smallest sizes (docs/design.md 4.1), and
   * said so: eta = 1280/1500, weight of 4096 = (eta - 0.625)/(0.3125 -
   * 0.625) < 0; K = 1 + exp(a) - eps (about 6.47, below M). */
  p = predict(md, 1, PASCAL_PATH_TMA, 4, 5, 1500, PASCAL_OK);
  double w = (1280.0 / 1500 - 0.625) / (0.3125 - 0.625);
  CHECK_INT(p.why.n_sizes, 2);
  CHECK_INT(p.why.size[0].N, 2048);
  CHECK_NEAR(p.why.size[1].weight, w, 1e-14);
  CHECK_NEAR(p.why.a, (1 - w) * a_of(3) + w * a_of(1.5), 1e-13);
  CHECK_NEAR(p.K, 1 + exp(p.why.a) - PASCAL_EXCESS_EPS, 1e-12);
  CHECK_INT(p.extrapolated.n, 2); /* N, and W = 32 beyond the one horizon 16 */
  CHECK_INT(p.extrapolated.item[0].coordinate, PASCAL_COORD_N);
  CHECK_NEAR(p.extrapolated.item[0].min, 2048, 0);
  CHECK_NEAR(p.extrapolated.item[0].max, 4096, 0);
  CHECK_INT(p.extrapolated.item[0].action, PASCAL_EXTRAP_LINEAR);
  CHECK_INT(p.extrapolated.item[1].coordinate, PASCAL_COORD_W);
  CHECK_NEAR(p.extrapolated.item[1].min, W_REF, 0);
  CHECK_NEAR(p.extrapolated.item[1].max, W_REF, 0);
  CHECK_INT(p.extrapolated.item[1].action, PASCAL_EXTRAP_HELD);
  /* above the largest size: its curve read at the same blocks per slot,
   * W N / N_max (one horizon here, so its value) */
  p = predict(md, 1, PASCAL_PATH_TMA, 4, 5, 100000, PASCAL_OK);
  CHECK_INT(p.why.n_sizes, 1);
  CHECK_INT(p.why.size[0].N, 4096);
  CHECK_INT(p.extrapolated.item[0].action, PASCAL_EXTRAP_SAME_SLOT);
  CHECK_NEAR(p.K, 1.5, 1e-12);
  CHECK_NEAR(p.fill_bytes, 1.5 * 16384 * 32 * 100000.0, 1e-2);
}

static void decode_clips(const pascal_model *md)
{
  /* K = 500 measured, M = 2 * 48 = 96: clipped to M. K = 0.5: clipped to 1. */
  pascal_scan_prediction p = predict(md, 2, PASCAL_PATH_SYNC, 0, 16, 2048, PASCAL_OK);
  CHECK_INT(p.M, 96);
  CHECK(p.K == 96);
  CHECK(p.rho == 1);
  p = predict(md, 2, PASCAL_PATH_SYNC, 0, 0, 2048, PASCAL_OK);
  CHECK(p.K == 1);
}

static void curve_views(const pascal_model *md)
{
  /* 4 + 7 + 3 + 5 keys at N = 2048 and 3 at N = 4096, ordered by (N, o,
   * path, d, m); each curve has the single knot log 16 with Y = log(16 K). */
  pascal_curve_view v;
  pascal_error err;
  CHECK_INT(pascal_model_curve_count(md), 22);
  CHECK_INT(pascal_model_curve(md, 0, &v, &err), PASCAL_OK);
  CHECK_INT(v.N, 2048);
  CHECK_INT(v.key.o, 1);
  CHECK_INT(v.key.path, PASCAL_PATH_TMA);
  CHECK_INT(v.key.d, 1);
  CHECK_INT(v.key.m, 0);
  CHECK_INT(v.curve->n, 1);
  CHECK_NEAR(v.curve->x[0], log(16), 1e-15);
  CHECK_NEAR(v.curve->y[0], log(16 * 3.0), 1e-14);
  CHECK_INT(pascal_model_curve(md, 18, &v, &err), PASCAL_OK);
  CHECK_INT(v.key.o, 2); /* (2, sync) sorts after (1, tma) */
  CHECK_INT(pascal_model_curve(md, 21, &v, &err), PASCAL_OK);
  CHECK_INT(v.N, 4096);
  CHECK_INT(v.key.m, 8);
  CHECK_NEAR(v.curve->y[0], log(16 * 1.2), 1e-14);
  CHECK_INT(pascal_model_curve(md, 22, &v, &err), PASCAL_ENOTFOUND);
  CHECK(strcmp(err.field, "index") == 0);
  CHECK_INT(pascal_model_workload(md), PASCAL_WORKLOAD_SCAN);
  CHECK_INT(pascal_model_device(md)->capacity_blocks, 1280);
}

static void query_validation(const pascal_model *md)
{
  pascal_scan_prediction p;
  pascal_error err;
  pascal_scan_key key = {1, PASCAL_PATH_SYNC, 2, 4};
  CHECK_INT(pascal_model_predict_scan(md, &key, 2048, 4, &p, &err), PASCAL_EINVAL);
  CHECK(strcmp(err.field, "d") == 0);
  key = (pascal_scan_key){1, PASCAL_PATH_TMA, 2, 4};
  CHECK_INT(pascal_model_predict_scan(md, &key, 0, 4, &p, &err), PASCAL_EINVAL);
  CHECK(strcmp(err.field, "N") == 0);
  CHECK_INT(pascal_model_predict_scan(md, &key, 2048, 0, &p, &err), PASCAL_EINVAL);
  CHECK(strcmp(err.field, "W") == 0);
  CHECK_INT(pascal_model_predict_scan(md, &key, 2048, NAN, &p, &err), PASCAL_EINVAL);
  key.o = 0;
  CHECK_INT(pascal_model_predict_scan(md, &key, 2048, 4, &p, &err), PASCAL_EINVAL);
  CHECK(strcmp(err.field, "o") == 0);
}

/* Random families: the graph value lies in the convex hull of p, a_L, a_R,
 * follows Eq. graph from its own explanation, and p equals the PCHIP of the
 * family's encoded values computed on the full arrays. */
static void convex_hull_randomised(void)
{
  unsigned seed = 2024;
  for (int trial = 0; trial < 60 && check_failures() == 0; trial++) {
    pascal_calibration cal;
    pascal_model *md = NULL;
    test_device_calibration(&cal, PASCAL_WORKLOAD_SCAN, "rand");
    double x[40], y[40], dd[40];
    size_t n = 0;
    for (uint32_t m = 0; m < 40; m++) {
      seed = seed * 1664525u + 1013904223u;
      if ((seed >> 28) < 7)
        continue;
      seed = seed * 1664525u + 1013904223u;
      double K = 1 + 10.0 * (seed >> 8) / 16777216.0;
      add(&cal, 1, PASCAL_PATH_TMA, 3, m, 2048, K);
      x[n] = m;
      y[n] = a_of(K);
      n++;
    }
    if (n < 3 || pascal_model_fit(&cal, &md, NULL)) {
      pascal_calibration_free(&cal);
      continue;
    }
    pascal_pchip_slopes(x, y, n, dd);
    for (uint32_t m = 0; m < 40; m++) {
      pascal_scan_key key = {1, PASCAL_PATH_TMA, 3, m};
      pascal_scan_prediction p;
      if (pascal_model_predict_scan(md, &key, 2048, 8, &p, NULL) != PASCAL_OK)
        continue;
      const pascal_family_step *s = &p.why.size[0].depth[0];
      if (s->rule != PASCAL_RULE_GRAPH)
        continue;
      double lo = fmin(s->p, fmin(s->a_left, s->a_right));
      double hi = fmax(s->p, fmax(s->a_left, s->a_right));
      CHECK(s->a >= lo - 1e-12 && s->a <= hi + 1e-12);
      CHECK_NEAR(s->p, pascal_pchip_eval(x, y, dd, n, m), 1e-12);
      double hl = m - (double)s->m_left, hr = (double)s->m_right - m;
      CHECK_NEAR(s->omega, omega_of(graph_gamma(md), hl, hr, s->c0), 1e-14);
      CHECK_NEAR(s->a, (1 - s->omega) * s->p + s->omega * s->a_lin, 1e-13);
    }
    pascal_model_free(md);
    pascal_calibration_free(&cal);
  }
}

int main(void)
{
  pascal_model *md = build();
  if (!md)
    return check_summary();
  rule_exact(md);
  graph_choice(md);
  rule_graph(md);
  graph_single_class(md);
  rule_clamp(md);
  rule_depth_fallback(md);
  depth_fallback_off_centre();
  rule_refuse(md);
  sizes_eta(md);
  decode_clips(md);
  query_validation(md);
  curve_views(md);
  pascal_model_free(md);
  convex_hull_randomised();
  return check_summary();
}
