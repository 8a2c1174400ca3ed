/*
 * config.c - resolve pascald's configuration from defaults, an optional
 * config file, PASCAL_* environment variables and flags, validating each value.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cors.h"
#include "replica.h"

static const char *const config_keys[] = {"listen",
                                          "db",
                                          "bundles",
                                          "lease_seconds",
                                          "max_attempts",
                                          "threads",
                                          "connection_limit",
                                          "connection_timeout",
                                          "body_max",
                                          "batch_max",
                                          "auth_reads",
                                          "cors_origins",
                                          "cors_max_age",
                                          "request_deadline",
                                          "connection_limit_per_ip",
                                          "read_only",
                                          "replica_of",
                                          "replica_interval",
                                          "log_file",
                                          "job_time_limit",
                                          "agents_per_token",
                                          NULL};

void pd_config_defaults(pd_config *cfg)
{
  memset(cfg, 0, sizeof *cfg);
  snprintf(cfg->listen_host, sizeof cfg->listen_host, "127.0.0.1");
  cfg->listen_port = 8080;
  snprintf(cfg->db_path, sizeof cfg->db_path, "./var/pascal.db");
  struct stat st;
  /* Bundles ship in <prefix>/share/pascal/calibrations once installed; a
   * binary in the build tree uses the source checkout's deploy/calibrations. */
  const char *bundles = stat(PASCALD_INSTALLED_BUNDLES, &st) == 0 && S_ISDIR(st.st_mode)
                            ? PASCALD_INSTALLED_BUNDLES
                            : PASCALD_SOURCE_BUNDLES;
  snprintf(cfg->bundles_dir, sizeof cfg->bundles_dir, "%s", bundles);
  cfg->lease_seconds = 60;
  cfg->max_attempts = 3;
  cfg->threads = 0;
  cfg->connection_limit = 512;
  cfg->connection_timeout_s = 30;
  cfg->request_deadline_s = 30;
  cfg->connection_limit_per_ip = 64;
  /* libmicrohttpd clears half of it between two requests of a connection:
   * 64 KiB instead of 128 cut the CPU per GET /v1/predict by about a fifth
   * (docs/http-api.md, "Limits"), and still holds a 900-parameter query. */
  cfg->connection_memory = 64 * 1024;
  cfg->body_max = 1024 * 1024;
  cfg->batch_max = 10000;
  cfg->json_depth_max = 32;
  cfg->auth_reads = 0;
  cfg->cors_origins[0] = '\0';
  cfg->cors_max_age = 600;
  cfg->replica_interval_s = 5;
  cfg->job_time_limit_s = 3600;
  cfg->agents_per_token = 256;
}

static int parse_uint(const char *v, unsigned long lo, unsigned long hi, unsigned long *out)
{
  if (!v || !*v || !isdigit((unsigned char)*v))
    return -1;
  errno = 0;
  char *end = NULL;
  unsigned long x = strtoul(v, &end, 10);
  if (errno || *end || x < lo || x > hi)
    return -1;
  *out = x;
  return 0;
}

static int parse_listen(pd_config *cfg, const char *v)
{
  const char *colon = strrchr(v, ':');
  if (!colon || colon == v)
    return -1;
  size_t hl = (size_t)(colon - v);
  const char *h = v;
  if (h[0] == '[' && hl >= 2 && h[hl - 1] == ']') {
    h++;
    hl -= 2;
  } /* [::1]:8080 */
  if (hl == 0 || hl >= sizeof cfg->listen_host)
    return -1;
  unsigned long port;
  if (parse_uint(colon + 1, 0, 65535, &port))
    return -1;
  memcpy(cfg->listen_host, h, hl);
  cfg->listen_host[hl] = '\0';
  cfg->listen_port = (unsigned)port;
  return 0;
}

static int parse_bool(const char *v, int *out)
{
  if (!strcmp(v, "1") || !strcmp(v, "true") || !strcmp(v, "yes") || !strcmp(v, "on"))
    *out = 1;
  else if (!strcmp(v, "0") || !strcmp(v, "false") || !strcmp(v, "no") || !strcmp(v, "off"))
    *out = 0;
  else
    return -1;
  return 0;
}

/* Apply one option; returns 0 or -1 with a message in msg. */
static int config_set(pd_config *cfg, const char *key, const char *value, char *msg, size_t msglen)
{
  unsigned long x;
  int ok = -1;
  if (!strcmp(key, "listen"))
    ok = parse_listen(cfg, value);
  else if (!strcmp(key, "db"))
    ok = (*value && strlen(value) < sizeof cfg->db_path)
             ? (snprintf(cfg->db_path, sizeof cfg->db_path, "%s", value), 0)
             : -1;
  else if (!strcmp(key, "bundles"))
    ok = strlen(value) < sizeof cfg->bundles_dir
             ? (snprintf(cfg->bundles_dir, sizeof cfg->bundles_dir, "%s", value), 0)
             : -1;
  else if (!strcmp(key, "lease_seconds"))
    ok = parse_uint(value, 1, 86400, &x) ? -1 : (cfg->lease_seconds = (unsigned)x, 0);
  else if (!strcmp(key, "max_attempts"))
    ok = parse_uint(value, 1, 100, &x) ? -1 : (cfg->max_attempts = (unsigned)x, 0);
  else if (!strcmp(key, "threads"))
    ok = parse_uint(value, 0, 256, &x) ? -1 : (cfg->threads = (unsigned)x, 0);
  else if (!strcmp(key, "connection_limit"))
    ok = parse_uint(value, 1, 100000, &x) ? -1 : (cfg->connection_limit = (unsigned)x, 0);
  else if (!strcmp(key, "connection_timeout"))
    ok = parse_uint(value, 1, 3600, &x) ? -1 : (cfg->connection_timeout_s = (unsigned)x, 0);
  else if (!strcmp(key, "request_deadline"))
    ok = parse_uint(value, 1, 3600, &x) ? -1 : (cfg->request_deadline_s = (unsigned)x, 0);
  else if (!strcmp(key, "connection_limit_per_ip"))
    ok = parse_uint(value, 0, 100000, &x) ? -1 : (cfg->connection_limit_per_ip = (unsigned)x, 0);
  else if (!strcmp(key, "body_max"))
    ok = parse_uint(value, 1024, 256ul << 20, &x) ? -1 : (cfg->body_max = x, 0);
  else if (!strcmp(key, "batch_max"))
    ok = parse_uint(value, 1, 1000000, &x) ? -1 : (cfg->batch_max = x, 0);
  else if (!strcmp(key, "auth_reads"))
    ok = parse_bool(value, &cfg->auth_reads);
  else if (!strcmp(key, "cors_max_age"))
    ok = parse_uint(value, 0, 86400, &x) ? -1 : (cfg->cors_max_age = (unsigned)x, 0);
  else if (!strcmp(key, "replica_of"))
    ok = pd_replica_url_set(cfg->replica_of, sizeof cfg->replica_of, value);
  else if (!strcmp(key, "job_time_limit"))
    ok = parse_uint(value, 0, 2592000, &x) ? -1 : (cfg->job_time_limit_s = (unsigned)x, 0);
  else if (!strcmp(key, "agents_per_token"))
    ok = parse_uint(value, 1, 100000, &x) ? -1 : (cfg->agents_per_token = (unsigned)x, 0);
  else if (!strcmp(key, "log_file"))
    ok = strlen(value) < sizeof cfg->log_file
             ? (snprintf(cfg->log_file, sizeof cfg->log_file, "%s", value), 0)
             : -1;
  else if (!strcmp(key, "replica_interval"))
    ok = parse_uint(value, 1, 86400, &x) ? -1 : (cfg->replica_interval_s = (unsigned)x, 0);
  else if (!strcmp(key, "cors_origins")) {
    char list[sizeof cfg->cors_origins], why[256];
    if (pd_cors_parse_origins(value, list, sizeof list, why, sizeof why)) {
      snprintf(msg, msglen, "invalid value for cors_origins: %s", why);
      return -1;
    }
    memcpy(cfg->cors_origins, list, sizeof list);
    return 0;
  } else if (!strcmp(key, "read_only"))
    ok = parse_bool(value, &cfg->read_only);
  else {
    snprintf(msg, msglen, "unknown option '%s'", key);
    return -1;
  }
  if (ok)
    snprintf(msg, msglen, "invalid value '%s' for %s", value, key);
  return ok;
}

static char *trim(char *s)
{
  while (isspace((unsigned char)*s))
    s++;
  char *e = s + strlen(s);
  while (e > s && isspace((unsigned char)e[-1]))
    *--e = '\0';
  return s;
}

static int load_file(pd_config *cfg, const char *path, char *msg, size_t msglen)
{
  FILE *f = fopen(path, "r");
  if (!f) {
    snprintf(msg, msglen, "cannot open config file %s: %s", path, strerror(errno));
    return -1;
  }
  char line[8192], inner[7900];
  int lineno = 0, rc = 0;
  while (rc == 0 && fgets(line, sizeof line, f)) {
    lineno++;
    /* A longer line would be read in pieces, its tail taken as a line of its
     * own (even the tail of a comment): refuse it instead. */
    int next = strchr(line, '\n') ? EOF : getc(f);
    if (next != EOF) {
      snprintf(msg, msglen, "%s:%d: line longer than %zu characters", path, lineno,
               sizeof line - 2);
      rc = -1;
      break;
    }
    char *hash = strchr(line, '#');
    if (hash)
      *hash = '\0';
    char *s = trim(line);
    if (!*s)
      continue;
    char *eq = strchr(s, '=');
    if (!eq) {
      snprintf(msg, msglen, "%s:%d: expected key = value", path, lineno);
      rc = -1;
      break;
    }
    *eq = '\0';
    char *key = trim(s), *val = trim(eq + 1);
    size_t vl = strlen(val);
    if (vl >= 2 && val[0] == '"' && val[vl - 1] == '"') {
      val[vl - 1] = '\0';
      val++;
    }
    if (config_set(cfg, key, val, inner, sizeof inner)) {
      snprintf(msg, msglen, "%s:%d: %s", path, lineno, inner);
      rc = -1;
    }
  }
  fclose(f);
  return rc;
}

static int load_env(pd_config *cfg, char *msg, size_t msglen)
{
  for (size_t i = 0; config_keys[i]; i++) {
    char name[64] = "PASCAL_";
    size_t n = strlen(name);
    for (const char *k = config_keys[i]; *k && n + 1 < sizeof name; k++)
      name[n++] = (char)toupper((unsigned char)*k);
    name[n] = '\0';
    const char *v = getenv(name);
    if (v && config_set(cfg, config_keys[i], v, msg, msglen))
      return -1;
  }
  return 0;
}

/* Split "--key=value" / "--key value" into key (with '_') and value. Flags
 * without value: --auth-reads, --read-only. Returns the number of argv slots
 * used or -1. */
static int flag_at(int argc, char **argv, int i, char *key, size_t keylen, const char **value)
{
  const char *a = argv[i];
  if (strncmp(a, "--", 2) != 0)
    return -1;
  a += 2;
  const char *eq = strchr(a, '=');
  size_t kl = eq ? (size_t)(eq - a) : strlen(a);
  if (kl == 0 || kl >= keylen)
    return -1;
  for (size_t k = 0; k < kl; k++)
    key[k] = a[k] == '-' ? '_' : a[k];
  key[kl] = '\0';
  if (eq) {
    *value = eq + 1;
    return 1;
  }
  if (!strcmp(key, "auth_reads") || !strcmp(key, "read_only")) {
    *value = "true";
    return 1;
  }
  if (i + 1 >= argc)
    return -1;
  *value = argv[i + 1];
  return 2;
}

int pd_config_load(pd_config *cfg, int argc, char **argv, char *msg, size_t msglen)
{
  pd_config_defaults(cfg);
  char key[64];
  const char *value = NULL;
  /* pass 1: the config file, so that env and flags override it */
  const char *file = getenv("PASCAL_CONFIG");
  for (int i = 0; i < argc;) {
    int used = flag_at(argc, argv, i, key, sizeof key, &value);
    if (used < 0) {
      snprintf(msg, msglen, "bad argument '%s' (flags are --key value)", argv[i]);
      return -1;
    }
    if (!strcmp(key, "config"))
      file = value;
    i += used;
  }
  if (file && load_file(cfg, file, msg, msglen))
    return -1;
  if (load_env(cfg, msg, msglen))
    return -1;
  for (int i = 0; i < argc;) {
    int used = flag_at(argc, argv, i, key, sizeof key, &value);
    if (strcmp(key, "config") != 0 && config_set(cfg, key, value, msg, msglen))
      return -1;
    i += used;
  }
  if (cfg->threads == 0) {
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    cfg->threads = n > 0 ? (unsigned)n : 1;
  }
  return 0;
}
