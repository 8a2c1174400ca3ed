/*
 * test_exhaustive.c - the paper's exhaustive validation of §5.2 (Theorems 1-3
 * against the reference simulators): every case with N = 2..6, M = 1..3,
 * every phase vector and 1 <= C < N (2254 cases), plus 500 seeded larger
 * random cases. For each case:
 *  - slotted TTL simulator == gap law exactly (misses, window T*, occupancy);
 *  - LRU simulator within the certificate whenever D <= C;
 *  - exact-RD LRU == LRU simulator exactly, and the symbolic reuse distances
 *    == the stack distances of the generated trace;
 *  - Belady (forced and bypass) never below the policy bound minus N/H.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "check.h"
#include "pascal/simulate.h"
#include "pascal/static.h"
#include "test_static_rng.h"

#define MAX_M 40

static uint64_t rng_state = 0x9e3779b97f4a7c15u;

static uint64_t rng_next(void)
{
  return test_rng_next(&rng_state);
}

/* Symbolic reuse distances against the stack distances of one steady period
 * of the explicit trace (generated independently of the library). */
static void check_rd_against_trace(uint64_t n, const uint64_t *phases, size_t m)
{
  uint64_t rounds = 3 * n;
  size_t len = (size_t)(rounds * m);
  uint64_t *trace = calloc(len, sizeof *trace); /* calloc: GCC cannot see the loop fill it */
  uint64_t *rd = malloc(len * sizeof *rd);
  uint64_t sym[MAX_M];
  if (!trace || !rd) {
    CHECK(trace && rd);
    free(trace);
    free(rd);
    return;
  }
  for (uint64_t k = 0; k < rounds; k++)
    for (size_t w = 0; w < m; w++)
      trace[k * m + w] = (k + phases[w]) % n;
  CHECK(pascal_trace_reuse_distance_compute(trace, len, n, rd, NULL) == PASCAL_OK);
  CHECK(pascal_reuse_distance_compute(n, phases, m, sym, NULL) == PASCAL_OK);
  for (uint64_t k = 2 * n; k < rounds; k++) /* every block seen: steady */
    for (size_t w = 0; w < m; w++)
      CHECK_INT(rd[k * m + w], sym[w]);
  free(trace);
  free(rd);
}

/* All checks for one case; returns 1 when the LRU certificate applied. */
static int check_case(uint64_t n, uint64_t c, const uint64_t *phases, size_t m)
{
  pascal_static_result st;
  pascal_error err;
  if (pascal_static_analyze(n, c, phases, m, &st, &err) != PASCAL_OK) {
    CHECK(0);
    return 0;
  }
  /* Theorem 1 against the slotted TTL simulator (window found by occupancy) */
  pascal_sim_ttl_result ttl;
  CHECK(pascal_sim_ttl_phases(n, c, phases, m, 1, &ttl, NULL) == PASCAL_OK);
  CHECK_INT(ttl.window, st.t_star);
  CHECK_INT(ttl.sim.misses, st.k_ttl * n);
  uint64_t gaps[MAX_M], u;
  size_t d;
  CHECK(pascal_gaps_from_phases(n, phases, m, gaps, &d, NULL) == PASCAL_OK);
  CHECK(pascal_footprint_eval(gaps, d, st.t_star, &u, NULL) == PASCAL_OK);
  CHECK_INT(ttl.occupancy, u);
  CHECK(u <= c);

  /* exact RD LRU == LRU simulator; certificate when D <= C (Theorem 2) */
  pascal_sim_result lru;
  size_t exact;
  CHECK(pascal_sim_lru_phases(n, c, phases, m, 1, &lru, NULL) == PASCAL_OK);
  CHECK(pascal_lru_misses_exact(n, c, phases, m, &exact, NULL) == PASCAL_OK);
  CHECK_INT(lru.misses, exact * n);
  CHECK(lru.misses >= st.lru.lower * n); /* the lower side always holds */
  if (st.lru.certified)
    CHECK(lru.misses <= st.lru.upper * n);

  /* Theorem 3 with finite horizon H: misses >= H (whole + frac) - N */
  pascal_policy_bound pb;
  CHECK(pascal_policy_bound_compute(n, c, phases, m, &pb, NULL) == PASCAL_OK);
  uint64_t h = 6 * n, belady_misses[2];
  for (int v = 0; v < 2; v++) {
    pascal_sim_result bel;
    CHECK(pascal_sim_belady_phases(n, c, phases, m, (pascal_belady_variant)v, h, &bel, NULL) ==
          PASCAL_OK);
    /* misses den >= (H whole - N) den + H num, in signed 64-bit */
    int64_t lhs = (int64_t)(bel.misses * pb.frac.den);
    int64_t rhs =
        ((int64_t)(h * pb.whole) - (int64_t)n) * (int64_t)pb.frac.den + (int64_t)(h * pb.frac.num);
    CHECK(lhs >= rhs);
    belady_misses[v] = bel.misses;
  }
  CHECK(belady_misses[PASCAL_BELADY_BYPASS] <= belady_misses[PASCAL_BELADY_FORCED]);
  return st.lru.certified;
}

static size_t exhaustive(void)
{
  size_t cases = 0, certified = 0;
  uint64_t phases[3];
  for (uint64_t n = 2; n <= 6; n++) {
    for (size_t m = 1; m <= 3; m++) {
      uint64_t vectors = 1;
      for (size_t i = 0; i < m; i++)
        vectors *= n;
      for (uint64_t code = 0; code < vectors; code++) {
        uint64_t x = code;
        for (size_t i = 0; i < m; i++, x /= n)
          phases[i] = x % n;
        check_rd_against_trace(n, phases, m);
        for (uint64_t c = 1; c < n; c++) {
          certified += (size_t)check_case(n, c, phases, m);
          cases++;
        }
      }
    }
  }
  printf("exhaustive: %zu cases, %zu with D <= C\n", cases, certified);
  return cases;
}

static size_t random_cases(size_t count)
{
  uint64_t phases[MAX_M];
  size_t done = 0;
  for (size_t i = 0; i < count && check_failures() == 0; i++) {
    uint64_t n = 7 + rng_next() % 250;
    size_t m = 1 + (size_t)(rng_next() % MAX_M);
    uint64_t c = 1 + rng_next() % (n - 1);
    uint64_t spread = 1 + rng_next() % n; /* clustered phases now and then */
    uint64_t origin = rng_next() % n;
    for (size_t w = 0; w < m; w++)
      phases[w] = (origin + rng_next() % spread) % n;
    if (i % 10 == 0)
      check_rd_against_trace(n, phases, m);
    check_case(n, c, phases, m);
    done++;
  }
  printf("random: %zu cases\n", done);
  return done;
}

int main(void)
{
  CHECK_INT(exhaustive(), 2254); /* the paper's count */
  CHECK_INT(random_cases(500), 500);
  return check_summary();
}
