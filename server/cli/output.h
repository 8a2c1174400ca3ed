/*
 * output.h - how every `pascal` subcommand prints results and errors
 * (docs/cli.md): --json prints the codec's document, otherwise a readable
 * rendering of the same document; errors are one line on stderr with the
 * argument or field named, and a documented exit status.
 */
#ifndef PASCAL_CLI_OUTPUT_H
#define PASCAL_CLI_OUTPUT_H

#include <jansson.h>
#include <stdio.h>

#include "args.h"
#include "pascal/error.h"

/* Exit statuses. */
#define CLI_EXIT_OK      0
#define CLI_EXIT_FAILURE 1 /* unreadable or malformed input file, I/O, memory */
#define CLI_EXIT_USAGE   2 /* bad command-line argument                       */
#define CLI_EXIT_REFUSED 3 /* the model refuses to predict this configuration  */
/* Not an exit status: cli_parse printed the options for --help; the command
 * returns it at once and main exits 0. */
#define CLI_HELP_SHOWN   (-1)

/* Print `doc` to stdout: pretty JSON when `json`, else the readable form.
 * Consumes `doc`. Returns CLI_EXIT_OK or CLI_EXIT_FAILURE. */
int cli_print(json_t *doc, int json);

/* Write `doc` (consumed) to the file `path`, or pretty JSON to stdout when
 * `path` is NULL. Returns the exit status, reporting a write error. */
int cli_emit(const char *cmd, json_t *doc, const char *path);

/* An argument error: "pascal CMD: --opt: message" (field names that match an
 * option of `args` are shown as that option, '_' written '-'). Returns
 * CLI_EXIT_USAGE for PASCAL_EINVAL / PASCAL_ERANGE, else as cli_input_error. */
int cli_arg_error(const char *cmd, const cli_arg *args, size_t n_args, const pascal_error *err);

/* An error about an input file or the model: "pascal CMD: WHAT: field:
 * message". Returns CLI_EXIT_REFUSED for PASCAL_EREFUSED, else
 * CLI_EXIT_FAILURE. */
int cli_input_error(const char *cmd, const char *what, const pascal_error *err);

/* cli_args_parse(), reporting a failure: CLI_EXIT_OK or CLI_EXIT_USAGE; or,
 * when argv asks for --help, the table's options on stdout (cli_args_help)
 * and CLI_HELP_SHOWN. */
int cli_parse(const char *cmd, int argc, char **argv, cli_arg *args, size_t n_args,
              const char **positional, size_t min_positional, size_t max_positional,
              size_t *n_positional);

/* The end of a query command: on failure (st != OK) report `err` as an
 * argument error, else print `doc` (consumed). Returns the exit status. */
int cli_finish(const char *cmd, const cli_arg *args, size_t n_args, pascal_status st, json_t *doc,
               int json, const pascal_error *err);

#endif
