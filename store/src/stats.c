/*
 * stats.c - what /v1/stats and /metrics read from the store: calibrations
 * and jobs counted by state, and the agents with their last-seen times.
 */
#include "store_internal.h"

#include <string.h>

/* Fill counts[parse(state)] from a "SELECT state, count(*) ... GROUP BY". */
static pascal_store_status count_by_state(pascal_store *s, store_stmt which,
                                          int (*parse)(const char *), int64_t *counts,
                                          pascal_error *err)
{
  sqlite3_stmt *st = store_stmt_get(s, which);
  int row = 0;
  pascal_store_status status;
  while ((status = store_step_row(s, st, &row, "counts", err)) == PASCAL_STORE_OK && row) {
    int state = parse((const char *)sqlite3_column_text(st, 0));
    if (state >= 0) /* the schema's CHECK admits no other state */
      counts[state] = sqlite3_column_int64(st, 1);
  }
  sqlite3_reset(st);
  return status;
}

pascal_store_status pascal_store_counts_get(pascal_store *s, pascal_store_counts *out,
                                            pascal_error *err)
{
  pascal_store_counts c;
  memset(&c, 0, sizeof c);
  /* One read transaction, so both counts come from the same snapshot. */
  pascal_store_status status = store_begin_read(s, err);
  if (status)
    return status;
  status = count_by_state(s, ST_COUNT_CALS, store_cal_state_parse, c.calibrations, err);
  if (!status)
    status = count_by_state(s, ST_COUNT_JOBS, store_job_state_parse, c.jobs, err);
  status = store_end(s, status, err);
  if (status == PASCAL_STORE_OK)
    *out = c;
  return status;
}

static pascal_store_status agent_reader(sqlite3_stmt *st, void *elem, pascal_error *err)
{
  pascal_store_agent *a = elem;
  store_column_copy(st, 0, a->name, sizeof a->name);
  a->last_seen = sqlite3_column_int64(st, 1);
  return PASCAL_STORE_OK;
}

pascal_store_status pascal_store_agent_list(pascal_store *s, pascal_store_agent **out,
                                            size_t *count, pascal_error *err)
{
  return store_list(s, ST_AGENT_LIST, sizeof **out, agent_reader, NULL, (void **)out, count, err);
}
