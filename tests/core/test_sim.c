/*
 * test_sim.c - the reference simulators on address traces against
 * independent brute force (a naive recency array for LRU, an exhaustive
 * dynamic program over cache contents for Belady with and without bypass),
 * slotted TTL on a hand trace, phase-trace steady state over several
 * periods, and every simulator error path.
 */
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "pascal/simulate.h"
#include "test_static_rng.h"

#define U   5 /* universe of the brute-force traces */
#define LEN 14

static uint64_t rng_state = 4242;

static uint64_t rng_next(void)
{
  return test_rng_next(&rng_state);
}

static uint64_t naive_lru(const uint64_t *trace, size_t len, size_t c, uint8_t *hits)
{
  uint64_t stack[U], misses = 0; /* stack[0] most recent */
  size_t size = 0;
  for (size_t i = 0; i < len; i++) {
    size_t at = size;
    for (size_t j = 0; j < size; j++)
      if (stack[j] == trace[i])
        at = j;
    hits[i] = at < size;
    if (at == size) {
      misses++;
      if (size < c)
        size++;
      at = size - 1; /* overwrite the LRU slot (or the new one) */
    }
    for (size_t j = at; j > 0; j--)
      stack[j] = stack[j - 1];
    stack[0] = trace[i];
  }
  return misses;
}

static int popcount(unsigned x)
{
  int n = 0;
  for (; x; x &= x - 1)
    n++;
  return n;
}

/* Fewest misses over trace[i..] from cache `mask`, any eviction choice. */
static uint64_t opt(const uint64_t *trace, size_t len, size_t i, unsigned mask, int c, int bypass,
                    uint64_t memo[LEN + 1][1 << U])
{
  if (i == len)
    return 0;
  if (memo[i][mask] != UINT64_MAX)
    return memo[i][mask];
  unsigned bit = 1u << trace[i];
  uint64_t best;
  if (mask & bit) {
    best = opt(trace, len, i + 1, mask, c, bypass, memo);
  } else if (popcount(mask) < c) {
    best = 1 + opt(trace, len, i + 1, mask | bit, c, bypass, memo);
  } else {
    best = bypass ? 1 + opt(trace, len, i + 1, mask, c, bypass, memo) : UINT64_MAX;
    for (unsigned v = 0; v < U; v++) {
      if (!(mask & (1u << v)))
        continue;
      uint64_t x = 1 + opt(trace, len, i + 1, (mask & ~(1u << v)) | bit, c, bypass, memo);
      if (x < best)
        best = x;
    }
  }
  memo[i][mask] = best;
  return best;
}

static void test_against_brute_force(void)
{
  uint64_t trace[LEN], memo[LEN + 1][1 << U];
  uint8_t hits[LEN], want[LEN];
  for (int rep = 0; rep < 400; rep++) {
    size_t len = 1 + (size_t)(rng_next() % LEN);
    uint64_t c = 1 + rng_next() % 3;
    for (size_t i = 0; i < len; i++)
      trace[i] = rng_next() % U;
    pascal_sim_result r;
    CHECK(pascal_sim_lru_trace(trace, len, U, c, hits, &r, NULL) == PASCAL_OK);
    CHECK_INT(r.misses, naive_lru(trace, len, (size_t)c, want));
    CHECK(memcmp(hits, want, len) == 0);
    CHECK_INT(r.requests, len);
    for (int bypass = 0; bypass < 2; bypass++) {
      for (size_t i = 0; i <= len; i++)
        for (unsigned m = 0; m < (1u << U); m++)
          memo[i][m] = UINT64_MAX;
      pascal_belady_variant v = bypass ? PASCAL_BELADY_BYPASS : PASCAL_BELADY_FORCED;
      CHECK(pascal_sim_belady_trace(trace, len, U, c, v, hits, &r, NULL) == PASCAL_OK);
      CHECK_INT(r.misses, opt(trace, len, 0, 0, (int)c, bypass, memo));
      uint64_t counted = 0;
      for (size_t i = 0; i < len; i++)
        counted += !hits[i];
      CHECK_INT(counted, r.misses);
    }
  }
}

static void test_ttl_trace(void)
{
  /* slots of 2: (0 1) (0 2) (3 3) (1 0); window 1 remembers one slot back */
  uint64_t trace[] = {0, 1, 0, 2, 3, 3, 1, 0};
  uint8_t hits[8];
  pascal_sim_ttl_result r;
  CHECK(pascal_sim_ttl_trace(trace, 8, 4, 2, 1, hits, &r, NULL) == PASCAL_OK);
  uint8_t want1[] = {0, 0, 1, 0, 0, 1, 0, 0};
  CHECK(memcmp(hits, want1, 8) == 0);
  CHECK_INT(r.sim.misses, 6);
  CHECK_INT(r.sim.rounds, 4);
  CHECK_INT(r.occupancy, 2); /* at most two blocks per slot */
  CHECK(pascal_sim_ttl_trace(trace, 8, 4, 2, 3, hits, &r, NULL) == PASCAL_OK);
  uint8_t want3[] = {0, 0, 1, 0, 0, 1, 1, 1};
  CHECK(memcmp(hits, want3, 8) == 0);
  CHECK_INT(r.window, 3);
  CHECK_INT(r.occupancy, 4); /* blocks 0, 1, 2, 3 before the last slot */
  /* a window longer than the trace behaves like an unbounded one */
  CHECK(pascal_sim_ttl_trace(trace, 8, 4, 3, UINT64_MAX, hits, &r, NULL) == PASCAL_OK);
  CHECK_INT(r.sim.misses, 4);
  CHECK_INT(r.sim.rounds, 3); /* the last slot is short */
}

static void test_phase_periods(void)
{
  uint64_t phases[] = {0, 3, 3, 7};
  pascal_sim_result one, three;
  CHECK(pascal_sim_lru_phases(10, 4, phases, 4, 1, &one, NULL) == PASCAL_OK);
  CHECK(pascal_sim_lru_phases(10, 4, phases, 4, 3, &three, NULL) == PASCAL_OK);
  CHECK_INT(three.misses, 3 * one.misses); /* periodic steady state */
  CHECK_INT(three.rounds, 30);
  CHECK_INT(three.requests, 120);
  CHECK_NEAR(three.misses_per_round, one.misses_per_round, 0);
  pascal_sim_ttl_result t1, t3;
  CHECK(pascal_sim_ttl_phases(10, 4, phases, 4, 1, &t1, NULL) == PASCAL_OK);
  CHECK(pascal_sim_ttl_phases(10, 4, phases, 4, 3, &t3, NULL) == PASCAL_OK);
  CHECK_INT(t3.sim.misses, 3 * t1.sim.misses);
  /* Belady over H rounds counts from cold: every block is missed once */
  pascal_sim_result b;
  CHECK(pascal_sim_belady_phases(10, 4, phases, 4, PASCAL_BELADY_FORCED, 1, &b, NULL) == PASCAL_OK);
  CHECK_INT(b.requests, 4);
  CHECK_INT(b.misses, 3); /* blocks 0, 3, 7; the duplicate hits */
}

static void test_errors(void)
{
  uint64_t phases[] = {0, 4}, trace[] = {0, 1, 7};
  pascal_sim_result r;
  pascal_sim_ttl_result t;
  pascal_error err;
  CHECK(pascal_sim_lru_phases(8, 8, phases, 2, 1, &r, &err) == PASCAL_EINVAL);
  CHECK(strcmp(err.field, "C") == 0);
  CHECK(pascal_sim_lru_phases(8, 2, phases, 2, 0, &r, &err) == PASCAL_EINVAL);
  CHECK(strcmp(err.field, "periods") == 0);
  CHECK(pascal_sim_lru_phases(4, 2, phases, 2, 1, &r, &err) == PASCAL_EINVAL);
  CHECK(strcmp(err.field, "phases[1]") == 0);
  CHECK(pascal_sim_lru_phases(PASCAL_SIM_UNIVERSE_MAX + 1, 2, phases, 2, 1, &r, &err) ==
        PASCAL_ERANGE);
  CHECK(strcmp(err.field, "N") == 0);
  CHECK(pascal_sim_lru_phases(8, 2, phases, 0, 1, &r, &err) == PASCAL_EINVAL);
  CHECK(strcmp(err.field, "M") == 0);
  CHECK(pascal_sim_lru_phases(1u << 20, 2, phases, 2, 1u << 20, &r, &err) == PASCAL_ERANGE);
  CHECK(strcmp(err.field, "periods") == 0);
  CHECK(pascal_sim_ttl_phases(0, 2, phases, 2, 1, &t, &err) == PASCAL_EINVAL);
  CHECK(strcmp(err.field, "N") == 0);
  CHECK(pascal_sim_ttl_phases(8, 2, phases, 2, 1, NULL, &err) == PASCAL_EINVAL);
  CHECK(pascal_sim_belady_phases(8, 2, phases, 2, PASCAL_BELADY_FORCED, 0, &r, &err) ==
        PASCAL_EINVAL);
  CHECK(strcmp(err.field, "rounds") == 0);
  CHECK(pascal_sim_belady_phases(8, 2, phases, 2, (pascal_belady_variant)7, 5, &r, &err) ==
        PASCAL_EINVAL);
  CHECK(strcmp(err.field, "variant") == 0);
  CHECK(pascal_sim_lru_trace(trace, 3, 4, 2, NULL, &r, &err) == PASCAL_EINVAL);
  CHECK(strcmp(err.field, "trace[2]") == 0);
  CHECK(pascal_sim_lru_trace(trace, 2, 4, 0, NULL, &r, &err) == PASCAL_EINVAL);
  CHECK(strcmp(err.field, "C") == 0);
  CHECK(pascal_sim_lru_trace(NULL, 2, 4, 1, NULL, &r, &err) == PASCAL_EINVAL);
  CHECK(strcmp(err.field, "trace") == 0);
  CHECK(pascal_sim_belady_trace(trace, 2, 0, 1, PASCAL_BELADY_BYPASS, NULL, &r, &err) ==
        PASCAL_ERANGE);
  CHECK(strcmp(err.field, "universe") == 0);
  CHECK(pascal_sim_ttl_trace(trace, 2, 4, 0, 1, NULL, &t, &err) == PASCAL_EINVAL);
  CHECK(strcmp(err.field, "slot_len") == 0);
  /* an empty trace is valid and has no misses */
  CHECK(pascal_sim_lru_trace(NULL, 0, 4, 1, NULL, &r, NULL) == PASCAL_OK);
  CHECK_INT(r.misses, 0);
  CHECK(pascal_sim_belady_trace(NULL, 0, 4, 1, PASCAL_BELADY_FORCED, NULL, &r, NULL) == PASCAL_OK);
  CHECK_INT(r.requests, 0);
}

int main(void)
{
  test_against_brute_force();
  test_ttl_trace();
  test_phase_periods();
  test_errors();
  return check_summary();
}
