/*
 * logfile.h - pascald's log is its stderr: every line is written with
 * fprintf(stderr). With log_file set, stderr is that file, opened for
 * appending at start and again on SIGHUP, so that a log rotated away (renamed
 * by logrotate) is left for a new file of the same name without a restart.
 */
#ifndef PASCALD_LOGFILE_H
#define PASCALD_LOGFILE_H

#include <stddef.h>

/* Open `path` for appending (created 0640 if missing) and make it fd 2.
 * Returns 0, or -1 with the reason in msg; stderr is unchanged then. */
int pd_logfile_open(const char *path, char *msg, size_t msglen);

#endif
