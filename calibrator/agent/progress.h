/*
 * progress.h - calibration progress as the agent shows it: done/total from
 * the server, a rate measured since the agent started watching (all agents'
 * work counts, since done comes from the server), the ETA, and the one-line
 * text. Pure: the caller passes clock readings; unit-tested in
 * tests/agent/test_agent_progress.c.
 */
#ifndef PASCAL_AGENT_PROGRESS_H
#define PASCAL_AGENT_PROGRESS_H

#include <stddef.h>

typedef struct agent_progress {
  long done, total; /* last values the server reported */
  long base_done;   /* done when the rate window started */
  double base_t;    /* clock (s) when the rate window started */
  double last_t;    /* clock (s) of the last update */
  int started;      /* 0 until the first update */
} agent_progress;

/* Record the server's done/total at time `now_s` (any monotonic clock).
 * The rate window restarts when done goes backwards (a calibration froze and
 * left the collecting set) or on the first update. */
void agent_progress_update(agent_progress *p, long done, long total, double now_s);

/* Jobs per second since the window started; 0 when unknown. */
double agent_progress_rate(const agent_progress *p);

/* Seconds to completion at the current rate; negative when unknown. */
double agent_progress_eta(const agent_progress *p);

/* "1h02m", "3m07s", "42s", or "--" for a negative (unknown) value. */
void agent_format_duration(double seconds, char *buf, size_t buflen);

/* "  412/756  54.5%  1.92 jobs/s  ETA 2m59s" */
void agent_progress_format(const agent_progress *p, char *buf, size_t buflen);

#endif
