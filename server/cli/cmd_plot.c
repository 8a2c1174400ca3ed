/*
 * cmd_plot.c - `pascal plot BUNDLE --kind curves|transfer|evaluation|heldout|
 * capacity|static [--family F] [--N N] [--W W] [--Kg K] [-o FILE.svg]`:
 * draws a chart of a calibration bundle as SVG (server/plot/plots.h,
 * docs/plots.md). A choice the bundle cannot satisfy (an unknown family, a
 * size without runs, a kind whose data the bundle does not carry) is an
 * argument error: exit 2, naming the option. The file is written whole or
 * not at all (a temporary renamed into place).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "output.h"
#include "plots.h"

/* Write `len` bytes to `path` through a temporary in the same directory. */
static int write_whole(const char *path, const char *data, size_t len)
{
  size_t n = strlen(path) + 16;
  char *tmp = malloc(n);
  if (!tmp)
    return -1;
  snprintf(tmp, n, "%s.tmp%ld", path, (long)getpid());
  FILE *f = fopen(tmp, "wb");
  int ok = f && fwrite(data, 1, len, f) == len;
  if (f && fclose(f) != 0)
    ok = 0;
  if (ok && rename(tmp, path) != 0)
    ok = 0;
  if (!ok)
    remove(tmp);
  free(tmp);
  return ok ? 0 : -1;
}

int cli_cmd_plot(int argc, char **argv)
{
  const char *path = NULL, *kind = NULL, *family = NULL, *out = NULL;
  uint32_t N = 0, Kg = 0;
  double W = 0;
  cli_arg args[] = {
      {"kind", 0, CLI_ARG_STRING, 1, &kind, 0, 0, "KIND",
       "curves, transfer, evaluation, heldout, capacity or static", 0},
      {"family", 0, CLI_ARG_STRING, 0, &family, 0, 0, "o,path,d|Mg",
       "the scan family (1,tma,4) or GEMM row (Mg) to draw", 0},
      {"N", 0, CLI_ARG_U32, 0, &N, 1, UINT32_MAX, "N",
       "the size N whose curves to draw (default: each reference size)", 0},
      {"W", 0, CLI_ARG_DOUBLE, 0, &W, 0, 0, "W", "the horizon W of a transfer chart", 0},
      {"Kg", 0, CLI_ARG_U32, 0, &Kg, 1, UINT32_MAX, "Kg", "the GEMM depth Kg to draw", 0},
      {"out", 'o', CLI_ARG_STRING, 0, &out, 0, 0, "FILE.svg", "write the SVG here (default stdout)",
       0}};
  size_t n_pos;
  int rc = cli_parse("plot", argc, argv, args, N_ARGS(args), &path, 1, 1, &n_pos);
  if (rc)
    return rc;
  pascal_error err = {0};
  pascal_plot_request req;
  pascal_plot_kind k;
  if (pascal_plot_kind_parse(kind, &k, &err))
    return cli_arg_error("plot", args, N_ARGS(args), &err);
  if (!(W > 0) && cli_args_seen(args, N_ARGS(args), "W")) {
    pascal_error_set(&err, PASCAL_EINVAL, "W", "must be a positive horizon (got %g)", W);
    return cli_arg_error("plot", args, N_ARGS(args), &err);
  }
  pascal_plot_request_init(&req, k);
  req.N = N;
  req.W = W;
  req.Kg = Kg;

  pascal_codec_bundle bundle;
  pascal_model *model = NULL;
  char *svg = NULL;
  size_t len = 0;
  pascal_codec_bundle_init(&bundle);
  if ((rc = cli_load_model("plot", path, &bundle, &model)))
    goto done;
  pascal_status st =
      family ? pascal_plot_family_parse(family, bundle.cal.workload, &req, &err) : PASCAL_OK;
  if (!st)
    st = pascal_plot_render(&bundle.cal, model, &req, &svg, &len, &err);
  if (st == PASCAL_EINVAL || st == PASCAL_ENOTFOUND) {
    /* The bundle lacks what the options ask for: an argument error. */
    err.status = PASCAL_EINVAL;
    rc = cli_arg_error("plot", args, N_ARGS(args), &err);
  } else if (st) {
    rc = cli_input_error("plot", path, &err);
  } else if (out ? write_whole(out, svg, len) != 0 : fwrite(svg, 1, len, stdout) != len) {
    fprintf(stderr, "pascal plot: %s: cannot write the SVG\n", out ? out : "stdout");
    rc = CLI_EXIT_FAILURE;
  }
done:
  free(svg);
  pascal_model_free(model);
  pascal_codec_bundle_free(&bundle);
  return rc;
}
