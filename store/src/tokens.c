/*
 * tokens.c - API tokens (issue 4 item 3). The store only ever sees the
 * SHA-256 of a token, never the token itself: pascald hashes the bearer
 * token of a request, looks the hash up here, and compares the hash it got
 * back with its own in constant time before trusting the role.
 */
#include "store_internal.h"

#include <string.h>

static pascal_store_status token_reader(sqlite3_stmt *st, void *elem, pascal_error *err)
{
  pascal_store_token *t = elem;
  t->id = sqlite3_column_int64(st, 0);
  store_column_copy(st, 1, t->name, sizeof t->name);
  t->role = (pascal_store_role)store_role_parse((const char *)sqlite3_column_text(st, 2));
  store_column_copy(st, 3, t->hash, sizeof t->hash);
  t->created = sqlite3_column_int64(st, 4);
  t->revoked = sqlite3_column_int64(st, 5);
  return PASCAL_STORE_OK;
}

pascal_store_status pascal_store_token_create(pascal_store *s, const char *name,
                                              pascal_store_role role, const char *hash, int64_t now,
                                              int64_t *id, pascal_error *err)
{
  pascal_store_status status = store_check_label(name, "name", err);
  if (!status && role != PASCAL_STORE_ROLE_ADMIN && role != PASCAL_STORE_ROLE_AGENT)
    status = store_fail(err, PASCAL_STORE_INVALID, "role", "role must be admin or agent");
  if (!status)
    status = store_check_hex(hash, 64, 64, "hash", err);
  if (!status)
    status = store_check_time(now, err);
  if (!status)
    status = store_begin(s, err);
  if (status)
    return status;
  int exists = 0;
  sqlite3_stmt *st = NULL;
  status = store_row_by_text(s, ST_TOKEN_EXISTS, hash, &st, &exists, "token", err);
  sqlite3_reset(st);
  if (!status && exists)
    status = store_fail(err, PASCAL_STORE_CONFLICT, "hash", "a token with this hash exists");
  if (!status) {
    st = store_stmt_get(s, ST_TOKEN_INSERT);
    if (sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC) ||
        sqlite3_bind_text(st, 2, pascal_store_role_name(role), -1, SQLITE_STATIC) ||
        sqlite3_bind_text(st, 3, hash, -1, SQLITE_STATIC) || sqlite3_bind_int64(st, 4, now))
      status = store_sql_error(s->db, sqlite3_errcode(s->db), "token", err);
    else
      status = store_step_done(s, st, "token insert", err);
  }
  int64_t made = status ? 0 : sqlite3_last_insert_rowid(s->db);
  status = store_end(s, status, err);
  if (status == PASCAL_STORE_OK)
    *id = made;
  return status;
}

pascal_store_status pascal_store_token_find(pascal_store *s, const char *hash,
                                            pascal_store_token *out, pascal_error *err)
{
  pascal_store_status status = store_check_hex(hash, 64, 64, "hash", err);
  if (status)
    return status;
  int row = 0;
  pascal_store_token t;
  store_lock(s);
  sqlite3_stmt *st = NULL;
  status = store_row_by_text(s, ST_TOKEN_FIND, hash, &st, &row, "token", err);
  if (!status && row) {
    memset(&t, 0, sizeof t);
    status = token_reader(st, &t, err);
  }
  sqlite3_reset(st);
  store_unlock(s);
  if (!status && !row)
    status = store_fail(err, PASCAL_STORE_NOT_FOUND, "token", "no active token");
  if (!status)
    *out = t;
  return status;
}

pascal_store_status pascal_store_token_list(pascal_store *s, pascal_store_token **out,
                                            size_t *count, pascal_error *err)
{
  return store_list(s, ST_TOKEN_LIST, sizeof **out, token_reader, NULL, (void **)out, count, err);
}

pascal_store_status pascal_store_token_revoke(pascal_store *s, int64_t id, int64_t now,
                                              pascal_error *err)
{
  pascal_store_status status = store_check_time(now, err);
  if (!status)
    status = store_begin(s, err);
  if (status)
    return status;
  sqlite3_stmt *st = store_stmt_get(s, ST_TOKEN_REVOKE);
  if (sqlite3_bind_int64(st, 1, id) || sqlite3_bind_int64(st, 2, now))
    status = store_sql_error(s->db, sqlite3_errcode(s->db), "revoke", err);
  else
    status = store_step_done(s, st, "revoke", err);
  if (!status && sqlite3_changes64(s->db) == 0)
    status = store_fail(err, PASCAL_STORE_NOT_FOUND, "id", "no token %lld", (long long)id);
  return store_end(s, status, err);
}
