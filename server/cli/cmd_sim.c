/*
 * cmd_sim.c - `pascal sim scan|gemm`: one run on the CPU sim device
 * (core/include/pascal/simdev.h, docs/sim-device.md) without a daemon, for
 * users who want to try a kernel configuration and for checks that need the
 * sim's ground truth (fills, K, kernel time). The scan is the paper's open
 * scan (Algorithm 2), the GEMM the tiled GEMM of §4.5 with the calibration
 * tiling the agent measures (docs/cli.md).
 *
 * --profile P is a shipped profile name (gb10-like, thor-like, h100-like:
 * deploy/profiles/P.profile, or <prefix>/share/pascal/profiles once
 * installed) or the path of a profile file.
 */
#include <jansson.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "args.h"
#include "commands.h"
#include "output.h"
#include "pascal/calibration.h"
#include "pascal/simdev.h"

#define SIM_GEMM_OUT_BYTES 4u /* FP32 outputs, as the agent's GEMM runs */

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

/* Open the device of --profile; on failure report it and return the exit
 * status (2: no such profile, 1: a profile file that does not parse). */
static int open_device(const char *cmd, const char *profile, pascal_simdev **dev)
{
  char path[4096];
  pascal_simdev_profile p;
  pascal_error err = {0};
  if (!profile_path(profile, path, sizeof path)) {
    fprintf(stderr, "pascal %s: --profile: '%.80s' is neither a shipped profile (gb10-like, "
                    "thor-like, h100-like) nor a profile file\n",
            cmd, profile);
    return CLI_EXIT_USAGE;
  }
  pascal_status st = pascal_simdev_profile_load(path, &p, &err);
  if (st == PASCAL_ENOTFOUND) {
    fprintf(stderr, "pascal %s: --profile: %s\n", cmd, err.message);
    return CLI_EXIT_USAGE;
  }
  if (st == PASCAL_OK)
    st = pascal_simdev_new(&p, dev, &err);
  return st ? cli_input_error(cmd, path, &err) : CLI_EXIT_OK;
}

/* The stats every run reports, plus the device's name. */
static void put_stats(json_t *doc, const pascal_simdev *dev, const pascal_simdev_stats *st)
{
  json_object_set_new(doc, "device", json_string(pascal_simdev_profile_of(dev)->name));
  json_object_set_new(doc, "M", json_integer(st->M));
  json_object_set_new(doc, "fill_bytes", json_real(st->fill_bytes));
  json_object_set_new(doc, "K", json_real(st->K));
  json_object_set_new(doc, "kernel_ns", json_real(st->kernel_ns));
  json_object_set_new(doc, "requests", json_integer((json_int_t)st->requests));
  json_object_set_new(doc, "hits", json_integer((json_int_t)st->hits));
  json_object_set_new(doc, "merges", json_integer((json_int_t)st->merges));
  json_object_set_new(doc, "fills", json_integer((json_int_t)st->fills));
}

static int sim_scan(int argc, char **argv)
{
  const char *profile = NULL, *path = NULL;
  pascal_simdev_scan s = {0};
  uint32_t o = 0;
  int json = 0;
  cli_arg args[] = {
      {"profile", 0, CLI_ARG_STRING, 1, &profile, 0, 0, 0},
      {"o", 0, CLI_ARG_U32, 1, &o, 1, 64, 0},
      {"path", 0, CLI_ARG_STRING, 1, &path, 0, 0, 0},
      {"d", 0, CLI_ARG_U32, 0, &s.d, 0, 64, 0},
      {"m", 0, CLI_ARG_U32, 1, &s.m, 0, 1000000, 0},
      {"N", 0, CLI_ARG_U64, 1, &s.N, 1, (1ull << 31) - 1, 0},
      {"W", 0, CLI_ARG_U64, 1, &s.W, 1, UINT64_MAX, 0},
      {"seed", 0, CLI_ARG_U64, 0, &s.seed, 0, UINT64_MAX, 0},
      {"json", 0, CLI_ARG_FLAG, 0, &json, 0, 0, 0},
  };
  int rc = cli_parse("sim scan", argc, argv, args, N_ARGS(args), NULL, 0, 0, NULL);
  if (rc)
    return rc;
  s.o = o;
  const int have_d = cli_args_seen(args, N_ARGS(args), "d");
  if (strcmp(path, "tma") != 0 && strcmp(path, "sync") != 0) {
    fprintf(stderr, "pascal sim scan: --path: must be sync or tma, got '%.40s'\n", path);
    return CLI_EXIT_USAGE;
  }
  s.path_tma = strcmp(path, "tma") == 0;
  if (s.path_tma && (!have_d || s.d < 1)) {
    fprintf(stderr, "pascal sim scan: --d: the tma path needs a depth --d of 1 to 64\n");
    return CLI_EXIT_USAGE;
  }
  if (!s.path_tma && s.d != 0) {
    fprintf(stderr, "pascal sim scan: --d: the sync path has no depth (give --d 0 or none)\n");
    return CLI_EXIT_USAGE;
  }
  pascal_simdev *dev = NULL;
  if ((rc = open_device("sim scan", profile, &dev)))
    return rc;
  pascal_simdev_stats st;
  pascal_error err = {0};
  pascal_status status = pascal_simdev_run_scan(dev, &s, &st, NULL, &err);
  json_t *doc = NULL;
  if (!status) {
    doc = json_pack("{s:s, s:I, s:s, s:I, s:I, s:I, s:I, s:I}", "workload", "scan", "o",
                    (json_int_t)s.o, "path", path, "d", (json_int_t)s.d, "m", (json_int_t)s.m,
                    "N", (json_int_t)s.N, "W", (json_int_t)s.W, "seed", (json_int_t)s.seed);
    put_stats(doc, dev, &st);
  }
  pascal_simdev_free(dev);
  return cli_finish("sim scan", args, N_ARGS(args), status, doc, json, &err);
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

static int sim_gemm(int argc, char **argv)
{
  const char *profile = NULL, *tile = "128x128x64";
  pascal_calibration cal;
  pascal_calibration_init(&cal, PASCAL_WORKLOAD_GEMM); /* pascald's GEMM tiling */
  pascal_simdev_gemm g = {.tiling = cal.gemm, .out_elem_bytes = SIM_GEMM_OUT_BYTES};
  uint32_t mg = 0, ng = 0, kg = 0;
  int json = 0;
  cli_arg args[] = {
      {"profile", 0, CLI_ARG_STRING, 1, &profile, 0, 0, 0},
      {"Mg", 0, CLI_ARG_U32, 1, &mg, 1, UINT32_MAX, 0},
      {"Ng", 0, CLI_ARG_U32, 1, &ng, 1, UINT32_MAX, 0},
      {"Kg", 0, CLI_ARG_U32, 1, &kg, 1, UINT32_MAX, 0},
      {"tile", 0, CLI_ARG_STRING, 0, &tile, 0, 0, 0},
      {"elem-bytes", 0, CLI_ARG_U32, 0, &g.tiling.elem_bytes, 1, 8, 0},
      {"seed", 0, CLI_ARG_U64, 0, &g.seed, 0, UINT64_MAX, 0},
      {"json", 0, CLI_ARG_FLAG, 0, &json, 0, 0, 0},
  };
  int rc = cli_parse("sim gemm", argc, argv, args, N_ARGS(args), NULL, 0, 0, NULL);
  if (rc)
    return rc;
  g.shape = (pascal_gemm_shape){mg, ng, kg};
  uint32_t t[3];
  if (!parse_tile(tile, t)) {
    fprintf(stderr, "pascal sim gemm: --tile: must be MxNxK with each in [1, 65536], got '%.40s'\n",
            tile);
    return CLI_EXIT_USAGE;
  }
  g.tiling.tile_m = t[0];
  g.tiling.tile_n = t[1];
  g.tiling.tile_k = t[2];
  pascal_simdev *dev = NULL;
  if ((rc = open_device("sim gemm", profile, &dev)))
    return rc;
  g.tiling.resident_ctas = pascal_simdev_profile_of(dev)->sm_count; /* one CTA per SM */
  g.m = pascal_simdev_gemm_step_m(&g.tiling);
  pascal_simdev_stats st;
  pascal_error err = {0};
  pascal_status status = pascal_simdev_run_gemm(dev, &g, &st, &err);
  json_t *doc = NULL;
  if (!status) {
    doc = json_pack("{s:s, s:I, s:I, s:I, s:s, s:I, s:I, s:I}", "workload", "gemm", "Mg",
                    (json_int_t)g.shape.Mg, "Ng", (json_int_t)g.shape.Ng, "Kg",
                    (json_int_t)g.shape.Kg, "tile", tile, "elem_bytes",
                    (json_int_t)g.tiling.elem_bytes, "resident_ctas",
                    (json_int_t)g.tiling.resident_ctas, "seed", (json_int_t)g.seed);
    put_stats(doc, dev, &st);
  }
  pascal_simdev_free(dev);
  if (status && strcmp(err.field, "tile_n") == 0)
    snprintf(err.field, sizeof err.field, "tile");
  return cli_finish("sim gemm", args, N_ARGS(args), status, doc, json, &err);
}

int cli_cmd_sim(int argc, char **argv)
{
  if (argc >= 1 && strcmp(argv[0], "scan") == 0)
    return sim_scan(argc - 1, argv + 1);
  if (argc >= 1 && strcmp(argv[0], "gemm") == 0)
    return sim_gemm(argc - 1, argv + 1);
  fprintf(stderr, "pascal sim: scan or gemm expected, got '%.40s'\n", argc >= 1 ? argv[0] : "");
  return CLI_EXIT_USAGE;
}
