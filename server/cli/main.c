/*
 * main.c - `pascal`, the offline command-line tool over libpascal: static
 * bounds and simulators (paper section 3) and the dynamic predictor over
 * calibration bundles (section 4). Usage in docs/cli.md; exit statuses in
 * output.h (0 ok, 1 input/model failure, 2 bad argument, 3 refused).
 */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "output.h"
#include "pascal/version.h"

typedef struct command {
  const char *name;
  int (*run)(int argc, char **argv);
  const char *usage;
} command;

static const command commands[] = {
    {"bounds", cli_cmd_bounds, "--N N --C C --phases P,P,.. [--ways A --sets S] [--json]"},
    {"simulate", cli_cmd_simulate,
     "--policy ttl|lru|belady|belady-bypass --N N --C C --phases P,.. [--rounds H] [--json]"},
    {"coherence", cli_cmd_coherence, "--sigma S --C C --M M --E E [--json]"},
    {"feedback", cli_cmd_feedback,
     "--alpha A --beta B --d D --lambda-hit L --lambda-miss L [--json]"},
    {"fit", cli_cmd_fit, "BUNDLE [-o FROZEN]"},
    {"predict", cli_cmd_predict,
     "--bundle B (--o O --path sync|tma [--d D] --m M --N N --W W | --Mg M --Ng N --Kg K | "
     "--seq_q Q --seq_kv S --heads H --head_dim D --stages S [--kv_heads G --block_q BQ "
     "--block_kv BK --elem_bytes E --causal 0|1]) [--json]"},
    {"loko", cli_cmd_loko, "BUNDLE [--json]"},
    {"evaluate", cli_cmd_evaluate,
     "BUNDLE [BUNDLE...] [--heldout PANEL[,PANEL...]] [--offgrid PANEL[,PANEL...]] [--json]"},
    {"plot", cli_cmd_plot,
     "BUNDLE --kind curves|transfer|evaluation|capacity|static [--family o,path,d|Mg] [--N N] "
     "[--W W] [--Kg K] [-o FILE.svg]"},
    {"synth", cli_cmd_synth,
     "--law scan|gemm[,name=value...] [--plan PLAN] [--heldout PANEL_PLAN] [-o BUNDLE]"},
    {"plan", cli_cmd_plan,
     "--kind scan|scan-heldout|gemm|gemm-heldout|scan-dram|gemm-dram|scan-offgrid|gemm-offgrid|"
     "attention|attention-heldout|attention-cells (--probe PROBE.json | --C C | "
     "--l2-bytes B) "
     "[--smem-per-sm B] [--block-bytes 16384] [--max-occupancy 2] [--part P] [-o PLAN]"},
    {"sim", cli_cmd_sim,
     "scan --o O --path sync|tma [--d D] --m M --N N --W W | gemm --Mg M --Ng N --Kg K "
     "[--tile 128x128x64] [--elem-bytes 2] | attention --seq-q Q --seq-kv S --heads H "
     "--stages D [--kv-heads G] [--head-dim 64] [--block-q 64] [--block-kv 64] [--elem-bytes 2] "
     "[--causal] [--o O]; each [--profile P] [--seed S] [--json]"},
};

static void usage(FILE *out)
{
  fprintf(out, "usage: pascal COMMAND [options]   (docs/cli.md)\n"
               "       pascal --version | --help\n");
  for (size_t i = 0; i < sizeof commands / sizeof *commands; i++)
    fprintf(out, "  pascal %s %s\n", commands[i].name, commands[i].usage);
}

int main(int argc, char **argv)
{
  if (argc < 2) {
    usage(stderr);
    return CLI_EXIT_USAGE;
  }
  if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
      strcmp(argv[1], "help") == 0) {
    usage(stdout);
    return CLI_EXIT_OK;
  }
  if (strcmp(argv[1], "--version") == 0) {
    printf("pascal %s\n", pascal_version());
    return CLI_EXIT_OK;
  }
  for (size_t i = 0; i < sizeof commands / sizeof *commands; i++) {
    if (strcmp(argv[1], commands[i].name) != 0)
      continue;
    for (int a = 2; a < argc; a++)
      if (strcmp(argv[a], "--help") == 0 || strcmp(argv[a], "-h") == 0) {
        printf("usage: pascal %s %s\n", commands[i].name, commands[i].usage);
        return CLI_EXIT_OK;
      }
    return commands[i].run(argc - 2, argv + 2);
  }
  fprintf(stderr, "pascal: unknown command '%.60s'\n", argv[1]);
  usage(stderr);
  return CLI_EXIT_USAGE;
}
