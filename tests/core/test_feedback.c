/*
 * test_feedback.c - Theorem 5 (paper §3.6): the iterated recurrence of
 * Eq. slot_timing converges to P_d for constant latency (both regimes),
 * G_d = 0 when lambda_miss <= Theta and equals P_d(miss) - P_d(hit) in
 * general, variable latencies are sandwiched by the constant-bound clocks so
 * that the gap of two workers grows like n phi, and error paths.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "pascal/feedback.h"
#include "test_static_rng.h"

#define COUNT 20000

static uint64_t rng_state = 31337;

static double rng_unit(void)
{
  return test_rng_unit(&rng_state);
}

static double issue[COUNT], latency[COUNT];

static void test_convergence(void)
{
  /* (alpha, beta, d, lambda): latency-bound and issue-bound regimes */
  const double cases[][4] = {{1.0, 2.0, 2, 10.0},
                             {1.0, 2.0, 4, 1.0},
                             {0.0, 0.5, 3, 7.0},
                             {3.0, 1.0, 5, 15.0},
                             {0.2, 0.3, 8, 100.0}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    pascal_feedback_params p = {cases[i][0], cases[i][1], (uint32_t)cases[i][2]};
    double lambda = cases[i][3], want, init[16];
    CHECK(pascal_feedback_cadence(&p, lambda, &want, NULL) == PASCAL_OK);
    CHECK_NEAR(want, fmax(p.alpha + p.beta, (lambda + p.beta) / (p.d - 1)), 1e-15);
    for (uint32_t j = 0; j + 1 < p.d; j++)
      init[j] = 5.0 * rng_unit(); /* arbitrary finite start */
    for (size_t k = 0; k < COUNT; k++)
      latency[k] = lambda;
    CHECK(pascal_feedback_iterate(&p, init, latency, COUNT, issue, NULL) == PASCAL_OK);
    /* I_n = n P + O(1): once periodic, the slope between indices a whole
     * number of pipeline lengths apart is P */
    size_t span = (size_t)(p.d - 1) * (COUNT / (2 * (p.d - 1)));
    double slope = (issue[COUNT - 1] - issue[COUNT - 1 - span]) / (double)span;
    CHECK_NEAR(slope, want, 1e-9 * want);
    CHECK(fabs(issue[COUNT - 1] - (COUNT - 1) * want) < 10.0 * p.d * want);
  }
}

static void test_gain(void)
{
  pascal_feedback_params p = {1.0, 2.0, 3};
  double theta, gain;
  CHECK(pascal_feedback_overlap(&p, &theta, NULL) == PASCAL_OK);
  CHECK_NEAR(theta, 2 * 3.0 - 2.0, 1e-15); /* (d-1)(alpha+beta) - beta = 4 */
  CHECK(pascal_feedback_gain(&p, 0.5, 4.0, &gain, NULL) == PASCAL_OK);
  CHECK(gain == 0.0); /* lambda_miss <= Theta: no catch-up at all */
  CHECK(pascal_feedback_gain(&p, 0.0, 10.0, &gain, NULL) == PASCAL_OK);
  CHECK_NEAR(gain, (10.0 - 4.0) / 2.0, 1e-15);
  pascal_feedback_params d2 = {1.5, 1.0, 2};
  CHECK(pascal_feedback_overlap(&d2, &theta, NULL) == PASCAL_OK);
  CHECK_NEAR(theta, d2.alpha, 1e-15); /* d = 2: Theta = alpha */
  for (int rep = 0; rep < 500; rep++) {
    pascal_feedback_params q = {3 * rng_unit(), 0.01 + 3 * rng_unit(),
                                (uint32_t)(2 + rng_unit() * 6)};
    double lh = 10 * rng_unit(), lm = lh + 10 * rng_unit(), ph, pm;
    pascal_feedback_summary s;
    CHECK(pascal_feedback_summarize(&q, lh, lm, &s, NULL) == PASCAL_OK);
    CHECK(pascal_feedback_cadence(&q, lh, &ph, NULL) == PASCAL_OK);
    CHECK(pascal_feedback_cadence(&q, lm, &pm, NULL) == PASCAL_OK);
    CHECK_NEAR(s.gain, pm - ph, 1e-12); /* Eq. catchup_gain both ways */
    CHECK(s.gain >= 0.0);
    if (lm <= s.overlap)
      CHECK(s.gain == 0.0);
  }
}

static void test_divergence(void)
{
  /* worker 1: deep pipeline, misses hidden; worker 2: d = 2, slow even on hits */
  pascal_feedback_params w1 = {1.0, 1.0, 4}, w2 = {1.0, 1.0, 2};
  double lh = 4.0, lm = 5.0, phi;
  CHECK(pascal_feedback_divergence(&w1, lm, &w2, lh, &phi, NULL) == PASCAL_OK);
  CHECK_NEAR(phi, (lh + 1.0) / 1.0 - fmax(2.0, (lm + 1.0) / 3.0), 1e-15); /* 3 */
  double *i2 = malloc(COUNT * sizeof *i2), init[3] = {0, 0, 0};
  for (size_t k = 0; k < COUNT; k++) /* worker 1 anywhere in [hit, miss] */
    latency[k] = lh + (lm - lh) * rng_unit();
  CHECK(pascal_feedback_iterate(&w1, init, latency, COUNT, issue, NULL) == PASCAL_OK);
  for (size_t k = 0; k < COUNT; k++) /* worker 2 at its fastest */
    latency[k] = lh;
  CHECK(pascal_feedback_iterate(&w2, init, latency, COUNT, i2, NULL) == PASCAL_OK);
  for (size_t n = 1000; n < COUNT; n += 1000)
    CHECK(i2[n] - issue[n] >= (double)n * phi - 50.0);
  free(i2);
}

static void test_errors(void)
{
  pascal_feedback_params p = {1.0, 2.0, 3}, bad;
  double x, init[2] = {0, 0}, lat[4] = {1, 1, -1, 1}, out[6];
  pascal_error err;
  bad = p;
  bad.d = 1;
  CHECK(pascal_feedback_cadence(&bad, 1.0, &x, &err) == PASCAL_EINVAL);
  CHECK(strcmp(err.field, "d") == 0);
  bad = p;
  bad.beta = 0.0;
  CHECK(pascal_feedback_cadence(&bad, 1.0, &x, &err) == PASCAL_EINVAL);
  CHECK(strcmp(err.field, "beta") == 0);
  bad = p;
  bad.alpha = NAN;
  CHECK(pascal_feedback_overlap(&bad, &x, &err) == PASCAL_EINVAL);
  CHECK(strcmp(err.field, "alpha") == 0);
  CHECK(pascal_feedback_cadence(&p, -1.0, &x, &err) == PASCAL_EINVAL);
  CHECK(strcmp(err.field, "lambda") == 0);
  CHECK(pascal_feedback_cadence(&p, INFINITY, &x, &err) == PASCAL_EINVAL);
  CHECK(pascal_feedback_gain(&p, 5.0, 4.0, &x, &err) == PASCAL_EINVAL);
  CHECK(strcmp(err.field, "lambda_miss") == 0);
  CHECK(pascal_feedback_gain(&p, -1.0, 4.0, &x, &err) == PASCAL_EINVAL);
  CHECK(strcmp(err.field, "lambda_hit") == 0);
  CHECK(pascal_feedback_divergence(NULL, 1.0, &p, 1.0, &x, &err) == PASCAL_EINVAL);
  CHECK(pascal_feedback_iterate(&p, init, lat, 6, out, &err) == PASCAL_EINVAL);
  CHECK(strcmp(err.field, "latency[2]") == 0);
  CHECK(pascal_feedback_iterate(&p, init, lat, 1, out, &err) == PASCAL_EINVAL);
  CHECK(strcmp(err.field, "count") == 0);
  init[1] = NAN;
  CHECK(pascal_feedback_iterate(&p, init, lat, 4, out, &err) == PASCAL_EINVAL);
  CHECK(strcmp(err.field, "initial[1]") == 0);
}

int main(void)
{
  test_convergence();
  test_gain();
  test_divergence();
  test_errors();
  return check_summary();
}
