/*
 * fuzz_predict_body.c - any bytes as the body of POST /v1/predict (single
 * query or batch) against the in-process daemon with the shipped
 * calibrations loaded: every answer is a 2xx/4xx, never a 5xx or a crash.
 */
#include <stddef.h>
#include <stdint.h>

#include "fuzz_daemon.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  fz_daemon *d = fz_daemon_get();
  char answer[512];
  unsigned status =
      fz_http(d, "POST", "/v1/predict", (const char *)data, size, NULL, answer, sizeof answer);
  fz_require_no_5xx(status, "POST /v1/predict", answer);
  return 0;
}
