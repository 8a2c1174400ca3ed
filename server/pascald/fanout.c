/*
 * fanout.c - k jobs of one request on up to k threads (fanout.h).
 */
#include "fanout.h"

#include <pthread.h>

void pd_fanout(size_t k, void *(*fn)(void *), void *jobs, size_t stride)
{
  pthread_t tid[PD_FANOUT_MAX];
  int started[PD_FANOUT_MAX] = {0};
  char *at = jobs;
  if (k > PD_FANOUT_MAX)
    k = PD_FANOUT_MAX;
  for (size_t j = 1; j < k; j++)
    started[j] = pthread_create(&tid[j], NULL, fn, at + j * stride) == 0;
  if (k > 0)
    fn(at);
  for (size_t j = 1; j < k; j++) {
    if (started[j])
      pthread_join(tid[j], NULL);
    else
      fn(at + j * stride); /* no thread: run it here */
  }
}
