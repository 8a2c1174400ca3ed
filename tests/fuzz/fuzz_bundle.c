/*
 * fuzz_bundle.c - any bytes as a pascal-calibration/1 bundle imported with
 * POST /v1/calibrations/import (admin) into the in-process daemon. Asserted:
 * no 5xx; and a bundle the daemon accepted (200/201) always reloads: the text
 * stored for it decodes and refits exactly as pascald does at startup.
 * Every accepted bundle stays in the database and in memory, so the daemon
 * starts afresh after RESET_EVERY of them.
 */
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_daemon.h"
#include "pascal/calibration.h"
#include "pascal/predict.h"
#include "pascal_codec.h"
#include "pascal_store.h"

#define RESET_EVERY 200

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The startup path of a frozen calibration (calib.c, load_frozen). */
static void require_reload(pascal_store *s, int64_t id) {
  pascal_store_calibration c;
  memset(&c, 0, sizeof c);
  pascal_error err;
  pascal_error_clear(&err);
  json_t *doc = NULL;
  pascal_codec_bundle b;
  pascal_codec_bundle_init(&b);
  pascal_model *model = NULL;
  if (pascal_store_calibration_get(s, id, &c, &err) != PASCAL_STORE_OK || !c.bundle_json ||
      pascal_codec_parse(c.bundle_json, strlen(c.bundle_json), &doc, &err) != PASCAL_OK ||
      pascal_codec_bundle_decode(doc, &b, &err) != PASCAL_OK ||
      pascal_model_fit(&b.cal, &model, &err) != PASCAL_OK) {
    fprintf(stderr, "fuzz: stored calibration %lld does not reload: %s (%s)\n", (long long)id,
            err.message, err.field);
    abort();
  }
  pascal_model_free(model);
  pascal_codec_bundle_free(&b);
  json_decref(doc);
  pascal_store_calibration_clear(&c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fz_daemon *d = fz_daemon_get();
  static char answer[1 << 20];
  unsigned status = fz_http(d, "POST", "/v1/calibrations/import", (const char *)data, size,
                            fz_admin_token(d), answer, sizeof answer);
  fz_require_no_5xx(status, "POST /v1/calibrations/import", answer);
  if (status == 200 || status == 201) {
    json_t *a = json_loads(answer, 0, NULL);
    json_t *id = a ? json_object_get(a, "id") : NULL;
    if (!json_is_integer(id)) {
      fprintf(stderr, "fuzz: import answered %u without an id: %.300s\n", status, answer);
      abort();
    }
    require_reload(fz_store(d), json_integer_value(id));
    json_decref(a);
    static unsigned accepted;
    if (++accepted % RESET_EVERY == 0) fz_daemon_reset();
  }
  return 0;
}
