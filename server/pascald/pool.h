/*
 * pool.h - the worker threads that run blocking requests (docs/threads.md):
 * a route that reads or writes the store (which may wait on SQLite's lock
 * for its busy timeout) is taken off libmicrohttpd's thread pool, its
 * connection suspended, and run here; the answer goes back by resuming the
 * connection. So predictions, which only read memory, never wait behind a
 * store call. A fixed number of threads takes tasks from one FIFO queue.
 */
#ifndef PASCALD_POOL_H
#define PASCALD_POOL_H

#include <stddef.h>

typedef struct pd_pool pd_pool;
typedef void (*pd_task_fn)(void *arg);

/* Start `threads` workers. Returns 0, or -1 (nothing started). */
int pd_pool_start(unsigned threads, pd_pool **out);
/* Queue fn(arg). Returns 0, or -1 when out of memory or stopping (fn is
 * not run then). */
int pd_pool_submit(pd_pool *p, pd_task_fn fn, void *arg);
/* Run every task still queued, then join the workers and free the pool. */
void pd_pool_stop(pd_pool *p);

#endif
