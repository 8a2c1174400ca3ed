/*
 * test_policy.c - reuse times tau_w and the policy-independent bound of paper
 * §3.4 (Theorem 3): the worked examples (N=8, M=2, C=2, phases (0,4) -> 10/7;
 * two aligned workers -> tau = (N - 1/2, 1/2)), tau against its O(M^2)
 * definition, the bound against a floating-point knapsack, and error paths.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "pascal/static.h"
#include "test_static_rng.h"

static uint64_t rng_state = 777;

static uint64_t rng_next(void)
{
  return test_rng_next(&rng_state);
}

static void test_worked_examples(void)
{
  uint64_t phases[] = {0, 4}, tau[2];
  pascal_policy_bound pb;
  CHECK(pascal_policy_bound_compute(8, 2, phases, 2, &pb, NULL) == PASCAL_OK);
  CHECK_INT(pb.whole, 1);
  CHECK_INT(pb.frac.num, 3);
  CHECK_INT(pb.frac.den, 7); /* 1 + 3/7 = 10/7 */
  CHECK_NEAR(pb.bound, 10.0 / 7.0, 1e-15);
  CHECK_NEAR(pb.phi, 4.0 / 7.0, 1e-15);
  CHECK(pascal_reuse_time_compute(8, phases, 2, tau, NULL) == PASCAL_OK);
  CHECK_INT(tau[0], 7); /* 3.5 rounds */
  CHECK_INT(tau[1], 9); /* 4.5 rounds */
  uint64_t aligned[] = {3, 3};
  for (uint64_t n = 2; n <= 40; n++) {
    aligned[0] = aligned[1] = n / 2;
    CHECK(pascal_reuse_time_compute(n, aligned, 2, tau, NULL) == PASCAL_OK);
    CHECK_INT(tau[0], 2 * n - 1); /* N - 1/2 */
    CHECK_INT(tau[1], 1);         /* 1/2 */
  }
  /* aligned pair, N = 8, C = 1: tau units (15, 1), budget C M = 2 units:
   * Phi = 1 + 1/15, bound = 2 - 16/15 = 14/15 */
  aligned[0] = aligned[1] = 3;
  CHECK(pascal_policy_bound_compute(8, 1, aligned, 2, &pb, NULL) == PASCAL_OK);
  CHECK_INT(pb.whole, 0);
  CHECK_INT(pb.frac.num, 14);
  CHECK_INT(pb.frac.den, 15); /* 2 - (1 + 1/15) */
  /* one worker: tau = N, bound = 1 - C/N */
  uint64_t one[] = {5};
  CHECK(pascal_policy_bound_compute(10, 4, one, 1, &pb, NULL) == PASCAL_OK);
  CHECK_INT(pb.whole, 0);
  CHECK_INT(pb.frac.num, 3);
  CHECK_INT(pb.frac.den, 5);
}

/* tau_w by its definition: min over w' of lag M + w - w'. */
static uint64_t tau_definition(uint64_t n, const uint64_t *phases, size_t m, size_t w)
{
  uint64_t best = UINT64_MAX;
  for (size_t v = 0; v < m; v++) {
    uint64_t lag = (phases[v] + n - phases[w]) % n;
    if (lag == 0 && v >= w)
      lag = n;
    uint64_t units = lag * m + w - v;
    if (units < best)
      best = units;
  }
  return best;
}

static int cmp_double(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static void test_random(void)
{
  uint64_t phases[40], tau[40];
  double taud[40];
  for (int rep = 0; rep < 300; rep++) {
    uint64_t n = 2 + rng_next() % 60;
    size_t m = 1 + (size_t)(rng_next() % 40);
    uint64_t c = 1 + rng_next() % (n - 1);
    for (size_t w = 0; w < m; w++)
      phases[w] = rng_next() % (1 + rng_next() % n);
    CHECK(pascal_reuse_time_compute(n, phases, m, tau, NULL) == PASCAL_OK);
    uint64_t sum = 0;
    for (size_t w = 0; w < m; w++) {
      CHECK_INT(tau[w], tau_definition(n, phases, m, w));
      sum += tau[w];
      taud[w] = (double)tau[w] / (double)m;
    }
    CHECK_INT(sum, n * m); /* sum of tau_w = N */
    qsort(taud, m, sizeof *taud, cmp_double);
    double budget = (double)c, phi = 0.0;
    for (size_t w = 0; w < m && budget > 0; w++) {
      double x = budget >= taud[w] ? 1.0 : budget / taud[w];
      phi += x;
      budget -= x * taud[w];
    }
    pascal_policy_bound pb;
    CHECK(pascal_policy_bound_compute(n, c, phases, m, &pb, NULL) == PASCAL_OK);
    CHECK_NEAR(pb.phi, phi, 1e-9);
    CHECK_NEAR(pb.bound, (double)m - phi, 1e-9);
    CHECK(pb.frac.num < pb.frac.den);
  }
}

static void test_errors(void)
{
  uint64_t phases[] = {0, 4}, tau[2];
  pascal_policy_bound pb;
  pascal_error err;
  CHECK(pascal_policy_bound_compute(8, 8, phases, 2, &pb, &err) == PASCAL_EINVAL);
  CHECK(strcmp(err.field, "C") == 0);
  CHECK(pascal_policy_bound_compute(3, 1, phases, 2, &pb, &err) == PASCAL_EINVAL);
  CHECK(strcmp(err.field, "phases[1]") == 0);
  CHECK(pascal_policy_bound_compute(8, 1, phases, 0, &pb, &err) == PASCAL_EINVAL);
  CHECK(strcmp(err.field, "M") == 0);
  CHECK(pascal_policy_bound_compute(0, 1, phases, 2, &pb, &err) == PASCAL_EINVAL);
  CHECK(strcmp(err.field, "N") == 0);
  CHECK(pascal_policy_bound_compute(8, 1, phases, 2, NULL, &err) == PASCAL_EINVAL);
  CHECK(pascal_reuse_time_compute(PASCAL_STATIC_N_MAX / 2 + 1, phases, 2, tau, &err) ==
        PASCAL_ERANGE);
  CHECK(strcmp(err.field, "M") == 0);
  CHECK(pascal_reuse_time_compute(8, phases, 2, NULL, &err) == PASCAL_EINVAL);
}

int main(void)
{
  test_worked_examples();
  test_random();
  test_errors();
  return check_summary();
}
