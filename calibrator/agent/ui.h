/*
 * ui.h - what pascal-agent writes: log lines on stderr (timestamped, with the
 * agent name) and the calibration progress. On a terminal the progress is one
 * line on stdout redrawn in place ("\r"); when stdout is not a terminal each
 * finished job is one plain log line with done/total, rate and ETA instead.
 * Thread-safe: workers share one agent_ui.
 */
#ifndef PASCAL_AGENT_UI_H
#define PASCAL_AGENT_UI_H

#include <pthread.h>

#include "progress.h"

typedef struct agent_ui {
  pthread_mutex_t mu;
  int tty;          /* stdout is a terminal: redraw one progress line */
  int line_shown;   /* a progress line is on the terminal now */
  int announced;    /* the next step was said for the current completion */
  const char *name; /* agent name, borrowed */
  agent_progress progress;
} agent_ui;

int agent_ui_init(agent_ui *ui, const char *name, int tty);
void agent_ui_free(agent_ui *ui);

/* One log line on stderr: "2026-11-21T09:00:00Z NAME message". */
void agent_ui_log(agent_ui *ui, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Record the server's progress; `event` (may be NULL) says what happened
 * ("job 7 done ..."): a finished job of this agent, which times the rate
 * (progress.h); it is logged with the progress when not on a terminal. */
void agent_ui_progress(agent_ui *ui, long done, long total, const char *event);

/* 1 for the first caller after the device's jobs became all done (until
 * they are not again, e.g. a new calibration): that caller says the next
 * step (agent_ui_announce). 0 otherwise. */
int agent_ui_first_complete(agent_ui *ui);

/* Lines (each ending in '\n') on stdout, below the progress. */
void agent_ui_announce(agent_ui *ui, const char *text);

/* Monotonic clock in seconds. */
double agent_now_s(void);

#endif
