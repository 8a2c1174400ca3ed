/*
 * test_graph_reading.c - each scan calibration's reading in m between two
 * references of its execution class (model.graph, core/src/model_reading.c;
 * docs/design.md 4.3), chosen at fit time on its own references.
 *
 * Two calibrations of one family (o = 2, tma, d = 3) at two sizes and the
 * horizons 1, 4, 16, with m in {0, 1, 2, 4, 5, 6, 8, 9, 10} (classes 0, 1,
 * 2 under mod4-min2, three of each):
 *   class-stepped: only class 1 (m = 1, 5, 9) diverges, e = 2 (1 - 1/W);
 *     read from the rest, a held-out reference's same-class line is right
 *     and its pooled trend, bent by the neighbours of other classes, is
 *     not: the paper's anchored interpolation must be chosen;
 *   smooth in m: e = 0.05 m^2 (1 - 1/W), no class effect; the pooled trend
 *     over neighbours one or two apart follows the curvature, the line over
 *     same-class references eight apart does not: the pooled trend must be
 *     chosen.
 * Each choice's fold errors are checked against the folds written plainly
 * here (the public PCHIP, the closed form's values), and the answers at
 * m = 3 and 7 (class 2, between the references 2 and 6, 6 and 10) against
 * the chosen reading computed the same way. Verified to fail with gamma
 * held at 4.
 */
#include <math.h>
#include <stdio.h>

#include "check.h"
#include "pascal/curve.h"
#include "pascal/predict.h"
#include "test_device.h"

static const uint32_t MS[] = {0, 1, 2, 4, 5, 6, 8, 9, 10};
#define N_MS (sizeof MS / sizeof *MS)
static const uint32_t SIZES[] = {3000, 4000};
static const double HORIZONS[] = {1, 4, 16};

typedef double (*excess_fn)(uint32_t m);

static double class_stepped(uint32_t m)
{
  return m % 4 == 1 ? 2 : 0;
}

static double smooth(uint32_t m)
{
  return 0.05 * m * m;
}

static double k_of(excess_fn e, uint32_t m, double W)
{
  return 1 + e(m) * (1 - 1 / W);
}

static pascal_model *fit(excess_fn e)
{
  pascal_calibration cal;
  pascal_model *md = NULL;
  pascal_error err;
  test_device_calibration(&cal, PASCAL_WORKLOAD_SCAN, "graph-test");
  for (size_t s = 0; s < 2; s++)
    for (size_t i = 0; i < N_MS; i++)
      for (size_t h = 0; h < 3; h++) {
        double W = HORIZONS[h];
        pascal_scan_run r = {.key = {2, PASCAL_PATH_TMA, 3, MS[i]},
                             .N = SIZES[s],
                             .W = W,
                             .fill_bytes = k_of(e, MS[i], W) * 16384.0 * W * SIZES[s]};
        CHECK_INT(pascal_calibration_append_scan(&cal, &r, &err), PASCAL_OK);
      }
  CHECK_INT(pascal_model_fit(&cal, &md, &err), PASCAL_OK);
  pascal_calibration_free(&cal);
  return md;
}

static unsigned class_of(uint32_t m)
{
  return m % 4 < 2 ? m % 4 : 2;
}

/* The excess coordinate at m by both readings from the references ms[0, n)
 * with values a[]: out[0] anchored (gamma 4), out[1] the pooled PCHIP. 0 when
 * m has no same-class reference on one side. */
static int read_both(const double *ms, const double *a, size_t n, double m, double out[2])
{
  double d[N_MS];
  size_t left = n, right = n, below = 0;
  for (size_t k = 0; k < n; k++) {
    if (ms[k] < m) {
      below = k;
      if (class_of((uint32_t)ms[k]) == class_of((uint32_t)m))
        left = k;
    }
    if (ms[k] > m && right == n && class_of((uint32_t)ms[k]) == class_of((uint32_t)m))
      right = k;
  }
  if (left == n || right == n)
    return 0;
  pascal_pchip_slopes(ms, a, n, d);
  double p = pascal_pchip_eval(ms, a, d, n, m);
  double hl = m - ms[left], hr = ms[right] - m;
  double line = (hr * a[left] + hl * a[right]) / (hl + hr);
  double c0 = 1 / (m - ms[below]) + 1 / (ms[below + 1] - m);
  double g = 4 * (1 / hl + 1 / hr), w = g / (c0 + g);
  out[0] = (1 - w) * p + w * line;
  out[1] = p;
  return 1;
}

/* The folds written plainly: every m with same-class references on both
 * sides among the rest, at each size and horizon, both readings' mean
 * |K / K_true - 1| in %; the number of points. */
static size_t plain_folds(excess_fn e, double pct[2])
{
  double sum[2] = {0, 0};
  size_t points = 0;
  for (size_t s = 0; s < 2; s++)
    for (size_t h = 0; h < 3; h++)
      for (size_t t = 0; t < N_MS; t++) {
        double ms[N_MS], a[N_MS], out[2];
        size_t n = 0;
        for (size_t k = 0; k < N_MS; k++)
          if (k != t) {
            ms[n] = MS[k];
            a[n++] = pascal_excess_encode(log(k_of(e, MS[k], HORIZONS[h])));
          }
        if (!read_both(ms, a, n, MS[t], out))
          continue;
        double truth = k_of(e, MS[t], HORIZONS[h]);
        for (int c = 0; c < 2; c++)
          sum[c] += fabs(pascal_excess_decode(out[c], 1, INFINITY) / truth - 1);
        points++;
      }
  for (int c = 0; c < 2; c++)
    pct[c] = 100 * sum[c] / (double)points;
  return points;
}

static void check_case(excess_fn e, pascal_reading want)
{
  pascal_model *md = fit(e);
  if (!md)
    return;
  pascal_reading_choice b;
  pascal_model_graph(md, &b);
  double pct[2];
  size_t points = plain_folds(e, pct);
  CHECK_INT(b.candidate[0], PASCAL_READ_ANCHORED);
  CHECK_INT(b.candidate[1], PASCAL_READ_POOLED);
  CHECK_INT(b.rule, want);
  /* m = 4, 5, 6 held out (0, 1, 2 and 8, 9, 10 beside them), 2 sizes x 3 */
  CHECK_INT(b.points, 18);
  CHECK_INT(points, 18);
  for (int c = 0; c < 2; c++)
    CHECK_NEAR(b.fold_pct[c], pct[c], 1e-9);
  CHECK(b.fold_pct[want == PASCAL_READ_POOLED] < b.fold_pct[want != PASCAL_READ_POOLED]);

  /* the answers between same-class references read the chosen way */
  const double queries[] = {3, 7};
  for (size_t q = 0; q < 2; q++) {
    double ms[N_MS], a[N_MS], out[2];
    for (size_t k = 0; k < N_MS; k++) {
      ms[k] = MS[k];
      a[k] = pascal_excess_encode(log(k_of(e, MS[k], 16)));
    }
    CHECK(read_both(ms, a, N_MS, queries[q], out));
    pascal_scan_key key = {2, PASCAL_PATH_TMA, 3, (uint32_t)queries[q]};
    pascal_scan_prediction p;
    pascal_error err;
    CHECK_INT(pascal_model_predict_scan(md, &key, 3000, 16, &p, &err), PASCAL_OK);
    CHECK_INT(p.why.size[0].depth[0].rule, PASCAL_RULE_GRAPH);
    CHECK_NEAR(p.K, pascal_excess_decode(out[want == PASCAL_READ_POOLED], 1, INFINITY), 1e-9);
  }
  pascal_model_free(md);
}

int main(void)
{
  check_case(class_stepped, PASCAL_READ_ANCHORED);
  check_case(smooth, PASCAL_READ_POOLED);
  return check_summary();
}
