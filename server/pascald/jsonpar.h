/*
 * jsonpar.h - parsing large request bodies on several threads (jsonpar.c);
 * same result and same errors as pd_json_parse().
 */
#ifndef PASCALD_JSONPAR_H
#define PASCALD_JSONPAR_H

#include "pascald.h"

/* Bodies from this size on are split when they have the shape of a batch. */
#define PD_JSON_PARALLEL_MIN (256u * 1024u)

int pd_json_parse_large(const char *buf, size_t len, int depth_max, unsigned threads, json_t **out,
                        pd_reply *rep);

#endif
