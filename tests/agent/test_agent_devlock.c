/*
 * test_agent_devlock.c - the per-device profiling lock (devlock.h): the
 * default file name per backend and device, a second holder refused with
 * the first one's pid while the first holds it, and the lock free again once
 * the first descriptor is closed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "devlock.h"

int main(void)
{
  char path[256], msg[512], want[64];
  setenv("TMPDIR", "/var/tmp", 1);
  CHECK_INT(agent_devlock_default_path("cuda", NULL, path, sizeof path), 0);
  CHECK(strcmp(path, "/var/tmp/pascal-cuda-0.lock") == 0);
  CHECK_INT(agent_devlock_default_path("cuda", "3", path, sizeof path), 0);
  CHECK(strcmp(path, "/var/tmp/pascal-cuda-3.lock") == 0);
  CHECK_INT(agent_devlock_default_path("sim", "/x/my dev.profile", path, sizeof path), 0);
  CHECK(strcmp(path, "/var/tmp/pascal-sim-my_dev.profile.lock") == 0);
  setenv("TMPDIR", "relative", 1); /* not absolute: ignored */
  CHECK_INT(agent_devlock_default_path("cuda", NULL, path, sizeof path), 0);
  CHECK(strcmp(path, "/tmp/pascal-cuda-0.lock") == 0);
  CHECK_INT(agent_devlock_default_path("cuda", NULL, path, 8), -1);

  char dir[] = "/tmp/pascal-devlock-XXXXXX";
  CHECK(mkdtemp(dir) != NULL);
  snprintf(path, sizeof path, "%s/dev.lock", dir);
  int first = agent_devlock_acquire(path, msg, sizeof msg);
  CHECK(first >= 0);
  /* flock locks belong to the open file: a second open is refused even in
   * the same process, as a second agent would be. */
  CHECK_INT(agent_devlock_acquire(path, msg, sizeof msg), -1);
  snprintf(want, sizeof want, "pid %ld", (long)getpid());
  CHECK(strstr(msg, want) != NULL);
  CHECK(strstr(msg, path) != NULL);
  close(first);
  int again = agent_devlock_acquire(path, msg, sizeof msg);
  CHECK(again >= 0);
  close(again);
  snprintf(path, sizeof path, "%s/missing/dev.lock", dir);
  CHECK_INT(agent_devlock_acquire(path, msg, sizeof msg), -1);
  CHECK(strstr(msg, "cannot open") != NULL);
  snprintf(path, sizeof path, "%s/dev.lock", dir);
  unlink(path);
  rmdir(dir);
  return check_summary();
}
