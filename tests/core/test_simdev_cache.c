/*
 * test_simdev_cache.c - the sim device's L2 array and memory path
 * (core/src/simdev_cache.c, simdev_mem.c): a set-associative, hashed,
 * optionally partitioned LRU cache with a fully associative mode.
 *
 *   - the cache against a brute-force set-associative LRU (each set a
 *     recency array of A entries, the set of a block taken from the cache's
 *     own index function) on seeded random traces, for many (S, A); one set
 *     of A ways against a brute-force fully associative LRU of A lines;
 *   - the hashed index: every aligned run of S consecutive blocks meets every
 *     set once (a contiguous buffer loads the sets evenly), and blocks S
 *     apart do not all share a set (it is not b mod S);
 *   - a conflict miss through the public API: on the static kernel, three
 *     blocks that share a set of a 2-way, 2-set cache miss on every access,
 *     while the fully associative mode (C = 4, the same four lines) keeps
 *     them after their first miss. The three blocks are found by trying
 *     every choice of one block from each of three aligned pairs, so the
 *     test does not restate the hash;
 *   - partitions: a line read from both halves costs one DRAM fill, the far
 *     half gets it from the home half after the far hop and then hits its
 *     own copy; a cyclic scan shared by all SMs fits when it fits one
 *     partition, not when it only fits both;
 *   - profile validation of the new keys.
 * Checked against a broken variant by hand: with every block forced into
 * set 0 the balance property fails, all 8 triples thrash and the
 * partitioned scan refills at N = 30 (1982 failed checks); with a fully
 * associative cache the conflict test finds no thrashing triple.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../core/src/simdev_internal.h"
#include "check.h"
#include "pascal/simdev.h"

#define MAX_WAYS 16
#define MAX_SETS 64

/* Brute-force set-associative LRU: per set a recency array, MRU first. */
typedef struct ref_cache {
  uint32_t sets, ways;
  uint32_t len[MAX_SETS];
  uint32_t line[MAX_SETS][MAX_WAYS];
} ref_cache;

static int ref_access(ref_cache *r, uint32_t set, uint32_t b)
{
  uint32_t *l = r->line[set], i = 0;
  while (i < r->len[set] && l[i] != b)
    i++;
  int hit = i < r->len[set];
  if (!hit) {
    if (r->len[set] < r->ways)
      r->len[set]++;
    i = r->len[set] - 1;
  }
  memmove(&l[1], &l[0], i * sizeof l[0]);
  l[0] = b;
  return hit;
}

static uint64_t rng_next(uint64_t *s)
{
  *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
  return *s >> 33;
}

/* The cache module against the brute force on random traces over n blocks. */
static void test_against_reference(void)
{
  simdev_cache c;
  memset(&c, 0, sizeof c);
  uint64_t seed = 7;
  int cases = 0;
  for (uint32_t sets = 1; sets <= 8; sets++)
    for (uint32_t ways = 1; ways <= 6; ways++)
      for (uint32_t n = 1; n <= 3 * sets * ways + 3; n += 1 + sets) {
        CHECK_INT(pc_simdev_cache_reset(&c, n, 1, sets, ways), PASCAL_OK);
        ref_cache r;
        memset(&r, 0, sizeof r);
        r.sets = sets;
        r.ways = ways;
        for (int k = 0; k < 400; k++) {
          uint32_t b = (uint32_t)(rng_next(&seed) % n);
          int ref_hit = ref_access(&r, pc_simdev_cache_set(&c, b), b);
          int hit = pc_simdev_cache_touch(&c, 0, b) != NULL;
          if (!hit)
            pc_simdev_cache_insert(&c, 0, b);
          CHECK_INT(hit, ref_hit);
          if (check_failures())
            goto done;
        }
        CHECK(pc_simdev_cache_consistent(&c));
        cases++;
      }
  /* one set of A ways is the fully associative LRU of A lines: the
   * reference with one set uses no index function at all */
  for (uint32_t ways = 1; ways <= MAX_WAYS; ways++) {
    CHECK_INT(pc_simdev_cache_reset(&c, 40, 1, 1, ways), PASCAL_OK);
    ref_cache r;
    memset(&r, 0, sizeof r);
    r.sets = 1;
    r.ways = ways;
    for (int k = 0; k < 500; k++) {
      uint32_t b = (uint32_t)(rng_next(&seed) % 40);
      int hit = pc_simdev_cache_touch(&c, 0, b) != NULL;
      if (!hit)
        pc_simdev_cache_insert(&c, 0, b);
      CHECK_INT(hit, ref_access(&r, 0, b));
    }
  }
done:
  printf("set-associative cache: %d (S, A, n) cases agree with the brute force\n", cases);
  CHECK(cases > 100);
  pc_simdev_cache_free(&c);
}

/* Aligned runs of S blocks meet every set once; the index is not b mod S. */
static void test_hashed_index(void)
{
  simdev_cache c;
  memset(&c, 0, sizeof c);
  uint32_t sets = 100, n = 20 * sets;
  CHECK_INT(pc_simdev_cache_reset(&c, n, 2, sets, 16), PASCAL_OK);
  int plain_modulo = 1;
  for (uint32_t g = 0; g < n / sets; g++) {
    unsigned char seen[100] = {0};
    for (uint32_t b = g * sets; b < (g + 1) * sets; b++) {
      uint32_t s = pc_simdev_cache_set(&c, b);
      CHECK(s < sets);
      CHECK(!seen[s]);
      seen[s] = 1;
      plain_modulo &= s == b % sets;
    }
  }
  CHECK(!plain_modulo);
  /* homes: each aligned pair of blocks has one line in each partition */
  uint32_t in0 = 0;
  for (uint32_t b = 0; b < n; b += 2) {
    uint32_t h0 = pc_simdev_cache_home(&c, b), h1 = pc_simdev_cache_home(&c, b + 1);
    CHECK(h0 < 2 && h1 < 2 && h0 != h1);
    in0 += h0 == 0;
  }
  CHECK(in0 > n / 8 && in0 < 3 * n / 8); /* not always the even block */
  pc_simdev_cache_free(&c);
}

static pascal_simdev *quiet_device(uint32_t sm_count, uint32_t ways, uint32_t sets, uint32_t parts)
{
  pascal_simdev_profile p;
  pascal_simdev_profile_default(&p);
  p.sm_count = sm_count;
  p.l2_ways = ways;
  p.l2_sets = sets;
  p.l2_partitions = parts;
  p.l2_far_ns = 100.0;
  p.capacity_blocks = ways ? ways * sets : 4;
  p.sm_read_spread = p.sm_read_run_spread = p.sm_clock_spread = 0.0;
  p.service_jitter = p.work_noise = p.link_stall_prob = p.dram_tail_prob = 0.0;
  p.start_jitter_ns = 0.0;
  pascal_simdev *dev = NULL;
  pascal_error err;
  CHECK_INT(pascal_simdev_new(&p, &dev, &err), PASCAL_OK);
  return dev;
}

/* Fills of the trace `blocks` repeated `rounds` times, through the public
 * static kernel: with H = 1 round every worker w reads block phases[w], in
 * worker order, so listing the trace as the workers of one round replays it
 * on one cache (N = 6 blocks; C = 0: the profile's L2, C > 0: fully
 * associative of C lines). */
static uint64_t static_fills(pascal_simdev *dev, const uint64_t *blocks, uint32_t nb,
                             uint32_t rounds, uint32_t C)
{
  uint64_t phases[64];
  uint32_t M = 0;
  for (uint32_t r = 0; r < rounds; r++)
    for (uint32_t i = 0; i < nb; i++)
      phases[M++] = blocks[i];
  pascal_simdev_static run = {6, M, phases, 1, C, 0};
  pascal_simdev_stats st;
  pascal_error err;
  CHECK_INT(pascal_simdev_run_static(dev, &run, &st, &err), PASCAL_OK);
  CHECK_INT(st.requests, M);
  CHECK_INT(st.hits + st.merges + st.fills, st.requests);
  return st.fills;
}

/* A conflict miss: 2 sets x 2 ways (four lines) against a fully associative
 * cache of four lines. Blocks 0..5 form three aligned pairs, each pair
 * spread over both sets; a choice of one block per pair that shares a set
 * is three blocks in a 2-way set, which thrash under LRU. */
static void test_conflict_miss(void)
{
  pascal_simdev *sa = quiet_device(1, 2, 2, 1);
  if (!sa)
    return;
  int thrashing = 0;
  for (uint32_t pick = 0; pick < 8; pick++) {
    uint64_t blocks[3] = {0 + (pick & 1), 2 + ((pick >> 1) & 1), 4 + ((pick >> 2) & 1)};
    uint64_t f_sa = static_fills(sa, blocks, 3, 6, 0);
    uint64_t f_fa = static_fills(sa, blocks, 3, 6, 4); /* C = 4: fully associative */
    CHECK_INT(f_fa, 3);                                /* three compulsory misses, then hits */
    CHECK(f_sa >= 3);
    if (f_sa == 18) /* every one of 6 x 3 accesses missed */
      thrashing++;
    else
      CHECK(f_sa <= 4); /* two sets share the three: at most one conflict */
  }
  printf("conflict misses: %d of 8 block triples thrash one 2-way set\n", thrashing);
  CHECK_INT(thrashing, 2); /* all three in set 0, or all three in set 1 */
  pascal_simdev_free(sa);
}

/* Partitions: SMs 0..1 next to partition 0, SMs 2..3 next to partition 1. */
static void test_partitions(void)
{
  pascal_simdev *dev = quiet_device(4, 4, 4, 2);
  if (!dev)
    return;
  simdev_rng rng = {1};
  pascal_error err;
  CHECK_INT(pc_simdev_mem_prepare(dev, 64, 0, 16384, &rng, &err), PASCAL_OK);
  simdev_mem *mm = &dev->mem;
  uint32_t b = 0;
  while (pc_simdev_cache_home(&mm->cache, b) != 0)
    b++;
  double ready;
  /* near the home: a DRAM fill */
  CHECK_INT(pc_simdev_mem_lookup(mm, 0, b, 0.0, &ready, NULL), SIMDEV_FILL);
  double landed = ready;
  /* the far half, long after: the home's copy, two far hops, no fill */
  double t = landed + 1000.0;
  CHECK_INT(pc_simdev_mem_lookup(mm, 3, b, t, &ready, NULL), SIMDEV_HIT);
  CHECK_NEAR(ready, t + mm->hop_ns + 2.0 * mm->far_ns, 1e-9);
  /* then its own copy, at the near hop only */
  t += 2000.0;
  CHECK_INT(pc_simdev_mem_lookup(mm, 2, b, t, &ready, NULL), SIMDEV_HIT);
  CHECK_NEAR(ready, t + mm->hop_ns, 1e-9);
  /* a line homed in partition 1 first read from partition 0's side: one
   * fill at the home, data back over the far hop; a second reader on that
   * side merges with the copy in flight */
  uint32_t c = b + 1;
  while (pc_simdev_cache_home(&mm->cache, c) != 1)
    c++;
  t += 2000.0;
  CHECK_INT(pc_simdev_mem_lookup(mm, 1, c, t, &ready, NULL), SIMDEV_FILL);
  CHECK(ready > t + mm->hop_ns + 2.0 * mm->far_ns + mm->dram_latency_ns - 1e-9);
  double copy_ready = ready;
  CHECK_INT(pc_simdev_mem_lookup(mm, 0, c, t + 1.0, &ready, NULL), SIMDEV_MERGE);
  CHECK_NEAR(ready, copy_ready, 1e-9);
  CHECK_INT(mm->fills, 2);
  CHECK_INT(mm->requests, 5);
  CHECK(pc_simdev_cache_consistent(&mm->cache));
  pascal_simdev_free(dev);
}

/* A sync scan of one CTA per SM over W = 4 waves (the probe's capacity
 * scan) on 2 partitions of 4 sets x 8 ways (64 lines, 32 per partition):
 * N = 30 fits one partition, every line once in each, so only the first
 * wave fills; N = 48 fits both partitions together but not one, and every
 * wave fills again. */
static void test_partition_capacity(void)
{
  pascal_simdev *dev = quiet_device(8, 8, 4, 2);
  if (!dev)
    return;
  pascal_error err;
  uint64_t sizes[2] = {30, 48};
  double ratio[2];
  for (int i = 0; i < 2; i++) {
    pascal_simdev_scan s = {.o = 1, .N = sizes[i], .W = 4};
    pascal_simdev_stats st;
    CHECK_INT(pascal_simdev_run_scan(dev, &s, &st, NULL, &err), PASCAL_OK);
    ratio[i] = (double)st.fills / (double)sizes[i];
  }
  printf("partitioned capacity scan: fills / N = %.3f at N = 30, %.3f at N = 48\n", ratio[0],
         ratio[1]);
  CHECK_NEAR(ratio[0], 1.0, 1e-9);
  CHECK(ratio[1] > 3.0);
  pascal_simdev_free(dev);
}

static void test_profile_keys(void)
{
  static const struct {
    const char *text, *field;
  } bad[] = {
      {"l2_ways = 0\nl2_sets = 4\n", "l2_sets"},             /* sets without ways */
      {"l2_ways = 0\nl2_partitions = 2\n", "l2_partitions"}, /* partitions without ways */
      {"l2_ways = 48\n", "l2_sets"}, /* capacity_blocks 1280 not a multiple of 48 */
      {"l2_ways = 65537\n", "l2_ways"},
      {"l2_ways = 2048\nl2_sets = 1048576\n", "l2_sets"},                  /* over 2^30 lines */
      {"l2_ways = 4\nl2_sets = 2\nl2_partitions = 49\n", "l2_partitions"}, /* > sm_count */
      {"l2_far_ns = -1\n", "l2_far_ns"},
      {"l2_gbps = nan\n", "l2_gbps"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    pascal_simdev_profile p;
    pascal_error err;
    memset(&err, 0, sizeof err);
    CHECK(pascal_simdev_profile_parse(bad[i].text, strlen(bad[i].text), &p, &err) != PASCAL_OK);
    CHECK(strcmp(err.field, bad[i].field) == 0);
    if (strcmp(err.field, bad[i].field) != 0)
      fprintf(stderr, "%s: field %s, want %s\n", bad[i].text, err.field, bad[i].field);
  }
  pascal_simdev_profile p;
  pascal_error err;
  const char *ok = "l2_ways = 16\nl2_sets = 100\nl2_partitions = 2\nl2_far_ns = 80\n";
  CHECK_INT(pascal_simdev_profile_parse(ok, strlen(ok), &p, &err), PASCAL_OK);
  CHECK_INT(p.l2_ways, 16);
  CHECK_INT(p.l2_sets, 100);
  CHECK_INT(p.l2_partitions, 2);
}

int main(void)
{
  test_against_reference();
  test_hashed_index();
  test_conflict_miss();
  test_partitions();
  test_partition_capacity();
  test_profile_keys();
  return check_summary();
}
