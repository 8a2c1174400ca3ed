/*
 * test_static.c - the gap law (paper §3.1-3.3): hand-worked gaps, waterlines
 * and certificates, a brute-force footprint check on large random inputs,
 * and every error path of pascal/static.h.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "pascal/static.h"
#include "test_static_rng.h"

static uint64_t rng_state = 12345;

static uint64_t rng_next(void)
{
  return test_rng_next(&rng_state);
}

static void test_gaps(void)
{
  uint64_t phases[] = {5, 0, 1, 5}, gaps[4];
  size_t d = 0;
  CHECK(pascal_gaps_from_phases(10, phases, 4, gaps, &d, NULL) == PASCAL_OK);
  CHECK_INT(d, 3); /* distinct 0, 1, 5 */
  CHECK_INT(gaps[0], 1);
  CHECK_INT(gaps[1], 4);
  CHECK_INT(gaps[2], 5); /* 0 + 10 - 5 */
  uint64_t single[] = {3, 3, 3};
  CHECK(pascal_gaps_from_phases(8, single, 3, gaps, &d, NULL) == PASCAL_OK);
  CHECK_INT(d, 1);
  CHECK_INT(gaps[0], 8); /* one phase: g = N */
  uint64_t u;
  size_t k;
  uint64_t g3[] = {1, 4, 5};
  CHECK(pascal_footprint_eval(g3, 3, 2, &u, NULL) == PASCAL_OK);
  CHECK_INT(u, 5); /* 1 + 2 + 2 */
  CHECK(pascal_footprint_eval(g3, 3, 100, &u, NULL) == PASCAL_OK);
  CHECK_INT(u, 10);
  CHECK(pascal_fill_count_eval(g3, 3, 4, &k, NULL) == PASCAL_OK);
  CHECK_INT(k, 1);
  CHECK(pascal_fill_count_eval(g3, 3, 0, &k, NULL) == PASCAL_OK);
  CHECK_INT(k, 3);
}

static void test_waterline(void)
{
  uint64_t phases[] = {0, 1, 5};
  pascal_static_result r;
  /* gaps (1,4,5), C = 3: U(1) = 3 = C, so theta = 1 exactly */
  CHECK(pascal_static_analyze(10, 3, phases, 3, &r, NULL) == PASCAL_OK);
  CHECK_INT(r.d, 3);
  CHECK_INT(r.theta.num, 1);
  CHECK_INT(r.theta.den, 1);
  CHECK_INT(r.t_star, 1);
  CHECK_INT(r.k_ttl, 2);
  CHECK_NEAR(r.rho_ttl, 2.0 / 3.0, 1e-15);
  CHECK(r.lru.certified);
  CHECK_INT(r.lru.lower, 2); /* K(2) */
  CHECK_INT(r.lru.upper, 3); /* K(0) */
  /* C = 6: 1 + 2 theta = 6 -> theta = 5/2, T* = 2, K = 2 */
  CHECK(pascal_static_analyze(10, 6, phases, 3, &r, NULL) == PASCAL_OK);
  CHECK_INT(r.theta.num, 5);
  CHECK_INT(r.theta.den, 2);
  CHECK_NEAR(r.theta_value, 2.5, 0);
  CHECK_INT(r.t_star, 2);
  CHECK_INT(r.k_ttl, 2);
  /* C = 9: 1 + 4 + theta = 9 -> theta = 4 = g_(2); K = 1 */
  CHECK(pascal_static_analyze(10, 9, phases, 3, &r, NULL) == PASCAL_OK);
  CHECK_INT(r.theta.num, 4);
  CHECK_INT(r.k_ttl, 1);
  /* C = 2 < D: not certified, upper is the trivial M */
  CHECK(pascal_static_analyze(10, 2, phases, 3, &r, NULL) == PASCAL_OK);
  CHECK_INT(r.theta.num, 2);
  CHECK_INT(r.theta.den, 3);
  CHECK_INT(r.t_star, 0);
  CHECK_INT(r.k_ttl, 3);
  CHECK(!r.lru.certified);
  CHECK_INT(r.lru.upper, 3);
  /* aligned: one phase, K = 1, rho = 1/M */
  uint64_t aligned[] = {2, 2, 2};
  CHECK(pascal_static_analyze(8, 5, aligned, 3, &r, NULL) == PASCAL_OK);
  CHECK_INT(r.k_ttl, 1);
  CHECK_INT(r.t_star, 5);
  CHECK_NEAR(r.rho_ttl, 1.0 / 3.0, 1e-15);
  /* equal gaps above C/D: theta = C/D (reduced), K = D */
  uint64_t two[] = {0, 6};
  CHECK(pascal_static_analyze(12, 4, two, 2, &r, NULL) == PASCAL_OK);
  CHECK_INT(r.theta.num, 2);
  CHECK_INT(r.theta.den, 1);
  CHECK_INT(r.k_ttl, 2);
  /* from gaps in any order gives the same answer */
  uint64_t gaps[] = {5, 1, 4};
  CHECK(pascal_static_from_gaps(6, gaps, 3, 3, &r, NULL) == PASCAL_OK);
  CHECK_INT(r.n, 10);
  CHECK_INT(r.theta.num, 5);
  CHECK_INT(r.theta.den, 2);
}

/* U(T*) <= C < U(T*+1), U(theta) = C exactly, K = #{g > T*}: brute force. */
static void check_against_brute_force(uint64_t n, uint64_t c, const uint64_t *phases, size_t m)
{
  pascal_static_result r;
  uint64_t *gaps = malloc(m * sizeof *gaps);
  size_t d;
  CHECK(pascal_static_analyze(n, c, phases, m, &r, NULL) == PASCAL_OK);
  CHECK(pascal_gaps_from_phases(n, phases, m, gaps, &d, NULL) == PASCAL_OK);
  uint64_t sum = 0, u0 = 0, u1 = 0, scaled = 0;
  size_t k = 0;
  for (size_t i = 0; i < d; i++) {
    sum += gaps[i];
    u0 += gaps[i] < r.t_star ? gaps[i] : r.t_star;
    u1 += gaps[i] < r.t_star + 1 ? gaps[i] : r.t_star + 1;
    uint64_t gd = gaps[i] * r.theta.den;
    scaled += gd < r.theta.num ? gd : r.theta.num;
    k += gaps[i] > r.t_star;
  }
  CHECK_INT(sum, n);
  CHECK_INT(d, r.d);
  CHECK(u0 <= c && c < u1);
  CHECK_INT(scaled, c * r.theta.den); /* U(theta) = C */
  CHECK_INT(k, r.k_ttl);
  free(gaps);
}

static void test_random_large(void)
{
  size_t m = 100000;
  uint64_t *phases = malloc(m * sizeof *phases);
  for (int rep = 0; rep < 5; rep++) {
    uint64_t n = 1000 + rng_next() % (UINT64_C(1) << 40);
    for (size_t w = 0; w < m; w++)
      phases[w] = rng_next() % n;
    check_against_brute_force(n, 1 + rng_next() % (n - 1), phases, m);
    check_against_brute_force(n, n - 1, phases, 50);
    check_against_brute_force(n, 1, phases, 70);
  }
  free(phases);
}

static void test_errors(void)
{
  uint64_t phases[] = {0, 4}, gaps[2];
  size_t d, k;
  uint64_t u;
  pascal_static_result r;
  pascal_error err;
  CHECK(pascal_static_analyze(0, 1, phases, 2, &r, &err) == PASCAL_EINVAL);
  CHECK(strcmp(err.field, "N") == 0);
  CHECK(pascal_static_analyze(PASCAL_STATIC_N_MAX + 1, 1, phases, 2, &r, &err) == PASCAL_ERANGE);
  CHECK(strcmp(err.field, "N") == 0);
  CHECK(pascal_static_analyze(8, 8, phases, 2, &r, &err) == PASCAL_EINVAL);
  CHECK(strcmp(err.field, "C") == 0);
  CHECK(pascal_static_analyze(8, 0, phases, 2, &r, &err) == PASCAL_EINVAL);
  CHECK(strcmp(err.field, "C") == 0);
  CHECK(pascal_static_analyze(4, 2, phases, 2, &r, &err) == PASCAL_EINVAL);
  CHECK(strcmp(err.field, "phases[1]") == 0);
  CHECK(pascal_static_analyze(8, 2, phases, 0, &r, &err) == PASCAL_EINVAL);
  CHECK(strcmp(err.field, "M") == 0);
  CHECK(pascal_static_analyze(8, 2, NULL, 2, &r, &err) == PASCAL_EINVAL);
  CHECK(strcmp(err.field, "phases") == 0);
  CHECK(pascal_static_analyze(8, 2, phases, 2, NULL, &err) == PASCAL_EINVAL);
  CHECK(pascal_gaps_from_phases(4, phases, 2, gaps, &d, &err) == PASCAL_EINVAL);
  CHECK(strcmp(err.field, "phases[1]") == 0);
  CHECK(pascal_gaps_from_phases(8, phases, 2, NULL, &d, &err) == PASCAL_EINVAL);
  uint64_t bad[] = {3, 0};
  CHECK(pascal_footprint_eval(bad, 2, 1, &u, &err) == PASCAL_EINVAL);
  CHECK(strcmp(err.field, "gaps[1]") == 0);
  CHECK(pascal_fill_count_eval(bad, 0, 1, &k, &err) == PASCAL_EINVAL);
  /* a zero gap is refused wherever it sits, first and last included */
  for (size_t at = 0; at < 3; at++) {
    uint64_t g[] = {2, 3, 5};
    char want[16];
    g[at] = 0;
    snprintf(want, sizeof want, "gaps[%zu]", at);
    CHECK(pascal_footprint_eval(g, 3, 1, &u, &err) == PASCAL_EINVAL);
    CHECK(strcmp(err.field, want) == 0);
    CHECK(pascal_fill_count_eval(g, 3, 1, &k, &err) == PASCAL_EINVAL);
    CHECK(strcmp(err.field, want) == 0);
    CHECK(pascal_static_from_gaps(4, g, 3, 3, &r, &err) == PASCAL_EINVAL);
    CHECK(strcmp(err.field, want) == 0);
  }
  uint64_t huge[] = {PASCAL_STATIC_N_MAX, 1};
  CHECK(pascal_footprint_eval(huge, 2, 1, &u, &err) == PASCAL_ERANGE);
  uint64_t ok[] = {4, 4};
  CHECK(pascal_static_from_gaps(2, ok, 2, 1, &r, &err) == PASCAL_EINVAL);
  CHECK(strcmp(err.field, "M") == 0);
  CHECK(pascal_static_from_gaps(8, ok, 2, 2, &r, &err) == PASCAL_EINVAL);
  CHECK(strcmp(err.field, "C") == 0);
  /* out-parameters untouched on failure */
  memset(&r, 0x5a, sizeof r);
  pascal_static_result before = r;
  CHECK(pascal_static_analyze(8, 9, phases, 2, &r, NULL) == PASCAL_EINVAL);
  CHECK(memcmp(&r, &before, sizeof r) == 0);
}

int main(void)
{
  test_gaps();
  test_waterline();
  test_random_large();
  test_errors();
  return check_summary();
}
