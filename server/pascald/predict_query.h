/*
 * predict_query.h - one query of /v1/predict: read from its flat fields
 * (qfields.h: a query string, a body's text, a Jansson object; the same
 * reader for a single query and for each batch item) into a pascal_query
 * (pascal/query.h) and the calibration it asks, then answered from the
 * registry of frozen models through pascal_answer_query (pascal/answer.h).
 * Errors name the field under the item's prefix ("queries[3].d").
 */
#ifndef PASCALD_PREDICT_QUERY_H
#define PASCALD_PREDICT_QUERY_H

#include <stdint.h>

#include "pascal/answer.h"
#include "pascal_codec.h"
#include "pascal_store.h"
#include "pascald.h"
#include "qfields.h"

typedef struct pd_query {
  char device[PASCAL_STORE_NAME_MAX]; /* as given: a name or a CUDA name */
  int64_t calibration;                /* 0: the device's newest frozen one */
  pascal_query q;
} pd_query;

/* The keys a predict query may carry, as a key table (qfields.h): slots
 * PD_QUERY_DEVICE, PD_QUERY_CALIBRATION and PD_QUERY_EXPLAIN, then every
 * workload's fields (its PATH fields are text); slot[w][i] is the slot of
 * field i of workload w's table, marks[w] the slots of w's marking fields.
 * Built once (pd_query_keys_init), then read-only. */
enum { PD_QUERY_DEVICE, PD_QUERY_CALIBRATION, PD_QUERY_EXPLAIN };
#define PD_QUERY_WORKLOADS 3
typedef struct pd_query_keys {
  pd_keys k;
  uint8_t slot[PD_QUERY_WORKLOADS][PASCAL_QUERY_FIELDS_MAX];
  uint64_t marks[PD_QUERY_WORKLOADS];
} pd_query_keys;
/* 0, or -1 when the fields do not fit a table (never with the shipped
 * workloads). */
int pd_query_keys_init(pd_query_keys *qk);

/* Read and check the fields of one query: 0, or -1 with rep filled (an
 * unknown key is named before any other error, as if the keys were checked
 * first). `prefix` names the query in errors (NULL for a single query).
 * The fields are indexed by qk's table unless they already are. */
int pd_query_read(pd_fields *fs, const pd_query_keys *qk, const char *prefix, pd_query *out,
                  pd_reply *rep);

/* Answer a read query under the registry's read lock, which the caller
 * holds: the calibration it names (else the device's newest frozen one of
 * its workload), then pascal_answer_query with the calibration's
 * validation. 0 with *a and *origin (which points into the registry's
 * never-freed models) set, or -1 with rep filled. */
int pd_query_answer(pd_ctx *ctx, const pd_query *q, const char *prefix, pascal_answer *a,
                    pascal_codec_origin *origin, pd_reply *rep);

#endif
