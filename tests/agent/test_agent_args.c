/* test_agent_args.c - pascal-agent's command line (calibrator/agent/args.c):
 * defaults, both option spellings, every rejection names its option, and a
 * token is never accepted on the command line. */
#include <string.h>

#include "args.h"
#include "check.h"

static agent_args_result parse(agent_args *a, char *msg, int argc, char **argv)
{
  msg[0] = '\0';
  return agent_args_parse(argc, argv, a, msg, 256);
}

#define ARGV(...)          ((char *[]){"pascal-agent", __VA_ARGS__})
#define ARGC(...)          ((int)(sizeof((char *[]){"pascal-agent", __VA_ARGS__}) / sizeof(char *)))
#define PARSE(a, msg, ...) parse(a, msg, ARGC(__VA_ARGS__), ARGV(__VA_ARGS__))

static void test_defaults_and_forms(void)
{
  agent_args a;
  char msg[256];
  CHECK_INT(
      PARSE(&a, msg, "--server", "http://127.0.0.1:8080", "--device", "gb10", "--backend", "sim"),
      AGENT_ARGS_OK);
  CHECK(strcmp(a.server, "http://127.0.0.1:8080") == 0);
  CHECK(strcmp(a.device, "gb10") == 0 && strcmp(a.backend, "sim") == 0);
  CHECK(a.token_file == NULL && a.profile == NULL && a.name == NULL);
  CHECK_INT(a.concurrency, 1);
  CHECK_INT(a.until_idle, 0);
  CHECK_INT(a.retries, 10);
  CHECK_NEAR(a.backoff_base_s, 0.5, 0);
  CHECK_NEAR(a.backoff_cap_s, 30.0, 0);
  CHECK_NEAR(a.poll_s, 2.0, 0);

  CHECK_INT(PARSE(&a, msg, "--server=https://pascal.example:443", "--device=thor.0",
                  "--backend=cuda", "--token-file", "/etc/tok", "--profile=p.profile", "--name",
                  "host-1", "--concurrency=4", "--until-idle", "--retries", "0", "--backoff-base",
                  "0.05", "--backoff-cap=2", "--poll=0.2"),
            AGENT_ARGS_OK);
  CHECK(strcmp(a.server, "https://pascal.example:443") == 0);
  CHECK(strcmp(a.device, "thor.0") == 0 && strcmp(a.backend, "cuda") == 0);
  CHECK(strcmp(a.token_file, "/etc/tok") == 0 && strcmp(a.profile, "p.profile") == 0);
  CHECK(strcmp(a.name, "host-1") == 0);
  CHECK_INT(a.concurrency, 4);
  CHECK_INT(a.until_idle, 1);
  CHECK_INT(a.retries, 0);
  CHECK_NEAR(a.backoff_base_s, 0.05, 0);
  CHECK_NEAR(a.backoff_cap_s, 2.0, 0);
  CHECK_NEAR(a.poll_s, 0.2, 0);

  /* --probe needs only the (cuda) backend: no server, device or token */
  CHECK_INT(PARSE(&a, msg, "--probe", "--backend", "cuda"), AGENT_ARGS_OK);
  CHECK_INT(a.probe, 1);
  CHECK_INT(PARSE(&a, msg, "--probe", "--backend", "sim", "--capacity-blocks", "4294967295",
                  "--lock", "/tmp/x.lock"),
            AGENT_ARGS_OK);
  CHECK_INT(a.capacity_blocks, 4294967295u);
  CHECK(a.lock && strcmp(a.lock, "/tmp/x.lock") == 0);
  CHECK(a.server == NULL && a.device == NULL);

  CHECK_INT(PARSE(&a, msg, "--help"), AGENT_ARGS_HELP);
  CHECK_INT(PARSE(&a, msg, "--version"), AGENT_ARGS_VERSION);
  CHECK_INT(PARSE(&a, msg, "--server", "http://x", "--version"), AGENT_ARGS_VERSION);
  CHECK(strstr(agent_args_usage(), "--version") != NULL);
  CHECK(strstr(agent_args_usage(), "--until-idle") != NULL);
}

/* Each bad command line is refused and the message names the culprit. */
static void test_rejections(void)
{
  struct {
    int argc;
    char **argv;
    const char *needle;
  } cases[] = {
      {ARGC("--device", "x", "--backend", "sim"), ARGV("--device", "x", "--backend", "sim"),
       "--server"},
      {ARGC("--server", "http://h", "--backend", "sim"),
       ARGV("--server", "http://h", "--backend", "sim"), "--device"},
      {ARGC("--server", "http://h", "--device", "x"), ARGV("--server", "http://h", "--device", "x"),
       "--backend"},
      {ARGC("--server", "ftp://h"), ARGV("--server", "ftp://h"), "--server"},
      {ARGC("--server", "http://"), ARGV("--server", "http://"), "no host"},
      {ARGC("--server", "http://h/"), ARGV("--server", "http://h/"), "end with"},
      {ARGC("--backend", "opencl"), ARGV("--backend", "opencl"), "--backend"},
      {ARGC("--device", "bad name"), ARGV("--device", "bad name"), "--device"},
      {ARGC("--device", ""), ARGV("--device", ""), "--device"},
      {ARGC("--concurrency", "0"), ARGV("--concurrency", "0"), "--concurrency"},
      {ARGC("--concurrency", "65"), ARGV("--concurrency", "65"), "--concurrency"},
      {ARGC("--concurrency", "2x"), ARGV("--concurrency", "2x"), "--concurrency"},
      {ARGC("--retries", "-1"), ARGV("--retries", "-1"), "--retries"},
      {ARGC("--poll", "0"), ARGV("--poll", "0"), "--poll"},
      {ARGC("--poll", "nan"), ARGV("--poll", "nan"), "--poll"},
      {ARGC("--backoff-base", "inf"), ARGV("--backoff-base", "inf"), "--backoff-base"},
      {ARGC("--server", "http://h", "--device", "x", "--backend", "sim", "--backoff-base", "5",
            "--backoff-cap", "1"),
       ARGV("--server", "http://h", "--device", "x", "--backend", "sim", "--backoff-base", "5",
            "--backoff-cap", "1"),
       "--backoff-cap"},
      {ARGC("--until-idle=1"), ARGV("--until-idle=1"), "--until-idle"},
      {ARGC("--profile"), ARGV("--profile"), "--profile"},
      {ARGC("--frobnicate"), ARGV("--frobnicate"), "--frobnicate"},
      {ARGC("stray"), ARGV("stray"), "stray"},
      {ARGC("--capacity-blocks", "0"), ARGV("--capacity-blocks", "0"), "--capacity-blocks"},
      {ARGC("--lock="), ARGV("--lock="), "--lock"},
      {ARGC("--probe"), ARGV("--probe"), "--backend"},
      {ARGC("--token", "secret"), ARGV("--token", "secret"), "--token-file"},
      {ARGC("--token=secret"), ARGV("--token=secret"), "PASCAL_TOKEN"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    agent_args a;
    char msg[256];
    CHECK_INT(parse(&a, msg, cases[i].argc, cases[i].argv), AGENT_ARGS_ERROR);
    CHECK(strstr(msg, cases[i].needle) != NULL);
    if (!strstr(msg, cases[i].needle))
      check_record(0, __FILE__, __LINE__, msg);
  }
}

int main(void)
{
  test_defaults_and_forms();
  test_rejections();
  return check_summary();
}
