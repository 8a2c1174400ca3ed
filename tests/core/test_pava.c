/*
 * test_pava.c - isotonic regression (pool-adjacent-violators) of
 * pascal/curve.h against hand-worked fits and against the independent
 * max-min closed form of the least-squares nondecreasing fit:
 *   yhat_i = max_{j <= i} min_{k >= i} mean(y_j .. y_k).
 */
#include <stdlib.h>

#include "check.h"
#include "pascal/curve.h"

static void expect(const double *y, size_t n, const double *want)
{
  double out[16];
  pascal_isotonic_fit(y, n, out);
  for (size_t i = 0; i < n; i++)
    CHECK_NEAR(out[i], want[i], 1e-12);
}

/* The max-min formula, O(n^3): an oracle that shares no code with PAVA. */
static double maxmin(const double *y, size_t n, size_t i)
{
  double best = -1e300;
  for (size_t j = 0; j <= i; j++) {
    double lowest = 1e300;
    for (size_t k = i; k < n; k++) {
      double s = 0;
      for (size_t t = j; t <= k; t++)
        s += y[t];
      double mean = s / (double)(k - j + 1);
      if (mean < lowest)
        lowest = mean;
    }
    if (lowest > best)
      best = lowest;
  }
  return best;
}

int main(void)
{
  /* Already nondecreasing: unchanged (knots reproduced exactly). */
  expect((double[]){1, 2, 2, 3}, 4, (double[]){1, 2, 2, 3});
  /* One violation: 3 > 2 pool to (3 + 2)/2 = 2.5. */
  expect((double[]){1, 3, 2, 4}, 4, (double[]){1, 2.5, 2.5, 4});
  /* Decreasing: everything pools to the mean 2. */
  expect((double[]){3, 2, 1}, 3, (double[]){2, 2, 2});
  /* Cascading pools: [4,1] -> 2.5; with 2 -> 7/3; with 0 -> 7/4; 5 stays. */
  expect((double[]){4, 1, 2, 0, 5}, 5, (double[]){1.75, 1.75, 1.75, 1.75, 5});
  /* A tie before a violation: (2 + 2 + 1)/3 = 5/3. */
  expect((double[]){2, 2, 1}, 3, (double[]){5.0 / 3, 5.0 / 3, 5.0 / 3});
  /* Single value and empty input. */
  expect((double[]){-7}, 1, (double[]){-7});
  pascal_isotonic_fit(NULL, 0, NULL);

  /* In place (out == y). */
  double y[3] = {5, 1, 3};
  pascal_isotonic_fit(y, 3, y);
  CHECK_NEAR(y[0], 3, 1e-12); /* (5 + 1 + 3)/3 */
  CHECK_NEAR(y[2], 3, 1e-12);

  /* Randomised against the max-min closed form; outputs are nondecreasing. */
  unsigned seed = 12345;
  for (int trial = 0; trial < 500 && check_failures() == 0; trial++) {
    double v[9], out[9];
    size_t n = 1 + (size_t)(trial % 9);
    for (size_t i = 0; i < n; i++) {
      seed = seed * 1103515245u + 12345u;
      v[i] = (double)((seed >> 16) % 21) - 10; /* small integers: many ties */
    }
    pascal_isotonic_fit(v, n, out);
    for (size_t i = 0; i < n; i++) {
      CHECK_NEAR(out[i], maxmin(v, n, i), 1e-9);
      if (i > 0)
        CHECK(out[i] >= out[i - 1]);
    }
  }
  return check_summary();
}
