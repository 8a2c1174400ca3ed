/* test_agent_next_step.c - the lines pascal-agent prints once every run of
 * its device is measured (calibrator/agent/next_step.c): a freeze command
 * for each collecting calibration whose jobs are all done, and only for
 * those (frozen, failed and unfinished ones are not named); how to find
 * the ids when the list could not be read; a buffer too small is cut, never
 * overrun. */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "next_step.h"

static const char *const LIST =
    "{\"calibrations\":["
    "{\"id\":2,\"state\":\"frozen\",\"progress\":{\"done\":64,\"total\":64}},"
    "{\"id\":3,\"state\":\"collecting\",\"progress\":{\"done\":64,\"total\":64}},"
    "{\"id\":4,\"state\":\"collecting\",\"progress\":{\"done\":3,\"total\":30}},"
    "{\"id\":5,\"state\":\"failed\",\"progress\":{\"done\":9,\"total\":9}},"
    "{\"id\":7,\"state\":\"collecting\",\"progress\":{\"done\":12,\"total\":12}}]}";

static void test_ready_calibrations_named(void)
{
  json_t *doc = json_loads(LIST, 0, NULL);
  char buf[2048];
  CHECK_INT(agent_next_step_text(doc, "http://127.0.0.1:8080", "gpu-1", 76, buf, sizeof buf), 2);
  CHECK(strstr(buf, "all 76 runs of device 'gpu-1' are measured") == buf);
  CHECK(strstr(buf, "next step: freeze calibration 3 ") != NULL);
  CHECK(strstr(buf, "and freeze calibration 7 ") != NULL);
  CHECK(strstr(buf, "  curl -X POST -H \"Authorization: Bearer $ADMIN_TOKEN\" "
                    "http://127.0.0.1:8080/v1/calibrations/3/freeze\n") != NULL);
  CHECK(strstr(buf, "/v1/calibrations/7/freeze\n") != NULL);
  for (const char *other = "2459"; *other; other++) {
    char path[64];
    snprintf(path, sizeof path, "/v1/calibrations/%c/freeze", *other);
    CHECK(strstr(buf, path) == NULL);
  }
  json_decref(doc);
}

static void test_without_a_list(void)
{
  char buf[2048];
  CHECK_INT(agent_next_step_text(NULL, "https://h:1", "d", 5, buf, sizeof buf), 0);
  CHECK(strstr(buf, "https://h:1/v1/calibrations/ID/freeze\n") != NULL);
  CHECK(strstr(buf, "curl 'https://h:1/v1/calibrations?device=d'") != NULL);
  json_t *none = json_loads("{\"calibrations\":[]}", 0, NULL);
  CHECK_INT(agent_next_step_text(none, "https://h:1", "d", 5, buf, sizeof buf), 0);
  json_decref(none);
}

static void test_small_buffer(void)
{
  json_t *doc = json_loads(LIST, 0, NULL);
  char buf[40];
  memset(buf, 'x', sizeof buf);
  agent_next_step_text(doc, "http://127.0.0.1:8080", "gpu-1", 76, buf, 20);
  CHECK_INT(strlen(buf), 19);
  CHECK(buf[20] == 'x');
  json_decref(doc);
}

int main(void)
{
  test_ready_calibrations_named();
  test_without_a_list();
  test_small_buffer();
  return check_summary();
}
