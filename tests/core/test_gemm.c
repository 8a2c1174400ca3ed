/*
 * test_gemm.c - the GEMM extension (paper section 4.5, App. C "GEMM
 * instantiation"): the worked tile counts and byte references, K_0, the
 * transfer along log n_c then log n_r with (p + 4 a_lin)/5 inside brackets,
 * the cumulative curve over n_k, decoding clipped to [K_0, M], and beyond
 * the grid the nearest reference's excess carried by the static reference
 * V_s (by hand where V_s is Q, B_0 or between; the shapes of the grids below run in
 * one wave of 48 CTAs, where V_s = B_0 and the answer keeps the nearest
 * reference's kappa).
 *
 * Reference grids: n_r in {2, 4, 8} x n_c in {2, 4, 8} (Mg, Ng = 128 n),
 * Kg = 1024 (n_k = 16), kappa = KAPPA[r][c]; grid (4, 8) also at Kg = 4096
 * (n_k = 64) with kappa = 3, grid (8, 8) at Kg = 2048 with kappa = 100. Tiles 128 x 128 x 64, FP16,
 * M = 48 resident CTAs.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "pascal/gemm_config.h"
#include "pascal/predict.h"
#include "test_device.h"

static const double KAPPA[3][3] = {{2.0, 1.6, 1.3}, {1.8, 1.5, 1.2}, {1.4, 1.25, 1.1}};
static const uint32_t TILES[3] = {2, 4, 8};

static double a_of(double kappa)
{
  return log((kappa > 1 ? kappa - 1 : 0) + PASCAL_EXCESS_EPS);
}

static pascal_calibration gemm_cal(void)
{
  pascal_calibration cal;
  test_device_calibration(&cal, PASCAL_WORKLOAD_GEMM, "gemm-test");
  cal.gemm.resident_ctas = 48;
  return cal;
}

static void add(pascal_calibration *cal, uint32_t n_r, uint32_t n_c, uint32_t n_k, double kappa)
{
  pascal_gemm_run r = {.shape = {128 * n_r, 128 * n_c, 64 * n_k}};
  r.fill_bytes = kappa * 16384.0 * (n_r + n_c) * n_k; /* kappa B_0 */
  pascal_error err;
  if (pascal_calibration_append_gemm(cal, &r, &err))
    printf("append: %s %s\n", err.field, err.message);
}

static void worked_numbers(void)
{
  pascal_calibration cal = gemm_cal();
  pascal_gemm_prediction g;
  pascal_error err;
  pascal_gemm_shape s = {1280, 1280, 2560};
  CHECK_INT(pascal_gemm_geometry(&cal.gemm, &s, &g, &err), PASCAL_OK);
  CHECK_INT(g.n_r, 10);
  CHECK_INT(g.n_c, 10);
  CHECK_INT(g.n_k, 40);
  CHECK(g.B0 == 13107200.0);
  CHECK(g.Q == 131072000.0);
  /* K_0 = M (n_r + n_c) / (2 n_r n_c) = 48 * 20 / 200 = 4.8. */
  CHECK_NEAR(g.K0, 4.8, 1e-12);
  /* Non-square grid: 1280 x 896: n_c = 7, K_0 = 48 * 17 / 140. */
  s.Ng = 896;
  CHECK_INT(pascal_gemm_geometry(&cal.gemm, &s, &g, &err), PASCAL_OK);
  CHECK_NEAR(g.K0, 48.0 * 17 / 140, 1e-12);
  /* Non-multiples are named. */
  s.Ng = 900;
  CHECK_INT(pascal_gemm_geometry(&cal.gemm, &s, &g, &err), PASCAL_EINVAL);
  CHECK(strcmp(err.field, "Ng") == 0);
  CHECK(strstr(err.message, "not a multiple of tile_n (128)") != NULL);
  s = (pascal_gemm_shape){1280, 1280, 100};
  CHECK_INT(pascal_gemm_geometry(&cal.gemm, &s, &g, &err), PASCAL_EINVAL);
  CHECK(strcmp(err.field, "Kg") == 0);
  /* Generalised tiles: 64 x 128 x 32 with 4-byte elements:
   * B_0 = n_k (n_r 64 + n_c 128) 32 * 4, Q = n_r n_c n_k (64 + 128) 32 * 4. */
  pascal_gemm_params t = {
      .tile_m = 64, .tile_n = 128, .tile_k = 32, .elem_bytes = 4, .resident_ctas = 10};
  s = (pascal_gemm_shape){640, 1280, 320};
  CHECK_INT(pascal_gemm_geometry(&t, &s, &g, &err), PASCAL_OK);
  CHECK(g.B0 == 10.0 * (10 * 64 + 10 * 128) * 128);
  CHECK(g.Q == 1000.0 * 192 * 128);
  pascal_calibration_free(&cal);
}

static pascal_model *build(void)
{
  pascal_calibration cal = gemm_cal();
  pascal_model *md = NULL;
  for (int r = 0; r < 3; r++)
    for (int c = 0; c < 3; c++)
      add(&cal, TILES[r], TILES[c], 16, KAPPA[r][c]);
  add(&cal, 4, 8, 64, 3.0);
  add(&cal, 8, 8, 32, 100.0); /* kappa far above M / K_0 = 8 */
  CHECK_INT(pascal_model_fit(&cal, &md, NULL), PASCAL_OK);
  pascal_calibration_free(&cal);
  return md;
}

static pascal_gemm_prediction predict(const pascal_model *md, uint32_t n_r, uint32_t n_c,
                                      uint32_t n_k)
{
  pascal_gemm_prediction p;
  memset(&p, 0, sizeof p);
  pascal_gemm_shape s = {128 * n_r, 128 * n_c, 64 * n_k};
  pascal_error err;
  CHECK_INT(pascal_model_predict_gemm(md, &s, &p, &err), PASCAL_OK);
  return p;
}

/* (p + 4 a_lin)/5 along log tile count with knots 2, 4, 8 at t. */
static double axis(const double v[3], double t)
{
  double x[3] = {log(2), log(4), log(8)}, d[3];
  pascal_pchip_slopes(x, v, 3, d);
  double p = pascal_pchip_eval(x, v, d, 3, log(t));
  int i = t < 4 ? 0 : 1;
  double hl = log(t) - x[i], hr = x[i + 1] - log(t);
  double a_lin = (hr * v[i] + hl * v[i + 1]) / (hl + hr);
  return (p + 4 * a_lin) / 5;
}

static double row_at(int r, double n_c)
{
  double v[3];
  for (int c = 0; c < 3; c++)
    v[c] = a_of(KAPPA[r][c]);
  return axis(v, n_c);
}

static void transfer_rules(const pascal_model *md)
{
  /* Exact grid (8, 4): K = K_0 kappa, K_0 = 48 * 12 / 64 = 9. */
  pascal_gemm_prediction p = predict(md, 8, 4, 16);
  CHECK_INT(p.why.rule, PASCAL_RULE_EXACT);
  CHECK_NEAR(p.K0, 9, 1e-12);
  CHECK_NEAR(p.kappa, 1.25, 1e-12);
  CHECK_NEAR(p.K, 11.25, 1e-11);
  CHECK_NEAR(p.rho, 11.25 / 48, 1e-12);
  CHECK_NEAR(p.fill_bytes, 1.25 * p.B0, 1e-3);

  /* (8, 3): exact row 8, column step (p + 4 a_lin)/5 between n_c = 2, 4. */
  p = predict(md, 8, 3, 16);
  CHECK_INT(p.why.rule, PASCAL_RULE_GRAPH);
  CHECK_INT(p.why.row.rule, PASCAL_RULE_EXACT);
  CHECK_INT(p.why.col[0].rule, PASCAL_RULE_GRAPH);
  CHECK_INT(p.why.col[0].left, 2);
  CHECK_INT(p.why.col[0].right, 4);
  CHECK_NEAR(p.why.a, row_at(2, 3), 1e-13);
  CHECK_NEAR(p.why.col[0].a, (p.why.col[0].p + 4 * p.why.col[0].a_lin) / 5, 1e-14);

  /* (3, 3): each row transferred to n_c = 3, then the rows to n_r = 3. */
  double rows[3] = {row_at(0, 3), row_at(1, 3), row_at(2, 3)};
  p = predict(md, 3, 3, 16);
  CHECK_INT(p.why.n_rows, 2);
  CHECK_INT(p.why.row_n_r[0], 2);
  CHECK_INT(p.why.row_n_r[1], 4);
  CHECK_NEAR(p.why.a, axis(rows, 3), 1e-13);
  CHECK_NEAR(p.K, pascal_excess_decode(axis(rows, 3), p.K0, 48), 1e-12);

  /* (6, 8): exact column 8 in rows 4 and 8, row step between them. */
  double col8[3] = {a_of(KAPPA[0][2]), a_of(KAPPA[1][2]), a_of(KAPPA[2][2])};
  p = predict(md, 6, 8, 16);
  CHECK_NEAR(p.why.a, axis(col8, 6), 1e-13);

  /* Clamped ends: n_c = 16 -> column 8, n_r = 1 -> row 2: kappa(2, 8). */
  p = predict(md, 1, 16, 16);
  CHECK_INT(p.why.rule, PASCAL_RULE_CLAMP);
  CHECK_INT(p.why.row.left, 2);
  CHECK_NEAR(p.kappa, 1.3, 1e-12);
}

static void curve_over_nk(const pascal_model *md)
{
  /* Grid (4, 8): kappa 1.2 at n_k = 16 and 3 at n_k = 64. Y = log n_k +
   * log kappa is linear in log n_k between them (two knots), so at n_k = 32
   * (the geometric midpoint) L = (log 1.2 + log 3)/2: kappa = sqrt 3.6
   * (K_0 = 48 * 12 / 64 = 9, so K = 9 kappa stays below M = 48). */
  pascal_gemm_prediction p = predict(md, 4, 8, 32);
  CHECK_INT(p.why.rule, PASCAL_RULE_EXACT);
  CHECK_NEAR(p.kappa, sqrt(3.6), 1e-12);
  /* Held at the ends: n_k = 128 keeps kappa(64) = 3, n_k = 2 keeps 1.2. */
  CHECK_NEAR(predict(md, 4, 8, 128).kappa, 3, 1e-12);
  CHECK_NEAR(predict(md, 4, 8, 2).kappa, 1.2, 1e-12);
}

static void clipping(const pascal_model *md)
{
  /* Grid (8, 8) at n_k = 32: kappa 100 measured, K_0 = 48 * 16 / 128 = 6,
   * so K = min(48, 600) = 48. */
  pascal_gemm_prediction p = predict(md, 8, 8, 32);
  CHECK_NEAR(p.K0, 6, 1e-12);
  CHECK(p.K == 48);
  CHECK(p.rho == 1);
  /* Decoding never goes below K_0: any a gives K in [K_0, M]. */
  for (double a = -20; a <= 20; a += 0.5) {
    double K = pascal_excess_decode(a, 6, 48);
    CHECK(K >= 6 && K <= 48);
  }
}

/* Beyond the grid, by hand. Grids n_r, n_c in {2, 4} x n_k in {2, 4, 8},
 * kappa 1.5, ONE resident CTA (each CTA its own wave). Bytes in units of
 * u = 16384 (one 128 x 64 FP16 tile, one cache block): B_0 = (n_r + n_c)
 * n_k u, Q = 2 n_r n_c n_k u, a panel n_k u. The query (8, 2, 16) reads
 * the reference (4, 2, 8): B_0 = 48 u, V = 72 u (excess 24 u), Q = 128 u;
 * the query's B_0 = 160 u, Q = 512 u. The excess carried is
 * V - B_0 = 24 u (V_s(q) - 160 u) / (V_s(ref) - 48 u):
 * - capacity 1 block (below every panel): no panel is ever re-read from
 *   the cache, V_s = Q at both: 24 (512 - 160) / (128 - 48) = 105.6 u,
 *   V = 265.6 u, kappa 1.66 (V / V_s gave 1.8, holding kappa 1.5);
 * - capacity 36 blocks: the static walk re-reads one panel set at the
 *   reference and not all at the query, V_s(ref) = 72 u (excess 0.5
 *   B_0), V_s(q) = 384 u (both checked below): 24 (384 - 160) / 24 =
 *   224 u, V = 384 u, kappa 2.4;
 * - capacity 2^20 blocks (everything fits): V_s = B_0 at both, the static
 *   excess at the reference 0, under 0.1 B_0: the reference's kappa, 1.5,
 *   with the actions of a held value (clamped, held-at-end).
 * - 2^25 output tiles (more than V_s walks): kappa 1.5, clamped.
 * Checked to fail with the fills carried by V / V_s (the first case reads
 * 1.8), by B_0 (1.5), with the guard removed (the third reads kappa 1: the
 * ratio 0 / 0), with the guard at 1 (the second reads 1.5) and with the
 * ERANGE fallback removed. */
static void static_ratio(void)
{
  const double u = 16384;
  uint32_t caps[3] = {1, 36, 1u << 20};
  double want[3] = {1.66, 2.4, 1.5}, vs_ref[3] = {128, 72, 48}, vs_q[3] = {512, 384, 160};
  pascal_extrapolation_action act[3][2] = {{PASCAL_EXTRAP_STATIC_RATIO, PASCAL_EXTRAP_STATIC_RATIO},
                                           {PASCAL_EXTRAP_STATIC_RATIO, PASCAL_EXTRAP_STATIC_RATIO},
                                           {PASCAL_EXTRAP_CLAMPED, PASCAL_EXTRAP_HELD}};
  for (int t = 0; t < 3; t++) {
    pascal_calibration cal = gemm_cal();
    pascal_model *md = NULL;
    pascal_gemm_config c;
    pascal_gemm_shape q = {8 * 128, 2 * 128, 16 * 64}, ref = {4 * 128, 2 * 128, 8 * 64};
    double vq = 0, vr = 0;
    cal.gemm.resident_ctas = 1;
    cal.device.capacity_blocks = caps[t];
    pascal_gemm_config_of(&cal.gemm, &c);
    CHECK_INT(pascal_gemm_static_fills(&q, &c, 1, caps[t] * u, &vq, NULL), PASCAL_OK);
    CHECK_INT(pascal_gemm_static_fills(&ref, &c, 1, caps[t] * u, &vr, NULL), PASCAL_OK);
    CHECK_NEAR(vq, vs_q[t] * u, 1e-6);
    CHECK_NEAR(vr, vs_ref[t] * u, 1e-6);
    for (uint32_t r = 2; r <= 4; r *= 2)
      for (uint32_t cc = 2; cc <= 4; cc *= 2)
        for (uint32_t k = 2; k <= 8; k *= 2)
          add(&cal, r, cc, k, 1.5);
    CHECK_INT(pascal_model_fit(&cal, &md, NULL), PASCAL_OK);
    pascal_calibration_free(&cal);
    if (!md)
      return;
    pascal_gemm_prediction p = predict(md, 8, 2, 16);
    CHECK_NEAR(p.B0, 160 * u, 1e-6);
    CHECK_NEAR(p.Q, 512 * u, 1e-6);
    CHECK_NEAR(p.kappa, want[t], 1e-12);
    CHECK_NEAR(p.fill_bytes, want[t] * 160 * u, 1e-6);
    CHECK_NEAR(p.K, p.K0 * want[t], 1e-12);
    CHECK_INT(p.extrapolated.n, 2);
    CHECK_INT(p.extrapolated.item[0].coordinate, PASCAL_COORD_N_R);
    CHECK_INT(p.extrapolated.item[0].action, act[t][0]);
    CHECK_INT(p.extrapolated.item[1].coordinate, PASCAL_COORD_N_K);
    CHECK_INT(p.extrapolated.item[1].action, act[t][1]);
    /* inside the grid nothing is carried */
    p = predict(md, 4, 2, 8);
    CHECK_NEAR(p.kappa, 1.5, 1e-12);
    CHECK_INT(p.extrapolated.n, 0);
    if (t == 0) { /* 8192 x 4096 output tiles */
      p = predict(md, 8192, 4096, 4);
      CHECK_NEAR(p.kappa, 1.5, 1e-12);
      CHECK_INT(p.extrapolated.n, 2);
      CHECK_INT(p.extrapolated.item[0].action, PASCAL_EXTRAP_CLAMPED);
      CHECK_INT(p.extrapolated.item[1].action, PASCAL_EXTRAP_CLAMPED);
    }
    pascal_model_free(md);
  }
}

static void wrong_workload_and_shape(const pascal_model *md)
{
  pascal_scan_key key = {1, PASCAL_PATH_TMA, 1, 0};
  pascal_scan_prediction sp;
  pascal_gemm_prediction gp;
  pascal_error err;
  CHECK_INT(pascal_model_predict_scan(md, &key, 4096, 4, &sp, &err), PASCAL_EINVAL);
  CHECK(strcmp(err.field, "workload") == 0);
  pascal_gemm_shape s = {1000, 1280, 2560};
  CHECK_INT(pascal_model_predict_gemm(md, &s, &gp, &err), PASCAL_EINVAL);
  CHECK(strcmp(err.field, "Mg") == 0);
}

int main(void)
{
  worked_numbers();
  static_ratio();
  pascal_model *md = build();
  if (md) {
    transfer_rules(md);
    curve_over_nk(md);
    clipping(md);
    wrong_workload_and_shape(md);
    pascal_model_free(md);
  }
  return check_summary();
}
