/*
 * cmd_static.c - `pascal bounds|simulate|coherence|feedback`: the static
 * theory of paper section 3 on the command line. Arguments are parsed by
 * args.c, the answer is computed and encoded by the codec
 * (pascal_codec_static.h), so pascald answers with the same document.
 */
#include <stdint.h>

#include "args.h"
#include "commands.h"
#include "output.h"
#include "pascal_codec_static.h"

int cli_cmd_bounds(int argc, char **argv)
{
  pascal_codec_bounds_query q = {0};
  cli_u64_list phases = {0};
  int json = 0;
  cli_arg args[] = {
      {"N", 0, CLI_ARG_U64, 1, &q.n, 0, UINT64_MAX, "N", "blocks in the cyclic scan (N > C)", 0},
      {"C", 0, CLI_ARG_U64, 1, &q.c, 0, UINT64_MAX, "C", "cache capacity in blocks (1 <= C < N)",
       0},
      {"phases", 0, CLI_ARG_U64_LIST, 1, &phases, 0, UINT64_MAX, "P,P,...",
       "the workers' phases, each in [0, N)", 0},
      {"ways", 0, CLI_ARG_U64, 0, &q.ways, 1, UINT64_MAX, "A",
       "associativity of the SDCM and TileSight geometry (with --sets, A x S = C)", 0},
      {"sets", 0, CLI_ARG_U64, 0, &q.sets, 1, UINT64_MAX, "S",
       "sets of that geometry (with --ways; default fully associative)", 0},
      {"json", 0, CLI_ARG_FLAG, 0, &json, 0, 0, NULL,
       "print the JSON document instead of key: value lines", 0},
  };
  int rc = cli_parse("bounds", argc, argv, args, N_ARGS(args), NULL, 0, 0, NULL);
  if (rc == CLI_EXIT_OK) {
    pascal_error err = {0};
    json_t *doc = NULL;
    q.phases = phases.v;
    q.m = phases.n;
    pascal_status st = pascal_codec_bounds(&q, &doc, &err);
    rc = cli_finish("bounds", args, N_ARGS(args), st, doc, json, &err);
  }
  cli_args_release(args, N_ARGS(args));
  return rc;
}

int cli_cmd_simulate(int argc, char **argv)
{
  pascal_codec_simulate_query q = {0};
  cli_u64_list phases = {0};
  const char *policy = NULL;
  int json = 0;
  cli_arg args[] = {
      {"policy", 0, CLI_ARG_STRING, 1, &policy, 0, 0, "ttl|lru|belady|belady-bypass",
       "replacement policy to simulate", 0},
      {"N", 0, CLI_ARG_U64, 1, &q.n, 0, UINT64_MAX, "N", "blocks in the cyclic scan", 0},
      {"C", 0, CLI_ARG_U64, 1, &q.c, 0, UINT64_MAX, "C", "cache capacity in blocks", 0},
      {"phases", 0, CLI_ARG_U64_LIST, 1, &phases, 0, UINT64_MAX, "P,P,...",
       "the workers' phases, each in [0, N)", 0},
      {"rounds", 0, CLI_ARG_U64, 0, &q.rounds, 1, UINT64_MAX, "H",
       "rounds to count (default N for ttl/lru, 16 N for belady)", 0},
      {"json", 0, CLI_ARG_FLAG, 0, &json, 0, 0, NULL,
       "print the JSON document instead of key: value lines", 0},
  };
  int rc = cli_parse("simulate", argc, argv, args, N_ARGS(args), NULL, 0, 0, NULL);
  if (rc == CLI_EXIT_OK) {
    pascal_error err = {0};
    json_t *doc = NULL;
    q.phases = phases.v;
    q.m = phases.n;
    pascal_status st = pascal_codec_policy_parse(policy, &q.policy, &err);
    if (!st)
      st = pascal_codec_simulate(&q, &doc, &err);
    rc = cli_finish("simulate", args, N_ARGS(args), st, doc, json, &err);
  }
  cli_args_release(args, N_ARGS(args));
  return rc;
}

int cli_cmd_coherence(int argc, char **argv)
{
  uint64_t sigma = 0, c = 0, m = 0, e = 0;
  int json = 0;
  cli_arg args[] = {
      {"sigma", 0, CLI_ARG_U64, 1, &sigma, 0, UINT64_MAX, "SIGMA",
       "progress spread between the workers, in blocks (1 <= sigma <= E)", 0},
      {"C", 0, CLI_ARG_U64, 1, &c, 0, UINT64_MAX, "C", "cache capacity in blocks", 0},
      {"M", 0, CLI_ARG_U64, 1, &m, 0, UINT64_MAX, "M", "workers (M >= 2)", 0},
      {"E", 0, CLI_ARG_U64, 1, &e, 0, UINT64_MAX, "E", "blocks each worker streams", 0},
      {"json", 0, CLI_ARG_FLAG, 0, &json, 0, 0, NULL,
       "print the JSON document instead of key: value lines", 0},
  };
  int rc = cli_parse("coherence", argc, argv, args, N_ARGS(args), NULL, 0, 0, NULL);
  if (rc == CLI_EXIT_OK) {
    pascal_error err = {0};
    json_t *doc = NULL;
    pascal_status st = pascal_codec_coherence(sigma, c, m, e, &doc, &err);
    rc = cli_finish("coherence", args, N_ARGS(args), st, doc, json, &err);
  }
  return rc;
}

int cli_cmd_feedback(int argc, char **argv)
{
  double alpha = 0, beta = 0, hit = 0, miss = 0;
  uint32_t d = 0;
  int json = 0;
  cli_arg args[] = {
      {"alpha", 0, CLI_ARG_DOUBLE, 1, &alpha, 0, 0, "ALPHA",
       "issue time of one pipeline step (alpha >= 0)", 0},
      {"beta", 0, CLI_ARG_DOUBLE, 1, &beta, 0, 0, "BETA", "compute time of one step (beta > 0)", 0},
      {"d", 0, CLI_ARG_U32, 1, &d, 0, UINT32_MAX, "D", "pipeline depth (d >= 2)", 0},
      {"lambda-hit", 0, CLI_ARG_DOUBLE, 1, &hit, 0, 0, "L",
       "fill latency on a hit (0 <= lambda_hit <= lambda_miss)", 0},
      {"lambda-miss", 0, CLI_ARG_DOUBLE, 1, &miss, 0, 0, "L", "fill latency on a miss", 0},
      {"json", 0, CLI_ARG_FLAG, 0, &json, 0, 0, NULL,
       "print the JSON document instead of key: value lines", 0},
  };
  int rc = cli_parse("feedback", argc, argv, args, N_ARGS(args), NULL, 0, 0, NULL);
  if (rc == CLI_EXIT_OK) {
    pascal_error err = {0};
    json_t *doc = NULL;
    pascal_status st = pascal_codec_feedback(alpha, beta, d, hit, miss, &doc, &err);
    rc = cli_finish("feedback", args, N_ARGS(args), st, doc, json, &err);
  }
  return rc;
}
