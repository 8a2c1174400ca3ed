/*
 * cmd_sim.c - `pascal sim scan|gemm|attention`: one run on the CPU sim
 * device (core/include/pascal/simdev.h, docs/sim-device.md) without pascald
 * or an agent, for users who want to try a kernel and for tests and
 * autotuning benchmarks that need ground truth (fills, K, kernel time). A
 * scan is the open scan of the paper's Algorithm dynamic-kernel; a GEMM is
 * a matmul kernel in the configuration a Triton autotuner names
 * (pascal_simdev_gemm_of_config: tile, element size, stages, raster; CTAs
 * per SM from the profile's shared memory unless --ctas-per-sm gives them);
 * attention is one FlashAttention-2 forward launch (docs/attention.md) at
 * the plans' occupancy (pascal_attention_occupancy on the profile's shared
 * memory) unless --o gives one. docs/cli.md.
 *
 * The three share one option table (each row says which workloads take it
 * and which need it; the parser knows every row, and an option of another
 * workload is refused naming it) and one answer: the workload, its inputs,
 * the seed, the profile and the sim's counts (sim_answer).
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

#include "commands.h"
#include "output.h"
#include "pascal/attention.h"
#include "pascal/query.h"
#include "pascal/simdev.h"

#define SIM_MAX_OCCUPANCY 2u /* the attention plans' occupancy cap (docs/plans.md) */

enum { SCAN = 1, GEMM = 2, ATTENTION = 4, ALL = 7 };

/* Every option's destination. */
typedef struct sim_opts {
  const char *profile, *path, *tile;
  uint32_t o, d, m, Mg, Ng, Kg, elem_bytes, stages, group_m, ctas_per_sm;
  uint32_t seq_q, seq_kv, heads, kv_heads, head_dim, block_q, block_kv;
  uint64_t N, W, seed;
  int causal, json;
} sim_opts;

typedef struct sim_option {
  const char *name;
  cli_arg_kind kind;
  size_t offset; /* of its destination in sim_opts */
  uint64_t lo, hi;
  const char *meta, *help;
  unsigned takes, needs; /* workloads that take it, that need it */
} sim_option;

#define AT(f) offsetof(sim_opts, f)
static const sim_option OPTIONS[] = {
    {"profile", CLI_ARG_STRING, AT(profile), 0, 0, "P",
     "sim device profile: a shipped name (gb10-like, thor-like, h100-like) or a file (default: "
     "the built-in gb10-like)",
     ALL, 0},
    {"o", CLI_ARG_U32, AT(o), 1, 64, "O",
     "CTAs per SM (scan; attention: default the plans' occupancy for the profile, at most 2)",
     SCAN | ATTENTION, SCAN},
    {"path", CLI_ARG_STRING, AT(path), 0, 0, "sync|tma", "scan: load path", SCAN, SCAN},
    {"d", CLI_ARG_U32, AT(d), 0, 64, "D", "scan: TMA pipeline depth (0 or absent for sync)", SCAN,
     0},
    {"m", CLI_ARG_U32, AT(m), 0, 1000000, "M", "scan: compute operations per block", SCAN, SCAN},
    {"N", CLI_ARG_U64, AT(N), 1, UINT32_MAX, "N", "scan: length in blocks", SCAN, SCAN},
    {"W", CLI_ARG_U64, AT(W), 1, UINT32_MAX, "W", "scan: scans per resident worker", SCAN, SCAN},
    {"Mg", CLI_ARG_U32, AT(Mg), 1, UINT32_MAX, "M", "gemm: rows of the output (A rows)", GEMM,
     GEMM},
    {"Ng", CLI_ARG_U32, AT(Ng), 1, UINT32_MAX, "N", "gemm: columns of the output (B columns)", GEMM,
     GEMM},
    {"Kg", CLI_ARG_U32, AT(Kg), 1, UINT32_MAX, "K", "gemm: reduction length", GEMM, GEMM},
    {"tile", CLI_ARG_STRING, AT(tile), 0, 0, "MxNxK",
     "gemm: the CTA tile, BLOCK_M x BLOCK_N x "
     "BLOCK_K",
     GEMM, GEMM},
    {"stages", CLI_ARG_U32, AT(stages), 1, 64, "S",
     "gemm: buffered k-steps (num_stages, at most 16); attention: K/V pipeline stages",
     GEMM | ATTENTION, GEMM | ATTENTION},
    {"elem-bytes", CLI_ARG_U32, AT(elem_bytes), 1, 8, "B",
     "bytes per input element (gemm: required; attention: default 2)", GEMM | ATTENTION, GEMM},
    {"group-m", CLI_ARG_U32, AT(group_m), 1, PASCAL_QUERY_GROUP_MAX, "G",
     "gemm: grouped raster GROUP_SIZE_M (default 1: direct)", GEMM, 0},
    {"ctas-per-sm", CLI_ARG_U32, AT(ctas_per_sm), 1, 64, "C",
     "gemm: resident CTAs per SM (default: as many as the shared memory holds; 1: the "
     "calibration runs')",
     GEMM, 0},
    {"seq-q", CLI_ARG_U32, AT(seq_q), 1, INT32_MAX, "Q", "attention: query length", ATTENTION,
     ATTENTION},
    {"seq-kv", CLI_ARG_U32, AT(seq_kv), 1, INT32_MAX, "S", "attention: key/value length", ATTENTION,
     ATTENTION},
    {"heads", CLI_ARG_U32, AT(heads), 1, 65536, "H", "attention: query heads", ATTENTION,
     ATTENTION},
    {"kv-heads", CLI_ARG_U32, AT(kv_heads), 1, 65536, "G", "attention: key/value heads (default 1)",
     ATTENTION, 0},
    {"head-dim", CLI_ARG_U32, AT(head_dim), 16, 1024, "D", "attention: head dimension (default 64)",
     ATTENTION, 0},
    {"block-q", CLI_ARG_U32, AT(block_q), 16, 1024, "BQ", "attention: query tile rows (default 64)",
     ATTENTION, 0},
    {"block-kv", CLI_ARG_U32, AT(block_kv), 16, 1024, "BK",
     "attention: key/value tile rows (default 64)", ATTENTION, 0},
    {"causal", CLI_ARG_FLAG, AT(causal), 0, 0, NULL, "attention: causal mask", ATTENTION, 0},
    {"seed", CLI_ARG_U64, AT(seed), 0, UINT64_MAX, "SEED",
     "random seed of the sim: a calibration job's repeat index (default 0)", ALL, 0},
    {"json", CLI_ARG_FLAG, AT(json), 0, 0, NULL,
     "print the JSON document instead of key: value lines", ALL, 0},
};
#undef AT
#define N_OPTIONS (sizeof OPTIONS / sizeof *OPTIONS)

/* The parser's table, pointing into *o: every option (another workload's
 * is refused after parsing), required as `workload` needs it; for the help
 * without a workload, required where every workload taking it needs it. */
static void option_table(unsigned workload, sim_opts *o, cli_arg args[N_OPTIONS])
{
  for (size_t i = 0; i < N_OPTIONS; i++) {
    const sim_option *r = &OPTIONS[i];
    int required = workload == ALL ? r->needs == r->takes : (r->needs & workload) != 0;
    args[i] = (cli_arg){r->name, 0,     r->kind, required, (char *)o + r->offset,
                        r->lo,   r->hi, r->meta, r->help,  0};
  }
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

/* The profile of --profile (the built-in gb10-like without one); on failure
 * report it and return the exit status (2: no such profile, 1: a profile
 * file that does not parse). */
static int load_profile(const char *cmd, const char *profile, pascal_simdev_profile *p)
{
  char path[4096];
  pascal_error err = {0};
  if (!profile) {
    pascal_simdev_profile_default(p);
    return CLI_EXIT_OK;
  }
  if (!profile_path(profile, path, sizeof path)) {
    fprintf(stderr,
            "pascal %s: --profile: '%.80s' is neither a shipped profile (gb10-like, "
            "thor-like, h100-like) nor a profile file\n",
            cmd, profile);
    return CLI_EXIT_USAGE;
  }
  pascal_status st = pascal_simdev_profile_load(path, p, &err);
  if (st == PASCAL_ENOTFOUND) {
    fprintf(stderr, "pascal %s: --profile: %s\n", cmd, err.message);
    return CLI_EXIT_USAGE;
  }
  return st ? cli_input_error(cmd, path, &err) : CLI_EXIT_OK;
}

/* The one answer of every workload: `inputs` (consumed) with the seed, the
 * profile and what the sim counted. */
static json_t *sim_answer(json_t *inputs, const sim_opts *o, const pascal_simdev_profile *p,
                          const pascal_simdev_stats *st)
{
  json_object_set_new(inputs, "seed", json_integer((json_int_t)o->seed));
  json_object_set_new(inputs, "profile", json_string(p->name));
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

/* Run on a fresh device of profile p. */
static pascal_status run_on(const pascal_simdev_profile *p, unsigned workload, const void *run,
                            pascal_simdev_stats *out, pascal_error *err)
{
  pascal_simdev *dev = NULL;
  pascal_status st = pascal_simdev_new(p, &dev, err);
  if (!st && workload == SCAN)
    st = pascal_simdev_run_scan(dev, run, out, NULL, err);
  else if (!st && workload == GEMM)
    st = pascal_simdev_run_gemm(dev, run, out, err);
  else if (!st)
    st = pascal_simdev_run_attention(dev, run, out, err);
  pascal_simdev_free(dev);
  return st;
}

static pascal_status sim_scan(const pascal_simdev_profile *p, const sim_opts *o, json_t **doc,
                              pascal_error *err)
{
  pascal_path kind;
  pascal_status st = pascal_path_parse(o->path, "--path", &kind, err);
  if (st)
    return st;
  if (kind == PASCAL_PATH_TMA && o->d == 0)
    return pascal_error_set(err, PASCAL_EINVAL, "--d", "--d (>= 1) is required for --path tma");
  if (kind == PASCAL_PATH_SYNC && o->d != 0)
    return pascal_error_set(err, PASCAL_EINVAL, "--d", "--d must be 0 (or absent) for --path sync");
  pascal_simdev_scan s = {.o = o->o,
                          .path_tma = kind == PASCAL_PATH_TMA,
                          .d = o->d,
                          .m = o->m,
                          .N = o->N,
                          .W = o->W,
                          .seed = o->seed};
  pascal_simdev_stats out;
  if ((st = run_on(p, SCAN, &s, &out, err)))
    return st;
  *doc = sim_answer(json_pack("{s:s, s:I, s:s, s:I, s:I, s:I, s:I}", "workload", "scan", "o",
                              (json_int_t)s.o, "path", o->path, "d", (json_int_t)s.d, "m",
                              (json_int_t)s.m, "N", (json_int_t)s.N, "W", (json_int_t)s.W),
                    o, p, &out);
  return PASCAL_OK;
}

/* "MxNxK" with each side in 1..PASCAL_QUERY_TILE_MAX. */
static pascal_status parse_tile(const char *text, pascal_gemm_config *c, pascal_error *err)
{
  unsigned m, n, k;
  char tail;
  if (sscanf(text, "%ux%ux%u%c", &m, &n, &k, &tail) != 3 || m < 1 || n < 1 || k < 1 ||
      m > PASCAL_QUERY_TILE_MAX || n > PASCAL_QUERY_TILE_MAX || k > PASCAL_QUERY_TILE_MAX)
    return pascal_error_set(err, PASCAL_EINVAL, "--tile",
                            "--tile must be MxNxK with each side in [1, %d], got \"%.40s\"",
                            PASCAL_QUERY_TILE_MAX, text);
  c->tile_m = m;
  c->tile_n = n;
  c->tile_k = k;
  return PASCAL_OK;
}

static pascal_status sim_gemm(const pascal_simdev_profile *p, const sim_opts *o, json_t **doc,
                              pascal_error *err)
{
  pascal_gemm_config c = {.elem_bytes = o->elem_bytes, .stages = o->stages, .group_m = o->group_m};
  pascal_gemm_shape shape = {o->Mg, o->Ng, o->Kg};
  pascal_status st = parse_tile(o->tile, &c, err);
  if (st)
    return st;
  if (c.elem_bytes != 1 && c.elem_bytes != 2 && c.elem_bytes != 4 && c.elem_bytes != 8)
    return pascal_error_set(err, PASCAL_EINVAL, "--elem-bytes",
                            "--elem-bytes must be 1, 2, 4 or 8");
  if (c.stages > PASCAL_GEMM_STAGES_MAX)
    return pascal_error_set(err, PASCAL_EINVAL, "--stages", "--stages must be at most %u for gemm",
                            PASCAL_GEMM_STAGES_MAX);
  pascal_simdev_gemm run;
  if ((st = pascal_simdev_gemm_of_config(p, &shape, &c, o->seed, &run, err)))
    return st;
  if (o->ctas_per_sm) /* given: the shared memory is not asked */
    run.tiling.resident_ctas = o->ctas_per_sm * p->sm_count;
  pascal_simdev_stats out;
  if ((st = run_on(p, GEMM, &run, &out, err)))
    return st;
  *doc =
      sim_answer(json_pack("{s:s, s:I, s:I, s:I, s:s, s:I, s:I, s:I, s:I}", "workload", "gemm",
                           "Mg", (json_int_t)o->Mg, "Ng", (json_int_t)o->Ng, "Kg",
                           (json_int_t)o->Kg, "tile", o->tile, "stages", (json_int_t)c.stages,
                           "elem_bytes", (json_int_t)c.elem_bytes, "group_m", (json_int_t)c.group_m,
                           "ctas_per_sm", (json_int_t)(run.tiling.resident_ctas / p->sm_count)),
                 o, p, &out);
  return PASCAL_OK;
}

static pascal_status sim_attention(const pascal_simdev_profile *p, const sim_opts *o, json_t **doc,
                                   pascal_error *err)
{
  uint32_t elem = o->elem_bytes ? o->elem_bytes : 2;
  pascal_simdev_attention run = {.shape = {.seq_q = o->seq_q,
                                           .seq_kv = o->seq_kv,
                                           .heads = o->heads,
                                           .kv_heads = o->kv_heads,
                                           .head_dim = o->head_dim,
                                           .block_q = o->block_q,
                                           .block_kv = o->block_kv,
                                           .stages = o->stages,
                                           .elem_bytes = elem,
                                           .causal = (uint32_t)o->causal},
                                 .o = o->o,
                                 .seed = o->seed};
  pascal_attention_params a = {o->block_q, o->block_kv, o->head_dim, elem};
  if (!run.o &&
      !(run.o = pascal_attention_occupancy(&a, o->stages, p->smem_per_sm, SIM_MAX_OCCUPANCY)))
    return pascal_error_set(err, PASCAL_EINVAL, "stages",
                            "a query tile and %u K/V steps do not fit the profile's %llu bytes "
                            "of shared memory per SM",
                            o->stages, (unsigned long long)p->smem_per_sm);
  pascal_simdev_stats out;
  pascal_status st = run_on(p, ATTENTION, &run, &out, err);
  if (st)
    return st;
  double q_bytes = (double)o->seq_q * o->heads * o->head_dim * elem;
  *doc =
      sim_answer(json_pack("{s:s, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:b, s:I, s:f}",
                           "workload", "attention", "o", (json_int_t)run.o, "seq_q",
                           (json_int_t)o->seq_q, "seq_kv", (json_int_t)o->seq_kv, "heads",
                           (json_int_t)o->heads, "kv_heads", (json_int_t)o->kv_heads, "head_dim",
                           (json_int_t)o->head_dim, "block_q", (json_int_t)o->block_q, "block_kv",
                           (json_int_t)o->block_kv, "stages", (json_int_t)o->stages, "causal",
                           o->causal, "elem_bytes", (json_int_t)elem, "q_bytes", q_bytes),
                 o, p, &out);
  return PASCAL_OK;
}

static const struct {
  const char *name;
  unsigned workload;
  pascal_status (*run)(const pascal_simdev_profile *, const sim_opts *, json_t **, pascal_error *);
} WORKLOADS[] = {
    {"scan", SCAN, sim_scan},
    {"gemm", GEMM, sim_gemm},
    {"attention", ATTENTION, sim_attention},
};

int cli_cmd_sim(int argc, char **argv)
{
  size_t w = 0, n_w = sizeof WORKLOADS / sizeof *WORKLOADS;
  while (w < n_w && !(argc >= 1 && strcmp(argv[0], WORKLOADS[w].name) == 0))
    w++;
  sim_opts o = {.kv_heads = 1, .head_dim = 64, .block_q = 64, .block_kv = 64, .group_m = 1};
  cli_arg args[N_OPTIONS];
  if (w == n_w) {
    if (cli_args_wants_help(argc, argv)) { /* every workload's options */
      option_table(ALL, &o, args);
      return cli_parse("sim", argc, argv, args, N_OPTIONS, NULL, 0, 0, NULL);
    }
    fprintf(stderr,
            "pascal sim: the first argument must be scan, gemm or attention, got "
            "'%.40s' (docs/cli.md)\n",
            argc >= 1 ? argv[0] : "");
    return CLI_EXIT_USAGE;
  }
  unsigned workload = WORKLOADS[w].workload;
  char cmd[32];
  snprintf(cmd, sizeof cmd, "sim %s", WORKLOADS[w].name);
  option_table(workload, &o, args);
  if (cli_args_wants_help(argc - 1, argv + 1)) { /* this workload's options */
    size_t n = 0;
    for (size_t i = 0; i < N_OPTIONS; i++)
      if (OPTIONS[i].takes & workload)
        args[n++] = args[i];
    printf("options:\n");
    cli_args_help(stdout, args, n);
    return CLI_HELP_SHOWN;
  }
  int rc = cli_parse(cmd, argc - 1, argv + 1, args, N_OPTIONS, NULL, 0, 0, NULL);
  if (rc)
    return rc;
  for (size_t i = 0; i < N_OPTIONS; i++)
    if (args[i].seen && !(OPTIONS[i].takes & workload)) {
      fprintf(stderr, "pascal %s: --%s: not an option of %s\n", cmd, OPTIONS[i].name,
              WORKLOADS[w].name);
      return CLI_EXIT_USAGE;
    }
  pascal_simdev_profile p;
  if ((rc = load_profile(cmd, o.profile, &p)))
    return rc;
  json_t *doc = NULL;
  pascal_error err = {0};
  pascal_status st = WORKLOADS[w].run(&p, &o, &doc, &err);
  if (st == PASCAL_EREFUSED)
    return cli_input_error(cmd, "refused", &err);
  return cli_finish(cmd, args, N_OPTIONS, st, doc, o.json, &err);
}
