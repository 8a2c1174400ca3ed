/*
 * meta.c - facts about the database itself, in the meta table (schema
 * migration 8): its random instance id, and what a replica last saw of its
 * primary (replica.c). Values are short texts.
 */
#include "store_internal.h"

#include <stdio.h>
#include <string.h>

pascal_store_status pascal_store_meta_get(pascal_store *s, const char *key, char *value,
                                          size_t size, pascal_error *err)
{
  pascal_store_status status = store_check_text(key, "key", err);
  if (status)
    return status;
  store_lock(s);
  sqlite3_stmt *st = NULL;
  int row = 0;
  status = store_row_by_text(s, ST_META_GET, key, &st, &row, "meta", err);
  if (status == PASCAL_STORE_OK && !row)
    status = store_fail(err, PASCAL_STORE_NOT_FOUND, "key", "no meta value '%s'", key);
  if (status == PASCAL_STORE_OK)
    store_column_copy(st, 0, value, size);
  sqlite3_reset(st);
  store_unlock(s);
  return status;
}

pascal_store_status pascal_store_meta_set(pascal_store *s, const char *key, const char *value,
                                          pascal_error *err)
{
  pascal_store_status status = store_check_text(key, "key", err);
  if (!status && (!value || strlen(value) > 255))
    status = store_fail(err, PASCAL_STORE_INVALID, "value", "a meta value is 0 to 255 bytes");
  if (!status)
    status = store_begin(s, err);
  if (status)
    return status;
  sqlite3_stmt *st = store_stmt_get(s, ST_META_SET);
  if (sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC) ||
      sqlite3_bind_text(st, 2, value, -1, SQLITE_STATIC))
    status = store_sql_error(s->db, sqlite3_errcode(s->db), "meta", err);
  if (!status)
    status = store_step_done(s, st, "meta", err);
  return store_end(s, status, err);
}
