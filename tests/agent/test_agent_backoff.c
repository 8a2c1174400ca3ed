/* test_agent_backoff.c - the retry schedule (calibrator/agent/backoff.c):
 * hand-worked delays, the jitter window [raw/2, raw], the cap, and the PRNG's
 * range and spread. */
#include <stdint.h>

#include "backoff.h"
#include "check.h"

static void test_schedule(void)
{
  /* base 0.5, cap 30: raw = 0.5, 1, 2, 4, 8, 16, 30, 30, ... */
  const double raw[] = {0.5, 1, 2, 4, 8, 16, 30, 30, 30};
  for (unsigned a = 0; a < sizeof raw / sizeof raw[0]; a++) {
    CHECK_NEAR(agent_backoff_delay(a, 0.5, 30.0, 0.0), raw[a] / 2, 1e-12);
    CHECK_NEAR(agent_backoff_delay(a, 0.5, 30.0, 0.5), raw[a] * 0.75, 1e-12);
    CHECK_NEAR(agent_backoff_delay(a, 0.5, 30.0, 1.0), raw[a], 1e-12);
    CHECK_NEAR(agent_backoff_delay(a, 0.5, 30.0, 7.0), raw[a], 1e-12); /* clamped to 1 */
  }
  /* huge attempt numbers stay at the cap (no overflow, no infinity) */
  CHECK_NEAR(agent_backoff_delay(100000u, 0.5, 30.0, 0.0), 15.0, 1e-12);
  CHECK_NEAR(agent_backoff_delay(4000000000u, 1e-300, 1e300, 0.0), 0.5e300, 1e288);
  /* jitter outside [0,1) is clamped; NaN counts as 0 */
  CHECK_NEAR(agent_backoff_delay(1, 1.0, 10.0, -3.0), 1.0, 1e-12);
  CHECK_NEAR(agent_backoff_delay(1, 1.0, 10.0, 0.0 / 0.0), 1.0, 1e-12);
  /* base == cap: constant window */
  CHECK_NEAR(agent_backoff_delay(7, 2.0, 2.0, 0.0), 1.0, 1e-12);
}

static void test_rng(void)
{
  uint64_t s = 42;
  double lo = 1.0, hi = 0.0, sum = 0.0;
  int buckets[10] = {0};
  const int n = 100000;
  for (int i = 0; i < n; i++) {
    double u = agent_rng_uniform(&s);
    CHECK(u >= 0.0 && u < 1.0);
    if (u < lo)
      lo = u;
    if (u > hi)
      hi = u;
    sum += u;
    buckets[(int)(u * 10)]++;
  }
  CHECK(lo < 0.001 && hi > 0.999);
  CHECK_NEAR(sum / n, 0.5, 0.01);
  for (int b = 0; b < 10; b++)
    CHECK(buckets[b] > n / 10 - 600 && buckets[b] < n / 10 + 600);
  /* different seeds give different streams (jitter spreads agents apart) */
  uint64_t s1 = 1, s2 = 2;
  CHECK(agent_rng_uniform(&s1) != agent_rng_uniform(&s2));
}

int main(void)
{
  test_schedule();
  test_rng();
  return check_summary();
}
