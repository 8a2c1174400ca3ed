/*
 * rows.c - moving values between SQLite rows and the store's structs: the run
 * columns shared by jobs and measurements, the text <-> enum mapping of the
 * state and workload columns, string columns and growing result arrays.
 */
#include "store_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pascal/grow.h"

static const char *const cal_states[PASCAL_STORE_CAL_STATES] = {"collecting", "frozen", "failed"};
static const char *const job_states[PASCAL_STORE_JOB_STATES] = {"queued", "leased", "done",
                                                                "failed"};
static const char *const workloads[3] = {"scan", "gemm", "attention"};
static const char *const roles[2] = {"admin", "agent"};

static int parse(const char *text, const char *const *names, int count)
{
  for (int i = 0; text && i < count; i++)
    if (strcmp(text, names[i]) == 0)
      return i;
  return -1;
}

int store_cal_state_parse(const char *text)
{
  return parse(text, cal_states, PASCAL_STORE_CAL_STATES);
}

int store_job_state_parse(const char *text)
{
  return parse(text, job_states, PASCAL_STORE_JOB_STATES);
}

int store_workload_parse(const char *text)
{
  return parse(text, workloads, 3);
}

int store_role_parse(const char *text)
{
  return parse(text, roles, 2);
}

const char *pascal_store_cal_state_name(pascal_store_cal_state state)
{
  return (unsigned)state < PASCAL_STORE_CAL_STATES ? cal_states[state] : "unknown";
}

const char *pascal_store_job_state_name(pascal_store_job_state state)
{
  return (unsigned)state < PASCAL_STORE_JOB_STATES ? job_states[state] : "unknown";
}

const char *pascal_store_workload_name(pascal_store_workload workload)
{
  return (unsigned)workload < 3 ? workloads[workload] : "unknown";
}

const char *pascal_store_role_name(pascal_store_role role)
{
  return (unsigned)role < 2 ? roles[role] : "unknown";
}

int store_bind_run(sqlite3_stmt *st, int first, const pascal_store_run *r, pascal_store_workload w)
{
  /* Values were range-checked by store_check_run(): every one fits int64. */
  const int64_t ints[STORE_RUN_NCOLS] = {r->o,
                                         0,
                                         r->d,
                                         r->m,
                                         (int64_t)r->N,
                                         (int64_t)r->W,
                                         (int64_t)r->Mg,
                                         (int64_t)r->Ng,
                                         (int64_t)r->Kg,
                                         r->repeat,
                                         r->heldout,
                                         r->config.tile_m,
                                         r->config.tile_n,
                                         r->config.tile_k,
                                         r->config.elem_bytes,
                                         r->config.stages,
                                         r->config.group_m};
  int rc = SQLITE_OK;
  for (int i = 0; i < STORE_RUN_NCOLS && rc == SQLITE_OK; i++) {
    if (i == 1)
      rc = w != PASCAL_STORE_GEMM /* scan and attention runs are scans */
               ? sqlite3_bind_text(st, first + i, r->path_tma ? "tma" : "sync", -1, SQLITE_STATIC)
               : sqlite3_bind_null(st, first + i);
    else
      rc = sqlite3_bind_int64(st, first + i, ints[i]);
  }
  return rc;
}

void store_read_run(sqlite3_stmt *st, int first, pascal_store_run *r)
{
  memset(r, 0, sizeof *r);
  const unsigned char *path = sqlite3_column_text(st, first + 1);
  r->o = (uint32_t)sqlite3_column_int64(st, first);
  r->path_tma = path && strcmp((const char *)path, "tma") == 0;
  r->d = (uint32_t)sqlite3_column_int64(st, first + 2);
  r->m = (uint32_t)sqlite3_column_int64(st, first + 3);
  r->N = (uint64_t)sqlite3_column_int64(st, first + 4);
  r->W = (uint64_t)sqlite3_column_int64(st, first + 5);
  r->Mg = (uint64_t)sqlite3_column_int64(st, first + 6);
  r->Ng = (uint64_t)sqlite3_column_int64(st, first + 7);
  r->Kg = (uint64_t)sqlite3_column_int64(st, first + 8);
  r->repeat = (uint32_t)sqlite3_column_int64(st, first + 9);
  r->heldout = sqlite3_column_int64(st, first + 10) != 0;
  uint32_t *config[] = {&r->config.tile_m,     &r->config.tile_n, &r->config.tile_k,
                        &r->config.elem_bytes, &r->config.stages, &r->config.group_m};
  for (int i = 0; i < 6; i++)
    *config[i] = (uint32_t)sqlite3_column_int64(st, first + 11 + i);
}

void store_column_copy(sqlite3_stmt *st, int col, char *dst, size_t size)
{
  const unsigned char *text = sqlite3_column_text(st, col);
  snprintf(dst, size, "%s", text ? (const char *)text : "");
}

char *store_column_dup(sqlite3_stmt *st, int col, int *ok)
{
  const unsigned char *text = sqlite3_column_text(st, col);
  if (!text)
    return NULL;
  size_t len = (size_t)sqlite3_column_bytes(st, col);
  char *copy = malloc(len + 1);
  if (!copy) {
    *ok = 0;
    return NULL;
  }
  memcpy(copy, text, len);
  copy[len] = '\0';
  return copy;
}

pascal_store_status store_collect(pascal_store *s, sqlite3_stmt *st, size_t elem,
                                  store_row_reader read, store_array_free release, void **out,
                                  size_t *count, pascal_error *err)
{
  char *list = NULL;
  size_t n = 0, cap = 0;
  int row = 0;
  pascal_store_status status;
  while ((status = store_step_row(s, st, &row, "list", err)) == PASCAL_STORE_OK && row) {
    if (pascal_grow((void **)&list, &cap, n + 1, elem)) {
      status = store_fail(err, PASCAL_STORE_NOMEM, "", "out of memory");
      break;
    }
    memset(list + n * elem, 0, elem);
    status = read(st, list + n * elem, err);
    if (status)
      break;
    n++;
  }
  sqlite3_reset(st);
  if (status) {
    if (release)
      release(list, n);
    else
      free(list);
    return status;
  }
  *out = list;
  *count = n;
  return PASCAL_STORE_OK;
}

pascal_store_status store_list(pascal_store *s, store_stmt which, size_t elem,
                               store_row_reader read, store_array_free release, void **out,
                               size_t *count, pascal_error *err)
{
  store_lock(s);
  pascal_store_status status =
      store_collect(s, store_stmt_get(s, which), elem, read, release, out, count, err);
  store_unlock(s);
  return status;
}

/* Step `st` once after binding ?1 (bind_rc: the bind's result code). */
static pascal_store_status step_bound(pascal_store *s, sqlite3_stmt *st, int bind_rc, int *row,
                                      const char *what, pascal_error *err)
{
  if (bind_rc != SQLITE_OK)
    return store_sql_error(s->db, sqlite3_errcode(s->db), what, err);
  return store_step_row(s, st, row, what, err);
}

pascal_store_status store_row_by_id(pascal_store *s, store_stmt which, int64_t id,
                                    sqlite3_stmt **st, int *row, const char *what,
                                    pascal_error *err)
{
  *st = store_stmt_get(s, which);
  return step_bound(s, *st, sqlite3_bind_int64(*st, 1, id), row, what, err);
}

pascal_store_status store_row_by_text(pascal_store *s, store_stmt which, const char *text,
                                      sqlite3_stmt **st, int *row, const char *what,
                                      pascal_error *err)
{
  *st = store_stmt_get(s, which);
  return step_bound(s, *st, sqlite3_bind_text(*st, 1, text, -1, SQLITE_STATIC), row, what, err);
}

pascal_store_status store_read_by_id(pascal_store *s, store_stmt which, int64_t id,
                                     store_row_reader read, void *out, const char *what,
                                     pascal_error *err)
{
  sqlite3_stmt *st = NULL;
  int row = 0;
  pascal_store_status status = store_row_by_id(s, which, id, &st, &row, what, err);
  if (status == PASCAL_STORE_OK && !row)
    status = store_fail(err, PASCAL_STORE_NOT_FOUND, what, "no %s %lld", what, (long long)id);
  if (status == PASCAL_STORE_OK)
    status = read(st, out, err);
  sqlite3_reset(st);
  return status;
}

pascal_store_status store_get_by_id(pascal_store *s, store_stmt which, int64_t id,
                                    store_row_reader read, void *out, const char *what,
                                    pascal_error *err)
{
  store_lock(s);
  pascal_store_status status = store_read_by_id(s, which, id, read, out, what, err);
  store_unlock(s);
  return status;
}

pascal_store_status store_begin_by_id(pascal_store *s, store_stmt which, int64_t id,
                                      store_row_reader read, void *out, const char *what,
                                      pascal_error *err)
{
  pascal_store_status status = store_begin(s, err);
  if (status)
    return status;
  status = store_read_by_id(s, which, id, read, out, what, err);
  return status ? store_end(s, status, err) : PASCAL_STORE_OK;
}
