/*
 * test_plot_cache.c - pascald's plot cache (server/pascald/plot_cache.c):
 * a hit returns a copy of the stored bytes, a second put under the same key
 * keeps the first, a full cache forgets its oldest entry first, and threads
 * may put and get at once (leaks and races on freed memory show under the
 * ASan+UBSan build).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "plot_cache.h"

static void *worker(void *arg)
{
  pd_plot_cache *c = arg;
  char key[32], svg[32];
  for (int i = 0; i < 2000; i++) {
    snprintf(key, sizeof key, "k%d", i % 300);
    snprintf(svg, sizeof svg, "<svg>%d</svg>", i % 300);
    size_t len;
    char *got = pd_plot_cache_get(c, key, &len);
    if (got) {
      if (strcmp(got, svg) != 0)
        CHECK(!"a hit returned another key's bytes");
      free(got);
    } else {
      pd_plot_cache_put(c, key, svg, strlen(svg));
    }
  }
  return NULL;
}

int main(void)
{
  pd_plot_cache *c = NULL;
  CHECK_INT(pd_plot_cache_new(&c), 0);
  size_t len = 0;
  CHECK(pd_plot_cache_get(c, "1/curves", &len) == NULL);
  pd_plot_cache_put(c, "1/curves", "<svg>a</svg>", 12);
  pd_plot_cache_put(c, "1/curves", "<svg>other</svg>", 16); /* kept: the first */
  char *got = pd_plot_cache_get(c, "1/curves", &len);
  CHECK(got && len == 12 && strcmp(got, "<svg>a</svg>") == 0);
  free(got);

  /* Fill past the bound: "1/curves" (the oldest) goes first, then key 0. */
  char key[32];
  for (int i = 0; i < PD_PLOT_CACHE_MAX; i++) {
    snprintf(key, sizeof key, "key%d", i);
    pd_plot_cache_put(c, key, key, strlen(key));
  }
  CHECK(pd_plot_cache_get(c, "1/curves", &len) == NULL);
  got = pd_plot_cache_get(c, "key0", &len);
  CHECK(got && strcmp(got, "key0") == 0);
  free(got);
  pd_plot_cache_put(c, "one more", "x", 1);
  CHECK(pd_plot_cache_get(c, "key0", &len) == NULL);
  got = pd_plot_cache_get(c, "key1", &len);
  CHECK(got != NULL);
  free(got);
  snprintf(key, sizeof key, "key%d", PD_PLOT_CACHE_MAX - 1);
  got = pd_plot_cache_get(c, key, &len);
  CHECK(got != NULL);
  free(got);
  pd_plot_cache_free(c);

  CHECK_INT(pd_plot_cache_new(&c), 0);
  pthread_t t[4];
  for (int i = 0; i < 4; i++)
    CHECK_INT(pthread_create(&t[i], NULL, worker, c), 0);
  for (int i = 0; i < 4; i++)
    pthread_join(t[i], NULL);
  pd_plot_cache_free(c);
  return check_summary();
}
