/*
 * commands.h - the `pascal` subcommands (docs/cli.md). Each takes the
 * arguments after its name and returns the process exit status.
 */
#ifndef PASCAL_CLI_COMMANDS_H
#define PASCAL_CLI_COMMANDS_H

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
/* device-aware plans (cmd_plan.c) */
int cli_cmd_plan(int argc, char **argv);

#endif
