/*
 * test_durable.c - acknowledged uploads survive kill -9: a child process
 * claims jobs and uploads results, writing each job id to a pipe only after
 * pascal_store_job_result() returned OK (the moment pascald would answer
 * 200); the parent kills it with SIGKILL mid-stream, reopens the database and
 * finds every acknowledged measurement, a consistent job table (done jobs ==
 * measurements) and an intact file.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "fixture.h"

#define JOBS             400
#define ACKS_BEFORE_KILL 40

/* The child: upload results as fast as it can, acking each on `fd`. */
static void child(const char *path, int fd)
{
  pascal_store *s = NULL;
  if (pascal_store_open(path, &s, NULL) != PASCAL_STORE_OK)
    _exit(3);
  for (int64_t now = 100;; now++) {
    char tok[40];
    snprintf(tok, sizeof tok, "%032llx", (long long)now);
    pascal_store_job j;
    int claimed = 0;
    if (pascal_store_job_claim(s, "gb10", "child", tok, HOLDER, now, 600, &j, &claimed, NULL,
                               NULL) != PASCAL_STORE_OK)
      _exit(4);
    if (!claimed)
      break;
    if (pascal_store_job_result(s, j.id, tok, HOLDER, 1e6 + (double)j.id, 5e3, now, NULL, NULL) !=
        PASCAL_STORE_OK)
      _exit(5);
    if (write(fd, &j.id, sizeof j.id) != (ssize_t)sizeof j.id)
      _exit(6);
  }
  for (;;)
    pause(); /* everything uploaded: wait for the kill */
}

int main(void)
{
  fixture f;
  fixture_open(&f);
  int64_t cal = fixture_calibration(&f, JOBS, 0);
  pascal_store_close(f.s); /* no connection is carried across fork() */
  f.s = NULL;
  int fds[2];
  if (pipe(fds) != 0) {
    perror("pipe");
    return 2;
  }
  pid_t pid = fork();
  if (pid < 0) {
    perror("fork");
    return 2;
  }
  if (pid == 0) {
    close(fds[0]);
    child(f.path, fds[1]);
  }
  close(fds[1]);
  int64_t acked[JOBS];
  size_t nacked = 0;
  while (nacked < ACKS_BEFORE_KILL &&
         read(fds[0], &acked[nacked], sizeof acked[0]) == (ssize_t)sizeof acked[0])
    nacked++;
  kill(pid, SIGKILL);
  int wstatus = 0;
  waitpid(pid, &wstatus, 0);
  CHECK(WIFSIGNALED(wstatus) && WTERMSIG(wstatus) == SIGKILL);
  /* Acks the child wrote before it died are acknowledged uploads too. */
  while (nacked < JOBS && read(fds[0], &acked[nacked], sizeof acked[0]) == (ssize_t)sizeof acked[0])
    nacked++;
  close(fds[0]);
  CHECK(nacked >= ACKS_BEFORE_KILL);

  CHECK_INT(pascal_store_open(f.path, &f.s, NULL), PASCAL_STORE_OK);
  pascal_store_measurement *ms = NULL;
  size_t n = 0;
  CHECK_INT(pascal_store_measurement_list(f.s, cal, &ms, &n, NULL), PASCAL_STORE_OK);
  CHECK(n >= nacked);
  size_t found = 0;
  for (size_t a = 0; a < nacked; a++)
    for (size_t i = 0; i < n; i++)
      if (ms[i].job == acked[a] && ms[i].fill_bytes == 1e6 + (double)acked[a]) {
        found++;
        break;
      }
  CHECK_INT(found, nacked);
  free(ms);
  pascal_store_calibration c;
  CHECK_INT(pascal_store_calibration_get(f.s, cal, &c, NULL), PASCAL_STORE_OK);
  CHECK_INT(c.jobs[PASCAL_STORE_DONE], (int64_t)n);
  CHECK_INT(c.measurements, (int64_t)n);
  pascal_store_calibration_clear(&c);
  CHECK_INT(fixture_sql_int(&f, "SELECT count(*) FROM pragma_integrity_check"
                                " WHERE integrity_check <> 'ok'"),
            0);
  printf("acknowledged %zu uploads before SIGKILL, all %zu found after reopen\n", nacked, found);
  fixture_done(&f);
  return check_summary();
}
