/*
 * plot_cache.h - the SVG plots pascald has drawn, kept by request (calibration
 * id, kind and the normalised choices). Only frozen calibrations are plotted
 * and a frozen calibration never changes, so an entry never goes stale; the
 * cache is bounded and forgets its oldest entry when full. Thread-safe (one
 * mutex, held only to look up or insert, never while drawing).
 */
#ifndef PASCALD_PLOT_CACHE_H
#define PASCALD_PLOT_CACHE_H

#include <stddef.h>

typedef struct pd_plot_cache pd_plot_cache;

/* Entries kept at most. */
#define PD_PLOT_CACHE_MAX 256

int pd_plot_cache_new(pd_plot_cache **out);
void pd_plot_cache_free(pd_plot_cache *cache);
/* Forget every plot (their keys name calibration ids that now mean others). */
void pd_plot_cache_clear(pd_plot_cache *cache);

/* A malloc'd copy of the SVG cached under `key` (its length in *len), or
 * NULL when there is none (or no memory for the copy). */
char *pd_plot_cache_get(pd_plot_cache *cache, const char *key, size_t *len);
/* Keep a copy of `svg` under `key` (no-op when already there or out of
 * memory: the cache only saves work). */
void pd_plot_cache_put(pd_plot_cache *cache, const char *key, const char *svg, size_t len);

#endif
