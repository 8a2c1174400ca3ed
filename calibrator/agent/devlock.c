/* devlock.c - the per-device profiling lock (devlock.h). */
#include "devlock.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

int agent_devlock_default_path(const char *backend, const char *profile, char *out, size_t len)
{
  const char *dir = getenv("TMPDIR");
  if (!dir || dir[0] != '/')
    dir = "/tmp";
  char id[32];
  /* The cuda profile is a device index; anything else (a sim profile path)
   * is reduced to its file name's safe characters. */
  const char *base = profile ? strrchr(profile, '/') : NULL;
  base = base ? base + 1 : profile ? profile : "0";
  size_t n = 0;
  for (; base[n] && n + 1 < sizeof id; n++)
    id[n] = strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-", base[n])
                ? base[n]
                : '_';
  id[n] = '\0';
  int w = snprintf(out, len, "%s/pascal-%s-%s.lock", dir, backend, id);
  return w < 0 || (size_t)w >= len ? -1 : 0;
}

int agent_devlock_acquire(const char *path, char *msg, size_t msglen)
{
  int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) {
    snprintf(msg, msglen, "cannot open the device lock %s: %s", path, strerror(errno));
    return -1;
  }
  if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
    int e = errno;
    char holder[32] = "";
    ssize_t r = pread(fd, holder, sizeof holder - 1, 0);
    holder[r > 0 ? (size_t)r : 0] = '\0';
    holder[strspn(holder, "0123456789")] = '\0';
    if (e == EWOULDBLOCK)
      snprintf(msg, msglen,
               "the device is being profiled by another process%s%s (lock %s); "
               "one process at a time profiles a GPU: wait for it or stop it",
               holder[0] ? ", pid " : "", holder, path);
    else
      snprintf(msg, msglen, "cannot lock %s: %s", path, strerror(e));
    close(fd);
    return -1;
  }
  char pid[32];
  int n = snprintf(pid, sizeof pid, "%ld\n", (long)getpid());
  /* Best effort: a failed write only loses the pid in others' messages. */
  if (ftruncate(fd, 0) == 0)
    (void)!pwrite(fd, pid, (size_t)n, 0);
  return fd;
}
