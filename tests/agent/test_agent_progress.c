/* test_agent_progress.c - progress, the windowed rate, the ETA and the
 * progress line (calibrator/agent/progress.c), on hand-worked clock
 * readings and a timeline whose true remaining time is known. Verified to
 * fail with the former rate (measured from the agent's start): the ETA
 * after the second job was 24x the truth. */
#include <math.h>
#include <string.h>

#include "check.h"
#include "progress.h"

static void test_durations(void)
{
  char b[16];
  struct {
    double s;
    const char *want;
  } cases[] = {{0, "0s"},       {42.4, "42s"}, {59.6, "1m00s"}, {187, "3m07s"},    {3600, "1h00m"},
               {3720, "1h02m"}, {-1, "--"},    {1e9, "--"},     {0.0 / 0.0, "--"}, {0.3, "<1s"}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    agent_format_duration(cases[i].s, b, sizeof b);
    CHECK(strcmp(b, cases[i].want) == 0);
  }
}

static void test_rate_and_eta(void)
{
  agent_progress p = {0};
  char line[160];
  agent_progress_update(&p, 12, 756, 100.0, 0);
  CHECK_NEAR(agent_progress_rate(&p), 0.0, 0);
  CHECK(agent_progress_eta(&p) < 0);
  agent_progress_format(&p, line, sizeof line);
  CHECK(strcmp(line, "12/756  1.6%  -- jobs/s  ETA --") == 0);
  /* one rise is one point: still no rate */
  agent_progress_update(&p, 32, 756, 110.0, 0);
  CHECK(agent_progress_eta(&p) < 0);
  /* 20 more jobs in 10 s: 2 jobs/s between the two points, 704 left -> 352 s */
  agent_progress_update(&p, 52, 756, 120.0, 0);
  CHECK_NEAR(agent_progress_rate(&p), 2.0, 1e-12);
  CHECK_NEAR(agent_progress_eta(&p), 352.0, 1e-9);
  agent_progress_format(&p, line, sizeof line);
  CHECK(strcmp(line, "52/756  6.9%  2.00 jobs/s  ETA 5m52s") == 0);
  /* polls without progress change nothing */
  agent_progress_update(&p, 52, 756, 150.0, 0);
  CHECK_NEAR(agent_progress_rate(&p), 2.0, 1e-12);

  /* done going backwards (a calibration left the set) empties the window */
  agent_progress_update(&p, 3, 64, 160.0, 0);
  CHECK_NEAR(agent_progress_rate(&p), 0.0, 0);
  agent_progress_update(&p, 8, 64, 162.0, 0);
  agent_progress_update(&p, 13, 64, 167.0, 0);
  CHECK_NEAR(agent_progress_rate(&p), 1.0, 1e-12);
  CHECK_NEAR(agent_progress_eta(&p), 51.0, 1e-9);

  /* a job of this agent that failed (done unchanged) is a point too: the
   * time it took counts, the rate drops: 5 jobs over 5 s + 5 s */
  agent_progress_update(&p, 13, 64, 172.0, 1);
  CHECK_NEAR(agent_progress_rate(&p), 0.5, 1e-12);

  /* all done: ETA 0, a line that says so, no rate to decay */
  agent_progress q = {0};
  agent_progress_update(&q, 64, 64, 5.0, 0);
  CHECK(agent_progress_complete(&q));
  CHECK_NEAR(agent_progress_eta(&q), 0.0, 0);
  agent_progress_format(&q, line, sizeof line);
  CHECK(strcmp(line, "64/64  100.0%  all runs measured") == 0);
  /* nothing to do at all is not "complete" */
  agent_progress z = {0};
  agent_progress_update(&z, 0, 0, 1.0, 0);
  CHECK(!agent_progress_complete(&z));
  agent_progress_format(&z, line, sizeof line);
  CHECK(strcmp(line, "0/0  no job for the device") == 0);
}

/* The case that motivated the window: a 64-job plan whose first job comes
 * 20 s after the agent starts (backend start) and whose jobs then take
 * 0.4 s each, +-25 % (a fixed pattern). The ETA after the second job is
 * within 30 % of the true remaining time and within 10 % after ten, every
 * later one too; a rate measured from the agent's start (the former
 * estimate) is off by more than 20x at the second job. After the last job
 * the line says all runs are measured, and later polls leave it so. */
static void test_eta_converges(void)
{
  static const double jitter[] = {1.0, 1.25, 0.8, 1.1, 0.75, 1.2, 0.9, 1.05};
  double t[65];
  t[0] = 0.0;
  t[1] = 20.0;
  for (int k = 2; k <= 64; k++)
    t[k] = t[k - 1] + 0.4 * jitter[k % 8];
  agent_progress p = {0};
  agent_progress_update(&p, 0, 64, t[0], 0);
  for (int k = 1; k <= 64; k++) {
    agent_progress_update(&p, k, 64, t[k], 1);
    double truth = t[64] - t[k], eta = agent_progress_eta(&p);
    if (k == 1)
      CHECK(eta < 0); /* one point: unknown, not a wild guess */
    if (k >= 2 && k < 64)
      CHECK(fabs(eta - truth) <= (k >= 10 ? 0.10 : 0.30) * truth);
    if (k == 2) {
      double from_start = (64 - k) / (k / (t[k] - t[0]));
      CHECK(from_start > 20.0 * truth);
    }
  }
  CHECK(agent_progress_complete(&p));
  agent_progress_update(&p, 64, 64, t[64] + 600.0, 0);
  char line[160];
  agent_progress_format(&p, line, sizeof line);
  CHECK(strcmp(line, "64/64  100.0%  all runs measured") == 0);
}

int main(void)
{
  test_durations();
  test_rate_and_eta();
  test_eta_converges();
  return check_summary();
}
