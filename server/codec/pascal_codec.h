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
 *    number read back is bit-identical. Predictions are also written as
 *    text by the streaming writer of json_text.h (shortest round-trip
 *    reals): the daemon's hot path.
 */
#ifndef PASCAL_CODEC_H
#define PASCAL_CODEC_H

#include <jansson.h>
#include <stddef.h>

#include "json_text.h" /* streaming text writer, pascal_json_real_format */
#include "pascal/answer.h"
#include "pascal/calibration.h"
#include "pascal/error.h"
#include "pascal/evaluate.h"
#include "pascal/plan.h"
#include "pascal/predict.h"
#include "pascal/query.h"
#include "pascal_codec_static.h" /* bounds, simulate, coherence, feedback */

#ifdef __cplusplus
extern "C" {
#endif

#define PASCAL_CODEC_MAX_DEPTH    32u
#define PASCAL_CODEC_MAX_DOCUMENT (256u << 20) /* bytes */

#define PASCAL_PLAN_FORMAT    "pascal-plan/1"
#define PASCAL_BUNDLE_FORMAT  "pascal-calibration/1"
/* "sha256:" + 64 lower-case hex digits */
#define PASCAL_CODEC_HASH_LEN 71

/* ---- documents --------------------------------------------------------- */

/* Parse `len` bytes of JSON. On success *out is a new reference. */
pascal_status pascal_codec_parse(const char *text, size_t len, json_t **out, pascal_error *err);
/* Read and parse a whole file (field "file" on I/O errors). */
pascal_status pascal_codec_load_file(const char *path, json_t **out, pascal_error *err);
/* Serialise any JSON value (null and scalars too: a LOKO report that could
 * not be computed is stored as "null") with 17 significant digits; pretty =
 * 2-space indent, else compact. Returns malloc'd text (free()) or NULL on
 * failure. */
char *pascal_codec_dump(const json_t *doc, int pretty);
/* Write pretty JSON plus a newline to `path`. */
pascal_status pascal_codec_write_file(const json_t *doc, const char *path, pascal_error *err);

/* ---- plans: pascal-plan/1 ---------------------------------------------- */

/* Decode and validate a plan document. A "grid" is expanded into keys
 * (pascal_plan_grid_expand); missing "horizons" default to 1, 4, 16, 64 and
 * missing "repeats" to 1. *out must be initialised (pascal_plan_init); on
 * failure it is left empty. */
pascal_status pascal_codec_plan_decode(const json_t *doc, pascal_plan *out, pascal_error *err);
/* Encode a valid plan in its canonical form (explicit "keys", never "grid"). */
pascal_status pascal_codec_plan_encode(const pascal_plan *plan, json_t **out, pascal_error *err);
/* One expanded run as the jobs API and bundles write it: scan
 * {"o","path","d","m","N","W","repeat"}, gemm {"Mg","Ng","Kg","repeat"}. */
pascal_status pascal_codec_plan_run_encode(const pascal_plan_run *run, json_t **out,
                                           pascal_error *err);
/* The inverse, for the agent reading a claimed job's "run" object: the
 * workload comes from the job; "repeat" is optional (0). Errors name
 * "run.o", "run.path", "run.Kg", ... */
pascal_status pascal_codec_plan_run_decode(const json_t *obj, pascal_plan_workload workload,
                                           pascal_plan_run *out, pascal_error *err);

/* ---- calibration bundles: pascal-calibration/1 ------------------------ */

/* A decoded bundle. Owns everything it points to; release with
 * pascal_codec_bundle_free(). */
typedef struct pascal_codec_bundle {
  pascal_calibration cal; /* device, workload, class rule, gemm, runs        */
  json_t *provenance;     /* the "provenance" object (source is checked)    */
  int frozen;             /* 1: content_hash (verified), model, report given */
  char content_hash[PASCAL_CODEC_HASH_LEN + 1]; /* frozen only, else ""    */
  json_t *model;                                /* frozen: the stored "model" object, else NULL   */
  json_t *report;                               /* frozen: the stored LOKO "report" or NULL       */
} pascal_codec_bundle;

void pascal_codec_bundle_init(pascal_codec_bundle *bundle);
void pascal_codec_bundle_free(pascal_codec_bundle *bundle);

/* Decode a bundle strictly (see the conventions above; measurements are
 * validated by pascal_calibration_append_*, duplicates included). A frozen
 * bundle's content_hash must equal the hash of the decoded content
 * (field "content_hash" otherwise). *out must not hold a bundle. */
pascal_status pascal_codec_bundle_decode(const json_t *doc, pascal_codec_bundle *out,
                                         pascal_error *err);

/* Encode a bundle. `provenance` (borrowed, must be an object with "source")
 * is copied. With `model` the bundle is frozen: "model" (its fitted curves),
 * "report" (the LOKO report, or null when `report` is NULL) and
 * "content_hash" are added. */
pascal_status pascal_codec_bundle_encode(const pascal_calibration *cal, const json_t *provenance,
                                         const pascal_model *model,
                                         const pascal_loko_report *report, json_t **out,
                                         pascal_error *err);

/* Content hash "sha256:<hex>": SHA-256 of the UTF-8 text of the canonical
 * content {format, device, workload, class_rule, gemm (GEMM only),
 * measurements} written by Jansson with JSON_COMPACT | JSON_SORT_KEYS |
 * JSON_REAL_PRECISION(17) (docs/bundle-format.md gives the exact rules).
 * Provenance, model and report are not hashed. */
pascal_status pascal_codec_bundle_hash(const pascal_calibration *cal,
                                       char hash[PASCAL_CODEC_HASH_LEN + 1], pascal_error *err);

/* For a frozen bundle: the stored model must equal `model` fitted from its
 * measurements, bit for bit (field "model" otherwise). OK for plain bundles. */
pascal_status pascal_codec_bundle_check_model(const pascal_codec_bundle *bundle,
                                              const pascal_model *model, pascal_error *err);

/* A device's capacity probe ("capacity_probe": {"waves", "size_blocks",
 * "fill_ratio"}) and static table ("static_experiment": {"M", "N", "H",
 * "rows": [{"block_bytes", "C", "clusters", "K", "gap_law", "sdcm", "che"}]}),
 * pascal/device_data.h, docs/bundle-format.md. Decoding refuses unknown keys
 * and checks the data; errors name fields under `prefix`. */
pascal_status pascal_codec_capacity_probe_decode(const json_t *obj, const char *prefix,
                                                 pascal_capacity_probe *out, pascal_error *err);
pascal_status pascal_codec_capacity_probe_encode(const pascal_capacity_probe *probe, json_t **out,
                                                 pascal_error *err);
pascal_status pascal_codec_static_table_decode(const json_t *obj, const char *prefix,
                                               pascal_static_table *out, pascal_error *err);
pascal_status pascal_codec_static_table_encode(const pascal_static_table *table, json_t **out,
                                               pascal_error *err);

/* ---- dynamic results ---------------------------------------------------- */

/* How much of an answer to write: the compact form {workload, K, rho,
 * fill_bytes, M, rule, expected_error_pct, extrapolated} is a prefix of the
 * explained one. */
typedef enum pascal_codec_detail {
  PASCAL_CODEC_COMPACT,
  PASCAL_CODEC_EXPLAINED
} pascal_codec_detail;

/* Who answered: pascald names the device and the calibration; the CLI,
 * answering from a bundle, names none (NULL origin). */
typedef struct pascal_codec_origin {
  const char *device;
  int64_t calibration;
} pascal_codec_origin;

/* An answer (pascal/answer.h) to `q` as one JSON object (docs/cli.md):
 * {"workload","K","rho","fill_bytes","M","rule","expected_error_pct",
 * "extrapolated"} (the compact form stops here), then the explained form's
 * "query" (every field of the workload's table), for a GEMM
 * "n_r","n_c","n_k","B0","Q","K0","kappa", then "explanation",
 * "expected_error" and "advice"; then "device" and "calibration" with an
 * origin, and "time_s" and "bound" when the answer is timed. The _write
 * form streams it into `w` as a value (an array element or the top level);
 * check pascal_jtext_status() afterwards (PASCAL_ERANGE naming a non-finite
 * value). The _encode form returns the explained document as a tree. */
void pascal_codec_answer_write(pascal_jtext *w, const pascal_query *q, const pascal_answer *a,
                               const pascal_codec_origin *origin, pascal_codec_detail detail);
pascal_status pascal_codec_answer_encode(const pascal_query *q, const pascal_answer *a,
                                         const pascal_codec_origin *origin, json_t **out,
                                         pascal_error *err);
/* GET /v1/schema: {"queries": {"scan": [field...], "gemm": [...]},
 * "methods": [method...]}; a field {"name", "type" ("integer", "number",
 * "string"), "required", "minimum" and "maximum" (numbers) or "enum"
 * (strings), "example", "doc"} in the order of its workload's table
 * (pascal/query.h), a method {"key", "name", "title", "label"} in the
 * columns of the comparison table (PASCAL_METHODS). */
pascal_status pascal_codec_schema_encode(json_t **out, pascal_error *err);

/* LOKO report: {"workload","n_keys","n_runs","n_scored","n_refused",
 * "n_keys_scored","balanced_mape":{"pascal","aligned","exact_sdcm","ppt_gpu",
 * "che","tilesight"},"keys":[...],"summary":{...}} plus "heldout" (the same
 * layout, for the held-out panel) when the report has one; unavailable
 * values (NaN in the report) are null. Reports written before exact SDCM was
 * renamed call it "sdcm" (docs/cli.md). */
pascal_status pascal_codec_loko_encode(const pascal_loko_report *report, json_t **out,
                                       pascal_error *err);
/* The comparison table in the paper's layout: one row per report (its
 * held-out panel when it has one, else its LOKO folds), labelled with
 * devices[i], and the balanced "overall" row with stratified paired
 * key-bootstrap intervals (docs/cli.md). Every row needs a scored key. */
pascal_status pascal_codec_table_encode(const pascal_loko_report *const *reports,
                                        const char *const *devices, size_t n, json_t **out,
                                        pascal_error *err);
/* The report of a calibration as bundles and pascald store it: the LOKO
 * encoding plus "table" (one row, when a key was scored). */
pascal_status pascal_codec_report_encode(const pascal_calibration *cal,
                                         const pascal_loko_report *report, json_t **out,
                                         pascal_error *err);

#ifdef __cplusplus
}
#endif
#endif
