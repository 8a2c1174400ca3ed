/*
 * devlock.h - one process at a time profiles a GPU. Hardware counters
 * (CUPTI) and the L2 itself are shared by every process on the device, so a
 * second agent or probe on the same GPU would corrupt both measurements. The
 * lock is an advisory flock(2) on a file named after the device; the holder's
 * pid is written into it so that the second process can say who holds it.
 * The kernel drops the lock when the holder exits, even on a crash, so a
 * stale file never blocks anyone.
 */
#ifndef PASCAL_AGENT_DEVLOCK_H
#define PASCAL_AGENT_DEVLOCK_H

#include <stddef.h>

/* The default lock file of a backend's device: "<dir>/pascal-<backend>-<id>.lock"
 * with dir = $TMPDIR or /tmp and id = the profile (cuda: device index, NULL
 * meaning 0). Returns -1 when it does not fit `len`. */
int agent_devlock_default_path(const char *backend, const char *profile, char *out, size_t len);

/* Take the lock without waiting. Returns the open descriptor that holds it
 * (>= 0; close it, or exit, to release), or -1 with one line in `msg`: held by
 * another process (its pid named) or the file cannot be opened. */
int agent_devlock_acquire(const char *path, char *msg, size_t msglen);

#endif
