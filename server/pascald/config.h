/*
 * config.h - pascald configuration: defaults < config file < environment
 * (PASCAL_<KEY>) < command-line flags (--key value / --key=value).
 *
 * Keys (file: `key = value`, '#' comments; flags use '-' for '_'): the
 * table in config.c, which `pascald --help` prints (pd_config_help).
 */
#ifndef PASCALD_CONFIG_H
#define PASCALD_CONFIG_H

#include <stdio.h>

#include "pascald.h"

void pd_config_defaults(pd_config *cfg);

/* One line per option, in the order of the table every source of options
 * is read with: "--flag META  what it is (default D)". */
void pd_config_help(FILE *out);

/* Full resolution for `pascald [serve]`: argv flags (after the subcommand),
 * --config FILE, env. Returns 0, or -1 with a message. */
int pd_config_load(pd_config *cfg, int argc, char **argv, char *msg, size_t msglen);

#endif
