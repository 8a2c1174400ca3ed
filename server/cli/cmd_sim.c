/*
 * cmd_sim.c - `pascal sim scan|gemm|attention`: one run on the CPU sim
 * device (core/include/pascal/simdev.h, docs/sim-device.md) without a
 * daemon or an agent, for users who want to try a kernel configuration and
 * for checks that need the sim's ground truth (fills, K, kernel time). The
 * scan is the paper's open scan (Algorithm 2), the GEMM the tiled GEMM of
 * §4.5 with the calibration tiling the agent measures, the attention launch
 * a FlashAttention-2 forward (docs/attention.md) at the plans' occupancy
 * unless --o gives one (docs/cli.md).
 *
 * The three share one option table (each row says which workloads take it
 * and which need it; another workload's option is refused as unknown) and
 * one answer: the workload, its inputs, the seed, the device and the sim's
 * counts (sim_answer).
 *
 * --profile P is a shipped profile name (gb10-like, thor-like, h100-like:
 * deploy/profiles/P.profile, or <prefix>/share/pascal/profiles once
 * installed) or the path of a profile file; without it the built-in
 * gb10-like profile.
 */
#include <jansson.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "args.h"
#include "commands.h"
#include "output.h"
#include "pascal/attention.h"
#include "pascal/calibration.h"
#include "pascal/simdev.h"

#define SIM_GEMM_OUT_BYTES 4u /* FP32 outputs, as the agent's GEMM runs */
#define SIM_MAX_OCCUPANCY  2u /* the plans' occupancy cap (docs/plans.md) */

enum { SCAN = 1, GEMM = 2, ATTENTION = 4, ALL = 7 };

/* Every option's destination. */
typedef struct sim_opts {
  const char *profile, *path, *tile;
  uint32_t o, d, m, Mg, Ng, Kg, elem_bytes;
  uint32_t seq_q, seq_kv, heads, kv_heads, head_dim, block_q, block_kv, stages;
  uint64_t N, W, seed;
  int causal, json;
} sim_opts;

typedef struct sim_option {
  const char *name;
  cli_arg_kind kind;
  size_t offset; /* of its destination in sim_opts */
  uint64_t lo, hi;
  unsigned takes, needs; /* workloads that take it, that need it */
} sim_option;

#define AT(f) offsetof(sim_opts, f)
static const sim_option OPTIONS[] = {
    {"profile", CLI_ARG_STRING, AT(profile), 0, 0, ALL, 0},
    {"o", CLI_ARG_U32, AT(o), 1, 64, SCAN | ATTENTION, SCAN},
    {"path", CLI_ARG_STRING, AT(path), 0, 0, SCAN, SCAN},
    {"d", CLI_ARG_U32, AT(d), 0, 64, SCAN, 0},
    {"m", CLI_ARG_U32, AT(m), 0, 1000000, SCAN, SCAN},
    {"N", CLI_ARG_U64, AT(N), 1, (1ull << 31) - 1, SCAN, SCAN},
    {"W", CLI_ARG_U64, AT(W), 1, UINT64_MAX, SCAN, SCAN},
    {"Mg", CLI_ARG_U32, AT(Mg), 1, UINT32_MAX, GEMM, GEMM},
    {"Ng", CLI_ARG_U32, AT(Ng), 1, UINT32_MAX, GEMM, GEMM},
    {"Kg", CLI_ARG_U32, AT(Kg), 1, UINT32_MAX, GEMM, GEMM},
    {"tile", CLI_ARG_STRING, AT(tile), 0, 0, GEMM, 0},
    {"seq-q", CLI_ARG_U32, AT(seq_q), 1, INT32_MAX, ATTENTION, ATTENTION},
    {"seq-kv", CLI_ARG_U32, AT(seq_kv), 1, INT32_MAX, ATTENTION, ATTENTION},
    {"heads", CLI_ARG_U32, AT(heads), 1, 65536, ATTENTION, ATTENTION},
    {"kv-heads", CLI_ARG_U32, AT(kv_heads), 1, 65536, ATTENTION, 0},
    {"head-dim", CLI_ARG_U32, AT(head_dim), 16, 1024, ATTENTION, 0},
    {"block-q", CLI_ARG_U32, AT(block_q), 16, 1024, ATTENTION, 0},
    {"block-kv", CLI_ARG_U32, AT(block_kv), 16, 1024, ATTENTION, 0},
    {"stages", CLI_ARG_U32, AT(stages), 1, 64, ATTENTION, ATTENTION},
    {"causal", CLI_ARG_FLAG, AT(causal), 0, 0, ATTENTION, 0},
    {"elem-bytes", CLI_ARG_U32, AT(elem_bytes), 1, 8, GEMM | ATTENTION, 0},
    {"seed", CLI_ARG_U64, AT(seed), 0, UINT64_MAX, ALL, 0},
    {"json", CLI_ARG_FLAG, AT(json), 0, 0, ALL, 0},
};
#undef AT
#define N_OPTIONS (sizeof OPTIONS / sizeof *OPTIONS)

/* The parser's table for `workload`, pointing into *o; its size. */
static size_t option_table(unsigned workload, sim_opts *o, cli_arg args[N_OPTIONS])
{
  size_t n = 0;
  for (size_t i = 0; i < N_OPTIONS; i++)
    if (OPTIONS[i].takes & workload)
      args[n++] = (cli_arg){OPTIONS[i].name,
                            0,
                            OPTIONS[i].kind,
                            (OPTIONS[i].needs & workload) != 0,
                            (char *)o + OPTIONS[i].offset,
                            OPTIONS[i].lo,
                            OPTIONS[i].hi,
                            0};
  return n;
}

/* The profile file for P: P itself when it names a file (it contains a
 * '/' or ends in ".profile"), else the shipped P.profile, installed first. */
static int profile_path(const char *p, char *out, size_t cap)
{
  size_t n = strlen(p);
  if (strchr(p, '/') || (n > 8 && strcmp(p + n - 8, ".profile") == 0))
    return snprintf(out, cap, "%s", p) < (int)cap;
  for (size_t i = 0; i < n; i++)
    if (!((p[i] >= 'a' && p[i] <= 'z') || (p[i] >= '0' && p[i] <= '9') || p[i] == '-'))
      return 0;
  static const char *const dirs[] = {PASCAL_INSTALLED_PROFILES, PASCAL_SOURCE_PROFILES};
  struct stat st;
  for (size_t i = 0; i < sizeof dirs / sizeof *dirs; i++)
    if (snprintf(out, cap, "%s/%s.profile", dirs[i], p) < (int)cap && stat(out, &st) == 0)
      return 1;
  return 0;
}

/* Open the device of --profile (the built-in gb10-like without one); on
 * failure report it and return the exit status (2: no such profile, 1: a
 * profile file that does not parse). */
static int open_device(const char *cmd, const char *profile, pascal_simdev **dev)
{
  char path[4096];
  pascal_simdev_profile p;
  pascal_error err = {0};
  pascal_status st = PASCAL_OK;
  if (!profile) {
    pascal_simdev_profile_default(&p);
    snprintf(path, sizeof path, "the built-in profile");
  } else if (!profile_path(profile, path, sizeof path)) {
    fprintf(stderr,
            "pascal %s: --profile: '%.80s' is neither a shipped profile (gb10-like, "
            "thor-like, h100-like) nor a profile file\n",
            cmd, profile);
    return CLI_EXIT_USAGE;
  } else if ((st = pascal_simdev_profile_load(path, &p, &err)) == PASCAL_ENOTFOUND) {
    fprintf(stderr, "pascal %s: --profile: %s\n", cmd, err.message);
    return CLI_EXIT_USAGE;
  }
  if (st == PASCAL_OK)
    st = pascal_simdev_new(&p, dev, &err);
  return st ? cli_input_error(cmd, path, &err) : CLI_EXIT_OK;
}

/* The one answer of every workload: `inputs` (consumed) with the seed, the
 * device and what the sim counted. */
static json_t *sim_answer(json_t *inputs, const sim_opts *o, const pascal_simdev *dev,
                          const pascal_simdev_stats *st)
{
  json_object_set_new(inputs, "seed", json_integer((json_int_t)o->seed));
  json_object_set_new(inputs, "device", json_string(pascal_simdev_profile_of(dev)->name));
  json_object_set_new(inputs, "M", json_integer(st->M));
  json_object_set_new(inputs, "fill_bytes", json_real(st->fill_bytes));
  json_object_set_new(inputs, "K", json_real(st->K));
  json_object_set_new(inputs, "kernel_ns", json_real(st->kernel_ns));
  json_object_set_new(inputs, "requests", json_integer((json_int_t)st->requests));
  json_object_set_new(inputs, "hits", json_integer((json_int_t)st->hits));
  json_object_set_new(inputs, "merges", json_integer((json_int_t)st->merges));
  json_object_set_new(inputs, "fills", json_integer((json_int_t)st->fills));
  return inputs;
}

static pascal_status run_scan(pascal_simdev *dev, const sim_opts *o, json_t **doc,
                              pascal_error *err)
{
  if (strcmp(o->path, "tma") != 0 && strcmp(o->path, "sync") != 0)
    return pascal_error_set(err, PASCAL_EINVAL, "path", "must be sync or tma, got '%.40s'",
                            o->path);
  pascal_simdev_scan s = {.o = o->o,
                          .path_tma = strcmp(o->path, "tma") == 0,
                          .d = o->d,
                          .m = o->m,
                          .N = o->N,
                          .W = o->W,
                          .seed = o->seed};
  if (s.path_tma && s.d < 1)
    return pascal_error_set(err, PASCAL_EINVAL, "d", "the tma path needs a depth --d of 1 to 64");
  if (!s.path_tma && s.d != 0)
    return pascal_error_set(err, PASCAL_EINVAL, "d",
                            "the sync path has no depth (give --d 0 or none)");
  pascal_simdev_stats st;
  pascal_status status = pascal_simdev_run_scan(dev, &s, &st, NULL, err);
  if (!status)
    *doc = sim_answer(json_pack("{s:s, s:I, s:s, s:I, s:I, s:I, s:I}", "workload", "scan", "o",
                                (json_int_t)s.o, "path", o->path, "d", (json_int_t)s.d, "m",
                                (json_int_t)s.m, "N", (json_int_t)s.N, "W", (json_int_t)s.W),
                      o, dev, &st);
  return status;
}

/* "MxNxK" into three positive integers; 0 if it does not parse. */
static int parse_tile(const char *t, uint32_t v[3])
{
  unsigned long long x[3];
  char tail;
  if (sscanf(t, "%llux%llux%llu%c", &x[0], &x[1], &x[2], &tail) != 3)
    return 0;
  for (int i = 0; i < 3; i++) {
    if (x[i] < 1 || x[i] > 65536)
      return 0;
    v[i] = (uint32_t)x[i];
  }
  return t[0] >= '0' && t[0] <= '9';
}

static pascal_status run_gemm(pascal_simdev *dev, const sim_opts *o, json_t **doc,
                              pascal_error *err)
{
  pascal_calibration cal;
  pascal_calibration_init(&cal, PASCAL_WORKLOAD_GEMM); /* pascald's GEMM tiling */
  pascal_simdev_gemm g = {.tiling = cal.gemm,
                          .shape = {o->Mg, o->Ng, o->Kg},
                          .out_elem_bytes = SIM_GEMM_OUT_BYTES,
                          .seed = o->seed};
  uint32_t t[3];
  if (!parse_tile(o->tile, t))
    return pascal_error_set(err, PASCAL_EINVAL, "tile",
                            "must be MxNxK with each in [1, 65536], got '%.40s'", o->tile);
  g.tiling.tile_m = t[0];
  g.tiling.tile_n = t[1];
  g.tiling.tile_k = t[2];
  g.tiling.elem_bytes = o->elem_bytes;
  g.tiling.resident_ctas = pascal_simdev_profile_of(dev)->sm_count; /* one CTA per SM */
  g.m = pascal_simdev_gemm_step_m(&g.tiling);
  pascal_simdev_stats st;
  pascal_status status = pascal_simdev_run_gemm(dev, &g, &st, err);
  if (status && strcmp(err->field, "tile_n") == 0)
    snprintf(err->field, sizeof err->field, "tile");
  if (!status)
    *doc = sim_answer(json_pack("{s:s, s:I, s:I, s:I, s:s, s:I, s:I}", "workload", "gemm", "Mg",
                                (json_int_t)g.shape.Mg, "Ng", (json_int_t)g.shape.Ng, "Kg",
                                (json_int_t)g.shape.Kg, "tile", o->tile, "elem_bytes",
                                (json_int_t)g.tiling.elem_bytes, "resident_ctas",
                                (json_int_t)g.tiling.resident_ctas),
                      o, dev, &st);
  return status;
}

static pascal_status run_attention(pascal_simdev *dev, const sim_opts *o, json_t **doc,
                                   pascal_error *err)
{
  const pascal_simdev_profile *p = pascal_simdev_profile_of(dev);
  pascal_simdev_attention run = {.shape = {.seq_q = o->seq_q,
                                           .seq_kv = o->seq_kv,
                                           .heads = o->heads,
                                           .kv_heads = o->kv_heads,
                                           .head_dim = o->head_dim,
                                           .block_q = o->block_q,
                                           .block_kv = o->block_kv,
                                           .stages = o->stages,
                                           .elem_bytes = o->elem_bytes,
                                           .causal = (uint32_t)o->causal},
                                 .o = o->o,
                                 .seed = o->seed};
  pascal_attention_params a = {o->block_q, o->block_kv, o->head_dim, o->elem_bytes};
  if (!run.o &&
      !(run.o = pascal_attention_occupancy(&a, o->stages, p->smem_per_sm, SIM_MAX_OCCUPANCY)))
    return pascal_error_set(err, PASCAL_EINVAL, "stages",
                            "a query tile and %u K/V steps do not fit the profile's %llu bytes "
                            "of shared memory per SM",
                            o->stages, (unsigned long long)p->smem_per_sm);
  pascal_simdev_stats st;
  pascal_status status = pascal_simdev_run_attention(dev, &run, &st, err);
  if (!status) {
    double q_bytes = (double)o->seq_q * o->heads * o->head_dim * o->elem_bytes;
    *doc = sim_answer(json_pack("{s:s, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:b, s:I, "
                                "s:f}",
                                "workload", "attention", "o", (json_int_t)run.o, "seq_q",
                                (json_int_t)o->seq_q, "seq_kv", (json_int_t)o->seq_kv, "heads",
                                (json_int_t)o->heads, "kv_heads", (json_int_t)o->kv_heads,
                                "head_dim", (json_int_t)o->head_dim, "block_q",
                                (json_int_t)o->block_q, "block_kv", (json_int_t)o->block_kv,
                                "stages", (json_int_t)o->stages, "causal", o->causal, "elem_bytes",
                                (json_int_t)o->elem_bytes, "q_bytes", q_bytes),
                      o, dev, &st);
  }
  return status;
}

static const struct {
  const char *name;
  unsigned workload;
  pascal_status (*run)(pascal_simdev *, const sim_opts *, json_t **, pascal_error *);
} WORKLOADS[] = {
    {"scan", SCAN, run_scan},
    {"gemm", GEMM, run_gemm},
    {"attention", ATTENTION, run_attention},
};

int cli_cmd_sim(int argc, char **argv)
{
  size_t w = 0, n_w = sizeof WORKLOADS / sizeof *WORKLOADS;
  while (w < n_w && !(argc >= 1 && strcmp(argv[0], WORKLOADS[w].name) == 0))
    w++;
  if (w == n_w) {
    fprintf(stderr, "pascal sim: scan, gemm or attention expected, got '%.40s'\n",
            argc >= 1 ? argv[0] : "");
    return CLI_EXIT_USAGE;
  }
  char cmd[32];
  snprintf(cmd, sizeof cmd, "sim %s", WORKLOADS[w].name);
  sim_opts o = {.tile = "128x128x64",
                .elem_bytes = 2,
                .kv_heads = 1,
                .head_dim = 64,
                .block_q = 64,
                .block_kv = 64};
  cli_arg args[N_OPTIONS];
  size_t n = option_table(WORKLOADS[w].workload, &o, args);
  int rc = cli_parse(cmd, argc - 1, argv + 1, args, n, NULL, 0, 0, NULL);
  if (rc)
    return rc;
  pascal_simdev *dev = NULL;
  if ((rc = open_device(cmd, o.profile, &dev)))
    return rc;
  json_t *doc = NULL;
  pascal_error err = {0};
  pascal_status st = WORKLOADS[w].run(dev, &o, &doc, &err);
  pascal_simdev_free(dev);
  return cli_finish(cmd, args, n, st, doc, o.json, &err);
}
