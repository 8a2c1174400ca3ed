/*
 * status.c - the store's statuses: their names, the pascal_status each maps
 * onto, and the error record filled from a store failure or a SQLite result
 * code. Every other store file reports through these two helpers.
 */
#include "store_internal.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>

const char *pascal_store_status_name(pascal_store_status status)
{
  switch (status) {
  case PASCAL_STORE_OK: return "ok";
  case PASCAL_STORE_INVALID: return "invalid";
  case PASCAL_STORE_NOT_FOUND: return "not_found";
  case PASCAL_STORE_CONFLICT: return "conflict";
  case PASCAL_STORE_STALE: return "stale";
  case PASCAL_STORE_NOMEM: return "nomem";
  case PASCAL_STORE_IO: return "io";
  case PASCAL_STORE_FORBIDDEN: return "forbidden";
  case PASCAL_STORE_CORRUPT: return "corrupt";
  }
  return "unknown";
}

static pascal_status core_status(pascal_store_status status)
{
  switch (status) {
  case PASCAL_STORE_OK: return PASCAL_OK;
  case PASCAL_STORE_INVALID: return PASCAL_EINVAL;
  case PASCAL_STORE_NOT_FOUND: return PASCAL_ENOTFOUND;
  case PASCAL_STORE_CONFLICT:
  case PASCAL_STORE_STALE:
  case PASCAL_STORE_FORBIDDEN: return PASCAL_EREFUSED;
  case PASCAL_STORE_NOMEM: return PASCAL_ENOMEM;
  case PASCAL_STORE_IO:
  case PASCAL_STORE_CORRUPT: return PASCAL_ERANGE;
  }
  return PASCAL_ERANGE;
}

pascal_store_status store_fail(pascal_error *err, pascal_store_status status, const char *field,
                               const char *fmt, ...)
{
  if (!err)
    return status;
  char message[PASCAL_ERROR_MESSAGE_MAX];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(message, sizeof message, fmt, ap);
  va_end(ap);
  pascal_error_set(err, core_status(status), field, "%s", message);
  return status;
}

pascal_store_status store_sql_error(sqlite3 *db, int rc, const char *what, pascal_error *err)
{
  int primary = rc & 0xff;
  pascal_store_status status = PASCAL_STORE_IO;
  if (primary == SQLITE_CONSTRAINT)
    status = PASCAL_STORE_CONFLICT;
  else if (primary == SQLITE_NOMEM)
    status = PASCAL_STORE_NOMEM;
  else if (primary == SQLITE_CORRUPT || primary == SQLITE_NOTADB)
    status = PASCAL_STORE_CORRUPT;
  /* SQLite reports a full disk met while growing its shared-memory or
   * journal file as a generic I/O error; the system's errno tells. */
  int sys = db ? sqlite3_system_errno(db) : 0;
  if (primary == SQLITE_FULL || (primary == SQLITE_IOERR && (sys == ENOSPC || sys == EDQUOT)))
    return store_fail(err, status, "", "%s: the disk is full (%s)", what,
                      db ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
  return store_fail(err, status, "", "%s: %s", what, db ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
}
