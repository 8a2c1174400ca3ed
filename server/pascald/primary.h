/*
 * primary.h - a replica's client of its primary: GET one JSON document over
 * libcurl, with a size cap and an abort flag so that shutdown never waits on
 * a slow primary. One handle per sync keeps the connection alive between the
 * list and export requests of that sync.
 */
#ifndef PASCALD_PRIMARY_H
#define PASCALD_PRIMARY_H

#include <jansson.h>
#include <stdatomic.h>
#include <stddef.h>

typedef struct pd_primary {
  void *curl;                    /* CURL * */
  char base[512];                /* "http://host:port", no trailing slash */
  const atomic_int *abort_if[2]; /* a transfer stops once either is != 0 */
} pd_primary;

/* 0, or -1 when libcurl cannot make a handle (why says so). */
int pd_primary_open(pd_primary *p, const char *base, const atomic_int *abort_if[2], char *why,
                    size_t whylen);
void pd_primary_close(pd_primary *p);

/* GET base+path; 0 with *out a JSON object when the primary answered 200
 * with one. Anything else (no answer, another status, a body that is not a
 * JSON object, more than PD_PRIMARY_REPLY_MAX bytes) is -1 with a one-line
 * reason in `why` naming the path. */
#define PD_PRIMARY_REPLY_MAX (64u << 20)
int pd_primary_get(pd_primary *p, const char *path, json_t **out, char *why, size_t whylen);

#endif
