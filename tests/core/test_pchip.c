/*
 * test_pchip.c - PCHIP of pascal/curve.h against values derived by hand
 * from SciPy PchipInterpolator's derivative rules (stated in curve.c), plus
 * shape properties: knots reproduced exactly, monotone data stays monotone,
 * two knots give the straight line, one knot a constant, clamping outside.
 *
 * Hermite basis on [x_i, x_i + h] at s = 1/2: h00 = 1/2, h10 = 1/8,
 * h01 = 1/2, h11 = -1/8, so S = (y_i + y_{i+1})/2 + h (d_i - d_{i+1})/8.
 */
#include <math.h>

#include "check.h"
#include "pascal/curve.h"

static double eval(const double *x, const double *y, size_t n, double t)
{
  double d[16];
  pascal_pchip_slopes(x, y, n, d);
  return pascal_pchip_eval(x, y, d, n, t);
}

static void uniform_case(void)
{
  /* x = 0..3, y = 0,1,4,9: secants 1,3,5, spacings 1.
   * Interior k=1: w1 = w2 = 3, d = 6/(3/1 + 3/3) = 1.5;
   * k=2: d = 6/(3/3 + 3/5) = 3.75.
   * End k=0: ((2+1)*1 - 1*3)/2 = 0 (sign differs from m0 = 1) -> 0.
   * End k=3: ((2+1)*5 - 1*3)/2 = 6 (same signs) -> 6. */
  const double x[] = {0, 1, 2, 3}, y[] = {0, 1, 4, 9};
  double d[4];
  pascal_pchip_slopes(x, y, 4, d);
  CHECK_NEAR(d[0], 0, 1e-15);
  CHECK_NEAR(d[1], 1.5, 1e-15);
  CHECK_NEAR(d[2], 3.75, 1e-15);
  CHECK_NEAR(d[3], 6, 1e-15);
  /* Midpoints: (0+1)/2 + (0-1.5)/8 = 0.3125; (1+4)/2 + (1.5-3.75)/8 = 2.21875;
   * (4+9)/2 + (3.75-6)/8 = 6.21875. */
  CHECK_NEAR(pascal_pchip_eval(x, y, d, 4, 0.5), 0.3125, 1e-14);
  CHECK_NEAR(pascal_pchip_eval(x, y, d, 4, 1.5), 2.21875, 1e-14);
  CHECK_NEAR(pascal_pchip_eval(x, y, d, 4, 2.5), 6.21875, 1e-14);
  /* Knots exactly, clamped outside. */
  for (int i = 0; i < 4; i++)
    CHECK(pascal_pchip_eval(x, y, d, 4, x[i]) == y[i]);
  CHECK(pascal_pchip_eval(x, y, d, 4, -5) == 0);
  CHECK(pascal_pchip_eval(x, y, d, 4, 7) == 9);
}

static void nonuniform_case(void)
{
  /* x = 0,1,3, y = 0,2,3: spacings 1,2, secants 2, 0.5.
   * Interior k=1: w1 = 2*2+1 = 5, w2 = 2+2*1 = 4, d = 9/(5/2 + 4/0.5) = 6/7.
   * End k=0: ((2*1+2)*2 - 1*0.5)/3 = 2.5 (signs agree) -> 2.5.
   * End k=2: h0 = 2, h1 = 1, m0 = 0.5, m1 = 2: ((4+1)*0.5 - 2*2)/3 = -0.5,
   * sign differs from m0 -> 0. */
  const double x[] = {0, 1, 3}, y[] = {0, 2, 3};
  double d[3];
  pascal_pchip_slopes(x, y, 3, d);
  CHECK_NEAR(d[0], 2.5, 1e-15);
  CHECK_NEAR(d[1], 6.0 / 7, 1e-15);
  CHECK_NEAR(d[2], 0, 1e-15);
  /* t = 0.5: 1 + 1*(2.5 - 6/7)/8 = 135/112; t = 2: 2.5 + 2*(6/7 - 0)/8 = 19/7. */
  CHECK_NEAR(pascal_pchip_eval(x, y, d, 3, 0.5), 135.0 / 112, 1e-14);
  CHECK_NEAR(pascal_pchip_eval(x, y, d, 3, 2), 19.0 / 7, 1e-14);
}

static void edge_limit_case(void)
{
  /* x = 0,1,1.5, y = 0,1,-1: secants 1, -4. Interior k=1: signs differ -> 0.
   * End k=0: ((2+0.5)*1 - 1*(-4))/1.5 = 13/3 > 3|m0| with m0, m1 of opposite
   * signs -> 3 m0 = 3. End k=2: h0 = 0.5, h1 = 1, m0 = -4, m1 = 1:
   * ((1+1)*(-4) - 0.5*1)/1.5 = -17/3, |.| < 12 -> kept. */
  const double x[] = {0, 1, 1.5}, y[] = {0, 1, -1};
  double d[3];
  pascal_pchip_slopes(x, y, 3, d);
  CHECK_NEAR(d[0], 3, 1e-15);
  CHECK_NEAR(d[1], 0, 1e-15);
  CHECK_NEAR(d[2], -17.0 / 3, 1e-14);
  /* t = 0.5: (0 + 1)/2 + (3 - 0)/8 = 0.875. */
  CHECK_NEAR(pascal_pchip_eval(x, y, d, 3, 0.5), 0.875, 1e-14);
}

static void flat_and_small_cases(void)
{
  /* A zero secant forces a zero interior slope: x = 0,1,2, y = 1,1,3. */
  const double x[] = {0, 1, 2}, y[] = {1, 1, 3};
  double d[3];
  pascal_pchip_slopes(x, y, 3, d);
  CHECK(d[1] == 0);
  /* End k=0: (3*0 - 1*2)/2 = -1, sign differs from m0 = 0 -> 0. */
  CHECK(d[0] == 0);
  /* Two knots: the straight line through them. */
  const double x2[] = {1, 3}, y2[] = {2, 6};
  CHECK_NEAR(eval(x2, y2, 2, 2), 4, 1e-14);
  CHECK_NEAR(eval(x2, y2, 2, 1.5), 3, 1e-14);
  CHECK_NEAR(eval(x2, y2, 2, 9), 6, 0); /* clamped */
  /* One knot: constant. */
  const double x1[] = {4}, y1[] = {-2};
  CHECK(eval(x1, y1, 1, -100) == -2);
  CHECK(eval(x1, y1, 1, 100) == -2);
}

static void monotone_property(void)
{
  /* Random nondecreasing data stays nondecreasing between the knots. */
  unsigned seed = 7;
  for (int trial = 0; trial < 300 && check_failures() == 0; trial++) {
    double x[6], y[6], d[6];
    size_t n = 2 + (size_t)(trial % 5);
    x[0] = 0;
    y[0] = 0;
    for (size_t i = 1; i < n; i++) {
      seed = seed * 1664525u + 1013904223u;
      x[i] = x[i - 1] + 0.1 + (double)(seed >> 20) / 4096.0;
      seed = seed * 1664525u + 1013904223u;
      y[i] = y[i - 1] + ((seed >> 28) < 4 ? 0 : (double)(seed >> 20) / 1024.0);
    }
    pascal_pchip_slopes(x, y, n, d);
    double prev = -1e300;
    for (int s = 0; s <= 400; s++) {
      double t = x[0] + (x[n - 1] - x[0]) * s / 400.0;
      double v = pascal_pchip_eval(x, y, d, n, t);
      CHECK(v >= prev - 1e-12);
      prev = v;
    }
    for (size_t i = 0; i < n; i++)
      CHECK(pascal_pchip_eval(x, y, d, n, x[i]) == y[i]);
  }
}

int main(void)
{
  uniform_case();
  nonuniform_case();
  edge_limit_case();
  flat_and_small_cases();
  monotone_property();
  return check_summary();
}
