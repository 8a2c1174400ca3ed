/*
 * pascal_codec.h - the one place where JSON meets libpascal's structs. Used by
 * pascald, the `pascal` CLI and pascal-agent, so that a bundle, a plan or a
 * result has exactly one JSON form (docs/bundle-format.md, docs/cli.md).
 *
 * Conventions:
 *  - Decoders are strict: wrong types, missing fields, out-of-range values,
 *    duplicate entries and unknown format versions are errors that name the
 *    field ("measurements[12].fill_bytes"); extra keys are allowed and ignored.
 *  - Parsing rejects duplicate object keys and nesting deeper than
 *    PASCAL_CODEC_MAX_DEPTH.
 *  - Encoders return a new json_t the caller owns (json_decref). They never
 *    emit NaN or Inf (PASCAL_ERANGE naming the field instead), and
 *    pascal_codec_dump() prints doubles with 17 significant digits, so every
 *    number read back is bit-identical.
 */
#ifndef PASCAL_CODEC_H
#define PASCAL_CODEC_H

#include <jansson.h>
#include <stddef.h>

#include "pascal/error.h"
#include "pascal/plan.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PASCAL_CODEC_MAX_DEPTH 32u
#define PASCAL_CODEC_MAX_DOCUMENT (256u << 20) /* bytes */

#define PASCAL_PLAN_FORMAT "pascal-plan/1"

/* ---- documents --------------------------------------------------------- */

/* Parse `len` bytes of JSON. On success *out is a new reference. */
pascal_status pascal_codec_parse(const char *text, size_t len, json_t **out,
                                 pascal_error *err);
/* Read and parse a whole file (field "file" on I/O errors). */
pascal_status pascal_codec_load_file(const char *path, json_t **out, pascal_error *err);
/* Serialise with 17 significant digits; pretty = 2-space indent, else
 * compact. Returns malloc'd text (free()) or NULL on failure. */
char *pascal_codec_dump(const json_t *doc, int pretty);
/* Write pretty JSON plus a newline to `path`. */
pascal_status pascal_codec_write_file(const json_t *doc, const char *path,
                                      pascal_error *err);

/* ---- plans: pascal-plan/1 ---------------------------------------------- */

/* Decode and validate a plan document. A "grid" is expanded into keys
 * (pascal_plan_grid_expand); missing "horizons" default to 1, 4, 16, 64 and
 * missing "repeats" to 1. *out must be initialised (pascal_plan_init); on
 * failure it is left empty. */
pascal_status pascal_codec_plan_decode(const json_t *doc, pascal_plan *out,
                                       pascal_error *err);
/* Encode a valid plan in its canonical form (explicit "keys", never "grid"). */
pascal_status pascal_codec_plan_encode(const pascal_plan *plan, json_t **out,
                                       pascal_error *err);
/* One expanded run as the jobs API and bundles write it: scan
 * {"o","path","d","m","N","W","repeat"}, gemm {"Mg","Ng","Kg","repeat"}. */
pascal_status pascal_codec_plan_run_encode(const pascal_plan_run *run, json_t **out,
                                           pascal_error *err);

#ifdef __cplusplus
}
#endif
#endif
