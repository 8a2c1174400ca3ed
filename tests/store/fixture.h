/*
 * fixture.h - shared setup for the store tests: a fresh database in its own
 * temporary directory, a device, small scan plans, and raw SQL access to the
 * same file (to check what the schema itself enforces).
 */
#ifndef PASCAL_STORE_FIXTURE_H
#define PASCAL_STORE_FIXTURE_H

#include <sqlite3.h>

#include "pascal_store.h"

typedef struct fixture {
  char dir[256];  /* temporary directory, removed by fixture_done */
  char path[300]; /* dir/pascal.db */
  pascal_store *s;
} fixture;

/* Create the directory and open the store (aborts the test on failure). */
void fixture_open(fixture *f);
/* Close the store, delete the database files and the directory. */
void fixture_done(fixture *f);

/* The test device "gb10" (sm 48, C 1280, 16 KiB blocks). */
pascal_store_device fixture_device(void);
/* Scan run i of a small plan: o = 1 + i % 2, sync/tma alternating, N = 64 * (i + 1). */
pascal_store_run fixture_scan_run(unsigned i);
/* Register gb10 and create a scan calibration of n runs; returns its id. */
int64_t fixture_calibration(fixture *f, unsigned n, uint32_t max_attempts);
/* A lease token made of `c` repeated 32 times ("aaaa..."), in buf[33]. */
const char *fixture_token(char *buf, char c);
/* The lease holder (an API token id in pascald) of every lease the tests
 * take, unless they test another holder. */
#define HOLDER        1
/* Lease length (seconds) of fixture_claim(). */
#define FIXTURE_LEASE 60
/* `agent` claims the next job of gb10 at `now` for a FIXTURE_LEASE lease under the
 * token fixture_token(tok, c); the store's status, or NOT_FOUND when it
 * answered OK with nothing queued (so *j is set whenever this returns OK). */
pascal_store_status fixture_claim(fixture *f, const char *agent, char tok[33], char c, int64_t now,
                                  pascal_store_job *j);
/* fixture_open, then a calibration of one job (fixture_calibration(f, 1,
 * max_attempts)) that agent "a" has claimed at `now` under
 * fixture_token(tok, 'a'), the job in *j; exits 2 if the store refuses. */
void fixture_open_claimed(fixture *f, uint32_t max_attempts, int64_t now, char tok[33],
                          pascal_store_job *j);
/* A content hash for frozen calibrations. */
#define FIXTURE_HASH "cccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc"
/* A calibration of one job, claimed at `now` under fixture_token(tok, 'e'),
 * done at now + 1 and frozen at now + 2; returns its id, the job in *j. */
int64_t fixture_frozen_calibration(fixture *f, char tok[33], pascal_store_job *j, int64_t now);

/* Execute SQL on a second, raw connection to the same file; returns the
 * sqlite3 result code (SQLITE_OK or the error). */
int fixture_sql(const fixture *f, const char *sql);
/* Close the store's own connection (f->s = NULL), then fixture_sql: how a
 * test rewrites the file into what an older binary left behind. */
/* SQL that drops the columns migration 10 adds (a configuration run's
 * members), for tests that rewind a file to an older version. */
#define FIXTURE_DROP_MIGRATION_10                                                                  \
  "ALTER TABLE jobs DROP COLUMN tile_m;"                                                           \
  "ALTER TABLE jobs DROP COLUMN tile_n;"                                                           \
  "ALTER TABLE jobs DROP COLUMN tile_k;"                                                           \
  "ALTER TABLE jobs DROP COLUMN elem_bytes;"                                                       \
  "ALTER TABLE jobs DROP COLUMN stages;"                                                           \
  "ALTER TABLE jobs DROP COLUMN group_m;"                                                          \
  "ALTER TABLE measurements DROP COLUMN tile_m;"                                                   \
  "ALTER TABLE measurements DROP COLUMN tile_n;"                                                   \
  "ALTER TABLE measurements DROP COLUMN tile_k;"                                                   \
  "ALTER TABLE measurements DROP COLUMN elem_bytes;"                                               \
  "ALTER TABLE measurements DROP COLUMN stages;"                                                   \
  "ALTER TABLE measurements DROP COLUMN group_m;"

int fixture_sql_closed(fixture *f, const char *sql);
/* The single integer result of a query on a raw connection (-1 on error). */
long long fixture_sql_int(const fixture *f, const char *sql);

#endif
