/*
 * test_concurrency.c - several writers at once, as in pascald (threads
 * sharing one handle) and as with several processes (separate handles on the
 * same file): four threads on two handles claim and complete jobs until none
 * is left. Every job must be leased once and done once, with exactly one
 * measurement each, and no call may fail with SQLITE_BUSY.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "fixture.h"

#define JOBS    120
#define THREADS 4

typedef struct worker {
  pascal_store *s;
  int index;
  int failures; /* store calls that did not return OK */
  int done;     /* jobs this worker completed */
} worker;

static void *work(void *arg)
{
  worker *w = arg;
  char agent[16];
  snprintf(agent, sizeof agent, "w%d", w->index);
  for (int64_t k = 0;; k++) {
    char tok[40];
    snprintf(tok, sizeof tok, "%016x%016llx", (unsigned)w->index, (long long)k);
    pascal_store_job j;
    int claimed = 0;
    if (pascal_store_job_claim(w->s, "gb10", agent, tok, HOLDER, 100, 600, &j, &claimed, NULL,
                               NULL) != PASCAL_STORE_OK) {
      w->failures++;
      break;
    }
    if (!claimed)
      break;
    if (pascal_store_job_result(w->s, j.id, tok, HOLDER, (double)j.id, 1.0, 101, NULL, NULL) !=
        PASCAL_STORE_OK)
      w->failures++;
    else
      w->done++;
  }
  return NULL;
}

int main(void)
{
  fixture f;
  fixture_open(&f);
  fixture_calibration(&f, JOBS, 0);
  pascal_store *second = NULL;
  CHECK_INT(pascal_store_open(f.path, &second, NULL), PASCAL_STORE_OK);
  worker w[THREADS];
  pthread_t tid[THREADS];
  for (int i = 0; i < THREADS; i++) {
    w[i] = (worker){.s = i % 2 ? second : f.s, .index = i};
    CHECK_INT(pthread_create(&tid[i], NULL, work, &w[i]), 0);
  }
  int total = 0;
  for (int i = 0; i < THREADS; i++) {
    pthread_join(tid[i], NULL);
    CHECK_INT(w[i].failures, 0);
    total += w[i].done;
  }
  CHECK_INT(total, JOBS);
  pascal_store_close(second);
  CHECK_INT(fixture_sql_int(&f, "SELECT count(*) FROM jobs WHERE state = 'done'"
                                " AND attempts = 1"),
            JOBS);
  CHECK_INT(fixture_sql_int(&f, "SELECT count(DISTINCT job) FROM measurements"), JOBS);
  CHECK_INT(fixture_sql_int(&f, "SELECT count(*) FROM measurements"), JOBS);
  CHECK_INT(fixture_sql_int(&f, "SELECT count(*) FROM measurements WHERE fill_bytes <> job"), 0);
  fixture_done(&f);
  return check_summary();
}
