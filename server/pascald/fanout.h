/*
 * fanout.h - run k independent jobs of one request at once: job 0 on the
 * calling thread, jobs 1..k-1 on threads of their own, all joined before
 * pd_fanout() returns. A job whose thread cannot be started runs on the
 * calling thread after the others were started, so every job runs exactly
 * once whatever the system allows. The two parallel paths of pascald use
 * it: the slices of a large JSON body (jsonpar.c) and the slices of a batch
 * of predictions (predict_batch.c). Jobs share nothing the caller did not
 * give them; the join publishes what they wrote.
 */
#ifndef PASCALD_FANOUT_H
#define PASCALD_FANOUT_H

#include <stddef.h>

/* At most this many jobs per call (k is clamped to it). */
#define PD_FANOUT_MAX 16

/* Run fn(jobs + j * stride) for j in [0, k). */
void pd_fanout(size_t k, void *(*fn)(void *), void *jobs, size_t stride);

#endif
