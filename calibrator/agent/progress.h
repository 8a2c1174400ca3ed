/*
 * progress.h - calibration progress as the agent shows it: done/total from
 * the server (all agents' work counts, since done comes from the server),
 * the rate over a moving window of the last completions, the ETA, and the
 * one-line text. The window holds the moments jobs were seen to finish, so
 * the time before the first completion (backend start, a capacity scan) and
 * idle polls never enter the rate: the ETA converges to the remaining jobs
 * over the recent pace, and stays fixed once every run is measured. Pure:
 * the caller passes clock readings; unit-tested in
 * tests/agent/test_agent_progress.c.
 */
#ifndef PASCAL_AGENT_PROGRESS_H
#define PASCAL_AGENT_PROGRESS_H

#include <stddef.h>

#define AGENT_PROGRESS_WINDOW 16 /* completion points the rate is measured over */

typedef struct agent_progress {
  long done, total; /* last values the server reported */
  double last_t;    /* clock (s) of the last update */
  int started;      /* 0 until the first update */
  /* the last AGENT_PROGRESS_WINDOW points (clock, done) where done rose,
   * oldest at win_head when the ring is full */
  double win_t[AGENT_PROGRESS_WINDOW];
  long win_done[AGENT_PROGRESS_WINDOW];
  size_t win_n, win_head;
} agent_progress;

/* Record the server's done/total at time `now_s` (any monotonic clock);
 * `completion` is 1 when the update answers this agent's finished job. A
 * completion, or a rise of done seen otherwise (another agent's work), adds
 * a point to the window; done going backwards (a calibration froze and left
 * the collecting set) empties it. */
void agent_progress_update(agent_progress *p, long done, long total, double now_s, int completion);

/* Jobs per second over the window (at least two points); 0 when unknown. */
double agent_progress_rate(const agent_progress *p);

/* Seconds to completion at that rate; 0 once done == total; negative when
 * unknown. */
double agent_progress_eta(const agent_progress *p);

/* 1 when the server has jobs for the device and every one is done. */
int agent_progress_complete(const agent_progress *p);

/* "1h02m", "3m07s", "42s", or "--" for a negative (unknown) value. */
void agent_format_duration(double seconds, char *buf, size_t buflen);

/* "412/756  54.5%  1.92 jobs/s  ETA 2m59s"; "64/64  100.0%  all runs
 * measured" once complete; "--" for a rate not known yet. */
void agent_progress_format(const agent_progress *p, char *buf, size_t buflen);

#endif
