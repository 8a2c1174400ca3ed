/*
 * cmd_sim.c - `pascal sim attention`: one FlashAttention-2 forward launch
 * on the sim device (pascal/simdev.h, docs/attention.md), its fills and
 * time as the sim measures them, without pascald or an agent: the
 * measurement an autotuner's ranking is scored against. The occupancy is
 * the plans' (pascal_attention_occupancy on the profile's shared memory)
 * unless --o gives one.
 */
#include <string.h>

#include "args.h"
#include "commands.h"
#include "output.h"
#include "pascal/attention.h"
#include "pascal/simdev.h"

/* The occupancy cap of the plans (docs/plans.md). */
#define SIM_MAX_OCCUPANCY 2u

static json_t *stats_doc(const pascal_simdev_attention *run, const pascal_simdev_stats *st,
                         double q_bytes)
{
  return json_pack("{s:s,s:I,s:I,s:f,s:f,s:f,s:I,s:I,s:I,s:I,s:I,s:f}", "workload", "attention",
                   "o", (json_int_t)run->o, "M", (json_int_t)st->M, "fill_bytes", st->fill_bytes,
                   "kernel_ns", st->kernel_ns, "K", st->K, "requests", (json_int_t)st->requests,
                   "hits", (json_int_t)st->hits, "merges", (json_int_t)st->merges, "fills",
                   (json_int_t)st->fills, "seed", (json_int_t)run->seed, "q_bytes", q_bytes);
}

static int sim_attention(int argc, char **argv)
{
  const char *profile_path = NULL;
  pascal_simdev_attention run;
  memset(&run, 0, sizeof run);
  pascal_attention_shape *s = &run.shape;
  s->block_q = s->block_kv = s->head_dim = 64;
  s->elem_bytes = 2;
  s->kv_heads = 1;
  int json = 0, causal = 0;
  cli_arg args[] = {
      {"profile", 0, CLI_ARG_STRING, 0, &profile_path, 0, 0, "FILE",
       "sim device profile (default: the built-in gb10-like one)", 0},
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
  if (rc != CLI_EXIT_OK)
    return rc;
  s->causal = (uint32_t)causal;
  pascal_error err;
  pascal_error_clear(&err);
  pascal_simdev_profile profile;
  pascal_simdev *dev = NULL;
  pascal_status st = PASCAL_OK;
  if (profile_path)
    st = pascal_simdev_profile_load(profile_path, &profile, &err);
  else
    pascal_simdev_profile_default(&profile);
  if (st) {
    rc = cli_input_error("sim attention", profile_path, &err);
    goto done;
  }
  pascal_attention_params a = {s->block_q, s->block_kv, s->head_dim, s->elem_bytes};
  if (!run.o && !(run.o = pascal_attention_occupancy(&a, s->stages, profile.smem_per_sm,
                                                     SIM_MAX_OCCUPANCY))) {
    pascal_error_set(&err, PASCAL_EINVAL, "stages",
                     "a query tile and %u K/V steps do not fit the profile's %llu bytes of shared "
                     "memory per SM",
                     s->stages, (unsigned long long)profile.smem_per_sm);
    rc = cli_arg_error("sim attention", args, N_ARGS(args), &err);
    goto done;
  }
  pascal_simdev_stats stats;
  if ((st = pascal_simdev_new(&profile, &dev, &err)) ||
      (st = pascal_simdev_run_attention(dev, &run, &stats, &err))) {
    rc = cli_arg_error("sim attention", args, N_ARGS(args), &err);
    goto done;
  }
  double q_bytes = (double)s->seq_q * s->heads * s->head_dim * s->elem_bytes;
  rc = cli_print(stats_doc(&run, &stats, q_bytes), json);
done:
  pascal_simdev_free(dev);
  cli_args_release(args, N_ARGS(args));
  return rc;
}

int cli_cmd_sim(int argc, char **argv)
{
  if (argc >= 1 && strcmp(argv[0], "attention") == 0)
    return sim_attention(argc - 1, argv + 1);
  if (cli_args_wants_help(argc, argv)) /* the one workload's options */
    return sim_attention(argc, argv);
  fprintf(stderr, "pascal sim: give a workload: pascal sim attention ... (docs/cli.md)\n");
  return CLI_EXIT_USAGE;
}
