/*
 * main.c - pascal-agent: takes calibration jobs for one device from pascald,
 * runs them on a measurement backend (sim or cuda) and uploads the fills
 * (docs/design.md §5; jobs API in api-spec/openapi.yaml). Wires the pieces: arguments,
 * token, backend, device registration, signals, workers. Exit codes:
 * exitcode.h and docs/agent.md.
 */
#include <curl/curl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent.h"
#include "client.h"
#include "device.h"
#include "devlock.h"
#include "exitcode.h"
#include "pascal/version.h"
#include "pascal_codec.h"
#include "static_exp.h"
#include "worker.h"

/* SIGTERM/SIGINT received so far, 0..2 (the one piece of global state: a
 * signal handler has nowhere else to write). An atomic, not a volatile
 * sig_atomic_t: the handler runs on whichever thread the kernel picks and the
 * workers read the count on theirs, and sig_atomic_t only covers a handler and
 * the thread it interrupted. A lock-free atomic is async-signal-safe (C11
 * 7.14.1.1); the assertion keeps it so. */
_Static_assert(ATOMIC_INT_LOCK_FREE == 2, "the signal counter must be lock-free");
static atomic_int signals_received;

#define NO_CUDA                                                                                    \
  "this pascal-agent was built without CUDA (no toolkit at build time); "                          \
  "use --backend sim or rebuild with -DPASCAL_WITH_CUDA=ON"

static void on_signal(int sig)
{
  (void)sig;
  /* Count up to 2; a compare-exchange, as two signals may be handled on two
   * threads at once. */
  int n = atomic_load(&signals_received);
  while (n < 2 && !atomic_compare_exchange_weak(&signals_received, &n, n + 1)) {
  }
}

static int install_signals(void)
{
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sa.sa_flags = SA_RESTART; /* libcurl's reads and writes just carry on */
  sigemptyset(&sa.sa_mask);
  struct sigaction ign;
  memset(&ign, 0, sizeof ign);
  ign.sa_handler = SIG_IGN;
  sigemptyset(&ign.sa_mask);
  return (sigaction(SIGTERM, &sa, NULL) == 0 && sigaction(SIGINT, &sa, NULL) == 0 &&
          sigaction(SIGPIPE, &ign, NULL) == 0)
             ? 0
             : -1;
}

static const pascal_backend_ops *pick_backend(const char *name)
{
  if (strcmp(name, "sim") == 0)
    return &pascal_backend_sim_ops;
  return pascal_backend_cuda_ops();
}

/* The probe's one-line summaries: the registration body, and every constant
 * `pascal plan --probe` and deploy/gpu/measure.sh read. */
static void print_probe(const pascal_backend_device *dev)
{
  printf(
      "register as: {\"arch\":\"%s\",\"sm_count\":%u,\"capacity_blocks\":%u,\"block_bytes\":%u}\n",
      dev->arch, dev->sm_count, dev->capacity_blocks, dev->block_bytes);
  printf("probe json: {\"name\":\"%s\",\"arch\":\"%s\",\"sm_count\":%u,\"capacity_blocks\":%u,"
         "\"block_bytes\":%u,\"l2_bytes\":%llu,\"smem_per_sm\":%llu",
         dev->name, dev->arch, dev->sm_count, dev->capacity_blocks, dev->block_bytes,
         (unsigned long long)dev->l2_bytes, (unsigned long long)dev->smem_per_sm);
  if (dev->has_peaks) /* the registration's peaks, round-trip exact */
    printf(",\"peaks\":{\"dram_bytes_per_s\":%.17g,\"l2_bytes_per_s\":%.17g,"
           "\"tensor_flops\":%.17g,\"sm_clock_hz\":%.17g,\"launch_s\":%.17g}",
           dev->peaks.dram_bytes_per_s, dev->peaks.l2_bytes_per_s, dev->peaks.tensor_flops,
           dev->peaks.sm_clock_hz, dev->peaks.launch_s);
  printf("}\n");
  json_t *probe = NULL;
  char *text = dev->has_capacity_probe && pascal_codec_capacity_probe_encode(
                                              &dev->capacity_probe, &probe, NULL) == PASCAL_OK
                   ? json_dumps(probe, JSON_COMPACT | JSON_REAL_PRECISION(17))
                   : NULL;
  if (text) /* the capacity scan, as a registration's member capacity_probe */
    printf("capacity probe: %s\n", text);
  free(text);
  json_decref(probe);
}

/* Open the backend once to learn what the device is; `known_capacity` as in
 * backend.h. Logs through `ui` when given, else to stderr. */
static int describe_device(const agent_args *args, const pascal_backend_ops *ops,
                           uint32_t known_capacity, agent_ui *ui, pascal_backend_device *dev)
{
  pascal_backend *b = NULL;
  pascal_error err;
  pascal_error_clear(&err);
  pascal_status st = ops->open(args->profile, &b, &err);
  if (st == PASCAL_OK) {
    st = ops->describe(b, known_capacity, dev, &err);
    ops->close(b);
  }
  if (st != PASCAL_OK) {
    if (ui)
      agent_ui_log(ui, "backend %s: %s%s%s", ops->name, err.message,
                   err.field[0] ? " - field " : "", err.field);
    else
      fprintf(stderr, "pascal-agent: backend %s: %s%s%s\n", ops->name, err.message,
              err.field[0] ? " - field " : "", err.field);
    return AGENT_EXIT_BACKEND;
  }
  return AGENT_EXIT_OK;
}

/* --probe: the device's constants (the backend's own probe where it has
 * one: cuda's full report with the capacity scan, docs/gpu.md), then the
 * summary lines. */
static int probe_device(const agent_args *args, const pascal_backend_ops *ops)
{
  pascal_backend_device dev;
  if (ops->probe) {
    pascal_error err;
    pascal_error_clear(&err);
    if (ops->probe(stdout, 0, 0, &dev, &err) != PASCAL_OK) {
      fprintf(stderr, "pascal-agent: --probe: %s%s%s\n", err.message,
              err.field[0] ? " - field " : "", err.field);
      return AGENT_EXIT_BACKEND;
    }
    print_probe(&dev);
    return AGENT_EXIT_OK;
  }
  int rc = describe_device(args, ops, args->capacity_blocks, NULL, &dev);
  if (rc == AGENT_EXIT_OK)
    print_probe(&dev);
  return rc;
}

static void *worker_thread(void *arg)
{
  agent_ctx *ctx = ((void **)arg)[0];
  unsigned index = (unsigned)(size_t)((void **)arg)[1];
  agent_worker_run(ctx, index);
  return NULL;
}

/* Run --concurrency workers and wait for them. */
static void run_workers(agent_ctx *ctx)
{
  unsigned n = ctx->args->concurrency;
  pthread_t tids[64];
  void *argv[64][2];
  unsigned started = 0;
  for (; started < n; started++) {
    argv[started][0] = ctx;
    argv[started][1] = (void *)(size_t)started;
    if (pthread_create(&tids[started], NULL, worker_thread, argv[started]) != 0) {
      agent_ui_log(&ctx->ui, "cannot start worker %u", started);
      agent_fatal(ctx, AGENT_EXIT_FAILURE);
      break;
    }
  }
  for (unsigned i = 0; i < started; i++)
    pthread_join(tids[i], NULL);
}

/* Everything after the arguments and token are known. The device's C comes
 * from --capacity-blocks, else from pascald's registration, so a measuring
 * backend scans the capacity only for a device nobody has probed yet. */
static int run_agent(agent_ctx *ctx)
{
  agent_client c;
  if (agent_client_init(&c, ctx, (uint64_t)getpid()) != 0) {
    agent_ui_log(&ctx->ui, "cannot set up an HTTP client");
    return AGENT_EXIT_FAILURE;
  }
  uint32_t known = ctx->args->capacity_blocks;
  if (known == 0) {
    agent_device_known_capacity(&c, &known);
    if (known != 0)
      agent_ui_log(&ctx->ui, "device '%s' is registered with C = %u blocks: not measured again",
                   ctx->args->device, known);
  }
  pascal_backend_device dev;
  int rc = describe_device(ctx->args, ctx->ops, known, &ctx->ui, &dev);
  if (rc == AGENT_EXIT_OK)
    rc = agent_device_ensure(&c, &dev);
  agent_client_free(&c);
  if (rc != AGENT_EXIT_OK)
    return rc;
  agent_ui_log(&ctx->ui, "taking jobs for device '%s' from %s (backend %s, %u at a time)",
               ctx->args->device, ctx->args->server, ctx->ops->name, ctx->args->concurrency);
  run_workers(ctx);
  if (ctx->exit_code == AGENT_EXIT_OK && atomic_load(&signals_received) > 0)
    agent_ui_log(&ctx->ui, "stopped by signal");
  return ctx->exit_code;
}

/* The device lock (devlock.h): --lock, else the default file for cuda; the
 * descriptor stays open until the process exits. */
static int lock_device(const agent_args *args)
{
  char path[512], msg[768];
  const char *file = args->lock;
  if (!file && strcmp(args->backend, "cuda") == 0) {
    if (agent_devlock_default_path("cuda", args->profile, path, sizeof path) != 0) {
      fprintf(stderr, "pascal-agent: the device lock path is too long; give --lock FILE\n");
      return AGENT_EXIT_USAGE;
    }
    file = path;
  }
  if (file && agent_devlock_acquire(file, msg, sizeof msg) < 0) {
    fprintf(stderr, "pascal-agent: %s\n", msg);
    return AGENT_EXIT_BACKEND;
  }
  return AGENT_EXIT_OK;
}

int main(int argc, char **argv)
{
  agent_args args;
  char msg[512];
  switch (agent_args_parse(argc, argv, &args, msg, sizeof msg)) {
  case AGENT_ARGS_HELP: fputs(agent_args_usage(), stdout); return AGENT_EXIT_OK;
  case AGENT_ARGS_VERSION: printf("pascal-agent %s\n", pascal_version()); return AGENT_EXIT_OK;
  case AGENT_ARGS_ERROR: fprintf(stderr, "pascal-agent: %s\n", msg); return AGENT_EXIT_USAGE;
  case AGENT_ARGS_OK: break;
  }
  const pascal_backend_ops *ops = pick_backend(args.backend);
  if (!ops) {
    fprintf(stderr, "pascal-agent: --backend cuda: %s\n", NO_CUDA);
    return AGENT_EXIT_BACKEND;
  }
  int lrc = lock_device(&args);
  if (lrc != AGENT_EXIT_OK)
    return lrc;
  /* --probe and --static print their reports as they go, line by line even
   * into a file, so that a run stopped by a timeout shows how far it got. */
  setvbuf(stdout, NULL, _IOLBF, 0);
  if (args.probe)
    return probe_device(&args, ops);
  if (args.static_exp) {
    pascal_backend_device dev;
    int rc = describe_device(&args, ops, args.capacity_blocks, NULL, &dev);
    return rc != AGENT_EXIT_OK ? rc : agent_static_experiment(&args, ops, &dev, stdout);
  }
  agent_ctx ctx;
  memset(&ctx, 0, sizeof ctx);
  ctx.args = &args;
  ctx.signals = &signals_received;
  if (agent_token_load(args.token_file, getenv("PASCAL_TOKEN"), ctx.token, msg, sizeof msg) != 0) {
    fprintf(stderr, "pascal-agent: %s\n", msg);
    return AGENT_EXIT_USAGE;
  }
  ctx.ops = ops;
  char default_name[64]; /* names are at most 63 characters (args.c, pascald) */
  if (!args.name) {
    char host[64] = "agent";
    gethostname(host, sizeof host - 1);
    host[sizeof host - 1] = '\0';
    host[strspn(host, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-_")] = '\0';
    snprintf(default_name, sizeof default_name, "%.40s-%ld", host[0] ? host : "agent",
             (long)getpid());
  }
  ctx.name = args.name ? args.name : default_name;
  if (install_signals() != 0 || curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
    fprintf(stderr, "pascal-agent: cannot set up signals or libcurl\n");
    return AGENT_EXIT_FAILURE;
  }
  if (pthread_mutex_init(&ctx.mu, NULL) != 0 ||
      agent_ui_init(&ctx.ui, ctx.name, isatty(STDOUT_FILENO)) != 0) {
    fprintf(stderr, "pascal-agent: cannot set up locks\n");
    return AGENT_EXIT_FAILURE;
  }
  int rc = run_agent(&ctx);
  agent_ui_free(&ctx.ui);
  if (ctx.abandoned) {
    /* A runner thread is still inside the backend with its job released:
     * leave at once rather than wait for a measurement nobody will upload. */
    fflush(NULL);
    _exit(rc);
  }
  curl_global_cleanup();
  pthread_mutex_destroy(&ctx.mu);
  return rc;
}
