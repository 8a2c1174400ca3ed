/*
 * tokens.h - the in-memory table of the API tokens that authenticated a
 * read, so that authenticated reads (predict, bounds, listings with
 * --auth-reads) never wait for the store's mutex, which every write holds
 * for its whole transaction (threads.md).
 *
 * A token enters the table the first time a read presents it and the store
 * knows it as active (so a token created by `pascald token create` while the
 * daemon runs works at once); from then on its reads are answered from the
 * table. Every PD_TOKEN_REVALIDATE_MS a thread of the table reads the
 * store's token list and keeps only the entries still active there, with
 * their current role and name: a revoked token stops authenticating reads
 * within that bound after its revocation commits (plus the wait for the
 * store's mutex, at most one write's transaction). When the list cannot be
 * read the table is emptied: reads then ask the store again (503 while it
 * cannot answer). Writes always ask the store, so a revoked token can never
 * write again. Each daemon, replicas included, keeps the table of its own
 * database.
 *
 * Thread safety: a read-write lock guards the entries (readers copy the
 * entry they found); the revalidation thread builds nothing under it but
 * the filtered table.
 */
#ifndef PASCALD_TOKENS_H
#define PASCALD_TOKENS_H

#include "pascal_store.h"

#define PD_TOKEN_REVALIDATE_MS 1000u

typedef struct pd_tokens pd_tokens;

/* An empty table over `store`. 0, or -1 (out of memory). */
int pd_tokens_new(pascal_store *store, pd_tokens **out);
/* Stop the revalidation thread (if started) and free the table. */
void pd_tokens_free(pd_tokens *t);
/* Start revalidating every `interval_ms`. 0, or -1 when no thread starts. */
int pd_tokens_start(pd_tokens *t, unsigned interval_ms);

/* The active token with this hash (64 hex digits), copied into *out: 1 when
 * the table holds it, 0 when it does not (ask the store). */
int pd_tokens_find(pd_tokens *t, const char *hash, pascal_store_token *out);
/* Add a token the store has just found active. */
void pd_tokens_learn(pd_tokens *t, const pascal_store_token *token);
/* One revalidation against the store now. 0, or -1 when the store could
 * not be read (the table is then empty). */
int pd_tokens_revalidate(pd_tokens *t);

#endif
