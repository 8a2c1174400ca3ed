/*
 * primary.c - GET JSON documents from a replica's primary over libcurl
 * (primary.h). The body goes to an open_memstream() stream through curl's
 * default fwrite writer; the progress callback enforces the size cap and the
 * abort flag, so no buffer code of our own is needed.
 */
#include "primary.h"

#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int pd_primary_open(pd_primary *p, const char *base, const atomic_int *abort_if[2], char *why,
                    size_t whylen)
{
  memset(p, 0, sizeof *p);
  snprintf(p->base, sizeof p->base, "%s", base);
  p->abort_if[0] = abort_if[0];
  p->abort_if[1] = abort_if[1];
  CURL *c = curl_easy_init();
  if (!c) {
    snprintf(why, whylen, "cannot create a libcurl handle");
    return -1;
  }
  curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, 2000L);
  curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, 30000L);
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(c, CURLOPT_USERAGENT, "pascald-replica");
  curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
  curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
  p->curl = c;
  return 0;
}

void pd_primary_close(pd_primary *p)
{
  if (p->curl)
    curl_easy_cleanup(p->curl);
  p->curl = NULL;
}

/* Nonzero stops the transfer (CURLE_ABORTED_BY_CALLBACK). */
static int on_progress(void *cls, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal,
                       curl_off_t ulnow)
{
  (void)dltotal;
  (void)ultotal;
  (void)ulnow;
  const pd_primary *p = cls;
  return atomic_load(p->abort_if[0]) || atomic_load(p->abort_if[1]) ||
         dlnow > (curl_off_t)PD_PRIMARY_REPLY_MAX;
}

int pd_primary_get(pd_primary *p, const char *path, json_t **out, char *why, size_t whylen)
{
  *out = NULL;
  char url[sizeof p->base + 256], *body = NULL;
  size_t len = 0;
  snprintf(url, sizeof url, "%s%s", p->base, path);
  FILE *sink = open_memstream(&body, &len);
  if (!sink) {
    snprintf(why, whylen, "GET %s: out of memory", path);
    return -1;
  }
  CURL *c = p->curl;
  curl_easy_setopt(c, CURLOPT_URL, url);
  curl_easy_setopt(c, CURLOPT_HTTPGET, 1L);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, sink);
  curl_easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
  curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, on_progress);
  curl_easy_setopt(c, CURLOPT_XFERINFODATA, p);
  CURLcode rc = curl_easy_perform(c);
  fclose(sink);
  long status = 0;
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
  int ret = -1;
  if (rc != CURLE_OK) {
    snprintf(why, whylen, "GET %s: %s", path,
             rc == CURLE_ABORTED_BY_CALLBACK ? "stopped (shutdown, or answer over 64 MiB)"
                                             : curl_easy_strerror(rc));
  } else if (status != 200) {
    snprintf(why, whylen, "GET %s: HTTP %ld", path, status);
  } else {
    json_error_t jerr;
    json_t *doc = json_loadb(body ? body : "", len, JSON_REJECT_DUPLICATES, &jerr);
    if (!json_is_object(doc)) {
      json_decref(doc);
      snprintf(why, whylen, "GET %s: the answer is not a JSON object (%s)", path,
               doc ? "another JSON value" : jerr.text);
    } else {
      *out = doc;
      ret = 0;
    }
  }
  free(body);
  return ret;
}
