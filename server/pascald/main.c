/*
 * main.c - pascald entry point: `pascald [serve] [flags]` runs the daemon,
 * `pascald token create|list|revoke` manages API tokens in the database.
 *
 * Serve: resolve the configuration, open the store and check it with PRAGMA
 * quick_check (a damaged file refuses to start with PD_EXIT_DAMAGED unless
 * --read-only asks to serve what is left, for recovery), load every frozen
 * calibration into memory (importing the *.json bundles of deploy/calibrations first when the
 * database has no calibration at all), start HTTP, print the bound address as
 * the first stdout line, then wait for SIGTERM/SIGINT and shut down
 * gracefully (no new connections, in-flight requests finish, store closed).
 * SIGHUP reopens the log file; other stray signals are logged and ignored.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "auth.h"
#include "calib.h"
#include "config.h"
#include "ctx.h"
#include "http.h"
#include "jsonin.h"
#include "logfile.h"
#include "pascal/version.h"
#include "pascal_codec_jobs.h"
#include "pascal_store.h"
#include "plot_cache.h"
#include "registry.h"
#include "replica.h"
#include "reply.h"
#include "routes.h"
#include "tokens.h"

/* Exit status of `pascald serve` (docs/http-api.md): 0 after a signal, 1 on
 * any other failure to start, 2 for bad usage, 3 for a damaged database. */
#define PD_EXIT_DAMAGED 3

/* The short form, on a usage error. */
static void usage(FILE *f)
{
  fprintf(f, "usage: pascald [serve] [OPTIONS]       (pascald --help lists them; man pascald)\n"
             "       pascald token create|list|revoke [TOKEN OPTIONS]\n"
             "       pascald --version | --help\n");
}

/* --help: every option from the table the parser reads (config.c). */
static void help(FILE *f)
{
  static const char *const token_options[][2] = {
      {"--role admin|agent", "create: what the token may do (admin: everything; agent: run jobs)"},
      {"--name NAME", "create: who holds it (A-Z a-z 0-9 . _ -, at most 63)"},
      {"--id ID", "revoke: the id `token list` shows"},
      {"--db PATH", "the database (or any option above, or its PASCAL_ variable)"},
  };
  fprintf(f, "usage: pascald [serve] [OPTIONS]\n"
             "       pascald token create --db PATH --role admin|agent --name NAME\n"
             "       pascald token list --db PATH\n"
             "       pascald token revoke --db PATH --id ID\n"
             "       pascald --version | --help\n"
             "\n"
             "Serves PASCAL's predictions, calibrations and dashboard over HTTP/JSON;\n"
             "prints the bound address as its first line, stops on SIGTERM or SIGINT.\n"
             "Each option is also PASCAL_<KEY> in the environment and `key = value` in\n"
             "the --config file; flags override the environment, which overrides the file.\n"
             "\n"
             "options:\n");
  fprintf(f, "  %-28s  %s\n", "--config FILE", "read options from FILE (also PASCAL_CONFIG)");
  pd_config_help(f);
  fprintf(f, "  %-28s  %s\n", "-h, --help", "this text");
  fprintf(f, "  %-28s  %s\n", "--version", "print the version and exit");
  fprintf(f, "\ntoken options:\n");
  for (size_t i = 0; i < sizeof token_options / sizeof *token_options; i++)
    fprintf(f, "  %-28s  %s\n", token_options[i][0], token_options[i][1]);
  fprintf(f, "\nexit status: 0 stopped by a signal, 1 failed to start, 2 bad usage,\n"
             "3 damaged database (start with --read-only to read what is left)\n");
}

static int open_store(const char *path, pascal_store **out)
{
  pascal_error err;
  pascal_error_clear(&err);
  if (pascal_store_open(path, out, &err) != PASCAL_STORE_OK) {
    fprintf(stderr, "pascald: cannot open database %s: %s\n", path, err.message);
    return -1;
  }
  return 0;
}

/* Open the serving store and check the file. Returns 0, or the exit status. */
static int open_checked_store(const pd_config *cfg, pascal_store **out)
{
  pascal_error err;
  pascal_error_clear(&err);
  int st = cfg->read_only ? pascal_store_open_read_only(cfg->db_path, out, &err)
                          : pascal_store_open(cfg->db_path, out, &err);
  if (st == PASCAL_STORE_OK)
    st = pascal_store_quick_check(*out, &err);
  if (st == PASCAL_STORE_OK)
    return 0;
  if (st != PASCAL_STORE_CORRUPT) {
    fprintf(stderr, "pascald: cannot open database %s: %s\n", cfg->db_path, err.message);
    return 1;
  }
  if (cfg->read_only && *out) {
    fprintf(stderr, "pascald: database %s is damaged (%s); serving it read-only\n", cfg->db_path,
            err.message);
    return 0;
  }
  fprintf(stderr,
          "pascald: database %s is damaged: %s\n"
          "pascald: refusing to start; restore a backup, or start with --read-only "
          "to read what is left\n",
          cfg->db_path, err.message);
  return PD_EXIT_DAMAGED;
}

/* ---- token subcommands --------------------------------------------------- */

static int token_main(int argc, char **argv)
{
  if (argc < 1) {
    usage(stderr);
    return 2;
  }
  const char *sub = argv[0], *role = NULL, *name = NULL, *id = NULL;
  char *rest[64];
  int nrest = 0;
  for (int i = 1; i < argc; i++) {
    const char **dst = !strcmp(argv[i], "--role")   ? &role
                       : !strcmp(argv[i], "--name") ? &name
                       : !strcmp(argv[i], "--id")   ? &id
                                                    : NULL;
    if (dst) {
      if (i + 1 >= argc) {
        fprintf(stderr, "pascald token: %s needs a value\n", argv[i]);
        return 2;
      }
      *dst = argv[++i];
    } else if (nrest < 64) {
      rest[nrest++] = argv[i];
    } else {
      fprintf(stderr, "pascald token: too many arguments\n");
      return 2;
    }
  }
  pd_config cfg;
  char msg[512];
  if (pd_config_load(&cfg, nrest, rest, msg, sizeof msg)) {
    fprintf(stderr, "pascald token: %s\n", msg);
    return 2;
  }
  pascal_store *st = NULL;
  int rc = 1;
  pascal_error err;
  pascal_error_clear(&err);
  int64_t now = (int64_t)time(NULL);
  if (!strcmp(sub, "create")) {
    if (!role || (strcmp(role, "admin") && strcmp(role, "agent"))) {
      fprintf(stderr, "pascald token create: --role must be admin or agent\n");
      return 2;
    }
    if (!name || !pascal_codec_name_valid(name)) { /* the name rule of devices and agents */
      fprintf(stderr, "pascald token create: --name NAME is required "
                      "(1-63 characters of A-Z a-z 0-9 . _ -)\n");
      return 2;
    }
    char token[PD_TOKEN_LEN + 1], hash[PD_HASH_HEX];
    if (pd_token_generate(token)) {
      fprintf(stderr, "pascald token create: no randomness available\n");
      return 1;
    }
    pd_token_hash(token, hash);
    int64_t tid;
    if (open_store(cfg.db_path, &st))
      return 1;
    if (pascal_store_token_create(
            st, name, !strcmp(role, "admin") ? PASCAL_STORE_ROLE_ADMIN : PASCAL_STORE_ROLE_AGENT,
            hash, now, &tid, &err) != PASCAL_STORE_OK) {
      fprintf(stderr, "pascald token create: %s (%s)\n", err.message, err.field);
    } else {
      printf("created %s token id %lld name %s (shown once; store it now)\n%s\n", role,
             (long long)tid, name, token);
      rc = 0;
    }
  } else if (!strcmp(sub, "list")) {
    pascal_store_token *t = NULL;
    size_t n = 0;
    if (open_store(cfg.db_path, &st))
      return 1;
    if (pascal_store_token_list(st, &t, &n, &err) != PASCAL_STORE_OK) {
      fprintf(stderr, "pascald token list: %s\n", err.message);
    } else {
      printf("%-6s %-6s %-24s %-21s %s\n", "id", "role", "name", "created", "revoked");
      for (size_t i = 0; i < n; i++) {
        char c[40], r[40] = "-";
        pd_rfc3339(t[i].created, c, sizeof c);
        if (t[i].revoked)
          pd_rfc3339(t[i].revoked, r, sizeof r);
        printf("%-6lld %-6s %-24s %-21s %s\n", (long long)t[i].id,
               pascal_store_role_name(t[i].role), t[i].name, c, r);
      }
      rc = 0;
    }
    free(t);
  } else if (!strcmp(sub, "revoke")) {
    char *end = NULL;
    long long v = id ? strtoll(id, &end, 10) : 0;
    if (!id || *end || v <= 0) {
      fprintf(stderr, "pascald token revoke: --id ID (a positive integer) is required\n");
      return 2;
    }
    if (open_store(cfg.db_path, &st))
      return 1;
    if (pascal_store_token_revoke(st, v, now, &err) != PASCAL_STORE_OK) {
      fprintf(stderr, "pascald token revoke: %s\n", err.message);
    } else {
      printf("revoked token %lld\n", v);
      rc = 0;
    }
  } else {
    fprintf(stderr, "pascald token: unknown subcommand '%s' (create, list, revoke)\n", sub);
    return 2;
  }
  pascal_store_close(st);
  return rc;
}

/* ---- serve ----------------------------------------------------------------- */

/* The signals the main thread takes (blocked everywhere else): SIGTERM and
 * SIGINT stop the daemon gracefully, SIGHUP reopens the log file, and the
 * others, whose default would kill the daemon mid-request, are logged and
 * ignored. */
static const int handled_signals[] = {SIGTERM, SIGINT,    SIGHUP,  SIGUSR1, SIGUSR2,
                                      SIGALRM, SIGVTALRM, SIGPROF, SIGIO};

/* Take signals until one asks to stop; returns it. */
static int serve_signals(pd_ctx *ctx, const sigset_t *sigs)
{
  for (;;) {
    int sig = 0;
    if (sigwait(sigs, &sig) != 0)
      continue;
    if (sig == SIGTERM || sig == SIGINT)
      return sig;
    char msg[512];
    if (sig != SIGHUP)
      fprintf(stderr, "pascald: signal %d ignored (SIGTERM or SIGINT stop the daemon)\n", sig);
    else if (!ctx->cfg.log_file[0])
      fprintf(stderr, "pascald: SIGHUP: no log_file to reopen (logging to stderr)\n");
    else if (pd_logfile_open(ctx->cfg.log_file, msg, sizeof msg))
      fprintf(stderr, "pascald: SIGHUP: %s; logging on to the old file\n", msg);
    else
      fprintf(stderr, "pascald: SIGHUP: log file %s reopened\n", ctx->cfg.log_file);
  }
}

static int serve_main(int argc, char **argv)
{
  pd_ctx *ctx = calloc(1, sizeof *ctx); /* large (stats); on the heap */
  if (!ctx)
    return 1;
  char msg[1024];
  int rc = 1;
  if (pd_config_load(&ctx->cfg, argc, argv, msg, sizeof msg)) {
    fprintf(stderr, "pascald: %s\n", msg);
    usage(stderr);
    free(ctx);
    return 2;
  }
  atomic_init(&ctx->stopping, 0);
  pd_wallclock_init(&ctx->wall);
  if (pd_routes_stats_init(&ctx->stats)) {
    fprintf(stderr, "pascald: too many routes for the stats table\n");
    free(ctx);
    return 1;
  }
  /* Block the signals the main thread handles before any thread exists:
   * every thread inherits the mask and the main thread takes them with
   * sigwait() (serve_signals). */
  sigset_t sigs;
  sigemptyset(&sigs);
  for (size_t i = 0; i < sizeof handled_signals / sizeof handled_signals[0]; i++)
    sigaddset(&sigs, handled_signals[i]);
  pthread_sigmask(SIG_BLOCK, &sigs, NULL);
  signal(SIGPIPE, SIG_IGN);
  if (ctx->cfg.log_file[0] && pd_logfile_open(ctx->cfg.log_file, msg, sizeof msg)) {
    fprintf(stderr, "pascald: %s\n", msg);
    free(ctx);
    return 1;
  }

  int opened = open_checked_store(&ctx->cfg, &ctx->store);
  if (opened) {
    rc = opened;
    goto done;
  }
  if (pd_registry_new(&ctx->registry) || pd_plot_cache_new(&ctx->plots) ||
      pd_tokens_new(ctx->store, &ctx->tokens))
    goto done;
  if (pd_calib_startup(ctx, msg, sizeof msg)) {
    fprintf(stderr, "pascald: %s\n", msg);
    goto done;
  }
  if (pd_tokens_start(ctx->tokens, PD_TOKEN_REVALIDATE_MS)) {
    fprintf(stderr, "pascald: cannot start the token revalidation thread\n");
    goto done;
  }
  if (pd_replica_start(ctx, msg, sizeof msg) || pd_http_start(ctx, msg, sizeof msg)) {
    fprintf(stderr, "pascald: %s\n", msg);
    goto done;
  }
  int v6 = strchr(ctx->cfg.listen_host, ':') != NULL;
  printf("pascald listening on http://%s%s%s:%u\n", v6 ? "[" : "", ctx->cfg.listen_host,
         v6 ? "]" : "", ctx->bound_port);
  fflush(stdout);
  fprintf(stderr, "pascald: database %s%s, %zu frozen calibration(s) loaded, %u threads\n",
          ctx->cfg.db_path, ctx->cfg.read_only ? " (read-only)" : "",
          pd_registry_count(ctx->registry), ctx->cfg.threads);
  int sig = serve_signals(ctx, &sigs);
  fprintf(stderr, "pascald: signal %d, shutting down\n", sig);
  pd_http_stop(ctx);
  rc = 0;
done:
  pd_replica_stop(ctx);
  pd_tokens_free(ctx->tokens);
  pd_plot_cache_free(ctx->plots);
  pd_registry_free(ctx->registry);
  pascal_store_close(ctx->store);
  pd_wallclock_destroy(&ctx->wall);
  free(ctx);
  return rc;
}

int main(int argc, char **argv)
{
  for (int i = 1; i < argc; i++)
    if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h") ||
        (i == 1 && !strcmp(argv[i], "help"))) {
      help(stdout);
      return 0;
    }
  if (argc >= 2 && !strcmp(argv[1], "--version")) {
    printf("pascald %s\n", pascal_version());
    return 0;
  }
  if (argc >= 2 && !strcmp(argv[1], "token"))
    return token_main(argc - 2, argv + 2);
  if (argc >= 2 && !strcmp(argv[1], "serve"))
    return serve_main(argc - 2, argv + 2);
  return serve_main(argc - 1, argv + 1);
}
