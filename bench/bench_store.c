/*
 * bench_store.c - medians of the store operations pascald performs, on a
 * real file with synchronous=FULL (so every write includes its fsync):
 * claim + result of one job (one agent round trip), heartbeat, token lookup,
 * progress, creating a 756-run calibration, and loading 10 frozen bundles at
 * startup. Figures, not assertions. Usage: bench_store [DIR] (default $TMPDIR
 * or /tmp; the database is removed afterwards).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pascal_store.h"
#include "timing.h"

#define RUNS   756
#define ROUNDS 200

static void die(const char *what, const pascal_error *err)
{
  fprintf(stderr, "bench_store: %s: %s\n", what, err->message);
  exit(1);
}

static void report(const char *name, double *ns, size_t n)
{
  double p50 = bench_median(ns, n);
  double p99 = bench_quantile(ns, n, 0.99);
  printf("%-34s median %9.1f us   p99 %9.1f us   (n=%zu)\n", name, p50 / 1e3, p99 / 1e3, n);
}

static int64_t create_calibration(pascal_store *s, pascal_error *err)
{
  static pascal_store_run runs[RUNS];
  for (unsigned i = 0; i < RUNS; i++)
    runs[i] = (pascal_store_run){.o = 1 + i % 4,
                                 .path_tma = (int)(i % 2),
                                 .d = i % 2 ? 4 : 0,
                                 .m = i % 8,
                                 .N = 1024u << (i % 3),
                                 .W = 1u << (2 * (i % 4))};
  int64_t id = 0;
  if (pascal_store_calibration_create(s, "bench", PASCAL_STORE_SCAN,
                                      "{\"format\":\"pascal-plan/1\"}", runs, RUNS, 0, 1000, &id,
                                      err))
    die("create", err);
  return id;
}

int main(int argc, char **argv)
{
  const char *base = argc > 1 ? argv[1] : getenv("TMPDIR");
  char dir[512], path[600];
  snprintf(dir, sizeof dir, "%s/bench-store-XXXXXX", base && *base ? base : "/tmp");
  if (!mkdtemp(dir)) {
    perror("mkdtemp");
    return 1;
  }
  snprintf(path, sizeof path, "%s/pascal.db", dir);
  pascal_store *s = NULL;
  pascal_error err;
  if (pascal_store_open(path, &s, &err))
    die("open", &err);
  pascal_store_device dev = {.name = "bench",
                             .arch = "sim",
                             .sm_count = 48,
                             .capacity_blocks = 1280,
                             .block_bytes = 16384};
  if (pascal_store_device_create(s, &dev, 1000, NULL, &err))
    die("device", &err);

  double create_ns[5];
  for (int i = 0; i < 5; i++) {
    double t0 = bench_now_ns();
    create_calibration(s, &err);
    create_ns[i] = bench_now_ns() - t0;
  }
  report("calibration create (756 jobs)", create_ns, 5);

  double claim_ns[ROUNDS], result_ns[ROUNDS], beat_ns[ROUNDS], prog_ns[ROUNDS], tok_ns[ROUNDS];
  char hash[65];
  memset(hash, 'a', 64);
  hash[64] = '\0';
  int64_t tid = 0;
  if (pascal_store_token_create(s, "bench", PASCAL_STORE_ROLE_AGENT, hash, 1000, &tid, &err))
    die("token", &err);
  for (int i = 0; i < ROUNDS; i++) {
    char tok[40];
    snprintf(tok, sizeof tok, "%032x", i + 1);
    pascal_store_job j;
    int claimed = 0;
    int64_t expires = 0, done = 0, total = 0;
    pascal_store_token t;
    double t0 = bench_now_ns();
    if (pascal_store_job_claim(s, "bench", "agent", tok, 1, 2000 + i, 60, &j, &claimed, NULL,
                               &err) ||
        !claimed)
      die("claim", &err);
    double t1 = bench_now_ns();
    if (pascal_store_job_heartbeat(s, j.id, tok, 1, 2000 + i, 60, &expires, &err))
      die("heartbeat", &err);
    double t2 = bench_now_ns();
    if (pascal_store_job_result(s, j.id, tok, 1, 1e9 + i, 1e6, 2000 + i, NULL, &err))
      die("result", &err);
    double t3 = bench_now_ns();
    if (pascal_store_device_progress(s, "bench", &done, &total, &err))
      die("progress", &err);
    double t4 = bench_now_ns();
    if (pascal_store_token_find(s, hash, &t, &err))
      die("token find", &err);
    double t5 = bench_now_ns();
    claim_ns[i] = t1 - t0;
    beat_ns[i] = t2 - t1;
    result_ns[i] = t3 - t2;
    prog_ns[i] = t4 - t3;
    tok_ns[i] = t5 - t4;
  }
  report("job claim (write, fsync)", claim_ns, ROUNDS);
  report("job heartbeat (write, fsync)", beat_ns, ROUNDS);
  report("job result (write, fsync)", result_ns, ROUNDS);
  report("device progress (3780 jobs)", prog_ns, ROUNDS);
  report("token find by hash", tok_ns, ROUNDS);

  /* 10 frozen calibrations with 64 KiB bundles, then the startup load. */
  char *bundle = malloc(65536);
  if (!bundle)
    return 1;
  memset(bundle, ' ', 65535);
  bundle[0] = '{';
  bundle[65534] = '}';
  bundle[65535] = '\0';
  pascal_store_measurement m = {.run = {.o = 1, .N = 64, .W = 1}, .fill_bytes = 1.0};
  for (int i = 0; i < 10; i++) {
    char h[65];
    snprintf(h, sizeof h, "%064x", i + 1);
    int64_t id = 0;
    if (pascal_store_calibration_import(s, &dev, PASCAL_STORE_SCAN, NULL, &m, 1, bundle, "{}", h,
                                        3000, &id, NULL, &err))
      die("import", &err);
  }
  free(bundle);
  double load_ns[20];
  for (int i = 0; i < 20; i++) {
    pascal_store_calibration *list = NULL;
    size_t n = 0;
    double t0 = bench_now_ns();
    if (pascal_store_frozen_list(s, &list, &n, &err))
      die("frozen list", &err);
    load_ns[i] = bench_now_ns() - t0;
    pascal_store_calibration_array_free(list, n);
  }
  report("frozen list (10 x 64 KiB bundles)", load_ns, 20);

  pascal_store_close(s);
  const char *suffix[] = {"", "-wal", "-shm"};
  for (int i = 0; i < 3; i++) {
    char p[620];
    snprintf(p, sizeof p, "%s%s", path, suffix[i]);
    unlink(p);
  }
  rmdir(dir);
  return 0;
}
