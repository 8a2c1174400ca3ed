/*
 * pascal/query.h - what a user asks the model (paper section 4, Algorithm
 * predict): a query is a workload tag and that workload's parameters, and
 * this header is the one place that says which parameters each workload
 * takes, their types, their ranges and the rules between them.
 *
 * Each workload has a field table (pascal_query_fields): name (the JSON
 * member of a /v1/predict query, its query-string key, the `pascal predict`
 * option --name), type, whether it is required, its range and where it is
 * kept in pascal_query. The daemon's query readers, the CLI's options, the
 * codec's "query" echo and GET /v1/schema all walk these tables, so a new
 * model input is a member of the workload's struct, a row of its table and
 * its docs; pascal_query_build() makes a query from the values a reader
 * read, and pascal_query_check() holds the rules a table cannot say (the
 * scan's depth belongs to its path).
 *
 *   scan       o, path, d, m (the key z), N (blocks), W (horizon)
 *   gemm       Mg, Ng, Kg (the problem shape); optionally the configuration
 *              tile_m, tile_n, tile_k, elem_bytes, stages, group_m (each
 *              absent one is the calibration's: pascal/gemm_config.h)
 *   attention  seq_q, seq_kv, heads, head_dim, stages; optional kv_heads,
 *              block_q, block_kv, elem_bytes, causal (pascal/attention.h)
 *
 * Error convention (pascal/error.h): fields are named `prefix.name` when a
 * prefix is given ("queries[3].d", a batch item), else `name`; PASCAL_EMISSING
 * for an absent required field, PASCAL_ERANGE for a number outside its range,
 * PASCAL_EINVAL for a value its field does not take or that breaks a rule.
 *
 * A query is plain data; none of these functions allocates or keeps state.
 */
#ifndef PASCAL_QUERY_H
#define PASCAL_QUERY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pascal/attention.h"
#include "pascal/calibration.h"
#include "pascal/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The horizons a scan query may ask for. */
#define PASCAL_PREDICT_W_MIN   1e-9
#define PASCAL_PREDICT_W_MAX   1e15
/* The largest tile side and raster group a GEMM query may name. */
#define PASCAL_QUERY_TILE_MAX  4096
#define PASCAL_QUERY_GROUP_MAX 65536
/* The messages for a query that mixes the fields of two workloads: a scan's
 * and a GEMM's; attention's and another's. */
#define PASCAL_PREDICT_MIXED_MESSAGE                                                               \
  "a query is either a scan (o, path, d, m, N, W) or a GEMM (Mg, Ng, Kg), not both"
#define PASCAL_PREDICT_MIXED_ATTENTION_MESSAGE                                                     \
  "an attention query (seq_q, seq_kv, heads, head_dim, stages, ...) takes no scan or GEMM field"

/* A shared cyclic scan: the key z = (o, path, d, m), N blocks, horizon W. */
typedef struct pascal_scan_query {
  pascal_scan_key key;
  uint32_t N;
  double W;
} pascal_scan_query;

/* A tiled GEMM: the problem shape, in multiples of the configuration's tile. */
typedef struct pascal_gemm_query {
  pascal_gemm_shape shape;
  pascal_gemm_config config;
} pascal_gemm_query;

/* An attention launch (pascal/attention.h). */
typedef struct pascal_attention_query {
  pascal_attention_shape shape;
} pascal_attention_query;

/* The tagged query. `given` has bit i set when field i of the workload's
 * table was given (an optional field that is not given keeps its zero). */
typedef struct pascal_query {
  pascal_workload workload;
  uint32_t given;
  union {
    pascal_scan_query scan;
    pascal_gemm_query gemm;
    pascal_attention_query attention;
  };
} pascal_query;

/* At most this many fields per workload (bits of `given`). */
#define PASCAL_QUERY_FIELDS_MAX 32

typedef enum pascal_query_type {
  PASCAL_QUERY_UINT, /* an integer in [lo, hi], kept as uint32_t  */
  PASCAL_QUERY_REAL, /* a finite number in [lo, hi], kept as double */
  PASCAL_QUERY_PATH  /* "sync" or "tma", kept as pascal_path       */
} pascal_query_type;

typedef struct pascal_query_field {
  const char *name;
  pascal_query_type type;
  bool required;            /* false: may be absent (its rule is pascal_query_check's) */
  bool marks;               /* given, it says the query is this workload's (no other
                               workload has a field of its name)                      */
  double lo, hi;            /* UINT, REAL: the inclusive range                        */
  size_t offset;            /* of its value inside pascal_query                       */
  const char *doc;          /* one line: what the field is                       */
  const char *example;      /* a value a first query may use (the schema's
                               example, the dashboard's form)                   */
  bool calibration_default; /* absent: the calibration's own value (a
                               GEMM's or attention's tiling), so a first
                               query leaves it out and the form starts it
                               empty, its example a hint                 */
} pascal_query_field;

/* The field table of `workload` (*out) and its length; 0 (and *out NULL)
 * for a value that is not a workload. */
size_t pascal_query_fields(pascal_workload workload, const pascal_query_field **out);

/* Index of field `name` (len bytes, not necessarily NUL-terminated) in the
 * table of `workload`, or -1. */
int pascal_query_field_index(pascal_workload workload, const char *name, size_t len);

/* A whole query from code: every field of its table given (GEMM: the
 * shape; the configuration fields of `config` that are not 0, config NULL:
 * none). */
pascal_query pascal_query_scan(const pascal_scan_key *key, uint32_t N, double W);
pascal_query pascal_query_gemm(const pascal_gemm_shape *shape, const pascal_gemm_config *config);
pascal_query pascal_query_attention(const pascal_attention_shape *shape);

/* A field's value as readers give it and writers read it. */
typedef struct pascal_query_value {
  uint64_t u;       /* UINT */
  double r;         /* REAL */
  const char *text; /* PATH: its name ("sync", "tma") */
} pascal_query_value;

/* The query of `workload` from what its reader read: values[i] is field
 * i's value when bit i of `given` is set (the others are not read). Each
 * value is taken as its field takes it, in the table's order (UINT: an
 * integer in [lo, hi], REAL: a finite number in [lo, hi], else ERANGE;
 * PATH: a path name, else EINVAL), then the query is checked as
 * pascal_query_check checks it. *out is written in any case; an error
 * names prefix.name. The one way readers (pascald, the CLI) make a
 * query. */
pascal_status pascal_query_build(pascal_workload workload, const pascal_query_value *values,
                                 uint32_t given, const char *prefix, pascal_query *out,
                                 pascal_error *err);
/* The value of field `index` (given or not: its zero). */
void pascal_query_get(const pascal_query *q, size_t index, pascal_query_value *out);

/* The workload a set of field names asks for: the one whose marking fields
 * are given, scan when none is. given(name, arg) says whether the field
 * `name` is present. Marking fields of two workloads: EINVAL naming the
 * first given marking field of the later one with
 * PASCAL_PREDICT_MIXED_MESSAGE (scan and GEMM) or
 * PASCAL_PREDICT_MIXED_ATTENTION_MESSAGE (attention and another). */
pascal_status pascal_query_workload(int (*given)(const char *name, void *arg), void *arg,
                                    const char *prefix, pascal_workload *out, pascal_error *err);

/* Check a query: every required field given and every value in its range
 * (the messages of pascal_query_build), and the rules between fields: a tma
 * scan needs its depth d >= 1 (EMISSING when absent, EINVAL when 0), a sync
 * scan has d = 0; a GEMM's elem_bytes is 1, 2, 4 or 8; attention's kv_heads
 * divides heads (EINVAL). What the attention model does not describe
 * (causal, kv_heads > 1, another tiling) is its refusal,
 * pascal_model_predict_attention's. */
pascal_status pascal_query_check(const pascal_query *q, const char *prefix, pascal_error *err);

#ifdef __cplusplus
}
#endif
#endif
