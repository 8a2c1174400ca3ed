/*
 * pascal/error.h - status codes and the error record every libpascal call
 * can fill in.
 *
 * Convention (all of libpascal): a function returns a pascal_status, writes its
 * results through out-parameters, and on failure fills the optional
 * `pascal_error *err` (which may be NULL) with the status, the name of the
 * offending input ("C", "phases[3]", "measurements[12].fill_bytes") and a
 * one-line message a user can act on. Out-parameters are untouched on failure
 * unless the function's own comment says otherwise.
 */
#ifndef PASCAL_ERROR_H
#define PASCAL_ERROR_H

#ifdef __cplusplus
extern "C" {
#endif

typedef enum pascal_status {
  PASCAL_OK = 0,
  PASCAL_EINVAL,    /* an argument is out of its domain (C >= N, M == 0, ...) */
  PASCAL_ERANGE,    /* a value overflows what the computation can represent   */
  PASCAL_ENOMEM,    /* an allocation failed                                    */
  PASCAL_ENOTFOUND, /* a named family, size, key or reference does not exist   */
  PASCAL_EREFUSED,  /* a prediction is refused (unknown family, unidentifiable
                       execution class, ...): the input is valid, the model
                       cannot answer it honestly                              */
  PASCAL_EFORMAT,   /* a calibration or other document is malformed            */
  PASCAL_EMISSING   /* a required field of a document is absent                */
} pascal_status;

#define PASCAL_ERROR_FIELD_MAX   64
#define PASCAL_ERROR_MESSAGE_MAX 256

typedef struct pascal_error {
  pascal_status status;
  char field[PASCAL_ERROR_FIELD_MAX];     /* input that caused it, or ""  */
  char message[PASCAL_ERROR_MESSAGE_MAX]; /* one line, no trailing period */
} pascal_error;

/* Stable lower-case name of a status ("ok", "invalid", "range", "nomem",
 * "not_found", "refused", "format", "missing"). Never NULL. */
const char *pascal_status_name(pascal_status status);

/* Fill `err` (if not NULL) and return `status`, so that callers can write
 * `return pascal_error_set(err, PASCAL_EINVAL, "C", "C must be below N (%u)", n);` */
pascal_status pascal_error_set(pascal_error *err, pascal_status status, const char *field,
                               const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* Reset `err` (if not NULL) to PASCAL_OK with empty field and message. */
void pascal_error_clear(pascal_error *err);

#ifdef __cplusplus
}
#endif
#endif
