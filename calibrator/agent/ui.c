/* ui.c - log lines and the progress line (ui.h). */
#include "ui.h"

#include <stdarg.h>
#include <stdio.h>
#include <time.h>

double agent_now_s(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int agent_ui_init(agent_ui *ui, const char *name, int tty)
{
  *ui = (agent_ui){.tty = tty, .name = name};
  return pthread_mutex_init(&ui->mu, NULL) == 0 ? 0 : -1;
}

void agent_ui_free(agent_ui *ui)
{
  if (ui->tty && ui->line_shown)
    fputs("\n", stdout);
  fflush(stdout);
  pthread_mutex_destroy(&ui->mu);
}

/* Caller holds ui->mu. */
static void clear_line(agent_ui *ui)
{
  if (ui->tty && ui->line_shown) {
    fputs("\r\033[K", stdout);
    fflush(stdout);
    ui->line_shown = 0;
  }
}

/* Caller holds ui->mu. */
static void draw_line(agent_ui *ui)
{
  char line[160];
  agent_progress_format(&ui->progress, line, sizeof line);
  printf("\r\033[K%s %s", ui->name, line);
  fflush(stdout);
  ui->line_shown = 1;
}

static void stamp(char *buf, size_t n)
{
  time_t t = time(NULL);
  struct tm tm;
  gmtime_r(&t, &tm);
  strftime(buf, n, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

void agent_ui_log(agent_ui *ui, const char *fmt, ...)
{
  char when[32];
  stamp(when, sizeof when);
  pthread_mutex_lock(&ui->mu);
  int redraw = ui->line_shown;
  clear_line(ui);
  fprintf(stderr, "%s %s ", when, ui->name);
  va_list ap;
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
  fflush(stderr);
  if (redraw)
    draw_line(ui);
  pthread_mutex_unlock(&ui->mu);
}

int agent_ui_first_complete(agent_ui *ui)
{
  pthread_mutex_lock(&ui->mu);
  int first = agent_progress_complete(&ui->progress) && !ui->announced;
  ui->announced |= first;
  pthread_mutex_unlock(&ui->mu);
  return first;
}

void agent_ui_announce(agent_ui *ui, const char *text)
{
  pthread_mutex_lock(&ui->mu);
  clear_line(ui);
  fputs(text, stdout);
  fflush(stdout);
  pthread_mutex_unlock(&ui->mu);
}

void agent_ui_progress(agent_ui *ui, long done, long total, const char *event)
{
  pthread_mutex_lock(&ui->mu);
  agent_progress_update(&ui->progress, done, total, agent_now_s(), event != NULL);
  if (!agent_progress_complete(&ui->progress))
    ui->announced = 0;
  if (ui->tty) {
    draw_line(ui);
  } else if (event) {
    char when[32], line[160];
    stamp(when, sizeof when);
    agent_progress_format(&ui->progress, line, sizeof line);
    printf("%s %s %s [%s]\n", when, ui->name, event, line);
    fflush(stdout);
  }
  pthread_mutex_unlock(&ui->mu);
}
