/*
 * test_lru.c - exact reuse distances and exact LRU (paper §3.3, Theorem 2):
 * hand-worked distances, the certificate on a case where the band is open,
 * stack distances of hand traces, and error paths.
 */
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "pascal/simulate.h"
#include "pascal/static.h"

static void test_hand_distances(void)
{
  uint64_t rd[3];
  /* N=8, phases (0,4): worker 0's block was last touched by worker 1 four
   * rounds ago; in between 3 + 3 other blocks: RD 6. Worker 1's block was
   * touched by worker 0 four rounds ago; in between blocks k-3..k+3: RD 7. */
  uint64_t two[] = {0, 4};
  CHECK(pascal_reuse_distance_compute(8, two, 2, rd, NULL) == PASCAL_OK);
  CHECK_INT(rd[0], 6);
  CHECK_INT(rd[1], 7);
  size_t misses;
  CHECK(pascal_lru_misses_exact(8, 6, two, 2, &misses, NULL) == PASCAL_OK);
  CHECK_INT(misses, 2);
  CHECK(pascal_lru_misses_exact(8, 7, two, 2, &misses, NULL) == PASCAL_OK);
  CHECK_INT(misses, 1); /* only worker 1's distance 7 reaches C */
  /* the count from the distances themselves: C = 6, 7, 8 against RD 6, 7
   * (fails when the comparison is > instead of >=: 1, 0, 0) */
  CHECK_INT(pascal_lru_misses_of_distances(rd, 2, 6), 2);
  CHECK_INT(pascal_lru_misses_of_distances(rd, 2, 7), 1);
  CHECK_INT(pascal_lru_misses_of_distances(rd, 2, 8), 0);
  /* aligned: the leader sees all N - 1 other blocks, followers see none */
  uint64_t aligned[] = {2, 2, 2};
  CHECK(pascal_reuse_distance_compute(9, aligned, 3, rd, NULL) == PASCAL_OK);
  CHECK_INT(rd[0], 8);
  CHECK_INT(rd[1], 0);
  CHECK_INT(rd[2], 0);
  /* one worker: N - 1 */
  uint64_t one[] = {4};
  CHECK(pascal_reuse_distance_compute(5, one, 1, rd, NULL) == PASCAL_OK);
  CHECK_INT(rd[0], 4);
  /* adjacent phases (0,1), N = 6: worker 0's block k was requested by
   * worker 1 in the previous round, immediately before: RD 0. Worker 1's
   * block k + 1 was last requested by worker 0 five rounds ago; in between
   * both workers swept blocks k - 4 .. k: RD 5. */
  uint64_t adj[] = {0, 1};
  CHECK(pascal_reuse_distance_compute(6, adj, 2, rd, NULL) == PASCAL_OK);
  CHECK_INT(rd[0], 0);
  CHECK_INT(rd[1], 5);
}

static void test_certificate_band(void)
{
  /* N=8, phases (0,4), C=6: gaps (4,4), theta = 3, T* = 3, K(2) = 2,
   * K(4) = 0: the certificate allows 0..2, exact LRU says 2 */
  uint64_t two[] = {0, 4};
  pascal_static_result r;
  size_t misses;
  CHECK(pascal_static_analyze(8, 6, two, 2, &r, NULL) == PASCAL_OK);
  CHECK_INT(r.t_star, 3);
  CHECK_INT(r.lru.lower, 0);
  CHECK_INT(r.lru.upper, 2);
  CHECK(pascal_lru_misses_exact(8, 6, two, 2, &misses, NULL) == PASCAL_OK);
  CHECK(misses >= r.lru.lower && misses <= r.lru.upper);
  CHECK_INT(misses, 2);
}

static void test_trace_distances(void)
{
  uint64_t trace[] = {0, 1, 2, 0, 0, 1, 3, 2}, rd[8];
  CHECK(pascal_trace_reuse_distance_compute(trace, 8, 4, rd, NULL) == PASCAL_OK);
  CHECK(rd[0] == PASCAL_RD_COLD && rd[1] == PASCAL_RD_COLD && rd[2] == PASCAL_RD_COLD);
  CHECK_INT(rd[3], 2); /* 1, 2 */
  CHECK_INT(rd[4], 0);
  CHECK_INT(rd[5], 2); /* 2, 0 */
  CHECK(rd[6] == PASCAL_RD_COLD);
  CHECK_INT(rd[7], 3); /* 0, 1, 3 */
}

static void test_errors(void)
{
  uint64_t phases[] = {0, 4}, rd[2];
  size_t misses;
  pascal_error err;
  CHECK(pascal_reuse_distance_compute(0, phases, 2, rd, &err) == PASCAL_EINVAL);
  CHECK(strcmp(err.field, "N") == 0);
  CHECK(pascal_reuse_distance_compute(4, phases, 2, rd, &err) == PASCAL_EINVAL);
  CHECK(strcmp(err.field, "phases[1]") == 0);
  CHECK(pascal_reuse_distance_compute(8, phases, 0, rd, &err) == PASCAL_EINVAL);
  CHECK(strcmp(err.field, "M") == 0);
  CHECK(pascal_reuse_distance_compute(8, phases, 2, NULL, &err) == PASCAL_EINVAL);
  CHECK(pascal_lru_misses_exact(8, 8, phases, 2, &misses, &err) == PASCAL_EINVAL);
  CHECK(strcmp(err.field, "C") == 0);
  CHECK(pascal_lru_misses_exact(8, 2, phases, 2, NULL, &err) == PASCAL_EINVAL);
  uint64_t trace[] = {0, 9};
  CHECK(pascal_trace_reuse_distance_compute(trace, 2, 4, rd, &err) == PASCAL_EINVAL);
  CHECK(strcmp(err.field, "trace[1]") == 0);
  CHECK(pascal_trace_reuse_distance_compute(trace, 2, 0, rd, &err) == PASCAL_ERANGE);
  CHECK(strcmp(err.field, "universe") == 0);
}

int main(void)
{
  test_hand_distances();
  test_certificate_band();
  test_trace_distances();
  test_errors();
  return check_summary();
}
