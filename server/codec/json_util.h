/*
 * json_util.h - internal helpers of pascal_codec: strict typed field access
 * with error messages that name the full field path
 * ("measurements[12].fill_bytes"), and number constructors that refuse
 * NaN/Inf. Not part of the public codec API.
 */
#ifndef PASCAL_CODEC_JSON_UTIL_H
#define PASCAL_CODEC_JSON_UTIL_H

#include <jansson.h>
#include <stdint.h>

#include "json_text.h"
#include "pascal/calibration.h"
#include "pascal/error.h"
#include "pascal/plan.h"

/* A field path: "prefix.key" or "key" when prefix is empty. */
void codec_path(char *buf, size_t size, const char *prefix, const char *key);
/* "prefix[index]". */
void codec_path_index(char *buf, size_t size, const char *prefix, size_t index);

/* A GEMM configuration's members in `obj` (tile_m, tile_n, tile_k,
 * elem_bytes, stages, group_m: the keys of a bundle's "configurations" and
 * of a plan's): decode all of them (each required when `required`, else all
 * or none; *present, may be NULL, says which), or set all of them. Ranges
 * are the caller's (pascal_plan_config_validate). Errors name
 * "<prefix>.<member>". */
pascal_status codec_config_decode(const json_t *obj, const char *prefix, int required,
                                  pascal_gemm_config *out, int *present, pascal_error *err);
pascal_status codec_config_encode(json_t *obj, const pascal_gemm_config *c, pascal_error *err);

/* Member `key` of object `obj`; NULL when absent. Absent and required:
 * PASCAL_EMISSING "missing field". Present with the wrong JSON type:
 * PASCAL_EFORMAT "must be an integer/number/string/object/array". */
pascal_status codec_get_object(const json_t *obj, const char *prefix, const char *key, int required,
                               json_t **out, pascal_error *err);
pascal_status codec_get_array(const json_t *obj, const char *prefix, const char *key, int required,
                              json_t **out, pascal_error *err);
pascal_status codec_get_string(const json_t *obj, const char *prefix, const char *key, int required,
                               const char **out, pascal_error *err);
/* An integer in [lo, hi]; out is untouched when absent and not required;
 * *present (may be NULL) says whether it was there. */
pascal_status codec_get_uint(const json_t *obj, const char *prefix, const char *key, int required,
                             uint64_t lo, uint64_t hi, uint64_t *out, int *present,
                             pascal_error *err);
/* A JSON number (integer or real) that is finite and > 0 when `positive`. */
pascal_status codec_get_number(const json_t *obj, const char *prefix, const char *key, int required,
                               int positive, double *out, int *present, pascal_error *err);
/* Check a value already in hand (array elements): an integer in [lo, hi]. */
pascal_status codec_uint_value(const json_t *v, const char *field, uint64_t lo, uint64_t hi,
                               uint64_t *out, pascal_error *err);

/* Constructors: NULL on allocation failure or (codec_real) a non-finite
 * value; codec_set() steals `value` and fails with PASCAL_ERANGE naming
 * `key` when it is NULL, so a NaN never reaches the output. */
json_t *codec_real(double v);
json_t *codec_uint(uint64_t v);
/* NaN (the core's "not applicable") becomes null; +-Inf is refused (NULL). */
json_t *codec_real_or_null(double v);
pascal_status codec_set(json_t *obj, const char *key, json_t *value, pascal_error *err);
pascal_status codec_append(json_t *arr, json_t *value, const char *field, pascal_error *err);
/* obj[key] = the array v[0..n-1] (codec_uint / codec_real elements); an
 * element that is not representable fails naming `key`. */
pascal_status codec_set_uint_array(json_t *obj, const char *key, const uint64_t *v, size_t n,
                                   pascal_error *err);
pascal_status codec_set_real_array(json_t *obj, const char *key, const double *v, size_t n,
                                   pascal_error *err);
/* A device's peaks (pascal/latency.h) as {"dram_bytes_per_s",
 * "l2_bytes_per_s", "tensor_flops", "sm_clock_hz", "launch_s"}: the one JSON
 * form of bundles, device registrations and device replies. Decoding needs
 * all five numbers and pascal_peaks_check's approval; errors name
 * prefix.key. */
pascal_status codec_peaks_encode(const pascal_peaks *p, json_t **out, pascal_error *err);
pascal_status codec_peaks_decode(const json_t *obj, const char *prefix, pascal_peaks *out,
                                 pascal_error *err);
/* The tree form of a document written by the text writer: the writer's
 * text parsed (its reals read back as the same doubles, so the tree holds
 * exactly the computed values); the writer's failure if it had one. The
 * writer is left to the caller to free. */
pascal_status codec_text_to_tree(const pascal_jtext *w, json_t **out, pascal_error *err);
/* The scan key's members "o", "path", "d", "m" (in this order) into obj. */
pascal_status codec_set_scan_key(json_t *obj, const pascal_scan_key *k, pascal_error *err);

/* pascal_codec_plan_run_decode with errors named under `field` ("job.run"):
 * the jobs codec reads a claimed job's run with it. */
pascal_status codec_plan_run_decode(const json_t *obj, const char *field,
                                    pascal_plan_workload workload, pascal_plan_run *out,
                                    pascal_error *err);

#endif
