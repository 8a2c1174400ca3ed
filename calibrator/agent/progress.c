/* progress.c - progress, the windowed rate, the ETA and their text (progress.h). */
#include "progress.h"

#include <math.h>
#include <stdio.h>

/* The window's i-th point, 0 the oldest. */
static size_t win_at(const agent_progress *p, size_t i)
{
  return (p->win_head + i) % AGENT_PROGRESS_WINDOW;
}

static void win_push(agent_progress *p, double t, long done)
{
  size_t slot = win_at(p, p->win_n);
  if (p->win_n == AGENT_PROGRESS_WINDOW) { /* full: the oldest point leaves */
    slot = p->win_head;
    p->win_head = (p->win_head + 1) % AGENT_PROGRESS_WINDOW;
  } else {
    p->win_n++;
  }
  p->win_t[slot] = t;
  p->win_done[slot] = done;
}

void agent_progress_update(agent_progress *p, long done, long total, double now_s, int completion)
{
  if (p->started && done < p->done)
    p->win_n = p->win_head = 0;
  else if (completion || (p->started && done > p->done))
    win_push(p, now_s, done);
  p->started = 1;
  p->done = done;
  p->total = total;
  p->last_t = now_s;
}

double agent_progress_rate(const agent_progress *p)
{
  if (p->win_n < 2)
    return 0.0;
  size_t a = win_at(p, 0), b = win_at(p, p->win_n - 1);
  double dt = p->win_t[b] - p->win_t[a];
  return dt > 0.0 ? (double)(p->win_done[b] - p->win_done[a]) / dt : 0.0;
}

int agent_progress_complete(const agent_progress *p)
{
  return p->started && p->total > 0 && p->done >= p->total;
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
  if (seconds > 0.0 && s == 0)
    snprintf(buf, buflen, "<1s");
  else if (s >= 3600)
    snprintf(buf, buflen, "%ldh%02ldm", s / 3600, (s % 3600) / 60);
  else if (s >= 60)
    snprintf(buf, buflen, "%ldm%02lds", s / 60, s % 60);
  else
    snprintf(buf, buflen, "%lds", s);
}

void agent_progress_format(const agent_progress *p, char *buf, size_t buflen)
{
  double pct = p->total > 0 ? 100.0 * (double)p->done / (double)p->total : 100.0;
  if (agent_progress_complete(p)) {
    snprintf(buf, buflen, "%ld/%ld  %.1f%%  all runs measured", p->done, p->total, pct);
    return;
  }
  if (p->total <= 0) {
    snprintf(buf, buflen, "0/0  no job for the device");
    return;
  }
  char eta[16], rate[24] = "--";
  agent_format_duration(agent_progress_eta(p), eta, sizeof eta);
  if (agent_progress_rate(p) > 0.0)
    snprintf(rate, sizeof rate, "%.2f", agent_progress_rate(p));
  snprintf(buf, buflen, "%ld/%ld  %.1f%%  %s jobs/s  ETA %s", p->done, p->total, pct, rate, eta);
}
