/* fixture.c - shared setup for the store tests (see fixture.h). */
#include "fixture.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void fixture_open(fixture *f)
{
  memset(f, 0, sizeof *f);
  const char *tmp = getenv("TMPDIR");
  snprintf(f->dir, sizeof f->dir, "%s/pascal-store-XXXXXX", tmp && *tmp ? tmp : "/tmp");
  if (!mkdtemp(f->dir)) {
    perror("mkdtemp");
    exit(2);
  }
  snprintf(f->path, sizeof f->path, "%s/pascal.db", f->dir);
  pascal_error err;
  if (pascal_store_open(f->path, &f->s, &err) != PASCAL_STORE_OK) {
    fprintf(stderr, "open %s: %s\n", f->path, err.message);
    exit(2);
  }
}

void fixture_done(fixture *f)
{
  pascal_store_close(f->s);
  f->s = NULL;
  const char *suffixes[] = {"", "-wal", "-shm", "-journal"};
  for (size_t i = 0; i < sizeof suffixes / sizeof suffixes[0]; i++) {
    char p[320];
    snprintf(p, sizeof p, "%s%s", f->path, suffixes[i]);
    unlink(p);
  }
  rmdir(f->dir);
}

pascal_store_device fixture_device(void)
{
  pascal_store_device d;
  memset(&d, 0, sizeof d);
  snprintf(d.name, sizeof d.name, "gb10");
  snprintf(d.arch, sizeof d.arch, "sm_121");
  d.sm_count = 48;
  d.capacity_blocks = 1280;
  d.block_bytes = 16384;
  return d;
}

pascal_store_run fixture_scan_run(unsigned i)
{
  pascal_store_run r;
  memset(&r, 0, sizeof r);
  r.o = 1 + i % 2;
  r.path_tma = (int)(i % 2);
  r.d = r.path_tma ? 4 : 0;
  r.m = i % 3;
  r.N = 64u * (i + 1);
  r.W = 4;
  return r;
}

int64_t fixture_calibration(fixture *f, unsigned n, uint32_t max_attempts)
{
  pascal_store_device d = fixture_device();
  pascal_store_run *runs = calloc(n, sizeof *runs);
  int64_t id = 0;
  pascal_error err;
  if (!runs || pascal_store_device_create(f->s, &d, 1000, NULL, &err) != PASCAL_STORE_OK) {
    fprintf(stderr, "fixture device failed\n");
    exit(2);
  }
  for (unsigned i = 0; i < n; i++)
    runs[i] = fixture_scan_run(i);
  if (pascal_store_calibration_create(f->s, "gb10", PASCAL_STORE_SCAN,
                                      "{\"format\":\"pascal-plan/1\"}", runs, n, max_attempts, 1000,
                                      &id, &err) != PASCAL_STORE_OK) {
    fprintf(stderr, "fixture calibration failed: %s\n", err.message);
    exit(2);
  }
  free(runs);
  return id;
}

const char *fixture_token(char *buf, char c)
{
  memset(buf, c, 32);
  buf[32] = '\0';
  return buf;
}

pascal_store_status fixture_claim(fixture *f, const char *agent, char tok[33], char c, int64_t now,
                                  pascal_store_job *j)
{
  int claimed = 0;
  pascal_store_status status =
      pascal_store_job_claim(f->s, "gb10", agent, fixture_token(tok, c), HOLDER, now, FIXTURE_LEASE,
                             j, &claimed, NULL, NULL);
  return status == PASCAL_STORE_OK && !claimed ? PASCAL_STORE_NOT_FOUND : status;
}

void fixture_open_claimed(fixture *f, uint32_t max_attempts, int64_t now, char tok[33],
                          pascal_store_job *j)
{
  fixture_open(f);
  fixture_calibration(f, 1, max_attempts);
  pascal_store_status status = fixture_claim(f, "a", tok, 'a', now, j);
  if (status) {
    fprintf(stderr, "fixture claim failed: %s\n", pascal_store_status_name(status));
    exit(2);
  }
}

int64_t fixture_frozen_calibration(fixture *f, char tok[33], pascal_store_job *j, int64_t now)
{
  int64_t cal = fixture_calibration(f, 1, 0);
  pascal_error err;
  pascal_store_status status = fixture_claim(f, "a", tok, 'e', now, j);
  if (!status)
    status = pascal_store_job_result(f->s, j->id, tok, HOLDER, 9.0, 1.0, now + 1, NULL, &err);
  if (!status)
    status = pascal_store_calibration_freeze(f->s, cal, "{}", "{}", FIXTURE_HASH, now + 2, &err);
  if (status) {
    fprintf(stderr, "fixture frozen calibration failed: %s\n", pascal_store_status_name(status));
    exit(2);
  }
  return cal;
}

int fixture_sql(const fixture *f, const char *sql)
{
  sqlite3 *db = NULL;
  int rc = sqlite3_open_v2(f->path, &db, SQLITE_OPEN_READWRITE, NULL);
  if (rc == SQLITE_OK) {
    sqlite3_busy_timeout(db, 5000);
    rc = sqlite3_exec(db, "PRAGMA foreign_keys = ON", NULL, NULL, NULL);
  }
  if (rc == SQLITE_OK)
    rc = sqlite3_exec(db, sql, NULL, NULL, NULL);
  sqlite3_close(db);
  return rc;
}

int fixture_sql_closed(fixture *f, const char *sql)
{
  pascal_store_close(f->s);
  f->s = NULL;
  return fixture_sql(f, sql);
}

long long fixture_sql_int(const fixture *f, const char *sql)
{
  sqlite3 *db = NULL;
  sqlite3_stmt *st = NULL;
  long long v = -1;
  if (sqlite3_open_v2(f->path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
      sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
    v = sqlite3_column_int64(st, 0);
  sqlite3_finalize(st);
  sqlite3_close(db);
  return v;
}
