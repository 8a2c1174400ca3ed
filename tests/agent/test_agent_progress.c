/* test_agent_progress.c - progress, rate, ETA and the progress line
 * (calibrator/agent/progress.c), on hand-worked clock readings. */
#include <string.h>

#include "check.h"
#include "progress.h"

static void test_durations(void)
{
  char b[16];
  struct {
    double s;
    const char *want;
  } cases[] = {{0, "0s"},       {42.4, "42s"}, {59.6, "1m00s"}, {187, "3m07s"},   {3600, "1h00m"},
               {3720, "1h02m"}, {-1, "--"},    {1e9, "--"},     {0.0 / 0.0, "--"}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    agent_format_duration(cases[i].s, b, sizeof b);
    CHECK(strcmp(b, cases[i].want) == 0);
  }
}

static void test_rate_and_eta(void)
{
  agent_progress p = {0};
  char line[160];
  agent_progress_update(&p, 12, 756, 100.0);
  CHECK_NEAR(agent_progress_rate(&p), 0.0, 0);
  CHECK(agent_progress_eta(&p) < 0);
  agent_progress_format(&p, line, sizeof line);
  CHECK(strcmp(line, "12/756  1.6%  0.00 jobs/s  ETA --") == 0);

  /* 40 jobs in 20 s: 2 jobs/s, 704 left -> 352 s = 5m52s */
  agent_progress_update(&p, 52, 756, 120.0);
  CHECK_NEAR(agent_progress_rate(&p), 2.0, 1e-12);
  CHECK_NEAR(agent_progress_eta(&p), 352.0, 1e-9);
  agent_progress_format(&p, line, sizeof line);
  CHECK(strcmp(line, "52/756  6.9%  2.00 jobs/s  ETA 5m52s") == 0);

  /* done going backwards (a calibration left the set) restarts the window */
  agent_progress_update(&p, 3, 64, 130.0);
  CHECK_NEAR(agent_progress_rate(&p), 0.0, 0);
  agent_progress_update(&p, 13, 64, 135.0);
  CHECK_NEAR(agent_progress_rate(&p), 2.0, 1e-12);
  CHECK_NEAR(agent_progress_eta(&p), 25.5, 1e-9);

  /* all done: ETA 0 even without a rate */
  agent_progress q = {0};
  agent_progress_update(&q, 64, 64, 5.0);
  CHECK_NEAR(agent_progress_eta(&q), 0.0, 0);
  agent_progress_format(&q, line, sizeof line);
  CHECK(strcmp(line, "64/64  100.0%  0.00 jobs/s  ETA 0s") == 0);
  /* nothing to do at all */
  agent_progress z = {0};
  agent_progress_update(&z, 0, 0, 1.0);
  agent_progress_format(&z, line, sizeof line);
  CHECK(strcmp(line, "0/0  100.0%  0.00 jobs/s  ETA 0s") == 0);
}

int main(void)
{
  test_durations();
  test_rate_and_eta();
  return check_summary();
}
