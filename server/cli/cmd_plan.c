/*
 * cmd_plan.c - `pascal plan`: the paper's calibration and held-out plans for
 * one device (core/include/pascal/plan_gen.h, paper sections 4.4 and 5),
 * written as ordinary pascal-plan/1 files. The device comes from options
 * (--C or --l2-bytes, --smem-per-sm) or from the agent's probe JSON
 * (`pascal-agent --probe`, line "probe json:"). docs/cli.md, docs/plans.md.
 */
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "output.h"
#include "pascal/plan_gen.h"
#include "pascal_codec.h"

/* One non-negative integer field of the probe document. */
static pascal_status probe_u64(const json_t *doc, const char *name, uint64_t *out,
                               pascal_error *err)
{
  const json_t *v = json_object_get(doc, name);
  if (!json_is_integer(v) || json_integer_value(v) < 0)
    return pascal_error_set(err, PASCAL_EFORMAT, name,
                            "the probe must give %s as a non-negative integer", name);
  *out = (uint64_t)json_integer_value(v);
  return PASCAL_OK;
}

/* capacity_blocks, block_bytes and smem_per_sm from a probe JSON file. */
static pascal_status load_probe(const char *path, pascal_plan_device *dev, pascal_error *err)
{
  json_t *doc = NULL;
  uint64_t c = 0, b = 0, smem = 0;
  pascal_status st = pascal_codec_load_file(path, &doc, err);
  if (!st && !json_is_object(doc))
    st = pascal_error_set(err, PASCAL_EFORMAT, "", "the probe must be a JSON object");
  if (!st)
    st = probe_u64(doc, "capacity_blocks", &c, err);
  if (!st)
    st = probe_u64(doc, "block_bytes", &b, err);
  if (!st)
    st = probe_u64(doc, "smem_per_sm", &smem, err);
  if (!st && b > UINT32_MAX)
    st = pascal_error_set(err, PASCAL_EFORMAT, "block_bytes", "block_bytes is too large");
  json_decref(doc);
  if (st)
    return st;
  dev->capacity_blocks = c;
  dev->block_bytes = (uint32_t)b;
  dev->smem_per_sm = smem;
  return PASCAL_OK;
}

int cli_cmd_plan(int argc, char **argv)
{
  const char *kind_text = NULL, *probe = NULL, *out = NULL;
  uint64_t c = 0, l2 = 0, smem = 0;
  uint32_t block = 16384, max_occ = 2, part = 1;
  cli_arg args[] = {
      {"kind", 0, CLI_ARG_STRING, 1, &kind_text, 0, 0, "KIND",
       "scan, scan-heldout, gemm, gemm-heldout, scan-dram, gemm-dram, scan-offgrid, gemm-offgrid, "
       "attention, attention-heldout, attention-cells or gemm-configs",
       0},
      {"probe", 0, CLI_ARG_STRING, 0, &probe, 0, 0, "PROBE.json",
       "the agent's probe JSON of the device (scan, attention and gemm-configs kinds)", 0},
      {"C", 0, CLI_ARG_U64, 0, &c, 1, PASCAL_PLAN_MAX_EXTENT, "C",
       "the device's capacity in blocks, instead of --probe", 0},
      {"l2-bytes", 0, CLI_ARG_U64, 0, &l2, 1, UINT64_MAX, "B",
       "the device's L2 size in bytes, instead of --probe or --C", 0},
      {"block-bytes", 0, CLI_ARG_U32, 0, &block, 16, 1u << 20, "B",
       "bytes per block (default 16384)", 0},
      {"smem-per-sm", 0, CLI_ARG_U64, 0, &smem, 0, UINT64_MAX, "B",
       "shared memory per SM in bytes, with --C or --l2-bytes (gemm-configs: alone)", 0},
      {"max-occupancy", 0, CLI_ARG_U32, 0, &max_occ, 1, PASCAL_PLAN_MAX_OCCUPANCY, "O",
       "largest occupancy o in the plan (default 2)", 0},
      {"part", 0, CLI_ARG_U32, 0, &part, 1, PASCAL_PLAN_PARTS_MAX, "P",
       "part of a plan given in parts (scan-heldout 1..2, scan-offgrid 1..4, attention-cells "
       "1..5)",
       0},
      {"out", 'o', CLI_ARG_STRING, 0, &out, 0, 0, "PLAN", "write the plan here (default stdout)",
       0},
  };
  int rc = cli_parse("plan", argc, argv, args, N_ARGS(args), NULL, 0, 0, NULL);
  if (rc)
    return rc;
  pascal_error err = {0};
  pascal_plan_kind kind;
  pascal_plan plan;
  json_t *doc = NULL;
  pascal_plan_init(&plan);
  const int scan =
      pascal_plan_kind_parse(kind_text, &kind, &err) == PASCAL_OK && pascal_plan_kind_is_scan(kind);
  const int sources = (probe != NULL) + cli_args_seen(args, N_ARGS(args), "C") +
                      cli_args_seen(args, N_ARGS(args), "l2-bytes");
  /* gemm-configs depends on the device's shared memory alone */
  const int configs = !scan && err.status == PASCAL_OK && kind == PASCAL_PLAN_KIND_GEMM_CONFIGS;
  const int smem_seen = cli_args_seen(args, N_ARGS(args), "smem-per-sm");
  pascal_status st = err.status;
  if (!st && configs && (probe != NULL) + smem_seen != 1)
    st = pascal_error_set(&err, PASCAL_EINVAL, probe ? "probe" : "smem_per_sm",
                          "gemm-configs needs exactly one of --probe, --smem-per-sm (0 for the CPU "
                          "sim device)");
  else if (!st && configs &&
           (sources - (probe != NULL) || cli_args_seen(args, N_ARGS(args), "max-occupancy")))
    st = pascal_error_set(&err, PASCAL_EINVAL, "C",
                          "gemm-configs depends on the shared memory per SM alone: give no C, "
                          "L2 size or occupancy");
  else if (!st && scan && sources != 1)
    st = pascal_error_set(&err, PASCAL_EINVAL, sources ? "probe" : "C",
                          "a scan plan needs exactly one of --probe, --C, --l2-bytes");
  else if (!st && scan && !probe && !cli_args_seen(args, N_ARGS(args), "smem-per-sm"))
    st = pascal_error_set(&err, PASCAL_EINVAL, "smem_per_sm",
                          "a scan plan needs --smem-per-sm (0 for the CPU sim device) or --probe");
  else if (!st && !scan && !configs &&
           (sources || cli_args_seen(args, N_ARGS(args), "smem-per-sm") ||
            cli_args_seen(args, N_ARGS(args), "max-occupancy")))
    st = pascal_error_set(&err, PASCAL_EINVAL,
                          probe     ? "probe"
                          : sources ? "C"
                                    : "smem_per_sm",
                          "GEMM plans are the paper's shapes on every device: give no device");
  else if (!st && pascal_plan_kind_parts(kind) > 1 && !cli_args_seen(args, N_ARGS(args), "part"))
    st = pascal_error_set(&err, PASCAL_EINVAL, "part",
                          "%s is written as %u plans: give --part 1..%u", kind_text,
                          pascal_plan_kind_parts(kind), pascal_plan_kind_parts(kind));
  if (st) {
    rc = cli_arg_error("plan", args, N_ARGS(args), &err);
    goto done;
  }
  pascal_plan_device dev = {c, block, smem, max_occ};
  if (l2)
    dev.capacity_blocks = l2 / block;
  if (probe && load_probe(probe, &dev, &err)) {
    rc = cli_input_error("plan", probe, &err);
    goto done;
  }
  if (configs) /* the configurations depend on the shared memory alone */
    dev = (pascal_plan_device){1, 16384, dev.smem_per_sm, 2};
  else if (!scan) /* GEMM shapes do not depend on the device (refused above) */
    dev = (pascal_plan_device){1, 16384, 0, 2};
  if ((st = pascal_plan_generate(&dev, kind, part, &plan, &err))) {
    rc = probe && st != PASCAL_ENOMEM ? cli_input_error("plan", probe, &err)
                                      : cli_arg_error("plan", args, N_ARGS(args), &err);
    goto done;
  }
  if (pascal_codec_plan_encode(&plan, &doc, &err)) {
    rc = cli_input_error("plan", "plan", &err);
    goto done;
  }
  rc = cli_emit("plan", doc, out);
done:
  pascal_plan_free(&plan);
  return rc;
}
