/*
 * config.h - pascald configuration: defaults < config file < environment
 * (PASCAL_<KEY>) < command-line flags (--key value / --key=value).
 *
 * Keys (file: `key = value`, '#' comments; flags use '-' for '_'):
 *   listen HOST:PORT, db PATH, bundles DIR, lease_seconds, max_attempts,
 *   threads, connection_limit, connection_limit_per_ip, connection_timeout,
 *   request_deadline, body_max, batch_max, read_only (true/false),
 *   auth_reads (true/false), cors_origins (comma-separated origins, cors.h),
 *   cors_max_age (seconds).
 */
#ifndef PASCALD_CONFIG_H
#define PASCALD_CONFIG_H

#include "pascald.h"

void pd_config_defaults(pd_config *cfg);

/* Full resolution for `pascald [serve]`: argv flags (after the subcommand),
 * --config FILE, env. Returns 0, or -1 with a message. */
int pd_config_load(pd_config *cfg, int argc, char **argv, char *msg, size_t msglen);

#endif
