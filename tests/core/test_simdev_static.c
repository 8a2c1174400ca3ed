/*
 * test_simdev_static.c - the sim device's static kernel (grid barrier each
 * round) against independent references: a brute-force fully associative
 * LRU on the round-by-round trace of paper Eq. (trace) (exhaustively for
 * N = 2..6, M = 1..3, all phase vectors, 1 <= C < N, and on seeded larger
 * cases), and the gap law (Theorem ttl) with the one-round LRU certificate
 * (Theorem lru) in steady state. Then the same agreement with the core's
 * own static theory (pascal/static.h gap law and LRU certificate,
 * pascal/simulate.h LRU simulators). Also the barrier timing of a
 * hand-worked case and input validation.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "pascal/simdev.h"
#include "pascal/simulate.h"
#include "pascal/static.h"

#define MAX_N 64
#define MAX_M 12

/* Brute-force LRU: recency list as an array, MRU first. Returns misses of
 * H rounds, workers in index order within a round. */
static uint64_t lru_reference(uint64_t N, uint32_t M, const uint64_t *ph, uint64_t H, uint32_t C)
{
  uint64_t list[MAX_N];
  uint32_t len = 0;
  uint64_t misses = 0;
  for (uint64_t k = 0; k < H; k++)
    for (uint32_t w = 0; w < M; w++) {
      uint64_t b = (k + ph[w]) % N;
      uint32_t i = 0;
      while (i < len && list[i] != b)
        i++;
      if (i == len) {
        misses++;
        if (len < C)
          len++;
        i = len - 1; /* drop the LRU entry (or use the new slot) */
      }
      memmove(&list[1], &list[0], i * sizeof list[0]);
      list[0] = b;
    }
  return misses;
}

/* Gap-law count K(t) = #{gaps > t} and the window T* = max t: U(t) <= C. */
static uint32_t gaps_of(uint64_t N, uint32_t M, const uint64_t *ph, uint64_t *gaps)
{
  uint64_t y[MAX_M];
  uint32_t D = 0;
  for (uint64_t v = 0; v < N; v++)
    for (uint32_t w = 0; w < M; w++)
      if (ph[w] == v) {
        y[D++] = v;
        break;
      }
  for (uint32_t i = 0; i < D; i++)
    gaps[i] = (i + 1 < D ? y[i + 1] : y[0] + N) - y[i];
  return D;
}

static uint32_t count_above(const uint64_t *g, uint32_t D, int64_t t)
{
  uint32_t k = 0;
  for (uint32_t i = 0; i < D; i++)
    k += (int64_t)g[i] > t;
  return k;
}

static int64_t window(const uint64_t *g, uint32_t D, uint32_t C)
{
  int64_t t = 0;
  for (;;) {
    uint64_t u = 0;
    for (uint32_t i = 0; i < D; i++)
      u += g[i] < (uint64_t)(t + 1) ? g[i] : (uint64_t)(t + 1);
    if (u > C)
      return t;
    t++;
  }
}

static uint64_t sim_fills(pascal_simdev *dev, uint64_t N, uint32_t M, const uint64_t *ph,
                          uint64_t H, uint32_t C, pascal_simdev_stats *st)
{
  pascal_simdev_static run = {N, M, ph, H, C, 5};
  pascal_error err;
  if (pascal_simdev_run_static(dev, &run, st, &err) != PASCAL_OK) {
    fprintf(stderr, "run_static: %s\n", err.message);
    CHECK(!"run_static");
    return 0;
  }
  return st->fills;
}

static void test_exhaustive(pascal_simdev *dev)
{
  uint64_t cases = 0;
  for (uint64_t N = 2; N <= 6; N++)
    for (uint32_t M = 1; M <= 3; M++) {
      uint64_t total = 1;
      for (uint32_t i = 0; i < M; i++)
        total *= N;
      for (uint64_t code = 0; code < total; code++) {
        uint64_t ph[MAX_M], c = code;
        for (uint32_t w = 0; w < M; w++, c /= N)
          ph[w] = c % N;
        for (uint32_t C = 1; C < N; C++) {
          uint64_t H = 3 * N + 2;
          pascal_simdev_stats st;
          uint64_t got = sim_fills(dev, N, M, ph, H, C, &st);
          CHECK_INT(got, lru_reference(N, M, ph, H, C));
          CHECK_INT(st.requests, H * M);
          CHECK_INT(st.hits + st.merges + st.fills, st.requests);
          cases++;
          if (check_failures())
            return;
        }
      }
    }
  CHECK_INT(cases, 2254); /* the paper's exhaustive count (§5.2) */
}

static void test_seeded_and_gap_law(pascal_simdev *dev)
{
  uint64_t s = 12345;
  uint32_t collapsed = 0;
  for (int t = 0; t < 300; t++) {
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    uint64_t N = 8 + (s >> 33) % 40;
    uint32_t M = 1 + (uint32_t)((s >> 20) % MAX_M);
    uint32_t C = 1 + (uint32_t)((s >> 40) % (N - 1));
    uint64_t ph[MAX_M];
    for (uint32_t w = 0; w < M; w++) {
      s = s * 6364136223846793005ULL + 1442695040888963407ULL;
      /* clustered phases half of the time, so gaps vary */
      ph[w] = (t % 2 ? (s >> 33) % N : ((s >> 33) % 3) * (N / 3)) % N;
    }
    uint64_t H1 = 3 * N, H2 = H1 + N;
    pascal_simdev_stats st;
    uint64_t f1 = sim_fills(dev, N, M, ph, H1, C, &st);
    CHECK_INT(f1, lru_reference(N, M, ph, H1, C));
    uint64_t f2 = sim_fills(dev, N, M, ph, H2, C, &st);
    CHECK_INT(f2, lru_reference(N, M, ph, H2, C));
    /* steady state over one period of N rounds: the one-round LRU
     * certificate brackets the per-round fills (Theorem lru, D <= C) and
     * they equal the gap law when the bracket collapses */
    uint64_t g[MAX_M] = {0}; /* gaps_of sets the first D */
    uint32_t D = gaps_of(N, M, ph, g);
    if (D > C)
      continue;
    int64_t T = window(g, D, C);
    double per_round = (double)(f2 - f1) / (double)N;
    CHECK(per_round >= count_above(g, D, T + 1) - 1e-12);
    CHECK(per_round <= count_above(g, D, T - 1) + 1e-12);
    if (count_above(g, D, T + 1) == count_above(g, D, T - 1)) {
      CHECK_NEAR(per_round, count_above(g, D, T), 1e-12);
      collapsed++;
    }
    if (check_failures())
      return;
  }
  CHECK(collapsed > 50); /* the gap-law equality is actually exercised */
}

/* Paper §3.2 example: N = 8, M = 48 aligned -> K = 1; equally spaced
 * clusters with gaps above C/D -> K = D. At the default profile size. */
static void test_gap_law_examples(pascal_simdev *dev)
{
  enum { N = 4096, M = 48 };
  uint64_t ph[M];
  pascal_simdev_stats a, b;
  for (uint32_t D = 1; D <= 8; D *= 2) {
    for (uint32_t w = 0; w < M; w++)
      ph[w] = (uint64_t)(w % D) * (N / D);
    /* C = 1280: gaps N/D = 4096/D > 1280/D, so every cluster pays: K = D */
    uint64_t f1 = sim_fills(dev, N, M, ph, 2 * N, 0, &a);
    uint64_t f2 = sim_fills(dev, N, M, ph, 3 * N, 0, &b);
    CHECK_INT((f2 - f1) / N, D);
    CHECK_INT((f2 - f1) % N, 0);
  }
}

/* Agreement with the core: from cold, simdev's fills equal
 * pascal_sim_lru_trace on the same trace; in steady state (the window
 * pascal_sim_lru_phases counts: rounds 4N .. 5N) they equal its misses, lie
 * in pascal_static_analyze's LRU certificate and equal its gap-law K_TTL
 * when the certificate collapses. */
static void test_core_agreement(pascal_simdev *dev)
{
  uint64_t s = 987654321;
  uint32_t collapsed = 0, checked = 0;
  for (int t = 0; t < 200; t++) {
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    uint64_t N = 4 + (s >> 33) % 60;
    uint32_t M = 1 + (uint32_t)((s >> 21) % MAX_M);
    uint64_t C = 1 + (s >> 45) % (N - 1);
    uint64_t ph[MAX_M];
    for (uint32_t w = 0; w < M; w++) {
      s = s * 6364136223846793005ULL + 1442695040888963407ULL;
      ph[w] = (t % 3 ? (s >> 33) % N : ((s >> 33) % 4) * (N / 4)) % N;
    }
    pascal_simdev_stats st;
    pascal_error err;
    /* cold start, H = 2N + 3 rounds */
    uint64_t H = 2 * N + 3, len = H * M;
    uint64_t *trace = malloc(len * sizeof *trace);
    CHECK(trace != NULL);
    if (!trace)
      return;
    for (uint64_t k = 0; k < H; k++)
      for (uint32_t w = 0; w < M; w++)
        trace[k * M + w] = (k + ph[w]) % N;
    pascal_sim_result lru;
    CHECK_INT(pascal_sim_lru_trace(trace, len, N, C, NULL, &lru, &err), PASCAL_OK);
    free(trace);
    CHECK_INT(sim_fills(dev, N, M, ph, H, (uint32_t)C, &st), lru.misses);
    /* steady state */
    uint64_t f1 = sim_fills(dev, N, M, ph, 4 * N, (uint32_t)C, &st);
    uint64_t f2 = sim_fills(dev, N, M, ph, 5 * N, (uint32_t)C, &st);
    pascal_sim_result ss;
    CHECK_INT(pascal_sim_lru_phases(N, C, ph, M, 1, &ss, &err), PASCAL_OK);
    CHECK_INT(ss.rounds, N);
    CHECK_INT(f2 - f1, ss.misses);
    pascal_static_result gl;
    CHECK_INT(pascal_static_analyze(N, C, ph, M, &gl, &err), PASCAL_OK);
    double per_round = (double)(f2 - f1) / (double)N;
    CHECK(per_round >= (double)gl.lru.lower - 1e-12);
    CHECK(per_round <= (double)gl.lru.upper + 1e-12);
    if (gl.lru.certified && gl.lru.lower == gl.lru.upper) {
      CHECK_NEAR(per_round, (double)gl.k_ttl, 1e-12);
      collapsed++;
    }
    checked++;
    if (check_failures())
      return;
  }
  CHECK_INT(checked, 200);
  CHECK(collapsed > 40);
}

static void test_timing_and_validation(void)
{
  pascal_simdev_profile p;
  pascal_simdev_profile_default(&p);
  p.sm_count = 1;
  p.service_jitter = 0.0;
  p.sm_read_spread = p.sm_read_run_spread = 0.0;
  p.link_stall_prob = p.dram_tail_prob = 0.0;
  pascal_simdev *dev = NULL;
  pascal_error err;
  CHECK_INT(pascal_simdev_new(&p, &dev, &err), PASCAL_OK);
  if (!dev)
    return;
  /* one worker, C = 1, N = 2: every round misses and waits the full trip */
  uint64_t ph[2] = {0, 1};
  pascal_simdev_static run = {2, 1, ph, 10, 1, 0};
  pascal_simdev_stats st;
  CHECK_INT(pascal_simdev_run_static(dev, &run, &st, &err), PASCAL_OK);
  CHECK_INT(st.fills, 10);
  double round = p.hop_ns + p.block_bytes / p.dram_gbps + p.dram_latency_ns +
                 p.block_bytes / p.sm_read_gbps + p.sync_issue_ns + p.consume_ns + p.cta_sync_ns +
                 p.grid_barrier_ns;
  CHECK_NEAR(st.kernel_ns, 10.0 * round, 1e-6 * st.kernel_ns);
  CHECK_NEAR(st.K, 1.0, 0.0);
  run.phases = NULL;
  CHECK_INT(pascal_simdev_run_static(dev, &run, &st, &err), PASCAL_EINVAL);
  CHECK(strcmp(err.field, "phases") == 0);
  run.phases = ph;
  ph[1] = 2;
  run.M = 2;
  CHECK_INT(pascal_simdev_run_static(dev, &run, &st, &err), PASCAL_EINVAL);
  CHECK(strcmp(err.field, "phases") == 0);
  ph[1] = 1;
  run.H = 0;
  CHECK_INT(pascal_simdev_run_static(dev, &run, &st, &err), PASCAL_EINVAL);
  CHECK(strcmp(err.field, "H") == 0);
  run.H = 1;
  run.M = 0;
  CHECK_INT(pascal_simdev_run_static(dev, &run, &st, &err), PASCAL_EINVAL);
  CHECK(strcmp(err.field, "M") == 0);
  run.M = 1;
  run.N = 0;
  CHECK_INT(pascal_simdev_run_static(dev, &run, &st, &err), PASCAL_EINVAL);
  CHECK(strcmp(err.field, "N") == 0);
  pascal_simdev_free(dev);
}

int main(void)
{
  pascal_simdev_profile p;
  pascal_simdev_profile_default(&p);
  pascal_simdev *dev = NULL;
  CHECK_INT(pascal_simdev_new(&p, &dev, NULL), PASCAL_OK);
  if (dev) {
    test_exhaustive(dev);
    test_seeded_and_gap_law(dev);
    test_gap_law_examples(dev);
    test_core_agreement(dev);
  }
  pascal_simdev_free(dev);
  test_timing_and_validation();
  return check_summary();
}
