/*
 * tokens.c - the in-memory table of the tokens that authenticated a read,
 * and its revalidation thread (tokens.h).
 */
#include "tokens.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clock.h"
#include "pascal/grow.h"

struct pd_tokens {
  pthread_rwlock_t lock;
  pascal_store_token *e; /* entries sorted by hash, all active when learnt */
  size_t n, cap;
  pascal_store *store;
  pthread_t thread;
  int started;
  pthread_mutex_t mu; /* guards stop and the thread's wait */
  pthread_cond_t wake;
  int stop;
  unsigned interval_ms;
};

int pd_tokens_new(pascal_store *store, pd_tokens **out)
{
  pd_tokens *t = calloc(1, sizeof *t);
  if (!t)
    return -1;
  t->store = store;
  pthread_rwlock_init(&t->lock, NULL);
  pthread_mutex_init(&t->mu, NULL);
  pd_cond_init_monotonic(&t->wake);
  *out = t;
  return 0;
}

void pd_tokens_free(pd_tokens *t)
{
  if (!t)
    return;
  if (t->started) {
    pthread_mutex_lock(&t->mu);
    t->stop = 1;
    pthread_cond_signal(&t->wake);
    pthread_mutex_unlock(&t->mu);
    pthread_join(t->thread, NULL);
  }
  free(t->e);
  pthread_cond_destroy(&t->wake);
  pthread_mutex_destroy(&t->mu);
  pthread_rwlock_destroy(&t->lock);
  free(t);
}

/* Index of the first entry whose hash is >= `hash` (binary search). */
static size_t lower_bound(const pd_tokens *t, const char *hash)
{
  size_t lo = 0, hi = t->n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (strcmp(t->e[mid].hash, hash) < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

int pd_tokens_find(pd_tokens *t, const char *hash, pascal_store_token *out)
{
  pthread_rwlock_rdlock(&t->lock);
  size_t i = lower_bound(t, hash);
  int found = i < t->n && strcmp(t->e[i].hash, hash) == 0;
  if (found)
    *out = t->e[i];
  pthread_rwlock_unlock(&t->lock);
  return found;
}

void pd_tokens_learn(pd_tokens *t, const pascal_store_token *token)
{
  pthread_rwlock_wrlock(&t->lock);
  size_t i = lower_bound(t, token->hash);
  if (i < t->n && strcmp(t->e[i].hash, token->hash) == 0) {
    t->e[i] = *token; /* learnt twice by concurrent reads */
  } else if (pascal_grow((void **)&t->e, &t->cap, t->n + 1, sizeof *t->e) == PASCAL_OK) {
    memmove(&t->e[i + 1], &t->e[i], (t->n - i) * sizeof *t->e);
    t->e[i] = *token;
    t->n++;
  } /* out of memory: the store keeps answering for it */
  pthread_rwlock_unlock(&t->lock);
}

int pd_tokens_revalidate(pd_tokens *t)
{
  pascal_store_token *list = NULL;
  size_t n = 0;
  int ok = pascal_store_token_list(t->store, &list, &n, NULL) == PASCAL_STORE_OK;
  pthread_rwlock_wrlock(&t->lock);
  size_t kept = 0;
  for (size_t i = 0; ok && i < t->n; i++)
    for (size_t j = 0; j < n; j++)
      if (list[j].revoked == 0 && strcmp(list[j].hash, t->e[i].hash) == 0) {
        t->e[kept++] = list[j]; /* its current role and name; the order stays */
        break;
      }
  t->n = kept; /* a list that cannot be read empties the table */
  pthread_rwlock_unlock(&t->lock);
  free(list);
  return ok ? 0 : -1;
}

static void *revalidate_main(void *arg)
{
  pd_tokens *t = arg;
  pthread_mutex_lock(&t->mu);
  while (!t->stop) {
    struct timespec until;
    pd_deadline_after_ms(&until, t->interval_ms);
    while (!t->stop && pthread_cond_timedwait(&t->wake, &t->mu, &until) == 0) {
    }
    if (t->stop)
      break;
    pthread_mutex_unlock(&t->mu);
    pd_tokens_revalidate(t);
    pthread_mutex_lock(&t->mu);
  }
  pthread_mutex_unlock(&t->mu);
  return NULL;
}

int pd_tokens_start(pd_tokens *t, unsigned interval_ms)
{
  t->interval_ms = interval_ms ? interval_ms : 1;
  if (pthread_create(&t->thread, NULL, revalidate_main, t))
    return -1;
  t->started = 1;
  return 0;
}
