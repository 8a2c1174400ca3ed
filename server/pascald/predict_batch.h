/*
 * predict_batch.h - a batch of /v1/predict queries, {"explain": bool
 * (optional), "queries": [...]}: read item by item (from the body's text, or
 * from a Jansson tree for the shapes the text reader leaves to it), at most
 * cfg.batch_max items (413 naming "queries" at the first item past it,
 * before anything is answered), then answered in slices through the
 * request fan-out (fanout.h) and written in item order. A bad item gets its
 * own error object {"error": {...}, "status": N} and fails no other.
 */
#ifndef PASCALD_PREDICT_BATCH_H
#define PASCALD_PREDICT_BATCH_H

#include "jread.h"
#include "pascald.h"

/* The body's text reader is at the value of "queries": read the batch from
 * there to its ']' and answer it. 1 when answered (or refused: rep filled),
 * 0 when the text has a shape left to Jansson (nothing answered). */
int pd_batch_from_text(pd_ctx *ctx, pd_jread *r, int explain, pd_reply *rep);

/* A body parsed by Jansson that has "queries": answer it. */
void pd_batch_from_tree(pd_ctx *ctx, json_t *body, pd_reply *rep);

/* Count answered and refused predictions in the daemon's stats. */
void pd_predict_count(pd_ctx *ctx, uint64_t ok, uint64_t refused);

#endif
