/*
 * fuzz_predict_query.c - any bytes as the query string of GET /v1/predict:
 * bytes that may not appear raw in a request line (controls, space, '#',
 * '%' itself, non-ASCII) are sent %-encoded, so that the daemon decodes
 * them (NUL included); '&', '=' and '+' are kept raw. At most 256
 * parameters are sent: past about 900 libmicrohttpd 0.9.75 cannot answer
 * and pascald closes the connection (docs/http-api.md), which this harness
 * counts as a failure. Every answer must be a 2xx/4xx.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "fuzz_daemon.h"

#define MAX_PARAMS 256

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  static char target[3 * 4096 + 64];
  static const char hex[] = "0123456789ABCDEF";
  fz_daemon *d = fz_daemon_get();
  size_t n = (size_t)snprintf(target, sizeof target, "/v1/predict?");
  unsigned params = 1;
  for (size_t i = 0; i < size && n + 4 < sizeof target; i++) {
    uint8_t c = data[i];
    if (c == '&' && ++params > MAX_PARAMS)
      break;
    if (c > 32 && c < 127 && c != '#' && c != '%' && c != '?') {
      target[n++] = (char)c;
    } else {
      target[n++] = '%';
      target[n++] = hex[c >> 4];
      target[n++] = hex[c & 15];
    }
  }
  target[n] = '\0';
  char answer[512];
  unsigned status = fz_http(d, "GET", target, NULL, 0, NULL, answer, sizeof answer);
  fz_require_no_5xx(status, target, answer);
  return 0;
}
