/* http.c - JSON requests to pascald over libcurl (http.h). */
#include "http.h"

#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pascal/grow.h"
#include "pascal_codec_jobs.h"

/* Answers from pascald are small (a job, a device, progress); anything larger
 * than this is not the jobs API and is refused rather than buffered. */
#define REPLY_MAX (1u << 20)

typedef struct buffer {
  char *data;
  size_t len, cap;
  int overflow;
} buffer;

static size_t on_body(char *ptr, size_t size, size_t nmemb, void *userdata)
{
  buffer *b = userdata;
  size_t n = size * nmemb;
  if (b->len + n > REPLY_MAX) {
    b->overflow = 1;
    return 0; /* makes curl fail the transfer with CURLE_WRITE_ERROR */
  }
  if (pascal_grow((void **)&b->data, &b->cap, b->len + n + 1, 1))
    return 0;
  memcpy(b->data + b->len, ptr, n);
  b->len += n;
  b->data[b->len] = '\0';
  return n;
}

int agent_http_init(agent_http *h, const char *base, const char *token)
{
  memset(h, 0, sizeof *h);
  if (strlen(base) >= sizeof h->base)
    return -1;
  snprintf(h->base, sizeof h->base, "%s", base);
  char auth[AGENT_TOKEN_MAX + 32];
  snprintf(auth, sizeof auth, "Authorization: Bearer %s", token);
  struct curl_slist *hd = curl_slist_append(NULL, auth);
  struct curl_slist *hd2 = hd ? curl_slist_append(hd, "Content-Type: application/json") : NULL;
  struct curl_slist *hd3 = hd2 ? curl_slist_append(hd2, "Accept: application/json") : NULL;
  CURL *c = hd3 ? curl_easy_init() : NULL;
  if (!c) {
    curl_slist_free_all(hd);
    return -1;
  }
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, hd3);
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
  curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, 5000L);
  curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, 30000L);
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L); /* threads: no SIGALRM for DNS timeouts */
  curl_easy_setopt(c, CURLOPT_USERAGENT, "pascal-agent/0.1");
  /* The token must not follow a redirect to another host. */
  curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
  curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
  h->curl = c;
  h->headers = hd3;
  return 0;
}

void agent_http_free(agent_http *h)
{
  if (h->curl)
    curl_easy_cleanup(h->curl);
  curl_slist_free_all(h->headers);
  memset(h, 0, sizeof *h);
}

void agent_reply_free(agent_reply *r)
{
  json_decref(r->body);
  r->body = NULL;
}

int agent_reply_retryable(const agent_reply *r)
{
  return r->status == 0 || r->status >= 500;
}

/* reason = "code: message (field F)" from the contract's error body, or the
 * HTTP status alone when the body is not one. */
static void describe_error(agent_reply *r)
{
  pascal_codec_api_error e;
  if (!r->body || pascal_codec_api_error_decode(r->body, &e, NULL) != PASCAL_OK)
    snprintf(r->reason, sizeof r->reason, "HTTP %ld", r->status);
  else if (e.field[0]) /* cut to fit the reason: code, then the message, then the field */
    snprintf(r->reason, sizeof r->reason, "%.40s: %.140s (field %.60s)", e.code, e.message,
             e.field);
  else
    snprintf(r->reason, sizeof r->reason, "%.40s: %.200s", e.code, e.message);
}

void agent_http_call(agent_http *h, const char *method, const char *path, json_t *body,
                     agent_reply *out)
{
  memset(out, 0, sizeof *out);
  char url[sizeof h->base + 256];
  snprintf(url, sizeof url, "%s%s", h->base, path);
  char *payload = NULL;
  if (body) {
    payload = json_dumps(body, JSON_COMPACT);
    if (!payload) {
      snprintf(out->reason, sizeof out->reason, "cannot encode the request body");
      return;
    }
  }
  buffer buf = {0};
  CURL *c = h->curl;
  curl_easy_setopt(c, CURLOPT_URL, url);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &buf);
  if (strcmp(method, "POST") == 0) {
    curl_easy_setopt(c, CURLOPT_POST, 1L);
    curl_easy_setopt(c, CURLOPT_POSTFIELDS, payload ? payload : "{}");
  } else {
    curl_easy_setopt(c, CURLOPT_HTTPGET, 1L);
  }
  CURLcode rc = curl_easy_perform(c);
  if (rc != CURLE_OK) {
    snprintf(out->reason, sizeof out->reason, "%s",
             buf.overflow ? "answer larger than 1 MiB" : curl_easy_strerror(rc));
    goto done;
  }
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &out->status);
  if (buf.len > 0) {
    json_error_t jerr;
    out->body = json_loadb(buf.data, buf.len, JSON_REJECT_DUPLICATES, &jerr);
  }
  if (out->status >= 400)
    describe_error(out);
  else if (!out->body)
    snprintf(out->reason, sizeof out->reason, "HTTP %ld with a body that is not JSON", out->status);
done:
  free(buf.data);
  free(payload);
}
