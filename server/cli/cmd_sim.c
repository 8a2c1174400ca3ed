/*
 * cmd_sim.c - `pascal sim gemm|scan|attention`: one run on the CPU sim
 * device (core/include/pascal/simdev.h, docs/sim-device.md) without pascald
 * or an agent, for users who want to try a kernel and for tests and
 * autotuning benchmarks that need ground truth. A GEMM is a matmul kernel in
 * the configuration a Triton autotuner names (pascal_simdev_gemm_of_config:
 * tile, element size, stages, raster; CTAs per SM from the profile's shared
 * memory); a scan is the open scan of the paper's Algorithm dynamic-kernel;
 * attention is one FlashAttention-2 forward launch (docs/attention.md) at
 * the plans' occupancy (pascal_attention_occupancy on the profile's shared
 * memory) unless --o gives one. One table below names each workload, its
 * runner and its usage. docs/cli.md.
 */
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "output.h"
#include "pascal/attention.h"
#include "pascal/simdev.h"

/* The occupancy cap of the attention plans (docs/plans.md). */
#define SIM_MAX_OCCUPANCY 2u

/* The profile: absent or gb10-like the built-in one, another bare NAME the
 * checkout's deploy/profiles/NAME.profile, anything else a profile file.
 * Errors name --profile. */
static pascal_status load_profile(const char *name, pascal_simdev_profile *p, pascal_error *err)
{
  if (!name || strcmp(name, "gb10-like") == 0) {
    pascal_simdev_profile_default(p);
    return PASCAL_OK;
  }
  char path[512];
  if (!strchr(name, '/') && !strchr(name, '.'))
    snprintf(path, sizeof path, "deploy/profiles/%s.profile", name);
  else
    snprintf(path, sizeof path, "%s", name);
  pascal_error load;
  if (pascal_simdev_profile_load(path, p, &load))
    return pascal_error_set(err, PASCAL_EINVAL, "--profile", "%s", load.message);
  return PASCAL_OK;
}

/* "MxNxK" with each side in 1..4096. */
static pascal_status parse_tile(const char *text, pascal_gemm_config *c, pascal_error *err)
{
  unsigned m, n, k;
  char tail;
  if (!text || sscanf(text, "%ux%ux%u%c", &m, &n, &k, &tail) != 3 || m < 1 || n < 1 || k < 1 ||
      m > PASCAL_QUERY_TILE_MAX || n > PASCAL_QUERY_TILE_MAX || k > PASCAL_QUERY_TILE_MAX)
    return pascal_error_set(err, PASCAL_EINVAL, "--tile",
                            "--tile must be MxNxK with each side in [1, %d], got \"%s\"",
                            PASCAL_QUERY_TILE_MAX, text ? text : "");
  c->tile_m = m;
  c->tile_n = n;
  c->tile_k = k;
  return PASCAL_OK;
}

/* What every workload prints: the sim's counters of the run. */
static json_t *stats_doc(const char *workload, const char *profile, const pascal_simdev_stats *st)
{
  return json_pack("{s:s,s:s,s:f,s:f,s:f,s:I,s:I,s:I,s:I,s:i}", "workload", workload, "profile",
                   profile, "fill_bytes", st->fill_bytes, "K", st->K, "kernel_ns", st->kernel_ns,
                   "requests", (json_int_t)st->requests, "hits", (json_int_t)st->hits, "merges",
                   (json_int_t)st->merges, "fills", (json_int_t)st->fills, "M", (int)st->M);
}

static int sim_gemm(int argc, char **argv)
{
  const char *profile = NULL, *tile = NULL;
  pascal_gemm_shape shape = {0};
  pascal_gemm_config c = {0, 0, 0, 2, 1, 1};
  uint64_t seed = 0;
  int json = 0;
  cli_arg args[] = {
      {"profile", 0, CLI_ARG_STRING, 0, &profile, 0, 0, "FILE",
       "sim device profile: a shipped name (gb10-like, thor-like) or a file (default gb10-like)",
       0},
      {"Mg", 0, CLI_ARG_U32, 1, &shape.Mg, 1, UINT32_MAX, "M", "rows of the output (A rows)", 0},
      {"Ng", 0, CLI_ARG_U32, 1, &shape.Ng, 1, UINT32_MAX, "N", "columns of the output (B columns)",
       0},
      {"Kg", 0, CLI_ARG_U32, 1, &shape.Kg, 1, UINT32_MAX, "K", "reduction length", 0},
      {"tile", 0, CLI_ARG_STRING, 1, &tile, 0, 0, "MxNxK",
       "the CTA tile, BLOCK_M x BLOCK_N x BLOCK_K", 0},
      {"stages", 0, CLI_ARG_U32, 1, &c.stages, 1, PASCAL_GEMM_STAGES_MAX, "S",
       "buffered k-steps of the pipeline (num_stages)", 0},
      {"elem-bytes", 0, CLI_ARG_U32, 1, &c.elem_bytes, 1, 8, "B", "bytes per input element", 0},
      {"group-m", 0, CLI_ARG_U32, 0, &c.group_m, 1, PASCAL_QUERY_GROUP_MAX, "G",
       "grouped raster GROUP_SIZE_M (default 1: direct)", 0},
      {"seed", 0, CLI_ARG_U64, 0, &seed, 0, UINT64_MAX, "SEED",
       "random seed of the sim (default 0)", 0},
      {"json", 0, CLI_ARG_FLAG, 0, &json, 0, 0, NULL,
       "print the JSON document instead of key: value lines", 0},
  };
  int rc = cli_parse("sim gemm", argc, argv, args, N_ARGS(args), NULL, 0, 0, NULL);
  if (rc)
    return rc;
  pascal_error err = {0};
  pascal_simdev_profile p;
  pascal_status st = parse_tile(tile, &c, &err);
  if (!st && c.elem_bytes != 1 && c.elem_bytes != 2 && c.elem_bytes != 4 && c.elem_bytes != 8)
    st = pascal_error_set(&err, PASCAL_EINVAL, "--elem-bytes", "--elem-bytes must be 1, 2, 4 or 8");
  if (!st)
    st = load_profile(profile, &p, &err);
  if (st)
    return cli_arg_error("sim gemm", args, N_ARGS(args), &err);
  pascal_simdev_stats out;
  pascal_simdev_gemm run;
  pascal_simdev *dev = NULL;
  st = pascal_simdev_gemm_of_config(&p, &shape, &c, seed, &run, &err);
  if (st == PASCAL_EREFUSED)
    return cli_input_error("sim gemm", "refused", &err);
  if (!st)
    st = pascal_simdev_new(&p, &dev, &err);
  if (!st)
    st = pascal_simdev_run_gemm(dev, &run, &out, &err);
  pascal_simdev_free(dev);
  if (st)
    return cli_arg_error("sim gemm", args, N_ARGS(args), &err);
  json_t *doc = stats_doc("gemm", p.name, &out);
  json_object_set_new(doc, "tile", json_string(tile));
  json_object_set_new(doc, "stages", json_integer(c.stages));
  json_object_set_new(doc, "elem_bytes", json_integer(c.elem_bytes));
  json_object_set_new(doc, "group_m", json_integer(c.group_m));
  json_object_set_new(doc, "ctas_per_sm", json_integer(run.tiling.resident_ctas / p.sm_count));
  return cli_print(doc, json);
}

static int sim_scan(int argc, char **argv)
{
  const char *profile = NULL, *path = NULL;
  pascal_simdev_scan s = {0};
  int json = 0;
  cli_arg args[] = {
      {"profile", 0, CLI_ARG_STRING, 0, &profile, 0, 0, "FILE",
       "sim device profile: a shipped name (gb10-like, thor-like) or a file (default gb10-like)",
       0},
      {"o", 0, CLI_ARG_U32, 1, &s.o, 1, 64, "O", "CTAs per SM", 0},
      {"path", 0, CLI_ARG_STRING, 1, &path, 0, 0, "sync|tma", "load path", 0},
      {"d", 0, CLI_ARG_U32, 0, &s.d, 0, 64, "D", "TMA pipeline depth (0 for sync)", 0},
      {"m", 0, CLI_ARG_U32, 1, &s.m, 0, 1000000, "M", "compute operations per block", 0},
      {"N", 0, CLI_ARG_U64, 1, &s.N, 1, UINT32_MAX, "N", "scan length in blocks", 0},
      {"W", 0, CLI_ARG_U64, 1, &s.W, 1, UINT32_MAX, "W", "scans per resident worker", 0},
      {"seed", 0, CLI_ARG_U64, 0, &s.seed, 0, UINT64_MAX, "SEED",
       "random seed of the sim (default 0)", 0},
      {"json", 0, CLI_ARG_FLAG, 0, &json, 0, 0, NULL,
       "print the JSON document instead of key: value lines", 0},
  };
  int rc = cli_parse("sim scan", argc, argv, args, N_ARGS(args), NULL, 0, 0, NULL);
  if (rc)
    return rc;
  pascal_error err = {0};
  pascal_simdev_profile p;
  pascal_path kind;
  pascal_status st = pascal_path_parse(path, "--path", &kind, &err);
  if (!st && kind == PASCAL_PATH_TMA && s.d == 0)
    st = pascal_error_set(&err, PASCAL_EINVAL, "--d", "--d (>= 1) is required for --path tma");
  if (!st && kind == PASCAL_PATH_SYNC && s.d != 0)
    st = pascal_error_set(&err, PASCAL_EINVAL, "--d", "--d must be 0 (or absent) for --path sync");
  if (!st)
    st = load_profile(profile, &p, &err);
  s.path_tma = kind == PASCAL_PATH_TMA;
  pascal_simdev *dev = NULL;
  pascal_simdev_stats out;
  if (!st)
    st = pascal_simdev_new(&p, &dev, &err);
  if (!st)
    st = pascal_simdev_run_scan(dev, &s, &out, NULL, &err);
  pascal_simdev_free(dev);
  if (st)
    return cli_arg_error("sim scan", args, N_ARGS(args), &err);
  return cli_print(stats_doc("scan", p.name, &out), json);
}

static int sim_attention(int argc, char **argv)
{
  const char *profile = NULL;
  pascal_simdev_attention run;
  memset(&run, 0, sizeof run);
  pascal_attention_shape *s = &run.shape;
  s->block_q = s->block_kv = s->head_dim = 64;
  s->elem_bytes = 2;
  s->kv_heads = 1;
  int json = 0, causal = 0;
  cli_arg args[] = {
      {"profile", 0, CLI_ARG_STRING, 0, &profile, 0, 0, "FILE",
       "sim device profile: a shipped name (gb10-like, thor-like) or a file (default gb10-like)",
       0},
      {"seq-q", 0, CLI_ARG_U32, 1, &s->seq_q, 1, INT32_MAX, "Q", "query length", 0},
      {"seq-kv", 0, CLI_ARG_U32, 1, &s->seq_kv, 1, INT32_MAX, "S", "key/value length", 0},
      {"heads", 0, CLI_ARG_U32, 1, &s->heads, 1, 65536, "H", "query heads", 0},
      {"kv-heads", 0, CLI_ARG_U32, 0, &s->kv_heads, 1, 65536, "G", "key/value heads (default 1)",
       0},
      {"head-dim", 0, CLI_ARG_U32, 0, &s->head_dim, 16, 1024, "D", "head dimension (default 64)",
       0},
      {"block-q", 0, CLI_ARG_U32, 0, &s->block_q, 16, 1024, "BQ", "query tile rows (default 64)",
       0},
      {"block-kv", 0, CLI_ARG_U32, 0, &s->block_kv, 16, 1024, "BK",
       "key/value tile rows (default 64)", 0},
      {"stages", 0, CLI_ARG_U32, 1, &s->stages, 1, 64, "S", "K/V pipeline stages", 0},
      {"elem-bytes", 0, CLI_ARG_U32, 0, &s->elem_bytes, 1, 8, "E", "bytes per element (default 2)",
       0},
      {"causal", 0, CLI_ARG_FLAG, 0, &causal, 0, 0, NULL, "causal mask", 0},
      {"o", 0, CLI_ARG_U32, 0, &run.o, 1, 64, "O",
       "CTAs per SM (default: the plans' occupancy for the profile, at most 2)", 0},
      {"seed", 0, CLI_ARG_U64, 0, &run.seed, 0, UINT64_MAX, "SEED",
       "random seed of the sim (default 0)", 0},
      {"json", 0, CLI_ARG_FLAG, 0, &json, 0, 0, NULL,
       "print the JSON document instead of key: value lines", 0},
  };
  int rc = cli_parse("sim attention", argc, argv, args, N_ARGS(args), NULL, 0, 0, NULL);
  if (rc)
    return rc;
  s->causal = (uint32_t)causal;
  pascal_error err = {0};
  pascal_simdev_profile p;
  pascal_status st = load_profile(profile, &p, &err);
  if (st)
    return cli_arg_error("sim attention", args, N_ARGS(args), &err);
  pascal_attention_params a = {s->block_q, s->block_kv, s->head_dim, s->elem_bytes};
  if (!run.o &&
      !(run.o = pascal_attention_occupancy(&a, s->stages, p.smem_per_sm, SIM_MAX_OCCUPANCY))) {
    pascal_error_set(&err, PASCAL_EINVAL, "stages",
                     "a query tile and %u K/V steps do not fit the profile's %llu bytes of shared "
                     "memory per SM",
                     s->stages, (unsigned long long)p.smem_per_sm);
    return cli_arg_error("sim attention", args, N_ARGS(args), &err);
  }
  pascal_simdev *dev = NULL;
  pascal_simdev_stats out;
  st = pascal_simdev_new(&p, &dev, &err);
  if (!st)
    st = pascal_simdev_run_attention(dev, &run, &out, &err);
  pascal_simdev_free(dev);
  if (st)
    return cli_arg_error("sim attention", args, N_ARGS(args), &err);
  json_t *doc = stats_doc("attention", p.name, &out);
  json_object_set_new(doc, "o", json_integer(run.o));
  json_object_set_new(doc, "seed", json_integer((json_int_t)run.seed));
  json_object_set_new(doc, "q_bytes",
                      json_real((double)s->seq_q * s->heads * s->head_dim * s->elem_bytes));
  return cli_print(doc, json);
}

/* The workloads `pascal sim` runs. */
static const struct {
  const char *name;
  int (*run)(int argc, char **argv);
} workloads[] = {
    {"gemm", sim_gemm},
    {"scan", sim_scan},
    {"attention", sim_attention},
};

int cli_cmd_sim(int argc, char **argv)
{
  for (size_t i = 0; argc >= 1 && i < sizeof workloads / sizeof *workloads; i++)
    if (strcmp(argv[0], workloads[i].name) == 0)
      return workloads[i].run(argc - 1, argv + 1);
  if (cli_args_wants_help(argc, argv)) {
    printf("pascal sim gemm|scan|attention OPTIONS: one run on the sim device\n"
           "(`pascal sim WORKLOAD --help` lists the workload's options)\n");
    return CLI_EXIT_OK;
  }
  fprintf(stderr, "pascal sim: the first argument must be gemm, scan or attention (docs/cli.md)\n");
  return CLI_EXIT_USAGE;
}
