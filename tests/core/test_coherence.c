/*
 * test_coherence.c - Theorem 4 (paper §3.5): the sharp 2 sigma - 2
 * counterexample misses while 2 sigma - 1 never does, for sigma = 2..20,
 * run through the LRU simulator over the generated address trace; random
 * event sequences at C = 2 sigma_E - 1 never miss a repeated index and obey
 * both traffic bounds; sigma_E against a brute-force definition; error paths.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "pascal/coherence.h"
#include "pascal/simulate.h"
#include "test_static_rng.h"

static uint64_t rng_state = 99;

static uint64_t rng_next(void)
{
  return test_rng_next(&rng_state);
}

static void test_sharp_schedule(void)
{
  size_t workers[64];
  uint64_t blocks[64], n;
  uint8_t hits[64];
  for (uint64_t sigma = 2; sigma <= 20; sigma++) {
    size_t len;
    CHECK(pascal_coherence_sharp_schedule(sigma, workers, blocks, 64, &len, &n, NULL) == PASCAL_OK);
    CHECK_INT(len, 3 * sigma - 1);
    CHECK_INT(n, 2 * sigma);
    pascal_coherence_result res;
    CHECK(pascal_coherence_from_events(workers, len, 2, 2 * sigma - 1, &res, NULL) == PASCAL_OK);
    CHECK_INT(res.sigma, sigma);
    CHECK(res.preserves);
    /* C = 2 sigma - 2 < N: the last request (a repeated index) misses */
    pascal_sim_result r;
    CHECK(pascal_sim_lru_trace(blocks, len, n, 2 * sigma - 2, hits, &r, NULL) == PASCAL_OK);
    CHECK(hits[len - 1] == 0);
    /* C = 2 sigma - 1: every repeated index hits, misses = distinct blocks */
    CHECK(pascal_sim_lru_trace(blocks, len, n, 2 * sigma - 1, hits, &r, NULL) == PASCAL_OK);
    CHECK(hits[len - 1] == 1);
    CHECK_INT(r.misses, 2 * sigma - 1);
    CHECK(r.misses <= res.miss_bound);
  }
}

/* sigma_E by definition: recount every prefix. */
static uint64_t sigma_brute(const size_t *events, size_t e, size_t m)
{
  uint64_t count[8] = {0}, sigma = 0;
  for (size_t u = 0; u < e; u++) {
    count[events[u]]++;
    uint64_t lo = UINT64_MAX, hi = 0;
    for (size_t w = 0; w < m; w++) {
      lo = count[w] < lo ? count[w] : lo;
      hi = count[w] > hi ? count[w] : hi;
    }
    sigma = hi - lo > sigma ? hi - lo : sigma;
  }
  return sigma;
}

static void test_random_events(void)
{
  enum { E = 400 };
  size_t events[E];
  uint64_t blocks[E], count[8];
  uint8_t hits[E], seen[E];
  for (int rep = 0; rep < 200; rep++) {
    size_t m = 2 + (size_t)(rng_next() % 6);
    size_t bias = (size_t)(rng_next() % m);
    memset(count, 0, sizeof count);
    for (size_t u = 0; u < E; u++) { /* a biased walk so that leads vary */
      size_t w = rng_next() % 3 == 0 ? bias : (size_t)(rng_next() % m);
      events[u] = w;
      blocks[u] = count[w]++; /* the index k; block k mod N set below */
    }
    pascal_coherence_result res;
    uint64_t c0 = 1 + rng_next() % 4;
    CHECK(pascal_coherence_from_events(events, E, m, c0, &res, NULL) == PASCAL_OK);
    CHECK_INT(res.sigma, sigma_brute(events, E, m));
    uint64_t c = 2 * res.sigma - 1, n = c + 1 + rng_next() % 20;
    uint64_t most = 0;
    for (size_t w = 0; w < m; w++)
      most = count[w] > most ? count[w] : most;
    CHECK_INT(res.miss_bound, most);
    memset(seen, 0, sizeof seen);
    for (size_t u = 0; u < E; u++)
      blocks[u] %= n;
    pascal_sim_result r;
    CHECK(pascal_sim_lru_trace(blocks, E, n, c, hits, &r, NULL) == PASCAL_OK);
    uint64_t index[8] = {0}; /* a repeated index k must hit */
    for (size_t u = 0; u < E; u++) {
      uint64_t k = index[events[u]]++;
      if (seen[k])
        CHECK(hits[u]);
      seen[k] = 1;
    }
    CHECK(r.misses <= res.miss_bound);
    CHECK((double)m * (double)r.misses / E <= res.rate_bound + 1e-12);
  }
}

static void test_check(void)
{
  pascal_coherence_result res;
  CHECK(pascal_coherence_check(3, 5, 4, 100, &res, NULL) == PASCAL_OK);
  CHECK_INT(res.min_capacity, 5);
  CHECK(res.preserves);
  CHECK_INT(res.miss_bound, (100 + 3 * 3) / 4);
  CHECK_NEAR(res.rate_bound, 1.0 + 3.0 * 3.0 / 100.0, 1e-15);
  CHECK(pascal_coherence_check(3, 4, 4, 100, &res, NULL) == PASCAL_OK);
  CHECK(!res.preserves);
}

static void test_errors(void)
{
  pascal_coherence_result res;
  pascal_error err;
  size_t workers[8], events[] = {0, 1, 2};
  uint64_t blocks[8], n;
  size_t len;
  CHECK(pascal_coherence_check(0, 5, 2, 10, &res, &err) == PASCAL_EINVAL);
  CHECK(strcmp(err.field, "sigma") == 0);
  CHECK(pascal_coherence_check(11, 5, 2, 10, &res, &err) == PASCAL_EINVAL);
  CHECK(strcmp(err.field, "sigma") == 0);
  CHECK(pascal_coherence_check(2, 0, 2, 10, &res, &err) == PASCAL_EINVAL);
  CHECK(strcmp(err.field, "C") == 0);
  CHECK(pascal_coherence_check(2, 5, 1, 10, &res, &err) == PASCAL_EINVAL);
  CHECK(strcmp(err.field, "M") == 0);
  CHECK(pascal_coherence_check(1, 5, 2, 0, &res, &err) == PASCAL_EINVAL);
  CHECK(strcmp(err.field, "E") == 0);
  CHECK(pascal_coherence_check(UINT64_MAX / 2, 5, 4, UINT64_MAX, &res, &err) == PASCAL_ERANGE);
  CHECK(pascal_coherence_from_events(events, 3, 2, 3, &res, &err) == PASCAL_EINVAL);
  CHECK(strcmp(err.field, "events[2]") == 0);
  CHECK(pascal_coherence_from_events(NULL, 3, 2, 3, &res, &err) == PASCAL_EINVAL);
  CHECK(pascal_coherence_sharp_schedule(1, workers, blocks, 8, &len, &n, &err) == PASCAL_EINVAL);
  CHECK(strcmp(err.field, "sigma") == 0);
  CHECK(pascal_coherence_sharp_schedule(3, workers, blocks, 7, &len, &n, &err) == PASCAL_EINVAL);
  CHECK(strcmp(err.field, "cap") == 0);
}

int main(void)
{
  test_sharp_schedule();
  test_random_events();
  test_check();
  test_errors();
  return check_summary();
}
