/*
 * args.c - parses and checks pascal-agent's command line (args.h). Options are
 * described once in a table; each kind of value (URL, name, count, seconds)
 * has one checker, so every option is validated the same way.
 */
#include "args.h"

#include "pascal_codec_jobs.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum opt_kind {
  OPT_URL,
  OPT_TEXT,
  OPT_NAME,
  OPT_BACKEND,
  OPT_COUNT,
  OPT_SECONDS,
  OPT_FLAG
} opt_kind;

typedef struct opt_spec {
  const char *name;
  opt_kind kind;
  size_t offset;     /* where the value goes in agent_args */
  unsigned long min; /* OPT_COUNT bounds */
  unsigned long max;
} opt_spec;

#define AT(field) offsetof(agent_args, field)

static const opt_spec OPTIONS[] = {
    {"server", OPT_URL, AT(server), 0, 0},
    {"token-file", OPT_TEXT, AT(token_file), 0, 0},
    {"device", OPT_NAME, AT(device), 0, 0},
    {"backend", OPT_BACKEND, AT(backend), 0, 0},
    {"profile", OPT_TEXT, AT(profile), 0, 0},
    {"name", OPT_NAME, AT(name), 0, 0},
    {"concurrency", OPT_COUNT, AT(concurrency), 1, 64},
    {"until-idle", OPT_FLAG, AT(until_idle), 0, 0},
    {"retries", OPT_COUNT, AT(retries), 0, 1000},
    {"backoff-base", OPT_SECONDS, AT(backoff_base_s), 0, 0},
    {"backoff-cap", OPT_SECONDS, AT(backoff_cap_s), 0, 0},
    {"poll", OPT_SECONDS, AT(poll_s), 0, 0},
    {"probe", OPT_FLAG, AT(probe), 0, 0},
    {"capacity-blocks", OPT_COUNT, AT(capacity_blocks), 1, 4294967295ul},
    {"lock", OPT_TEXT, AT(lock), 0, 0},
    {"static", OPT_FLAG, AT(static_exp), 0, 0},
    {"rounds", OPT_COUNT, AT(rounds), 1, 1000000},
};

static const char USAGE[] =
    "usage: pascal-agent --server URL --device NAME --backend sim|cuda [options]\n"
    "\n"
    "Takes calibration jobs for device NAME from pascald, runs them on the\n"
    "backend and uploads the measured fill bytes.\n"
    "\n"
    "  --server URL        pascald base URL, e.g. http://127.0.0.1:8080\n"
    "  --token-file FILE   file holding the bearer token (else env PASCAL_TOKEN);\n"
    "                      an admin token also registers the device\n"
    "  --device NAME       device name at the server ([A-Za-z0-9._-], <= 63 chars)\n"
    "  --backend sim|cuda  measurement backend\n"
    "  --profile FILE      backend profile (sim: device profile file;\n"
    "                      cuda: device index, default 0)\n"
    "  --name AGENT        agent name shown by the server (default HOST-PID)\n"
    "  --concurrency N     jobs run at once, 1..64 (default 1)\n"
    "  --until-idle        exit 0 once no job is left for the device\n"
    "  --retries N         retries after network errors and 5xx (default 10)\n"
    "  --backoff-base S    first retry delay in seconds (default 0.5)\n"
    "  --backoff-cap S     largest retry delay in seconds (default 30)\n"
    "  --poll S            wait between claims when idle, seconds (default 2)\n"
    "  --probe             print the device's constants (cuda: and its capacity\n"
    "                      scan, 3 repeats) and a 'probe json:' line, then exit\n"
    "                      (needs no server or token)\n"
    "  --capacity-blocks C the device's effective capacity from an earlier probe;\n"
    "                      default: the C pascald has registered, else (cuda)\n"
    "                      a capacity scan at start\n"
    "  --static           run the paper's static cluster experiment through the\n"
    "                      backend (M = SMs, N = 8192 blocks or more, until 4 KiB\n"
    "                      blocks overrun the L2; 4/8/16 KiB blocks, 11 cluster\n"
    "                      counts) and exit; give --capacity-blocks\n"
    "  --rounds H          rounds per static run (default 4000)\n"
    "  --lock FILE         device lock: one process profiles a GPU at a time\n"
    "                      (default for cuda: $TMPDIR/pascal-cuda-INDEX.lock)\n"
    "  --help              this text\n"
    "  --version           print the version and exit\n"
    "\n"
    "Exit codes: 0 ok, 1 internal failure, 2 usage, 3 token refused (401/403),\n"
    "4 device unknown or conflicting, 5 server unreachable after retries,\n"
    "6 backend unavailable, 7 protocol error (other 4xx).\n";

const char *agent_args_usage(void)
{
  return USAGE;
}

/* Write the one-line reason into msg; returns -1 for `return fail(...)`. */
static int fail(char *msg, size_t msglen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int fail(char *msg, size_t msglen, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, msglen, fmt, ap);
  va_end(ap);
  return -1;
}

/* Check one value and store it; -1 with `msg` set when it is bad. */
static int store_value(const opt_spec *o, const char *v, agent_args *out, char *msg, size_t msglen)
{
  char *slot = (char *)out + o->offset;
  switch (o->kind) {
  case OPT_URL: {
    size_t scheme = strncmp(v, "http://", 7) == 0 ? 7 : strncmp(v, "https://", 8) == 0 ? 8 : 0;
    size_t n = strlen(v);
    if (scheme == 0 || n > 400 || strpbrk(v, " \t\r\n") != NULL)
      return fail(msg, msglen, "--%s: '%s' is not an http:// or https:// URL", o->name, v);
    if (n == scheme)
      return fail(msg, msglen, "--%s: '%s' names no host", o->name, v);
    if (v[n - 1] == '/')
      return fail(msg, msglen, "--%s: '%s' must not end with '/'", o->name, v);
    break;
  }
  case OPT_TEXT:
    if (*v == '\0')
      return fail(msg, msglen, "--%s: empty value", o->name);
    break;
  case OPT_NAME:
    if (!pascal_codec_name_valid(v))
      return fail(msg, msglen, "--%s: '%s' must be 1-63 characters of A-Z a-z 0-9 . _ -", o->name,
                  v);
    break;
  case OPT_BACKEND:
    if (strcmp(v, "sim") != 0 && strcmp(v, "cuda") != 0)
      return fail(msg, msglen, "--%s: '%s' is not a backend (sim or cuda)", o->name, v);
    break;
  case OPT_COUNT: {
    char *end = NULL;
    errno = 0;
    unsigned long x = strtoul(v, &end, 10);
    if (errno != 0 || end == v || *end != '\0' || v[0] == '-' || v[0] == '+' || x < o->min ||
        x > o->max) {
      return fail(msg, msglen, "--%s: '%s' is not a whole number in %lu..%lu", o->name, v, o->min,
                  o->max);
    }
    *(unsigned *)(void *)slot = (unsigned)x;
    return 0;
  }
  case OPT_SECONDS: {
    char *end = NULL;
    errno = 0;
    double x = strtod(v, &end);
    if (errno != 0 || end == v || *end != '\0' || !isfinite(x) || x <= 0.0 || x > 86400.0)
      return fail(msg, msglen, "--%s: '%s' is not a number of seconds in (0, 86400]", o->name, v);
    *(double *)(void *)slot = x;
    return 0;
  }
  case OPT_FLAG: *(int *)(void *)slot = 1; return 0;
  }
  *(const char **)(void *)slot = v;
  return 0;
}

static const opt_spec *find_option(const char *name, size_t len)
{
  for (size_t i = 0; i < sizeof OPTIONS / sizeof OPTIONS[0]; i++)
    if (strlen(OPTIONS[i].name) == len && strncmp(OPTIONS[i].name, name, len) == 0)
      return &OPTIONS[i];
  return NULL;
}

agent_args_result agent_args_parse(int argc, char *const argv[], agent_args *out, char *msg,
                                   size_t msglen)
{
  agent_args a = {.backend = NULL,
                  .concurrency = 1,
                  .retries = 10,
                  .backoff_base_s = 0.5,
                  .backoff_cap_s = 30.0,
                  .poll_s = 2.0,
                  .rounds = 4000};
  for (int i = 1; i < argc; i++) {
    const char *arg = argv[i];
    if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0)
      return AGENT_ARGS_HELP;
    if (strcmp(arg, "--version") == 0)
      return AGENT_ARGS_VERSION;
    if (strncmp(arg, "--", 2) != 0) {
      fail(msg, msglen, "unexpected argument '%s'", arg);
      return AGENT_ARGS_ERROR;
    }
    const char *name = arg + 2;
    const char *eq = strchr(name, '=');
    size_t len = eq ? (size_t)(eq - name) : strlen(name);
    if (len == 5 && strncmp(name, "token", 5) == 0) {
      snprintf(msg, msglen,
               "--token is not accepted: a token on the command line shows in ps "
               "and shell history; use --token-file FILE or env PASCAL_TOKEN");
      return AGENT_ARGS_ERROR;
    }
    const opt_spec *o = find_option(name, len);
    if (!o) {
      snprintf(msg, msglen, "unknown option '--%.*s' (see --help)", (int)len, name);
      return AGENT_ARGS_ERROR;
    }
    const char *value;
    if (o->kind == OPT_FLAG) {
      if (eq) {
        fail(msg, msglen, "--%s takes no value", o->name);
        return AGENT_ARGS_ERROR;
      }
      value = "";
    } else if (eq) {
      value = eq + 1;
    } else if (i + 1 < argc) {
      value = argv[++i];
    } else {
      fail(msg, msglen, "--%s needs a value", o->name);
      return AGENT_ARGS_ERROR;
    }
    if (store_value(o, value, &a, msg, msglen) != 0)
      return AGENT_ARGS_ERROR;
  }
  static const struct {
    size_t offset;
    const char *name;
  } required[] = {{AT(backend), "--backend"}, {AT(server), "--server"}, {AT(device), "--device"}};
  /* --probe and --static talk to the device only: just the backend is required. */
  size_t n_required = a.probe || a.static_exp ? 1 : sizeof required / sizeof required[0];
  for (size_t i = 0; i < n_required; i++) {
    if (*(const char *const *)(const void *)((const char *)&a + required[i].offset) == NULL) {
      fail(msg, msglen, "%s is required (see --help)", required[i].name);
      return AGENT_ARGS_ERROR;
    }
  }
  if (a.backoff_cap_s < a.backoff_base_s) {
    snprintf(msg, msglen, "--backoff-cap (%g s) must not be below --backoff-base (%g s)",
             a.backoff_cap_s, a.backoff_base_s);
    return AGENT_ARGS_ERROR;
  }
  *out = a;
  return AGENT_ARGS_OK;
}
