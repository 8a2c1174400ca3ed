/*
 * plot_cache.c - a bounded ring of (key, SVG) pairs under one mutex
 * (plot_cache.h). Lookup is linear: at most PD_PLOT_CACHE_MAX short keys.
 */
#include "plot_cache.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

typedef struct entry {
  char *key;
  char *svg;
  size_t len;
} entry;

struct pd_plot_cache {
  pthread_mutex_t mu;
  entry slot[PD_PLOT_CACHE_MAX];
  size_t n, next; /* used slots; slot the next insert overwrites when full */
};

int pd_plot_cache_new(pd_plot_cache **out)
{
  pd_plot_cache *c = calloc(1, sizeof *c);
  if (!c)
    return -1;
  if (pthread_mutex_init(&c->mu, NULL)) {
    free(c);
    return -1;
  }
  *out = c;
  return 0;
}

void pd_plot_cache_free(pd_plot_cache *c)
{
  if (!c)
    return;
  for (size_t i = 0; i < c->n; i++) {
    free(c->slot[i].key);
    free(c->slot[i].svg);
  }
  pthread_mutex_destroy(&c->mu);
  free(c);
}

void pd_plot_cache_clear(pd_plot_cache *c)
{
  pthread_mutex_lock(&c->mu);
  for (size_t i = 0; i < c->n; i++) {
    free(c->slot[i].key);
    free(c->slot[i].svg);
  }
  c->n = c->next = 0;
  pthread_mutex_unlock(&c->mu);
}

static entry *find(pd_plot_cache *c, const char *key)
{
  for (size_t i = 0; i < c->n; i++)
    if (!strcmp(c->slot[i].key, key))
      return &c->slot[i];
  return NULL;
}

char *pd_plot_cache_get(pd_plot_cache *c, const char *key, size_t *len)
{
  char *copy = NULL;
  pthread_mutex_lock(&c->mu);
  entry *e = find(c, key);
  if (e && (copy = malloc(e->len + 1))) {
    memcpy(copy, e->svg, e->len + 1);
    *len = e->len;
  }
  pthread_mutex_unlock(&c->mu);
  return copy;
}

void pd_plot_cache_put(pd_plot_cache *c, const char *key, const char *svg, size_t len)
{
  char *k = strdup(key), *s = malloc(len + 1);
  if (!k || !s)
    goto drop;
  memcpy(s, svg, len);
  s[len] = '\0';
  pthread_mutex_lock(&c->mu);
  if (find(c, key)) {
    pthread_mutex_unlock(&c->mu);
    goto drop;
  }
  entry *e;
  if (c->n < PD_PLOT_CACHE_MAX) {
    e = &c->slot[c->n++];
  } else {
    e = &c->slot[c->next];
    c->next = (c->next + 1) % PD_PLOT_CACHE_MAX;
    free(e->key);
    free(e->svg);
  }
  *e = (entry){k, s, len};
  pthread_mutex_unlock(&c->mu);
  return;
drop:
  free(k);
  free(s);
}
