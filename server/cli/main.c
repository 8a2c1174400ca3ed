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
  const char *usage;   /* the synopsis; each option's line comes from the command's table */
  const char *summary; /* one line: what it does */
} command;

static const command commands[] = {
    {"bounds", cli_cmd_bounds, "--N N --C C --phases P,P,.. [--ways A --sets S] [--json]",
     "static answer for a cyclic scan: gap law, LRU certificate, policy bound, baselines"},
    {"simulate", cli_cmd_simulate,
     "--policy ttl|lru|belady|belady-bypass --N N --C C --phases P,.. [--rounds H] [--json]",
     "reference simulators over the cyclic phase trace"},
    {"coherence", cli_cmd_coherence, "--sigma S --C C --M M --E E [--json]",
     "Theorem 4: does capacity C keep M workers at spread sigma sharing"},
    {"feedback", cli_cmd_feedback,
     "--alpha A --beta B --d D --lambda-hit L --lambda-miss L [--json]",
     "Theorem 5: refill cadence, overlap and catch-up gain of a depth-d pipeline"},
    {"fit", cli_cmd_fit, "BUNDLE [-o FROZEN]",
     "fit a bundle, run leave-one-key-out, write the frozen bundle"},
    {"predict", cli_cmd_predict,
     "--bundle B (--o O --path sync|tma [--d D] --m M --N N --W W | --Mg M --Ng N --Kg K "
     "[--tile_m T --tile_n T --tile_k T --elem_bytes E --stages S --group_m G] | "
     "--seq_q Q --seq_kv S --heads H --head_dim D --stages S [--kv_heads G --block_q BQ "
     "--block_kv BK --elem_bytes E --causal 0|1] | --queries FILE) [--json]",
     "predict the fills of one scan, GEMM or attention configuration, or of a batch"},
    {"loko", cli_cmd_loko, "BUNDLE [--json]", "leave-one-key-out report of a bundle"},
    {"evaluate", cli_cmd_evaluate,
     "BUNDLE [BUNDLE...] [--heldout PANEL[,PANEL...]] [--offgrid PANEL[,PANEL...]] [--json]",
     "the paper's comparison table over bundles, with held-out and off-grid panels"},
    {"plot", cli_cmd_plot,
     "BUNDLE --kind curves|transfer|evaluation|heldout|capacity|static [--family o,path,d|Mg] "
     "[--N N] "
     "[--W W] [--Kg K] [-o FILE.svg]",
     "draw a chart of a bundle as SVG"},
    {"synth", cli_cmd_synth,
     "--law scan|gemm[,name=value...] [--plan PLAN] [--heldout PANEL_PLAN] [-o BUNDLE]",
     "write a synthetic bundle from a documented response law"},
    {"sim", cli_cmd_sim,
     "scan --o O --path sync|tma [--d D] --m M --N N --W W | gemm --Mg M --Ng N --Kg K "
     "--tile MxNxK --stages S --elem-bytes B [--group-m G] [--ctas-per-sm C] | attention "
     "--seq-q Q --seq-kv S --heads H --stages D [--kv-heads G] [--head-dim 64] [--block-q 64] "
     "[--block-kv 64] [--elem-bytes 2] [--causal] [--o O]; each [--profile P] [--seed S] [--json]",
     "run one scan, GEMM or attention launch on the sim device and print what it measured"},
    {"plan", cli_cmd_plan,
     "--kind scan|scan-heldout|gemm|gemm-heldout|scan-dram|gemm-dram|scan-offgrid|gemm-offgrid|"
     "attention|attention-heldout|attention-cells|gemm-configs (--probe PROBE.json | --C C | "
     "--l2-bytes B) "
     "[--smem-per-sm B] [--block-bytes B] [--max-occupancy O] [--part P] [-o PLAN]",
     "write a device's calibration, held-out, off-grid or configuration plan"},
};

static void usage(FILE *out)
{
  fprintf(out, "usage: pascal COMMAND [options]   (man pascal, docs/cli.md)\n"
               "       pascal COMMAND --help        the command's options, one line each\n"
               "       pascal --version | --help\n\ncommands:\n");
  for (size_t i = 0; i < sizeof commands / sizeof *commands; i++)
    fprintf(out, "  %-10s %s\n", commands[i].name, commands[i].summary);
  fprintf(out, "\nexit status: 0 ok, 1 input or model failure, 2 bad argument, 3 refused\n");
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
    /* --help: the synopsis here, the options from the table the command
     * parses with (cli_parse prints them and answers CLI_HELP_SHOWN) */
    if (cli_args_wants_help(argc - 2, argv + 2))
      printf("usage: pascal %s %s\n%s\n\n", commands[i].name, commands[i].usage,
             commands[i].summary);
    int rc = commands[i].run(argc - 2, argv + 2);
    return rc == CLI_HELP_SHOWN ? CLI_EXIT_OK : rc;
  }
  fprintf(stderr, "pascal: unknown command '%.60s'\n", argv[1]);
  usage(stderr);
  return CLI_EXIT_USAGE;
}
