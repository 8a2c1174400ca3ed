/*
 * args.h - the one option parser and validator shared by every `pascal`
 * subcommand (docs/cli.md). A subcommand describes its options in a table;
 * cli_args_parse() fills the destinations, checks types, ranges, duplicates,
 * missing values, unknown options and required options, and on any mistake
 * returns PASCAL_EINVAL with the option named ("--N") and a one-line message.
 * The caller prints it and exits 2. The same table writes the command's
 * help (cli_args_help), one line per option, so the two cannot drift. No
 * global state.
 */
#ifndef PASCAL_CLI_ARGS_H
#define PASCAL_CLI_ARGS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "pascal/error.h"

typedef enum cli_arg_kind {
  CLI_ARG_U64,     /* uint64_t, decimal digits only, in [lo, hi]             */
  CLI_ARG_U32,     /* uint32_t, decimal digits only, in [lo, hi]             */
  CLI_ARG_DOUBLE,  /* double, finite, decimal notation                         */
  CLI_ARG_STRING,  /* const char *, borrowed from argv                         */
  CLI_ARG_FLAG,    /* int, set to 1, takes no value                            */
  CLI_ARG_U64_LIST /* cli_u64_list, "0,4,7": comma-separated, each in [lo, hi] */
} cli_arg_kind;

/* A parsed list; owned by the caller after parsing, released with
 * cli_args_release() on the table that filled it. */
typedef struct cli_u64_list {
  uint64_t *v;
  size_t n;
} cli_u64_list;

typedef struct cli_arg {
  const char *name; /* option name without the leading "--"            */
  char shorthand;   /* single-dash alias ('o' for "-o"), or 0           */
  cli_arg_kind kind;
  int required;     /* 1: missing option is an error                  */
  void *dest;       /* typed by kind, see above                          */
  uint64_t lo, hi;  /* inclusive integer range (U64, U32, U64_LIST)      */
  const char *meta; /* the value in the help ("N", "FILE"); NULL: from the kind */
  const char *help; /* one line for the help: what the option is            */
  int seen;         /* set by the parser                                 */
} cli_arg;

/* Entries of an option table (an array, not a pointer). */
#define N_ARGS(a) (sizeof(a) / sizeof *(a))

/* Parse argv[0..argc-1] (the arguments after the subcommand name) against
 * the table args[0..n_args-1]. "--name value" and "--name=value" both work.
 * Arguments not starting with "--" are positional: up to max_positional are
 * stored in positional[] (borrowed), *n_positional tells how many; fewer than
 * min_positional is an error. On error some list destinations may already be
 * filled: call cli_args_release() in every case. */
pascal_status cli_args_parse(int argc, char **argv, cli_arg *args, size_t n_args,
                             const char **positional, size_t min_positional, size_t max_positional,
                             size_t *n_positional, pascal_error *err);

/* Free the lists the table's CLI_ARG_U64_LIST destinations hold. */
void cli_args_release(cli_arg *args, size_t n_args);

/* 1 when argv[0..argc-1] asks for help ("--help" or "-h" anywhere). */
int cli_args_wants_help(int argc, char **argv);

/* One line per option of the table: "  --name META   help (required)",
 * with the integer range when it is narrower than the type's. */
void cli_args_help(FILE *out, const cli_arg *args, size_t n_args);

/* Option `name` was given on the command line. */
int cli_args_seen(const cli_arg *args, size_t n_args, const char *name);

#endif
