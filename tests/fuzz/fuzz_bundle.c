/*
 * fuzz_bundle.c - any bytes as a pascal-calibration/1 bundle imported with
 * POST /v1/calibrations/import (admin) into the in-process daemon. Asserted:
 * no 5xx; and a bundle the daemon accepted (200/201) always reloads: the text
 * stored for it decodes and refits exactly as pascald does at startup.
 * Every accepted bundle stays in the database and in memory, so the daemon
 * starts afresh after RESET_EVERY of them. A bundle whose GEMM runs are too
 * large to score quickly is not sent (see TRACE_BUDGET).
 */
#include <jansson.h>
#include <math.h>
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

/* An import scores every run against the baselines, whose GEMM traces have
 * 2 n_r n_c n_k requests (up to 2^24 per run, PASCAL_GEMM_REQUESTS_MAX).
 * That is correct and bounded but slow in a sanitizer build (about two
 * seconds per million requests), and the harness reads an answer slower
 * than 20 s as a hang; so inputs whose runs add up past this many requests
 * are skipped. The shipped 120-shape GEMM bundle has 3.7 M; the corpus
 * seeds stay well under the budget. */
#define TRACE_BUDGET 2000000.0

static double ceil_div(double a, double b)
{
  return b > 0 ? ceil(a / b) : 0;
}

/* 1 when `data` decodes as a bundle whose GEMM traces exceed the budget. */
static int too_slow_to_score(const uint8_t *data, size_t size)
{
  json_t *doc = NULL;
  pascal_codec_bundle b;
  pascal_codec_bundle_init(&b);
  double requests = 0;
  if (pascal_codec_parse((const char *)data, size, &doc, NULL) == PASCAL_OK &&
      pascal_codec_bundle_decode(doc, &b, NULL) == PASCAL_OK &&
      b.cal.workload == PASCAL_WORKLOAD_GEMM) {
    const pascal_calibration *c = &b.cal;
    for (size_t i = 0; i < c->n_gemm_runs + c->n_heldout_gemm_runs; i++) {
      const pascal_gemm_shape *g = i < c->n_gemm_runs
                                       ? &c->gemm_runs[i].shape
                                       : &c->heldout_gemm_runs[i - c->n_gemm_runs].shape;
      requests += 2 * ceil_div(g->Mg, c->gemm.tile_m) * ceil_div(g->Ng, c->gemm.tile_n) *
                  ceil_div(g->Kg, c->gemm.tile_k);
    }
  }
  pascal_codec_bundle_free(&b);
  json_decref(doc);
  return requests > TRACE_BUDGET;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The startup path of a frozen calibration (calib.c, load_frozen). */
static void require_reload(pascal_store *s, int64_t id)
{
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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  if (too_slow_to_score(data, size))
    return 0;
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
    if (++accepted % RESET_EVERY == 0)
      fz_daemon_reset();
  }
  return 0;
}
