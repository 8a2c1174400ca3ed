/* progress.c - progress, rate, ETA and their text (progress.h). */
#include "progress.h"

#include <math.h>
#include <stdio.h>

void agent_progress_update(agent_progress *p, long done, long total, double now_s)
{
  if (!p->started || done < p->base_done) {
    p->base_done = done;
    p->base_t = now_s;
    p->started = 1;
  }
  p->done = done;
  p->total = total;
  p->last_t = now_s;
}

double agent_progress_rate(const agent_progress *p)
{
  double dt = p->last_t - p->base_t;
  if (!p->started || dt <= 0.0 || p->done <= p->base_done)
    return 0.0;
  return (double)(p->done - p->base_done) / dt;
}

double agent_progress_eta(const agent_progress *p)
{
  if (p->started && p->done >= p->total)
    return 0.0;
  double rate = agent_progress_rate(p);
  if (rate <= 0.0)
    return -1.0;
  return (double)(p->total - p->done) / rate;
}

void agent_format_duration(double seconds, char *buf, size_t buflen)
{
  if (!(seconds >= 0.0) || seconds > 359999.0) {
    snprintf(buf, buflen, "--");
    return;
  }
  long s = lround(seconds);
  if (s >= 3600)
    snprintf(buf, buflen, "%ldh%02ldm", s / 3600, (s % 3600) / 60);
  else if (s >= 60)
    snprintf(buf, buflen, "%ldm%02lds", s / 60, s % 60);
  else
    snprintf(buf, buflen, "%lds", s);
}

void agent_progress_format(const agent_progress *p, char *buf, size_t buflen)
{
  char eta[16];
  agent_format_duration(agent_progress_eta(p), eta, sizeof eta);
  double pct = p->total > 0 ? 100.0 * (double)p->done / (double)p->total : 100.0;
  snprintf(buf, buflen, "%ld/%ld  %.1f%%  %.2f jobs/s  ETA %s", p->done, p->total, pct,
           agent_progress_rate(p), eta);
}
