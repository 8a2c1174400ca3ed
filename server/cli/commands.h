/*
 * commands.h - the `pascal` subcommands (docs/cli.md). Each takes the
 * arguments after its name and returns the process exit status.
 */
#ifndef PASCAL_CLI_COMMANDS_H
#define PASCAL_CLI_COMMANDS_H

#include "pascal/validation.h"
#include "pascal_codec.h"

/* static theory (cmd_static.c) */
int cli_cmd_bounds(int argc, char **argv);
int cli_cmd_simulate(int argc, char **argv);
int cli_cmd_coherence(int argc, char **argv);
int cli_cmd_feedback(int argc, char **argv);
/* dynamic model (cmd_dynamic.c) */
int cli_cmd_fit(int argc, char **argv);
int cli_cmd_predict(int argc, char **argv);
int cli_cmd_loko(int argc, char **argv);
int cli_cmd_synth(int argc, char **argv);
/* evaluation in the paper's table layout (cmd_evaluate.c) */
int cli_cmd_evaluate(int argc, char **argv);

/* charts of a bundle as SVG (cmd_plot.c) */
int cli_cmd_plot(int argc, char **argv);

/* Shared by the bundle commands (cmd_dynamic.c). Read and decode the bundle
 * file at `path`. */
pascal_status cli_read_bundle(const char *path, pascal_codec_bundle *bundle, pascal_error *err);
/* Read a bundle and fit its model; a frozen bundle's stored model must match
 * the refit. On failure the error is reported and the exit status returned. */
int cli_load_model(const char *cmd, const char *path, pascal_codec_bundle *bundle,
                   pascal_model **model);

/* `pascal predict --queries FILE` (predict_queries.c): answer every query
 * of FILE ("-": standard input) from the bundle's fitted model, building
 * its validation into *valid (the caller frees it). Returns the exit
 * status: 0 when every query is answered, 2 when one is invalid, else 3. */
int cli_predict_queries(const char *path, const pascal_codec_bundle *bundle,
                        const pascal_model *model, pascal_validation *valid, int json);

/* device-aware plans (cmd_plan.c) */
int cli_cmd_plan(int argc, char **argv);

/* one run on the CPU sim device: scan, GEMM or attention (cmd_sim.c) */
int cli_cmd_sim(int argc, char **argv);

#endif
