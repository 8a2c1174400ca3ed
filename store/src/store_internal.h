/*
 * store_internal.h - what the store's source files share: the connection
 * handle with its prepared statements, the transaction and error helpers, and
 * input validation. Not installed; pascal_store.h is the public API.
 */
#ifndef PASCAL_STORE_INTERNAL_H
#define PASCAL_STORE_INTERNAL_H

#include <pthread.h>
#include <sqlite3.h>
#include <sys/types.h>

#include "pascal_store.h"

/* Every SQL statement the store runs after open. Each is prepared once per
 * connection in pascal_store_open() and reused (reset + cleared) per call. */
typedef enum store_stmt {
  ST_BEGIN,
  ST_BEGIN_READ,
  ST_COMMIT,
  ST_ROLLBACK,
  ST_DEVICE_INSERT,
  ST_DEVICE_LEARN,
  ST_DEVICE_GET,
  ST_DEVICE_LIST,
  ST_DEVICE_PROGRESS,
  ST_CAL_INSERT,
  ST_CAL_GET,
  ST_CAL_LIST,
  ST_CAL_LIST_DEVICE,
  ST_CAL_FROZEN_LIST,
  ST_CAL_FIND_HASH,
  ST_CAL_FREEZE,
  ST_CAL_FAIL_WITH_FAILED_JOBS,
  ST_CAL_JOBS_NOT_DONE,
  ST_JOB_INSERT,
  ST_JOB_GET,
  ST_JOB_LIST,
  ST_JOB_NEXT_QUEUED,
  ST_JOB_LEASE,
  ST_JOB_EXTEND,
  ST_JOB_DONE,
  ST_JOB_RETRY,
  ST_JOB_REQUEUE,
  ST_JOB_EXCLUDE,
  ST_MEAS_DELETE_OF_JOB,
  ST_JOBS_SHIFT,
  ST_JOBS_EXPIRE,
  ST_MEAS_INSERT,
  ST_MEAS_OF_JOB,
  ST_MEAS_LIST,
  ST_MEAS_COPY,
  ST_TOKEN_INSERT,
  ST_TOKEN_FIND,
  ST_TOKEN_LIST,
  ST_TOKEN_REVOKE,
  ST_TOKEN_EXISTS,
  ST_AGENT_SEEN,
  ST_AGENTS_EXPIRE,
  ST_AGENT_KNOWN,
  ST_AGENTS_OF_PREFIX,
  ST_AGENT_LIST,
  ST_COUNT_CALS,
  ST_COUNT_JOBS,
  ST_USER_VERSION,
  ST_META_GET,
  ST_META_SET,
  ST_COUNT
} store_stmt;

struct pascal_store {
  sqlite3 *db;
  pthread_mutex_t lock; /* held for the whole of every public call */
  sqlite3_stmt *stmt[ST_COUNT];
  /* The identity of the file opened, to detect that its path was unlinked
   * or now names another file (pascal_store_file_check); immutable after
   * open. has_file = 0 when the path could not be stat()ed at open. */
  char *path;
  dev_t file_dev;
  ino_t file_ino;
  int has_file;
};

/* The migrations (schema.c): run them all on an open connection. */
pascal_store_status store_migrate(sqlite3 *db, pascal_error *err);
/* IO unless the file is at the newest version (read-only opens). */
pascal_store_status store_schema_require_latest(sqlite3 *db, pascal_error *err);
/* Newest schema version this library knows. */

/* The statement `which`, reset and with bindings cleared, ready to bind. */
sqlite3_stmt *store_stmt_get(pascal_store *s, store_stmt which);

/* ---- statuses and errors (status.c) ---- */
/* Set err from SQLite's last error on `db` (`rc` is the failing result
 * code) and return the matching store status: a trigger's RAISE(ABORT) or a
 * constraint -> CONFLICT, SQLITE_NOMEM -> NOMEM, anything else -> IO. */
pascal_store_status store_sql_error(sqlite3 *db, int rc, const char *what, pascal_error *err);

/* Fill err with `status` (mapped onto the closest pascal_status), field and
 * message; return `status`. */
pascal_store_status store_fail(pascal_error *err, pascal_store_status status, const char *field,
                               const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* Run a statement that returns no row (or whose rows are ignored). */
pascal_store_status store_step_done(pascal_store *s, sqlite3_stmt *st, const char *what,
                                    pascal_error *err);
/* Step once: *row = 1 with a row ready, 0 when done. */
pascal_store_status store_step_row(pascal_store *s, sqlite3_stmt *st, int *row, const char *what,
                                   pascal_error *err);

/* Lock the handle, check that the path still names the file opened
 * (pascal_store_file_check: a write to an unlinked or replaced file would
 * be acknowledged and lost) and BEGIN IMMEDIATE (the write lock is taken up front, so
 * two writers never deadlock on a lock upgrade; the busy timeout queues them).
 * On failure the handle is unlocked again. */
pascal_store_status store_begin(pascal_store *s, pascal_error *err);
/* Lock the handle and BEGIN a read transaction (deferred: it takes no
 * write lock, so it never waits on a writer in WAL mode); end with store_end. */
pascal_store_status store_begin_read(pascal_store *s, pascal_error *err);
/* COMMIT if status is OK, else ROLLBACK; unlock; return the final status
 * (a failed COMMIT rolls back and reports IO). */
pascal_store_status store_end(pascal_store *s, pascal_store_status status, pascal_error *err);
/* Lock / unlock for read-only calls (reads run in SQLite's implicit
 * transaction of the single statement, or within begin/end). */
void store_lock(pascal_store *s);
void store_unlock(pascal_store *s);

/* Register dev inside the caller's transaction (devices.c): *created = 1 if
 * inserted, 0 if an identical device exists; CONFLICT if it differs. */
pascal_store_status store_device_ensure(pascal_store *s, const pascal_store_device *dev,
                                        int64_t now, int *created, pascal_error *err);

/* Insert one measurement for calibration cal (job 0: none), inside the
 * caller's transaction (calibrations.c). Validated by the caller. */
pascal_store_status store_measurement_insert(pascal_store *s, int64_t cal,
                                             pascal_store_workload workload,
                                             const pascal_store_measurement *m, int64_t job,
                                             pascal_error *err);

/* Done and total jobs of the device's collecting calibrations (devices.c;
 * inside the caller's lock or transaction; 0/0 when it has none). */
pascal_store_status store_device_progress(pascal_store *s, const char *device, int64_t *done,
                                          int64_t *total, pascal_error *err);

/* NOT_FOUND unless the device exists (devices.c; inside the caller's lock). */
pascal_store_status store_device_require(pascal_store *s, const char *device, pascal_error *err);

/* ---- validation (validate.c); each names the field in err ---- */
pascal_store_status store_check_device_name(const char *name, const char *field, pascal_error *err);
pascal_store_status store_check_label(const char *name, const char *field, pascal_error *err);
pascal_store_status store_check_hex(const char *text, size_t min, size_t max, const char *field,
                                    pascal_error *err);
pascal_store_status store_check_text(const char *text, const char *field, pascal_error *err);
pascal_store_status store_check_time(int64_t now, pascal_error *err);
pascal_store_status store_check_workload(pascal_store_workload w, pascal_error *err);
/* A run of workload w; `field` is its prefix ("runs[3]"). */
pascal_store_status store_check_run(const pascal_store_run *r, pascal_store_workload w,
                                    const char *field, pascal_error *err);
pascal_store_status store_check_result(double fill_bytes, double kernel_ns, const char *field,
                                       pascal_error *err);
pascal_store_status store_check_device(const pascal_store_device *dev, pascal_error *err);

/* ---- row helpers shared by jobs and measurements (runs.c) ---- */
/* The run columns, in this order, in every statement that binds or reads a
 * run: o, path, d, m, N, W, Mg, Ng, Kg, repeat, heldout, then the GEMM
 * configuration tile_m, tile_n, tile_k, elem_bytes, stages, group_m (all 0
 * but for a configuration run). `path` is 'sync'/'tma' for scan and NULL
 * for GEMM. */
#define STORE_RUN_COLUMNS                                                                          \
  "o, path, d, m, N, W, Mg, Ng, Kg, repeat, heldout,"                                              \
  " tile_m, tile_n, tile_k, elem_bytes, stages, group_m"
#define STORE_RUN_NCOLS 17
int store_bind_run(sqlite3_stmt *st, int first, const pascal_store_run *r, pascal_store_workload w);
void store_read_run(sqlite3_stmt *st, int first, pascal_store_run *r);

/* Text <-> enum for the state and workload columns; -1 if unknown. */
int store_cal_state_parse(const char *text);
int store_job_state_parse(const char *text);
int store_workload_parse(const char *text);
int store_role_parse(const char *text);

/* Copy a TEXT column into a fixed buffer ("" for NULL), truncating. */
void store_column_copy(sqlite3_stmt *st, int col, char *dst, size_t size);
/* A malloc'd copy of a TEXT column, or NULL for NULL. *ok = 0 on ENOMEM. */
char *store_column_dup(sqlite3_stmt *st, int col, int *ok);

/* Reads the current row of `st` into `elem`; may fail (ENOMEM). */
typedef pascal_store_status (*store_row_reader)(sqlite3_stmt *st, void *elem, pascal_error *err);
/* Frees an array of n elements (and what they own); NULL: plain free(). */
typedef void (*store_array_free)(void *array, size_t n);

/* Step the bound statement `st` (lock held) to its end, reading one element
 * of `elem` bytes per row into a malloc'd array. On success *out (NULL when
 * empty) and *count are set; on failure the partial array is released with
 * `release` and the out-parameters are untouched. Resets `st`. */
pascal_store_status store_collect(pascal_store *s, sqlite3_stmt *st, size_t elem,
                                  store_row_reader read, store_array_free release, void **out,
                                  size_t *count, pascal_error *err);

/* store_collect() of the unbound statement `which` under the handle's lock. */
pascal_store_status store_list(pascal_store *s, store_stmt which, size_t elem,
                               store_row_reader read, store_array_free release, void **out,
                               size_t *count, pascal_error *err);

/* The statement `which` with ?1 bound to id, stepped once: *row = 1 with the
 * row ready (the caller reads it, then resets the statement), 0 if none. */
pascal_store_status store_row_by_id(pascal_store *s, store_stmt which, int64_t id,
                                    sqlite3_stmt **st, int *row, const char *what,
                                    pascal_error *err);
/* The same with ?1 bound to the text `text` (borrowed until the reset). */
pascal_store_status store_row_by_text(pascal_store *s, store_stmt which, const char *text,
                                      sqlite3_stmt **st, int *row, const char *what,
                                      pascal_error *err);

/* The row of `which` with ?1 bound to id, read into `out` by `read` (lock
 * held); NOT_FOUND "no WHAT ID" naming the field `what` when there is none.
 * Resets the statement. */
pascal_store_status store_read_by_id(pascal_store *s, store_stmt which, int64_t id,
                                     store_row_reader read, void *out, const char *what,
                                     pascal_error *err);
/* store_read_by_id() under the handle's lock (a read-only public call). */
pascal_store_status store_get_by_id(pascal_store *s, store_stmt which, int64_t id,
                                    store_row_reader read, void *out, const char *what,
                                    pascal_error *err);
/* store_begin(), then store_read_by_id() inside the new transaction. On OK
 * the transaction stays open for the caller (who ends it with store_end());
 * on failure it is rolled back and the handle unlocked. */
pascal_store_status store_begin_by_id(pascal_store *s, store_stmt which, int64_t id,
                                      store_row_reader read, void *out, const char *what,
                                      pascal_error *err);

#endif
