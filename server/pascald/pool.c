/* pool.c - a fixed set of worker threads over one FIFO queue (pool.h). */
#include "pool.h"

#include <pthread.h>
#include <stdlib.h>

typedef struct pd_task {
  struct pd_task *next;
  pd_task_fn fn;
  void *arg;
} pd_task;

struct pd_pool {
  pthread_mutex_t mu;
  pthread_cond_t work;
  pd_task *head, *tail;
  int stop;
  unsigned n;
  pthread_t threads[];
};

static void *worker(void *arg)
{
  pd_pool *p = arg;
  pthread_mutex_lock(&p->mu);
  for (;;) {
    while (!p->head && !p->stop)
      pthread_cond_wait(&p->work, &p->mu);
    pd_task *t = p->head;
    if (!t)
      break; /* stopping and drained */
    p->head = t->next;
    if (!p->head)
      p->tail = NULL;
    pthread_mutex_unlock(&p->mu);
    t->fn(t->arg);
    free(t);
    pthread_mutex_lock(&p->mu);
  }
  pthread_mutex_unlock(&p->mu);
  return NULL;
}

int pd_pool_start(unsigned threads, pd_pool **out)
{
  pd_pool *p = calloc(1, sizeof *p + threads * sizeof(pthread_t));
  if (!p || threads == 0) {
    free(p);
    return -1;
  }
  pthread_mutex_init(&p->mu, NULL);
  pthread_cond_init(&p->work, NULL);
  for (; p->n < threads; p->n++)
    if (pthread_create(&p->threads[p->n], NULL, worker, p) != 0) {
      pd_pool_stop(p);
      return -1;
    }
  *out = p;
  return 0;
}

int pd_pool_submit(pd_pool *p, pd_task_fn fn, void *arg)
{
  pd_task *t = malloc(sizeof *t);
  if (!t)
    return -1;
  t->next = NULL;
  t->fn = fn;
  t->arg = arg;
  pthread_mutex_lock(&p->mu);
  int rc = p->stop ? -1 : 0;
  if (!rc) {
    if (p->tail)
      p->tail->next = t;
    else
      p->head = t;
    p->tail = t;
    pthread_cond_signal(&p->work);
  }
  pthread_mutex_unlock(&p->mu);
  if (rc)
    free(t);
  return rc;
}

void pd_pool_stop(pd_pool *p)
{
  if (!p)
    return;
  pthread_mutex_lock(&p->mu);
  p->stop = 1;
  pthread_cond_broadcast(&p->work);
  pthread_mutex_unlock(&p->mu);
  for (unsigned i = 0; i < p->n; i++)
    pthread_join(p->threads[i], NULL);
  pthread_cond_destroy(&p->work);
  pthread_mutex_destroy(&p->mu);
  free(p);
}
