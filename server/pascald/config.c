/*
 * config.c - resolve pascald's configuration from defaults, an optional
 * config file, PASCAL_* environment variables and flags, validating each value.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cors.h"
#include "replica.h"

/* How an option's value is read (config_set) and shown (pd_config_help). */
typedef enum opt_kind {
  OPT_UINT,   /* unsigned, decimal in [lo, hi]                        */
  OPT_SIZE,   /* size_t, decimal in [lo, hi]                          */
  OPT_BOOL,   /* int: 1/true/yes/on or 0/false/no/off                 */
  OPT_TEXT,   /* char[size]; lo = 1: may not be empty                 */
  OPT_LISTEN, /* HOST:PORT into listen_host and listen_port           */
  OPT_CORS,   /* comma-separated origins, checked by cors.h           */
  OPT_REPLICA /* the primary's URL, checked by replica.h              */
} opt_kind;

typedef struct opt_spec {
  const char *key; /* file key and PASCAL_<KEY>; the flag is --key with '-' for '_' */
  opt_kind kind;
  size_t offset, size; /* of the value in pd_config */
  unsigned long lo, hi;
  const char *meta; /* the value in the help */
  const char *help; /* one line */
} opt_spec;

#define AT(field) offsetof(pd_config, field), sizeof(((pd_config *)0)->field)

/* Every option pascald reads, once: the parser, the environment and the
 * help all walk this table, so that none of them can miss one. */
static const opt_spec OPTIONS[] = {
    {"listen", OPT_LISTEN, AT(listen_host), 0, 0, "HOST:PORT",
     "address to serve; port 0: any free port"},
    {"db", OPT_TEXT, AT(db_path), 1, 0, "PATH", "SQLite database file (its directory is created)"},
    {"bundles", OPT_TEXT, AT(bundles_dir), 0, 0, "DIR",
     "calibration bundles imported into an empty database (\"\": none)"},
    {"lease_seconds", OPT_UINT, AT(lease_seconds), 1, 86400, "S",
     "a job's lease without a heartbeat"},
    {"max_attempts", OPT_UINT, AT(max_attempts), 1, 100, "N",
     "leases per job before it and its calibration fail"},
    {"threads", OPT_UINT, AT(threads), 0, 256, "N", "HTTP worker threads (0: one per core)"},
    {"connection_limit", OPT_UINT, AT(connection_limit), 1, 100000, "N",
     "simultaneous connections; the next is closed at once"},
    {"connection_limit_per_ip", OPT_UINT, AT(connection_limit_per_ip), 0, 100000, "N",
     "simultaneous connections from one address (0: no limit)"},
    {"connection_timeout", OPT_UINT, AT(connection_timeout_s), 1, 3600, "S",
     "seconds a connection may stay silent"},
    {"request_deadline", OPT_UINT, AT(request_deadline_s), 1, 3600, "S",
     "seconds for a whole request (head and body) to arrive"},
    {"body_max", OPT_SIZE, AT(body_max), 1024, 256ul << 20, "BYTES",
     "request body cap (413 above it)"},
    {"batch_max", OPT_SIZE, AT(batch_max), 1, 1000000, "N",
     "queries in one predict batch (413 above it)"},
    {"auth_reads", OPT_BOOL, AT(auth_reads), 0, 0, NULL, "reads need a token too"},
    {"read_only", OPT_BOOL, AT(read_only), 0, 0, NULL,
     "recovery: open the database read-only, serve even a damaged one"},
    {"cors_origins", OPT_CORS, AT(cors_origins), 0, 0, "ORIGIN,...",
     "browser origins allowed to call the API (\"\": CORS off)"},
    {"cors_max_age", OPT_UINT, AT(cors_max_age), 0, 86400, "S",
     "seconds a browser may cache a CORS preflight"},
    {"replica_of", OPT_REPLICA, AT(replica_of), 0, 0, "URL",
     "run as the read replica of this primary (\"\": a primary)"},
    {"replica_interval", OPT_UINT, AT(replica_interval_s), 1, 86400, "S",
     "seconds between two syncs of a replica"},
    {"job_time_limit", OPT_UINT, AT(job_time_limit_s), 0, 2592000, "S",
     "seconds from a claim past which heartbeats stop extending a lease (0: none)"},
    {"agents_per_token", OPT_UINT, AT(agents_per_token), 1, 100000, "N",
     "agent names one agent token may use"},
    {"log_file", OPT_TEXT, AT(log_file), 0, 0, "PATH",
     "append the log here, reopened on SIGHUP (\"\": stderr)"},
};
#define N_OPTIONS (sizeof OPTIONS / sizeof *OPTIONS)

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

static const opt_spec *find_option(const char *key)
{
  for (size_t i = 0; i < N_OPTIONS; i++)
    if (!strcmp(OPTIONS[i].key, key))
      return &OPTIONS[i];
  return NULL;
}

/* Apply one option; returns 0 or -1 with a message in msg. */
static int config_set(pd_config *cfg, const char *key, const char *value, char *msg, size_t msglen)
{
  const opt_spec *o = find_option(key);
  if (!o) {
    snprintf(msg, msglen, "unknown option '%s'", key);
    return -1;
  }
  char *slot = (char *)cfg + o->offset;
  unsigned long x;
  int ok = -1;
  switch (o->kind) {
  case OPT_UINT:
    ok = parse_uint(value, o->lo, o->hi, &x) ? -1 : (*(unsigned *)slot = (unsigned)x, 0);
    break;
  case OPT_SIZE: ok = parse_uint(value, o->lo, o->hi, &x) ? -1 : (*(size_t *)slot = x, 0); break;
  case OPT_BOOL: ok = parse_bool(value, (int *)slot); break;
  case OPT_TEXT:
    ok = strlen(value) < o->size && (*value || !o->lo) ? (snprintf(slot, o->size, "%s", value), 0)
                                                       : -1;
    break;
  case OPT_LISTEN: ok = parse_listen(cfg, value); break;
  case OPT_REPLICA: ok = pd_replica_url_set(slot, o->size, value); break;
  case OPT_CORS: {
    char list[sizeof cfg->cors_origins], why[256];
    if (pd_cors_parse_origins(value, list, sizeof list, why, sizeof why)) {
      snprintf(msg, msglen, "invalid value for %s: %s", key, why);
      return -1;
    }
    memcpy(slot, list, sizeof list);
    return 0;
  }
  }
  if (ok)
    snprintf(msg, msglen, "invalid value for %s: '%.80s'", key, value);
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
  for (size_t i = 0; i < N_OPTIONS; i++) {
    char name[64] = "PASCAL_";
    size_t n = strlen(name);
    for (const char *k = OPTIONS[i].key; *k && n + 1 < sizeof name; k++)
      name[n++] = (char)toupper((unsigned char)*k);
    name[n] = '\0';
    const char *v = getenv(name);
    if (v && config_set(cfg, OPTIONS[i].key, v, msg, msglen))
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
  const opt_spec *o = find_option(key);
  if (o && o->kind == OPT_BOOL) { /* a switch: --auth-reads, --read-only */
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

void pd_config_help(FILE *out)
{
  pd_config def;
  pd_config_defaults(&def);
  for (size_t i = 0; i < N_OPTIONS; i++) {
    const opt_spec *o = &OPTIONS[i];
    const char *slot = (const char *)&def + o->offset;
    char head[64], flag[40], dflt[300] = "";
    size_t k = 0;
    for (; o->key[k] && k + 1 < sizeof flag; k++)
      flag[k] = o->key[k] == '_' ? '-' : o->key[k];
    flag[k] = '\0';
    snprintf(head, sizeof head, "--%s%s%s", flag, o->meta ? " " : "", o->meta ? o->meta : "");
    switch (o->kind) {
    case OPT_UINT: snprintf(dflt, sizeof dflt, "%u", *(const unsigned *)slot); break;
    case OPT_SIZE: snprintf(dflt, sizeof dflt, "%zu", *(const size_t *)slot); break;
    case OPT_BOOL: snprintf(dflt, sizeof dflt, "%s", *(const int *)slot ? "on" : "off"); break;
    case OPT_LISTEN: snprintf(dflt, sizeof dflt, "%s:%u", def.listen_host, def.listen_port); break;
    case OPT_TEXT:
    case OPT_CORS:
    case OPT_REPLICA: snprintf(dflt, sizeof dflt, "%s", *slot ? slot : "\"\""); break;
    }
    fprintf(out, "  %-28s  %s (default %s)\n", head, o->help, dflt);
  }
}
