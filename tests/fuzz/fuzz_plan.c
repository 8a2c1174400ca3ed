/*
 * fuzz_plan.c - any bytes as a pascal-plan/1 document through the codec
 * pascald and the CLI use. Asserted: a plan that decodes has a canonical
 * form (explicit keys) that always decodes again, to the same canonical
 * form (encode is a fixed point after one round).
 */
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pascal/plan.h"
#include "pascal_codec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fail(const char *what, const pascal_error *err)
{
  fprintf(stderr, "fuzz: %s: %s (%s)\n", what, err->message, err->field);
  abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  json_t *doc = NULL, *canon = NULL, *again = NULL, *canon2 = NULL;
  pascal_plan plan, plan2;
  pascal_plan_init(&plan);
  pascal_plan_init(&plan2);
  pascal_error err;
  pascal_error_clear(&err);
  if (pascal_codec_parse((const char *)data, size, &doc, &err) != PASCAL_OK ||
      pascal_codec_plan_decode(doc, &plan, &err) != PASCAL_OK)
    goto done; /* refused input: that is allowed */
  if (pascal_codec_plan_encode(&plan, &canon, &err) != PASCAL_OK)
    fail("a decoded plan does not encode", &err);
  char *text = pascal_codec_dump(canon, 0);
  if (!text)
    fail("the canonical plan does not print", &err);
  if (pascal_codec_parse(text, strlen(text), &again, &err) != PASCAL_OK ||
      pascal_codec_plan_decode(again, &plan2, &err) != PASCAL_OK)
    fail("a canonical plan does not decode again", &err);
  free(text);
  if (pascal_codec_plan_encode(&plan2, &canon2, &err) != PASCAL_OK || !json_equal(canon, canon2))
    fail("the canonical plan changes on a second round", &err);
done:
  pascal_plan_free(&plan);
  pascal_plan_free(&plan2);
  json_decref(doc);
  json_decref(canon);
  json_decref(again);
  json_decref(canon2);
  return 0;
}
