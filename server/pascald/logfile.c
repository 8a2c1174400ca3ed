/* logfile.c - stderr as an appended log file, reopened on SIGHUP (logfile.h). */
#include "logfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int pd_logfile_open(const char *path, char *msg, size_t msglen)
{
  int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0640);
  if (fd < 0) {
    snprintf(msg, msglen, "cannot open log file %s: %s", path, strerror(errno));
    return -1;
  }
  fflush(stderr);
  int rc = dup2(fd, STDERR_FILENO) < 0 ? -1 : 0;
  if (rc)
    snprintf(msg, msglen, "cannot make %s the log: %s", path, strerror(errno));
  close(fd);
  return rc;
}
