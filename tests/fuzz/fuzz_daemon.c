/*
 * fuzz_daemon.c - the in-process pascald of the HTTP harnesses (see
 * fuzz_daemon.h). Started once per process with the same steps as
 * `pascald serve` (main.c): configuration, store, registry, calibration
 * startup, HTTP; torn down at exit. The database lives in /dev/shm when it
 * exists (synchronous=FULL makes every write an fsync), else in TMPDIR.
 */
#include "fuzz_daemon.h"

#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include "auth.h"
#include "calib.h"
#include "config.h"
#include "ctx.h"
#include "http.h"
#include "pascal_store.h"
#include "registry.h"
#include "routes.h"
#include "tokens.h"

struct fz_daemon {
  pd_ctx *ctx;
  char dir[256];
  char admin[PD_TOKEN_LEN + 1], agent[PD_TOKEN_LEN + 1];
  int fd; /* the kept-alive connection, -1 when closed */
};

static fz_daemon *the_daemon;

static void die(const char *what)
{
  fprintf(stderr, "fuzz daemon: %s\n", what);
  abort();
}

static void make_token(fz_daemon *d, const char *name, int role, char *out)
{
  char hash[PD_HASH_HEX];
  int64_t id;
  if (pd_token_generate(out))
    die("no randomness");
  pd_token_hash(out, hash);
  if (pascal_store_token_create(d->ctx->store, name, role, hash, 1, &id, NULL) != PASCAL_STORE_OK)
    die("cannot create a token");
}

/* The shipped bundles the daemon imports (linked into its directory). */
static const char *const shipped[] = {"sim-gb10-scan.json", "sim-gb10-tiled-gemm.json"};

static void remove_dir(const char *dir)
{
  static const char *const files[] = {"pascal.db", "pascal.db-wal", "pascal.db-shm"};
  char path[PATH_MAX];
  for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
    snprintf(path, sizeof path, "%s/%s", dir, files[i]);
    unlink(path);
  }
  for (size_t i = 0; i < sizeof shipped / sizeof shipped[0]; i++) {
    snprintf(path, sizeof path, "%s/bundles/%s", dir, shipped[i]);
    unlink(path);
  }
  snprintf(path, sizeof path, "%s/bundles", dir);
  rmdir(path);
  rmdir(dir);
}

/* Close the harness's end with a reset instead of a FIN. Many answers close
 * their connection (a NUL in the request line is 400 and close), so the
 * harness opens thousands of connections a second; closed the ordinary way
 * each leaves a TIME_WAIT entry on loopback for 60 s, and the 28k ephemeral
 * ports run out within a minute (connect fails with EADDRNOTAVAIL, sooner
 * when earlier tests have left entries of their own). A reset leaves none on
 * either side. */
static void drop_connection(fz_daemon *d)
{
  if (d->fd < 0)
    return;
  struct linger reset = {1, 0};
  setsockopt(d->fd, SOL_SOCKET, SO_LINGER, &reset, sizeof reset);
  close(d->fd);
  d->fd = -1;
}

void fz_daemon_reset(void)
{
  fz_daemon *d = the_daemon;
  if (!d)
    return;
  drop_connection(d);
  pd_http_stop(d->ctx);
  pd_tokens_free(d->ctx->tokens);
  pd_registry_free(d->ctx->registry);
  pascal_store_close(d->ctx->store);
  remove_dir(d->dir);
  free(d->ctx);
  free(d);
  the_daemon = NULL;
}

fz_daemon *fz_daemon_get(void)
{
  if (the_daemon)
    return the_daemon;
  fz_daemon *d = calloc(1, sizeof *d);
  pd_ctx *ctx = calloc(1, sizeof *ctx);
  if (!d || !ctx)
    die("out of memory");
  d->ctx = ctx;
  d->fd = -1;
  struct stat st;
  const char *base =
      stat("/dev/shm", &st) == 0 && S_ISDIR(st.st_mode) ? "/dev/shm" : getenv("TMPDIR");
  snprintf(d->dir, sizeof d->dir, "%s/pascal-fuzz-XXXXXX", base ? base : "/tmp");
  if (!mkdtemp(d->dir))
    die("cannot make a temporary directory");
  signal(SIGPIPE, SIG_IGN);
  pd_config_defaults(&ctx->cfg);
  ctx->cfg.listen_port = 0;
  ctx->cfg.threads = 2;
  snprintf(ctx->cfg.db_path, sizeof ctx->cfg.db_path, "%s/pascal.db", d->dir);
  /* Only the sim-gb10 pair of the shipped bundles (`shipped`; the corpora ask for that
   * device): importing all of them recomputes every report at each start
   * and reset, which under the fuzzing build's instrumentation outlasts
   * libFuzzer's per-input timeout. */
  snprintf(ctx->cfg.bundles_dir, sizeof ctx->cfg.bundles_dir, "%s/bundles", d->dir);
  if (mkdir(ctx->cfg.bundles_dir, 0700) != 0)
    die("cannot make the bundles directory");
  for (size_t i = 0; i < sizeof shipped / sizeof *shipped; i++) {
    char from[PATH_MAX], to[PATH_MAX];
    int nf = snprintf(from, sizeof from, "%s/%s", PASCALD_SOURCE_BUNDLES, shipped[i]);
    int nt = snprintf(to, sizeof to, "%s/bundles/%s", d->dir, shipped[i]);
    if (nf < 0 || (size_t)nf >= sizeof from || nt < 0 || (size_t)nt >= sizeof to ||
        symlink(from, to) != 0)
      die("cannot link a shipped bundle");
  }
  atomic_init(&ctx->stopping, 0);
  char msg[1024];
  if (pd_routes_stats_init(&ctx->stats) ||
      pascal_store_open(ctx->cfg.db_path, &ctx->store, NULL) != PASCAL_STORE_OK ||
      pd_registry_new(&ctx->registry) || pd_tokens_new(ctx->store, &ctx->tokens) ||
      pd_calib_startup(ctx, msg, sizeof msg))
    die("cannot open the store or load the calibrations");
  make_token(d, "fuzz-admin", PASCAL_STORE_ROLE_ADMIN, d->admin);
  make_token(d, "fuzz-agent", PASCAL_STORE_ROLE_AGENT, d->agent);
  if (pd_http_start(ctx, msg, sizeof msg))
    die(msg);
  the_daemon = d;
  static int registered;
  if (!registered++)
    atexit(fz_daemon_reset);
  return d;
}

struct pascal_store *fz_store(fz_daemon *d)
{
  return d->ctx->store;
}
const char *fz_admin_token(fz_daemon *d)
{
  return d->admin;
}
const char *fz_agent_token(fz_daemon *d)
{
  return d->agent;
}

static int connect_daemon(fz_daemon *d)
{
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0)
    die("socket");
  struct sockaddr_in a;
  memset(&a, 0, sizeof a);
  a.sin_family = AF_INET;
  a.sin_port = htons((uint16_t)d->ctx->bound_port);
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  struct timeval tv = {20, 0}; /* a hang is a finding: the read fails */
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  /* an interrupted connect goes on in the background: ask again until it
   * has finished (EISCONN) */
  int rc;
  do
    rc = connect(fd, (struct sockaddr *)&a, sizeof a);
  while (rc != 0 && (errno == EINTR || errno == EALREADY));
  if (rc != 0 && errno != EISCONN) {
    fprintf(stderr, "fuzz daemon: connect: %s\n", strerror(errno));
    abort();
  }
  return fd;
}

static int send_all(int fd, const char *p, size_t n)
{
  while (n > 0) {
    ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
    if (w < 0 && errno == EINTR)
      continue;
    if (w <= 0)
      return -1;
    p += w;
    n -= (size_t)w;
  }
  return 0;
}

/* Read one answer: returns the status (0: closed before any byte, -1 on a
 * broken answer), the body into out, *close_after when the server closes.
 * A signal (libFuzzer's timeout alarm, every timeout / 2 + 1 seconds)
 * interrupts a socket call that has SO_RCVTIMEO even under SA_RESTART
 * (signal(7)): EINTR is retried, not taken for a closed connection. */
static int read_answer(int fd, char *out, size_t outlen, int *close_after)
{
  static char buf[1 << 20];
  size_t have = 0;
  char *end = NULL;
  while (!end) {
    if (have + 1 >= sizeof buf)
      return -1;
    ssize_t r = recv(fd, buf + have, sizeof buf - 1 - have, 0);
    if (r < 0 && errno == EINTR)
      continue;
    if (r <= 0)
      return have == 0 ? 0 : -1;
    have += (size_t)r;
    buf[have] = '\0';
    end = strstr(buf, "\r\n\r\n");
  }
  int status = 0;
  if (sscanf(buf, "HTTP/1.1 %d", &status) != 1)
    return -1;
  size_t body_len = 0;
  *close_after = 0;
  for (char *line = strstr(buf, "\r\n"); line && line < end; line = strstr(line + 2, "\r\n")) {
    if (!strncasecmp(line + 2, "Content-Length:", 15))
      body_len = strtoul(line + 17, NULL, 10);
    if (!strncasecmp(line + 2, "Connection: close", 17))
      *close_after = 1;
  }
  size_t head = (size_t)(end + 4 - buf);
  if (head + body_len >= sizeof buf)
    return -1;
  while (have < head + body_len) {
    ssize_t r = recv(fd, buf + have, sizeof buf - 1 - have, 0);
    if (r < 0 && errno == EINTR)
      continue;
    if (r <= 0)
      return -1;
    have += (size_t)r;
  }
  if (out && outlen) {
    size_t n = body_len < outlen - 1 ? body_len : outlen - 1;
    memcpy(out, buf + head, n);
    out[n] = '\0';
  }
  return status;
}

unsigned fz_http(fz_daemon *d, const char *method, const char *target, const char *body, size_t len,
                 const char *token, char *out, size_t outlen)
{
  char head[16384];
  int n = snprintf(head, sizeof head, "%s %s HTTP/1.1\r\nHost: fuzz\r\n", method, target);
  if (token && n > 0 && (size_t)n < sizeof head)
    n += snprintf(head + n, sizeof head - (size_t)n, "Authorization: Bearer %s\r\n", token);
  if (body && n > 0 && (size_t)n < sizeof head)
    n += snprintf(head + n, sizeof head - (size_t)n,
                  "Content-Type: application/json\r\nContent-Length: %zu\r\n", len);
  if (n > 0 && (size_t)n < sizeof head)
    n += snprintf(head + n, sizeof head - (size_t)n, "\r\n");
  if (n <= 0 || (size_t)n >= sizeof head)
    die("request head too long for the harness");
  for (int attempt = 0; attempt < 2; attempt++) {
    int fresh = d->fd < 0;
    if (fresh)
      d->fd = connect_daemon(d);
    int close_after = 0, status = -1;
    if (send_all(d->fd, head, (size_t)n) == 0 && (!body || send_all(d->fd, body, len) == 0))
      status = read_answer(d->fd, out, outlen, &close_after);
    if (status <= 0 || close_after)
      drop_connection(d);
    if (status > 0)
      return (unsigned)status;
    if (fresh)
      return 0; /* a new connection closed without an answer */
    /* the kept-alive connection had been closed by the daemon: once more */
  }
  return 0;
}

void fz_require_no_5xx(unsigned status, const char *what, const char *answer)
{
  if (status > 0 && status < 500)
    return;
  fprintf(stderr, "fuzz: %s answered %u: %.400s\n", what, status, answer ? answer : "");
  abort();
}
